"""The steps every front end takes against a peer, and what each must observe.

A step runs on a connected ``FrontEnd`` and returns an observation (a plain value) or raises;
``run_scenario`` records each step's ``Outcome``. The peers of ours (TypeScript SDK v2, Go,
rmcp) serve the same tools, resources, prompt and completions (``OURS``); the TypeScript SDK's
server-everything has its own (``EVERYTHING``), and serves no large-result tool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .frontends import NAME, ROOT, SAMPLED, FrontEnd

BIG = 4 * 1024 * 1024
EVENT_BOUND_S = 10.0
ITEMS = [f"peer://item/{i}" for i in range(5)]

Step = Callable[[FrontEnd], Awaitable[Any]]


@dataclass(frozen=True)
class Outcome:
    """What a step did: ``ok`` with the observation ``value``, or the ``error`` it raised
    (its class name and message)."""

    ok: bool
    value: Any = None
    error: str = ""


@dataclass(frozen=True)
class Profile:
    """A peer's steps, in order, and the observation each must give."""

    steps: dict[str, Step]
    expected: dict[str, Any]


async def _wait_update(front: FrontEnd, uri: str) -> str:
    if not await front.events.wait_for(lambda e: uri in e.updates, EVENT_BOUND_S):
        raise TimeoutError(f"no notifications/resources/updated for {uri}")
    return uri


async def _wait_log(front: FrontEnd, check: Callable[[Any], bool]) -> str:
    if not await front.events.wait_for(lambda e: any(map(check, e.logs)), EVENT_BOUND_S):
        raise TimeoutError(f"no matching notifications/message (got {front.events.logs!r})")
    return "logged"


# -- our servers (tests/peers/servers) ---------------------------------------------------------

OUR_TOOLS = {"echo", "progress", "big", "fail", "slow", "log", "touch", "sample", "elicit", "roots"}


async def _progress(front: FrontEnd) -> tuple[str, list[float]]:
    seen: list[float] = []
    outcome = await front.call("progress", {"steps": 3}, progress=seen)
    return outcome.text, seen


async def _subscribe_ours(front: FrontEnd) -> str:
    await front.subscribe(ITEMS[1])
    await front.call("touch", {"uri": ITEMS[1]})
    return await _wait_update(front, ITEMS[1])


async def _log_ours(front: FrontEnd) -> str:
    await front.set_level("debug")
    await front.call("log", {"level": "warning", "text": "note"})
    return await _wait_log(front, lambda data: data == "note")


async def _call_text(front: FrontEnd, name: str, arguments: dict[str, Any]) -> str:
    return (await front.call(name, arguments)).text


OURS = Profile(
    steps={
        "list tools": lambda f: _set(f.list_tools()),
        "call": lambda f: _call_text(f, "echo", {"text": "h\u00e9llo \u2028"}),
        "progress": _progress,
        "large result": lambda f: _len(_call_text(f, "big", {"size": BIG})),
        "error result": lambda f: _outcome(f.call("fail", {})),
        "resources paged": lambda f: f.list_resources(),
        "read": lambda f: f.read(ITEMS[3]),
        "subscribe and update": _subscribe_ours,
        "prompt": lambda f: f.prompt("greet", {"who": NAME}),
        "completion": lambda f: f.complete("greet", "who", "A"),
        "logging": _log_ours,
        "sampling": lambda f: _call_text(f, "sample", {"text": "ping"}),
        "elicitation": lambda f: _call_text(f, "elicit", {}),
        "roots": lambda f: _call_text(f, "roots", {}),
    },
    expected={
        "list tools": OUR_TOOLS,
        "call": "h\u00e9llo \u2028",
        "progress": ("done 3", [1.0, 2.0, 3.0]),
        "large result": BIG,
        "error result": ("failed on purpose", True),
        "resources paged": ITEMS,
        "read": "item 3",
        "subscribe and update": ITEMS[1],
        "prompt": f"Hello, {NAME}!",
        "completion": ["Ada", "Alan"],
        "logging": "logged",
        "sampling": f"sampled: {SAMPLED}",
        "elicitation": f"elicited: accept {NAME}",
        "roots": f"roots: {ROOT}",
    },
)


