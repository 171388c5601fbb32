"""A small but real OAuth 2.1 authorization server and MCP-like protected resource, served on
loopback by ``http.server`` in a thread, for the OAuth tests.

One port serves both roles: the resource at ``/mcp`` and the authorization server under
``as_prefix``. Every request is recorded (``requests``) so tests can check discovery order and
what each request carried. The server checks what a strict server checks: PKCE S256, the
redirect URI, the client's authentication, the ``resource``; it rotates refresh tokens.

Switches in :class:`AuthServerConfig` make it misbehave or modernize one way at a time (the
suite's scenarios, in Python): the RFC 9207 ``iss`` advertised and sent right, wrong, missing or
with a slash added; the metadata's ``issuer`` and ``scopes_supported``; an error answer to the
authorization request; a protected resource naming another authorization server, whose tokens
it then accepts (``AuthServer.token_peers``); DPoP (RFC 9449): proofs checked as a strict server
checks them (:func:`verify_dpop_proof`), tokens bound to the proof's key, nonces asked for at the
token endpoint and at the resource (or asked for again and again), a ``DPoP`` challenge.

The assertion grants: the JWT bearer grant (RFC 7523) with a workload's JWT signed by
``AuthServerConfig.workload_key``'s private half (audience: the issuer; refused with the
conformance suite's wording when expired, for another audience or malformed), and, with
``idp=True``, an identity provider at ``/idp/token`` that exchanges an ID token it issued
(:meth:`AuthServer.id_token`) for an ID-JAG (RFC 8693), which the JWT bearer grant accepts
when its ``client_id`` is the authenticated client's and its ``resource`` the request's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    form: dict[str, str]
    json: Any


@dataclass
class Grant:
    client_id: str
    scopes: tuple[str, ...]
    resource: str | None


@dataclass
class AuthServerConfig:
    """What the fixture server does; every field has the well-behaved default."""

    prm_path: str | None = "/.well-known/oauth-protected-resource/mcp"
    prm_in_challenge: bool = True
    prm_resource: str | None = None  # None: the MCP URL itself
    prm_scopes_supported: list[str] | None = None
    challenge_scope: str | None = None
    as_prefix: str = ""
    metadata_style: str | None = "oauth"  # oauth | openid | openid-appended | None (no document)
    metadata_at_origin: bool = False  # 2025-03-26: oauth metadata at the root despite a prefix
    issuer_override: str | None = None
    code_challenge_methods: list[str] | None = field(default_factory=lambda: ["S256"])
    token_auth_methods: list[str] = field(default_factory=lambda: ["none"])
    registration: bool = True
    registration_auth_method: str | None = None  # what DCR answers; None echoes the request
    cimd_supported: bool = False
    pre_registered: dict[str, str] = field(default_factory=dict)  # client_id -> secret
    jwt_public_keys: dict[str, Any] = field(default_factory=dict)  # client_id -> public key
    access_token_lifetime_s: int = 3600
    issue_refresh_tokens: bool = True
    required_scopes: dict[str, list[str]] = field(default_factory=dict)  # method -> scopes
    token_error_description_echo: bool = False  # echo the sent refresh token (a bad server)
    reject_refresh: bool = False
    withheld_scopes: list[str] = field(default_factory=list)  # never granted, even if asked
    as_scopes_supported: list[str] | None = None  # the AS metadata's scopes_supported
    iss_supported: bool | None = None  # authorization_response_iss_parameter_supported; None: omit
    iss_in_redirect: str = "omit"  # correct | wrong | omit | normalized (the issuer plus "/")
    authorize_error: str | None = None  # answer the authorization request with this error
    authorization_server_url: str | None = None  # the PRM names this AS instead of this server
    dpop: bool = False  # advertise ES256 in dpop_signing_alg_values_supported
    dpop_as_nonce: str | None = None  # the token endpoint wants this nonce in the proof
    dpop_rs_nonce: str | None = None  # the resource wants this nonce in the proof
    dpop_stale_nonces: tuple[str, ...] = ()  # "token", "resource": every nonce refused there
    dpop_challenge: bool = False  # the resource challenges with the DPoP scheme, not Bearer

    workload_key: Any = None  # the public key of workload JWTs (the JWT bearer grant)
    jwt_bearer_refusal: str | None = None  # answer every JWT bearer grant with this error
    idp: bool = False  # serve an identity provider at /idp/token (token exchange)
    idp_client_id: str = "idp-client"  # the client the ID tokens are for
    idp_refusal: tuple[str, str] | None = None  # (error, description) for every exchange
    idp_issued_token_type: str = ID_JAG_TYPE  # what the exchange says it issued
    jag_client_id: str = "jag-client"  # the client id the IdP writes into its ID-JAGs
    idp_padding: int = 0  # bytes of padding in the IdP's answer (a document over budget)


DPOP_ALGORITHMS = ["ES256"]


def jwk_thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 for an EC key: SHA-256 of the required members, sorted, without whitespace."""
    members = {name: jwk[name] for name in ("crv", "kty", "x", "y")}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(hashlib.sha256(canonical).digest()).rstrip(b"=").decode()


