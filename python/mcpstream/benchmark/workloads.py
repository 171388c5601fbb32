"""SSE bodies shaped like MCP traffic, cut into chunks as a socket would deliver them.

``mcpstream bench`` and the codec benchmarks of ``benches/`` both measure the four workloads of
``builtin_workloads``; ``benches/`` adds ``extra_workloads`` (a large CJK result, 7-byte chunks);
the transport benchmarks' replay server builds its bodies from the same pieces
(``progress_events``, ``lorem``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Workload",
    "builtin_workloads",
    "cjk_text",
    "emoji_text",
    "extra_workloads",
    "lorem",
    "progress_events",
    "result_json",
    "sse_event",
]


@dataclass(frozen=True, slots=True)
class Workload:
    """A body cut into ``chunks``, the number of ``events`` it carries, its ``size`` in bytes.

    ``key`` names it in benchmark results (``many_small``), ``name`` in tables (``many small``).
    """

    key: str
    name: str
    description: str
    chunks: tuple[bytes, ...]
    events: int

    @property
    def size(self) -> int:
        """The body's size in bytes."""
        return sum(len(chunk) for chunk in self.chunks)


def sse_event(message: Any, event_id: str | None = None) -> str:
    """``message`` as one SSE ``message`` event (compact JSON, non-ASCII kept as is)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return f"{head}event: message\ndata: {data}\n\n"


def progress_events(count: int) -> str:
    """``count`` ``notifications/progress`` events with event ids ``ev-0``, ``ev-1``..."""
    return "".join(
        sse_event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {
                    "progressToken": "tok-1",
                    "progress": i,
                    "total": count,
                    "message": f"step {i} of {count}",
                },
            },
            event_id=f"ev-{i}",
        )
        for i in range(count)
    )


_LOREM = "lorem ipsum dolor sit amet, consectetur adipiscing elit; "


def lorem(size: int) -> str:
    """``size`` characters of ASCII prose."""
    return (_LOREM * (size // len(_LOREM) + 1))[:size]


_CJK = "\u8fdb\u5ea6 \u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8\u3002\u6570\u636e \u2713 "
_EMOJI = "ok \U0001f680 done \U0001f600 caf\u00e9 "


def _repeat(unit: str, size: int) -> str:
    """``unit`` repeated to about ``size`` bytes of UTF-8."""
    return unit * max(1, size // len(unit.encode()))


def cjk_text(size: int) -> str:
    """About ``size`` bytes (UTF-8) of CJK prose (a str of 2 bytes a character in CPython)."""
    return _repeat(_CJK, size)


def emoji_text(size: int) -> str:
    """About ``size`` bytes (UTF-8) of text with emoji (a str of 4 bytes a character)."""
    return _repeat(_EMOJI, size)


def result_json(text: str) -> str:
    """The compact JSON of a tool result carrying ``text`` (non-ASCII kept as is)."""
    return json.dumps(_text_result(text), ensure_ascii=False, separators=(",", ":"))


def _cut(body: str, chunk: int) -> tuple[bytes, ...]:
    raw = body.encode("utf-8")
    return tuple(raw[i : i + chunk] for i in range(0, len(raw), chunk))


def _result(result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def _text_result(text: str) -> dict[str, Any]:
    return _result({"content": [{"type": "text", "text": text}]})


def many_small(count: int) -> Workload:
    """``count`` progress notifications with event ids, then the response."""
    body = progress_events(count) + sse_event(_text_result("done"))
    return Workload(
        "many_small",
        "many small",
        f"{count:,} progress notifications",
        _cut(body, 16384),
        count + 1,
    )


def one_large(size: int) -> Workload:
    """One tool result carrying ``size`` characters of text."""
    body = sse_event(_text_result(lorem(size)))
    return Workload(
        "one_large", "one large", f"a {size / 2**20:.0f} MiB tool result", _cut(body, 16384), 1
    )


def multiline_large(rows: int) -> Workload:
    """A pretty-printed result spread over many ``data:`` lines."""
    text = json.dumps(
        _result({"rows": [{"i": i, "name": f"row-{i}"} for i in range(rows)]}), indent=1
    )
    body = "event: message\n" + "".join(f"data: {line}\n" for line in text.split("\n")) + "\n"
    return Workload(
        "multiline_large",
        "multi-line",
        f"{rows:,} rows over {text.count(chr(10)) + 1:,} data lines",
        _cut(body, 16384),
        1,
    )


_CJK_HEAD = "\u8fdb\u5ea6"
_CJK_TAIL = "\u2713 \u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8 \U0001f680"


def cjk_small_chunks(count: int) -> Workload:
    """Log notifications in CJK text and emoji, in 1000-byte chunks that split characters."""
    parts = [
        sse_event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {
                    "level": "info",
                    "data": f"{_CJK_HEAD} {i} {_CJK_TAIL} " * 3,
                },
            }
        )
        for i in range(count)
    ]
    parts.append(sse_event(_result({})))
    return Workload(
        "cjk_small_chunks",
        "CJK chunks",
        f"{count:,} notifications in 1000-byte chunks",
        _cut("".join(parts), 1000),
        count + 1,
    )


def one_large_cjk(size: int) -> Workload:
    """One tool result carrying about ``size`` bytes of CJK text."""
    body = sse_event(_text_result(cjk_text(size)))
    return Workload(
        "one_large_cjk",
        "one large CJK",
        f"a {size / 2**20:.0f} MiB CJK tool result",
        _cut(body, 16384),
        1,
    )


def tiny_chunks(count: int, chunk: int = 7) -> Workload:
    """``count`` progress notifications and the response, in ``chunk``-byte pieces (the cost
    of each ``feed`` call, not of the bytes)."""
    body = progress_events(count) + sse_event(_text_result("done"))
    return Workload(
        "tiny_chunks",
        f"{chunk}-byte chunks",
        f"{count:,} progress notifications in {chunk}-byte chunks",
        _cut(body, chunk),
        count + 1,
    )


def extra_workloads(*, quick: bool = False) -> list[Workload]:
    """The workloads beside the four: a 2 MiB CJK result, and small events in 7-byte chunks."""
    scale = 10 if quick else 1
    return [one_large_cjk(2 * 2**20 // scale), tiny_chunks(2_000 // scale)]


def builtin_workloads(*, quick: bool = False) -> list[Workload]:
    """The four workloads; ``quick`` makes each about ten times smaller."""
    scale = 10 if quick else 1
    return [
        many_small(20_000 // scale),
        one_large(4 * 2**20 // (4 if quick else 1)),
        multiline_large(12_500 // scale),
        cjk_small_chunks(3_000 // scale),
    ]
