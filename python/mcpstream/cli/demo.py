"""``mcpstream demo``: a demo MCP server inside this process, and the client at work on it."""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from .. import __version__, codec
from .. import client as mcp
from ..client import Client
from ._common import EXIT_ERROR, EXIT_OK, UsageError, add_command, fail
from ._output import markup_safe, out_console, print_json, server_json

__all__ = ["register"]

_BACKEND_NAMES = {"native": "native (Rust)", "python": "pure Python"}


def register(subparsers: Any) -> None:
    """Add the ``demo`` command."""
    summary = "run a demo MCP server in this process and show the client at work"
    demo = add_command(subparsers, "demo", run_demo, summary, json_output=True)
    demo.add_argument(
        "--size",
        type=int,
        default=4_000_000,
        help="characters in the large result (default: 4000000)",
    )
    demo.add_argument(
        "--steps", type=int, default=20, help="progress notifications to stream (default: 20)"
    )
    demo.add_argument(
        "--serve",
        action="store_true",
        help="keep the demo server running and print its URL, to try the other commands on "
        "(Ctrl-C stops it)",
    )
    demo.add_argument("--port", type=int, default=0, help="port for --serve (default: a free one)")


class _Report:
    """The demo's steps, printed as they complete (or collected for ``--json``)."""

    def __init__(self, console: Console, as_json: bool) -> None:
        self.console = console
        self.as_json = as_json
        self.steps: list[dict[str, Any]] = []

    def step(self, name: str, detail: str, seconds: float, **extra: Any) -> None:
        self.steps.append({"step": name, "detail": detail, "ms": round(seconds * 1000, 3), **extra})
        if not self.as_json:
            self.console.print(
                f"[green]\u2713[/] [bold]{name:<13}[/] {markup_safe(detail)}  "
                f"[dim]{seconds * 1000:.1f} ms[/]"
            )


def _start_server(port: int) -> Any:
    from ..demo import DemoServer, DemoServerUnavailableError

    try:
        return DemoServer(port=port).start()
    except DemoServerUnavailableError as exc:
        raise _DemoUnavailable(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None


class _DemoUnavailable(Exception):
    """The ``demo`` extra is not installed."""


def run_demo(args: argparse.Namespace) -> int:
    """Start a demo MCP server (the official MCP SDK's, under uvicorn) on a free loopback port
    inside this process, and show the client against it: the handshake, the tool list, a tool
    call, a large streamed result and a progress stream, with timings."""
    if args.size < 1 or args.steps < 1:
        raise UsageError("--size and --steps must be at least 1")
    try:
        started = time.perf_counter()
        server = _start_server(args.port)
    except _DemoUnavailable as exc:
        return fail(str(exc), EXIT_ERROR)
    try:
        if args.serve:
            return _serve(server)
        return _show(server, args, time.perf_counter() - started)
    finally:
        server.stop()


def _serve(server: Any) -> int:
    console = out_console()
    console.print(f"demo MCP server at [bold]{server.url}[/] (Ctrl-C stops it); try:")
    console.print(f"  mcpstream tools {server.url}")
    console.print(f"  mcpstream call {server.url} add a=2 b=3")
    console.print(f"  mcpstream call {server.url} count steps=50 delay=0.05")
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()
    return EXIT_OK


def _show(server: Any, args: argparse.Namespace, startup_s: float) -> int:
    console = out_console()
    report = _Report(console, args.json)
    backend = _BACKEND_NAMES.get(codec.BACKEND, codec.BACKEND)
    if not args.json:
        console.print(f"[bold]mcpstream {__version__}[/] demo \u00b7 codec backend: {backend}")
    report.step("server", f"official MCP SDK server at {server.url}", startup_s)
    started = time.perf_counter()
    with Client(server.url) as client:
        info = client.server_info
        assert info is not None
        report.step(
            "handshake",
            f"{info.name}, {info.era} era, protocol {info.protocol_version}",
            time.perf_counter() - started,
        )
        _tools_step(client, report)
        _large_step(client, report, args.size)
        _progress_step(client, report, args.steps, console)
        rtt = client.ping()
        report.step("ping", "pong", rtt)
    if args.json:
        print_json(
            {
                "backend": codec.BACKEND,
                "url": server.url,
                "server": server_json(info),
                "steps": report.steps,
            }
        )
    else:
        console.print(
            "Try the commands on a server of your own, or on this one with "
            "[bold]mcpstream demo --serve[/]."
        )
    return EXIT_OK


def _tools_step(client: Client, report: _Report) -> None:
    started = time.perf_counter()
    tools = client.list_tools()
    report.step(
        "tools/list",
        f"{len(tools)} tools: {', '.join(tool.name for tool in tools[:4])}"
        + (", \u2026" if len(tools) > 4 else ""),
        time.perf_counter() - started,
        tools=len(tools),
    )
    started = time.perf_counter()
    result = client.call_tool("add", {"a": 2, "b": 3})
    report.step("tools/call", f"add(a=2, b=3) = {result.text}", time.perf_counter() - started)


def _large_step(client: Client, report: _Report, size: int) -> None:
    started = time.perf_counter()
    result = client.call_tool("big_text", {"size": size})
    seconds = time.perf_counter() - started
    text = result.text
    megabytes = len(text.encode("utf-8")) / 1e6
    report.step(
        "large result",
        f"big_text: {megabytes:.1f} MB of UTF-8 text, {megabytes / seconds:.1f} MB/s "
        "(server included)",
        seconds,
        bytes=len(text.encode("utf-8")),
        characters=len(text),
    )


def _progress_step(client: Client, report: _Report, steps: int, console: Console) -> None:
    received: list[mcp.Progress] = []
    bar = Progress(
        TextColumn("  count"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
        disable=report.as_json or not console.is_terminal,
    )
    task = bar.add_task("", total=steps)

    def on_progress(progress: mcp.Progress) -> None:
        received.append(progress)
        bar.update(task, completed=progress.progress, description=progress.message or "")

    started = time.perf_counter()
    with bar:
        client.call_tool("count", {"steps": steps, "delay": 0.05}, progress=on_progress)
    report.step(
        "progress",
        f"count: {len(received)} progress notifications streamed live",
        time.perf_counter() - started,
        notifications=len(received),
    )
