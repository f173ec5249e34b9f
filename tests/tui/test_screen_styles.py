"""Each screen brings its own style files (the first screen parses only styles/app.tcss)."""

import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import Screen

import queuedesk.tui.screens
from queuedesk.tui.app import QueueDeskApp


def screen_classes() -> list[type[Screen]]:
    found = []
    for module_info in pkgutil.iter_modules(queuedesk.tui.screens.__path__):
        module = importlib.import_module(f"queuedesk.tui.screens.{module_info.name}")
        for _name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Screen) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_style_paths_are_absolute_files_so_a_subclass_elsewhere_finds_them() -> None:
    # Textual resolves a relative CSS_PATH against the file of the screen's class: bench/tui_work.py's
    # WorkScreen subclass looked for /work/main/styles/editing.tcss and failed to start.
    with_styles = [cls for cls in screen_classes() if cls.CSS_PATH]
    assert len(with_styles) >= 10, with_styles
    for cls in with_styles:
        paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
        for path in paths:
            assert Path(path).is_absolute() and Path(path).is_file(), (cls.__name__, path)


def test_every_style_file_is_loaded_by_the_app_or_a_screen() -> None:
    styles = Path(queuedesk.tui.__file__).parent / "styles"
    used = {Path(QueueDeskApp.CSS_PATH[0]).name}
    for cls in screen_classes():
        paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH] if cls.CSS_PATH else []
        used |= {Path(path).name for path in paths}
    assert used == {path.name for path in styles.glob("*.tcss")}
