"""Workload identity: the JWT bearer grant (RFC 7523) with an assertion the host supplies, from
a callable, a file re-read at every use or an environment variable, against the loopback
authorization server; a refusal is one request, no retry, no other grant, and an
``McpOAuthAssertionRejectedError`` naming the reason without the assertion."""

from __future__ import annotations

import asyncio
import gc
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from mcpstream.models import McpOAuthConfig
from mcpstream.oauth import (
    McpOAuthAssertionRejectedError,
    McpOAuthClientSettings,
    McpOAuthConfigurationError,
    McpOAuthError,
    McpOAuthTokenExchangeError,
)
from mcpstream.oauth.assertions import rejection_reason
from mcpstream.oauth_store import McpOAuthMemoryTokenStore

from .auth_server import JWT_BEARER, AuthServer
from .conftest import Bench, MakeBench, acall_mcp

WORKLOAD_KEY = ec.generate_private_key(ec.SECP256R1())
ENV = "MCPSTREAM_TEST_WORKLOAD_JWT"


def workload_jwt(audience: str, *, expires_in: int = 300, key: Any = WORKLOAD_KEY) -> str:
    """A workload JWT as a platform issues one (iss, sub, aud, exp, jti)."""
    now = int(time.time())
    claims = {
        "iss": "https://idp.workloads.example",
        "sub": "system:serviceaccount:ns:worker",
        "aud": audience,
        "iat": now - 120,
        "exp": now + expires_in,
        "jti": f"jti-{time.monotonic_ns()}",
    }
    return jwt.encode(claims, key, algorithm="ES256")


def start(bench: MakeBench, **config: Any) -> Bench:
    """The servers, trusting workload JWTs signed with ``WORKLOAD_KEY``."""
    return bench(workload_key=WORKLOAD_KEY.public_key(), **config)


def jwt_bearer_requests(server: AuthServer) -> list[dict[str, str]]:
    return [r.form for r in server.find("/token") if r.form.get("grant_type") == JWT_BEARER]


def settings(**options: Any) -> McpOAuthClientSettings:
    return McpOAuthClientSettings(grant_type="jwt_bearer", **options)


# -- the grant succeeds --------------------------------------------------------------------------


def test_a_workload_jwt_from_a_callable_gets_a_token_in_one_request(
    bench: MakeBench,
) -> None:
    b = start(bench, prm_scopes_supported=["mcp:read"])
    server = b.server
    token = workload_jwt(server.issuer)
    calls: list[int] = []

    def supply() -> str:
        calls.append(1)
        return token

    session = b.session(settings(assertion=supply))
    assert b.call(session).status_code == 200
    (form,) = [r.form for r in server.find("/token")]
    assert form == {
        "grant_type": JWT_BEARER,
        "assertion": token,
        "scope": "mcp:read",
        "resource": server.mcp_url,
    }  # no client id configured: no client authentication at all
    assert calls == [1]
    assert not server.find("/authorize") and not server.find("/register")
    record = session._core.store.load("srv")
    assert record is not None and record.grant_type == JWT_BEARER


def test_with_a_client_id_the_request_authenticates_the_client(
    bench: MakeBench,
) -> None:
    b = start(bench, token_auth_methods=["client_secret_basic"], pre_registered={"wl": "s3"})
    server = b.server
    token = workload_jwt(server.issuer)
    config = settings(client_id="wl", client_secret="s3", assertion=lambda: token)
    session = b.session(config)
    assert b.call(session).status_code == 200
    (request,) = server.find("/token")
    assert request.headers["authorization"].startswith("Basic ")
    assert request.form["assertion"] == token


def test_the_assertion_file_is_read_again_at_every_token_request(
    bench: MakeBench, tmp_path: Path
) -> None:
    b = start(bench)
    server = b.server
    first, second = workload_jwt(server.issuer), workload_jwt(server.issuer, expires_in=600)
    path = tmp_path / "token"
    path.write_text(first + "\n")  # platforms write a trailing newline
    session = b.session(settings(assertion_file=path))
    session.login()
    path.write_text(second)  # the platform rotated it in place
    session.login()
    assert [form["assertion"] for form in jwt_bearer_requests(server)] == [first, second]