# -- @modelcontextprotocol/server-everything ---------------------------------------------------

EVERYTHING_DOC = "demo://resource/static/document/architecture.md"


async def _everything_progress(front: FrontEnd) -> tuple[bool, list[float]]:
    seen: list[float] = []
    outcome = await front.call(
        "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress=seen
    )
    return "completed" in outcome.text.lower(), seen


async def _everything_resources(front: FrontEnd) -> bool:
    return EVERYTHING_DOC in await front.list_resources()


async def _everything_subscribe(front: FrontEnd) -> str:
    await front.subscribe(EVERYTHING_DOC)
    # The tool starts a timer that announces every subscribed resource at once, then every 5 s.
    await front.call("toggle-subscriber-updates", {})
    return await _wait_update(front, EVERYTHING_DOC)


async def _everything_log(front: FrontEnd) -> str:
    await front.set_level("debug")
    # A message of a random level at once, then every 5 s.
    await front.call("toggle-simulated-logging", {})
    return await _wait_log(front, lambda data: "message" in str(data).lower())


async def _contains(text: Awaitable[str], part: str) -> bool:
    return part in await text


EVERYTHING = Profile(
    steps={
        "list tools": lambda f: _set(f.list_tools()),
        "call": lambda f: _call_text(f, "echo", {"message": "h\u00e9llo"}),
        "progress": _everything_progress,
        "error result": lambda f: _is_error(f.call("get-sum", {"a": "x", "b": 1})),
        "resources paged": _everything_resources,
        "read": lambda f: _contains(f.read(EVERYTHING_DOC), "Architecture"),
        "subscribe and update": _everything_subscribe,
        "prompt": lambda f: _contains(f.prompt("args-prompt", {"city": "Paris"}), "Paris"),
        "completion": lambda f: f.complete("completable-prompt", "department", "Eng"),
        "logging": _everything_log,
        "sampling": lambda f: _contains(
            _call_text(f, "trigger-sampling-request", {"prompt": "ping"}), SAMPLED
        ),
        "elicitation": lambda f: _contains(_call_text(f, "trigger-elicitation-request", {}), NAME),
        "roots": lambda f: _contains(_call_text(f, "get-roots-list", {}), ROOT),
    },
    expected={
        "list tools": {"echo", "get-sum", "trigger-long-running-operation"},
        "call": "Echo: h\u00e9llo",
        "progress": (True, [1.0, 2.0, 3.0]),
        "error result": True,
        "resources paged": True,
        "read": True,
        "subscribe and update": EVERYTHING_DOC,
        "prompt": True,
        "completion": ["Engineering"],
        "logging": "logged",
        "sampling": True,
        "elicitation": True,
        "roots": True,
    },
)

PROFILES = {
    "everything": EVERYTHING,
    "ts": OURS,
    "go": OURS,
    "go-stateless": OURS,
    "rust": OURS,
}


def passed(step: str, expected: Any, outcome: Outcome) -> bool:
    """Whether a step went through with the expected observation (``list tools``: the
    expected names are among those listed)."""
    if not outcome.ok:
        return False
    if step == "list tools":
        return bool(expected <= outcome.value)
    return bool(outcome.value == expected)


async def _set(names: Awaitable[list[str]]) -> set[str]:
    return set(await names)


async def _len(text: Awaitable[str]) -> int:
    return len(await text)


async def _outcome(call: Awaitable[Any]) -> tuple[str, bool]:
    outcome = await call
    return outcome.text, outcome.is_error


async def _is_error(call: Awaitable[Any]) -> bool:
    return bool((await call).is_error)


async def run_scenario(front: FrontEnd, profile: Profile) -> dict[str, Outcome]:
    """Each step of ``profile`` in turn on ``front``: its outcome (a failing step does not stop
    the others)."""
    outcomes: dict[str, Outcome] = {}
    for name, step in profile.steps.items():
        try:
            outcomes[name] = Outcome(True, await step(front))
        except Exception as exc:  # every failure is an outcome to compare
            outcomes[name] = Outcome(False, error=f"{type(exc).__name__}: {exc}"[:300])
    return outcomes
