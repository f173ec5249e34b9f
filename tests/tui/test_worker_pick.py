"""The history's worker filter for supervisors: the organization's people are offered as the field is
typed, and a name or an email in any case is read as that person (the server's filter is exact)."""

import httpx
from textual.widgets import Input, OptionList

from tests.support.pilot import screen_text, until
from tests.tui.conftest import MakeApp
from tests.tui.test_history import HALF, big, open_history  # noqa: F401  (fixture)


async def filter_by(app, pilot, screen, typed: str) -> Input:
    field = screen.query_one("#filter-worker", Input)
    await pilot.press("f")
    await until(app, pilot, lambda: screen.completed.picks.pick is not None, "the people are read")
    field.value = ""
    await pilot.press(*typed, "enter")
    return field


async def test_a_name_or_an_email_in_any_case_picks_the_worker(
    make_app: MakeApp,
    admin: httpx.Client,
    big: dict,  # noqa: F811
) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        field = screen.query_one("#filter-worker", Input)
        await pilot.press("f")
        await until(app, pilot, lambda: screen.completed.picks.pick is not None, "the people are read")
        await pilot.press(*"WY")
        await until(app, pilot, lambda: "wyn@acme.test" in screen_text(app), "the worker is offered")

        await pilot.press("escape")
        await filter_by(app, pilot, screen, "WYN")  # a name, in capitals
        await until(app, pilot, lambda: not table.busy and table.total == HALF, "Wyn's tasks")
        assert {str(table.get_row_at(i)[2]) for i in range(table.row_count)} == {"wyn@acme.test"}
        assert screen.completed.filters["completed_by"] == "wyn@acme.test"

        await filter_by(app, pilot, screen, "Wes@Acme.Test")  # an email, in any case
        await until(
            app,
            pilot,
            lambda: not table.busy and screen.completed.filters["completed_by"] == "wes@acme.test",
            "Wes",
        )
        assert table.total == HALF

        field = await filter_by(app, pilot, screen, "nobody@acme.test")
        await until(app, pilot, lambda: field.has_class("-invalid"), "refused on the field")
        assert "nobody here" in str(field.border_title) and "wes@acme.test" in str(field.border_title)
        assert screen.completed.filters["completed_by"] == "wes@acme.test"  # the filter in force is kept


async def test_the_people_are_listed_under_the_field_those_who_worked_here_first_and_down_picks(
    make_app: MakeApp,
    admin: httpx.Client,
    big: dict,  # noqa: F811
) -> None:
    app = make_app("supervisor")
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await open_history(app, pilot, big["id"])
        await pilot.press("f")
        await until(app, pilot, lambda: screen.completed.picks.pick is not None, "the people are read")
        picks = screen.query_one("#filter-worker-picks", OptionList)
        await until(app, pilot, lambda: picks.display, "the people are listed under the field")
        listed = [str(picks.get_option_at_index(i).id) for i in range(picks.option_count)]
        # Wes and Wyn completed this queue's tasks: first, and said so; then the others by name.
        assert listed == ["wes@acme.test", "wyn@acme.test", "ada@acme.test", "sue@acme.test"], listed
        assert screen_text(app).count("worked here lately") == 2, screen_text(app)
        await pilot.press(*"a")  # in any part of the name or email, any case: Ada, and the acme.test emails
        await until(app, pilot, lambda: picks.option_count == 4, "the list narrows as typed")
        await pilot.press(*"DA")
        await until(app, pilot, lambda: picks.option_count == 1, "only Ada")
        await pilot.press("backspace", "backspace", "backspace", *"w", "down", "down", "enter")
        await until(
            app, pilot, lambda: screen.completed.filters.get("completed_by") == "wyn@acme.test", "Wyn picked"
        )
        await until(app, pilot, lambda: not table.busy and table.total == HALF, "Wyn's tasks")
        assert not picks.display