def test_the_environment_variable_is_read_at_every_use(
    bench: MakeBench,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = start(bench)
    server = b.server
    first, second = workload_jwt(server.issuer), workload_jwt(server.issuer, expires_in=600)
    session = b.session(settings(assertion_env=ENV))
    monkeypatch.setenv(ENV, first)
    session.login()
    monkeypatch.setenv(ENV, second)
    session.login()
    assert [form["assertion"] for form in jwt_bearer_requests(server)] == [first, second]

    monkeypatch.delenv(ENV)
    with pytest.raises(McpOAuthConfigurationError, match=f"environment variable {ENV}.*not set"):
        session.login()
    assert len(jwt_bearer_requests(server)) == 2  # nothing sent without an assertion


def test_an_expired_access_token_gets_a_new_one_with_a_fresh_assertion(
    bench: MakeBench,
) -> None:
    b = start(bench, issue_refresh_tokens=False)
    server = b.server
    tokens = iter([workload_jwt(server.issuer), workload_jwt(server.issuer, expires_in=900)])
    store = McpOAuthMemoryTokenStore()
    session = b.session(settings(assertion=lambda: next(tokens)), store=store)
    b.call(session, "a")
    record = store.load("srv")
    assert record is not None
    store.save("srv", record.with_changes(expires_at=time.time() + 5))
    # Within the one-minute leeway: the next request renews first, with the next JWT.
    assert b.call(session, "b").status_code == 200
    first, second = jwt_bearer_requests(server)
    assert first["assertion"] != second["assertion"]


def test_the_time_the_host_takes_is_not_the_servers(bench: MakeBench) -> None:
    b = start(bench)
    token = workload_jwt(b.server.issuer)

    def slow() -> str:
        time.sleep(0.8)  # a metadata server, say: past the operation's whole budget
        return token

    session = b.session(settings(assertion=slow), timeout_s=0.5)
    assert b.call(session).status_code == 200  # discovery and the token request each in time


def async_login(server: AuthServer, supply: Callable[[], Any]) -> None:
    """One request through an async session whose assertion function is ``supply``."""
    response = asyncio.run(
        acall_mcp(server.mcp_url, "tools/list", settings=settings(assertion=supply))
    )
    assert response.status_code == 200
    assert len(jwt_bearer_requests(server)) == 1


def test_the_async_session_awaits_an_async_assertion_function(bench: MakeBench) -> None:
    server = start(bench).server
    token = workload_jwt(server.issuer)

    async def supply() -> str:
        await asyncio.sleep(0)
        return token

    async_login(server, supply)
    assert jwt_bearer_requests(server)[0]["assertion"] == token


def test_the_async_session_runs_a_plain_function_off_the_event_loop(bench: MakeBench) -> None:
    server = start(bench).server
    token = workload_jwt(server.issuer)
    loops: list[bool] = []

    def supply() -> str:
        try:
            asyncio.get_running_loop()
            loops.append(True)
        except RuntimeError:
            loops.append(False)
        return token

    async_login(server, supply)
    assert loops == [False]  # called in a worker thread


def test_the_blocking_session_refuses_an_async_function_before_sending(bench: MakeBench) -> None:
    b = start(bench)
    server = b.server

    async def supply() -> str:
        return "never"

    session = b.session(settings(assertion=supply))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(McpOAuthConfigurationError, match="async function"):
            session.login()
        gc.collect()
    # The coroutine the function returned was closed, not left "never awaited".
    assert not [w for w in seen if issubclass(w.category, RuntimeWarning)]
    assert not server.find("/token")


def test_a_failing_assertion_function_is_a_configuration_error_without_a_request(
    bench: MakeBench,
) -> None:
    b = start(bench)
    server = b.server

    def broken() -> str:
        raise OSError("metadata server unreachable")

    session = b.session(settings(assertion=broken))
    with pytest.raises(McpOAuthConfigurationError, match=r"callable failed .*\(OSError\)") as e:
        session.login()
    assert isinstance(e.value.__cause__, OSError)
    assert e.value.server_id == "srv"
    for bad in ("", "   \n", "two words", 42):
        session = b.session(settings(assertion=lambda bad=bad: bad))
        with pytest.raises(McpOAuthConfigurationError, match="callable gave"):
            session.login()
    assert not server.find("/token")


# -- the grant is refused ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_assertion", "reason"),
    [
        (lambda issuer: workload_jwt(issuer, expires_in=-60), "expired"),
        (lambda issuer: workload_jwt("https://wrong.example"), "wrong_audience"),
        (
            lambda issuer: workload_jwt(issuer, key=ec.generate_private_key(ec.SECP256R1())),
            "malformed",
        ),
        (lambda issuer: "not.a.jwt", "malformed"),
    ],
    ids=["expired", "wrong-audience", "bad-signature", "garbage"],
)
def test_a_refused_assertion_is_one_request_and_an_error_naming_why(
    bench: MakeBench,
    make_assertion: Callable[[str], str],
    reason: str,
) -> None:
    b = start(bench)
    server = b.server
    assertion = make_assertion(server.issuer)
    session = b.session(settings(assertion=lambda: assertion))
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        b.call(session)
    error = caught.value
    assert isinstance(error, McpOAuthTokenExchangeError)
    assert (error.reason, error.grant, error.oauth_error) == (reason, "jwt-bearer", "invalid_grant")
    assert error.status_code == 400 and error.server_id == "srv"
    assert error.authorization_server_url == server.issuer
    assert "does not retry" in str(error) and "invalid_grant" in str(error)
    assert len(server.find("/token")) == 1  # no retry, no other grant
    assert not server.find("/authorize") and not server.find("/register")
    for text in (str(error), repr(error), str(error.error_description)):
        assert assertion not in text
        signature = assertion.split(".")[-1]
        assert len(signature) < 10 or signature not in text  # not even its signature
    assert session._core.store.load("srv") is None


