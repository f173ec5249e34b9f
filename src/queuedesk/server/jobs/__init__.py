"""Work beside the requests: the webhook dispatcher, retention, batched writes, signing."""
