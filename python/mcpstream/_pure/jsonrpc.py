"""JSON-RPC 2.0 framing in pure Python: the typed messages, ``parse_jsonrpc_line`` and
``encode_jsonrpc_message``.

Parsing is the stdlib ``json`` scanner (C-accelerated) plus a validation pass; both run in the
order the contract lists, so the first failing rule names the error. ``NaN`` and
``Infinity``, which stdlib ``json`` accepts, are refused as the contract wants.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from itertools import accumulate, repeat
from typing import Any, Final, NoReturn, TypeAlias, final

from ..errors import JsonRpcProtocolError
from ._common import Frozen, member_setters, new_object

# The contract's names (``mcpstream._pure`` re-exports exactly these); the helpers the other
# modules of the backend import are left out.
__all__ = [
    "JsonRpcEvent",
    "JsonRpcId",
    "JsonRpcMessage",
    "JsonRpcNotification",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "encode_jsonrpc_message",
    "parse_jsonrpc_line",
]

JsonRpcId: TypeAlias = int | str


@final
class JsonRpcRequest(Frozen):
    """A JSON-RPC request: has ``method`` and an ``id`` (``int`` or ``str``).

    ``params`` is the parsed ``params`` value (dict or list), ``None`` when absent or null.
    Immutable; equal when all fields are equal; ``repr`` is
    ``JsonRpcRequest(id=..., method=..., params=...)``.
    """

    __slots__ = {
        "id": "The request id, an int or a str.",
        "method": "The method name.",
        "params": "The params object or array, None when absent or null.",
    }
    id: JsonRpcId
    method: str
    params: Any

    def __init__(self, *, id: JsonRpcId, method: str, params: Any = None) -> None:
        _request_id(self, id)
        _request_method(self, method)
        _request_params(self, params)

    def __eq__(self, other: object) -> bool:
        if type(other) is not JsonRpcRequest:
            return NotImplemented
        return self.id == other.id and self.method == other.method and self.params == other.params

    __hash__ = None  # type: ignore[assignment]


@final
class JsonRpcNotification(Frozen):
    """A JSON-RPC notification: has ``method`` and no ``id``.

    ``repr`` is ``JsonRpcNotification(method=..., params=...)``.
    """

    __slots__ = {
        "method": "The method name.",
        "params": "The params object or array, None when absent or null.",
    }
    method: str
    params: Any

    def __init__(self, *, method: str, params: Any = None) -> None:
        _notification_method(self, method)
        _notification_params(self, params)

    def __eq__(self, other: object) -> bool:
        if type(other) is not JsonRpcNotification:
            return NotImplemented
        return self.method == other.method and self.params == other.params

    __hash__ = None  # type: ignore[assignment]


@final
class JsonRpcResponse(Frozen):
    """A JSON-RPC response: exactly one of ``result`` / ``error`` was present.

    ``id`` is ``int`` or ``str``; ``None`` only in an error response. ``result`` is the parsed
    result (``None`` for a JSON null result and for error responses). ``error`` is the error
    object as a dict, ``None`` for a result. ``repr`` is
    ``JsonRpcResponse(id=..., result=..., error=...)``.
    """

    __slots__ = {
        "error": "The error object as a dict, None for a result response.",
        "id": "The id of the request answered; None only in an error response.",
        "result": "The result value (None for a null result and for an error response).",
    }
    id: JsonRpcId | None
    result: Any
    error: dict[str, Any] | None

    def __init__(
        self, *, id: JsonRpcId | None, result: Any = None, error: dict[str, Any] | None = None
    ) -> None:
        _response_id(self, id)
        _response_result(self, result)
        _response_error(self, error)

    @property
    def is_error(self) -> bool:
        """True when this response carries an ``error`` object."""
        return self.error is not None

    def __eq__(self, other: object) -> bool:
        if type(other) is not JsonRpcResponse:
            return NotImplemented
        return self.id == other.id and self.result == other.result and self.error == other.error

    __hash__ = None  # type: ignore[assignment]


JsonRpcMessage: TypeAlias = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse


@final
class JsonRpcEvent(Frozen):
    """The JSON-RPC content of one SSE event, from ``SseDecoder.feed_jsonrpc``.

    ``id`` and ``event`` are the SSE event's fields. ``messages`` holds the parsed message (one)
    or batch (several). ``error`` is the ``JsonRpcProtocolError`` that parsing the data raised,
    with ``messages == ()``. Not constructible from Python. ``repr`` is
    ``JsonRpcEvent(id=..., event=..., messages=..., error=...)``.
    """

    __slots__ = {
        "error": "The JsonRpcProtocolError parsing raised, or None.",
        "event": "The SSE event's type, None if it had none.",
        "id": "The SSE event's id, None if it had none.",
        "messages": "The parsed message, or the messages of a batch, in order.",
    }
    id: str | None
    event: str | None
    messages: tuple[JsonRpcMessage, ...]
    error: Exception | None

    def __new__(cls, *args: object, **kwargs: object) -> JsonRpcEvent:
        raise TypeError("No constructor defined for JsonRpcEvent")

    def __eq__(self, other: object) -> bool:
        """Equal when id, event and messages are equal and both errors are None, or both are
        errors with the same class and message."""
        if type(other) is not JsonRpcEvent:
            return NotImplemented
        if self.id != other.id or self.event != other.event or self.messages != other.messages:
            return False
        mine, theirs = self.error, other.error
        if mine is None or theirs is None:
            return mine is theirs
        return type(mine) is type(theirs) and str(mine) == str(theirs)

    __hash__ = None  # type: ignore[assignment]


_request_id, _request_method, _request_params = member_setters(JsonRpcRequest)
_notification_method, _notification_params = member_setters(JsonRpcNotification)
_response_id, _response_result, _response_error = member_setters(JsonRpcResponse)
_event_id, _event_event, _event_messages, _event_error = member_setters(JsonRpcEvent)


# ---------------------------------------------------------------------------------------------
# Parsing

_NOT_VERSION_2: Final = 'JSON-RPC message must have "jsonrpc": "2.0"'
_BAD_METHOD: Final = '"method" must be a string'
_BAD_ID: Final = '"id" must be a string or an integer'
_BAD_PARAMS: Final = '"params" must be an object or an array'
_METHOD_AND_RESPONSE: Final = 'JSON-RPC message must not have both "method" and "result" or "error"'
_NOT_EXACTLY_ONE: Final = 'JSON-RPC response must have exactly one of "result" and "error"'
_NO_ID: Final = 'JSON-RPC response must have an "id"'
_BAD_ERROR: Final = '"error" must be an object with an integer "code" and a string "message"'

_MISSING: Final[Any] = object()
_JSON_WHITESPACE: Final = " \t\r\n"

MAX_DEPTH: Final = 100
"""Containers nested deeper than this are refused, by the parser (``invalid JSON: nesting
deeper than 100 levels at line L column C``, at the bracket that opens level 101) and by the
encoder (``cannot encode: circular reference or nesting too deep``); the top-level value is
level 1. The native backend has the same limit (``json_scan::MAX_DEPTH``). Checked before the
stdlib ``json`` runs, whose C code recurses once per level, so that it never goes deeper in a
small thread stack; long texts on a roomy main thread are checked on the parsed value instead
(``_check_nesting``)."""
_DEPTH_EXCEEDED: Final = f"nesting deeper than {MAX_DEPTH} levels"
_STACK_EXHAUSTED: Final = "nesting too deep for this thread's stack"
"""The native backend's words (``json_scan::STACK_EXHAUSTED``) for a text within ``MAX_DEPTH``
that the thread's stack cannot hold: since 3.14 CPython checks its C stack against the
thread's bounds, so in the smallest stacks it accepts ``json`` stops before 100 levels."""


