"""parse_jsonrpc_line: JSON text to typed JSON-RPC messages, with the contract's error messages."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from mcpstream.errors import CodecError, JsonRpcProtocolError

NOT_OBJECT = "JSON-RPC message must be an object, got {}"
NOT_2_0 = 'JSON-RPC message must have "jsonrpc": "2.0"'
BAD_METHOD = '"method" must be a string'
BAD_ID = '"id" must be a string or an integer'
BAD_PARAMS = '"params" must be an object or an array'
METHOD_AND_RESPONSE = 'JSON-RPC message must not have both "method" and "result" or "error"'
NOT_EXACTLY_ONE = 'JSON-RPC response must have exactly one of "result" and "error"'
NO_ID = 'JSON-RPC response must have an "id"'
BAD_ERROR = '"error" must be an object with an integer "code" and a string "message"'


def parse(backend: ModuleType, value: Any) -> tuple[Any, ...]:
    text = value if isinstance(value, str | bytes) else json.dumps(value)
    result = backend.parse_jsonrpc_line(text)
    assert type(result) is tuple
    return result


def error_of(backend: ModuleType, value: Any) -> str:
    text = value if isinstance(value, str | bytes) else json.dumps(value)
    with pytest.raises(JsonRpcProtocolError) as info:
        backend.parse_jsonrpc_line(text)
    assert isinstance(info.value, CodecError)
    return str(info.value)


def test_a_request_has_id_method_and_params(backend: ModuleType) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}})
    assert type(message) is backend.JsonRpcRequest
    assert (message.id, message.method, message.params) == (7, "tools/call", {})


def test_a_notification_has_a_method_and_no_id(backend: ModuleType) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "method": "notifications/x", "params": [1]})
    assert type(message) is backend.JsonRpcNotification
    assert (message.method, message.params) == ("notifications/x", [1])


def test_a_result_response_has_id_and_result(backend: ModuleType) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "id": "a", "result": {"ok": True}})
    assert type(message) is backend.JsonRpcResponse
    assert (message.id, message.result, message.error) == ("a", {"ok": True}, None)
    assert message.is_error is False


def test_a_null_result_is_a_result_response(backend: ModuleType) -> None:
    (message,) = parse(backend, '{"jsonrpc":"2.0","id":1,"result":null}')
    assert (message.result, message.error, message.is_error) == (None, None, False)


def test_an_error_response_keeps_the_whole_error_object(backend: ModuleType) -> None:
    error = {"code": -32601, "message": "no such method", "data": {"m": "x"}, "extra": 1}
    (message,) = parse(backend, {"jsonrpc": "2.0", "id": 3, "error": error})
    assert (message.id, message.result, message.error) == (3, None, error)
    assert message.is_error is True


def test_an_error_response_may_have_a_null_id(backend: ModuleType) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": ""}})
    assert message.id is None
    assert message.is_error is True


@pytest.mark.parametrize("params", [None, "absent"])
def test_absent_or_null_params_are_none(backend: ModuleType, params: Any) -> None:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "m"}
    if params != "absent":
        request["params"] = params
    (message,) = parse(backend, request)
    assert message.params is None


def test_unknown_members_are_ignored(backend: ModuleType) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "method": "m", "x": 1, "_meta": {}})
    assert message == backend.JsonRpcNotification(method="m")


@pytest.mark.parametrize("ident", [0, -5, 2**70, -(2**70), "", "abc", "日本"])
def test_ids_are_strings_or_integers_of_any_size(backend: ModuleType, ident: Any) -> None:
    (message,) = parse(backend, {"jsonrpc": "2.0", "id": ident, "method": "m"})
    assert message.id == ident
    assert type(message.id) is type(ident)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (' \t\r\n{"jsonrpc":"2.0","method":"m"} \n', "m"),
        ('{"jsonrpc": "2.0", "method": "m"}\r\n', "m"),
    ],
)
def test_json_whitespace_around_the_text_is_allowed(
    backend: ModuleType, text: str, expected: str
) -> None:
    assert parse(backend, text)[0].method == expected


def test_bytes_are_parsed_as_utf8(backend: ModuleType) -> None:
    text = '{"jsonrpc":"2.0","method":"m","params":{"t":"日本語 🚀"}}'.encode()
    assert parse(backend, text)[0].params == {"t": "日本語 🚀"}


def test_values_are_parsed_as_json_loads_parses_them(backend: ModuleType) -> None:
    params = {
        "floats": [1.5, -0.0, 1e300, 1e-300, 0.1, 5e-324, 1.7976931348623157e308],
        "ints": [0, -0, 10**30, -1],
        "escapes": '"\\/\b\f\n\r\t\u0000\u00e9\U0001f680',
        "nested": [[[[{"a": [None, True, False]}]]]],
        "empty": [{}, [], ""],
    }
    text = json.dumps({"jsonrpc": "2.0", "method": "m", "params": params})
    text = text.replace('"floats": [', '"floats": [1e400, -1E+400, 1e-400, 2.5E3, ')
    expected = json.loads(text)["params"]
    got = parse(backend, text)[0].params
    assert got == expected
    assert repr(got) == repr(expected)


def test_a_lone_surrogate_escape_is_kept_as_json_loads_keeps_it(backend: ModuleType) -> None:
    (message,) = parse(backend, r'{"jsonrpc":"2.0","method":"m","params":["\ud800","\udc00x"]}')
    assert message.params == ["\ud800", "\udc00x"]


def test_a_surrogate_pair_escape_is_one_character(backend: ModuleType) -> None:
    (message,) = parse(backend, r'{"jsonrpc":"2.0","method":"m","params":["\ud83d\ude80"]}')
    assert message.params == ["🚀"]


def test_duplicate_members_keep_the_last_value(backend: ModuleType) -> None:
    (message,) = parse(backend, '{"jsonrpc":"2.0","method":"a","method":"b"}')
    assert message.method == "b"


def test_a_deeply_nested_value_within_100_levels_parses(backend: ModuleType) -> None:
    # the message object is level 1
    text = '{"jsonrpc":"2.0","method":"m","params":' + "[" * 99 + "]" * 99 + "}"
    params = parse(backend, text)[0].params
    for _ in range(98):
        params = params[0]
    assert params == []


# Batches


def test_a_batch_gives_its_messages_in_order(backend: ModuleType) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "result": 1},
        {"jsonrpc": "2.0", "method": "n"},
        {"jsonrpc": "2.0", "id": 2, "method": "r"},
    ]
    assert parse(backend, batch) == (
        backend.JsonRpcResponse(id=1, result=1),
        backend.JsonRpcNotification(method="n"),
        backend.JsonRpcRequest(id=2, method="r"),
    )


def test_an_empty_batch_is_refused(backend: ModuleType) -> None:
    assert error_of(backend, "[]") == "empty JSON-RPC batch"
    assert error_of(backend, " [ ] ") == "empty JSON-RPC batch"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (5, NOT_OBJECT.format("number")),
        ([], NOT_OBJECT.format("array")),
        ([{"jsonrpc": "2.0", "method": "m"}], NOT_OBJECT.format("array")),
        ("x", NOT_OBJECT.format("string")),
        (None, NOT_OBJECT.format("null")),
        (True, NOT_OBJECT.format("boolean")),
        ({"method": "m"}, NOT_2_0),
        ({"jsonrpc": "2.0", "id": 1}, NOT_EXACTLY_ONE),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": ""}}, BAD_ERROR),
    ],
)
def test_a_bad_batch_item_is_named_by_its_index(
    backend: ModuleType, item: Any, message: str
) -> None:
    good = {"jsonrpc": "2.0", "method": "ok"}
    assert error_of(backend, [good, good, item, good]) == f"batch item 2: {message}"
    assert error_of(backend, [item]) == f"batch item 0: {message}"


def test_the_first_bad_batch_item_names_the_error(backend: ModuleType) -> None:
    assert error_of(backend, [{"jsonrpc": "2.0", "method": "m"}, 1, "x"]) == (
        f"batch item 1: {NOT_OBJECT.format('number')}"
    )


# Errors, in the contract's order


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("3", "number"),
        ("-1.5e3", "number"),
        ('"s"', "string"),
        ("true", "boolean"),
        ("false", "boolean"),
        ("null", "null"),
    ],
)
def test_a_message_that_is_not_an_object_names_its_kind(
    backend: ModuleType, value: str, kind: str
) -> None:
    assert error_of(backend, value) == NOT_OBJECT.format(kind)


@pytest.mark.parametrize("version", ["missing", "2", "1.0", 2.0, 2, None, ["2.0"], "2.0 "])
def test_jsonrpc_must_be_the_string_2_0(backend: ModuleType, version: Any) -> None:
    message: dict[str, Any] = {"id": 1, "method": "m"}
    if version != "missing":
        message["jsonrpc"] = version
    assert error_of(backend, message) == NOT_2_0


@pytest.mark.parametrize("method", [None, 1, [], {}, True])
def test_method_must_be_a_string(backend: ModuleType, method: Any) -> None:
    assert error_of(backend, {"jsonrpc": "2.0", "id": 1, "method": method}) == BAD_METHOD


@pytest.mark.parametrize("ident", [True, False, 1.0, 1.5, [], {}])
def test_bool_float_and_containers_are_not_ids(backend: ModuleType, ident: Any) -> None:
    assert error_of(backend, {"jsonrpc": "2.0", "id": ident, "method": "m"}) == BAD_ID
    assert error_of(backend, {"jsonrpc": "2.0", "id": ident, "result": 1}) == BAD_ID
    assert error_of(
        backend, {"jsonrpc": "2.0", "id": ident, "error": {"code": 1, "message": ""}}
    ) == (BAD_ID)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": None, "method": "m"},
        {"jsonrpc": "2.0", "id": None, "result": 1},
        {"jsonrpc": "2.0", "id": None},
    ],
)
def test_a_null_id_outside_an_error_response_is_refused(
    backend: ModuleType, message: dict[str, Any]
) -> None:
    assert error_of(backend, message) == BAD_ID


@pytest.mark.parametrize("params", ["x", 1, 1.5, True, False])
def test_params_must_be_an_object_or_an_array(backend: ModuleType, params: Any) -> None:
    assert error_of(backend, {"jsonrpc": "2.0", "method": "m", "params": params}) == BAD_PARAMS
    assert error_of(backend, {"jsonrpc": "2.0", "id": 1, "result": 1, "params": params}) == (
        BAD_PARAMS
    )


@pytest.mark.parametrize(
    "member",
    [{"result": 1}, {"error": {"code": 1, "message": "x"}}, {"result": None}, {"error": None}],
)
def test_a_message_with_method_must_not_have_result_or_error(
    backend: ModuleType, member: dict[str, Any]
) -> None:
    for base in ({"jsonrpc": "2.0", "method": "m"}, {"jsonrpc": "2.0", "method": "m", "id": 1}):
        assert error_of(backend, base | member) == METHOD_AND_RESPONSE


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0"},
        {"jsonrpc": "2.0", "id": 1, "result": 1, "error": {"code": 1, "message": "x"}},
        {"jsonrpc": "2.0", "id": None, "result": 1, "error": {"code": 1, "message": "x"}},
    ],
)
def test_a_response_must_have_exactly_one_of_result_and_error(
    backend: ModuleType, message: dict[str, Any]
) -> None:
    assert error_of(backend, message) == NOT_EXACTLY_ONE


@pytest.mark.parametrize(
    "message",
    [{"jsonrpc": "2.0", "result": 1}, {"jsonrpc": "2.0", "error": {"code": 1, "message": "x"}}],
)
def test_a_response_must_have_an_id(backend: ModuleType, message: dict[str, Any]) -> None:
    assert error_of(backend, message) == NO_ID


@pytest.mark.parametrize(
    "error",
    [
        None,
        [],
        "boom",
        {},
        {"code": 1},
        {"message": "x"},
        {"code": "1", "message": "x"},
        {"code": 1.0, "message": "x"},
        {"code": True, "message": "x"},
        {"code": None, "message": "x"},
        {"code": 1, "message": None},
        {"code": 1, "message": 2},
    ],
)
def test_error_must_be_an_object_with_an_integer_code_and_a_string_message(
    backend: ModuleType, error: Any
) -> None:
    assert error_of(backend, {"jsonrpc": "2.0", "id": 1, "error": error}) == BAD_ERROR


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"jsonrpc": "1.0", "method": 1, "id": True, "params": 1, "result": 1}, NOT_2_0),
        ({"jsonrpc": "2.0", "method": 1, "id": True, "params": 1, "result": 1}, BAD_METHOD),
        ({"jsonrpc": "2.0", "method": "m", "id": True, "params": 1, "result": 1}, BAD_ID),
        ({"jsonrpc": "2.0", "method": "m", "id": 1, "params": 1, "result": 1}, BAD_PARAMS),
        ({"jsonrpc": "2.0", "method": "m", "id": 1, "result": 1}, METHOD_AND_RESPONSE),
        ({"jsonrpc": "2.0", "result": 1, "error": 5}, NOT_EXACTLY_ONE),
        ({"jsonrpc": "2.0", "error": 5}, NO_ID),
        ({"jsonrpc": "2.0", "id": 1, "error": 5}, BAD_ERROR),
    ],
)
def test_the_first_failing_rule_in_contract_order_names_the_error(
    backend: ModuleType, message: dict[str, Any], expected: str
) -> None:
    assert error_of(backend, message) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{",
        '{"jsonrpc":"2.0","method":"m"} x',
        '{"jsonrpc":"2.0","method":"m"}{}',
        "{'jsonrpc':'2.0'}",
        '{"jsonrpc":"2.0","method":"m",}',
        '{"jsonrpc":"2.0","method":"m\x01"}',
        '{"a":01}',
        "[1,]",
        "\ufeff{}",
        "\x0c{}",
        "\xa0{}",
        '{"a":NaN}',
        '{"a":Infinity}',
        '{"a":-Infinity}',
        "NaN",
        '{"a":nul}',
        '{"a":"\\x"}',
    ],
)
def test_text_that_is_not_json_is_invalid_json(backend: ModuleType, text: str) -> None:
    assert error_of(backend, text).startswith("invalid JSON: ")


@pytest.mark.parametrize(
    "text",
    [
        '{"jsonrpc":"2.0","method":"m","params":[' + "1" * 4301 + "]}",
        '{"jsonrpc":"2.0","method":"m","params":[-' + "9" * 5000 + "]}",
        '{"jsonrpc":"2.0","method":"m","unknown":' + "1" * 5000 + "}",
    ],
)
def test_an_integer_of_more_than_4300_digits_is_invalid_json_anywhere(
    backend: ModuleType, text: str
) -> None:
    assert error_of(backend, text).startswith("invalid JSON: ")


def test_an_integer_of_4300_digits_is_parsed(backend: ModuleType) -> None:
    text = '{"jsonrpc":"2.0","method":"m","params":[' + "7" * 4300 + "]}"
    assert parse(backend, text)[0].params == [int("7" * 4300)]


@pytest.mark.parametrize(
    "data",
    [b"\xff", b'{"jsonrpc":"2.0","method":"\xe2\x82"}', b"\xef\xbb\xbf{}", b'"\xed\xa0\x80"'],
)
def test_bytes_that_are_not_utf8_are_invalid_json(backend: ModuleType, data: bytes) -> None:
    assert error_of(backend, data).startswith("invalid JSON: ")


def test_a_str_holding_a_lone_surrogate_is_invalid_json(backend: ModuleType) -> None:
    assert error_of(backend, '{"jsonrpc":"2.0","method":"\ud800"}').startswith("invalid JSON: ")


@pytest.mark.parametrize("value", [None, 1, bytearray(b"{}"), ["{}"]])
def test_an_argument_that_is_neither_str_nor_bytes_is_a_type_error(
    backend: ModuleType, value: Any
) -> None:
    with pytest.raises(TypeError):
        backend.parse_jsonrpc_line(value)


# The message classes


def test_message_constructors_take_keywords_only(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        backend.JsonRpcRequest(1, "m")
    with pytest.raises(TypeError):
        backend.JsonRpcNotification("m")
    with pytest.raises(TypeError):
        backend.JsonRpcResponse(1)
    with pytest.raises(TypeError):
        backend.JsonRpcRequest(method="m")  # id is required


def test_message_constructor_defaults(backend: ModuleType) -> None:
    assert backend.JsonRpcRequest(id=1, method="m").params is None
    assert backend.JsonRpcNotification(method="m").params is None
    response = backend.JsonRpcResponse(id=None)
    assert (response.id, response.result, response.error, response.is_error) == (
        None,
        None,
        None,
        False,
    )


def test_messages_with_equal_fields_are_equal(backend: ModuleType) -> None:
    assert backend.JsonRpcRequest(id=1, method="m", params={"a": [1]}) == backend.JsonRpcRequest(
        id=1, method="m", params={"a": [1]}
    )
    assert backend.JsonRpcNotification(method="m") == backend.JsonRpcNotification(method="m")
    assert backend.JsonRpcResponse(id="x", error={"code": 1}) == backend.JsonRpcResponse(
        id="x", error={"code": 1}
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"id": 1, "method": "m"}, {"id": 2, "method": "m"}),
        ({"id": 1, "method": "m"}, {"id": "1", "method": "m"}),
        ({"id": 1, "method": "m"}, {"id": 1, "method": "n"}),
        ({"id": 1, "method": "m"}, {"id": 1, "method": "m", "params": {}}),
    ],
)
def test_requests_differing_in_a_field_are_unequal(
    backend: ModuleType, a: dict[str, Any], b: dict[str, Any]
) -> None:
    assert backend.JsonRpcRequest(**a) != backend.JsonRpcRequest(**b)


def test_messages_of_different_classes_are_unequal(backend: ModuleType) -> None:
    assert backend.JsonRpcNotification(method="m") != backend.JsonRpcRequest(id=1, method="m")
    assert backend.JsonRpcResponse(id=1, result=None) != {"jsonrpc": "2.0", "id": 1, "result": None}


def test_message_reprs_show_the_fields(backend: ModuleType) -> None:
    assert repr(backend.JsonRpcRequest(id=1, method="m", params={"a": 1})) == (
        "JsonRpcRequest(id=1, method='m', params={'a': 1})"
    )
    assert repr(backend.JsonRpcNotification(method="n")) == (
        "JsonRpcNotification(method='n', params=None)"
    )
    assert repr(backend.JsonRpcResponse(id="x", result=[1])) == (
        "JsonRpcResponse(id='x', result=[1], error=None)"
    )
    assert repr(backend.JsonRpcResponse(id=None, error={"code": 1, "message": "m"})) == (
        "JsonRpcResponse(id=None, result=None, error={'code': 1, 'message': 'm'})"
    )


def test_message_constructors_store_values_as_given(backend: ModuleType) -> None:
    params = {"a": [1, 2]}
    request = backend.JsonRpcRequest(id=5, method="m", params=params)
    assert request.params is params


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        ("JsonRpcRequest", {"id": 1, "method": "m"}),
        ("JsonRpcNotification", {"method": "m"}),
        ("JsonRpcResponse", {"id": 1, "result": 2}),
    ],
)
def test_messages_are_immutable_unhashable_and_final(
    backend: ModuleType, cls: str, kwargs: dict[str, Any]
) -> None:
    message = getattr(backend, cls)(**kwargs)
    for name in [*kwargs, "params", "anything"]:
        with pytest.raises(AttributeError):
            setattr(message, name, 9)
        with pytest.raises(AttributeError):
            delattr(message, name)
    with pytest.raises(TypeError):
        hash(message)
    with pytest.raises(TypeError):
        type("Sub", (getattr(backend, cls),), {})


def test_is_error_is_read_only(backend: ModuleType) -> None:
    with pytest.raises(AttributeError):
        backend.JsonRpcResponse(id=1).is_error = True


@pytest.mark.parametrize(
    "text",
    [
        '{"jsonrpc": "2.0",\n "method": "m", "params": [NaN]}',
        '{"jsonrpc": "2.0",\n "method": "NaN", "params": [-Infinity]}',
        '{"jsonrpc": "2.0",\n "method": "m", "params": [' + "4" * 4301 + "]}",
        '{"jsonrpc": "2.0",\n "method": "m", "params": [1,,2]}',
    ],
)
def test_invalid_json_names_the_line_of_the_problem(backend: ModuleType, text: str) -> None:
    message = error_of(backend, text)
    assert message.startswith("invalid JSON: ")
    assert "line 2 column" in message


@pytest.mark.parametrize(
    "data",
    [
        b'{"jsonrpc":"2.0","method":"m","params":{"x":"\xc3"}}',
        b'{"jsonrpc":"2.0","method":"m","unknown":"kept out \xff"}',
        b'{"jsonrpc":"2.0","method":"a\\n\xe2\x82"}',
        b'{"jsonrpc":"2.0","method":"m"} \xff',
        b'{"jsonrpc":"2.0",,"method":"\xff"}',
        b'{"jsonrpc":"1.0","method":"\xff"}',
        b'[{"jsonrpc":"1.0","method":"m"},{"jsonrpc":"2.0","method":"\xff"}]',
        b'{"jsonrpc":"2.0","method":"' + b"x" * 40_000 + b'\xf0\x9f"}',
    ],
)
def test_bytes_not_utf8_are_reported_wherever_they_are(
    backend: ModuleType, pure: ModuleType, data: bytes
) -> None:
    # in a string kept or skipped, escaped or long, outside strings, beside another fault:
    # the offset of the first byte that is not UTF-8 is what both backends report
    offset = -1
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start
    assert error_of(backend, data) == f"invalid JSON: invalid UTF-8 at byte offset {offset}"
    assert error_of(backend, data) == error_of(pure, data)
