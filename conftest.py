"""For every test run: the checks the service only makes under tests. Servers the tests start
inherit the environment."""

import os

# Database.statement on SQLite: a second SQL statement fails before it runs (store/database.py).
os.environ.setdefault("QUEUEDESK_STATEMENT_GUARD", "1")
