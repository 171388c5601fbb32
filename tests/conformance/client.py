"""The MCP conformance suite's client under test, built on mcpstream's HTTP transports.

The suite (``@modelcontextprotocol/conformance``) starts a scenario's server and runs::

    python tests/conformance/client.py <server-url>

with the scenario's name in ``MCP_CONFORMANCE_SCENARIO``. This program performs what that
scenario expects of a client (see tests/conformance/README.md) over ``McpHttpTransport``, or over
``AsyncMcpHttpTransport`` when ``MCPSTREAM_CONFORMANCE_TRANSPORT=async``, and exits 0; on any
failure it prints one line to stderr and exits 1 (2 for a usage error or an unknown scenario).
The codec backend is the one ``mcpstream.codec`` picks (``MCPSTREAM_BACKEND`` forces one).
``MCPSTREAM_CONFORMANCE_HTTP_CLIENT=httpx2`` hands the transport (and the headless redirect
handler) a host's ``httpx2`` client instead of letting it make its own. The first stderr line
names the scenario, the transport, the backend and the HTTP client.

For the ``auth/*`` scenarios the server gets OAuth settings (``McpOAuthConfig``) built from the
client data the suite passes in ``MCP_CONFORMANCE_CONTEXT``, an in-memory token store (no
scenario sees another's tokens) and a headless redirect handler (the scenarios' authorization
endpoints redirect at once, with no user); the transport does the whole authorization itself
(see tests/conformance/AUTH_SCENARIOS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import mcpstream
from mcpstream import codec
from mcpstream.client.events import ElicitationRequest, ElicitationResponse
from mcpstream.client.handlers import ServerRequestRouter, ServerRequests
from mcpstream.errors import McpError, McpHttpTransportError, McpSkillError, McpSkillIntegrityError
from mcpstream.jsonrpc import JsonRpcResponse
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import AsyncHeadlessRedirectHandler, HeadlessRedirectHandler, McpOAuthError
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.server_requests import McpServerRequestContext
from mcpstream.transport_http import (
    AsyncMcpHttpTransport,
    McpHttpTransport,
    Negotiated,
    Negotiation,
)

CLIENT_INFO = {"name": "mcpstream-conformance-client", "version": mcpstream.__version__}
CLIENT_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}}
CALL_TIMEOUT_S = 20.0
NEGOTIATION = Negotiation(CLIENT_CAPABILITIES, CLIENT_INFO)
SCENARIO_ENV = "MCP_CONFORMANCE_SCENARIO"
CONTEXT_ENV = "MCP_CONFORMANCE_CONTEXT"
TRANSPORT_ENV = "MCPSTREAM_CONFORMANCE_TRANSPORT"
HTTP_CLIENT_ENV = "MCPSTREAM_CONFORMANCE_HTTP_CLIENT"


def host_http_client(asynchronous: bool) -> Any:
    """The host's ``httpx2`` client of ``HTTP_CLIENT_ENV`` (None: the transport makes its own).
    It lives as long as this process, as a host's shared client does."""
    if os.environ.get(HTTP_CLIENT_ENV, "") != "httpx2":
        return None
    import httpx2

    return httpx2.AsyncClient() if asynchronous else httpx2.Client()


AUTH_PREFIX = "auth/"
# This client's Client ID Metadata Document URL: the one auth/basic-cimd expects as client_id
# (nothing is served there; it is used only where the authorization server supports CIMD).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
AUTH_TOOL = "test-tool"

EXIT_FAILURE = 1
EXIT_USAGE = 2

JsonObject = dict[str, Any]
T = TypeVar("T")


class ConformanceClientError(Exception):
    """The scenario cannot go on: the server's answer is not what the scenario needs."""


# -- server-initiated requests --------------------------------------------------------------------


def schema_defaults(requested_schema: Mapping[str, Any]) -> JsonObject:
    """The ``default`` of every property of an elicitation's ``requestedSchema`` that has one."""
    properties = requested_schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and "default" in spec
    }


