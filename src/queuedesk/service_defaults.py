"""The service's defaults, shared by the server's settings and the command line's help: the command
line must not need the `server` extra to show them."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_LEASE_SECONDS = 900
DEFAULT_DB_POOL_SIZE = 10
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request line and its headers
DEFAULT_BODY_TIMEOUT = 30.0  # seconds for a body (at most 1 MiB) once its headers are in
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0  # seconds an idle kept-alive connection stays open
DEFAULT_MAX_CONNECTIONS = 2048
DEFAULT_RATE_LIMIT = 1000  # requests per second per API key (bursts of twice as many)
# Requests in flight per API key: a worker holds at most 3 claims (a heartbeat, a completion, a draft
# each at once) and the app reads a handful of lists in parallel; 8 leaves room for both and bounds
# what one key makes the server hold (8 answers of at most 4 MiB each).
DEFAULT_MAX_IN_FLIGHT = 8
DEFAULT_AUTH_FAILURE_LIMIT = 10  # failed authentications per second per client address (bursts of 5N)
DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1,::1"  # proxies whose X-Forwarded-For names the client
