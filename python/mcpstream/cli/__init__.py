"""The ``mcpstream`` command.

Each group of subcommands lives in its own module with a ``register(subparsers)`` function that
adds its parser and sets ``handler`` (a function taking the parsed arguments and returning the
exit status); :func:`main` parses, dispatches, and turns mcpstream's errors into one line on
stderr with exit status 1 (a traceback only with ``--debug``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .._version import __version__
from ..errors import McpAuthError, McpTransportError
from . import auth, bench, call, demo, skills, tools

__all__ = ["build_parser", "main"]

Handler = Callable[[argparse.Namespace], int]

_COMMAND_GROUPS = (demo, tools, skills, call, bench, auth)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="mcpstream",
        description="A fast, correct MCP Streamable HTTP client.",
    )
    parser.add_argument("--version", action="version", version=f"mcpstream {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show tracebacks and debug logging on errors"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in _COMMAND_GROUPS:
        group.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    if args.debug:
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(name)s: %(message)s")
    try:
        return handler(args)
    except (McpAuthError, McpTransportError) as exc:
        if args.debug:
            raise
        print(f"mcpstream: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mcpstream: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
