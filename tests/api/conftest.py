"""The original service's stand-in, for every module of tests/api that talks to it."""

from tests.api.test_original_service import further, original, service

__all__ = ["further", "original", "service"]
