"""DPoP (RFC 9449, SEP-1932): the proofs (``mcpstream.oauth.dpop``), the key kept in the token
store, the token endpoint's and the resource's nonces (one retry, never two), and the
transports (sync and async) sending a fresh proof with every POST, GET and DELETE, against the
loopback authorization server in its DPoP mode (which checks each proof as a strict server
does) and the real MCP server behind it."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcpstream._http.auth import with_dpop_proof
from mcpstream._http.core.steps import HttpRequest
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import (
    HeadlessRedirectHandler,
    McpOAuthClientSettings,
    McpOAuthDPoPError,
    McpOAuthSession,
    McpOAuthTokenExchangeError,
    parse_www_authenticate_bearer_challenge,
)
from mcpstream.oauth.dpop import DPoPKey, DPoPNonces, DPoPProver, is_nonce_challenge
from mcpstream.oauth_store import (
    McpOAuthFileTokenStore,
    McpOAuthMemoryTokenStore,
    McpOAuthTokenRecord,
)
from mcpstream.transport_http import McpHttpTransport
from transport.helpers import ScriptedHandler, call_tool, initialize, tool_text

from .auth_server import AuthServer, verify_dpop_proof, wait_until
from .conftest import MakeSession, Start
from .protected_mcp import GateRecord
from .test_transport_oauth import Protected
from .test_transport_oauth_async import call_tool as acall_tool
from .test_transport_oauth_async import initialize as ainitialize
from .test_transport_oauth_async import oauth_transport

URL = "https://mcp.example.com/mcp"


def b64url_sha256(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def decode_proof(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and the claims of ``proof``, its signature checked against its own jwk."""
    header = jwt.get_unverified_header(proof)
    key = jwt.algorithms.ECAlgorithm.from_jwk(json.dumps(header["jwk"]))
    return header, jwt.decode(proof, key, algorithms=["ES256"])  # type: ignore[arg-type]


