"""The terminal app's JSON field for other block types (`tui/forms/fallback.py`): text that is not
JSON it can read is a problem shown under the field, never an exception."""

import pytest

from queuedesk.api.models import Block
from queuedesk.tui.forms.fallback import FallbackEditor


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{bad", "not valid JSON (Expecting property name"),
        ("[" + "1" * 5000 + "]", "not JSON that can be read"),  # json.loads: a ValueError without `.msg`
        ("[" * 5000 + "]" * 5000, "nested too deeply"),  # json.loads: RecursionError
    ],
)
def test_unreadable_json_is_a_problem_not_an_exception(text, says):
    editor = FallbackEditor(Block.model_validate({"id": "x", "name": "X", "type": "list"}), editable=True)
    editor._text = text
    assert says in (editor.parse_problem() or "")
    assert editor.value() == text


def test_json_is_read():
    editor = FallbackEditor(Block.model_validate({"id": "x", "name": "X", "type": "list"}), editable=True)
    editor._text = '[1, "a"]'
    assert editor.parse_problem() is None and editor.value() == [1, "a"]
