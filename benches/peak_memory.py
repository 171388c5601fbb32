"""Peak memory of decoding one large event: ``python benches/peak_memory.py BACKEND MIB``.

Feeds one ``MIB``-MiB JSON-RPC event in 1 KiB chunks through ``SseDecoder.feed_jsonrpc`` of the
named backend (``native`` or ``python``) and prints a JSON object with the growth of the process's
peak resident set over a baseline taken after a warm-up, and its ratio to the event size. Runs in
a process of its own so that nothing else shares its peak.
"""

from __future__ import annotations

import json
import resource
import sys

from mcpstream.codec import load_backend
from workloads import iter_chunks


def _peak_rss_bytes() -> int:
    # VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the parent across
    # fork and exec, so under pytest it reports the (larger) parent's peak.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(backend_name: str, mib: int) -> dict[str, float]:
    """Decode one event of ``mib`` MiB and report the peak memory growth it caused."""
    backend = load_backend("native" if backend_name == "native" else "python")
    size = mib << 20
    warm = backend.SseDecoder(max_event_bytes=None)
    for chunk in iter_chunks(64 * 1024):
        warm.feed_jsonrpc(chunk)
    warm.finish_jsonrpc()
    baseline = _peak_rss_bytes()
    decoder = backend.SseDecoder(max_event_bytes=None)
    events = []
    for chunk in iter_chunks(size):
        events.extend(decoder.feed_jsonrpc(chunk))
    events.extend(decoder.finish_jsonrpc())
    growth = _peak_rss_bytes() - baseline
    text = events[0].messages[0].result["text"]
    assert len(events) == 1 and len(text) > size - 1024
    return {"event_bytes": size, "peak_growth_bytes": growth, "ratio": growth / size}


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], int(sys.argv[2]))))