def private_value(key: DPoPKey) -> str:
    """The private scalar ``d`` of ``key``, as a JWK would carry it."""
    private = serialization.load_pem_private_key(key.to_pem().encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    number = private.private_numbers().private_value.to_bytes(32, "big")
    return base64.urlsafe_b64encode(number).rstrip(b"=").decode()


def key_material(key: DPoPKey) -> list[str]:
    """What must never appear in output: the PEM's base64 lines and the private scalar."""
    lines = [line for line in key.to_pem().splitlines() if "-----" not in line]
    return [*lines, private_value(key)]


def token_requests(auth: AuthServer, grant_type: str) -> list[Any]:
    return [r for r in auth.find("/token") if r.form.get("grant_type") == grant_type]


# -- proofs ------------------------------------------------------------------------------------


def test_a_proof_verifies_against_its_public_key_with_the_claims_of_its_request() -> None:
    key = DPoPKey.generate()
    proof = key.proof("post", f"{URL}?session=secret#part", access_token="tok-1", nonce="n-1")
    header, claims = decode_proof(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert header["jwk"] == key.public_jwk and "d" not in header["jwk"]
    assert claims["htm"] == "POST"
    assert claims["htu"] == URL  # no query, no fragment
    assert claims["ath"] == b64url_sha256("tok-1")
    assert claims["nonce"] == "n-1"
    assert abs(claims["iat"] - time.time()) < 5
    # The test server's independent check agrees, and its thumbprint is the key's.
    assert verify_dpop_proof(proof, "POST", URL, "tok-1")["jkt"] == key.thumbprint


def test_every_proof_has_a_fresh_jti_and_only_the_claims_it_was_given() -> None:
    key = DPoPKey.generate()
    proofs = [key.proof("GET", URL) for _ in range(200)]
    claims = [decode_proof(proof)[1] for proof in proofs]
    assert len({c["jti"] for c in claims}) == 200
    assert all("ath" not in c and "nonce" not in c for c in claims)
    assert decode_proof(DPoPKey.generate().proof("GET", "http://h:1"))[1]["htu"] == "http://h:1/"


def test_the_key_round_trips_through_pem_and_never_shows_its_private_part() -> None:
    key = DPoPKey.generate()
    again = DPoPKey.from_pem(key.to_pem())
    assert again.thumbprint == key.thumbprint and again.public_jwk == key.public_jwk
    prover = DPoPProver(key)
    shown = " ".join([repr(key), str(key), f"{key}", repr(prover), str(prover)])
    assert key.thumbprint in shown
    assert not any(secret in shown for secret in key_material(key))
    with pytest.raises(TypeError):
        pickle.dumps(key)
    rsa_pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )
    for bad in ("not a key", rsa_pem):
        with pytest.raises(ValueError) as caught:
            DPoPKey.from_pem(bad)
        assert bad not in str(caught.value)


def test_nonces_are_kept_per_server_and_a_challenge_is_recognised() -> None:
    nonces = DPoPNonces()
    assert nonces.learn(URL, {"dpop-nonce": "n-1"}) == "n-1"
    assert nonces.get("https://mcp.example.com/other") == "n-1"  # the same origin
    assert nonces.get("https://as.example.com/token") is None
    assert nonces.learn(URL, {"DPoP-Nonce": "x" * 501}) is None  # not kept
    assert nonces.get(URL) == "n-1"
    challenge = {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "n"}
    assert is_nonce_challenge(401, challenge, None)
    assert not is_nonce_challenge(401, {"WWW-Authenticate": challenge["WWW-Authenticate"]}, None)
    assert is_nonce_challenge(400, {"DPoP-Nonce": "n"}, "use_dpop_nonce")
    assert not is_nonce_challenge(400, {"DPoP-Nonce": "n"}, "invalid_grant")
    # A DPoP-only challenge is read like a Bearer one; Bearer wins when both are there.
    dpop_only = 'DPoP algs="ES256", resource_metadata="https://m/prm"'
    assert (
        parse_www_authenticate_bearer_challenge(dpop_only)["resource_metadata"] == "https://m/prm"
    )
    both = 'DPoP error="use_dpop_nonce", Bearer scope="a"'
    assert parse_www_authenticate_bearer_challenge(both) == {"scope": "a"}


def test_the_dpop_setting_is_validated_and_carried_from_the_config() -> None:
    for bad in ("yes", 1):
        with pytest.raises(ValueError, match="dpop"):
            McpOAuthClientSettings(dpop=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="dpop"):
            McpOAuthConfig(dpop=bad)  # type: ignore[arg-type]
    assert McpOAuthClientSettings.from_config(McpOAuthConfig(dpop=False)).dpop is False
    assert McpOAuthClientSettings.from_config(McpOAuthConfig()).dpop is None


def test_a_proof_goes_only_on_requests_with_a_dpop_authorization() -> None:
    class Hook:
        def dpop_proof(self, method: str, url: str, authorization: str) -> str:
            return f"proof of {method} {url} {authorization}"

    bearer = HttpRequest("POST", URL, {"Authorization": "Bearer t"}, 5.0)
    dpop = HttpRequest("DELETE", URL, {"authorization": "DPoP t"}, 5.0)
    assert with_dpop_proof(Hook(), bearer) is bearer
    assert with_dpop_proof(object(), dpop) is dpop
    assert with_dpop_proof(Hook(), dpop).headers["DPoP"] == f"proof of DELETE {URL} DPoP t"


# -- the token store ---------------------------------------------------------------------------


def test_the_file_store_keeps_the_key_with_the_tokens_and_reads_old_files(tmp_path: Path) -> None:
    key = DPoPKey.generate()
    store = McpOAuthFileTokenStore(tmp_path / "tokens.json")
    record = McpOAuthTokenRecord(
        access_token="at-1", token_type="DPoP", refresh_token="rt-1", dpop_key=key.to_pem()
    )
    store.save("srv", record)
    loaded = store.load("srv")
    assert loaded == record and loaded is not None
    assert DPoPKey.from_pem(loaded.dpop_key or "").thumbprint == key.thumbprint
    assert not any(secret in repr(loaded) for secret in key_material(key))
    # A file written before DPoP (no dpop_key) still loads.
    document = json.loads(store.path.read_text())
    del document["servers"]["srv"]["dpop_key"]
    store.path.write_text(json.dumps(document))
    old = store.load("srv")
    assert old is not None and old.dpop_key is None and old.access_token == "at-1"


# -- the token endpoint ------------------------------------------------------------------------


def stored(session: McpOAuthSession) -> McpOAuthTokenRecord:
    record = session._core.store.load("srv")
    assert record is not None
    return record


def test_a_login_binds_the_token_to_a_new_key_with_one_nonce_retry(
    auth_server: Start, make_session: MakeSession
) -> None:
    auth = auth_server(dpop=True, dpop_as_nonce="as-nonce-1")
    session = make_session(auth)
    record = session.login()
    assert record.token_type == "DPoP" and record.dpop_key
    key = DPoPKey.from_pem(record.dpop_key)
    assert auth.dpop_bound[record.access_token] == key.thumbprint
    (authorize,) = auth.find("/authorize")  # the code was bound to the key (RFC 9449 10)
    assert authorize.query["dpop_jkt"] == key.thumbprint
    first, second = token_requests(auth, "authorization_code")  # one retry, with the nonce
    claims = [decode_proof(r.headers["dpop"])[1] for r in (first, second)]
    assert "nonce" not in claims[0] and claims[1]["nonce"] == "as-nonce-1"
    assert claims[0]["jti"] != claims[1]["jti"]
    assert {c["htu"] for c in claims} == {f"{auth.url}/token"}
    assert stored(session) == record

    # A second login makes a new key; the nonce it learnt is sent at once.
    again = session.login()
    assert again.dpop_key != record.dpop_key
    assert len(token_requests(auth, "authorization_code")) == 3


def test_a_second_use_dpop_nonce_at_the_token_endpoint_is_an_error(
    auth_server: Start, make_session: MakeSession
) -> None:
    auth = auth_server(dpop=True, dpop_stale_nonces=("token",))
    with pytest.raises(McpOAuthTokenExchangeError) as caught:
        make_session(auth).login()
    assert caught.value.oauth_error == "use_dpop_nonce"
    assert "asked for a DPoP nonce again after the retry" in str(caught.value)
    _, second = token_requests(auth, "authorization_code")
    assert decode_proof(second.headers["dpop"])[1]["nonce"] == "stale-1"


def test_a_refresh_proves_the_same_key_and_keeps_it(
    auth_server: Start, make_session: MakeSession
) -> None:
    auth = auth_server(dpop=True, dpop_as_nonce="n", access_token_lifetime_s=1)
    session = make_session(auth)
    record = session.login()
    auth.config.dpop_as_nonce = "n-2"  # the server moved on: one more retry for the refresh
    header = session.request_auth(method="tools/list").authorization_header()
    refreshed = stored(session)
    assert refreshed.access_token != record.access_token
    assert header == f"DPoP {refreshed.access_token}"
    assert refreshed.dpop_key == record.dpop_key and refreshed.token_type == "DPoP"
    proofs = [r.headers["dpop"] for r in token_requests(auth, "refresh_token")]
    assert len(proofs) == 2
    thumbprint = DPoPKey.from_pem(record.dpop_key or "").thumbprint
    assert {verify_dpop_proof(p, "POST", f"{auth.url}/token")["jkt"] for p in proofs} == {
        thumbprint
    }
    assert auth.dpop_bound[refreshed.access_token] == thumbprint


@pytest.mark.parametrize(
    ("setting", "offered", "challenge", "bound"),
    [
        (None, False, False, False),  # auto, nobody asks: Bearer
        (None, True, False, True),  # auto, the metadata offers ES256
        (None, False, True, True),  # auto, the resource challenges with DPoP
        (False, True, True, False),  # off, whatever the servers say
        (True, False, False, True),  # on, though nobody asks
    ],
)
def test_when_dpop_is_used(
    auth_server: Start,
    http_client: httpx.Client,
    setting: bool | None,
    offered: bool,
    challenge: bool,
    bound: bool,
) -> None:
    auth = auth_server(dpop=offered, dpop_challenge=challenge)
    session = McpOAuthSession(
        server_id="srv",
        server_url=auth.mcp_url,
        settings=McpOAuthClientSettings(dpop=setting),
        client=http_client,
        store=McpOAuthMemoryTokenStore(),
        redirect_handler=HeadlessRedirectHandler(client=http_client),
    )
    response = post_mcp(session, http_client, auth.mcp_url, "tools/list")
    assert response.status_code == 200
    record = stored(session)
    assert (record.token_type == "DPoP") is bound
    (token_request,) = token_requests(auth, "authorization_code")
    assert ("dpop" in token_request.headers) is bound
    authorization = auth.find("/mcp")[-1].headers["authorization"]
    assert authorization.startswith("DPoP " if bound else "Bearer ")


# -- the resource server -----------------------------------------------------------------------


def post_mcp(
    session: McpOAuthSession, client: httpx.Client, url: str, method: str
) -> httpx.Response:
    """One JSON-RPC request as a transport sends it: through the session's hook, with the
    DPoP proof the transport's drivers add (``with_dpop_proof``)."""
    auth = session.request_auth(method=method)
    while True:
        header = auth.authorization_header()
        request = with_dpop_proof(
            session, HttpRequest("POST", url, {"Authorization": header} if header else {}, 5.0)
        )
        response = client.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": method}, headers=request.headers
        )
        if response.status_code in (401, 403) and auth.should_retry(
            response.status_code, response.headers, response.content
        ):
            continue
        return response