def accept_with_defaults(request: ElicitationRequest) -> ElicitationResponse:
    """Answer an elicitation as an unattended user would: a form (``mode`` "form") is accepted
    with its schema's defaults (SEP-1034) when they cover every required field, and declined
    otherwise; URL-mode elicitation is declined. mcpstream's own router does the rest (``ping``
    answered, anything else "method not found")."""
    schema = request.raw.get("requestedSchema")
    if request.mode != "form" or not isinstance(schema, Mapping):
        return ElicitationResponse(action="decline")
    content = schema_defaults(schema)
    required = schema.get("required", [])
    if isinstance(required, list) and any(name not in content for name in required):
        return ElicitationResponse(action="decline")
    return ElicitationResponse(action="accept", content=content)


# -- one MCP session over either transport --------------------------------------------------------


class Connection(Protocol):
    """The few transport operations the scenarios use, the same for both transports."""

    def request(self, method: str, params: JsonObject | None) -> JsonRpcResponse: ...

    def notify(self, method: str, params: JsonObject | None) -> None: ...

    def negotiate(self) -> Negotiated: ...

    def set_protocol_version(self, version: str) -> None: ...

    def close(self) -> None: ...


class SyncConnection:
    """``McpHttpTransport`` as it is."""

    def __init__(self, transport: McpHttpTransport) -> None:
        self._transport = transport

    def request(self, method: str, params: JsonObject | None) -> JsonRpcResponse:
        return self._transport.request(method=method, params=params, timeout_s=CALL_TIMEOUT_S)

    def notify(self, method: str, params: JsonObject | None) -> None:
        self._transport.send_notification(method=method, params=params)

    def negotiate(self) -> Negotiated:
        return self._transport.negotiate(NEGOTIATION)

    def set_protocol_version(self, version: str) -> None:
        self._transport.set_negotiated_protocol_version(version)

    def close(self) -> None:
        self._transport.close()


class LoopThread:
    """An event loop running in a thread of its own, driven from this one: what the async
    transport and client need so that their GET stream keeps being read between calls."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="conformance-event-loop", daemon=True
        )
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop; what it returns."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def make(self, factory: Callable[[], T]) -> T:
        """``factory()`` called on the loop (httpx.AsyncClient binds to the running loop)."""

        async def call() -> T:
            return factory()

        return self.run(call())

    def finish(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` (a close), then stop the loop whatever it raised."""
        try:
            self.run(coroutine)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


class AsyncConnection:
    """``AsyncMcpHttpTransport`` driven from this thread, on a ``LoopThread``."""

    def __init__(self, make_transport: Callable[[], AsyncMcpHttpTransport]) -> None:
        self._loop = LoopThread()
        self._transport = self._loop.make(make_transport)

    def request(self, method: str, params: JsonObject | None) -> JsonRpcResponse:
        return self._loop.run(
            self._transport.request(method=method, params=params, timeout_s=CALL_TIMEOUT_S)
        )

    def notify(self, method: str, params: JsonObject | None) -> None:
        self._loop.run(self._transport.send_notification(method=method, params=params))

    def negotiate(self) -> Negotiated:
        return self._loop.run(self._transport.negotiate(NEGOTIATION))

    def set_protocol_version(self, version: str) -> None:
        self._transport.set_negotiated_protocol_version(version)

    def close(self) -> None:
        self._loop.finish(self._transport.close())


class BlockingAsyncClient:
    """``mcpstream.AsyncClient`` driven from this thread, on a ``LoopThread``: its methods
    called here return what the coroutines return."""

    def __init__(self, make_client: Callable[[], mcpstream.AsyncClient]) -> None:
        self._loop = LoopThread()
        self._client = self._loop.make(make_client)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._client, name)
        return lambda *args, **kwargs: self._loop.run(method(*args, **kwargs))

    def close(self) -> None:
        self._loop.finish(self._client.close())


