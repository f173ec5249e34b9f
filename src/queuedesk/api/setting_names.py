"""How the caller of the client names each connection setting, for messages that say which to check.

The client is used from Python, from the command line and from the terminal app, and each names
the server's address, the key and the organization its own way: a message from the client names
them as its caller does (never a command-line flag in Python or in the app). The command line
gives its client `COMMAND_LINE`, the app `APP`; Python gets `PYTHON` unless it says otherwise.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from queuedesk.api import errors
from queuedesk.api.config import COMMAND_LINE_FLAGS, ENV_ORG, ENV_TOKEN, ENV_URL


@dataclass(frozen=True)
class SettingNames:
    url: str
    token: str
    org: str
    # What the caller gave the address, key and organization as: ("flags", {"url": "--url", ...}).
    given_as: tuple[str, Mapping[str, str]]
    generic_hints: bool = True  # False: the caller says what to check itself (the app's advice line)

    def hint_for(self, error: errors.QueueDeskError) -> str | None:
        """The hint naming the setting to check for an error about one, None for any other error."""
        if not self.generic_hints:
            return None
        if isinstance(error, errors.WrongAddress):
            return (
                f"Check the server URL ({self.url}): the API's paths start at the server's root, "
                "e.g. http://host:8000, without /api or another path."
            )
        if isinstance(error, errors.WrongOrganization):
            return f"Check the organization id ({self.org})."
        if isinstance(error, errors.AuthenticationError):
            return f"Check the API key ({self.token}); it may be mistyped or revoked."
        return None


PYTHON = SettingNames(
    url=f"base_url, {ENV_URL} or the profile's url",
    token=f"token, {ENV_TOKEN} or the profile's token",
    org=f"organization_id, {ENV_ORG} or the profile's org",
    given_as=("arguments", {"url": "base_url", "token": "token", "org": "organization_id"}),
)
COMMAND_LINE = SettingNames(
    url=f"--url, {ENV_URL} or the profile's url",
    token=f"--token, {ENV_TOKEN} or the profile's token",
    org=f"--org, {ENV_ORG} or the profile's org",
    given_as=("flags", COMMAND_LINE_FLAGS),
)
APP = SettingNames(
    url="the server address you connected with",
    token="the key you connected with",
    org="the organization id you connected with",
    given_as=("the connect screen", {"url": "the address", "token": "the key", "org": "the organization id"}),
    generic_hints=False,
)
