"""`queuedesk.api.config`: the file, the environment, precedence and the same-source rule for keys."""

import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from queuedesk.api.config import (
    AppSettings,
    ConfigError,
    ConfigFile,
    Connection,
    Profile,
    app_settings,
    config_path,
    load_config,
    mask,
    resolve_connection,
    save_config,
    save_profile,
)

WORK = Profile(url="https://work.example", token="work-key-0123456789abcdef", org=3)
HOME = Profile(url="http://home.example:8000", token="home-key-0123456789abcdef")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "settings" / "config.toml"


@pytest.fixture
def saved(path: Path) -> Path:
    save_profile("home", HOME, path=path)
    save_profile("work", WORK, path=path)  # the default: saved last
    return path


def resolve(path: Path, environ: dict[str, str] | None = None, **flags) -> Connection | None:
    return resolve_connection(environ=environ or {}, path=path, **flags)


# --- the file -----------------------------------------------------------------------------------------


def test_a_missing_file_is_an_empty_configuration(path: Path) -> None:
    assert load_config(path) == ConfigFile()
    assert ConfigFile().app == AppSettings(refresh_seconds=5.0, theme=None, submit_on_choice=False, keys={})
    assert not path.exists()


def test_saving_writes_owner_only_files_atomically(path: Path) -> None:
    config = ConfigFile(
        default_profile="work",
        profiles={"work": WORK},
        app=AppSettings(refresh_seconds=2.5, theme="nord", keys={"queues.refresh": "f5"}),
    )
    save_config(config, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_config(path) == config
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no partial file left behind
    text = path.read_text()
    assert 'default_profile = "work"' in text and "[profiles.work]" in text
    assert '"queues.refresh" = "f5"' in text
    assert "submit_on_choice" not in text  # defaults are not written


def test_saving_replaces_a_readable_file_with_an_owner_only_one(path: Path) -> None:
    path.parent.mkdir()
    path.write_text('default_profile = "gone"\n')  # not even valid: replaced as a whole
    path.chmod(0o644)
    save_config(ConfigFile(profiles={"home": HOME}), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_config(path).profiles == {"home": HOME}


def test_save_profile_keeps_the_others_and_sets_the_default(path: Path, saved: Path) -> None:
    config = load_config(saved)
    assert config.profiles == {"home": HOME, "work": WORK}
    assert config.default_profile == "work"
    save_profile("spare", HOME, make_default=False, path=saved)
    again = load_config(saved)
    assert set(again.profiles) == {"home", "work", "spare"} and again.default_profile == "work"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_save_profile_does_not_overwrite_a_file_it_cannot_read(path: Path) -> None:
    path.parent.mkdir()
    path.write_text("[profiles.work\n")
    with pytest.raises(ConfigError):
        save_profile("home", HOME, path=path)
    assert path.read_text() == "[profiles.work\n"


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ('[profiles.work]\nurl = "https://w.example"\ntoken = "k"\norg = "three"\n', "profiles.work.org: "),
        ('[profiles.work]\nurl = "ftp://w.example"\ntoken = "k"\n', "profiles.work.url: "),
        ('[profiles.work]\nurl = "https://w.example"\n', "profiles.work.token: "),
        ('[profiles.work]\nurl = "https://w.example"\ntoken = "k"\ntokn = "x"\n', "profiles.work.tokn: "),
        ("[app]\nrefresh_seconds = 0\n", "app.refresh_seconds: "),
        ("[app]\nkeys = { 'queues.refresh' = 5 }\n", "app.keys.queues.refresh: "),
        ('default_profile = "work"\n', "default_profile 'work' is not one of the profiles"),
        ('[profiles.work]\nurl = "https://w.example"\n[profiles.work\n', "is not valid TOML"),
    ],
    ids=["org", "url", "no-token", "unknown-key", "refresh", "key-binding", "default", "toml"],
)
def test_a_malformed_file_names_the_file_and_the_place(path: Path, text: str, place: str) -> None:
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: "), caught.value
    assert place in str(caught.value)


