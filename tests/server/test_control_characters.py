"""Control characters are refused where they are never legitimate (names, descriptions, ids, emails,
URLs), with a 400 naming the field; a description keeps line breaks (CRLF becomes LF) and tabs; a
task's text is stored as sent (the display rule shows it safely)."""

import pytest

from tests.conftest import make_queue
from tests.support import CORE_BLOCKS, assert_envelope
from tests.support.contract import body_of, create

ESC_TITLE = "\x1b]0;pwned\x07"
HOSTILE = ("\x1b[2J", ESC_TITLE, "\x7f", "\x9b31m", "\r", "\x00")


def _blocks_with(**changes) -> list[dict]:
    blocks = [dict(block) for block in CORE_BLOCKS]
    for key, value in changes.items():
        index, field = key.split("__")
        blocks[int(index)] = {**blocks[int(index)], field: value}
    return blocks


@pytest.mark.parametrize("char", HOSTILE)
def test_a_queue_name_with_a_control_character_is_refused(admin, org_id, qpath, char):
    body = {"name": f"Orders {char}", "data": CORE_BLOCKS}
    found = assert_envelope(admin.post(f"/orgs/{org_id}/queues", json=body), 400, "invalid_value", "name")
    assert "control character" in found["errors"][0]["message"]
    assert_envelope(admin.patch(qpath, json={"name": f"x{char}"}), 400, "invalid_value", "name")


@pytest.mark.parametrize("char", ("\x1b", "\x7f", "\x85", "\r", "\x0b"))
def test_a_description_with_a_control_character_is_refused(admin, qpath, char):
    assert_envelope(
        admin.patch(qpath, json={"description": f"a{char}b"}), 400, "invalid_value", "description"
    )


def test_a_description_keeps_line_breaks_and_tabs_and_crlf_becomes_lf(admin, org_id, qpath):
    made = make_queue(admin, org_id, description="first\r\nsecond\n\tindented")
    assert made["description"] == "first\nsecond\n\tindented"
    assert body_of(admin.patch(qpath, json={"description": "a\r\nb"}))["description"] == "a\nb"


@pytest.mark.parametrize(
    ("blocks", "field"),
    [
        (_blocks_with(**{"0__name": "Para\x1b]0;x\x07"}), "data[0].name"),
        (_blocks_with(**{"0__text": {"placeholder": "What\x1b[2J?"}}), "data[0].text.placeholder"),
        (_blocks_with(**{"0__id": "para\x1b"}), "data[0].id"),
        (
            _blocks_with(**{"1__single_selection": {"options": [{"id": "red", "name": "Red\x9b"}]}}),
            "data[1].single_selection.options",
        ),
        (
            _blocks_with(**{"1__single_selection": {"options": [{"id": "r\x1bed", "name": "Red"}]}}),
            "data[1].single_selection.options",
        ),
    ],
)
def test_block_and_option_ids_and_names_with_control_characters_are_refused(admin, org_id, blocks, field):
    body = {"name": "Hostile blocks", "data": blocks}
    assert_envelope(admin.post(f"/orgs/{org_id}/queues", json=body), 400, "invalid_value", field)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "Eve\x1b]0;pwned\x07"),
        ("name", "Eve\u0085"),
        ("email", "e\x1b[2Jve@acme.test"),
        ("email", "eve@ac\x7fme.test"),
    ],
)
def test_a_user_name_or_email_with_a_control_character_is_refused(admin, org_id, field, value):
    body = {"email": "eve-control@acme.test", "name": "Eve", "role": "worker", field: value}
    assert_envelope(admin.post(f"/orgs/{org_id}/users", json=body), 400, "invalid_value", field)
    listed = admin.get(f"/orgs/{org_id}/users").json()
    assert "eve-control@acme.test" not in [user["email"] for user in listed]


@pytest.mark.parametrize(
    "target",
    ["http://127.0.0.1:9/hook\x1b]52;c;cHduZWQ=\x07", "http://127.0.0.1:9/\x9b", "http://127.0.0.1:9/\x7f"],
)
def test_a_webhook_target_with_a_control_character_is_refused(admin, qpath, target):
    found = assert_envelope(
        admin.put(f"{qpath}/webhook", json={"target": target}), 400, "invalid_value", "target"
    )
    assert "control character" in found["errors"][0]["message"]
    assert body_of(admin.get(f"{qpath}/webhook")) == {"target": ""}


def test_link_and_image_values_with_control_characters_are_refused(admin, org_id):
    blocks = [
        {"id": "link", "name": "Link", "type": "link"},
        {"id": "image", "name": "Image", "type": "image"},
    ]
    path = f"/orgs/{org_id}/queues/{make_queue(admin, org_id, blocks)['id']}"
    for block, url in (
        ("link", "https://example.com/\x1b]52;c;cHduZWQ=\x07"),
        ("image", "https://example.com/a\x9b.png"),
    ):
        found = assert_envelope(
            admin.post(f"{path}/tasks/create", json={"data": {block: url}}),
            400,
            "invalid_value",
            f"data.{block}",
        )
        assert "control character" in found["errors"][0]["message"]
    assert body_of(
        admin.post(f"{path}/tasks/create", json={"data": {"link": "https://example.com/\u202e"}}), 400
    )


def test_a_tasks_text_is_stored_as_sent(admin, qpath):
    text = "".join(HOSTILE) + "\u202e\x1b]8;;file:///etc/passwd\x1b\\click me"
    made = create(admin, qpath, paragraph=text)
    assert body_of(admin.get(f"{qpath}/tasks/{made['id']}"))["data"]["paragraph"] == text
