"""The cost of building the SDK's messages from the codec's: with pydantic validation (what
``mcpstream.sdk.messages`` does: ``model_validate``), without it (``model_construct``), and the
SDK's own ``jsonrpc_message_adapter.validate_json`` of the same bytes.

``python benches/sdk_messages.py`` prints the median time of each, for a 16 MiB text result and
for 20,000 progress notifications (each built and validated one by one, as a stream delivers
them)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse, jsonrpc_message_adapter
from mcpstream.jsonrpc import JsonRpcNotification, parse_jsonrpc_line
from mcpstream.sdk.messages import notification_message, response_message

ROUNDS = 7
TEXT = ("lorem ipsum dolor sit amet " * 700_000)[: 16 * 1024 * 1024]
RESULT = {"content": [{"type": "text", "text": TEXT}], "isError": False}
RESULT_BYTES = json.dumps({"jsonrpc": "2.0", "id": 1, "result": RESULT}).encode()
NOTE = {"progressToken": 1, "progress": 1, "total": 20_000, "message": "step"}
NOTE_BYTES = json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": NOTE})
NOTES = 20_000


def _median_ms(work: Callable[[], Any]) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    (response,) = parse_jsonrpc_line(RESULT_BYTES)
    note = JsonRpcNotification(method="notifications/progress", params=NOTE)
    rows = {
        "16 MiB result: decode (codec)": lambda: parse_jsonrpc_line(RESULT_BYTES),
        "16 MiB result: build, no validation": lambda: SessionMessage(
            JSONRPCResponse.model_construct(jsonrpc="2.0", id=1, result=response.result)
        ),
        "16 MiB result: build, pydantic validation": lambda: response_message(response, 1),
        "16 MiB result: SDK validate_json": lambda: jsonrpc_message_adapter.validate_json(
            RESULT_BYTES, by_name=False
        ),
        "20,000 notifications: build, no validation": lambda: [
            SessionMessage(
                JSONRPCNotification.model_construct(
                    jsonrpc="2.0", method=note.method, params=note.params
                )
            )
            for _ in range(NOTES)
        ],
        "20,000 notifications: build, pydantic validation": lambda: [
            notification_message(note) for _ in range(NOTES)
        ],
        "20,000 notifications: SDK validate_json": lambda: [
            jsonrpc_message_adapter.validate_json(NOTE_BYTES, by_name=False) for _ in range(NOTES)
        ],
    }
    for name, work in rows.items():
        print(f"{name:50} {_median_ms(work):9.2f} ms")


if __name__ == "__main__":
    main()