class _NonFiniteConstant(Exception):
    """Raised from the JSON scanner for ``NaN``, ``Infinity`` and ``-Infinity``."""


def _refuse_constant(name: str) -> NoReturn:
    raise _NonFiniteConstant(name)


_decoder = json.JSONDecoder(parse_constant=_refuse_constant)
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]
_skip_whitespace = re.compile(r"[ \t\n\r]*").match


def _json_whitespace_end(text: str, pos: int) -> int:
    """The index of the first non-whitespace character of ``text`` at or after ``pos``."""
    match = _skip_whitespace(text, pos)
    return pos if match is None else match.end()


_utf_32_le_encode: Final = codecs.utf_32_le_encode


def _raw_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate in non-ASCII ``text``, or None. The strict UTF-32
    encoder finds it several times faster than a regular expression (and than UTF-8); called
    directly, not through ``str.encode``'s codec lookup (which costs more on short texts)."""
    # No shortcut on the str's width: ``str.__sizeof__`` counts differently from CPython 3.13
    # on, so a width read off it let surrogates through there.
    try:
        _utf_32_le_encode(text)
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def _position(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    return f"line {line} column {column} (char {pos})"


def _invalid_json(problem: str) -> JsonRpcProtocolError:
    return JsonRpcProtocolError(f"invalid JSON: {problem}")


def _loads(text: str) -> Any:
    """``json.loads`` without NaN and Infinity, mapping every failure to ``invalid JSON``."""
    try:
        try:
            value, end = _scan_once(text, 0)
        except StopIteration:
            # Leading whitespace, or no value at all: the full decoder handles and words both.
            value = _decoder.decode(text)
        else:
            if end != len(text) and _json_whitespace_end(text, end) != len(text):
                value = _decoder.decode(text)  # raises "Extra data" with its position
    except json.JSONDecodeError as exc:
        raise _invalid_json(str(exc)) from None
    except _NonFiniteConstant as exc:
        raise _invalid_json(f"{exc} is not a JSON value{_where(text, _non_finite)}") from None
    except RecursionError:
        # On a roomy stack (see _check_nesting) the text is far too deep, and the check words
        # it; else the thread's stack is too small for it.
        _check_nesting_now(text)
        raise _invalid_json(_STACK_EXHAUSTED) from None
    except ValueError:
        # int() refuses more than 4300 digits.
        raise _invalid_json(f"integer too long{_where(text, _long_integer)}") from None
    return value


# For the nesting check: escape pairs go (only strings hold them), then every ASCII character
# but brackets and quotes, then the strings (between the quotes left: every other piece of a
# split), leaving the brackets that are structure. Each step is one C-speed pass.
_ESCAPE: Final = re.compile(r"\\.", re.DOTALL)
_ALL_BUT_BRACKETS_AND_QUOTES: Final = {c: None for c in range(128) if chr(c) not in '[]{}"'}
# The same strings, matched in place (with their escapes), or a bracket: to find where.
_STRING_OR_BRACKET: Final = re.compile(r'"(?:[^"\\]|\\.?)*(?:"|\Z)|[\[\]{}]', re.DOTALL)
_LEVEL_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def _roomy_main_stack() -> bool:
    """Whether the main thread's stack is large enough for ``json``'s C parser at any depth it
    accepts (it gives up with ``RecursionError`` at some thousands of levels, of a few hundred
    bytes of stack each): a soft ``RLIMIT_STACK`` of 8 MiB or more, or none."""
    try:
        import resource
    except ImportError:  # not POSIX: the main thread's stack size is not known here
        return False
    soft, _hard = resource.getrlimit(resource.RLIMIT_STACK)
    return bool(soft == resource.RLIM_INFINITY or soft >= 8 << 20)


_MAIN_THREAD_ID: Final = threading.main_thread().ident
_ROOMY_MAIN_STACK: Final = _roomy_main_stack()
_PARSE_FIRST_CHARS: Final = 16384
"""Texts at least this long, on the main thread with a roomy stack, are parsed before their
nesting is checked, on the parsed value (``_deeper_than``): that walk costs a step per
container, while counting brackets costs a pass over every character (as much as parsing a
large text result). Shorter texts and other threads (whose stacks may be small enough for
``json`` to overflow them) are checked before parsing."""


def _check_nesting(text: str) -> bool:
    """Check ``text``'s nesting before it is parsed (raising as ``_check_nesting_now``), or
    return True when the check is left for after parsing: then the caller must pass the parsed
    value to ``_check_parsed_nesting``."""
    if len(text) <= MAX_DEPTH:
        return False
    if (
        len(text) >= _PARSE_FIRST_CHARS
        and _ROOMY_MAIN_STACK
        and threading.get_ident() == _MAIN_THREAD_ID
    ):
        return True
    _check_nesting_now(text)
    return False


def _check_parsed_nesting(value: Any, text: str) -> None:
    """The nesting check of a value parsed from ``text`` (see ``_check_nesting``)."""
    # (the top-level value is level 1: a container MAX_DEPTH levels below it is one too many)
    if _deeper_than(value, MAX_DEPTH):
        _check_nesting_now(text)
        raise _invalid_json(_DEPTH_EXCEEDED)  # not reached for JSON text


def _check_nesting_now(text: str) -> None:
    """Raise ``invalid JSON: nesting deeper than ...`` when ``text``'s brackets outside strings
    nest deeper than ``MAX_DEPTH``.

    Exact for JSON text (whose strings are all closed), which is all that matters: for other
    text, both backends say "invalid JSON" whichever problem they name. Cheap unless the text
    holds more than ``MAX_DEPTH`` opening brackets: two counts, then the C-speed passes above
    and ``accumulate``; only text that is too deep pays for a Python loop (to name where).
    """
    if len(text) <= MAX_DEPTH or text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    quotes_and_brackets = _ESCAPE.sub("", text).translate(_ALL_BUT_BRACKETS_AND_QUOTES)
    brackets = "".join(quotes_and_brackets.split('"')[::2])
    # (text that is not JSON may leave other characters outside strings: they count 0)
    steps = map(_LEVEL_STEP.get, brackets, repeat(0))
    if max(accumulate(steps), default=0) <= MAX_DEPTH:
        return
    level = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            level += 1
            if level > MAX_DEPTH:
                at = match.start()
                line = text.count("\n", 0, at) + 1
                column = at - text.rfind("\n", 0, at)
                raise _invalid_json(f"{_DEPTH_EXCEEDED} at line {line} column {column}")
        elif token == "]" or token == "}":
            level -= 1


def _where(text: str, pattern: re.Pattern[str]) -> str:
    """ ": line L column C (char N)" for the first match of ``pattern``'s group outside JSON
    strings, or "" if there is none. Only error messages need this, so it may be slow."""
    for match in pattern.finditer(text):
        if match.group(1) is not None:
            return f": {_position(text, match.start(1))}"
    return ""


# Each alternative consumes a whole JSON string first, so only matches outside strings count.
_non_finite = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)
_long_integer = re.compile(r'"(?:[^"\\]|\\.)*"|(-?[0-9]{4301,})', re.DOTALL)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return type(value).__name__  # not reachable from JSON


