"""What the role and the server allow in the Webhook tab, read afresh each time (the role can change
while the tab is open)."""

from queuedesk.tui.base import AppAccess


class WebhookAccess(AppAccess):
    @property
    def can_change(self) -> bool:
        """Admins set and remove the target, see the secret, send test pings and redeliver."""
        session = self.qd.session
        return session is not None and session.is_admin

    @property
    def extensions(self) -> bool:
        """A QueueDesk server (secrets, test pings, the delivery log), not the basic Task Queue API."""
        session = self.qd.session
        return session is not None and session.extensions
