"""Reading the fields of the JSON objects the server sends: each reader returns the value when
it has the type the client relies on, and a default otherwise (``required_str`` raises)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import McpProtocolError

__all__ = [
    "dict_or_empty",
    "dict_or_none",
    "int_or_none",
    "number_or_none",
    "optional_strs",
    "required_str",
    "str_or_none",
]


def str_or_none(value: Any) -> str | None:
    """``value`` if it is a string."""
    return value if isinstance(value, str) else None


def number_or_none(value: Any) -> float | None:
    """``value`` as a float if it is a number (not a bool)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def int_or_none(value: Any) -> int | None:
    """``value`` if it is an integer (not a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def dict_or_none(value: Any) -> dict[str, Any] | None:
    """``value`` if it is an object."""
    return value if isinstance(value, dict) else None


def dict_or_empty(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty dict."""
    return value if isinstance(value, dict) else {}


def required_str(item: Any, key: str, what: str) -> str:
    """The string ``item[key]``; ``McpProtocolError`` naming ``what`` when there is none."""
    if not isinstance(item, dict) or not isinstance(item.get(key), str):
        raise McpProtocolError(f"the server sent {what} without a '{key}'")
    value: str = item[key]
    return value


def optional_strs(item: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The string fields ``keys`` of ``item`` (None where absent or not strings), named as the
    dataclass attributes they fill: ``mimeType`` becomes ``mime_type``."""
    return {_snake_case(key): str_or_none(item.get(key)) for key in keys}


def _snake_case(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
