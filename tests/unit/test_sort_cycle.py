from queuedesk.tui.views.sort_cycle import next_sort


def test_the_sort_moves_to_the_next_column_and_round_again() -> None:
    assert next_sort(["id", "status", "holder"], "id") == "status"
    assert next_sort(["id", "status", "holder"], "holder") == "id"
    assert next_sort(["id", "status"], "gone") == "id"  # a column no longer shown: the first
