"""Inputs for the fuzz tests: SSE streams, JSON texts and Python payloads, well-formed ones and
random or mutated bytes, and ways to cut a stream into chunks.

Well-formed inputs reach deep into the decoders (events, JSON-RPC messages); mutated ones (a
byte flipped, inserted, deleted, a piece repeated, the text cut short) probe the edges of each
rule; random bytes cover what no grammar thinks of.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st
from mcpstream._pure.jsonrpc import MAX_DEPTH

# -- JSON ---------------------------------------------------------------------------------------

_EDGE_NUMBERS = st.sampled_from(
    [
        "0",
        "-0",
        "1e400",
        "-1e400",
        "1E-400",
        "0.1",
        "1.0e+2",
        "9" * 30,
        "-" + "9" * 4301,
        "1" * 4300,
    ]
)
_EDGE_STRINGS = st.sampled_from(
    ['"\\ud800"', '"\\udc00\\ud800"', '"\\u0000"', '"\\/"', '"\\uD83D\\uDE00"', '"\u00e9\u2713"']
)


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON-compatible Python values (no NaN: json.dumps would write it)."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=8)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


def _ids() -> st.SearchStrategy[Any]:
    return (
        st.integers(-(2**70), 2**70) | st.text(max_size=6) | st.none() | st.booleans() | st.floats()
    )


@st.composite
def jsonrpc_objects(draw: st.DrawFn) -> dict[str, Any]:
    """Objects shaped like JSON-RPC messages, some breaking one rule or another."""
    message: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        message["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2.0, None]))
    for name, values in (
        ("id", _ids()),
        ("method", st.text(max_size=8) | st.integers()),
        ("params", json_values(6) | st.none()),
        ("result", json_values(6)),
        (
            "error",
            st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=6)})
            | json_values(4),
        ),
    ):
        if draw(st.booleans()):
            message[name] = draw(values)
    return message


def _nested(depth: int, leaf: str, kind: str) -> str:
    if kind == "[":
        return "[" * depth + leaf + "]" * depth
    return '{"k":' * depth + leaf + "}" * depth


@st.composite
def deep_json(draw: st.DrawFn) -> str:
    """A JSON-RPC response whose result nests close to ``MAX_DEPTH`` (the message is level 1)."""
    depth = draw(st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3))
    kind = draw(st.sampled_from(["[", "{"]))
    leaf = draw(st.sampled_from(["", "1", '"x"', "[]", "{}"]))
    if kind == "{" and leaf == "":
        leaf = "0"
    return '{"jsonrpc":"2.0","id":1,"result":' + _nested(depth - 1, leaf, kind) + "}"


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few random edits."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "repeat", "cut"]))
        at = draw(st.integers(0, len(out)))
        if op == "flip" and at < len(out):
            out[at] = draw(st.integers(0, 255))
        elif op == "insert":
            out[at:at] = draw(
                st.binary(min_size=1, max_size=4)
                | st.sampled_from(
                    [
                        b"[",
                        b"{",
                        b"]",
                        b"}",
                        b'"',
                        b"\\",
                        b",",
                        b":",
                        b"\n",
                        b"\r",
                        b"\x00",
                        b"\xff",
                    ]
                )
            )
        elif op == "delete":
            del out[at : at + draw(st.integers(1, 4))]
        elif op == "repeat":
            piece = bytes(out[at : at + draw(st.integers(1, 8))])
            out[at:at] = piece * draw(st.integers(1, 40))
        else:
            del out[at:]
    return bytes(out)


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def well_formed_json() -> st.SearchStrategy[bytes]:
    """JSON-RPC messages and batches, any JSON, edge numbers and strings, deep nesting."""
    messages = jsonrpc_objects().map(_dump)
    batches = st.lists(jsonrpc_objects(), max_size=4).map(_dump)
    edges = st.tuples(_EDGE_NUMBERS | _EDGE_STRINGS).map(
        lambda t: b'{"jsonrpc":"2.0","id":1,"result":[' + t[0].encode() + b"]}"
    )
    return messages | batches | json_values().map(_dump) | edges | deep_json().map(str.encode)


def json_texts() -> st.SearchStrategy[bytes]:
    """Bytes for ``parse_jsonrpc_line``: well-formed, mutated, or random."""
    good = well_formed_json()
    return good | good.flatmap(mutated) | st.binary(max_size=64)


# -- SSE ----------------------------------------------------------------------------------------

_FIELDS = st.sampled_from(
    [b"data", b"data", b"data", b"event", b"id", b"retry", b"", b"x", b"Data"]
)
_TERMINATORS = st.sampled_from([b"\n", b"\r\n", b"\r"])
_RETRIES = st.sampled_from(
    [
        b"0",
        b"1500",
        b"007",
        str(2**63 - 1).encode(),
        str(2**63).encode(),
        b"9" * 40,
        b"1" * 400,
        b"-1",
        b"1.5",
        b" 5",
        b"\xef\xbc\x91",
    ]
)


@st.composite
def sse_lines(draw: st.DrawFn) -> bytes:
    """One SSE line with its terminator: a field, a comment or a blank line."""
    kind = draw(st.integers(0, 9))
    end = draw(_TERMINATORS)
    if kind == 0:
        return end  # a blank line: dispatch
    if kind == 1:
        return b":" + draw(st.binary(max_size=8)) + end
    name = draw(_FIELDS)
    if name == b"retry":
        value = draw(_RETRIES)
    elif name == b"data" and draw(st.booleans()):
        value = draw(well_formed_json())
    else:
        value = draw(st.text(max_size=8)).encode("utf-8", "surrogatepass")
        if draw(st.integers(0, 9)) == 0:
            value += draw(st.sampled_from([b"\x00", b"\xff", b"\xed\xa0\x80", b"\xe2\x82"]))
    colon = draw(st.sampled_from([b": ", b":", b":  ", b""]))
    return name + colon + value + end


@st.composite
def well_formed_sse(draw: st.DrawFn) -> bytes:
    """A stream of SSE lines, perhaps after a BOM, perhaps cut inside its last line."""
    bom = draw(st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb"]))
    body = b"".join(draw(st.lists(sse_lines(), max_size=12)))
    return bom + body


def sse_streams() -> st.SearchStrategy[bytes]:
    """Bytes for ``SseDecoder``: well-formed, mutated, or random."""
    good = well_formed_sse()
    return good | good.flatmap(mutated) | st.binary(max_size=96)


@st.composite
def chunked(draw: st.DrawFn, data: bytes) -> list[bytes]:
    """``data`` cut at a few random places (empty chunks included)."""
    if not data:
        return [b""] * draw(st.integers(0, 2))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=6)))
    points = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


# -- Python payloads for the encoder ------------------------------------------------------------


class Unencodable:
    """An object json cannot encode."""


def _keys() -> st.SearchStrategy[Any]:
    return (
        st.text(max_size=4)
        | st.integers()
        | st.floats()
        | st.booleans()
        | st.none()
        | st.sampled_from([(1, 2), b"k", Unencodable()])
        | st.builds(lambda: 10**5000)
    )


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def payloads() -> st.SearchStrategy[Any]:
    """Values for ``encode_jsonrpc_message``: JSON values, NaN and infinities, big ints (one
    past ``int``'s 4300-digit limit), tuples, odd keys, lone surrogates, unencodable objects,
    deep nesting, and message objects (the pure backend's: see ``for_backend``)."""
    from mcpstream import _pure

    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(2**80), 2**80)
        | st.floats()
        | st.text(max_size=6)
        | st.sampled_from(["\ud800", "a\udfffb", 2**200, Unencodable(), b"x"])
        | st.builds(lambda: 10**5000)  # built, not listed: hypothesis would print it
    )
    deep = st.integers(MAX_DEPTH - 2, MAX_DEPTH + 2).map(_nested_list)

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        ids = st.integers() | st.text(max_size=3)
        return (
            st.lists(inner, max_size=4)
            | st.lists(inner, max_size=3).map(tuple)
            | st.dictionaries(_keys(), inner, max_size=3)
            | st.builds(_pure.JsonRpcRequest, id=ids, method=st.text(max_size=4), params=inner)
            | st.builds(_pure.JsonRpcNotification, method=st.text(max_size=4), params=inner)
            | st.builds(_pure.JsonRpcResponse, id=ids, result=inner)
        )

    return st.recursive(scalars | deep, extend, max_leaves=10)


def for_backend(value: Any, backend: Any) -> Any:
    """``value`` with its (pure backend's) message objects rebuilt as ``backend``'s."""
    name = type(value).__name__
    if name in ("JsonRpcRequest", "JsonRpcNotification", "JsonRpcResponse"):
        fields = {
            "JsonRpcRequest": ("id", "method", "params"),
            "JsonRpcNotification": ("method", "params"),
            "JsonRpcResponse": ("id", "result", "error"),
        }[name]
        members = {field: for_backend(getattr(value, field), backend) for field in fields}
        return getattr(backend, name)(**members)
    if type(value) is list:
        return [for_backend(item, backend) for item in value]
    if type(value) is tuple:
        return tuple(for_backend(item, backend) for item in value)
    if type(value) is dict:
        return {key: for_backend(item, backend) for key, item in value.items()}
    return value
