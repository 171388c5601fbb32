"""The documented httpx2 route passes ``mypy --strict``: ``Client`` and ``AsyncClient`` take an
``httpx2`` client as ``http_client`` (as docs/httpx2.md shows), and an httpx one, while a
value of another type is still refused (the check could fail)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import mcpstream

PACKAGE_ROOT = Path(mcpstream.__file__).resolve().parents[1]

DOCUMENTED = """
    import httpx
    import httpx2
    from mcpstream import AsyncClient, Client


    def sync_route(url: str) -> str:
        with httpx2.Client(proxy="http://proxy:3128") as http:
            with Client(url, http_client=http) as client:
                return client.call_tool("echo", {"text": "hi"}).text


    async def async_route(url: str) -> None:
        async with httpx2.AsyncClient() as http:
            async with AsyncClient(url, http_client=http) as client:
                await client.ping()


    def httpx_route(url: str) -> None:
        with httpx.Client() as http, Client(url, http_client=http) as client:
            client.ping()
"""

WRONG = """
    import httpx2
    from mcpstream import Client

    Client("http://127.0.0.1:8000/mcp", http_client=httpx2.AsyncClient())
"""


def run_mypy(tmp_path: Path, sources: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` over the modules ``sources`` (name: text), in one run: each run
    type-checks mcpstream, httpx and httpx2 anew, which is most of its time."""
    paths: list[str] = []
    for name, source in sources.items():
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        paths.append(path.name)  # relative to cwd: mypy names the file so in its messages
    env = dict(os.environ)
    # A source tree on PYTHONPATH is shown to mypy through MYPYPATH; an installed package (the
    # wheel's venvs) is found in site-packages, which mypy refuses to see in MYPYPATH.
    if PACKAGE_ROOT.name not in ("site-packages", "dist-packages"):
        env["MYPYPATH"] = str(PACKAGE_ROOT)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *paths],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )


def test_the_documented_httpx2_snippets_pass_mypy_strict_and_an_async_client_is_refused(
    tmp_path: Path,
) -> None:
    run = run_mypy(tmp_path, {"documented": DOCUMENTED, "wrong": WRONG})
    report = run.stdout + run.stderr
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    # The documented snippets type-check; the sync client given an async one is refused, once.
    assert not [line for line in errors if line.startswith("documented.py")], report
    assert len(errors) == 1, report
    assert errors[0].startswith("wrong.py:"), report
    assert 'Argument "http_client" to "Client"' in errors[0], report
    assert run.returncode == 1, report
