"""Dialogs: modal screens opened over a screen, which answer it (or just close)."""
