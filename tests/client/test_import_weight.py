"""What ``import mcpstream`` loads (nothing heavy, not even httpx: the client's names are imported
at their first use), and what importing and opening a ``Client`` to a real server adds: none of
the packages only one part of mcpstream needs (rich for the command, PyYAML for skills,
cryptography and PyJWT for DPoP and signed assertions, ``http.server`` for the login listener,
the SDK for ``mcpstream.sdk``, OpenTelemetry, loaded only by a host that configures it), each
checked in a fresh interpreter so ``sys.modules`` is clean.

httpx itself, which mcpstream imports, loads ``bz2`` and ``lzma`` (through ``urllib.request``)
and, when click is installed (as uvicorn and so the SDK's server bring it), its command line's
rich and pygments. The checks therefore run twice: as installed, where mcpstream must add none of
the heavy modules to what ``import httpx`` alone loads in the same environment; and with
httpx's command line unavailable (as on a host without click), where none of them may load
but the two httpx always loads.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcpstream.demo import DemoServer

HEAVY = (
    "rich",
    "pygments",
    "markdown_it",
    "click",
    "yaml",
    "cryptography",
    "jwt",
    "http.server",
    "socketserver",
    "webbrowser",
    "bz2",
    "lzma",
    "mcp",
    "pydantic",
    "uvicorn",
    "starlette",
    "httpx2",
    "httpcore2",
    "matplotlib",
    "numpy",
    "opentelemetry",
)
"""The modules a host calling a tool never needs at import (or only some hosts, later)."""
LOADED_BY_HTTPX = frozenset({"bz2", "lzma"})
"""What ``import httpx`` loads whatever else is installed (``urllib.request``, ``tempfile``,
``shutil``)."""

# httpx imports its command line (httpx._main: click, rich, pygments) when those are installed;
# None in sys.modules makes that import fail, as it does on a host without them.
_NO_HTTPX_CLI = 'sys.modules["httpx._main"] = None\n'


@functools.cache
def _heavy_loaded(code: str, *, block_httpx_cli: bool) -> frozenset[str]:
    """The modules of HEAVY in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = "import sys\n"
    if block_httpx_cli:
        script += _NO_HTTPX_CLI
    script += code + "\nimport json\n"
    script += f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    return frozenset(json.loads(done.stdout.strip().splitlines()[-1]))


def _client_session(url: str) -> str:
    return (
        "from mcpstream import Client\n"
        f"with Client({url!r}) as client:\n"
        "    assert client.list_tools()\n"
    )


def _async_client_session(url: str) -> str:
    return (
        "import asyncio\n"
        "from mcpstream import AsyncClient\n"
        "async def main():\n"
        f"    async with AsyncClient({url!r}) as client:\n"
        "        assert await client.list_tools()\n"
        "asyncio.run(main())\n"
    )


def test_import_httpx_alone_loads_what_this_file_says() -> None:
    without_cli = _heavy_loaded("import httpx", block_httpx_cli=True)
    assert without_cli == LOADED_BY_HTTPX


@pytest.mark.parametrize("block_httpx_cli", [True, False], ids=["no-httpx-cli", "as-installed"])
def test_import_mcpstream_loads_none_of_them(block_httpx_cli: bool) -> None:
    # Not even httpx: the package's names load the client at their first use.
    assert _heavy_loaded("import mcpstream", block_httpx_cli=block_httpx_cli) == set()
    # Nor does naming doctor(): it imports what it inspects when called.
    assert _heavy_loaded("import mcpstream; mcpstream.doctor", block_httpx_cli=False) == set()


@pytest.mark.parametrize("block_httpx_cli", [True, False], ids=["no-httpx-cli", "as-installed"])
def test_importing_the_client_adds_no_heavy_module_to_httpx(block_httpx_cli: bool) -> None:
    by_httpx = _heavy_loaded("import httpx", block_httpx_cli=block_httpx_cli)
    loaded = _heavy_loaded("from mcpstream import Client", block_httpx_cli=block_httpx_cli)
    assert loaded - by_httpx == set()
    if block_httpx_cli:
        assert loaded == LOADED_BY_HTTPX


def test_the_package_serves_every_name_of_the_client_module() -> None:
    import mcpstream
    import mcpstream._doctor
    import mcpstream.client

    assert set(mcpstream._CLIENT_NAMES) == set(mcpstream.client.__all__)
    assert set(mcpstream.__all__) == {
        *mcpstream.client.__all__,
        *mcpstream._doctor.__all__,
        "McpError",
        "McpStreamError",
        "__version__",
        "close_pools",
    }
    assert mcpstream.doctor is mcpstream._doctor.doctor
    assert mcpstream.close_pools is mcpstream._http.shared_pools.close_pools
    assert all(
        getattr(mcpstream, name) is getattr(mcpstream.client, name)
        for name in mcpstream.__all__
        if name in mcpstream._CLIENT_NAMES
    )
    with pytest.raises(AttributeError):
        _ = mcpstream.NoSuchName  # type: ignore[attr-defined]


@pytest.mark.parametrize("session", [_client_session, _async_client_session], ids=["sync", "async"])
@pytest.mark.parametrize("block_httpx_cli", [True, False], ids=["no-httpx-cli", "as-installed"])
def test_a_client_session_adds_no_heavy_module_to_httpx(
    json_server: DemoServer, session: object, block_httpx_cli: bool
) -> None:
    assert callable(session)
    by_httpx = _heavy_loaded("import httpx", block_httpx_cli=block_httpx_cli)
    loaded = _heavy_loaded(session(json_server.url), block_httpx_cli=block_httpx_cli)
    assert loaded - by_httpx == set()
    if block_httpx_cli:
        assert loaded == LOADED_BY_HTTPX


def test_the_parts_that_need_a_heavy_module_still_load_it() -> None:
    # The lazy imports are real imports: each part brings its module when first used.
    code = (
        "from mcpstream.client.skills import parse_frontmatter\n"
        "assert parse_frontmatter(b'---\\nname: x\\n---\\n') == {'name': 'x'}\n"
        "from mcpstream.oauth.dpop import DPoPKey\n"
        "DPoPKey.from_pem(DPoPKey.generate().to_pem()).proof('GET', 'https://a.example/')\n"
        "from mcpstream.oauth import LoopbackRedirectHandler\n"
        "LoopbackRedirectHandler(open_browser=False).close()\n"
    )
    loaded = _heavy_loaded(code, block_httpx_cli=True)
    assert {"yaml", "cryptography", "jwt", "http.server"} <= loaded


def test_telemetry_loads_opentelemetry_only_once_the_host_did(json_server: DemoServer) -> None:
    # A host that configured a tracer provider has loaded the API: the client then uses it.
    code = (
        "import opentelemetry.trace as trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "trace.set_tracer_provider(TracerProvider())\n"
        + _client_session(json_server.url)
        + "assert 'mcpstream._telemetry.otel' in sys.modules\n"
    )
    assert "opentelemetry" in _heavy_loaded(code, block_httpx_cli=True)


def test_the_command_without_rich_says_which_extra_to_install() -> None:
    script = (
        "import sys\n"
        "sys.modules['rich'] = None\n"
        "from mcpstream.cli import main\n"
        "sys.exit(main(['tools', 'http://127.0.0.1:9/mcp']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "pip install 'mcpstream[cli]'" in done.stderr
    assert "Traceback" not in done.stderr
