"""`queuedesk web`'s guess limit and session cookies, with a clock of the test's own."""

from queuedesk.web_sign_in import FREE_GUESSES, LONGEST_WAIT, MAX_SESSIONS, GuessLimit, SessionTokens


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_after_the_free_guesses_each_wrong_one_doubles_the_wait_up_to_the_longest() -> None:
    clock = Clock()
    limit = GuessLimit(clock)
    for _ in range(FREE_GUESSES - 1):
        limit.wrong("a")
        assert limit.wait("a") == 0
    waits = []
    for _ in range(12):
        limit.wrong("a")
        waits.append(limit.wait("a"))
        clock.now += waits[-1]  # the client waits as told, then guesses wrong again
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and waits[-1] == LONGEST_WAIT
    assert limit.wait("b") == 0  # another client is not held up


def test_a_right_answer_clears_the_count() -> None:
    clock = Clock()
    limit = GuessLimit(clock)
    for _ in range(FREE_GUESSES + 2):
        limit.wrong("a")
    assert limit.wait("a") > 0
    clock.now += LONGEST_WAIT
    limit.right("a")
    limit.wrong("a")
    assert limit.wait("a") == 0


def test_session_tokens_are_random_new_each_time_and_bounded() -> None:
    tokens = SessionTokens()
    first = tokens.new()
    assert tokens.valid(first) and not tokens.valid("") and not tokens.valid(None) and not tokens.valid("x")
    assert len(first) >= 40 and tokens.new() != first
    for _ in range(MAX_SESSIONS):
        tokens.new()
    assert not tokens.valid(first)  # the oldest went first
