"""The terminal elicitation form of the CLI client: a value that does not fit its field is asked
for again (type, choices, range, length, format), and a progress bar is taken off the screen
while the form asks, so every label stays readable."""

from __future__ import annotations

import json
import re
import shlex
import sys

import pytest

from mcptrio.cli.elicitation_form import Skipped, answer, hint

from .test_client_commands import in_a_terminal

ORDER = {
    "type": "object",
    "properties": {
        "size": {"type": "string", "title": "Size", "enum": ["small", "large"]},
        "count": {"type": "integer", "title": "How many", "minimum": 1, "maximum": 5},
        "gift": {"type": "boolean", "title": "Gift wrap"},
        "note": {"type": "string", "title": "Note", "maxLength": 5},
    },
    "required": ["size", "count"],
}


@pytest.mark.parametrize(
    "spec, text, expected",
    [
        (ORDER["properties"]["size"], "large", "large"),
        (ORDER["properties"]["count"], " 3 ", 3),
        (ORDER["properties"]["gift"], "Yes", True),
        ({"type": "number", "minimum": 0.5}, "0.5", 0.5),
        ({"type": "string", "oneOf": [{"const": "r", "title": "Red"}]}, "r", "r"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, "a, b", ["a", "b"]),
        ({"type": "string", "format": "date"}, "2026-07-28", "2026-07-28"),
        ({"type": "integer", "default": 2}, "", 2),
    ],
)
def test_a_value_that_fits_is_the_answer(spec, text, expected):
    assert answer(spec, text, required=True) == expected


@pytest.mark.parametrize(
    "spec, text, why",
    [
        (ORDER["properties"]["size"], "medium", "choose one of small, large"),
        (ORDER["properties"]["count"], "two", "a whole number, please"),
        (ORDER["properties"]["count"], "9", "at most 5"),
        (ORDER["properties"]["count"], "0", "at least 1"),
        (ORDER["properties"]["gift"], "maybe", "answer y or n"),
        (ORDER["properties"]["note"], "too long", "at most 5 characters"),
        ({"type": "string", "format": "email"}, "nobody", "not a valid email"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, "a, c", "c: not among a, b"),
        (ORDER["properties"]["size"], "", "an answer is required"),
    ],
)
def test_a_value_that_does_not_fit_says_why(spec, text, why):
    with pytest.raises(ValueError, match=why):
        answer(spec, text, required=True)


def test_an_optional_field_left_empty_is_skipped_and_hints_say_what_fits():
    with pytest.raises(Skipped):
        answer(ORDER["properties"]["note"], "", required=False)
    assert hint(ORDER["properties"]["count"]) == " (a whole number, 1 to 5)"
    assert hint(ORDER["properties"]["size"]) == " (one of small, large)"
    assert hint(ORDER["properties"]["gift"]) == " (y/n)"


SERVER = f"""
import json
import trio
from mcptrio import App, Context, serve_stdio

app = App("shop")

@app.tool()
async def order(ctx: Context) -> str:
    await ctx.progress(1, 3, "preparing")
    await trio.sleep(0.5)  # the bar is on the screen when the form asks
    answer = await ctx.elicit("Your order?", json.loads({json.dumps(ORDER)!r}))
    await ctx.progress(2, 3, "ordering")
    return json.dumps(answer, sort_keys=True)

trio.run(serve_stdio, app)
"""


@pytest.mark.parametrize("term", ["dumb", "xterm-256color"])
def test_the_form_asks_again_on_a_bad_value_with_its_labels_in_view(tmp_path, term):
    server = tmp_path / "shop.py"
    server.write_text(SERVER)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(server))}"
    status, raw = in_a_terminal(
        ["call", "--stdio", command, "order"],
        [b"medium\n", b"small\n", b"two\n", b"9\n", b"2\n", b"maybe\n", b"y\n", b"\n"],
        term=term,
    )
    assert status == 0, raw
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)  # (colours and cursor moves)
    assert "choose one of small, large: try again" in text
    assert "a whole number, please: try again" in text and "at most 5: try again" in text
    assert "answer y or n: try again" in text
    for label in ("Size (one of small, large): ", "How many (a whole number, 1 to 5): ", "Gift wrap (y/n): ", "Note: "):
        assert label in text, (label, text)
    result = json.loads(text[text.index('{"action"') :].splitlines()[0])
    assert result == {"action": "accept", "content": {"count": 2, "gift": True, "size": "small"}}
    if term != "dumb":  # a terminal that draws the bar: drawn before the form, not while it asks
        form = raw[raw.index("Your order?") : raw.index("Note:")]
        assert "preparing" in raw[: raw.index("Your order?")]
        assert "\x1b[2K" not in form and "preparing" not in form
