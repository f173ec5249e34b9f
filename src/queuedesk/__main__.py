from queuedesk.cli import main

if __name__ == "__main__":  # not when a work process (spawned) imports it
    raise SystemExit(main())
