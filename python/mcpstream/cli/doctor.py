"""``mcpstream doctor``: what mcpstream runs with in this process (``mcpstream.doctor()``), so
that "is mcpstream actually in use?" has an answer: the codec backend, each HTTP stack with its
version, where it is installed and whether mcpstream's transport serves its clients."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from .._doctor import Diagnosis, doctor
from ._common import EXIT_OK, add_command
from ._output import markup_safe, out_console, print_json

__all__ = ["register"]


def _rows(found: Diagnosis) -> list[tuple[str, str]]:
    """The lines of the diagnosis: a name and its value (rich markup in the value)."""
    sdk = "not installed"
    if found.sdk_version is not None:
        state = "in effect" if found.sdk_installed else "not called"
        sdk = f"mcp {found.sdk_version} ({found.sdk_line} line); install(): {state}"
    otel = "not installed"
    if found.otel_version is not None:
        otel = f"opentelemetry-api {found.otel_version}; " + (
            "loaded" if found.otel_loaded else "not loaded (nothing is recorded)"
        )
    rows = [
        ("mcpstream", f"{found.version} ({found.path})"),
        ("codec", f"{found.codec}: {found.codec_why}"),
        ("python", f"{found.python} ({found.python_path})"),
        ("platform", found.platform),
        ("h11", found.h11),
        ("official SDK", sdk),
        ("OpenTelemetry", otel),
    ]
    lines = [(name, markup_safe(value)) for name, value in rows]
    for stack in found.stacks:
        if not stack.installed:
            lines.append((stack.name, "[yellow]not installed[/]"))
            continue
        lines.append((f"[cyan]{stack.name}[/]", markup_safe(f"{stack.version} ({stack.path})")))
        core = f"{stack.core} {stack.core_version} ({stack.core_path})"
        lines.append(("  core", markup_safe(core)))
        served = "[green]yes[/]" if stack.served else "[yellow]no[/]"
        served += "".join(f"\n{markup_safe(why)}" for why in stack.why)
        lines.append(("  served by mcpstream", served))
    return lines


def print_diagnosis(found: Diagnosis) -> None:
    """The diagnosis, one fact a line (long values folded, never cut)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for name, value in _rows(found):
        grid.add_row(name, value)
    out_console().print(grid)


def run_doctor(args: argparse.Namespace) -> int:
    """Show what mcpstream runs with here: its version, the codec backend (native or pure, and
    why), Python and the platform, each HTTP stack (httpx, httpx2) with its version, where it
    is installed and whether mcpstream's transport serves its clients (and if not, why), the
    official MCP SDK and whether mcpstream.sdk.install() is in effect, OpenTelemetry."""
    found = doctor()
    if args.json:
        print_json(found.as_dict())
    else:
        print_diagnosis(found)
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add the ``doctor`` command."""
    summary = "show what mcpstream runs with (codec, HTTP stacks, SDK) and whether it is in use"
    add_command(subparsers, "doctor", run_doctor, summary, json_output=True)