def _message(obj: Any) -> JsonRpcMessage:
    """Validate one parsed JSON value as a JSON-RPC message, in the contract's order."""
    if type(obj) is not dict:
        raise JsonRpcProtocolError(f"JSON-RPC message must be an object, got {_kind(obj)}")
    get = obj.get
    if get("jsonrpc") != "2.0":
        raise JsonRpcProtocolError(_NOT_VERSION_2)
    method = get("method", _MISSING)
    if method is not _MISSING and type(method) is not str:
        raise JsonRpcProtocolError(_BAD_METHOD)
    ident = get("id", _MISSING)
    if (
        ident is not _MISSING
        and type(ident) is not int
        and type(ident) is not str
        and (ident is not None or method is not _MISSING or "error" not in obj)
    ):
        raise JsonRpcProtocolError(_BAD_ID)
    params = get("params")
    if params is not None and type(params) is not dict and type(params) is not list:
        raise JsonRpcProtocolError(_BAD_PARAMS)
    if method is not _MISSING:
        if "result" in obj or "error" in obj:
            raise JsonRpcProtocolError(_METHOD_AND_RESPONSE)
        if ident is _MISSING:
            note: JsonRpcNotification = new_object(JsonRpcNotification)
            _notification_method(note, method)
            _notification_params(note, params)
            return note
        request: JsonRpcRequest = new_object(JsonRpcRequest)
        _request_id(request, ident)
        _request_method(request, method)
        _request_params(request, params)
        return request
    error = get("error", _MISSING)
    if ("result" in obj) is (error is not _MISSING):
        raise JsonRpcProtocolError(_NOT_EXACTLY_ONE)
    if ident is _MISSING:
        raise JsonRpcProtocolError(_NO_ID)
    response: JsonRpcResponse = new_object(JsonRpcResponse)
    _response_id(response, ident)
    if error is _MISSING:
        _response_result(response, obj["result"])
        _response_error(response, None)
        return response
    if (
        type(error) is not dict
        or type(error.get("code")) is not int
        or type(error.get("message")) is not str
    ):
        raise JsonRpcProtocolError(_BAD_ERROR)
    _response_result(response, None)
    _response_error(response, error)
    return response


