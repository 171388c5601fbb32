"""The codec benchmark behind ``mcpstream bench``: built-in SSE workloads shaped like MCP
traffic, decoded side by side by the native codec, the pure-Python codec and (when
``httpx-sse`` is installed) the official SDK's stack, httpx-sse with ``json.loads``.

It measures what ``benches/`` measures (body chunks in, JSON-RPC messages out; throughput is
bytes over the median time), with workloads generated here so that it runs from an installed
package.
"""

from __future__ import annotations

from .measure import Implementation, Measurement, available_implementations, measure
from .workloads import Workload, builtin_workloads

__all__ = [
    "Implementation",
    "Measurement",
    "Workload",
    "available_implementations",
    "builtin_workloads",
    "measure",
]
