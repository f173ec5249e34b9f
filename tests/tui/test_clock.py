"""The real clock's timers fire, also when asked for no delay at all (Textual's timer of 0 s never does)."""

from textual.app import App

from queuedesk.tui.clock import SystemClock


async def test_a_timer_of_no_delay_fires() -> None:
    fired: list[float] = []
    app = App[None]()
    async with app.run_test() as pilot:
        SystemClock().call_later(app.screen, 0, lambda: fired.append(0))
        SystemClock().call_later(app.screen, -1, lambda: fired.append(-1))
        for _ in range(50):
            if len(fired) == 2:
                break
            await pilot.pause(0.01)
    assert sorted(fired) == [-1, 0]
