"""Where the client's settings come from: flags, the QUEUEDESK_* environment, and a TOML file.

The file (`config_path()`) holds named connection profiles and the terminal app's own settings:

    default_profile = "work"

    [profiles.work]
    url = "https://queues.example.com"
    token = "acme-ada-0123456789abcdef"
    org = 1

    [app]
    refresh_seconds = 5.0
    utc = false                  # true: times and date filters in UTC, not the local zone
    keys = { "queues.refresh" = "f5" }

`resolve_connection` picks the server, key and organization: flags first, then the environment,
then the profile named by `--profile` (or QUEUEDESK_PROFILE), then the file's default profile. The
first of these layers that names a server URL gives the key and organization too: a key is only
ever sent to the server it came with. A lower layer's key (or organization) counts only when that
layer names the same URL, and a higher layer's key without a URL is an error, never sent to a lower
layer's server. An organization is no secret: one given above the server's layer (`--org 7`)
chooses the organization on that server.

`app_settings` gives the app's settings: a profile may set `refresh_seconds`, `theme`,
`submit_on_choice`, `utc` and `keys` of its own; the chosen profile's win, then the default profile's,
then the file's [app] section.
"""

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pydantic
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from queuedesk.api.numbers import plain_int
from queuedesk.atomic_write import write_atomically

# platformdirs and tomli_w are imported where they are used: this module is on the app's start
# path, and most starts need neither.

ENV_PREFIX = "QUEUEDESK_"
ENV_URL = "QUEUEDESK_URL"
ENV_TOKEN = "QUEUEDESK_TOKEN"
ENV_ORG = "QUEUEDESK_ORG"
ENV_PROFILE = "QUEUEDESK_PROFILE"
ENV_CONFIG = "QUEUEDESK_CONFIG"
FLAGS = "flags"
ENVIRONMENT = "environment (QUEUEDESK_*)"


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file or variable and the place."""


def check_url(value: str) -> str:
    """The server URL without a trailing slash; ValueError unless it is an absolute http(s) URL."""
    url = value.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http(s) URL such as http://127.0.0.1:8000")
    return url


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Profile(_Strict):
    """One server and the key to use there, and app settings of its own (None: not set here)."""

    url: str
    token: SecretStr = Field(min_length=1)  # shown as "**********"; only `save_config` writes it out
    org: int | None = Field(default=None, gt=0)
    refresh_seconds: float | None = Field(default=None, gt=0)
    theme: str | None = None
    submit_on_choice: bool | None = None
    utc: bool | None = None
    keys: dict[str, str] = Field(default_factory=dict)  # binding id -> key(s), over [app] keys

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_url(value)


class AppSettings(_Strict):
    """The terminal app's own settings: the file's [app] section, and what the app runs with (a
    profile's own values over it, `--refresh` over all: `app_settings`, `tui/main.prepare`)."""

    refresh_seconds: float = Field(default=5.0, gt=0)
    theme: str | None = None
    submit_on_choice: bool = False
    utc: bool = False  # times shown and date filters read in UTC rather than the local zone
    keys: dict[str, str] = Field(default_factory=dict)  # binding id -> key(s)


class ConfigFile(_Strict):
    default_profile: str | None = None
    profiles: dict[str, Profile] = Field(default_factory=dict)
    app: AppSettings = Field(default_factory=AppSettings)

    @model_validator(mode="after")
    def _default_is_a_profile(self) -> "ConfigFile":
        if self.default_profile is not None and self.default_profile not in self.profiles:
            raise ValueError(
                f"default_profile {self.default_profile!r} is not one of the profiles ({_names(self)})"
            )
        return self


def _names(config: ConfigFile) -> str:
    return ", ".join(sorted(config.profiles)) or "there are none"


# --- the file ---------------------------------------------------------------------------------------


def _config_path(environ: Mapping[str, str]) -> Path:
    chosen = environ.get(ENV_CONFIG)
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("queuedesk")) / "config.toml"


def config_path() -> Path:
    """$QUEUEDESK_CONFIG when set and not empty, else config.toml in the user's config directory."""
    return _config_path(os.environ)


def _problems(exc: pydantic.ValidationError) -> str:
    found = []
    for error in exc.errors():
        place = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        found.append(f"{place}: {message}" if place else message)
    return "; ".join(found)


def load_config(path: Path | None = None) -> ConfigFile:
    """The file's settings; an empty ConfigFile when there is no file; ConfigError when it is wrong."""
    path = path or config_path()
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except FileNotFoundError:
        return ConfigFile()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: is not valid TOML ({exc})") from None
    try:
        return ConfigFile.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise ConfigError(f"{path}: {_problems(exc)}") from None


def _in_clear(config: ConfigFile) -> dict[str, Any]:
    """The file's contents as TOML values, keys in clear (a dump shows them as "**********")."""
    raw = config.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
    for name, profile in config.profiles.items():
        raw["profiles"][name]["token"] = profile.token.get_secret_value()
    return raw


