"""The parts the app (`tui/app.py`) is made of, one job each: where it goes (`navigation`), the work
on its way to the server (`unsent_work`), leaving (`quitting`), and what a screen holding a task
offers them (`holds_work`). None imports the app or a screen: each is handed the app it serves."""
