"""Server text sanitized once (``mcpstream._text``) and secrets scrubbed in every echoed form
(``mcpstream.redaction.scrub_secrets``): issue 11, class 6."""

from __future__ import annotations

import base64
from urllib.parse import quote, quote_plus

import pytest
from mcpstream._text import sanitize, terminal_text
from mcpstream.redaction import scrub_secrets

SECRET = "s3cr3t/t0ken+with=chars\r\n"


@pytest.mark.parametrize(
    "echo",
    [
        SECRET,
        SECRET.strip(),
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        base64.b64encode(SECRET.encode()).decode(),
        base64.b64encode(SECRET.strip().encode()).decode().rstrip("="),
        base64.urlsafe_b64encode(SECRET.strip().encode()).decode(),
        repr(SECRET.encode())[2:-1],  # what h11 quotes: b'...\\r\\n'
    ],
)
def test_every_echoed_form_of_a_secret_is_scrubbed(echo: str) -> None:
    text = scrub_secrets(f"the server said: {echo} (end)", [SECRET, None])
    assert text == "the server said: <redacted> (end)"


def test_short_secrets_do_not_scrub_ordinary_words() -> None:
    assert scrub_secrets("a an the", ["a", ""]) == "a an the"


def test_sanitize_escapes_control_characters_and_caps_length() -> None:
    assert sanitize("ok\x1b[2J\r\nnext\u202e") == "ok\\x1b[2J\\x0d\\x0anext\\u202e"
    long = sanitize("x" * 10_000, 50)
    assert long == "x" * 50 + "...(truncated)"
    assert sanitize(12) == "12"


def test_terminal_text_strips_escape_sequences_and_keeps_lines() -> None:
    hostile = "a\x1b]0;title\x07b\x1b[31mred\x1b[0m\tc\nd\x9b2Je\x1bPdcs\x1b\\f\x00"
    assert terminal_text(hostile) == "abred\tc\nde" + "f\\x00"
