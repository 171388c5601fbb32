"""One front end of the soak in its own process (so that RSS, fds and threads are its own):
``python soak_worker.py FRONT ERA URL STATUS_FILE --until T [--rate R]`` (``T``: the end, in
``time.monotonic`` seconds, which the processes of one machine share).

It calls ``echo`` at ``--rate`` calls a second, with now and then a stall (``sleep`` past the
call's timeout) and a large answer (``big_text``, which the supervisor's proxy may cut), until
``--until``. A failure is counted by its class; a forced reopen (see
``soak_logic.ReopenDetector``) closes the client and opens another; a call past its timeout by
``HANG_MARGIN_S`` is a hang, which ends the worker. Between calls it writes samples (RSS, traced
memory, fds, threads, tasks; the C heap's used and free KiB, ``malloc_kib``, and the threads
started so far) as JSON lines on stdout, and at the end ``{"type": "done", ...}``.

Before the measured client, one client is opened, called and closed so that what is made once
per process (runtimes, thread pools, caches) is in the closed baseline.

The sessions of mcpstream's own clients leave their idle connections in the process's shared
pools (``mcpstream._http.shared_pools``: the process's, closed after ``KEEPALIVE_EXPIRY``
seconds idle, the sync pools' reaper thread running meanwhile). The closed baseline is taken
with the pools emptied (``close_pools``); after a reopen's close the pools are emptied again
before the levels are compared, as a host wanting nothing left open does (what a session
itself kept, a connection never given back or a thread, still counts); after the last close
they are not: the pools must let go of everything by themselves, within their expiry.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import json
import os
import sys
import threading
import time
import tracemalloc
import weakref
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).parent))

from soak_fronts import SYNC_FRONT_ENDS, Front, SessionEnded, make_front
from soak_logic import Levels, ReopenDetector, above

CALL_TIMEOUT_S = 5.0
STALL_TIMEOUT_S = 1.0
STALL_SLEEP_S = 2.0
HANG_MARGIN_S = 5.0
STALL_EVERY = 40
BIG_EVERY = 10
BIG_SIZE = 256 * 1024
OPEN_TIMEOUT_S = 30.0
"""Many processes starting at once on a busy machine: a first handshake can take a while."""
SAMPLE_EVERY_S = 1.0
LEVELS_EVERY = 2
"""Every 2nd sample also has the levels, after a full collection (a task or socket held only by
garbage is no leak); the collection is too dear for every sample. A window of the baseline or
the end (12 s) then holds about six of them, so that its lowest level is not one that a task or
connection passing through happened to raise in every sample (with two a window, one run in a
few failed on a task that comes and goes)."""
SETTLE_S = 3.0
"""How long a close may take to give back its threads and fds (polled)."""


def close_pools() -> None:
    """Close the idle connections of mcpstream's shared pools (see the module docstring)."""
    from mcpstream import close_pools as close

    close()


def pool_expiry_s() -> float:
    """How long the process's pools keep an idle connection (and the sync pools their reaper
    thread): what the last close's check waits for besides ``SETTLE_S``."""
    from mcpstream._http.shared_pools import KEEPALIVE_EXPIRY

    return KEEPALIVE_EXPIRY


def emit(record: dict[str, Any]) -> None:
    """One JSON line for the supervisor."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def server_up_since(status: Path) -> float | None:
    """When the server last came up (``time.monotonic``, shared by the processes of one
    machine), from the supervisor's status file; None: it is down."""
    try:
        state, at = status.read_text().split()
    except (OSError, ValueError):
        return None
    return float(at) if state == "up" else None


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (2.33 and later)."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo2() -> Callable[[], _MallInfo2] | None:
    """glibc's ``mallinfo2``, or None (another C library, an older glibc)."""
    try:
        function = ctypes.CDLL(None).mallinfo2
    except (AttributeError, OSError):
        return None
    function.restype = _MallInfo2
    function.argtypes = []
    return cast("Callable[[], _MallInfo2]", function)


MALLINFO = _mallinfo2()


def malloc_kib() -> dict[str, float]:
    """The C heap (``mallinfo2``, every arena): ``malloc_used_kib``, what the program holds
    (``uordblks`` and ``hblkhd``, mmapped blocks), and ``malloc_free_kib``, what the allocator
    keeps free (``fordblks``). When RSS grows, the first growing says memory is held, the
    second that freed memory is kept by the allocator (fragmentation, trim thresholds). Empty
    without glibc."""
    if MALLINFO is None:
        return {}
    info = MALLINFO()
    return {
        "malloc_used_kib": (info.uordblks + info.hblkhd) / 1024,
        "malloc_free_kib": info.fordblks / 1024,
    }