class Session:
    """An initialized MCP session: JSON-RPC calls that return the ``result`` or raise."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.protocol_version: str | None = None
        self.server_info: Any = None
        self.server_info_result: JsonObject | None = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._connection.close()

    def call(self, method: str, params: JsonObject | None = None) -> JsonObject:
        """Send a request; its result object, or ``ConformanceClientError`` for an error."""
        response = self._connection.request(method, params)
        if response.error is not None:
            code = response.error.get("code")
            message = response.error.get("message")
            raise ConformanceClientError(f"{method} answered with error {code}: {message}")
        if not isinstance(response.result, dict):
            raise ConformanceClientError(f"{method} result is not an object: {response.result!r}")
        return response.result

    def initialize(self) -> None:
        """The lifecycle's opening, by the transport's negotiation: ``server/discover`` for a
        server of the stateless era (2026-07-28), else ``initialize`` and ``initialized``."""
        negotiated = self._connection.negotiate()
        self.protocol_version = negotiated.version
        self.server_info = negotiated.result.get("serverInfo")
        self.server_info_result = negotiated.result
        say_negotiated(negotiated.era, negotiated.version)

    def list_tools(self) -> dict[str, JsonObject]:
        """``tools/list``, every page, as a map from tool name to the tool object untouched."""
        tools: dict[str, JsonObject] = {}
        cursor: str | None = None
        while True:
            result = self.call("tools/list", {"cursor": cursor} if cursor else None)
            page = result.get("tools")
            if not isinstance(page, list):
                raise ConformanceClientError(f"tools/list result has no tools list: {result!r}")
            for tool in page:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    tools[tool["name"]] = tool
            next_cursor = result.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor:
                return tools
            cursor = next_cursor

    def call_tool(self, name: str, arguments: JsonObject) -> str:
        """``tools/call``; the text of the result's text content (a tool error raises)."""
        result = self.call("tools/call", {"name": name, "arguments": arguments})
        content = result.get("content")
        if not isinstance(content, list):
            raise ConformanceClientError(f"tools/call {name} result has no content: {result!r}")
        text = "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
        if result.get("isError") is True:
            raise ConformanceClientError(f"tool {name} reported an error: {text}")
        return text


def say(line: str) -> None:
    """One line of this client's log on stderr (the tests read it from the suite's copy)."""
    print(f"conformance client: {line}", file=sys.stderr, flush=True)


def say_negotiated(era: str, version: str) -> None:
    say(f"negotiated {era} era, version {version}")


# -- scenarios ------------------------------------------------------------------------------------


def require_tool(tools: Mapping[str, JsonObject], name: str) -> JsonObject:
    """The tool ``name`` of a ``tools/list``, or ``ConformanceClientError``."""
    tool = tools.get(name)
    if tool is None:
        raise ConformanceClientError(f"server does not list the tool {name!r} ({sorted(tools)})")
    return tool


def expect_text(text: str, needle: str, *, tool: str) -> None:
    """Fail unless the tool's text result holds ``needle``."""
    if needle not in text:
        raise ConformanceClientError(f"tool {tool} returned {text!r}, expected {needle!r} in it")


def scenario_initialize(session: Session) -> None:
    """Only the handshake: the server checks the initialize request."""


def scenario_tools_call(session: Session) -> None:
    """Call ``add_numbers`` and check the sum it reports."""
    require_tool(session.list_tools(), "add_numbers")
    text = session.call_tool("add_numbers", {"a": 5, "b": 3})
    expect_text(text, "8", tool="add_numbers")


def scenario_elicitation_defaults(session: Session) -> None:
    """Call the tool that elicits; the handler accepts with the schema's defaults."""
    name = "test_client_elicitation_defaults"
    require_tool(session.list_tools(), name)
    text = session.call_tool(name, {})
    expect_text(text, "Elicitation completed", tool=name)


def scenario_sse_retry(session: Session) -> None:
    """Call the tool whose SSE stream the server closes before the response: the transport must
    resume with GET and ``Last-Event-ID`` after the ``retry`` delay and get the response there."""
    name = "test_reconnection"
    require_tool(session.list_tools(), name)
    text = session.call_tool(name, {})
    expect_text(text, "Reconnection test completed successfully", tool=name)


