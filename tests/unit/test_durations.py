"""Durations on the command line: what `prune` and `serve --retain-deliveries` accept and refuse."""

from datetime import timedelta

import pytest

from queuedesk.cli import build_parser
from queuedesk.commands.durations import parse_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30d", timedelta(days=30)),
        ("12h", timedelta(hours=12)),
        ("365d", timedelta(days=365)),
        ("90m", timedelta(minutes=90)),
        ("2w", timedelta(weeks=2)),
        ("45s", timedelta(seconds=45)),
        (" 7D ", timedelta(days=7)),
    ],
)
def test_accepted(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("30", "not a duration"),
        ("d", "not a duration"),
        ("30x", "not a duration"),
        ("1.5d", "not a duration"),
        ("-3d", "not a duration"),
        ("30 days", "not a duration"),
        ("1d12h", "not a duration"),
        ("", "not a duration"),
        ("0d", "more than 0"),
        ("36501d", "at most 36500 days"),
    ],
)
def test_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_duration(text)


def test_the_parser_names_the_option_and_the_units(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["prune", "--deliveries-older-than", "30x"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --deliveries-older-than: '30x' is not a duration" in err and "30d, 12h" in err
    args = build_parser().parse_args(["serve", "--retain-deliveries", "30d"])
    assert args.retain_deliveries == timedelta(days=30)
    assert build_parser().parse_args(["serve"]).retain_deliveries is None