def parse_jsonrpc_text(text: str) -> tuple[JsonRpcMessage, ...]:
    """``parse_jsonrpc_line`` for a str known to be valid Unicode (decoded from UTF-8)."""
    return _parse_checked(text, _check_nesting(text))


def _parse_checked(text: str, check_after: bool) -> tuple[JsonRpcMessage, ...]:
    """``parse_jsonrpc_text`` for text whose nesting was checked, or is to be checked once it
    is parsed (``check_after``)."""
    try:
        try:
            value, end = _scan_once(text, 0)
        except Exception:
            value = _loads(text)  # the careful path raises the right error (or skips whitespace)
        else:
            if end != len(text):
                value = _loads(text)
    except JsonRpcProtocolError:
        if check_after:  # text too deep is refused for that first, as when checked before
            _check_nesting_now(text)
        raise
    if check_after:
        _check_parsed_nesting(value, text)
    if type(value) is dict:
        return (_message(value),)
    if type(value) is not list:
        raise JsonRpcProtocolError(f"JSON-RPC message must be an object, got {_kind(value)}")
    if not value:
        raise JsonRpcProtocolError("empty JSON-RPC batch")
    messages = []
    for index, item in enumerate(value):
        try:
            messages.append(_message(item))
        except JsonRpcProtocolError as exc:
            raise JsonRpcProtocolError(f"batch item {index}: {exc}") from None
    return tuple(messages)


