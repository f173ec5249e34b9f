"""Storage: tables, the versioned schema, the database runner and the queries."""
