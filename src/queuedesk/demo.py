"""`queuedesk demo`: the service on the embedded default (SQLite) with a demo organization.

It runs both halves of QueueDesk, which is why it lives above `server` and the terminal app.
"""

import argparse
import sys
from importlib.resources import as_file, files
from pathlib import Path

from platformdirs import user_data_dir

from queuedesk.service_defaults import DEFAULT_LEASE_SECONDS


def demo_db_url() -> str:
    return f"sqlite:///{Path(user_data_dir('queuedesk')) / 'demo.db'}"


def run_demo(args: argparse.Namespace) -> int:
    from queuedesk.server import commands

    with as_file(files("queuedesk") / "demo_data.toml") as seed:
        serve_args = argparse.Namespace(
            db=args.db or demo_db_url(),
            host="127.0.0.1",
            port=args.port,
            seed=str(seed),
            public_url=None,
            lease_seconds=DEFAULT_LEASE_SECONDS,
            allow_private_webhooks=True,
            db_pool_size=1,
        )
        url = f"http://127.0.0.1:{args.port}"
        print(
            f"""QueueDesk demo on {url} (database {serve_args.db})

  API keys:  admin       demo-admin-key-0000000000000001
             supervisor  demo-supervisor-key-00000000002
             worker      demo-worker-key-0000000000000003

  Try:  curl -H 'Authorization: Token demo-worker-key-0000000000000003' {url}/orgs/1/queues
        curl -X POST -H 'Authorization: Token demo-worker-key-0000000000000003' {url}/orgs/1/queues/1/tasks/next
  The API document is at {url}/openapi.json.  Stop with Ctrl+C.
""",
            file=sys.stderr,
        )
        return commands.serve(serve_args)