def jsonrpc_events(
    raw_events: list[tuple[str | None, str, str | None, int | None]],
) -> list[JsonRpcEvent]:
    """The ``JsonRpcEvent`` of each dispatched SSE event (event, data, id, retry) that carries
    JSON-RPC: events of another type than ``""``/``"message"`` and events without data are
    skipped."""
    events = []
    scan = _scan_once
    for event, data, event_id, _retry in raw_events:
        if event and event != "message":
            continue
        try:
            check_after = _check_nesting(data)
            # The common case inline: one JSON object that spans all of the data.
            try:
                value, end = scan(data, 0)
            except Exception:
                end = -1
            if end == len(data) and type(value) is dict:
                if check_after:
                    _check_parsed_nesting(value, data)
                messages: tuple[JsonRpcMessage, ...] = (_message(value),)
            elif not data.strip(_JSON_WHITESPACE):
                continue
            else:
                messages = _parse_checked(data, check_after)
            error = None
        except JsonRpcProtocolError as exc:
            messages = ()
            error = exc
        obj: JsonRpcEvent = new_object(JsonRpcEvent)
        _event_id(obj, event_id)
        _event_event(obj, event)
        _event_messages(obj, messages)
        _event_error(obj, error)
        events.append(obj)
    return events


def parse_jsonrpc_line(text: str | bytes) -> tuple[JsonRpcMessage, ...]:
    """Parse one JSON text (a message or a batch array) into typed messages.

    Bytes must be UTF-8; a str must be valid Unicode (no lone surrogates). Raises
    ``JsonRpcProtocolError`` with the messages listed in the contract (``_native.pyi``).
    """
    if isinstance(text, str):
        if not text.isascii():
            surrogate = _raw_surrogate(text)
            if surrogate is not None:
                raise _invalid_json(f"lone surrogate in text: {_position(text, surrogate)}")
        return parse_jsonrpc_text(text if type(text) is str else str.__str__(text))
    if isinstance(text, bytes):
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _invalid_json(f"invalid UTF-8 at byte offset {exc.start}") from None
        return parse_jsonrpc_text(decoded)
    raise TypeError(f"parse_jsonrpc_line() expects str or bytes, not {type(text).__name__}")


