"""parse_jsonrpc_line on a str of each of CPython's layouts (ASCII, Latin-1, BMP, astral).

The native backend reads a non-ASCII str in its own layout rather than through its UTF-8 form;
the values, the errors and their positions must not depend on which form the text came in.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcpstream.errors import JsonRpcProtocolError

# one text per layout: 1 byte a code point (ASCII, Latin-1), 2 (BMP) and 4 (astral)
SAMPLES = [
    "plain",
    "caf\u00e9 \u00ff",
    "\u8fdb\u5ea6 \u65e5\u672c\u8a9e \u2713",
    "ok \U0001f680 \u00e9",
]
ESCAPES = [
    "\\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\u00e9",
    "\\u65e5",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00x",
]


def outcome(backend: ModuleType, text: str | bytes) -> Any:
    try:
        return [repr(m) for m in backend.parse_jsonrpc_line(text)]
    except JsonRpcProtocolError as exc:
        return f"error: {exc}"


def response(result: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}, ensure_ascii=False)


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("escape", ["", *ESCAPES])
def test_string_values_and_keys_are_what_json_loads_makes(
    backend: ModuleType, sample: str, escape: str
) -> None:
    raw = f"{sample}{escape}{sample}"
    text = (
        '{"jsonrpc":"2.0","id":"'
        + raw
        + '","result":{"'
        + raw
        + '":["'
        + raw
        + '",1,"'
        + sample
        + '"],"k":"'
        + sample
        + '"}}'
    )
    expected = json.loads(text)
    (message,) = backend.parse_jsonrpc_line(text)
    assert message.id == expected["id"]
    assert message.result == expected["result"]
    # the canonical form: same kind (so same size) as json.loads's strings
    got_key = next(iter(message.result))
    want_key = next(iter(expected["result"]))
    assert (got_key, message.id) == (want_key, expected["id"])
    assert got_key.__sizeof__() == want_key.__sizeof__()
    assert message.id.__sizeof__() == expected["id"].__sizeof__()
    assert outcome(backend, text) == outcome(backend, text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_method_name_in_any_layout(backend: ModuleType, sample: str) -> None:
    text = json.dumps({"jsonrpc": "2.0", "method": sample, "params": [sample]}, ensure_ascii=False)
    (message,) = backend.parse_jsonrpc_line(text)
    assert (message.method, message.params) == (sample, [sample])


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize(
    "broken",
    ['{"jsonrpc":"2.0","id":1,"result":"{s}" x}', '{"{s}":\n  "{s}", 1}', '["{s}", ]', '"{s}'],
)
def test_errors_and_their_positions_do_not_depend_on_the_form(
    backend: ModuleType, sample: str, broken: str
) -> None:
    text = broken.replace("{s}", sample)
    error = outcome(backend, text)
    assert error.startswith("error: invalid JSON: ")
    assert error == outcome(backend, text.encode())


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_non_ascii_character_outside_strings_is_invalid_json(
    backend: ModuleType, sample: str
) -> None:
    text = '{"jsonrpc":"2.0","id":1,"result":' + sample[-1] + "}"
    error = outcome(backend, text)
    assert error.startswith("error: invalid JSON: ")
    assert error == outcome(backend, text.encode())


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff", "\udc00"])
@pytest.mark.parametrize("sample", SAMPLES)
def test_a_lone_surrogate_in_any_layout_is_invalid_json(
    backend: ModuleType, sample: str, surrogate: str
) -> None:
    text = response(sample + surrogate)
    assert outcome(backend, text).startswith("error: invalid JSON: ")


def test_astral_characters_next_to_the_surrogate_range_are_text(backend: ModuleType) -> None:
    # code points whose low 16 bits look like a surrogate are not surrogates
    text = response("\U0004d800 \U0010dfff \ue000")
    (message,) = backend.parse_jsonrpc_line(text)
    assert message.result == "\U0004d800 \U0010dfff \ue000"


@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=8,
    ),
    ensure_ascii=st.booleans(),
)
def test_any_result_parses_alike_as_str_and_bytes(
    backend: ModuleType, value: Any, ensure_ascii: bool
) -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": value}, ensure_ascii=ensure_ascii)
    raw = text.encode("utf-8", "surrogatepass")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert outcome(backend, text).startswith("error: invalid JSON: ")
        assert outcome(backend, raw).startswith("error: invalid JSON: ")
        return
    (message,) = backend.parse_jsonrpc_line(text)
    assert message.result == json.loads(text)["result"]
    assert outcome(backend, text) == outcome(backend, raw)


class _Text(str):
    def __sizeof__(self) -> int:
        return 0


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_str_subclass_is_read_as_its_text(backend: ModuleType, sample: str) -> None:
    (message,) = backend.parse_jsonrpc_line(_Text(response(sample)))
    assert message.result == sample
    broken = _Text(response(sample + "\ud800"))
    assert outcome(backend, broken).startswith("error: invalid JSON: ")