def scenario_auth(session: Session) -> None:
    """An OAuth-protected server: list the tools and call ``test-tool``. The transport
    authorizes on the first 401 (discovery, registration, authorization code or client
    credentials, token), steps up on a 403 ``insufficient_scope``, and sends the request again."""
    require_tool(session.list_tools(), AUTH_TOOL)
    expect_text(session.call_tool(AUTH_TOOL, {}), "test", tool=AUTH_TOOL)


def scenario_json_schema_preservation(session: Session) -> None:
    """Echo the rich tool's ``inputSchema``, exactly as received, through the echo tool."""
    tools = session.list_tools()
    schema = require_tool(tools, "json_schema_2020_12_tool").get("inputSchema")
    if not isinstance(schema, dict):
        raise ConformanceClientError(f"json_schema_2020_12_tool has no inputSchema: {schema!r}")
    require_tool(tools, "json_schema_echo")
    session.call_tool("json_schema_echo", {"schema": schema})


def scenario_exercise(session: Session) -> None:
    """The stateless-era scenarios that watch the requests (their ``_meta``, their headers,
    the multi-round results): call the tools the scenario's context names, with its arguments,
    or else every tool listed, with no arguments; then read every resource and get every prompt
    the server offers. A tool's own error is only reported: the scenario judges the requests."""
    tools = session.list_tools()
    calls = scenario_context().get("toolCalls")
    if not isinstance(calls, list):
        calls = [{"name": name, "arguments": {}} for name in tools]
    for call in calls:
        try:
            session.call_tool(str(call["name"]), dict(call.get("arguments") or {}))
        except ConformanceClientError as exc:
            print(f"conformance client: {exc}", file=sys.stderr)
    capabilities = (session.server_info_result or {}).get("capabilities") or {}
    if "resources" in capabilities:
        for resource in session.call("resources/list").get("resources", []):
            session.call("resources/read", {"uri": resource["uri"]})
    if "prompts" in capabilities:
        for prompt in session.call("prompts/list").get("prompts", []):
            session.call("prompts/get", {"name": prompt["name"], "arguments": {}})


def scenario_skills(client: Any, load: bool) -> None:
    """The skills extension through mcpstream's own client API: list the skills (which reads
    no file) and, when ``load``, load each skill as a host does when its model asks for it:
    read its ``SKILL.md``, verified against the entry, then its other files. A skill whose
    ``SKILL.md`` fails verification is rejected (the line says which check), and none of its
    other files is read."""
    info = client.connect()
    say_negotiated(info.era, info.protocol_version)
    skills = client.list_skills()
    say(f"listed {len(skills)} skill(s): {', '.join(skill.name for skill in skills)}")
    if not load:
        return
    for skill in skills:
        try:
            client.read_skill(skill)
        except McpSkillIntegrityError as exc:
            say(f"skill rejected: {exc.check}{f' {exc.field}' if exc.field else ''}: {exc}")
            continue
        say(f"skill loaded: {skill.uri}")
        for file in skill.files or ():
            if file.uri != skill.uri:
                client.read_skill(skill, file.uri)
                say(f"skill file read: {file.uri}")


# The skills scenarios, and whether the host loads the listed skills in each.
SKILLS_SCENARIOS = {
    "sep-2640-client-no-prefetch": False,
    "sep-2640-client-verify-digest": True,
    "sep-2640-client-verify-size": True,
    "sep-2640-client-verify-frontmatter": True,
}

SCENARIOS: dict[str, Callable[[Session], None]] = {
    "initialize": scenario_initialize,
    "tools_call": scenario_tools_call,
    "elicitation-sep1034-client-defaults": scenario_elicitation_defaults,
    "sse-retry": scenario_sse_retry,
    "json-schema-2020-12-preservation": scenario_json_schema_preservation,
    "json-schema-ref-no-deref": scenario_exercise,
    "request-metadata": scenario_exercise,
    "sep-2322-client-request-state": scenario_exercise,
    "http-standard-headers": scenario_exercise,
    "http-custom-headers": scenario_exercise,
    "http-invalid-tool-headers": scenario_exercise,
}
# Every auth scenario the suite has at 2025-11-25, the two 2025-03-26 ones and the
# client-credentials and DPoP extensions: the same calls, the scenario's servers decide the flow.
AUTH_SCENARIOS = (
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    # DPoP (SEP-1932): the servers ask for it (a DPoP challenge, ES256 in the metadata).
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
    "auth/enterprise-managed-authorization",
)
SCENARIOS.update(dict.fromkeys(AUTH_SCENARIOS, scenario_auth))


