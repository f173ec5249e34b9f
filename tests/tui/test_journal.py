"""The journal on disk is one file per server and user: a worker's unsent submissions never reach
another server, nor the journal of another account on the same one."""

from queuedesk.tui.work.journal import Entry, Journal, data_dir, journal_path

SERVER = "http://127.0.0.1:8000"
WES = "wes@acme.test"


def test_the_same_server_and_user_give_the_same_journal_and_any_other_a_different_one() -> None:
    mine = journal_path(SERVER, WES)
    assert mine == journal_path(SERVER, WES)
    assert mine == journal_path(f"{SERVER}/", WES)  # the same server, written with a final slash
    assert mine.parent == data_dir() / "journal"
    others = [
        journal_path(SERVER, "wyn@acme.test"),
        journal_path("http://127.0.0.1:8001", WES),
        journal_path("https://queue.acme.test", WES),
    ]
    assert len({mine, *others}) == 4


def test_entries_written_for_one_user_are_not_read_for_another() -> None:
    entry = Entry("e1", 7, "Support", 42, {"category": "red"})
    Journal(journal_path(SERVER, WES), persist=True).put(entry)
    assert list(Journal(journal_path(SERVER, WES), persist=True).entries.values()) == [entry]
    assert Journal(journal_path(SERVER, "wyn@acme.test"), persist=True).entries == {}
    assert Journal(journal_path("http://127.0.0.1:8001", WES), persist=True).entries == {}
