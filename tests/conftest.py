"""Shared fixtures: every codec test runs once per backend.

``backend`` is parametrized over the backends under test: ``python`` (``mcpstream._pure``) and
``native`` (``mcpstream._native``). A backend that cannot be imported fails its tests; it is
never skipped. Set ``MCPSTREAM_TEST_BACKENDS=python`` (a comma-separated list) to test only some
backends, e.g. before the Rust extension is built. Tests marked ``both_backends`` compare the two
backends with each other; they are deselected (not skipped) when only one backend is tested.

mcpstream's own HTTP clients (and a host's stock async client under ``mcpstream.sdk``) run on
its HTTP/1.1 transport (``mcpstream._http.h1``) by default; ``MCPSTREAM_H1_TRANSPORT=0`` runs
the suites over httpx's own transport instead. The tests of the httpcore pool of mcpstream's
own clients (marked ``httpcore_client``) opt out for themselves, in either run.

``MCPSTREAM_TEST_ALIAS_HTTPX=1`` runs the suites as an application that called
``httpx2.alias_httpx()`` does: it is called here, before anything imports httpx or mcpstream,
so that ``import httpx`` (mcpstream's, the tests', every library's) gives httpx2.
"""

from __future__ import annotations

import os

if os.environ.get("MCPSTREAM_TEST_ALIAS_HTTPX", "") not in ("", "0"):
    import httpx2

    httpx2.alias_httpx()

import importlib.util
from collections.abc import Iterator
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings
from mcpstream.codec import load_backend

ALL_BACKENDS = ("python", "native")

FRAMEWORKS = ("fastmcp", "pydantic_ai", "agents", "llama_index.tools.mcp")
"""The agent frameworks tests/frameworks/ runs against (FastMCP, Pydantic AI, OpenAI Agents,
llama-index)."""

FRAMEWORKS_ADK = ("google.adk",)
"""Google ADK, which tests/frameworks_adk/ runs against (it cannot share the others' venv)."""

FRAMEWORKS_1X = ("langchain_mcp_adapters", "mcpadapt", "smolagents", "strands", "mcp_proxy")
"""The agent frameworks of the SDK's 1.x line tests/frameworks_1x/ runs against."""


def _installed(name: str) -> bool:
    """Whether the module ``name`` can be imported (a dotted name's parent may be missing)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


# The framework peers need the frameworks, which pull large dependency trees and so live in
# environments of their own (scripts/framework-tests.sh); elsewhere a directory is not collected.
collect_ignore = [
    directory
    for directory, names in (
        ("frameworks", FRAMEWORKS),
        ("frameworks_adk", FRAMEWORKS_ADK),
        ("frameworks_1x", FRAMEWORKS_1X),
    )
    if not all(_installed(name) for name in names)
]

settings.register_profile(
    "mcpstream",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "mcpstream"))


def selected_backends() -> tuple[str, ...]:
    """The backends to test, from ``MCPSTREAM_TEST_BACKENDS`` (default: all of them)."""
    raw = os.environ.get("MCPSTREAM_TEST_BACKENDS", "")
    names = tuple(name.strip() for name in raw.split(",") if name.strip())
    if not names:
        return ALL_BACKENDS
    unknown = sorted(set(names) - set(ALL_BACKENDS))
    if unknown:
        raise pytest.UsageError(f"MCPSTREAM_TEST_BACKENDS names unknown backends: {unknown}")
    return names


def import_backend(name: str) -> ModuleType:
    """The backend module ``name``; a missing backend fails the test that needs it."""
    try:
        return load_backend(name)  # type: ignore[arg-type]
    except ImportError as exc:
        pytest.fail(
            f"the {name} backend cannot be imported ({exc}); build it, or set "
            "MCPSTREAM_TEST_BACKENDS=python to test the pure-Python backend alone",
            pytrace=False,
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_backends: compares the python and native backends with each other"
    )
    config.addinivalue_line(
        "markers", "own_client: tests the transport's own client; not run over a host's client"
    )
    config.addinivalue_line(
        "markers",
        "httpcore_client: tests the httpcore pool of mcpstream's own clients (its streams, "
        "read sizes, hooks): runs with MCPSTREAM_H1_TRANSPORT=0, the opt-out of the h1 transport",
    )


def _dropped(item: pytest.Item, both: bool) -> bool:
    if not both and item.get_closest_marker("both_backends"):
        return True
    callspec = getattr(item, "callspec", None)
    stack = callspec.params.get("client_stack") if callspec is not None else None
    return stack not in (None, "own") and item.get_closest_marker("own_client") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    both = set(ALL_BACKENDS) <= set(selected_backends())
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (dropped if _dropped(item, both) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(params=selected_backends(), scope="session")
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test (``mcpstream._pure`` or ``mcpstream._native``)."""
    return import_backend(request.param)


@pytest.fixture(scope="session")
def pure() -> ModuleType:
    """The pure-Python backend, for tests comparing both backends."""
    return import_backend("python")


@pytest.fixture(scope="session")
def native() -> ModuleType:
    """The native backend, for tests comparing both backends."""
    return import_backend("native")


@pytest.fixture(autouse=True)
def _httpcore_client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked ``httpcore_client`` runs with mcpstream's own clients on httpx's transport
    and its httpcore pool (``MCPSTREAM_H1_TRANSPORT=0``), the pool it tests, whatever the run's
    setting."""
    if request.node.get_closest_marker("httpcore_client"):
        monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "0")


@pytest.fixture(autouse=True)
def _fresh_negotiation_cache() -> Iterator[None]:
    """Each test negotiates from scratch: the process's caches of what servers speak (the
    transport core's ``NEGOTIATED``) and of their discovery answers (``DISCOVERED``) are
    emptied before it, so that tests do not depend on their order."""
    from mcpstream._http.core.discovery import DISCOVERED
    from mcpstream._http.core.sse_legacy import NEGOTIATED

    NEGOTIATED.clear()
    DISCOVERED.clear()
    yield
