"""The official SDK's server that forgets sessions on command (``mcp_sdk_server.py
forgetful``), in a subprocess of its own: the tests of session recovery lose the session at
each step in turn, as a restart at that moment would.

The server reaches into the session manager of the SDK the suite pins (mcp 2.3). A suite run
at older releases (the lowest leg) points ``MCPSTREAM_TEST_SERVER_PYTHON`` at a Python that
has that SDK; the client side is still the one under test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


class ForgetfulServer:
    """The subprocess, its MCP ``url``, and its commands."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [
                os.environ.get("MCPSTREAM_TEST_SERVER_PYTHON") or sys.executable,
                str(HERE / "mcp_sdk_server.py"),
                "forgetful",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line.startswith("READY "):
            self._process.kill()
            raise RuntimeError(f"the forgetful MCP server did not start: {line!r}")
        self.base = f"http://127.0.0.1:{int(line.split()[1])}"
        self.url = f"{self.base}/mcp"
        self.port = int(line.split()[1])

    def _ask(self, method: str, path: str) -> Any:
        request = urllib.request.Request(f"{self.base}{path}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
            return json.loads(response.read())

    def forget(self, at: str, times: int = 1) -> None:
        """Lose the session at the next ``times`` requests of kind ``at`` (a JSON-RPC method,
        ``GET`` or ``DELETE``)."""
        for _ in range(times):
            self._ask("POST", f"/forget?at={at}")

    def reset(self) -> None:
        """Nothing armed, nothing seen."""
        self._ask("POST", "/disarm")
        self.seen()

    def seen(self) -> list[tuple[str, str | None]]:
        """The requests seen since the last look: ``(kind, session id or None)`` each."""
        return [(kind, session) for kind, session in self._ask("GET", "/seen")]

    def stop(self) -> None:
        """End the subprocess."""
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
