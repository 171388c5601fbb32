"""A pytest plugin for the official SDK's own test suite (python-sdk at the tag of the pinned
``mcp``): every ``streamable_http_client`` the SDK and its tests name is
``mcpstream.sdk.streamable_http_client`` instead, so the SDK's tests of its Streamable HTTP
client run over mcpstream's transport. Loaded with ``-p mcpstream_swap`` by
``scripts/sdk-peer-tests.sh``; never imported by mcpstream's own suite.

The swap is made before the SDK's test modules are imported (``pytest_configure``), in every
module of ``mcp`` that imported the name, and again in each test module as it is collected
(``from mcp.client.streamable_http import streamable_http_client`` binds the name there)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

ORIGINAL: Any = None


def _swap(module: Any) -> None:
    from mcpstream.sdk import streamable_http_client

    if getattr(module, "streamable_http_client", None) is ORIGINAL:
        module.streamable_http_client = streamable_http_client


def pytest_configure(config: pytest.Config) -> None:
    global ORIGINAL
    import mcp.client.client
    import mcp.client.session_group
    import mcp.client.streamable_http

    ORIGINAL = mcp.client.streamable_http.streamable_http_client
    for name, module in list(sys.modules.items()):
        if name == "mcp" or name.startswith("mcp."):
            _swap(module)


def pytest_report_header(config: pytest.Config) -> str:
    return "mcpstream_swap: streamable_http_client is mcpstream.sdk.streamable_http_client"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for module in {item.module for item in items if isinstance(item, pytest.Function)}:
        _swap(module)
