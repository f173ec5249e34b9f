"""The service's defaults, shared by the server's settings and the command line's help: the command
line must not need the `server` extra to show them."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_LEASE_SECONDS = 900
DEFAULT_DB_POOL_SIZE = 10