def resource_attempts(auth: AuthServer) -> list[dict[str, Any]]:
    """The claims of the proofs of the requests to ``/mcp`` that carried one."""
    return [decode_proof(r.headers["dpop"])[1] for r in auth.find("/mcp") if "dpop" in r.headers]


def test_the_resource_nonce_is_sent_on_one_replay_even_of_a_tools_call(
    auth_server: Start, make_session: MakeSession, http_client: httpx.Client
) -> None:
    auth = auth_server(dpop=True, dpop_rs_nonce="rs-1")
    session = make_session(auth)
    session.login()
    assert post_mcp(session, http_client, auth.mcp_url, "tools/call").status_code == 200
    assert auth.mcp_calls == ["tools/call"]
    first, second = resource_attempts(auth)
    assert "nonce" not in first and second["nonce"] == "rs-1" and first["jti"] != second["jti"]
    token = stored(session).access_token
    assert first["ath"] == second["ath"] == b64url_sha256(token)
    # The nonce is kept for the server: the next request carries it at once.
    assert post_mcp(session, http_client, auth.mcp_url, "tools/list").status_code == 200
    assert len(resource_attempts(auth)) == 3 and resource_attempts(auth)[2]["nonce"] == "rs-1"


def test_a_second_use_dpop_nonce_at_the_resource_is_an_error(
    auth_server: Start, make_session: MakeSession, http_client: httpx.Client
) -> None:
    auth = auth_server(dpop=True, dpop_stale_nonces=("resource",))
    session = make_session(auth)
    session.login()
    with pytest.raises(McpOAuthDPoPError) as caught:
        post_mcp(session, http_client, auth.mcp_url, "tools/list")
    assert caught.value.oauth_error == "use_dpop_nonce"
    assert "again after the retry" in str(caught.value)
    assert [c.get("nonce") for c in resource_attempts(auth)] == [None, "stale-1"]
    assert auth.mcp_calls == []