def verify_dpop_proof(
    proof: str | None, method: str, url: str, access_token: str | None = None
) -> dict[str, Any]:
    """The claims of a valid DPoP proof for ``method url`` (with ``jkt``, its key's
    thumbprint, added); ``ValueError`` naming what is wrong (RFC 9449 section 4.3)."""
    if not proof or "," in proof:
        raise ValueError("no single DPoP proof")
    header = jwt.get_unverified_header(proof)
    jwk = header.get("jwk")
    if header.get("typ") != "dpop+jwt" or header.get("alg") not in DPOP_ALGORITHMS:
        raise ValueError("typ or alg")
    if not isinstance(jwk, dict) or "d" in jwk:
        raise ValueError("jwk missing or private")
    key = jwt.algorithms.ECAlgorithm.from_jwk(json.dumps(jwk))
    claims: dict[str, Any] = jwt.decode(proof, key, algorithms=DPOP_ALGORITHMS)  # type: ignore[arg-type]
    if claims.get("htm") != method or claims.get("htu") != url.partition("?")[0]:
        raise ValueError("htm or htu")
    if not isinstance(claims.get("jti"), str) or abs(time.time() - claims.get("iat", 0)) > 60:
        raise ValueError("jti or iat")
    if access_token is not None:
        digest = hashlib.sha256(access_token.encode()).digest()
        if claims.get("ath") != base64.urlsafe_b64encode(digest).rstrip(b"=").decode():
            raise ValueError("ath")
    claims["jkt"] = jwk_thumbprint(jwk)
    return claims


