"""The review draw (B19) is the contract's formula, and shares follow the percent."""

from queuedesk.server.rules.review_draw import drawn_for_review


def test_the_draw_is_the_contracts_formula() -> None:
    for task_id in range(1, 5000):
        for percent in (0, 1, 20, 50, 99, 100):
            expected = (task_id * 2654435761) % 2**32 % 100 < percent
            assert drawn_for_review(task_id, percent) is expected, (task_id, percent)


def test_none_at_zero_all_at_100_and_about_the_share_between() -> None:
    ids = range(1, 10_001)
    assert not any(drawn_for_review(i, 0) for i in ids)
    assert all(drawn_for_review(i, 100) for i in ids)
    assert 1800 <= sum(drawn_for_review(i, 20) for i in ids) <= 2200
    # 2654435761 mod 2^32 mod 100 = 61: task 1 is drawn from 62 % up; task 8 (4) from 5 %
    assert not drawn_for_review(1, 61) and drawn_for_review(1, 62)
    assert not drawn_for_review(8, 4) and drawn_for_review(8, 5)