def test_a_malformed_toml_file_names_the_line(path: Path) -> None:
    path.parent.mkdir()
    path.write_text('default_profile = "work"\n\n[profiles.work\n')
    with pytest.raises(ConfigError, match=r"line 3"):
        load_config(path)


def test_config_path_comes_from_QUEUEDESK_CONFIG_unless_empty(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QUEUEDESK_CONFIG", str(tmp_path / "elsewhere.toml"))
    assert config_path() == tmp_path / "elsewhere.toml"
    monkeypatch.setenv("QUEUEDESK_CONFIG", "")
    assert config_path().name == "config.toml" and config_path().parent.name == "queuedesk"
    assert config_path() != tmp_path / "elsewhere.toml"


# --- precedence ---------------------------------------------------------------------------------------

ENV = {
    "QUEUEDESK_URL": "https://env.example",
    "QUEUEDESK_TOKEN": "env-key-0123456789abcdef",
    "QUEUEDESK_ORG": "5",
}


def test_nothing_configured_is_none(path: Path) -> None:
    assert resolve(path) is None
    assert resolve(path, {"QUEUEDESK_URL": "", "QUEUEDESK_TOKEN": "", "QUEUEDESK_ORG": ""}) is None


def test_the_default_profile_when_nothing_else_is_given(saved: Path) -> None:
    found = resolve(saved)
    assert found == Connection(WORK.url, WORK.token, 3, "profile 'work'", "work")
    assert found is not None and found.origins == {k: "profile 'work'" for k in ("url", "token", "org")}


def test_a_named_profile_wins_over_the_default(saved: Path) -> None:
    assert resolve(saved, profile="home") == Connection(HOME.url, HOME.token, None, "profile 'home'", "home")
    by_variable = resolve(saved, {"QUEUEDESK_PROFILE": "home"})
    assert by_variable is not None and by_variable.url == HOME.url
    assert resolve(saved, {"QUEUEDESK_PROFILE": "home"}, profile="work").url == WORK.url  # type: ignore[union-attr]


def test_the_environment_wins_over_the_profile(saved: Path) -> None:
    found = resolve(saved, ENV)
    assert found == Connection(
        "https://env.example", SecretStr(ENV["QUEUEDESK_TOKEN"]), 5, "environment (QUEUEDESK_*)", None
    )
    assert found.origins == {
        "url": "environment (QUEUEDESK_URL)",
        "token": "environment (QUEUEDESK_TOKEN)",
        "org": "environment (QUEUEDESK_ORG)",
    }


def test_flags_win_over_everything(saved: Path) -> None:
    found = resolve(saved, ENV, url="http://flag.example/", token="flag-key", org=9, profile="home")
    assert found == Connection("http://flag.example", SecretStr("flag-key"), 9, "flags", None)


def test_the_process_environment_is_read_when_no_mapping_is_given(saved: Path, monkeypatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("QUEUEDESK_PROFILE", "")
    found = resolve_connection(path=saved)
    assert found is not None and (found.url, found.org) == ("https://env.example", 5)


def test_empty_variables_count_as_unset(saved: Path) -> None:
    empty = {"QUEUEDESK_URL": "", "QUEUEDESK_TOKEN": "", "QUEUEDESK_ORG": "", "QUEUEDESK_PROFILE": ""}
    assert resolve(saved, empty) == resolve(saved)
    only_org_empty = resolve(saved, {**ENV, "QUEUEDESK_ORG": ""})
    assert only_org_empty is not None and only_org_empty.org is None  # not an error, not 0


def test_a_variable_that_is_not_a_number_is_an_error_naming_it(path: Path) -> None:
    with pytest.raises(ConfigError, match=r"QUEUEDESK_ORG must be a whole number above 0, not 'acme'"):
        resolve(path, {**ENV, "QUEUEDESK_ORG": "acme"})
    with pytest.raises(ConfigError, match=r"QUEUEDESK_ORG"):
        resolve(path, {**ENV, "QUEUEDESK_ORG": "0"})


def test_a_url_that_is_not_http_is_an_error_naming_where_it_came_from(path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^QUEUEDESK_URL: 'queues\.example' is not an http\(s\) URL"):
        resolve(path, {"QUEUEDESK_URL": "queues.example"})
    with pytest.raises(ConfigError, match=r"^--url: "):
        resolve(path, url="ftp://queues.example")


# --- the same-source rule -----------------------------------------------------------------------------


def test_a_key_from_the_environment_never_goes_to_a_url_from_the_flags(saved: Path) -> None:
    found = resolve(saved, ENV, url="https://other.example")
    assert found is not None
    assert (found.url, found.token, found.org) == ("https://other.example", None, None)
    assert found.origins == {"url": "flags (--url)"}


def test_a_key_from_the_profile_never_goes_to_a_url_from_the_environment(saved: Path) -> None:
    found = resolve(saved, {"QUEUEDESK_URL": "https://env.example"})
    assert found is not None and (found.token, found.org, found.profile) == (None, None, None)


def test_a_lower_layers_key_is_used_for_the_same_url(saved: Path) -> None:
    same = resolve(saved, url=WORK.url + "/")  # the same URL, with a trailing slash
    assert same == Connection(WORK.url, WORK.token, 3, "flags", "work")
    assert same.origins == {"url": "flags (--url)", "token": "profile 'work'", "org": "profile 'work'"}
    from_env = resolve(saved, {"QUEUEDESK_URL": WORK.url, "QUEUEDESK_TOKEN": "env-key"})
    assert from_env is not None and (from_env.token, from_env.org) == (SecretStr("env-key"), 3)


def test_a_higher_layers_key_never_goes_with_a_lower_layers_url(saved: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(saved, {"QUEUEDESK_TOKEN": "env-key-0123456789abcdef"})
    said = str(caught.value)
    assert said.startswith("QUEUEDESK_TOKEN holds a key without a server URL (QUEUEDESK_URL)"), said
    assert f"the server in force is {WORK.url} (profile 'work')" in said
    assert said.endswith("Set QUEUEDESK_URL with QUEUEDESK_TOKEN, or unset QUEUEDESK_TOKEN."), said
    assert "env-key" not in said  # the key itself is never printed


def test_a_key_flag_without_a_url_flag_is_an_error_naming_the_flag(saved: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=r"^--token gives a key without a server URL \(--url\).*"
        r"Pass --url with --token, or leave --token out\.$",
    ):
        resolve(saved, token="flag-key")
    env_url = {"QUEUEDESK_URL": "https://env.example"}
    with pytest.raises(
        ConfigError,
        match=r"^--token .*the server in force is https://env\.example \("
        r"environment \(QUEUEDESK_URL\)\)",
    ):
        resolve(saved, env_url, token="flag-key")  # the environment's server is not the flag's either


def test_an_organization_above_the_servers_layer_chooses_the_organization_there(saved: Path) -> None:
    """An organization is no secret: `--org 7` (or QUEUEDESK_ORG) picks it on the saved server."""
    for found in (resolve(saved, org=7), resolve(saved, {"QUEUEDESK_ORG": "7"})):
        assert found is not None and (found.url, found.token, found.org) == (WORK.url, WORK.token, 7)


def test_a_key_without_a_url_and_no_server_anywhere_is_no_connection(path: Path) -> None:
    assert resolve(path, {"QUEUEDESK_TOKEN": "env-key"}) is None  # the callers say: no server URL
    assert resolve(path, token="flag-key", org=3) is None


def test_a_lower_layers_key_is_not_used_for_another_url(saved: Path) -> None:
    found = resolve(saved, url="https://other.example")
    assert found == Connection("https://other.example", None, None, "flags", None)
    assert found.origins == {"url": "flags (--url)"}


def test_an_empty_token_flag_without_a_url_sends_no_key(saved: Path) -> None:
    found = resolve(saved, token="")
    assert found is not None and (found.url, found.token, found.org) == (WORK.url, SecretStr(""), 3)


def test_an_empty_token_flag_means_no_key(saved: Path) -> None:
    found = resolve(saved, url=WORK.url, token="")
    assert found is not None and found.token == SecretStr("")


# --- the chosen profile, then the default profile ---------------------------------------------------------


def test_a_chosen_profile_takes_the_defaults_organization_only_for_the_same_url(path: Path) -> None:
    save_profile("work", WORK, path=path)  # org 3; the default
    save_profile("alias", Profile(url=WORK.url, token="alias-key"), make_default=False, path=path)
    save_profile("home", HOME, make_default=False, path=path)
    alias = resolve(path, profile="alias")
    assert alias is not None and (alias.url, alias.token, alias.org) == (WORK.url, SecretStr("alias-key"), 3)
    assert alias.origins == {"url": "profile 'alias'", "token": "profile 'alias'", "org": "profile 'work'"}
    home = resolve(path, profile="home")
    assert home == Connection(HOME.url, HOME.token, None, "profile 'home'", "home")


def test_app_settings_come_from_the_chosen_profile_then_the_default_then_app(path: Path) -> None:
    config = ConfigFile(
        default_profile="work",
        profiles={
            "work": WORK.model_copy(
                update={"theme": "nord", "refresh_seconds": 3.0, "keys": {"a.x": "1", "a.y": "2"}}
            ),
            "home": HOME.model_copy(update={"refresh_seconds": 1.5, "keys": {"a.y": "3"}}),
        },
        app=AppSettings(
            refresh_seconds=9.0, theme="dracula", submit_on_choice=True, keys={"a.z": "4", "a.x": "0"}
        ),
    )
    save_config(config, path)
    chosen, where = app_settings(load_config(path), "home")
    assert chosen == AppSettings(
        refresh_seconds=1.5, theme="nord", submit_on_choice=True, keys={"a.x": "1", "a.y": "3", "a.z": "4"}
    )
    assert where == {
        "refresh_seconds": "profiles.home.refresh_seconds",
        "theme": "profiles.work.theme",
        "submit_on_choice": "app.submit_on_choice",
        "utc": "app.utc",
    }
    by_variable, _ = app_settings(config, None, {"QUEUEDESK_PROFILE": "home"})
    assert by_variable == chosen
    default, _ = app_settings(config, None, {})
    assert (default.refresh_seconds, default.theme, default.keys["a.y"]) == (3.0, "nord", "2")
    assert app_settings(ConfigFile(), None, {})[0] == AppSettings()


# --- profiles that are not there ------------------------------------------------------------------------


def test_an_unknown_profile_lists_the_profiles_there_are(saved: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(saved, profile="wrok")
    assert str(caught.value) == f"There is no profile 'wrok' in {saved}; the profiles: home, work."
    with pytest.raises(ConfigError, match="'wrok'"):
        resolve(saved, {"QUEUEDESK_PROFILE": "wrok"})


def test_a_profile_without_a_file_says_there_is_no_file(path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(path, profile="work")
    assert f"({path} does not exist)" in str(caught.value) and "there are none" in str(caught.value)


def test_a_broken_file_matters_only_when_it_is_needed(path: Path) -> None:
    path.parent.mkdir()
    path.write_text("this is not toml\n")
    complete = resolve(path, ENV)
    assert complete is not None and complete.url == "https://env.example"
    with pytest.raises(ConfigError, match="is not valid TOML"):
        resolve(path, {"QUEUEDESK_URL": "https://env.example"})  # key and org may be in the file


# --- masking ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "shown"),
    [
        ("acme-ada-0123456789abcdef", "acme-a…cdef"),
        ("9f2c4e1a7b3d5f6e8a0c2b4d6f8e0a1c3b5d7f9e", "9f2c4e…7f9e"),
        ("short-key", "sh…ey"),
        ("tiny", "…"),
        ("", "(empty)"),
        (None, "(none)"),
    ],
)
def test_mask_never_shows_the_whole_key(token: str | None, shown: str) -> None:
    assert mask(token) == shown
    if token:
        assert token not in mask(token)
