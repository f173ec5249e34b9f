"""The QueueDesk service: an ASGI app over SQLite or PostgreSQL."""
