"""What starting mcpstream costs, beside httpx: ``python benches/import_time.py [--rounds N]``.

Each measure runs in a fresh interpreter (so nothing is imported yet) and times, inside it,
from just before the first import to the end:

- ``import httpx``, ``import mcpstream`` (the package: its client names load at first use) and
  ``from mcpstream import Client`` (the client and its transports);
- the first session: ``import httpx`` and one ``initialize`` POST to a server, against
  ``import mcpstream``, opening a ``Client`` to the same server and listing its tools.

The server is the demo server (the official SDK's, in this process; the ``demo`` extra), or
``--url``. The cases alternate round by round, so a change of the machine's load falls on all
alike, after one warm-up run of each (bytecode cached, as pip leaves an installed package);
the medians and their ratios are printed (``--json`` for a JSON object). Each case runs
twice: as installed, and with httpx's command line unavailable, as on a host without click
(httpx imports click, rich and pygments at ``import httpx`` when they are installed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_NO_HTTPX_CLI = 'import sys; sys.modules["httpx._main"] = None\n'
_TIMED = "import time\n_start = time.perf_counter()\n{body}\nprint(time.perf_counter() - _start)\n"
_INITIALIZE = (
    '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
    '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}'
)


def cases(url: str) -> dict[str, str]:
    """The code each case times, by name."""
    return {
        "import httpx": "import httpx",
        "import mcpstream": "import mcpstream",
        "from mcpstream import Client": "from mcpstream import Client",
        "httpx: first request": (
            "import httpx\n"
            f"httpx.post({url!r}, content={_INITIALIZE!r}, headers={{"
            "'content-type': 'application/json', "
            "'accept': 'application/json, text/event-stream'}).raise_for_status()"
        ),
        "mcpstream: first session": (
            f"import mcpstream\nwith mcpstream.Client({url!r}) as client:\n    client.list_tools()"
        ),
    }


# With bytecode caching on, as an installed package has it (pip compiles at install): a source
# tree run with PYTHONDONTWRITEBYTECODE would compile every module on each start.
_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_once(body: str, *, no_httpx_cli: bool) -> float:
    """Seconds the code took in a fresh interpreter."""
    code = (_NO_HTTPX_CLI if no_httpx_cli else "") + _TIMED.format(body=body)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=_ENV,
    )
    return float(done.stdout.strip().splitlines()[-1])


def measure(url: str, rounds: int) -> dict[str, dict[str, float]]:
    """The median of each case over ``rounds`` alternating rounds, with and without httpx's
    command line, and the ratios mcpstream/httpx."""
    code = cases(url)
    results: dict[str, dict[str, float]] = {}
    for variant, no_cli in (("as installed", False), ("without httpx's command line", True)):
        times: dict[str, list[float]] = {name: [] for name in code}
        names = list(code)
        for name in names:  # a warm-up: bytecode written, files in the page cache
            run_once(code[name], no_httpx_cli=no_cli)
        for round_ in range(rounds):
            # Alternate the order too: the first of a round may find colder caches.
            for name in names if round_ % 2 == 0 else reversed(names):
                times[name].append(run_once(code[name], no_httpx_cli=no_cli))
        medians = {name: statistics.median(values) for name, values in times.items()}
        medians["ratio: import"] = medians["import mcpstream"] / medians["import httpx"]
        medians["ratio: import Client"] = (
            medians["from mcpstream import Client"] / medians["import httpx"]
        )
        medians["ratio: first session"] = (
            medians["mcpstream: first session"] / medians["httpx: first request"]
        )
        results[variant] = medians
    return results


@contextmanager
def demo_server() -> Iterator[str]:
    """The demo server (JSON answers) on a loopback port; yields its URL."""
    from mcpstream.demo import DemoServer

    with DemoServer(json_response=True) as server:
        yield server.url


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--url", help="an MCP server's URL (default: the demo server)")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args()
    if args.url:
        results = measure(args.url, args.rounds)
    else:
        with demo_server() as url:
            results = measure(url, args.rounds)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for variant, medians in results.items():
        print(f"{variant} (median of {args.rounds} fresh interpreters each):")
        for name, value in medians.items():
            shown = f"{value:.2f}x" if name.startswith("ratio") else f"{value * 1000:.1f} ms"
            print(f"  {name:30} {shown}")


if __name__ == "__main__":
    main()
