"""The servers of the tests of a host's client (``host_server.py``, run in a subprocess):
``plain_server`` (HTTP/1.1 under uvicorn) and ``tls_server`` (hypercorn over TLS with a
certificate of a private CA made here, offering HTTP/2 and HTTP/1.1), each with its redirect
chain (``/hop/<n>/mcp``)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.plain_http.tls import self_signed_certificate

__all__ = ["HostServer", "plain_server", "tls_server"]

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class HostServer:
    """A running ``host_server.py``: its origin and, over TLS, the CA certificate to trust."""

    origin: str
    ca: Path | None = None

    def url(self, hops: int | None = None) -> str:
        """The endpoint's URL, or one ``hops`` redirects away from it."""
        return f"{self.origin}/mcp" if hops is None else f"{self.origin}/hop/{hops}/mcp"


@contextmanager
def _serving(*args: str) -> Iterator[int]:
    process = subprocess.Popen(
        [sys.executable, str(HERE / "host_server.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"host_server.py {args[0]} did not start: {line!r}")
        yield int(line.split()[1])
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def plain_server() -> Iterator[HostServer]:
    """The SDK's server over plain HTTP/1.1."""
    with _serving("plain") as port:
        yield HostServer(f"http://127.0.0.1:{port}")


@pytest.fixture(scope="module")
def tls_server() -> Iterator[HostServer]:
    """The SDK's server over TLS (a certificate of a private CA for 127.0.0.1), offering
    ``h2`` and ``http/1.1`` by ALPN."""
    with tempfile.TemporaryDirectory() as root:
        cert, key = self_signed_certificate(Path(root))
        with _serving("tls", str(cert), str(key)) as port:
            yield HostServer(f"https://127.0.0.1:{port}", cert)