@pytest.mark.parametrize("refusal", ["invalid_scope", "unauthorized_client"])
def test_other_refusals_are_not_retried_either(
    bench: MakeBench,
    refusal: str,
) -> None:
    b = start(bench, jwt_bearer_refusal=refusal)
    server = b.server
    token = workload_jwt(server.issuer)
    session = b.session(settings(assertion=lambda: token))
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        b.call(session)
    assert caught.value.reason == refusal
    assert len(server.find("/token")) == 1


def test_the_async_session_makes_one_request_when_refused(
    bench: MakeBench,
) -> None:
    b = start(bench)
    server = b.server
    expired = workload_jwt(server.issuer, expires_in=-60)
    with pytest.raises(McpOAuthAssertionRejectedError) as caught:
        asyncio.run(
            acall_mcp(server.mcp_url, "tools/list", settings=settings(assertion=lambda: expired))
        )
    assert caught.value.reason == "expired"
    assert expired not in str(caught.value)
    assert len(server.find("/token")) == 1


@pytest.mark.parametrize(
    ("error", "description", "reason"),
    [
        ("invalid_grant", "JWT assertion is expired", "expired"),
        ("invalid_grant", 'Token has expired ("exp" claim)', "expired"),
        ("invalid_grant", "JWT assertion audience is invalid", "wrong_audience"),
        ("invalid_grant", "aud claim mismatch", "wrong_audience"),
        ("invalid_grant", "JWT assertion verification failed: signature", "malformed"),
        ("invalid_grant", "Malformed JWT", "malformed"),
        ("invalid_grant", "subject not allowed", "invalid_grant"),
        ("invalid_grant", None, "invalid_grant"),
        ("invalid_scope", "JWT assertion is expired", "invalid_scope"),
        ("unauthorized_client", None, "unauthorized_client"),
        (None, None, "refused"),
        ("Bad Code!\n", None, "refused"),
    ],
)
def test_the_reason_comes_from_the_error_and_its_description(
    error: str | None, description: str | None, reason: str
) -> None:
    assert rejection_reason(error, description) == reason


# -- settings ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"grant_type": "jwt_bearer"}, "needs the workload's assertion"),
        (
            {"grant_type": "jwt_bearer", "assertion_env": "A", "assertion_file": "/f"},
            "only one of assertion_file, assertion_env",
        ),
        ({"grant_type": "jwt_bearer", "assertion": "eyJ.secret.jwt"}, "must be a function"),
        ({"grant_type": "jwt_bearer", "assertion_env": ""}, "name of an environment variable"),
        ({"grant_type": "jwt_bearer", "assertion_file": 3}, "must be a file path"),
        ({"assertion_env": "A"}, "only apply with grant_type='jwt_bearer'"),
        (
            {"grant_type": "jwt_bearer", "assertion_env": "A", "id_token_env": "B"},
            "only apply with grant_type='enterprise'",
        ),
        ({"grant_type": "workload"}, "unsupported grant_type"),
    ],
)
def test_settings_that_cannot_work_are_refused(options: dict[str, Any], message: str) -> None:
    for make in (McpOAuthClientSettings, McpOAuthConfig):
        with pytest.raises(ValueError, match=message) as caught:
            make(**options)
        assert "secret" not in str(caught.value)  # a literal assertion is never quoted


def test_the_config_reaches_the_settings_and_its_repr_hides_the_function() -> None:
    def supply() -> str:
        return "eyJ.payload.signature"

    config = McpOAuthConfig(
        grant_type="jwt_bearer",
        assertion=supply,
        application_type="web",
        max_document_bytes=4096,
    )
    resolved = McpOAuthClientSettings.from_config(config)
    assert resolved.assertion is supply and resolved.is_machine_client
    assert (resolved.application_type, resolved.max_document_bytes) == ("web", 4096)
    for text in (repr(config), repr(resolved)):
        assert "assertion='<callable>'" in text and "supply" not in text
    file_config = McpOAuthConfig(grant_type="jwt_bearer", assertion_file="/var/run/token")
    assert "assertion_file='/var/run/token'" in repr(file_config)
    assert "file /var/run/token" in repr(
        McpOAuthClientSettings.from_config(file_config).assertion_source()
    )


def test_the_errors_are_exported_where_the_others_are() -> None:
    import mcpstream.oauth as oauth

    assert oauth.McpOAuthAssertionRejectedError is McpOAuthAssertionRejectedError
    assert issubclass(McpOAuthAssertionRejectedError, McpOAuthError)
    assert McpOAuthAssertionRejectedError.error_code == "mcp_oauth_assertion_rejected"


def test_the_clients_oauth_option_carries_the_assertion_settings() -> None:
    from mcpstream.client._settings import oauth_config

    option = McpOAuthClientSettings(
        grant_type="jwt_bearer", assertion_env=ENV, application_type="native"
    )
    config = oauth_config(option)
    assert isinstance(config, McpOAuthConfig)
    assert (config.grant_type, config.assertion_env, config.application_type) == (
        "jwt_bearer",
        ENV,
        "native",
    )
    assert McpOAuthClientSettings.from_config(config) == option
