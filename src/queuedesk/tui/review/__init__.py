"""A reviewer's work without a screen: the session and whether review is offered."""