_THREADS_STARTED = [0]
_thread_start = threading.Thread.start


def _counting_start(thread: threading.Thread) -> None:
    _THREADS_STARTED[0] += 1
    _thread_start(thread)


# Counted for the samples: a thread started per call or per session shows up as a slope.
threading.Thread.start = _counting_start  # type: ignore[method-assign]


def proc_status(field: str) -> int:
    """A number from ``/proc/self/status`` (``VmRSS`` in KiB, ``Threads``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


class Worker:
    """The loop of one front end (see the module docstring)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.front_kind: str = args.front
        self.era: str = args.era
        self.url: str = args.url
        self.status = Path(args.status)
        self.until: float = args.until
        self.interval = 1.0 / args.rate
        self.headers = {"X-Soak-Client": f"{args.front}@{args.era}"}
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.detector = ReopenDetector()
        self.calls = 0
        self.errors: Counter[str] = Counter()
        self.forced_reopens = 0
        self.sessions_ended = 0
        self.hangs = 0
        self.close_leaks: list[str] = []
        self.versions: set[str] = set()
        self.healthy = False
        self.note = ""
        self.samples = 0
        self.examples: dict[str, str] = {}
        self.tasks: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
        """Every task made since, while it is alive: pending, or done and still held (a task
        kept after its end is a leak that ``asyncio.all_tasks`` does not show)."""

    def _make_task(
        self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any
    ) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, **options)
        self.tasks.add(task)
        return task

    def levels(self) -> Levels:
        """This process's fds, threads and (for an asyncio front end) tasks."""
        tasks = None
        if self.front_kind not in SYNC_FRONT_ENDS:
            tasks = len(self.tasks)
        fds = len(os.listdir("/proc/self/fd"))
        return Levels(fds=fds, threads=proc_status("Threads"), tasks=tasks)

    def sample(self) -> None:
        """Emit a sample; every ``LEVELS_EVERY``-th one with the levels."""
        record: dict[str, Any] = {"type": "sample", "at": time.monotonic(), "calls": self.calls}
        self.samples += 1
        if self.samples % LEVELS_EVERY == 0:
            gc.collect()
            levels = self.levels()
            record.update(fds=levels.fds, threads=levels.threads, tasks=levels.tasks)
        record.update(
            rss_kib=proc_status("VmRSS"),
            traced_kib=tracemalloc.get_traced_memory()[0] / 1024 if tracemalloc.is_tracing() else 0,
            healthy=self.healthy,
            threads_started=_THREADS_STARTED[0],
            **malloc_kib(),
        )
        emit(record)

    async def open(self, deadline: float) -> Front | None:
        """A new open client, tried every half second while the server is away (None: the
        run ended first)."""
        while time.monotonic() < deadline:
            front = make_front(self.front_kind, self.url, self.era, self.headers, self.executor)
            try:
                await asyncio.wait_for(front.open(), OPEN_TIMEOUT_S)
            except Exception as exc:
                self.count(f"open:{type(exc).__name__}", exc)
                await self.close(front)
                self.sample()  # the supervisor hears from a worker that cannot open
                await asyncio.sleep(0.5)
                continue
            self.versions.add(front.version)
            return front
        return None

    def count(self, error_class: str, exc: BaseException | None = None) -> None:
        """Count a failure by its class, keeping the first message of each class."""
        self.errors[error_class] += 1
        if exc is not None and error_class not in self.examples:
            self.examples[error_class] = str(exc)[:300]

    async def close(self, front: Front) -> None:
        """Close ``front`` (bounded: a close past the bound is a hang)."""
        try:
            await asyncio.wait_for(front.close(), CALL_TIMEOUT_S + HANG_MARGIN_S)
        except TimeoutError:
            self.hangs += 1
            self.note = "close hung"
        except Exception as exc:
            self.count(f"close:{type(exc).__name__}", exc)

    async def check_closed(self, check: Levels, *, pools_expire: bool = False) -> None:
        """Note the levels still above ``check`` once a closed client had time to settle (the
        caller holds no reference to it any more): after the shared pools' idle connections
        are closed, or (``pools_expire``) once they have expired by themselves."""
        if not pools_expire:
            close_pools()
        settle_until = time.monotonic() + SETTLE_S + (pool_expiry_s() if pools_expire else 0.0)
        while True:
            gc.collect()
            leaks = above(self.levels(), check)
            if not leaks or time.monotonic() > settle_until:
                break
            await asyncio.sleep(0.1)
        self.close_leaks.extend(leaks)

    def plan(self) -> tuple[str, dict[str, Any], float]:
        """The next call: tool, arguments and timeout."""
        n = self.calls
        if n % STALL_EVERY == STALL_EVERY - 1:
            return "sleep", {"seconds": STALL_SLEEP_S}, STALL_TIMEOUT_S
        if n % BIG_EVERY == BIG_EVERY - 1:
            return "big_text", {"size": BIG_SIZE}, CALL_TIMEOUT_S
        return "echo", {"text": f"soak {n}"}, CALL_TIMEOUT_S

    async def call(self, front: Front) -> str | None:
        """One call; ``"forced"``: the client must be thrown away (a forced reopen), ``"ended"``:
        its session ended (``SessionEnded``) and another must be opened."""
        name, arguments, timeout = self.plan()
        started = time.monotonic()
        failure: str | None = None
        error: Exception | None = None
        try:
            await asyncio.wait_for(
                front.call(name, arguments, timeout), timeout + HANG_MARGIN_S + 1.0
            )
        except Exception as exc:
            failure, error = type(exc).__name__, exc
        ended = time.monotonic()
        self.calls += 1
        if ended - started > timeout + HANG_MARGIN_S:
            self.hangs += 1
            self.note = f"a {name} call hung {ended - started:.1f} s"
            raise _Hung
        if isinstance(error, SessionEnded):
            self.count(failure or "", error)
            self.healthy = False
            self.detector.success()  # the host knows: it opens another at once
            return "ended"
        if name == "sleep":
            # a stall must end in the client's timeout; it says nothing of the session
            self.count(f"stall:{failure or 'not timed out'}", error)
            return None
        if failure is None:
            self.detector.success()
            self.healthy = True
            return None
        self.count(failure, error)
        self.healthy = False
        if self.detector.failure(started, ended, server_up_since(self.status)):
            return "forced"
        return None

    async def run(self) -> None:
        deadline = self.until
        asyncio.get_running_loop().set_task_factory(self._make_task)
        first = await self.open(deadline)
        if first is None:
            self.note = "never opened"
            return
        await self.call(first)
        await self.close(first)
        del first
        close_pools()
        await asyncio.sleep(0.1)  # (the async pools' aborted connections close meanwhile)
        gc.collect()
        closed = self.levels()
        # traced from here: the imports and the first client made, which tracemalloc would
        # slow tenfold on a busy machine
        tracemalloc.start()
        front = await self.open(deadline)
        next_sample = 0.0
        while front is not None and time.monotonic() < deadline:
            began = time.monotonic()
            if began >= next_sample:
                self.sample()
                next_sample = began + SAMPLE_EVERY_S
            outcome = await self.call(front)
            if outcome is not None:
                if outcome == "forced":
                    self.forced_reopens += 1
                else:
                    self.sessions_ended += 1
                self.healthy = False
                await self.close(front)
                front = None
                await self.check_closed(closed)
                front = await self.open(deadline)
                continue
            await asyncio.sleep(max(0.0, self.interval - (time.monotonic() - began)))
        self.sample()
        if front is not None:
            await self.close(front)
            front = None
            await self.check_closed(closed, pools_expire=True)

    def done(self) -> dict[str, Any]:
        return {
            "type": "done",
            "calls": self.calls,
            "errors": dict(self.errors),
            "forced_reopens": self.forced_reopens,
            "sessions_ended": self.sessions_ended,
            "hangs": self.hangs,
            "close_leaks": self.close_leaks,
            "versions": sorted(self.versions),
            "examples": self.examples,
            "note": self.note,
        }


class _Hung(Exception):
    """A call went past its timeout by more than the margin: the worker stops there."""


async def main() -> None:
    """Run one front end (see the module docstring)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("front")
    parser.add_argument("era")
    parser.add_argument("url")
    parser.add_argument("status")
    parser.add_argument("--until", type=float, required=True)
    parser.add_argument("--rate", type=float, default=4.0)
    worker = Worker(parser.parse_args())
    try:
        await worker.run()
    except _Hung:
        emit(worker.done())
        # the hung call's thread or task may never end: leave without waiting for it
        os._exit(0)
    emit(worker.done())
    worker.executor.shutdown(wait=False)


if __name__ == "__main__":
    asyncio.run(main())
