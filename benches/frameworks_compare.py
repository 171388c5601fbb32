"""Each agent framework's own MCP client over its default transport (the SDK's Streamable HTTP
transport) against the same with ``mcpstream.sdk.install()`` in effect, in one process, rounds
alternating.

``python benches/frameworks_compare.py [--rounds N] [--json FILE] [--markdown] [--frameworks
NAME,...] [--workloads NAME,...]``, in an environment of scripts/framework-tests.sh, starts
the replay server (``replay_server.py``, a process of its own, so that the client is what is
measured).
It runs the frameworks installed there (``available()``), one command per environment: FastMCP,
Pydantic AI, OpenAI Agents and llama-index in the default one; Google ADK in
``MCPSTREAM_FRAMEWORKS=adk``'s; langchain-mcp-adapters, smolagents (through mcpadapt),
Strands and mcp-proxy, on the SDK's 1.x line, in ``MCPSTREAM_FRAMEWORKS=1.x``'s (mcp-proxy's
bridge runs in a process of its own, as a stdio host starts it, and its CPU is that process's
beside the host's reading of its lines). For each it opens the
framework's client the framework's own way (a URL, its own HTTP client and defaults) twice: one
before ``install()`` and one while it is in effect, which is also in effect while that side runs
its rounds (llama-index and langchain-mcp-adapters open a session for every call). The workloads
(``alternating.py``), round by round, alternating the two: ``large`` (one call, a 16 MiB text
result in one SSE event; FastMCP and Pydantic AI, whose client is given FastMCP's transport
with ``max_sse_event_size=None``, and the 1.x frameworks: the 2.x SDK's transport refuses SSE
events over 1 MiB by default, and the other frameworks have no option to lift that),
``large_json`` (the same result as a JSON body, which every framework takes), ``small300`` (300
small calls) and ``notifications`` (one call streaming 20,000 progress notifications, counted
where the framework takes a message handler: FastMCP, Pydantic AI and OpenAI Agents). The
medians and the ratios (SDK / mcpstream) are printed, with the targets beside them: a 16 MiB
result CPU >= 6x, ``small300`` CPU >= 1.7x under FastMCP, Pydantic AI and OpenAI Agents;
``--markdown`` prints the table of docs/benchmarks.md too.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, AsyncExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import mcpstream.sdk

sys.path.insert(0, str(Path(__file__).parent))

from alternating import (
    Call,
    Notified,
    alternate,
    line,
    parser,
    run_workload,
    summary,
    write_json,
)
from replay_server import running

WORKLOADS = {
    "large": "one 16 MiB result, SSE",
    "large_json": "one 16 MiB result, JSON",
    "small300": "300 small calls",
    "notifications": "20,000 progress notifications",
}
"""The workloads, and how the table names them."""
TARGETS = {"large": 6.0, "large_json": 6.0, "small300": 1.7}
"""The CPU ratios aimed for (``TARGETED`` frameworks)."""
TARGETED = ("fastmcp", "pydantic-ai", "openai-agents")
UNCOUNTED = ("llama-index", "adk", "langchain", "smolagents", "strands", "mcp-proxy")
"""The frameworks that take no message handler: their notification rounds check the result.
(langchain-mcp-adapters and Strands take a progress callback, which is given only the progress
of the call's own token; the replay server's notifications carry a fixed one.)"""

Opener = Callable[[str, AsyncExitStack, Notified], Awaitable[Call]]
"""Opens a framework's client on a URL (closed with the stack), its message handler counting
notifications, and gives its call."""


def _text(content: list[Any]) -> str:
    # By its type field: the SDK's 1.x line has its classes in ``mcp.types``, the 2.x line in
    # ``mcp_types``.
    text = content[0]
    assert text.type == "text", text
    return str(text.text)


async def _fastmcp(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    import fastmcp
    from fastmcp.client.transports import StreamableHttpTransport

    transport = StreamableHttpTransport(url, max_sse_event_size=None)
    client = fastmcp.Client(transport, message_handler=notified.handler)
    await stack.enter_async_context(client)

    async def call(tool: str) -> str:
        return _text((await client.call_tool(tool, {})).content)

    return call


async def _pydantic_ai(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from fastmcp.client.transports import StreamableHttpTransport
    from pydantic_ai.mcp import MCPToolset

    transport = StreamableHttpTransport(url, max_sse_event_size=None)
    toolset = MCPToolset[Any](transport, message_handler=notified.handler)
    await stack.enter_async_context(toolset)

    async def call(tool: str) -> str:
        text = await toolset.direct_call_tool(tool, {})
        assert isinstance(text, str), type(text)
        return text

    return call


async def _openai_agents(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from agents.mcp import MCPServerStreamableHttp

    # Its session's read timeout (5 s by default) is raised: the SDK's transport takes seconds
    # over the notification flood on a busy machine.
    server = MCPServerStreamableHttp(
        {"url": url}, client_session_timeout_seconds=60, message_handler=notified.handler
    )
    await stack.enter_async_context(server)

    async def call(tool: str) -> str:
        return _text((await server.call_tool(tool, {})).content)

    return call


async def _llama_index(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from llama_index.tools.mcp import BasicMCPClient  # type: ignore[import-untyped]

    client = BasicMCPClient(url)  # a session for each call; no message handler to count with

    async def call(tool: str) -> str:
        return _text((await client.call_tool(tool, {})).content)

    return call


async def _adk(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from google.adk.agents import LlmAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
    from google.adk.tools.tool_context import ToolContext

    # Its session's read timeout (``timeout``, 5 s by default) is raised, as OpenAI Agents' is.
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url, timeout=60))
    stack.push_async_callback(toolset.close)
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    service = InMemorySessionService()
    session = await service.create_session(app_name="frameworks_compare", user_id="host")
    invocation = InvocationContext(
        session_service=service, invocation_id="call", agent=LlmAgent(name="host"), session=session
    )

    async def call(tool: str) -> str:
        # As an agent calls a tool: run_async in an invocation (the result as a dict).
        result = await tools[tool].run_async(args={}, tool_context=ToolContext(invocation))
        return str(result["content"][0]["text"])

    return call


async def _langchain(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from langchain_core.tools import BaseTool
    from langchain_mcp_adapters.client import MultiServerMCPClient

    # A session for each call, as llama-index's.
    client = MultiServerMCPClient({"replay": {"url": url, "transport": "streamable_http"}})
    tools: dict[str, BaseTool] = {tool.name: tool for tool in await client.get_tools()}

    async def call(tool: str) -> str:
        output = await tools[tool].ainvoke({})
        # A string, or LangChain's content blocks.
        if isinstance(output, str):
            return output
        return "".join(block["text"] if isinstance(block, dict) else str(block) for block in output)

    return call


async def _smolagents(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from mcpadapt.core import MCPAdapt
    from mcpadapt.smolagents_adapter import SmolAgentsAdapter

    # smolagents' tools are synchronous: MCPAdapt runs the session on a loop in a thread of its
    # own, and each call waits for it there, as an agent's step does.
    adapt = MCPAdapt({"url": url, "transport": "streamable-http"}, SmolAgentsAdapter())
    tools = {tool.name: tool for tool in stack.enter_context(adapt)}

    async def call(tool: str) -> str:
        return str(tools[tool]())

    return call


async def _strands(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    from strands.tools.mcp import MCPClient

    # Its session runs on a loop in a thread of its own.
    client = stack.enter_context(MCPClient(url=url))

    async def call(tool: str) -> str:
        result = await client.call_tool_async("call", tool, {})
        assert result["status"] == "success", result
        return "".join(str(block.get("text", "")) for block in result["content"])

    return call


_PROXY_MAIN = """
import sys

