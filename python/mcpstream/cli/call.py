"""``mcpstream call URL TOOL [key=value ...] [--json [ARGS]]``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from .. import client as mcp
from ..client import Client, ToolResult
from ..errors import McpError
from ._common import EXIT_ERROR, EXIT_OK, UsageError, add_command, fail, open_client
from ._output import content_text, err_console, markup_safe, one_line, plain, print_json

__all__ = ["parse_pairs", "register"]


def register(subparsers: Any) -> None:
    """Add the ``call`` command."""
    call = add_command(
        subparsers, "call", run_call, "call a tool of an MCP server", connection=True
    )
    call.add_argument("tool", help="the tool's name")
    call.add_argument("pairs", nargs="*", metavar="key=value", help="an argument of the tool")
    call.add_argument(
        "--json",
        nargs="?",
        const="",
        default=None,
        metavar="ARGS",
        help="print the result as JSON; ARGS, if given, is a JSON object of arguments",
    )


def _string_properties(client: Client, tool: str) -> set[str] | None:
    """The arguments of ``tool`` whose schema says they are strings (None: unknown tool)."""
    try:
        tools = client.list_tools()
    except McpError:
        return set()
    for item in tools:
        if item.name == tool:
            properties = item.input_schema.get("properties")
            if not isinstance(properties, dict):
                return set()
            strings = set()
            for name, schema in properties.items():
                kind = schema.get("type") if isinstance(schema, dict) else None
                if kind == "string" or (isinstance(kind, list) and "string" in kind):
                    strings.add(name)
            return strings
    return None


def _value(text: str, as_string: bool) -> Any:
    if as_string:
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_pairs(pairs: list[str], strings: set[str]) -> dict[str, Any]:
    """``key=value`` pairs as arguments; values of ``strings`` keys stay strings."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"arguments are key=value pairs, not {pair!r}")
        arguments[key] = _value(value, key in strings)
    return arguments


def _json_arguments(text: str, pairs: list[str]) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        if "=" in text and not text.lstrip().startswith("{"):
            pairs.insert(0, text)  # ``--json a=1``: the flag took a pair that follows it
            return {}
        raise UsageError("--json ARGS must be a JSON object, e.g. --json '{\"a\": 1}'")
    return value


class _ProgressBar:
    """A transient progress bar on stderr, shown only when stderr is a terminal."""

    def __init__(self, tool: str) -> None:
        console = err_console()
        self.enabled = console.is_terminal
        self._progress = Progress(
            TextColumn(f"[bold]{markup_safe(tool)}[/]"),
            BarColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> _ProgressBar:
        if self.enabled:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._progress.stop()

    def update(self, progress: mcp.Progress) -> None:
        """Show one progress notification."""
        if not self.enabled:
            return
        note = markup_safe(progress.message or "")
        if self._task is None:
            self._task = self._progress.add_task("", total=progress.total, note=note)
        self._progress.update(
            self._task, completed=progress.progress, total=progress.total, note=note
        )


def _show(result: ToolResult) -> None:
    texts = [content_text(item) for item in result.content]
    if texts:
        print(plain("\n".join(texts)))
    elif result.structured_content is not None:
        print(plain(json.dumps(result.structured_content, indent=2, ensure_ascii=False)))


def run_call(args: argparse.Namespace) -> int:
    """Call a tool. Arguments are key=value pairs (a value is taken as JSON when the tool's
    schema does not say it is a string and it parses as JSON: n=3, ok=true, tags='["a"]'), or a
    JSON object given to --json."""
    pairs = list(args.pairs)
    arguments = _json_arguments(args.json, pairs) if args.json else {}
    with open_client(args) as client:
        if pairs:
            strings = _string_properties(client, args.tool)
            if strings is None:
                raise UsageError(f"the server has no tool named {args.tool!r}")
            arguments.update(parse_pairs(pairs, strings))
        with _ProgressBar(args.tool) as bar:
            result = client.call_tool(args.tool, arguments, progress=bar.update)
    if args.json is not None:
        print_json(result.raw)
        return EXIT_ERROR if result.is_error else EXIT_OK
    if result.is_error:
        return fail(
            f"the tool {args.tool!r} failed: {one_line(result.text) or '(no message)'}", EXIT_ERROR
        )
    _show(result)
    sys.stdout.flush()
    return EXIT_OK
