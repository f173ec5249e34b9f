"""Parts of a screen that talk to the server and open dialogs: the queue screen's webhook and
statistics tabs, the people screen's users and keys. (Plain widgets, which do neither, are in `widgets/`.)"""
