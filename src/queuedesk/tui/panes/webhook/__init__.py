"""The Webhook tab's parts, each a widget the tab (`panes/webhook_view.py`) composes and hands its
keys to: the target (`target.py`), the signing secret and the test ping (`secret.py`), the delivery
log (`delivery_log.py`). Each tells the tab what changed by a message; none knows another."""
