"""The ``mcpstream`` command.

Each group of subcommands lives in its own module with a ``register(subparsers)`` function that
adds its parser and sets ``handler`` (a function taking the parsed arguments and returning the
exit status); :func:`main` parses, dispatches, and turns mcpstream's errors into one line on
stderr with exit status 1 (a traceback only with ``--debug``).

The command's terminal output is rich's, which the ``cli`` extra installs
(``pip install 'mcpstream[cli]'``) and the library never imports: without it, :func:`main` says
exactly that and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .._version import __version__
from ..errors import McpAuthError, McpTransportError

__all__ = ["build_parser", "main"]

Handler = Callable[[argparse.Namespace], int]

_MISSING_CLI_EXTRA = (
    "mcpstream: the command needs the 'cli' extra (rich, for its terminal output); "
    "install it with: pip install 'mcpstream[cli]'"
)
"""What :func:`main` prints when rich is not installed."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered (``ImportError`` without rich)."""
    # The subcommands' modules import rich: only here, so the library never pays for it.
    from . import auth, bench, call, demo, doctor, skills, tools

    parser = argparse.ArgumentParser(
        prog="mcpstream",
        description="A fast, correct MCP Streamable HTTP client.",
    )
    parser.add_argument("--version", action="version", version=f"mcpstream {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show tracebacks and debug logging on errors"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (demo, tools, skills, call, bench, auth, doctor):
        group.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        import rich  # noqa: F401 (only whether it is installed)
    except ImportError:
        print(_MISSING_CLI_EXTRA, file=sys.stderr)
        return 2
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