# ---------------------------------------------------------------------------------------------
# Encoding

_NON_FINITE: Final = "cannot encode NaN or Infinity as JSON"
_TOO_DEEP: Final = "cannot encode: circular reference or nesting too deep"
_KEY_TYPES: Final = (str, int, float, bool, type(None))


class _Unencodable(TypeError):
    """Raised from the encoder's ``default`` hook for an object json cannot encode."""


def _as_jsonrpc_object(obj: object) -> dict[str, Any]:
    """The JSON-RPC 2.0 object of a message, or raise ``_Unencodable``."""
    kind = type(obj)
    if kind is JsonRpcRequest:
        assert isinstance(obj, JsonRpcRequest)
        payload: dict[str, Any] = {"jsonrpc": "2.0", "id": obj.id, "method": obj.method}
        if obj.params is not None:
            payload["params"] = obj.params
        return payload
    if kind is JsonRpcNotification:
        assert isinstance(obj, JsonRpcNotification)
        payload = {"jsonrpc": "2.0", "method": obj.method}
        if obj.params is not None:
            payload["params"] = obj.params
        return payload
    if kind is JsonRpcResponse:
        assert isinstance(obj, JsonRpcResponse)
        if obj.error is not None:
            return {"jsonrpc": "2.0", "id": obj.id, "error": obj.error}
        return {"jsonrpc": "2.0", "id": obj.id, "result": obj.result}
    raise _Unencodable(kind.__name__)


_encoder = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_as_jsonrpc_object
)
_encode = _encoder.encode


_MESSAGE_TYPES: Final = (JsonRpcRequest, JsonRpcNotification, JsonRpcResponse)
_CONTAINER_TYPES: Final = (list, tuple, dict)
_NO_KEY: Final[Any] = object()


def _is_container(value: object) -> bool:
    """Whether ``value`` is encoded as a JSON array or object (a level of nesting)."""
    return isinstance(value, _CONTAINER_TYPES) or type(value) in _MESSAGE_TYPES


def _children(container: Any) -> Iterator[tuple[Any, Any]]:
    """(key, value) of each member of a container, in json's order (``_NO_KEY`` in arrays)."""
    if isinstance(container, dict):
        # json goes through ``items()`` for dict subclasses
        return iter(dict.items(container) if type(container) is dict else container.items())
    if isinstance(container, (list, tuple)):
        return ((_NO_KEY, item) for item in container)
    return iter(_as_jsonrpc_object(container).items())


_SCALAR_TYPES: Final = (str, int, float, bool, type(None))


