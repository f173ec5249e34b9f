"""HTTP: the ASGI core, the route table, connections, limits, errors and JSON shapes."""