import anyio
from mcp_proxy.streamablehttp_client import run_streamablehttp_client

if sys.argv[2] == "mcpstream":
    import mcpstream.sdk

    mcpstream.sdk.install()
anyio.run(run_streamablehttp_client, sys.argv[1])
"""
"""mcp-proxy's bridge to a Streamable HTTP server (what ``mcp-proxy --transport streamablehttp
URL`` runs), in a process of its own: over the SDK's transport, or with ``install()``."""


def _cpu_of(pid: int) -> float:
    """The CPU seconds of process ``pid`` so far, every thread of it (``schedstat``: in
    nanoseconds, where ``/proc/PID/stat`` counts in ticks of 10 ms)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


async def _mcp_proxy(url: str, stack: AsyncExitStack, notified: Notified) -> Call:
    # As a stdio host runs it: a process of its own, JSON-RPC lines on its stdin and stdout.
    # What is measured is that process's CPU (``child_cpu``) and the host's reading of the lines.
    side = "mcpstream" if mcpstream.sdk.installed() else "sdk"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _PROXY_MAIN,
        url,
        side,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=128 * 1024 * 1024,  # a 16 MiB result is one line
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def close() -> None:
        stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()

    stack.push_async_callback(close)
    ids = iter(range(1, 1 << 62))

    async def request(method: str, params: dict[str, Any]) -> bytes:
        """The line of the answer to ``method`` (lines of notifications before it skipped)."""
        key = next(ids)
        message = {"jsonrpc": "2.0", "id": key, "method": method, "params": params}
        stdin.write(json.dumps(message).encode() + b"\n")
        await stdin.drain()
        while True:
            line = await stdout.readline()
            assert line, "mcp-proxy ended its stdout"
            # A notification has no id; a 16 MiB answer is not parsed whole by the host
            # (its JSON text, as the proxy wrote it, is checked below)
            if line.startswith(b'{"jsonrpc":"2.0","id":%d,' % key):
                return line
            assert b'"method":"notifications/' in line[:200], line[:200]

    await request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "frameworks_compare", "version": "1"},
        },
    )
    stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    await stdin.drain()

    async def call(tool: str) -> str:
        line = await request("tools/call", {"name": tool, "arguments": {}})
        if len(line) < 65536:
            result = json.loads(line)["result"]
            assert not result.get("isError"), result
            return "".join(block["text"] for block in result["content"])
        # the large result: its text is the only long string of the line
        start = line.index(b'"text":"') + len(b'"text":"')
        return line[start : line.index(b'"', start)].decode()

    call.child_cpu = lambda: _cpu_of(process.pid)  # type: ignore[attr-defined]
    return call


FRAMEWORKS: dict[str, tuple[str, Opener, tuple[str, ...], tuple[str, ...]]] = {
    "fastmcp": ("FastMCP", _fastmcp, tuple(WORKLOADS), ("fastmcp",)),
    "pydantic-ai": ("Pydantic AI", _pydantic_ai, tuple(WORKLOADS), ("pydantic_ai", "fastmcp")),
    "openai-agents": ("OpenAI Agents", _openai_agents, tuple(WORKLOADS)[1:], ("agents",)),
    "llama-index": ("llama-index", _llama_index, tuple(WORKLOADS)[1:], ("llama_index",)),
    "adk": ("Google ADK", _adk, tuple(WORKLOADS)[1:], ("google.adk",)),
    "langchain": (
        "langchain-mcp-adapters",
        _langchain,
        tuple(WORKLOADS),
        ("langchain_mcp_adapters",),
    ),
    "smolagents": (
        "smolagents (mcpadapt)",
        _smolagents,
        tuple(WORKLOADS),
        ("smolagents", "mcpadapt"),
    ),
    "strands": ("Strands", _strands, tuple(WORKLOADS), ("strands",)),
    "mcp-proxy": ("mcp-proxy", _mcp_proxy, tuple(WORKLOADS), ("mcp_proxy",)),
}
"""Each framework's name in the table, how its client is opened, its workloads, and the modules
it needs (a framework is run by default where they are installed)."""


def available() -> list[str]:
    """The frameworks installed in this environment: those of scripts/framework-tests.sh's
    default environment, of its ``adk`` one or of its ``1.x`` one."""
    return [name for name, (*_, modules) in FRAMEWORKS.items() if all(map(_found, modules))]


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent is not installed
        return False


@contextmanager
def _installed() -> Iterator[None]:
    mcpstream.sdk.install()
    try:
        yield
    finally:
        mcpstream.sdk.uninstall()


def _scope(name: str) -> AbstractContextManager[object]:
    return _installed() if name == "mcpstream" else nullcontext()


async def compare(
    framework: str, url: str, rounds: int, only: frozenset[str] | None = None
) -> dict[str, Any]:
    """One framework's summaries by workload: its default transport against ``install()``
    (of its workloads, those in ``only`` where it is given)."""
    _, opener, workloads, _ = FRAMEWORKS[framework]
    workloads = tuple(name for name in workloads if only is None or name in only)
    sides: dict[str, Any] = {}
    async with AsyncExitStack() as stack:
        for name in ("sdk", "mcpstream"):
            notified = Notified()
            with _scope(name):
                call = await opener(url, stack, notified)
            sides[name] = _side(call, None if framework in UNCOUNTED else notified)
        times = await alternate(sides, workloads, rounds, _scope)
    return {workload: summary(runs, "sdk", "mcpstream") for workload, runs in times.items()}


def _side(call: Call, notified: Notified | None) -> Callable[[str], Awaitable[float | None]]:
    """A round of ``call``'s framework: it reports the CPU of the process that framework runs
    in where that is not this one (``child_cpu``: mcp-proxy)."""
    child_cpu: Callable[[], float] | None = getattr(call, "child_cpu", None)

    async def round(workload: str) -> float | None:
        before = None if child_cpu is None else child_cpu()
        await run_workload(workload, call, notified)
        return None if child_cpu is None or before is None else child_cpu() - before

    return round


def _target(framework: str, workload: str) -> str:
    """The CPU ratio aimed for, where there is one: ``>= 6x``."""
    if framework not in TARGETED or workload not in TARGETS:
        return ""
    return f">= {TARGETS[workload]:g}x"


def _met(framework: str, workload: str, result: dict[str, Any]) -> str:
    target = _target(framework, workload)
    if not target:
        return ""
    met = result["cpu_ratio"] >= TARGETS[workload]
    return f"  target CPU {target}: {'met' if met else 'NOT met'}"


def _ratios(runs: list[dict[str, Any]], kind: str) -> str:
    """A ratio of the middle run (``runs`` in order of their CPU ratio) and its range."""
    ratios = sorted(run[f"{kind}_ratio"] for run in runs)
    middle = runs[len(runs) // 2][f"{kind}_ratio"]
    if len(runs) == 1:
        return f"{middle:.2f}x"
    return f"{middle:.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)"


def markdown(runs: list[dict[str, dict[str, Any]]]) -> str:
    """The table of docs/benchmarks.md: per framework and workload, the CPU medians of both
    sides and the CPU and wall ratios of the middle run (by CPU ratio), with their range over
    ``runs``."""
    rows = [
        "| framework | workload | CPU, SDK's transport | CPU, mcpstream | CPU ratio (range)"
        " | wall ratio (range) | target |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for framework, workloads in runs[0].items():
        for workload in workloads:
            results = sorted((run[framework][workload] for run in runs), key=_cpu_ratio)
            middle = results[len(results) // 2]
            theirs, ours = (middle["medians"][name] for name in middle["sides"])
            target = _target(framework, workload) or "-"
            rows.append(
                f"| {FRAMEWORKS[framework][0]} | {WORKLOADS[workload]}"
                f" | {theirs['cpu_s'] * 1e3:,.0f} ms | {ours['cpu_s'] * 1e3:,.0f} ms"
                f" | {_ratios(results, 'cpu')} | {_ratios(results, 'wall')} | {target} |"
            )
    return "\n".join(rows)


def _cpu_ratio(result: dict[str, Any]) -> float:
    return float(result["cpu_ratio"])


def main() -> None:
    arguments = parser(__doc__)
    arguments.add_argument("--frameworks", default=",".join(available()))
    arguments.add_argument("--runs", type=int, default=1, help="whole runs, for the range")
    arguments.add_argument("--markdown", action="store_true")
    arguments.add_argument("--workloads", help=f"a comma-separated subset of {','.join(WORKLOADS)}")
    args = arguments.parse_args()
    only = None if args.workloads is None else frozenset(args.workloads.split(","))
    runs: list[dict[str, dict[str, Any]]] = []
    with running() as url:
        for _ in range(args.runs):
            results: dict[str, dict[str, Any]] = {}
            for framework in args.frameworks.split(","):
                results[framework] = asyncio.run(compare(framework, url, args.rounds, only))
                for workload, result in results[framework].items():
                    met = _met(framework, workload, result)
                    print(line(f"{framework:14}{workload:14}", result) + met, flush=True)
            runs.append(results)
    if args.markdown:
        print(markdown(runs))
    write_json(args.json, runs)


if __name__ == "__main__":
    main()
