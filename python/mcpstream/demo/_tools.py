"""The demo server's tools, resources and prompts (imports the ``mcp`` SDK: load it only
through ``mcpstream.demo.server``, which checks that the SDK is installed)."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ListToolsResult, PaginatedRequestParams, SamplingMessage, TextContent
from pydantic import BaseModel

from ._payload import DEMO_TEXT_UNIT

__all__ = ["add_demo_features", "paginate_tools"]

README = """# mcpstream demo server

A server of the official MCP SDK, run by `mcpstream demo` to show the client at work.
"""


class Name(BaseModel):
    """The form the ``ask_name`` tool asks the user to fill in."""

    name: str


def add_demo_features(server: MCPServer) -> None:
    """Register the demo tools, resources and prompts on ``server``."""

    @server.tool()
    async def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    async def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool(structured_output=False)
    async def big_text(size: int = 1_000_000) -> str:
        """Return about 'size' characters of text (multi-byte characters and U+2028 too)."""
        repeats = size // len(DEMO_TEXT_UNIT) + 1
        return (DEMO_TEXT_UNIT * repeats)[:size]

    @server.tool()
    async def count(ctx: Context, steps: int = 10, delay: float = 0.0) -> str:
        """Count to 'steps', reporting progress at each step, 'delay' seconds apart."""
        for step in range(1, steps + 1):
            if delay:
                await anyio.sleep(delay)
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
        return f"counted to {steps}"

    @server.tool()
    async def announce(message: str, ctx: Context) -> str:
        """Send 'message' to the client as a log notification, then answer."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await ctx.info(message)
        return "announced"

    @server.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the user for their name (an elicitation) and greet them."""
        result = await ctx.elicit("What is your name?", Name)
        if result.action == "accept":
            return f"hello {result.data.name}"
        return f"no name: the user chose {result.action}"

    @server.tool()
    async def summarize(text: str, ctx: Context) -> str:
        """Ask the client's model to summarize 'text' (a sampling request)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = await ctx.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
                max_tokens=100,
                related_request_id=ctx.request_id,
            )
        content = result.content
        return content.text if isinstance(content, TextContent) else str(content)

    @server.tool()
    async def list_roots(ctx: Context) -> list[str]:
        """The roots the client offers (a roots request)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = await ctx.session.list_roots()
        return [str(root.uri) for root in result.roots]

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Answer after the given number of seconds."""
        await anyio.sleep(seconds)
        return f"slept {seconds}s"

    @server.tool()
    async def fail(message: str = "it failed") -> str:
        """Fail with 'message' (the result has isError)."""
        raise ValueError(message)

    @server.resource("demo://readme", name="readme", mime_type="text/markdown")
    async def readme() -> str:
        """What this server is."""
        return README

    @server.resource("demo://greeting/{name}", name="greeting", mime_type="text/plain")
    async def greeting(name: str) -> str:
        """A greeting for 'name'."""
        return f"Hello, {name}!"

    @server.prompt()
    async def review(code: str, language: str = "python") -> str:
        """Ask for a review of 'code'."""
        return f"Please review this {language} code:\n\n{code}"

    from ._features import add_feature_demos

    add_feature_demos(server)  # completion, logging, resource subscriptions, roots


def paginate_tools(server: MCPServer, page_size: int) -> None:
    """Make ``tools/list`` answer in pages of ``page_size`` tools (the cursor is an offset)."""

    async def list_tools(ctx: Any, params: PaginatedRequestParams) -> ListToolsResult:
        tools = await server.list_tools()
        start = int(params.cursor or 0)
        end = start + page_size
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )

    server._lowlevel_server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
