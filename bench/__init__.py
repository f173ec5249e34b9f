"""Benchmarks of QueueDesk (see bench/README.md)."""

# Every benchmark's server runs without the per-key rate limit: the figures measure the service, and
# one key sending thousands of requests a second is what the limit exists to stop.
UNLIMITED = ("--rate-limit", "off")