# -- entry point ----------------------------------------------------------------------------------


def scenario_context() -> JsonObject:
    """The client data the suite passes for the scenario (``MCP_CONFORMANCE_CONTEXT``): a
    pre-registered ``client_id`` with a ``client_secret``, or a ``private_key_pem`` and its
    ``signing_algorithm``; empty when there is none."""
    raw = os.environ.get(CONTEXT_ENV)
    if not raw:
        return {}
    try:
        context = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConformanceClientError(f"{CONTEXT_ENV} is not JSON: {exc}") from exc
    if not isinstance(context, dict):
        raise ConformanceClientError(f"{CONTEXT_ENV} is not a JSON object")
    return context


def host_supplied(token: str | None, asynchronous: bool) -> Callable[[], Any]:
    """An assertion source as a host gives one: a function returning ``token`` (an ``async``
    one for the async transport, which awaits it)."""

    def supply() -> str:
        if token is None:
            raise ConformanceClientError(f"{CONTEXT_ENV} holds no assertion for the scenario")
        return token

    async def asupply() -> str:
        return supply()

    return asupply if asynchronous else supply


def oauth_config(
    scenario: str, context: Mapping[str, Any], asynchronous: bool = False
) -> McpOAuthConfig | None:
    """The server's OAuth settings for an ``auth/*`` scenario (None for the others): the
    workload's JWT for ``auth/wif-jwt-bearer`` (the context's ``valid_jwt``), the user's ID
    token and the identity provider for ``auth/enterprise-managed-authorization``."""
    if not scenario.startswith(AUTH_PREFIX):
        return None

    def text(key: str) -> str | None:
        value = context.get(key)
        return value if isinstance(value, str) and value else None

    if scenario == "auth/wif-jwt-bearer":
        return McpOAuthConfig(
            client_id=text("client_id"),
            grant_type="jwt_bearer",
            assertion=host_supplied(text("valid_jwt"), asynchronous),
        )
    if scenario == "auth/enterprise-managed-authorization":
        return McpOAuthConfig(
            client_id=text("client_id"),
            client_secret=text("client_secret"),
            grant_type="enterprise",
            id_token=host_supplied(text("idp_id_token"), asynchronous),
            idp_token_endpoint=text("idp_token_endpoint"),
            idp_client_id=text("idp_client_id"),
        )
    client_credentials = scenario.startswith("auth/client-credentials")
    return McpOAuthConfig(
        client_id=text("client_id"),
        client_secret=text("client_secret"),
        private_key_pem=text("private_key_pem"),
        signing_algorithm=text("signing_algorithm"),
        client_metadata_url=CLIENT_METADATA_URL,
        grant_type="client_credentials" if client_credentials else "authorization_code",
    )


