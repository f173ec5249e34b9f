"""What operators run the service by: readiness and the drain, logs, metrics (docs/operations.md)."""
