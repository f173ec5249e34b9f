"""The wire contract (pydantic models, block rules) and the async client."""