def open_connection(url: str, scenario: str, transport_kind: str) -> Connection:
    """A transport of the kind asked for, to the scenario's server (with OAuth for the
    ``auth/*`` scenarios), answering the server's requests with mcpstream's own router."""
    asynchronous = transport_kind == "async"
    oauth = oauth_config(scenario, scenario_context(), asynchronous)
    server = ResolvedMcpServer(
        id="conformance",
        transport="http",
        url=url,
        headers={},
        call_timeout_s=CALL_TIMEOUT_S,
        oauth=oauth,
    )
    requests = ServerRequests(
        elicitation_handler=accept_with_defaults, sampling_handler=None, roots=None
    )
    workspace_root = Path.cwd()
    options: dict[str, Any] = {
        "server": server,
        "workspace_root": workspace_root,
        "server_request_context": McpServerRequestContext(server.id, workspace_root),
        "server_request_handler": ServerRequestRouter(requests, awaitable_answers=asynchronous),
        # Without oauth settings the transports ignore both.
        "oauth_store": McpOAuthMemoryTokenStore() if oauth is not None else None,
    }
    if asynchronous:

        def make_async() -> AsyncMcpHttpTransport:
            http = host_http_client(True)  # made on the loop that uses it
            redirect = AsyncHeadlessRedirectHandler(client=http) if oauth else None
            return AsyncMcpHttpTransport(**options, client=http, oauth_redirect_handler=redirect)

        return AsyncConnection(make_async)
    http = host_http_client(False)
    redirect_handler = HeadlessRedirectHandler(client=http) if oauth else None
    return SyncConnection(
        McpHttpTransport(**options, client=http, oauth_redirect_handler=redirect_handler)
    )


def open_client(url: str, transport_kind: str) -> Any:
    """An mcpstream ``Client``, or an ``AsyncClient`` driven from this thread, for ``url``."""
    options: dict[str, Any] = {"request_timeout_s": CALL_TIMEOUT_S, "server_id": "conformance"}
    if transport_kind == "async":
        return BlockingAsyncClient(
            lambda: mcpstream.AsyncClient(url, **options, http_client=host_http_client(True))
        )
    return mcpstream.Client(url, **options, http_client=host_http_client(False))


def run(url: str, scenario: str, transport_kind: str) -> None:
    """Initialize a session with the server at ``url`` and perform ``scenario`` on it."""
    if scenario in SKILLS_SCENARIOS:
        client = open_client(url, transport_kind)
        try:
            scenario_skills(client, SKILLS_SCENARIOS[scenario])
        finally:
            client.close()
        return
    perform = SCENARIOS[scenario]
    with Session(open_connection(url, scenario, transport_kind)) as session:
        session.initialize()
        perform(session)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="client.py",
        description="mcpstream's client for the MCP conformance suite.",
        epilog=f"The scenario is read from {SCENARIO_ENV} unless --scenario is given.",
    )
    parser.add_argument("url", help="the scenario server's MCP endpoint")
    parser.add_argument("--scenario", default=os.environ.get(SCENARIO_ENV))
    parser.add_argument(
        "--transport",
        choices=("sync", "async"),
        default=os.environ.get(TRANSPORT_ENV) or "sync",
        help=f"which mcpstream transport to use (default: ${TRANSPORT_ENV} or sync)",
    )
    return parser.parse_args(argv)


def fail(scenario: str | None, message: str, code: int = EXIT_FAILURE) -> int:
    print(f"conformance client: {scenario or '-'}: FAILED: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    scenario: str | None = args.scenario
    if not scenario:
        return fail(None, f"no scenario: set {SCENARIO_ENV} or pass --scenario", EXIT_USAGE)
    if scenario not in SCENARIOS and scenario not in SKILLS_SCENARIOS:
        known = ", ".join([*SCENARIOS, *SKILLS_SCENARIOS])
        return fail(scenario, f"scenario not supported by this client (known: {known})", EXIT_USAGE)
    if args.transport not in ("sync", "async"):
        return fail(scenario, f"{TRANSPORT_ENV} must be sync or async", EXIT_USAGE)
    print(
        f"conformance client: scenario={scenario} transport={args.transport} "
        f"backend={codec.BACKEND} http_client={os.environ.get(HTTP_CLIENT_ENV) or 'own'} "
        f"url={args.url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        run(args.url, scenario, args.transport)
    except (
        ConformanceClientError,
        McpHttpTransportError,
        McpOAuthError,
        McpError,
        McpSkillError,
    ) as exc:
        # McpOAuthError: e.g. McpOAuthInsufficientScopeError once the step-up limit is reached,
        # the end auth/scope-retry-limit expects.
        return fail(scenario, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # one line for the suite's log, whatever went wrong
        return fail(scenario, f"unexpected {type(exc).__name__}: {exc}")
    print(f"conformance client: {scenario}: done", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
