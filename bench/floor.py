"""The floor: a minimal ASGI app doing only what cannot be avoided for each benchmarked request —
parse the body, one SQLite statement, JSON out; no auth, no validation, no framework.

Every QueueDesk figure in `http_load.py` is also printed as a share of this app's figure for the
same load, on the same machine, in the same run.

    python bench/floor.py DB_PATH PORT
"""

import sqlite3
import sys
import time
from typing import Any
from urllib.parse import parse_qs

import orjson
import uvicorn

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY, queue_id INTEGER NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL,
    created_at INTEGER NOT NULL, completed_at INTEGER, assigned_to INTEGER
);
CREATE INDEX IF NOT EXISTS ix_floor_completed ON tasks (queue_id, completed_at, id);
CREATE INDEX IF NOT EXISTS ix_floor_status ON tasks (queue_id, status, id);
CREATE TABLE IF NOT EXISTS queues (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
"""


def connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    if db.execute("SELECT count(*) FROM queues").fetchone()[0] == 0:
        db.executemany("INSERT INTO queues (name) VALUES (?)", [(f"queue {n}",) for n in range(1, 101)])
    return db


def make_app(db: sqlite3.Connection) -> Any:
    async def read_body(receive: Any) -> bytes:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                return body

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        status, payload = 200, None
        if method == "POST" and path.endswith("/tasks/create"):
            data = orjson.loads(await read_body(receive))["data"]
            now = time.time_ns() // 1000
            row = db.execute(
                "INSERT INTO tasks (queue_id, status, data, created_at) VALUES (1, 'new', ?, ?) RETURNING id",
                (orjson.dumps(data).decode(), now),
            ).fetchone()
            payload = {"id": row[0], "status": "new", "created_at": now, "data": data}
        elif method == "GET" and path.endswith("/tasks/completed"):
            query = parse_qs(scope["query_string"].decode())
            limit, offset = int(query.get("limit", ["50"])[0]), int(query.get("offset", ["0"])[0])
            rows = db.execute(
                "SELECT id, status, data, created_at, completed_at FROM tasks WHERE queue_id = 1 AND "
                "completed_at IS NOT NULL ORDER BY completed_at DESC, id DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            payload = {
                "tasks": [
                    {"id": r[0], "status": r[1], "data": orjson.loads(r[2]), "completed_at": r[4]}
                    for r in rows
                ]
            }
        elif method == "GET" and path.endswith("/queues"):
            rows = db.execute("SELECT id, name FROM queues ORDER BY id").fetchall()
            payload = [{"id": r[0], "name": r[1]} for r in rows]
        elif method == "POST" and path.endswith("/tasks/next"):
            row = db.execute(
                "UPDATE tasks SET status = 'in_progress' WHERE id = (SELECT id FROM tasks WHERE queue_id = 1 "
                "AND status = 'new' ORDER BY id LIMIT 1) RETURNING id, data"
            ).fetchone()
            if row is None:
                status = 204
            else:
                payload = {"id": row[0], "data": orjson.loads(row[1])}
        elif method == "POST" and path.endswith("/complete"):
            task_id = int(path.rsplit("/", 2)[-2])
            await read_body(receive)
            db.execute(
                "UPDATE tasks SET status = 'completed', completed_at = ? WHERE id = ?",
                (time.time_ns() // 1000, task_id),
            )
            payload = {"id": task_id, "status": "completed"}
        else:
            status = 404
        body = b"" if payload is None else orjson.dumps(payload)
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


if __name__ == "__main__":
    database = connect(sys.argv[1])
    uvicorn.run(
        make_app(database), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", access_log=False
    )
