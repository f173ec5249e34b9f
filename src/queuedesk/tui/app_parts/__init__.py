"""The parts the app (`tui/app.py`) is made of, one job each: where it goes (`navigation`), the work
on its way to the server (`unsent_work`), leaving (`quitting`), and what the app asks of its
screens, by shape (`holds_work`, `screen_shapes`). None imports the app, nor a screen but to open it:
each is handed the app it serves."""
