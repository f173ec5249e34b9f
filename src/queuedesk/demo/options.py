"""The options of `queuedesk demo` and the demo's keys: read at every start of `queuedesk`, so nothing heavy here."""

import argparse

KEYS = {
    "admin": "demo-admin-key-0000000000000001",
    "supervisor": "demo-supervisor-key-00000000002",
    "worker": "demo-worker-key-0000000000000003",
}


def add_options(demo: argparse.ArgumentParser) -> None:
    demo.add_argument(
        "--role",
        choices=tuple(KEYS),
        default="admin",
        help="whom you are in the app: admin (default), supervisor or worker",
    )
    demo.add_argument(
        "--fresh", action="store_true", help="start from new demo data (never while a demo runs)"
    )
    demo.add_argument(
        "--no-app", action="store_true", help="serve the demo and print its keys, without the app"
    )
    demo.add_argument("--no-bots", action="store_true", help="no simulated colleagues")
    demo.add_argument("--web", action="store_true", help="open the app in a browser (queuedesk web) instead")
    demo.add_argument("--port", type=int, default=0, help="port of the demo server (default: a free one)")
    demo.add_argument("--web-port", type=int, default=8100, help="port of the browser app with --web (8100)")