# -- the transports ----------------------------------------------------------------------------


def check_proofs(records: list[GateRecord], url: str) -> None:
    """Every authenticated request carried a ``DPoP`` token and a fresh proof of its own method
    and URL, with the token's ``ath``."""
    authenticated = [r for r in records if r.authorization]
    assert authenticated
    jtis = set()
    for record in authenticated:
        assert record.authorization and record.authorization.startswith("DPoP ")
        claims = verify_dpop_proof(record.dpop, record.http_method, url, record.authorization[5:])
        jtis.add(claims["jti"])
    assert len(jtis) == len(authenticated)
    assert {r.http_method for r in authenticated} == {"POST", "GET", "DELETE"}


def poke_async(
    url: str,
    tmp_path: Path,
    store: McpOAuthMemoryTokenStore,
    change: Callable[[], object],
    calls: int = 1,
) -> None:
    """With the async transport: initialize, wait (5 s at most) until the GET stream is open,
    ``change`` the servers, then call the tool ``poke`` ``calls`` times."""

    async def body() -> None:
        handler = ScriptedHandler({"ping": {}})
        async with oauth_transport(
            url, tmp_path, store=store, server_request_handler=handler
        ) as transport:
            await ainitialize(transport)
            deadline = asyncio.get_running_loop().time() + 5
            while not transport.listening and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.01)
            change()
            for _ in range(calls):
                assert await acall_tool(transport, "poke") == "poked"

    asyncio.run(asyncio.wait_for(body(), 60))


def make_sync(url: str, tmp_path: Path, store: McpOAuthMemoryTokenStore) -> McpHttpTransport:
    server = ResolvedMcpServer(id="srv", url=url, oauth=McpOAuthConfig(), call_timeout_s=10)
    return McpHttpTransport(
        server=server,
        workspace_root=tmp_path,
        oauth_store=store,
        oauth_redirect_handler=HeadlessRedirectHandler(),
        server_request_handler=ScriptedHandler({"ping": {}}),
    )