def save_config(config: ConfigFile, path: Path | None = None) -> None:
    """Write the file atomically, readable by its owner only (it holds API keys)."""
    import tomli_w

    path = path or config_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_atomically(path, tomli_w.dumps(_in_clear(config)))


def save_profile(name: str, profile: Profile, *, make_default: bool = True, path: Path | None = None) -> None:
    """Add or replace one profile (and make it the default), keeping the rest of the file."""
    if not name.strip():
        raise ConfigError("a profile needs a name")
    config = load_config(path)
    profiles = {**config.profiles, name: profile}
    default = name if make_default else config.default_profile
    save_config(config.model_copy(update={"profiles": profiles, "default_profile": default}), path)


def remember_app_setting(profile: str | None, key: str, value: Any, *, path: Path | None = None) -> None:
    """Keep one app setting chosen in the app (e.g. `submit_on_choice`) for the next start: in the
    profile in use when the file has it (its own value would win over [app]), else in [app]."""
    if key not in _APP_FIELDS:
        raise ConfigError(f"{key} is not an app setting ({', '.join(_APP_FIELDS)})")
    config = load_config(path)
    if profile is not None and profile in config.profiles:
        profiles = {**config.profiles, profile: config.profiles[profile].model_copy(update={key: value})}
        config = config.model_copy(update={"profiles": profiles})
    else:
        config = config.model_copy(update={"app": config.app.model_copy(update={key: value})})
    save_config(config, path)


# --- the environment --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Variables:
    """QUEUEDESK_URL, _TOKEN, _ORG and _PROFILE as read; None when unset or empty."""

    url: str | None = None
    token: SecretStr | None = None
    org: int | None = None
    profile: str | None = None


_VARIABLES = {ENV_URL: "url", ENV_TOKEN: "token", ENV_ORG: "org", ENV_PROFILE: "profile"}


def _read_environment(environ: Mapping[str, str] | None) -> _Variables:
    """The connection variables; the name's case does not matter; an empty variable counts as unset.

    Read here, not with pydantic-settings: four variables, and importing it took ≈0.1 s of the
    app's start (a quarter of the budget over a bare Textual app).
    """
    given = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in given.items():
        key = _VARIABLES.get(name.upper())
        if key is not None and value != "" and (key not in found or name == name.upper()):
            found[key] = value
    org = None
    if "org" in found:
        org = plain_int(found["org"])
        if not org:
            raise ConfigError(f"{ENV_ORG} must be a whole number above 0, not {found['org']!r}")
    token = found.get("token")
    return _Variables(
        url=found.get("url"),
        token=None if token is None else SecretStr(token),
        org=org,
        profile=found.get("profile"),
    )


# --- resolving a connection -------------------------------------------------------------------------


@dataclass(frozen=True)
class Connection:
    """The server, key and organization a client uses, and where they came from."""

    url: str
    token: SecretStr | None  # SecretStr(""): no key, asked for explicitly (`--token ""`)
    org: int | None
    source: str  # for people: "flags", "environment (QUEUEDESK_*)", "profile 'work'"
    profile: str | None  # the profile any of the values came from
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)  # value -> where from


@dataclass(frozen=True)
class _Layer:
    source: str
    url: str | None
    token: SecretStr | None
    org: int | None
    origins: Mapping[str, str]
    profile: str | None = None


