"""``mcpstream auth login|status|logout``, run in-process against the loopback server, with a
stand-in browser that follows the authorization redirect to the real loopback listener; and
``mcpstream tools|call|ping --auth`` with that login against a real MCP server behind it."""

from __future__ import annotations

import json
import os
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from mcpstream.cli import main
from mcpstream.oauth import redirect
from mcpstream.oauth_store import load_oauth_token_record

from .auth_server import JWT_BEARER, AuthServer
from .protected_mcp import ProtectedMcpServer
from .test_assertions import WORKLOAD_KEY, workload_jwt


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A browser that visits the URL and follows redirects (to the CLI's loopback listener)."""
    visited: list[str] = []

    def open_url(url: str, *args: object, **kwargs: object) -> bool:
        visited.append(url)
        threading.Thread(target=httpx.get, args=(url,), kwargs={"follow_redirects": True}).start()
        return True

    monkeypatch.setattr(redirect, "_browser_available", lambda: True)
    monkeypatch.setattr(webbrowser, "open", open_url)
    return visited


def test_login_through_the_browser_stores_credentials_that_status_shows_without_tokens(
    auth_server: Callable[..., AuthServer],
    browser: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = auth_server(challenge_scope="mcp:basic")
    assert main(["auth", "login", server.mcp_url]) == 0
    out = capsys.readouterr()
    assert "Logged in" in out.out and "mcp:basic" in out.out
    assert len(browser) == 1
    (authorize,) = server.find("/authorize")
    assert authorize.query["redirect_uri"].startswith("http://127.0.0.1:")
    record = load_oauth_token_record(server.mcp_url)
    assert record is not None and record.granted_scopes == ("mcp:basic",)

    assert main(["auth", "status"]) == 0
    status = capsys.readouterr().out
    assert server.mcp_url in status and "refresh:  yes" in status
    assert record.access_token not in status and record.refresh_token not in status  # type: ignore[operator]

    assert main(["auth", "status", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["servers"]
    assert entry["scopes"] == ["mcp:basic"] and entry["registration"] == "dynamic"

    assert main(["auth", "logout", server.mcp_url + "/"]) == 0
    assert load_oauth_token_record(server.mcp_url) is None
    assert main(["auth", "logout", server.mcp_url]) == 1


def test_login_without_a_browser_prints_the_url(
    auth_server: Callable[..., AuthServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = auth_server()
    printed: list[str] = []
    real_authorize = redirect.LoopbackRedirectHandler.authorize

    def authorize(self: redirect.LoopbackRedirectHandler, prompt: object) -> str:
        # The user copies the URL into a browser elsewhere: play that part.
        assert not self._open_browser
        printed.append(prompt.authorization_url)  # type: ignore[attr-defined]
        threading.Thread(
            target=httpx.get,
            args=(prompt.authorization_url,),  # type: ignore[attr-defined]
            kwargs={"follow_redirects": True},
        ).start()
        return real_authorize(self, prompt)  # type: ignore[arg-type]

    monkeypatch.setattr(redirect.LoopbackRedirectHandler, "authorize", authorize)
    assert main(["auth", "login", server.mcp_url, "--no-browser", "--server-id", "work"]) == 0
    assert printed[0] in capsys.readouterr().err
    assert load_oauth_token_record("work") is not None


def test_client_credentials_login_needs_no_browser(
    auth_server: Callable[..., AuthServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = auth_server(token_auth_methods=["client_secret_basic"], pre_registered={"m": "s"})
    monkeypatch.setenv("MACHINE_SECRET", "s")
    argv = ["auth", "login", server.mcp_url, "--client-credentials", "--client-id", "m"]
    assert main([*argv, "--client-secret-env", "MACHINE_SECRET"]) == 0
    record = load_oauth_token_record(server.mcp_url)
    assert record is not None and record.grant_type == "client_credentials"


def test_an_oauth_failure_is_one_line_on_stderr_with_exit_status_1(
    auth_server: Callable[..., AuthServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = auth_server(code_challenge_methods=None)
    assert main(["auth", "login", server.mcp_url, "--no-browser", "--timeout", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mcpstream: error: ") and "S256" in err
    assert err.count("\n") == 1


def test_status_with_no_credentials_says_how_to_log_in(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["auth", "status"]) == 0
    assert "mcpstream auth login" in capsys.readouterr().out


def test_tools_call_and_ping_with_auth_use_the_login_and_name_it_without_one(
    protected_mcp: Callable[..., tuple[AuthServer, ProtectedMcpServer]],
    browser: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, mcp = protected_mcp()
    # Before any login: one line naming the command, exit status 4, with --auth or without.
    for argv in (["ping", mcp.url, "--auth"], ["tools", mcp.url]):
        assert main(argv) == 4
        err = capsys.readouterr().err
        assert err.startswith("mcpstream: error: ") and err.count("\n") == 1
        assert f"'mcpstream auth login {mcp.url}'" in err

    assert main(["auth", "login", mcp.url]) == 0
    capsys.readouterr()
    assert main(["call", mcp.url, "echo", "text=hi", "--auth"]) == 0
    assert capsys.readouterr().out.strip() == "hi"
    assert main(["tools", mcp.url, "--auth", "--json"]) == 0
    assert "echo" in {tool["name"] for tool in json.loads(capsys.readouterr().out)["tools"]}
    assert main(["ping", mcp.url, "--auth"]) == 0
    assert "pong in" in capsys.readouterr().out
    record = load_oauth_token_record(mcp.url)
    assert record is not None
    assert {r.authorization for r in mcp.gate.records if r.status == 200} == {
        f"Bearer {record.access_token}"
    }


def test_login_with_dpop_binds_the_stored_token_and_later_commands_prove_its_key(
    protected_mcp: Callable[..., tuple[AuthServer, ProtectedMcpServer]],
    browser: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    auth, mcp = protected_mcp(dpop_rs_nonce="rs-1")  # the metadata does not offer DPoP
    assert main(["auth", "login", mcp.url, "--dpop"]) == 0
    assert "DPoP-bound" in capsys.readouterr().out
    record = load_oauth_token_record(mcp.url)  # from the store file
    assert record is not None and record.token_type == "DPoP" and record.dpop_key
    assert "dpop" in auth.find("/token")[-1].headers
    assert main(["auth", "status", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["servers"]
    assert entry["token_type"] == "DPoP" and record.dpop_key not in json.dumps(entry)

    # Another process (a new session) reads the key back from the file and proves it.
    assert main(["call", mcp.url, "echo", "text=hi", "--auth"]) == 0
    assert capsys.readouterr().out.strip() == "hi"
    assert {r.authorization for r in mcp.gate.records if r.status == 200} == {
        f"DPoP {record.access_token}"
    }
    assert all(r.dpop for r in mcp.gate.records if r.authorization)


def test_login_with_no_dpop_keeps_bearer_tokens_where_the_server_offers_dpop(
    auth_server: Callable[..., AuthServer], browser: list[str]
) -> None:
    server = auth_server(dpop=True)
    assert main(["auth", "login", server.mcp_url, "--no-dpop"]) == 0
    record = load_oauth_token_record(server.mcp_url)
    assert record is not None and record.token_type == "Bearer" and record.dpop_key is None
    assert "dpop" not in server.find("/token")[-1].headers


def test_a_workload_identity_login_reads_the_workloads_jwt_from_a_file_or_the_environment(
    auth_server: Callable[..., AuthServer],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = auth_server(workload_key=WORKLOAD_KEY.public_key())
    path = tmp_path / "workload.jwt"
    path.write_text(workload_jwt(server.issuer) + "\n")
    argv = ["auth", "login", server.mcp_url, "--grant", "jwt_bearer"]
    assert main([*argv, "--assertion-file", str(path)]) == 0
    monkeypatch.setenv("WORKLOAD_JWT", workload_jwt(server.issuer))
    assert main([*argv, "--assertion-env", "WORKLOAD_JWT", "--server-id", "env"]) == 0
    sent = [r.form["assertion"] for r in server.find("/token")]
    assert sent == [path.read_text().strip(), os.environ["WORKLOAD_JWT"]]
    for server_id in (server.mcp_url, "env"):
        record = load_oauth_token_record(server_id)
        assert record is not None and record.grant_type == JWT_BEARER
    out = capsys.readouterr()
    assert not any(assertion in out.out + out.err for assertion in sent)
    assert not server.find("/authorize")


def test_an_enterprise_login_exchanges_the_id_token_at_the_identity_provider(
    auth_server: Callable[..., AuthServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = auth_server(
        idp=True,
        token_auth_methods=["client_secret_basic"],
        pre_registered={"jag-client": "jag-secret"},
    )
    id_token = server.id_token()
    monkeypatch.setenv("ID_TOKEN", id_token)
    monkeypatch.setenv("JAG_SECRET", "jag-secret")
    monkeypatch.setenv("IDP_SECRET", "idp-secret")
    argv = ["auth", "login", server.mcp_url, "--grant", "enterprise", "--id-token-env", "ID_TOKEN"]
    argv += ["--client-id", "jag-client", "--client-secret-env", "JAG_SECRET"]
    argv += ["--idp-token-endpoint", f"{server.url}/idp/token", "--idp-client-id", "idp-client"]
    assert main([*argv, "--idp-client-secret-env", "IDP_SECRET"]) == 0
    (exchange,) = server.find("/idp/token")
    assert exchange.form["subject_token"] == id_token
    assert exchange.form["client_secret"] == "idp-secret"
    record = load_oauth_token_record(server.mcp_url)
    assert record is not None and record.grant_type == JWT_BEARER
    out = capsys.readouterr()
    assert id_token not in out.out + out.err and "Logged in" in out.out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--grant", "jwt_bearer"], "needs the workload's assertion"),
        (["--grant", "enterprise", "--id-token-env", "ID_TOKEN"], "idp_token_endpoint"),
        (["--assertion-file", "jwt"], "only apply with grant_type='jwt_bearer'"),
        (["--client-credentials", "--grant", "jwt_bearer"], "contradicts --grant jwt_bearer"),
        (["--grant", "jwt_bearer", "--assertion-env", "UNSET_VARIABLE_X"], None),
        (["--idp-client-secret-env", "UNSET_VARIABLE_X"], "UNSET_VARIABLE_X is not set"),
    ],
)
def test_assertion_options_that_cannot_work_are_one_line_errors_before_any_request(
    auth_server: Callable[..., AuthServer],
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str | None,
) -> None:
    server = auth_server()
    assert main(["auth", "login", server.mcp_url, *options]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mcpstream: error: ") and err.count("\n") == 1
    if message is not None:
        assert message in err
    assert not server.find("/token")