def test_the_sync_transport_proves_every_post_get_and_delete(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(dpop=True, dpop_as_nonce="as-1", dpop_rs_nonce="rs-1")
    store = McpOAuthMemoryTokenStore()
    transport = make_sync(mcp.url, tmp_path, store)
    try:
        initialize(transport)
        wait_until(lambda: transport.listening)
        auth.config.dpop_rs_nonce = "rs-2"  # a new nonce: the tools/call is refused, replayed
        assert tool_text(call_tool(transport, "poke")) == "poked"
    finally:
        transport.close()
    record = store.load("srv")
    assert record is not None and record.token_type == "DPoP"
    check_proofs(mcp.gate.records, mcp.url)
    assert mcp.gate.statuses("POST", "tools/call") == [401, 200]
    assert mcp.gate.statuses("DELETE") == [200]
    assert len(token_requests(auth, "authorization_code")) == 2  # the nonce retry


def test_a_nonce_handed_out_on_a_success_is_used_at_once_by_both_transports(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    """The server rotates its nonce on a 200: the next request carries the new nonce and is
    not refused first (without it each rotation would cost a 401 and a replay).

    "Next" is the next request made after the answer was read: the second ``tools/call`` and
    the DELETE, sent by the thread that read the 200. The answer to the server's ``ping``
    (which ``poke`` sends on the GET stream, another connection, read by another thread) may
    be made while that 200 is still unread, so it may carry the old nonce: such a request is
    refused once and sent again with the new one, never accepted with the old one."""
    _, mcp = protected_mcp(dpop=True, dpop_rs_nonce="rs-1")
    store = McpOAuthMemoryTokenStore()
    transport = make_sync(mcp.url, tmp_path, store)
    try:
        initialize(transport)
        wait_until(lambda: transport.listening)
        mcp.gate.next_nonce_on_success = "rs-2"
        assert tool_text(call_tool(transport, "poke")) == "poked"
        assert tool_text(call_tool(transport, "poke")) == "poked"
    finally:
        transport.close()
    assert mcp.gate.statuses("POST", "tools/call") == [200, 200]
    proven = [
        (r.http_method, r.rpc_method, decode_proof(r.dpop)[1].get("nonce"), r.status)
        for r in mcp.gate.records
        if r.dpop
    ]
    first_call = proven.index(("POST", "tools/call", "rs-1", 200))  # its 200 handed out rs-2
    after = proven[first_call + 1 :]
    assert [(m, n) for _, m, n, _ in after if m == "tools/call"] == [("tools/call", "rs-2")]
    assert [n for m, _, n, _ in after if m == "DELETE"] == ["rs-2"]
    # A request in flight on another connection may carry rs-1: refused, then sent with rs-2.
    for index, (http_method, rpc_method, nonce, status) in enumerate(after):
        if nonce == "rs-2":
            continue
        assert (nonce, status) == ("rs-1", 401)
        replays = [r for r in after[index + 1 :] if r[:2] == (http_method, rpc_method)]
        assert replays and replays[0][2] == "rs-2" and 200 <= (replays[0][3] or 0) < 300

    poke_async(
        mcp.url, tmp_path, store, lambda: setattr(mcp.gate, "next_nonce_on_success", "rs-3"), 2
    )
    assert mcp.gate.statuses("POST", "tools/call")[2:] == [200, 200]


def test_the_sync_transport_gives_up_on_a_second_resource_nonce(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    _, mcp = protected_mcp(dpop=True, dpop_stale_nonces=("resource",))
    transport = make_sync(mcp.url, tmp_path, McpOAuthMemoryTokenStore())
    try:
        with pytest.raises(McpOAuthDPoPError):
            initialize(transport)
    finally:
        transport.close()
    assert mcp.gate.statuses("POST", "initialize") == [401, 401, 401]  # login, proof, retry


def test_the_async_transport_proves_every_post_get_and_delete(
    protected_mcp: Protected, tmp_path: Path
) -> None:
    auth, mcp = protected_mcp(dpop=True, dpop_as_nonce="as-1", dpop_rs_nonce="rs-1")
    store = McpOAuthMemoryTokenStore()

    poke_async(mcp.url, tmp_path, store, lambda: setattr(auth.config, "dpop_rs_nonce", "rs-2"))
    record = store.load("srv")
    assert record is not None and record.token_type == "DPoP"
    check_proofs(mcp.gate.records, mcp.url)
    assert mcp.gate.statuses("POST", "tools/call") == [401, 200]
    assert mcp.gate.statuses("DELETE") == [200]


def test_the_private_key_is_in_no_log_line_or_error(
    protected_mcp: Protected,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    _, mcp = protected_mcp(dpop=True, dpop_as_nonce="as-1", dpop_stale_nonces=("resource",))
    store = McpOAuthMemoryTokenStore()
    transport = make_sync(mcp.url, tmp_path, store)
    try:
        with pytest.raises(McpOAuthDPoPError) as caught:
            initialize(transport)
    finally:
        transport.close()
    record = store.load("srv")
    assert record is not None and record.dpop_key
    key = DPoPKey.from_pem(record.dpop_key)
    shown = "\n".join([caplog.text, str(caught.value), repr(caught.value), repr(record)])
    assert "DPoP" in caplog.text  # the flow was logged
    assert not any(secret in shown for secret in key_material(key))
