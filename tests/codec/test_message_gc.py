"""Reference cycles through the message and event classes are collected by the cycle GC.

Each case builds a cycle object -> dict -> object, drops every outside reference, and checks
with a weakref to the dict that ``gc.collect()`` frees it: a class that hides its references
from the collector (no ``tp_traverse`` of its fields) would leak the whole cycle.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


class Box(dict[str, Any]):
    """A dict that can be weakly referenced (a plain dict cannot)."""


def _collected(make: Callable[[Box], object]) -> bool:
    box = Box()
    box["self"] = make(box)
    ref = weakref.ref(box)
    del box
    gc.collect()
    return ref() is None


CYCLES: dict[str, Callable[[ModuleType, Box], object]] = {
    "request": lambda b, box: b.JsonRpcRequest(id=1, method="m", params=box),
    "notification": lambda b, box: b.JsonRpcNotification(method="m", params=box),
    "response result": lambda b, box: b.JsonRpcResponse(id=1, result=box),
    "response error": lambda b, box: b.JsonRpcResponse(id=1, error=box),
    "request id": lambda b, box: b.JsonRpcRequest(id=box, method="m"),
    "notification method": lambda b, box: b.JsonRpcNotification(method=box),
    "sse event data": lambda b, box: b.SseEvent(data=box),
    "sse event id": lambda b, box: b.SseEvent(id=box, event=box, retry=box),
}


@pytest.mark.parametrize("case", sorted(CYCLES))
def test_cycle_through_constructed_object_is_collected(backend: ModuleType, case: str) -> None:
    make = CYCLES[case]
    assert _collected(lambda box: make(backend, box))


def test_cycle_through_parsed_message_params_is_collected(backend: ModuleType) -> None:
    # the message stored inside its own params (a dict the parser made)
    (message,) = backend.parse_jsonrpc_line('{"jsonrpc":"2.0","method":"m","params":{}}')
    box = Box(message=message)
    message.params["box"] = box
    ref = weakref.ref(box)
    del box, message
    gc.collect()
    assert ref() is None


def test_cycle_through_jsonrpc_event_is_collected(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    (item,) = decoder.feed_jsonrpc(
        b'id: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n'
    )
    (message,) = item.messages
    box = Box(event=item)
    message.result["box"] = box
    ref = weakref.ref(box)
    del box, message, item, decoder
    gc.collect()
    assert ref() is None
