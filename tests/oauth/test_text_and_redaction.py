"""Server text sanitized once (``mcpstream._text``) and secrets scrubbed in every echoed form
(``mcpstream.redaction.scrub_secrets``): issue 11, class 6."""

from __future__ import annotations

import base64
import json
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


PAIR_SECRET = 'p4ss w/ä+"q"'


@pytest.mark.parametrize(
    "echo",
    [
        base64.b64encode(f"client:{PAIR_SECRET}".encode()).decode(),
        base64.urlsafe_b64encode(f"c:{PAIR_SECRET}".encode()).decode().rstrip("="),
        base64.b64encode(f"{quote_plus('client')}:{quote_plus(PAIR_SECRET)}".encode()).decode(),
        quote(base64.b64encode(f"id:{PAIR_SECRET}".encode()).decode(), safe=""),
        base64.b64encode(
            json.dumps({"a": base64.b64encode(PAIR_SECRET.encode()).decode()}).encode()
        ).decode(),
        "".join(f"%{byte:02x}" for byte in PAIR_SECRET.encode()),
        quote(f"secret={quote_plus(PAIR_SECRET)}", safe=""),
        json.dumps(PAIR_SECRET)[1:-1].replace("/", "\\/"),
        json.dumps(json.dumps(PAIR_SECRET))[1:-1],
        "".join(f"\\u{ord(char):04x}" for char in PAIR_SECRET),
        PAIR_SECRET.encode("unicode_escape").decode(),
    ],
)
def test_a_secret_is_scrubbed_inside_any_encoded_value(echo: str) -> None:
    text = scrub_secrets(f"said: [{echo}] (end)", [PAIR_SECRET])
    assert text.startswith("said: [") and text.endswith("] (end)") and "<redacted>" in text
    assert echo not in text and "p4ss" not in text and "4ss" not in text
    assert scrub_secrets(text, [PAIR_SECRET]) == text  # nothing of it is left to find


def test_the_rest_of_an_encoded_value_is_kept() -> None:
    form = f"client_id=app&client_secret={quote_plus(PAIR_SECRET)}&scope=a+b"
    assert scrub_secrets(form, [PAIR_SECRET]) == "client_id=app&client_secret=<redacted>&scope=a+b"
    ordinary = "invalid_client: Y2xpZW50 %2F \\n \\u0041 dGVzdA== a+b"
    assert scrub_secrets(ordinary, [PAIR_SECRET, "s3cret-token"]) == ordinary


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
