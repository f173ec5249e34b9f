"""Each screen brings its own style files: the first screen parses only styles/app.tcss."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

import queuedesk.tui.modals
import queuedesk.tui.screens
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.modals.flush import FlushScreen
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.screens.work import WorkScreen
from tests.support.pilot import settle, until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import SIZE, home


def screen_classes() -> list[type[Screen]]:
    found = []
    for package in (queuedesk.tui.screens, queuedesk.tui.modals):
        for module_info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{module_info.name}")
            for _name, value in inspect.getmembers(module, inspect.isclass):
                if issubclass(value, Screen) and value.__module__ == module.__name__:
                    found.append(value)
    return found


def test_style_files_are_absolute_so_a_subclass_elsewhere_finds_them() -> None:
    # Relative paths are resolved against the file of the screen's class: bench/tui_work.py's
    # WorkScreen subclass looked for /work/main/styles/editing.tcss and failed to start.
    with_styles = [cls for cls in screen_classes() if getattr(cls, "STYLE_FILES", ())]
    assert len(with_styles) >= 10, with_styles
    for cls in with_styles:
        for path in cls.STYLE_FILES:  # type: ignore[attr-defined]
            assert Path(path).is_absolute() and Path(path).is_file(), (cls.__name__, path)


def test_every_style_file_is_loaded_by_the_app_or_a_screen() -> None:
    styles = Path(queuedesk.tui.__file__).parent / "styles"
    used = {Path(path).name for path in QueueDeskApp.CSS_PATH}
    for cls in screen_classes():
        used |= {Path(path).name for path in getattr(cls, "STYLE_FILES", ())}
    assert used == {path.name for path in styles.glob("*.tcss")}


async def test_a_screens_first_visit_adds_its_styles_without_parsing_the_others_again(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Textual's CSS_PATH on a screen re-parsed every source and restyled every node: 21-35 ms of
    # CPU on the first visit of each screen.
    reparsed = []
    reparse = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda self: (reparsed.append(self), reparse(self))[1])
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        await home(app, pilot)
        loaded = {Path(path).name for path, _ in app.stylesheet.source if path.endswith(".tcss")}
        assert loaded == {"app.tcss"}
        for key, screen, files in (
            ("enter", QueueScreen, {"queue.tcss"}),
            ("escape", None, set()),
            ("w", WorkScreen, {"editing.tcss", "forms.tcss"}),
            ("escape", None, set()),
            ("F", FlushScreen, {"dialogs.tcss"}),
        ):
            await pilot.press(key)
            await settle(app, pilot)
            if screen is not None:
                await until(app, pilot, lambda screen=screen: isinstance(app.screen, screen), screen.__name__)
            loaded |= files
            assert {Path(path).name for path, _ in app.stylesheet.source if path.endswith(".tcss")} == loaded
        assert reparsed == []