def _deeper_than(value: Any, room: int) -> bool:
    """Whether ``value`` is a container holding containers nested more than ``room`` levels
    below it (a circular structure is infinitely deep). Recursive, in Python only: since 3.11
    its calls take no C stack. The exact types, by far the usual ones, take the fast paths."""
    kind = type(value)
    if kind is dict:
        items: Any = dict.values(value)
    elif kind is list or kind is tuple:
        items = value
    elif kind in _SCALAR_TYPES or not _is_container(value):
        return False
    else:
        items = [item for _, item in _children(value)]
    if not room:
        return True
    room -= 1
    # a loop, not any() over a generator: any() would resume the generator from C, a C frame
    # per level again
    for item in items:  # noqa: SIM110
        if type(item) not in _SCALAR_TYPES and _deeper_than(item, room):
            return True
    return False


def _int_error(value: int) -> Exception | None:
    """The ``ValueError`` json meets writing ``value``: more digits than ``int()`` may write
    (``sys.get_int_max_str_digits``), or None."""
    limit = sys.get_int_max_str_digits()
    # at most bits * log10(2) + 1 digits
    if not limit or value.bit_length() * 0.30103 < limit - 1:
        return None
    try:
        int.__repr__(value)
    except ValueError as exc:
        return exc
    return None


def _first_error(payload: object) -> Exception | None:
    """The error of the first item json's order meets that cannot be encoded, as the contract
    words it, or None. The order is depth first, each dict key just before its value; a
    container at level ``MAX_DEPTH + 1`` is an error too. Without recursion; slow, so only for
    payloads known to fail."""
    stack: list[Iterator[tuple[Any, Any]]] = [iter(((_NO_KEY, payload),))]
    while stack:
        entry = next(stack[-1], _MISSING)
        if entry is _MISSING:
            stack.pop()
            continue
        key, item = entry
        if key is not _NO_KEY:
            if isinstance(key, float) and not math.isfinite(key):
                return ValueError(_NON_FINITE)
            if isinstance(key, int) and _int_error(key) is not None:
                return _int_error(key)
            if not isinstance(key, _KEY_TYPES):
                return TypeError(f"cannot encode object of type {type(key).__name__} as JSON")
        if isinstance(item, str) or item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            error = _int_error(item)
            if error is not None:
                return error
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return ValueError(_NON_FINITE)
            continue
        if not _is_container(item):
            return TypeError(f"cannot encode object of type {type(item).__name__} as JSON")
        if len(stack) > MAX_DEPTH:
            return ValueError(_TOO_DEEP)
        stack.append(_children(item))
    return None


def encode_jsonrpc_message(payload: Any) -> str:
    """Encode a JSON-RPC payload to compact JSON text.

    Exactly ``json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``
    for JSON-compatible payloads; ``JsonRpcRequest``, ``JsonRpcNotification`` and
    ``JsonRpcResponse`` objects are encoded as their JSON-RPC 2.0 objects. Errors are those of
    the contract (``_native.pyi``).
    """
    try:
        return _encode_message(payload)
    except RecursionError:
        # The thread's stack ran out inside the checks below (CPython 3.14+ in its smallest
        # thread stacks, where even the walk of _first_error has no room left): the native
        # backend's refusal of a stack too small.
        raise ValueError(_TOO_DEEP) from None


def _encode_message(payload: Any) -> str:
    # json's C encoder recurses once per level: it must not go deeper than MAX_DEPTH
    try:
        too_deep = _deeper_than(payload, MAX_DEPTH - 1)
    except RecursionError:  # called with little room left: let the walk decide
        too_deep = True
    if too_deep:
        error = _first_error(payload)
        if error is not None:
            raise error
    try:
        return _encode(payload)
    except _Unencodable as exc:
        raise TypeError(f"cannot encode object of type {exc} as JSON") from None
    except RecursionError:
        # A stack too small for MAX_DEPTH levels: encode_jsonrpc_message words it. Matched on
        # its own, before the tuple below: matching a tuple needs stack that may not be left.
        raise
    except (TypeError, ValueError):
        # A dict key json refuses, a non-finite float, a circular structure (found by json
        # before it is MAX_DEPTH deep).
        error = _first_error(payload)
        if error is not None:
            raise error from None
        raise
