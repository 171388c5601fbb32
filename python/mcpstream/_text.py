"""Server text made safe to show: one place where text a server controls enters a message.

- :func:`sanitize` (for error messages and logs): control characters (C0, DEL, C1, and the
  Unicode bidirectional overrides that reorder what a terminal shows) become visible escapes
  such as ``\\x1b``, and the text is cut to a length limit, marked when cut.
- :func:`terminal_text` (for the command's rich output): ANSI/VT escape sequences are removed
  whole and the other control characters escaped, so nothing a server sends can move the
  cursor, retitle the window or hide text; newlines and tabs are kept.
"""

from __future__ import annotations

import re

__all__ = ["SERVER_TEXT_CHAR_LIMIT", "sanitize", "terminal_text"]

SERVER_TEXT_CHAR_LIMIT = 200
"""The default cut of server text quoted in a message (a scope, an error description, ...)."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# CSI (ESC [ ... final), OSC/DCS/APC/PM/SOS strings up to BEL or ST, and two-byte ESC forms;
# the 8-bit forms too (C1 CSI and OSC).
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitize(text: object, limit: int = SERVER_TEXT_CHAR_LIMIT) -> str:
    """``text`` (made a string) cut to ``limit`` characters, with every control character
    escaped (``\\n`` too: a message stays one line)."""
    value = text if isinstance(text, str) else str(text)
    cut = len(value) > limit
    value = _CONTROL.sub(_escape, value[:limit])
    return value + "...(truncated)" if cut else value


def terminal_text(text: str) -> str:
    """``text`` with terminal escape sequences removed and other control characters escaped
    (newlines and tabs kept), fit to print on a terminal."""
    return _CONTROL_KEEP_LINES.sub(_escape, _ESCAPE_SEQUENCE.sub("", text))