class AuthServer:
    """The running server; ``url`` is its origin and ``mcp_url`` the protected resource."""

    def __init__(self, config: AuthServerConfig) -> None:
        self.config = config
        self.requests: list[Recorded] = []
        self.codes: dict[str, tuple[Grant, str, str]] = {}  # code -> grant, challenge, redirect
        self.code_jkt: dict[str, str] = {}  # code -> the dpop_jkt it was asked for with
        self.access_tokens: dict[str, Grant] = {}
        self.refresh_tokens: dict[str, Grant] = {}
        self.used_refresh_tokens: set[str] = set()
        self.clients: dict[str, tuple[str | None, str]] = {}  # id -> secret, auth method
        self.mcp_calls: list[str] = []
        self.token_peers: list[AuthServer] = []
        """Other authorization servers whose access tokens the resource at ``/mcp`` accepts."""
        self.dpop_bound: dict[str, str] = {}  # access or refresh token -> the key's thumbprint
        self.dpop_proofs: list[dict[str, Any]] = []  # the claims of every valid proof seen
        self._nonce_serial = 0
        self.idp_key = ec.generate_private_key(ec.SECP256R1())
        """The identity provider's signing key (ID tokens and ID-JAGs)."""
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -- life cycle ------------------------------------------------------------------------

    def start(self) -> AuthServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"

    @property
    def issuer(self) -> str:
        return self.config.issuer_override or f"{self.url}{self.config.as_prefix}"

    @property
    def idp_issuer(self) -> str:
        return f"{self.url}/idp"

    def id_token(self, *, subject: str = "user@example.com", expires_in: int = 3600) -> str:
        """An ID token the identity provider issued to ``idp_client_id`` for ``subject``."""
        now = int(time.time())
        claims = {
            "iss": self.idp_issuer,
            "sub": subject,
            "aud": self.config.idp_client_id,
            "iat": now,
            "exp": now + expires_in,
        }
        return jwt.encode(claims, self.idp_key, algorithm="ES256")

    def paths(self, method: str | None = None) -> list[str]:
        return [r.path for r in self.requests if method is None or r.method == method]

    def find(self, path_suffix: str) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith(path_suffix)]

    # -- documents -------------------------------------------------------------------------

    def metadata_path(self) -> str | None:
        style = self.config.metadata_style
        prefix = self.config.as_prefix
        if style is None:
            return None
        if self.config.metadata_at_origin:
            return "/.well-known/oauth-authorization-server"
        if style == "oauth":
            return f"/.well-known/oauth-authorization-server{prefix}"
        if style == "openid":
            return f"/.well-known/openid-configuration{prefix}"
        return f"{prefix}/.well-known/openid-configuration"

    def metadata(self) -> dict[str, Any]:
        base = f"{self.url}{self.config.as_prefix}"
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": self.config.token_auth_methods,
        }
        if self.config.registration:
            document["registration_endpoint"] = f"{base}/register"
        if self.config.code_challenge_methods is not None:
            document["code_challenge_methods_supported"] = self.config.code_challenge_methods
        if self.config.cimd_supported:
            document["client_id_metadata_document_supported"] = True
        if self.config.as_scopes_supported is not None:
            document["scopes_supported"] = self.config.as_scopes_supported
        if self.config.iss_supported is not None:
            document["authorization_response_iss_parameter_supported"] = self.config.iss_supported
        if self.config.dpop:
            document["dpop_signing_alg_values_supported"] = DPOP_ALGORITHMS
        return document

    def resource_metadata(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "resource": self.config.prm_resource or self.mcp_url,
            "authorization_servers": [
                self.config.authorization_server_url or f"{self.url}{self.config.as_prefix}"
            ],
        }
        if self.config.prm_scopes_supported is not None:
            document["scopes_supported"] = self.config.prm_scopes_supported
        return document

    def challenge(self, *, error: str | None = None, scope: str | None = None) -> str:
        parts = []
        if error:
            parts.append(f'error="{error}"')
        scope = scope if scope is not None else self.config.challenge_scope
        if scope:
            parts.append(f'scope="{scope}"')
        if self.config.prm_in_challenge and self.config.prm_path:
            parts.append(f'resource_metadata="{self.url}{self.config.prm_path}"')
        scheme = "DPoP" if self.config.dpop_challenge else "Bearer"
        return f"{scheme} " + ", ".join(parts) if parts else scheme

    def callback_params(self, query: dict[str, str], code: str) -> dict[str, str]:
        """What the authorization redirect carries: the code (or the configured error), the
        state, and the ``iss`` the configuration asks for."""
        params = (
            {"error": self.config.authorize_error}
            if self.config.authorize_error
            else {"code": code}
        )
        params["state"] = query["state"]
        iss = {
            "correct": self.issuer,
            "wrong": "https://evil.example.com",
            "normalized": self.issuer + "/",
        }.get(self.config.iss_in_redirect)
        if iss is not None:
            params["iss"] = iss
        return params

    def grant_for(self, authorization: str) -> Grant | None:
        """The grant of a bearer (or DPoP) token issued here or by a peer in ``token_peers``."""
        token = token_of(authorization)
        for server in (self, *self.token_peers):
            grant = server.access_tokens.get(token or "")
            if grant is not None:
                return grant
        return None

    # -- token endpoint --------------------------------------------------------------------

    def authenticate_client(self, request: Recorded) -> str | None:
        """The authenticated client id, or None."""
        auth = request.headers.get("authorization", "")
        if auth.startswith("Basic "):
            decoded = base64.b64decode(auth[6:]).decode()
            client_id, _, secret = decoded.partition(":")
            client_id, secret = unquote(client_id), unquote(secret)
            known = self.clients.get(client_id) or (self.config.pre_registered.get(client_id), "")
            return client_id if known[0] is not None and known[0] == secret else None
        client_id = request.form.get("client_id", "")
        if request.form.get("client_assertion_type"):
            key = self.config.jwt_public_keys.get(client_id)
            try:
                claims = jwt.decode(
                    request.form["client_assertion"],
                    key,
                    algorithms=["ES256", "RS256"],
                    audience=self.issuer,
                )
            except jwt.PyJWTError:
                return None
            return client_id if claims["iss"] == claims["sub"] == client_id else None
        if "client_secret" in request.form:
            known = self.clients.get(client_id) or (self.config.pre_registered.get(client_id), "")
            return client_id if known[0] == request.form["client_secret"] else None
        if client_id in self.clients and self.clients[client_id][0] is None:
            return client_id
        if self.config.pre_registered.get(client_id) == "":  # a pre-registered public client
            return client_id
        if client_id.startswith("https://"):  # a Client ID Metadata Document URL
            return client_id
        return None

    def issue(self, grant: Grant) -> dict[str, Any]:
        access = "at-" + secrets.token_urlsafe(16)
        self.access_tokens[access] = grant
        answer: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.config.access_token_lifetime_s,
        }
        if grant.scopes:
            answer["scope"] = " ".join(grant.scopes)
        if self.config.issue_refresh_tokens:
            refresh = "rt-" + secrets.token_urlsafe(16)
            self.refresh_tokens[refresh] = grant
            answer["refresh_token"] = refresh
        return answer

    # -- DPoP ------------------------------------------------------------------------------

    def nonce_wanted(self, claims: dict[str, Any], expected: str | None, at: str) -> str | None:
        """The nonce to ask for when the proof lacks the ``expected`` one (None: it is fine);
        where nonces go stale (``at`` in ``dpop_stale_nonces``), always a new one."""
        self.dpop_proofs.append({**claims, "at": at})
        if at in self.config.dpop_stale_nonces:
            self._nonce_serial += 1
            return f"stale-{self._nonce_serial}"
        return expected if expected is not None and claims.get("nonce") != expected else None

    def token_response(self, request: Recorded) -> tuple[int, dict[str, Any], dict[str, str]]:
        """The token endpoint with DPoP: a proof is checked (and its nonce), the tokens issued
        for it are bound to its key, and a bound refresh token needs a proof by that key."""
        proof = request.headers.get("dpop")
        jkt = None
        if proof is not None:
            url = f"{self.url}{self.config.as_prefix}/token"
            try:
                claims = verify_dpop_proof(proof, "POST", url)
            except (ValueError, jwt.PyJWTError) as exc:
                return 400, {"error": "invalid_dpop_proof", "error_description": str(exc)}, {}
            nonce = self.nonce_wanted(claims, self.config.dpop_as_nonce, "token")
            if nonce is not None:
                return 400, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": nonce}
            jkt = claims["jkt"]
        code_jkt = self.code_jkt.pop(request.form.get("code", ""), None)
        if code_jkt is not None and code_jkt != jkt:  # RFC 9449 section 10.1
            return 400, {"error": "invalid_dpop_proof", "error_description": "not dpop_jkt"}, {}
        bound = self.dpop_bound.get(request.form.get("refresh_token", ""))
        if bound is not None and bound != jkt:
            return 400, {"error": "invalid_grant", "error_description": "DPoP key mismatch"}, {}
        status, body = self.token(request)
        if status == 200 and jkt is not None:
            body["token_type"] = "DPoP"
            for name in ("access_token", "refresh_token"):
                if name in body:
                    self.dpop_bound[body[name]] = jkt
        return status, body, {}

    def resource_refusal(
        self, method: str, url: str, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], Any] | None:
        """The resource's DPoP checks of one request (None: go on with the token's checks): a
        bound token must come as ``DPoP`` with a valid proof by its key, with the nonce."""
        authorization = headers.get("authorization") or ""
        token = token_of(authorization)
        bound = self.dpop_bound.get(token or "")
        for peer in self.token_peers:
            bound = bound or peer.dpop_bound.get(token or "")
        if token is None or (bound is None and not authorization.startswith("DPoP ")):
            return None
        invalid = (401, {"WWW-Authenticate": self.challenge(error="invalid_token")}, {})
        if bound is None or not authorization.startswith("DPoP "):
            return invalid
        try:
            claims = verify_dpop_proof(headers.get("dpop"), method, url, token)
        except (ValueError, jwt.PyJWTError):
            return invalid
        if claims["jkt"] != bound:
            return invalid
        nonce = self.nonce_wanted(claims, self.config.dpop_rs_nonce, "resource")
        if nonce is not None:
            challenge = 'DPoP error="use_dpop_nonce", algs="ES256"'
            return (
                401,
                {"WWW-Authenticate": challenge, "DPoP-Nonce": nonce},
                {"error": "use_dpop_nonce"},
            )
        return None

    def token(self, request: Recorded) -> tuple[int, dict[str, Any]]:
        form = request.form
        client_id = self.authenticate_client(request)
        anonymous = "client_id" not in form and "authorization" not in request.headers
        if client_id is None and form.get("grant_type") == JWT_BEARER and anonymous:
            # RFC 7523 section 3.1: the assertion is the credential; client auth is optional.
            return self.jwt_bearer(form, None)
        if client_id is None:
            return 401, {"error": "invalid_client"}
        grant_type = form.get("grant_type")
        if grant_type == JWT_BEARER:
            return self.jwt_bearer(form, client_id)
        if grant_type == "authorization_code":
            entry = self.codes.pop(form.get("code", ""), None)
            if entry is None:
                return 400, {"error": "invalid_grant"}
            grant, challenge, redirect_uri = entry
            verifier = form.get("code_verifier", "")
            computed = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
                .rstrip(b"=")
                .decode()
            )
            if computed != challenge or redirect_uri != form.get("redirect_uri"):
                return 400, {"error": "invalid_grant", "error_description": "PKCE or redirect"}
            if grant.client_id != client_id or grant.resource != form.get("resource"):
                return 400, {"error": "invalid_grant", "error_description": "client or resource"}
            return 200, self.issue(grant)
        if grant_type == "refresh_token":
            token = form.get("refresh_token", "")
            if self.config.reject_refresh or token in self.used_refresh_tokens:
                description = (
                    f"refresh token {token} is not valid"
                    if (self.config.token_error_description_echo)
                    else "refresh token is not valid"
                )
                return 400, {"error": "invalid_grant", "error_description": description}
            grant = self.refresh_tokens.pop(token, None)
            if grant is None:
                return 400, {"error": "invalid_grant"}
            self.used_refresh_tokens.add(token)
            return 200, self.issue(grant)
        if grant_type == "client_credentials":
            scopes = tuple(form.get("scope", "").split())
            return 200, self.issue(Grant(client_id, scopes, form.get("resource")))
        return 400, {"error": "unsupported_grant_type"}

    def jwt_bearer(self, form: dict[str, str], client_id: str | None) -> tuple[int, dict[str, Any]]:
        """The JWT bearer grant: a workload's JWT, or an ID-JAG of this server's IdP."""
        if self.config.jwt_bearer_refusal:
            return 400, {"error": self.config.jwt_bearer_refusal, "error_description": "no"}
        assertion = form.get("assertion", "")
        try:
            jag = jwt.get_unverified_header(assertion).get("typ") == "oauth-id-jag+jwt"
            key = self.idp_key.public_key() if jag else self.config.workload_key
            claims = jwt.decode(assertion, key, algorithms=["ES256"], audience=self.issuer)
        except jwt.ExpiredSignatureError:
            return 400, {"error": "invalid_grant", "error_description": "JWT assertion is expired"}
        except jwt.InvalidAudienceError:
            description = "JWT assertion audience is invalid"
            return 400, {"error": "invalid_grant", "error_description": description}
        except (jwt.PyJWTError, ValueError, TypeError) as exc:
            description = f"JWT assertion verification failed: {exc}"
            return 400, {"error": "invalid_grant", "error_description": description}
        if jag and (
            claims.get("client_id") != client_id or claims.get("resource") != form.get("resource")
        ):
            description = "ID-JAG client_id or resource does not match"
            return 400, {"error": "invalid_grant", "error_description": description}
        scopes = tuple(form.get("scope", "").split())
        return 200, self.issue(Grant(client_id or claims["sub"], scopes, form.get("resource")))

    def token_exchange(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """The identity provider's token exchange: an ID token it issued for an ID-JAG."""
        if self.config.idp_refusal:
            error, description = self.config.idp_refusal
            return 400, {"error": error, "error_description": description}
        expected = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG_TYPE,
            "subject_token_type": ID_TOKEN_TYPE,
            "client_id": self.config.idp_client_id,
        }
        wrong = [name for name, value in expected.items() if form.get(name) != value]
        wrong += [name for name in ("audience", "resource") if not form.get(name)]
        if wrong:
            return 400, {"error": "invalid_request", "error_description": " ".join(wrong)}
        try:
            claims = jwt.decode(
                form.get("subject_token", ""),
                self.idp_key.public_key(),
                algorithms=["ES256"],
                audience=self.config.idp_client_id,
                issuer=self.idp_issuer,
            )
        except jwt.ExpiredSignatureError:
            return 400, {"error": "invalid_grant", "error_description": "ID token expired"}
        except jwt.PyJWTError:
            return 400, {"error": "invalid_grant", "error_description": "Invalid ID token"}
        now = int(time.time())
        jag_claims = {
            "iss": self.idp_issuer,
            "sub": claims["sub"],
            "aud": form["audience"],
            "resource": form["resource"],
            "client_id": self.config.jag_client_id,
            "jti": secrets.token_urlsafe(8),
            "iat": now,
            "exp": now + 300,
        }
        if form.get("scope"):
            jag_claims["scope"] = form["scope"]
        jag = jwt.encode(
            jag_claims, self.idp_key, algorithm="ES256", headers={"typ": "oauth-id-jag+jwt"}
        )
        return 200, {
            "access_token": jag,
            "issued_token_type": self.config.idp_issued_token_type,
            "token_type": "N_A",
            "expires_in": 300,
            **({"padding": "x" * self.config.idp_padding} if self.config.idp_padding else {}),
        }


