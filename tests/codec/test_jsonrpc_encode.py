"""encode_jsonrpc_message: exactly json.dumps(..., ensure_ascii=False, compact, allow_nan=False)."""

from __future__ import annotations

import decimal
import enum
import json
import math
from collections import OrderedDict
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

NON_FINITE = "cannot encode NaN or Infinity as JSON"
TOO_DEEP = "cannot encode: circular reference or nesting too deep"


def dumps(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class Colour(enum.IntEnum):
    RED = 1


class Mode(enum.StrEnum):
    FAST = "fast"


class Flag(float):
    pass


class Text(str):
    pass


class Mapping(dict):  # type: ignore[type-arg]
    pass


class Items(list):  # type: ignore[type-arg]
    pass


PAYLOADS: list[Any] = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "arguments": {}}},
    {"jsonrpc": "2.0", "id": "abc", "result": {"content": [{"type": "text", "text": "done"}]}},
    [{"a": 1}, {"b": [1, 2, {"c": None}]}],
    "plain string",
    "",
    'quotes " and \\ and / and \b\f\n\r\t and \x00\x01\x1f\x7f',
    "unicode: é 日本語 🚀 \u2028\u2029 \ufeff",
    "lone \ud800 surrogate",
    0,
    -1,
    2**64,
    -(10**40),
    1.5,
    -0.0,
    0.1,
    1e300,
    1e-300,
    5e-324,
    123456789.123456789,
    True,
    False,
    None,
    (1, 2, (3,)),
    {"t": (1, "x")},
    {7: "int key", 2.5: "float key", True: "bool key", None: "none key", False: 0},
    {"z": 1, "a": 2, "m": 3},  # key order is kept, not sorted
    {"nested": {"deep": [[[[[]]]]], "empty": {}}},
    Colour.RED,
    {"colour": Colour.RED, Colour.RED: "enum key"},
    Mode.FAST,
    Flag(2.5),
    Text("sub"),
    Mapping(a=1),
    Items([1, 2]),
    OrderedDict([("b", 1), ("a", 2)]),
    [[]] * 3,
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=range(len(PAYLOADS)))
def test_encoding_equals_json_dumps(backend: ModuleType, payload: Any) -> None:
    encoded = backend.encode_jsonrpc_message(payload)
    assert type(encoded) is str
    assert encoded == dumps(payload)


def test_a_request_is_encoded_as_its_jsonrpc_object(backend: ModuleType) -> None:
    message = backend.JsonRpcRequest(id=3, method="ping", params={"a": [1]})
    assert backend.encode_jsonrpc_message(message) == (
        '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":[1]}}'
    )


def test_a_none_params_is_left_out(backend: ModuleType) -> None:
    assert backend.encode_jsonrpc_message(backend.JsonRpcRequest(id="r", method="m")) == (
        '{"jsonrpc":"2.0","id":"r","method":"m"}'
    )
    assert backend.encode_jsonrpc_message(backend.JsonRpcNotification(method="n")) == (
        '{"jsonrpc":"2.0","method":"n"}'
    )


def test_a_notification_is_encoded_with_its_params(backend: ModuleType) -> None:
    message = backend.JsonRpcNotification(method="n", params=[1, "é"])
    assert (
        backend.encode_jsonrpc_message(message) == '{"jsonrpc":"2.0","method":"n","params":[1,"é"]}'
    )


def test_a_result_response_is_encoded_with_its_result_even_null(backend: ModuleType) -> None:
    assert backend.encode_jsonrpc_message(backend.JsonRpcResponse(id=1, result={"x": 1})) == (
        '{"jsonrpc":"2.0","id":1,"result":{"x":1}}'
    )
    assert backend.encode_jsonrpc_message(backend.JsonRpcResponse(id=1)) == (
        '{"jsonrpc":"2.0","id":1,"result":null}'
    )


def test_an_error_response_is_encoded_with_its_error(backend: ModuleType) -> None:
    message = backend.JsonRpcResponse(id=None, error={"code": -32600, "message": "bad"})
    assert backend.encode_jsonrpc_message(message) == (
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}'
    )


def test_messages_inside_containers_are_encoded_too(backend: ModuleType) -> None:
    batch = [
        backend.JsonRpcNotification(method="a"),
        {"wrapped": backend.JsonRpcRequest(id=1, method="b")},
    ]
    assert backend.encode_jsonrpc_message(batch) == (
        '[{"jsonrpc":"2.0","method":"a"},{"wrapped":{"jsonrpc":"2.0","id":1,"method":"b"}}]'
    )


