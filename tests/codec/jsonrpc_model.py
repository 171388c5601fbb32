"""A reference model of parse_jsonrpc_line's validation, straight from the contract's rules.

It takes an already parsed JSON value and returns either the expected messages, as tuples
``(class name, field values...)``, or the expected error message.
"""

from __future__ import annotations

from typing import Any

MessageTuple = tuple[Any, ...]


class Refused(Exception):
    """The message the contract says the value is refused with."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "null"


def _message(obj: Any) -> MessageTuple:
    if not isinstance(obj, dict):
        raise Refused(f"JSON-RPC message must be an object, got {_kind(obj)}")
    if obj.get("jsonrpc") != "2.0" or not isinstance(obj.get("jsonrpc"), str):
        raise Refused('JSON-RPC message must have "jsonrpc": "2.0"')
    has_method = "method" in obj
    if has_method and not isinstance(obj["method"], str):
        raise Refused('"method" must be a string')
    if "id" in obj:
        ident = obj["id"]
        valid = isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))
        null_ok = ident is None and not has_method and "error" in obj
        if not (valid or null_ok):
            raise Refused('"id" must be a string or an integer')
    params = obj.get("params")
    if params is not None and not isinstance(params, dict | list):
        raise Refused('"params" must be an object or an array')
    if has_method:
        if "result" in obj or "error" in obj:
            raise Refused('JSON-RPC message must not have both "method" and "result" or "error"')
        if "id" in obj:
            return ("JsonRpcRequest", obj["id"], obj["method"], params)
        return ("JsonRpcNotification", obj["method"], params)
    if ("result" in obj) == ("error" in obj):
        raise Refused('JSON-RPC response must have exactly one of "result" and "error"')
    if "id" not in obj:
        raise Refused('JSON-RPC response must have an "id"')
    if "error" in obj:
        error = obj["error"]
        code = error.get("code") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        if not (isinstance(code, int) and not isinstance(code, bool) and isinstance(message, str)):
            raise Refused('"error" must be an object with an integer "code" and a string "message"')
        return ("JsonRpcResponse", obj["id"], None, error)
    return ("JsonRpcResponse", obj["id"], obj["result"], None)


def expected_parse(value: Any) -> list[MessageTuple] | str:
    """The messages the contract expects for the JSON value ``value``, or its error message."""
    try:
        if not isinstance(value, list):
            return [_message(value)]
        if not value:
            return "empty JSON-RPC batch"
        messages = []
        for index, item in enumerate(value):
            try:
                messages.append(_message(item))
            except Refused as exc:
                raise Refused(f"batch item {index}: {exc}") from None
        return messages
    except Refused as exc:
        return str(exc)


def message_tuple(message: Any) -> MessageTuple:
    """A parsed message of either backend as a tuple like the model's."""
    name = type(message).__name__
    if name == "JsonRpcRequest":
        return (name, message.id, message.method, message.params)
    if name == "JsonRpcNotification":
        return (name, message.method, message.params)
    return (name, message.id, message.result, message.error)
