"""The nesting limit: both backends parse and encode up to 100 levels of arrays and objects and
refuse deeper ones with the same error, and neither overflows a small thread stack.

The native parser and encoder recurse once per level. Measured on this project's machine
(x86-64, CPython 3.11, threads made after ``threading.stack_size(n)``): the deepest nesting that
ran (parse: arrays inside a message; encode: lists, dicts), without the limit (set to 1000 or
more for the measurement):

    thread stack                          32 KiB         64 KiB           96 KiB
    release, before this limit            -              181 / 168 / 128  -       (crashed past)
    release, no guard                     83 / 97 / 97   190 / 217 / 217  298 / 338 / 338
    release, with the guard               54 / 72 / 72   157 / 200 / 200  259 / 328 / 328
    debug, no guard                       21 / 24 / 15   64 / 57 / 36     107 / 90 / 58
    debug, with the guard                 14 / 17 / 11   56 / 50 / 32     99 / 83 / 54
    stdlib json, loads / dumps            212 / 242      468 / 535        724 / 827

"No guard" rows crashed (segfault) one level deeper. The guard (``rust/stack.rs``: refuse a level
when less than 8 KiB of the thread's stack would be left) makes the native backend stop with its
"too deep" error instead, so nothing crashes at any depth. The limit of 100 leaves the optimized
build a margin of 57 levels (about 18 KiB) before the guard in a 64 KiB stack, so there the guard
never decides and both backends give the same results; a debug build's frames are several times
larger, and the guard stops it early. The pure backend checks the depth before the stdlib
``json`` runs, so ``json`` never goes deeper than 100 either, except for long texts on the main
thread when its stack is 8 MiB or more: there ``json`` parses first (it gives up with
``RecursionError`` long before such a stack is used up) and the value's depth is checked after,
with the same result.

The small-stack runs happen in a subprocess, so a segfault fails the test instead of killing
pytest. Where the platform refuses a stack that small, the threads get its minimum instead:
glibc's ``SC_THREAD_STACK_MIN`` (128 KiB on aarch64, so there all three runs use 128 KiB and show
the guard and the limit at that minimum) and then CPython's own (52 KiB on x86-64 since 3.15).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from types import ModuleType
from typing import Any

import pytest
from mcpstream._pure.jsonrpc import MAX_DEPTH
from mcpstream.errors import JsonRpcProtocolError

TOO_DEEP_TO_ENCODE = "cannot encode: circular reference or nesting too deep"
STACK_EXHAUSTED = "invalid JSON: nesting too deep for this thread's stack"
DEPTHS = (1, 64, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2, 1000, 100_000)

# Builds the input of one case with `depth` levels in all (the message object counts), runs it
# and summarizes the outcome as text (in the main thread: repr of deep values recurses too).
CASES = textwrap.dedent(
    r"""
    import json, os, sys, threading
    from mcpstream.codec import load_backend

    def arrays(n):
        return "[" * n + "]" * n

    def inputs(depth):
        inner = arrays(depth - 2) or "0"  # one level less, inside the batch array
        objects = '{"a":' * (depth - 1) + "0" + "}" * (depth - 1)
        response = '{"jsonrpc":"2.0","id":1,"result":' + arrays(depth - 1) + "}"
        lists, dicts = [], {}
        for _ in range(depth - 1):
            lists, dicts = [lists], {"a": dicts}
        return {
            "parse-arrays": ("parse", response),
            "parse-objects": ("parse", '{"jsonrpc":"2.0","method":"m","params":' + objects + "}"),
            "parse-bytes": ("parse", response.encode()),
            "parse-batch": ("parse", "[" + response.replace(arrays(depth - 1), inner) + "]"),
            "feed-jsonrpc": ("feed", b"data: " + response.encode() + b"\n\n"),
            "encode-lists": ("encode", lists),
            "encode-dicts": ("encode", dicts),
            "encode-request": ("request", [lists]),
        }

    def run(backend, kind, value):
        if kind == "parse":
            return backend.parse_jsonrpc_line(value)
        if kind == "feed":
            return backend.SseDecoder().feed_jsonrpc(value)
        if kind == "request":
            value = backend.JsonRpcRequest(id=1, method="m", params=value[0][0])
        return backend.encode_jsonrpc_message(value)

    stack, depths = int(sys.argv[1]), json.loads(sys.argv[2])
    # The platform's minimum where the size asked for is below it: glibc's (128 KiB on aarch64)
    # and then CPython's own (52 KiB on x86-64 since 3.15), which it only names in its error.
    stack = max(stack, os.sysconf("SC_THREAD_STACK_MIN"))
    while True:
        try:
            threading.stack_size(stack)
            break
        except ValueError:
            stack += 4096
    outcomes = []
    for name in ("python", "native"):
        backend = load_backend(name)
        for depth in depths:
            for case, (kind, value) in inputs(max(depth, 2)).items():
                box = []

                def target():
                    try:
                        box.append(("ok", run(backend, kind, value)))
                    except Exception as exc:
                        box.append((type(exc).__name__, str(exc)))

                thread = threading.Thread(target=target)
                thread.start()
                thread.join()
                status, result = box[0]
                if status == "ok" and kind == "feed":
                    event = result[0]
                    status, result = ("ok", event.messages) if event.error is None else (
                        type(event.error).__name__, str(event.error))
                text = repr(result) if status == "ok" else result
                outcomes.append([name, case, max(depth, 2), status, text[:200]])
    debug_build = load_backend("native")._debug_build
    print(json.dumps({"debug_build": debug_build, "stack": stack, "outcomes": outcomes}))
    """
)


def run_cases(stack: int) -> tuple[bool, int, dict[tuple[str, int], dict[str, tuple[str, str]]]]:
    """Run every case in threads of ``stack`` bytes (or the platform's minimum, if larger), in a
    subprocess; a crash fails the test. Returns whether the build is a debug one, the stack
    size the threads had, and the outcomes."""
    proc = subprocess.run(
        [sys.executable, "-c", CASES, str(stack), json.dumps(DEPTHS)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{proc.stderr[-3000:]}"
    # Nor an error the interpreter had to swallow (as in an except clause without stack left).
    assert "Exception ignored" not in proc.stderr, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    by_case: dict[tuple[str, int], dict[str, tuple[str, str]]] = {}
    for name, case, depth, status, text in report["outcomes"]:
        by_case.setdefault((case, depth), {})[name] = (status, text)
    assert report["stack"] >= stack, report["stack"]
    return report["debug_build"], report["stack"], by_case


def expected_error(case: str, depth: int) -> tuple[str, str] | None:
    """The error the contract wants for ``case`` at ``depth`` levels (None: it succeeds)."""
    if depth <= MAX_DEPTH:
        return None
    if case.startswith("encode"):
        return ("ValueError", TOO_DEEP_TO_ENCODE)
    return (
        "JsonRpcProtocolError",
        f"invalid JSON: nesting deeper than {MAX_DEPTH} levels at line 1",
    )


@pytest.mark.both_backends
@pytest.mark.parametrize("stack", [32 * 1024, 64 * 1024, 96 * 1024])
def test_no_backend_overflows_a_small_thread_stack_and_both_agree(stack: int) -> None:
    debug_build, stack, by_case = run_cases(stack)
    for (case, depth), outcomes in by_case.items():
        where = f"{case} at depth {depth} in a {stack // 1024} KiB stack"
        pure, native = outcomes["python"], outcomes["native"]
        refusal = TOO_DEEP_TO_ENCODE if case.startswith("encode") else STACK_EXHAUSTED
        wanted = expected_error(case, depth)
        if wanted is None and pure[0] != "ok":
            # Since 3.14 CPython checks its own C stack against the thread's bounds, with a
            # margin of tens of KiB: in the smallest stacks it accepts, the stdlib json under the
            # pure backend runs out before 100 levels. The pure backend then refuses with the
            # native backend's words for a stack too small (never a RecursionError); the native
            # backend, whose frames are its own, must still succeed or refuse likewise.
            assert sys.version_info >= (3, 14) and stack < 96 * 1024, (where, pure)
            assert pure[1].startswith(refusal), (where, pure)
            assert native[0] == "ok" or native[1].startswith(refusal), (where, native)
            continue
        if wanted is None:
            assert pure[0] == "ok", (where, pure)
        else:
            assert (pure[0], pure[1][: len(wanted[1])]) == wanted, (where, pure)
        if native == pure:
            continue
        # Only where the stack is too small for MAX_DEPTH levels of the native frames (32 KiB, or a
        # debug build) may the native backend refuse a shallower value, with its "too deep"
        # error; never in an optimized build's 64 KiB or larger stack.
        assert stack < 64 * 1024 or debug_build, (where, native, pure)
        assert native[1].startswith(refusal), (where, native)


def parse_outcome(backend: ModuleType, text: str | bytes) -> tuple[str, Any]:
    """The messages' repr, or the error: its message when it is the depth error, else only
    "invalid JSON" (whose wording the contract lets differ between backends)."""
    try:
        return ("ok", repr(backend.parse_jsonrpc_line(text)))
    except JsonRpcProtocolError as exc:
        message = str(exc)
        if "nesting deeper" not in message and message.startswith("invalid JSON: "):
            message = "invalid JSON"
        return ("error", message)


@pytest.mark.both_backends
@pytest.mark.parametrize(
    "text",
    [
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        "[" * MAX_DEPTH + "]" * MAX_DEPTH,
        '{"jsonrpc":"2.0","id":1,"result":' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}",
        '{"jsonrpc":"2.0","id":1,"result":' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}",
        '{"jsonrpc":"2.0","id":1,\n"result":' + '{"[":' * 200 + "1" + "}" * 200 + "}",
        '{"jsonrpc":"2.0","id":1,"result":["' + "[" * 300 + '"]}',
        '{"jsonrpc":"2.0","id":"\\"[","result":' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}",
        "[" * 1000,
        '["\\' + "[" * 200,
    ],
    ids=[
        "101-arrays",
        "100-arrays",
        "message-at-100",
        "message-at-101",
        "objects-over-two-lines",
        "brackets-in-a-string",
        "escaped-quote-before",
        "unclosed",
        "unclosed-string",
    ],
)
@pytest.mark.parametrize("padding", [0, 20_000], ids=["short", "long"])
def test_both_backends_give_the_same_result_at_the_limit(
    pure: ModuleType, native: ModuleType, text: str, padding: int
) -> None:
    # "long": on the main thread, the pure backend parses a long text first and checks the
    # nesting of the value (see _PARSE_FIRST_CHARS); short texts are checked before parsing.
    text += " " * padding
    assert parse_outcome(pure, text) == parse_outcome(native, text)
    assert parse_outcome(pure, text.encode()) == parse_outcome(native, text.encode())
    body = b"data: " + text.encode() + b"\n\n"
    assert stream_outcome(pure, body) == stream_outcome(native, body)


def stream_outcome(backend: ModuleType, body: bytes) -> list[tuple[str, Any]]:
    """``parse_outcome`` for the events of an SSE body (the stream route's own parse)."""
    outcomes: list[tuple[str, Any]] = []
    for event in backend.SseDecoder().feed_jsonrpc(body):
        message = None if event.error is None else str(event.error)
        if message and "nesting deeper" not in message and message.startswith("invalid JSON: "):
            message = "invalid JSON"
        outcomes.append((repr(event.messages), message))
    return outcomes


def test_the_depth_error_names_the_bracket_that_opens_level_101(backend: ModuleType) -> None:
    text = '{"jsonrpc":"2.0",\n"id":1,"result":' + "[" * 100 + "]" * 100 + "}"
    with pytest.raises(JsonRpcProtocolError) as caught:
        backend.parse_jsonrpc_line(text)
    # line 2 is '"id":1,"result":' (16 characters), then 99 brackets: the 100th is column 116
    assert str(caught.value) == "invalid JSON: nesting deeper than 100 levels at line 2 column 116"


@pytest.mark.both_backends
def test_an_error_before_a_too_deep_value_in_json_order_names_that_error(
    pure: ModuleType, native: ModuleType
) -> None:
    deep: list[Any] = []
    for _ in range(200):
        deep = [deep]
    cases: list[Any] = [
        [float("nan"), deep],
        [deep, float("nan")],
        {1j: 1, "a": deep},
        {"a": deep, 1j: 1},
        [object(), deep],
        [{"k": {(1, 2): 1}}, deep],
    ]
    for payload in cases:
        outcomes = []
        for backend in (pure, native):
            try:
                outcomes.append(("ok", backend.encode_jsonrpc_message(payload)))
            except (TypeError, ValueError) as exc:
                outcomes.append((type(exc).__name__, str(exc)))
        assert outcomes[0] == outcomes[1], payload
