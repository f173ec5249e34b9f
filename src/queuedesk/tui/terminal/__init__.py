"""The terminal and the host around the app: guards, the session's end, clipboard, viewers."""
