"""How many examples each fuzz test runs: ``MCPSTREAM_FUZZ_EXAMPLES`` (default 1000, 5000 in
all, which keeps the whole bounded run under half a minute), with no deadline and no example
database (a long run must not leave state in the checkout)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("MCPSTREAM_FUZZ_EXAMPLES", "1000"))

fuzz_settings = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
