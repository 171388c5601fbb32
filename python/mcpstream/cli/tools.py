"""``mcpstream tools URL`` and ``mcpstream ping URL``."""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.table import Table

from ..client import Tool
from ._common import EXIT_OK, UsageError, add_command, open_client, print_listing_header
from ._output import markup_safe, one_line, out_console, print_json, server_json, server_label

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``tools`` and ``ping`` commands."""
    summary = "list the tools of an MCP server"
    add_command(subparsers, "tools", run_tools, summary, connection=True, json_output=True)
    summary = "check that an MCP server answers"
    ping = add_command(subparsers, "ping", run_ping, summary, connection=True, json_output=True)
    ping.add_argument(
        "-c", "--count", type=int, default=1, help="how many pings to send (default: 1)"
    )


def argument_summary(tool: Tool) -> str:
    """``name*: type`` for each argument of ``tool`` (``*``: required)."""
    properties = tool.input_schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return ""
    required = tool.input_schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    parts = []
    for name, schema in properties.items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        if isinstance(kind, list):
            kind = "|".join(str(k) for k in kind)
        mark = "*" if name in required_names else ""
        parts.append(f"{name}{mark}: {kind}" if kind else f"{name}{mark}")
    return ", ".join(parts)


def run_tools(args: argparse.Namespace) -> int:
    """List the tools of an MCP server (all pages)."""
    with open_client(args) as client:
        info = client.connect()
        tools = client.list_tools()
    if args.json:
        print_json({"server": server_json(info), "tools": [tool.raw for tool in tools]})
        return EXIT_OK
    console = print_listing_header(info, len(tools), "tool")
    if not tools:
        return EXIT_OK
    table = Table(show_lines=False, header_style="bold")
    table.add_column("tool", style="cyan", no_wrap=True)
    table.add_column("arguments (* required)")
    table.add_column("description")
    for tool in tools:
        description = one_line((tool.description or "").strip().split("\n\n")[0], 120)
        table.add_row(
            markup_safe(tool.name), markup_safe(argument_summary(tool)), markup_safe(description)
        )
    console.print(table)
    return EXIT_OK


def run_ping(args: argparse.Namespace) -> int:
    """Connect to an MCP server and ping it."""
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    started = time.perf_counter()
    with open_client(args) as client:
        info = client.connect()
        connected_s = time.perf_counter() - started
        round_trips = [client.ping() for _ in range(args.count)]
    if args.json:
        print_json(
            {
                "ok": True,
                "server": server_json(info),
                "connectMs": round(connected_s * 1000, 3),
                "roundTripsMs": [round(rtt * 1000, 3) for rtt in round_trips],
            }
        )
        return EXIT_OK
    console = out_console()
    console.print(
        f"connected to {markup_safe(server_label(info))} "
        f"({info.era_label}, protocol {markup_safe(info.protocol_version)}) "
        f"in {connected_s * 1000:.1f} ms"
    )
    for rtt in round_trips:
        console.print(f"pong in {rtt * 1000:.2f} ms")
    return EXIT_OK
