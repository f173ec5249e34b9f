"""What every screen, dialog and pane of the app is built on beside its keys: the lifecycle rule."""
