"""A worker's work without a screen: the session, the outbox and its journal, images."""
