"""A real MCP 2024-11-05 server on loopback: the TypeScript SDK 1.0.4 (whose newest protocol is
2024-11-05) on its HTTP+SSE transport, run by ``server.mjs`` with the machine's node.

``scripts/install-legacy-server.sh`` installs the SDK into a cache outside the clone
(``MCPSTREAM_LEGACY_SERVER_DIR``, else ``~/.cache/mcpstream/legacy-server``); a test that needs
the server fails, with the command to run, when it is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["legacy_server_dir", "ts_sdk_2024_server"]

HERE = Path(__file__).resolve().parent


def legacy_server_dir() -> Path:
    """Where ``scripts/install-legacy-server.sh`` installs the SDK."""
    configured = os.environ.get("MCPSTREAM_LEGACY_SERVER_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "mcpstream" / "legacy-server"


@contextmanager
def ts_sdk_2024_server() -> Iterator[str]:
    """Run the server; yields the URL of its event stream (``http://127.0.0.1:PORT/sse``)."""
    sdk_dir = legacy_server_dir()
    entry = sdk_dir / "node_modules" / "@modelcontextprotocol" / "sdk" / "dist" / "server"
    node = shutil.which("node")
    if node is None or not (entry / "sse.js").is_file():
        raise RuntimeError(
            f"the 2024-11-05 test server is not installed in {sdk_dir} (or node is missing): "
            "run `bash scripts/install-legacy-server.sh`"
        )
    # stdin stays a pipe: the server stops by itself when it closes (this process went away).
    process = subprocess.Popen(
        [node, str(HERE / "server.mjs"), str(sdk_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the 2024-11-05 test server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/sse"
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
