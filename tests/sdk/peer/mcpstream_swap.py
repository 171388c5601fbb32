"""A pytest plugin for the official SDK's own test suite (python-sdk at the tag of the pinned
``mcp``, 2.x or 1.x): every ``streamable_http_client`` the SDK and its tests name is
``mcpstream.sdk.streamable_http_client`` instead (and on the 1.x line its deprecated
``streamablehttp_client`` is ``mcpstream.sdk.streamablehttp_client``), so the SDK's tests of its
Streamable HTTP client run over mcpstream's transport. Loaded with ``-p mcpstream_swap`` by
``scripts/sdk-peer-tests.sh``; never imported by mcpstream's own suite.

The swap is made before the SDK's test modules are imported (``pytest_configure``), in every
module of ``mcp`` that imported a name, found by identity, and again in each test module as it
is collected (``from mcp.client.streamable_http import streamable_http_client`` binds the name
there)."""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import Any

import pytest

# The SDK's function of each name -> mcpstream's (filled by pytest_configure).
SWAPS: dict[str, tuple[Any, Any]] = {}


def _swap(module: Any) -> None:
    for name, (original, ours) in SWAPS.items():
        if getattr(module, name, None) is original:
            setattr(module, name, ours)


def pytest_configure(config: pytest.Config) -> None:
    import mcpstream.sdk

    # The modules that bind the name at import (mcp.client.client is 2.x only).
    for name in ("mcp.client.client", "mcp.client.session_group", "mcp.client.streamable_http"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    sdk = sys.modules["mcp.client.streamable_http"]
    for name in ("streamable_http_client", "streamablehttp_client"):
        if hasattr(sdk, name):
            SWAPS[name] = (getattr(sdk, name), getattr(mcpstream.sdk, name))
    for module_name, module in list(sys.modules.items()):
        if module_name == "mcp" or module_name.startswith("mcp."):
            _swap(module)


def pytest_report_header(config: pytest.Config) -> str:
    names = ", ".join(SWAPS) or "streamable_http_client"
    return f"mcpstream_swap: {names} from mcpstream.sdk"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for module in {item.module for item in items if isinstance(item, pytest.Function)}:
        _swap(module)