def _url_of(value: str | None, where: str) -> str | None:
    if not value:
        return None
    try:
        return check_url(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _profile_layer(name: str, profile: Profile) -> _Layer:
    here = f"profile {name!r}"
    return _Layer(
        here, profile.url, profile.token, profile.org, {k: here for k in ("url", "token", "org")}, name
    )


def _profile_layers(named: str | None, environ: Mapping[str, str] | None, path: Path | None) -> list[_Layer]:
    """The chosen profile (when one is named), then the default profile."""
    file = path or _config_path(os.environ if environ is None else environ)
    config = load_config(file)
    if named is not None and named not in config.profiles:
        where = f"in {file}" if file.exists() else f"({file} does not exist)"
        raise ConfigError(f"There is no profile {named!r} {where}; the profiles: {_names(config)}.")
    return [_profile_layer(name, config.profiles[name]) for name in _chosen_then_default(config, named)]


def _chosen_then_default(config: ConfigFile, named: str | None) -> list[str]:
    return [name for name in dict.fromkeys((named, config.default_profile)) if name in config.profiles]


COMMAND_LINE_FLAGS = {"url": "--url", "token": "--token", "org": "--org"}


def _named(origin: str) -> str:
    return origin[origin.index("(") + 1 : -1]  # "flags (--token)" -> "--token"


def _no_stray_values(above: list[_Layer], chosen: _Layer) -> None:
    """A key in a layer above the one that names the server would go to a server it was not given
    for: a ConfigError that says where it is and what to do."""
    for layer in above:
        if layer.token is None or not layer.token.get_secret_value():  # --token "" asks for no key
            continue
        name, url_name = _named(layer.origins["token"]), _named(layer.origins["url"])
        given, fix = (
            ("gives", f"Pass {url_name} with {name}, or leave {name} out")
            if layer.source == FLAGS
            else ("holds", f"Set {url_name} with {name}, or unset {name}")
        )
        raise ConfigError(
            f"{name} {given} a key without a server URL ({url_name}), and a key goes "
            f"only to the server it is given for; the server in force is "
            f"{chosen.url} ({chosen.origins['url']}). {fix}."
        )


def _pick(layers: list[_Layer], chosen: int, key: str) -> tuple[Any, _Layer | None]:
    """A value from the layer that names the server, else from a lower layer naming the same URL."""
    url = layers[chosen].url
    for layer in layers[chosen:]:
        value = getattr(layer, key)
        if value is not None and layer.url == url:
            return value, layer
    return None, None


def resolve_connection(
    *,
    url: str | None = None,
    token: str | SecretStr | None = None,
    org: int | None = None,
    profile: str | None = None,
    environ: Mapping[str, str] | None = None,
    path: Path | None = None,
    given_as: tuple[str, Mapping[str, str]] = ("flags", COMMAND_LINE_FLAGS),
) -> Connection | None:
    """The connection in force, or None when no layer names a server at all.

    `given_as` says how messages name the first three arguments: the command line's flags, or
    (from Python) the client's arguments.

    `token=""` is a flag too: explicitly no key. An unknown profile name is a ConfigError that lists
    the profiles there are; so is a key (or organization) given without its server's URL above the
    layer that names the server.
    """
    variables = _read_environment(environ)
    layers = [
        _Layer(
            FLAGS,
            _url_of(url, given_as[1]["url"]),
            SecretStr(token) if isinstance(token, str) else token,
            org,
            {key: f"{given_as[0]} ({given_as[1][key]})" for key in ("url", "token", "org")},
        ),
        _Layer(
            ENVIRONMENT,
            _url_of(variables.url, ENV_URL),
            variables.token,
            variables.org,
            {
                "url": f"environment ({ENV_URL})",
                "token": f"environment ({ENV_TOKEN})",
                "org": f"environment ({ENV_ORG})",
            },
        ),
    ]
    named = profile or variables.profile
    complete = all(
        any(getattr(layer, key) is not None for layer in layers) for key in ("url", "token", "org")
    )
    if named or not complete:
        layers.extend(_profile_layers(named, environ, path))
    chosen = next((index for index, layer in enumerate(layers) if layer.url is not None), None)
    if chosen is None:
        return None
    _no_stray_values(layers[:chosen], layers[chosen])
    picked = {key: _pick(layers, chosen, key) for key in ("url", "token", "org")}
    org_above = next((layer for layer in layers[:chosen] if layer.org is not None), None)
    if org_above is not None:
        picked["org"] = (org_above.org, org_above)
    if any(layer.token is not None and not layer.token.get_secret_value() for layer in layers[:chosen]):
        picked["token"] = (
            SecretStr(""),
            layers[0],
        )  # only flags: the environment's empty variables are unset
    used = [layer for _value, layer in picked.values() if layer is not None]
    return Connection(
        url=picked["url"][0],
        token=picked["token"][0],
        org=picked["org"][0],
        source=layers[chosen].source,
        profile=next((layer.profile for layer in used if layer.profile is not None), None),
        origins={key: layer.origins[key] for key, (_value, layer) in picked.items() if layer is not None},
    )


# --- the app's settings -----------------------------------------------------------------------------

_APP_FIELDS = ("refresh_seconds", "theme", "submit_on_choice", "utc")


def app_settings(
    config: ConfigFile, profile: str | None = None, environ: Mapping[str, str] | None = None
) -> tuple[AppSettings, dict[str, str]]:
    """The app's settings in force and where each set one comes from ("profiles.work.theme").

    The chosen profile (`profile`, else QUEUEDESK_PROFILE) first, then the default profile, then
    the file's [app] section; `keys` are merged, the chosen profile's over the default's over [app].
    """
    named = profile or (os.environ if environ is None else environ).get(ENV_PROFILE) or None
    names = _chosen_then_default(config, named)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in _APP_FIELDS:
        values[key] = getattr(config.app, key)
        origins[key] = f"app.{key}"
        for name in names:
            value = getattr(config.profiles[name], key)
            if value is not None:
                values[key], origins[key] = value, f"profiles.{name}.{key}"
                break
    keys = dict(config.app.keys)
    for name in reversed(names):
        keys.update(config.profiles[name].keys)
    return AppSettings(**values, keys=keys), origins


def mask(secret: SecretStr | str | None) -> str:
    """A key shown to people: enough to tell keys apart, never the whole key."""
    if secret is None:
        return "(none)"
    token = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    if token == "":
        return "(empty)"
    if len(token) >= 16:
        return f"{token[:6]}…{token[-4:]}"
    if len(token) >= 8:
        return f"{token[:2]}…{token[-2:]}"
    return "…"
