"""An API key never shows in a repr, a log line or a traceback's locals: every holder keeps it as a
`SecretStr`, and only the request header and the saved profile see it in clear."""

from pathlib import Path

from queuedesk.api.config import ConfigFile, Profile, load_config, resolve_connection, save_config
from queuedesk.tui.settings import Target

KEY = "very-secret-key-0123456789"


def test_a_key_is_not_in_the_repr_of_what_holds_it(tmp_path: Path) -> None:
    connection = resolve_connection(
        url="http://a.example", token=KEY, environ={}, path=tmp_path / "none.toml"
    )
    from_environment = resolve_connection(
        environ={"QUEUEDESK_URL": "http://a.example", "QUEUEDESK_TOKEN": KEY}, path=tmp_path / "none.toml"
    )
    profile = Profile(url="http://a.example", token=KEY)
    holders = [
        connection,
        from_environment,
        profile,
        ConfigFile(profiles={"p": profile}),
        Target("http://a", KEY, None),
    ]
    for holder in holders:
        assert KEY not in repr(holder) and KEY not in str(holder), holder


def test_the_saved_profile_holds_the_key_itself(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(ConfigFile(profiles={"p": Profile(url="http://a.example", token=KEY)}), path)
    assert f'token = "{KEY}"' in path.read_text()
    assert load_config(path).profiles["p"].token.get_secret_value() == KEY