def test_parsed_messages_encode_back_to_equal_messages(backend: ModuleType) -> None:
    text = (
        '[{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}},{"jsonrpc":"2.0","method":"n"},'
        '{"jsonrpc":"2.0","id":"x","result":[1]},{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"e"}}]'
    )
    messages = backend.parse_jsonrpc_line(text)
    assert backend.encode_jsonrpc_message(list(messages)) == text


def encoding_error(backend: ModuleType, payload: Any, kind: type[Exception]) -> str:
    """The message of the ``kind`` error that encoding ``payload`` raises."""
    with pytest.raises(kind) as info:
        backend.encode_jsonrpc_message(payload)
    return str(info.value)


def not_encodable(type_name: str) -> str:
    """The contract's ``TypeError`` message for a value of type ``type_name``."""
    return f"cannot encode object of type {type_name} as JSON"


@pytest.mark.parametrize(
    "payload",
    [math.nan, math.inf, -math.inf, [1, {"x": math.nan}], {math.inf: 1}, {"a": [Flag("nan")]}],
)
def test_non_finite_floats_raise_value_error(backend: ModuleType, payload: Any) -> None:
    assert encoding_error(backend, payload, ValueError) == NON_FINITE


@pytest.mark.parametrize(
    ("payload", "type_name"),
    [
        (object(), "object"),
        ({1, 2}, "set"),
        (b"bytes", "bytes"),
        (bytearray(b"x"), "bytearray"),
        (decimal.Decimal("1.5"), "Decimal"),
        ({"deep": [1, {"x": complex(1, 2)}]}, "complex"),
        ({(1, 2): "tuple key"}, "tuple"),
        ({"ok": 1, frozenset(): "key"}, "frozenset"),
        ({"a": {b"k": 1}}, "bytes"),
        ([1, Colour], "EnumType"),
    ],
)
def test_other_types_raise_type_error_naming_the_type(
    backend: ModuleType, payload: Any, type_name: str
) -> None:
    assert encoding_error(backend, payload, TypeError) == not_encodable(type_name)


@pytest.mark.parametrize(
    ("payload", "type_name"),
    [
        ([{1, 2}, b"x"], "set"),
        ({"a": b"x", (1,): 2}, "bytes"),  # the value comes before the next key
        ({(1,): b"x"}, "tuple"),  # a key comes before its value
        ({"a": {"b": {(1,): 1}}, "c": {2}}, "tuple"),
    ],
)
def test_the_first_bad_item_in_json_order_names_the_error(
    backend: ModuleType, payload: Any, type_name: str
) -> None:
    assert encoding_error(backend, payload, TypeError) == not_encodable(type_name)


def test_a_message_of_the_other_backend_is_not_encodable(backend: ModuleType) -> None:
    class JsonRpcRequest:  # same name, different class
        pass

    message = encoding_error(backend, JsonRpcRequest(), TypeError)
    assert message == "cannot encode object of type JsonRpcRequest as JSON"


def nested(levels: int) -> list[Any]:
    """``[[[...]]]``: ``levels`` lists, each inside the next."""
    deep: list[Any] = []
    for _ in range(levels):
        deep = [deep]
    return deep


def circular_list() -> list[Any]:
    loop: list[Any] = [1]
    loop.append(loop)
    return loop


def circular_dict() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = {"again": loop}
    return loop


@pytest.mark.parametrize(
    "build",
    [circular_list, circular_dict, lambda: nested(100_000)],
    ids=["a-circular-list", "a-circular-dict", "nesting-far-too-deep"],
)
def test_circular_or_too_deep_values_raise_value_error(
    backend: ModuleType, build: Callable[[], Any]
) -> None:
    assert encoding_error(backend, build(), ValueError) == TOO_DEEP


def test_nesting_up_to_100_levels_is_encoded_and_deeper_is_refused(backend: ModuleType) -> None:
    # nested(n) is n + 1 lists deep
    assert backend.encode_jsonrpc_message(nested(99)) == "[" * 100 + "]" * 100
    assert encoding_error(backend, nested(100), ValueError) == TOO_DEEP
    assert encoding_error(backend, {"a": [nested(98)]}, ValueError) == TOO_DEEP


def test_an_int_past_the_digit_limit_is_json_s_value_error_in_json_s_order(
    backend: ModuleType,
) -> None:
    # Found by fuzzing: the pure backend named the unencodable object after it (and before, a
    # NaN error) where json and the native backend raise int()'s ValueError first.
    with pytest.raises(ValueError, match="Exceeds the limit"):
        backend.encode_jsonrpc_message([10**5000, object()])
    with pytest.raises(ValueError, match="Exceeds the limit"):
        backend.encode_jsonrpc_message({10**5000: object()})
    assert encoding_error(backend, [object(), 10**5000], TypeError) == (
        "cannot encode object of type object as JSON"
    )
