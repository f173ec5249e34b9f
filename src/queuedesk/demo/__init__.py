"""`queuedesk demo`: the service, demo data, simulated colleagues and the terminal app, together.

It runs both halves of QueueDesk, which is why it lives above `server` and the terminal app.
`options.py` (read by every `queuedesk` start) imports neither; `launcher.run_demo` runs the command.
"""