class _Handler(BaseHTTPRequestHandler):
    app: AuthServer

    def log_message(self, format: str, *args: object) -> None:
        return

    def _record(self) -> Recorded:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        form: dict[str, str] = {}
        body: Any = None
        content_type = self.headers.get("Content-Type", "")
        if "x-www-form-urlencoded" in content_type:
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        elif raw:
            body = json.loads(raw)
        recorded = Recorded(
            method=self.command,
            path=split.path,
            query={k: v[0] for k, v in parse_qs(split.query).items()},
            headers={k.lower(): v for k, v in self.headers.items()},
            form=form,
            json=body,
        )
        with self.app._lock:
            self.app.requests.append(recorded)
        return recorded

    def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        request = self._record()
        app, config = self.app, self.app.config
        if config.prm_path and request.path == config.prm_path:
            self._send(200, app.resource_metadata())
        elif request.path == app.metadata_path():
            self._send(200, app.metadata())
        elif request.path == f"{config.as_prefix}/authorize" or (
            config.metadata_style is None and request.path == "/authorize"
        ):
            self._authorize(request)
        else:
            self._send(404, {"error": "not_found"})

    def _authorize(self, request: Recorded) -> None:
        query = request.query
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            self._send(400, {"error": "invalid_request"})
            return
        code = "code-" + secrets.token_urlsafe(8)
        withheld = self.app.config.withheld_scopes
        grant = Grant(
            client_id=query["client_id"],
            scopes=tuple(s for s in query.get("scope", "").split() if s not in withheld),
            resource=query.get("resource"),
        )
        self.app.codes[code] = (grant, query["code_challenge"], query["redirect_uri"])
        if query.get("dpop_jkt"):
            self.app.code_jkt[code] = query["dpop_jkt"]
        target = query["redirect_uri"] + "?" + urlencode(self.app.callback_params(query, code))
        self._send(302, headers={"Location": target})

    def do_POST(self) -> None:
        request = self._record()
        app, config = self.app, self.app.config
        prefix = "" if config.metadata_style is None else config.as_prefix
        if request.path == f"{prefix}/token":
            status, body, headers = app.token_response(request)
            self._send(status, body, headers)
        elif request.path == "/idp/token" and config.idp:
            self._send(*app.token_exchange(request.form))
        elif request.path == f"{prefix}/register" and config.registration:
            self._register(request)
        elif request.path == "/mcp":
            self._mcp(request)
        else:
            self._send(404, {"error": "not_found"})

    def _register(self, request: Recorded) -> None:
        body = request.json or {}
        method = self.app.config.registration_auth_method or body.get(
            "token_endpoint_auth_method", "client_secret_basic"
        )
        client_id = "dcr-" + secrets.token_urlsafe(6)
        secret = None if method == "none" else "cs-" + secrets.token_urlsafe(12)
        self.app.clients[client_id] = (secret, method)
        answer = {
            "client_id": client_id,
            "token_endpoint_auth_method": method,
            "redirect_uris": body.get("redirect_uris", []),
        }
        if secret:
            answer["client_secret"] = secret
        self._send(201, answer)

    def _mcp(self, request: Recorded) -> None:
        app = self.app
        message = request.json or {}
        method = message.get("method", "")
        refusal = app.resource_refusal("POST", app.mcp_url, request.headers)
        if refusal is not None:
            status, headers, payload = refusal
            self._send(status, payload, headers)
            return
        grant = app.grant_for(request.headers.get("authorization", ""))
        if grant is None:
            self._send(401, {"error": "invalid_token"}, {"WWW-Authenticate": app.challenge()})
            return
        required = app.config.required_scopes.get(method, [])
        if not set(required) <= set(grant.scopes):
            challenge = app.challenge(error="insufficient_scope", scope=" ".join(required))
            self._send(403, {"error": "insufficient_scope"}, {"WWW-Authenticate": challenge})
            return
        app.mcp_calls.append(method)
        self._send(200, {"jsonrpc": "2.0", "id": message.get("id"), "result": {"ok": True}})


def token_of(authorization: str) -> str | None:
    """The token of a ``Bearer`` or ``DPoP`` Authorization value."""
    scheme, _, token = authorization.partition(" ")
    return token if scheme in ("Bearer", "DPoP") and token else None


def wait_until(predicate: Any, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.01)
