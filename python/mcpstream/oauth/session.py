"""The transport's OAuth hook: one :class:`McpOAuthSession` (or :class:`AsyncMcpOAuthSession`)
per server, one request-scoped object per JSON-RPC message sent.

A transport does, for each HTTP request it sends:

    auth = session.request_auth(method="tools/list")          # replay_allowed: not tools/call
    while True:
        header = auth.authorization_header()                   # None: send no Authorization
        response = send(headers={"Authorization": header} if header else {})
        if response.status_code in (401, 403) and auth.should_retry(
            response.status_code, response.headers, body
        ):
            continue                                           # credentials changed: resend
        break                                                  # go on with normal status mapping

What the session does behind those two calls:

- Credentials are bound to their authorization server (``issuer``): a 401 whose challenge names
  the protected resource metadata re-runs discovery, and when the resource now names another
  authorization server, the old refresh token and client id are not sent there: the session
  registers with the new one and logs in again (a configured client id bound to the old one is
  an :class:`McpOAuthRegistrationError`).

- Before sending: load the stored record; refresh it when it expires within a minute; with no
  usable record, send nothing when it can authorize by itself (a machine client, or a redirect
  handler for interactive logins), else raise :class:`McpOAuthAuthRequiredError` naming the
  login command.
- 401: refresh the token (adopting another process's rotation when the refresh token was
  already used), else log in again when it can, else clear the record and raise
  :class:`McpOAuthReLoginRequired`. Then the request is replayed once, unless it is a
  ``tools/call`` (it may have side effects; the reference's rule): the caller gets an
  :class:`McpOAuthAuthRequiredError` saying the credentials were renewed and to retry. A second
  401 after the replay clears the record and asks for a new login.
- DPoP (RFC 9449), when the settings turn it on or the server asks for it (a ``DPoP``
  challenge, or ES256 in the authorization server's ``dpop_signing_alg_values_supported``):
  each login makes a key pair, proves possession of it at the token endpoint and stores it with
  the tokens; the header is then ``DPoP <token>``, and the transport adds a fresh proof to each
  HTTP request (:meth:`McpOAuthSession.dpop_proof`). A 401 ``use_dpop_nonce`` is answered by
  one replay with the server's nonce (even of a ``tools/call``: the server refused it unread);
  a second one raises :class:`McpOAuthDPoPError`.
- 403 ``insufficient_scope``: step up, authorizing again for the union of the scopes asked for
  before, the granted and the challenged ones, and replay (the server refused the request
  before running it); at most ``max_step_up_attempts`` times per request, then
  :class:`McpOAuthInsufficientScopeError`. Without a way to authorize, that error is raised at
  once, naming the scopes to log in with.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

import httpx

from .._text import sanitize
from ..errors import (
    McpOAuthAuthRequiredError,
    McpOAuthDiscoveryError,
    McpOAuthDPoPError,
    McpOAuthError,
    McpOAuthInsufficientScopeError,
    McpOAuthRegistrationError,
    McpOAuthReLoginRequired,
    McpOAuthTokenExchangeError,
    McpOAuthTokenStoreError,
)
from ..oauth_store import (
    McpOAuthClientRegistration,
    McpOAuthTokenRecord,
    McpOAuthTokenStore,
    default_oauth_token_store,
)
from ._flow import (
    AsyncMcpOAuthRedirectHandler,
    Flow,
    McpOAuthRedirectHandler,
    run_async,
    run_sync,
)
from .authorize import authorization_code_flow, client_credentials_flow
from .challenge import parse_www_authenticate, parse_www_authenticate_bearer_challenge, split_scopes
from .discovery import McpOAuthDiscovery, discovery_flow
from .dpop import DPoPKey, DPoPNonces, DPoPProver, is_nonce_challenge, server_offers_dpop
from .metadata import McpAuthorizationServerMetadata
from .scopes import merge_scopes, resolve_requested_scopes, with_offline_access
from .settings import McpOAuthClientSettings
from .tokens import is_token_expired, refresh_flow
from .urls import canonical_resource_uri, safe_url

__all__ = [
    "AsyncMcpOAuthRequestAuth",
    "AsyncMcpOAuthSession",
    "McpOAuthRequestAuth",
    "McpOAuthSession",
    "default_server_id",
    "login_command",
]

T = TypeVar("T")
ClientT = TypeVar("ClientT", httpx.Client, httpx.AsyncClient)
HandlerT = TypeVar("HandlerT", bound=AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler)
_log = logging.getLogger("mcpstream.oauth")
DEFAULT_MAX_STEP_UP_ATTEMPTS = 2


def default_server_id(server_url: str) -> str:
    """The store key ``mcpstream auth login URL`` uses: the server's canonical URI without its
    query. Server ids appear in error messages and in ``mcpstream auth status``, and a query
    string may carry a secret, so it is never part of an id."""
    return canonical_resource_uri(server_url).partition("?")[0]


def login_command(server_id: str, server_url: str | None, scopes: tuple[str, ...] = ()) -> str:
    """The ``mcpstream auth login`` command that stores credentials under ``server_id``, to
    paste into a POSIX shell: every value is quoted (``shlex.quote``) after its control
    characters are escaped, since scopes and URLs come from the server."""

    def arg(value: str) -> str:
        return shlex.quote(sanitize(value, 500))

    if not server_url:
        return f"mcpstream auth login <server-url> --server-id {arg(server_id)}"
    command = f"mcpstream auth login {arg(safe_url(server_url))}"
    try:
        if default_server_id(server_url) != server_id:
            command += f" --server-id {arg(server_id)}"
    except ValueError:
        command += f" --server-id {arg(server_id)}"
    for scope in scopes:
        command += f" --scope {arg(scope)}"
    return command


@dataclass
class _RequestState:
    method: str
    replay_allowed: bool
    sent_record: McpOAuthTokenRecord | None = None
    replayed: bool = False
    step_ups: int = 0
    nonce_replayed: bool = False


def _body_error(body: bytes | None) -> str | None:
    if not body:
        return None
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    error = payload.get("error") if isinstance(payload, dict) else None
    return error.strip() if isinstance(error, str) and error.strip() else None


class _SessionCore:
    """The decisions, written once as flows; the sync and async sessions drive them."""

    def __init__(
        self,
        *,
        server_id: str,
        server_url: str,
        settings: McpOAuthClientSettings,
        store: McpOAuthTokenStore,
        redirect_uri: str | None,
        timeout_s: float,
        max_step_up_attempts: int,
        protocol_version: str | None,
    ) -> None:
        self.server_id = server_id
        self.server_url = server_url
        self.settings = settings
        self.store = store
        self.redirect_uri = redirect_uri
        self.timeout_s = timeout_s
        self.max_step_up_attempts = max_step_up_attempts
        self.protocol_version = protocol_version
        self.discovery: McpOAuthDiscovery | None = None
        self.registration: McpOAuthClientRegistration | None = None
        self.requested_scopes: tuple[str, ...] = ()
        # DPoP: the latest nonce of the authorization server and of the MCP server (apart),
        # whether the MCP server challenged with the DPoP scheme, and the key of each token
        # handed out (a transport's proof for a header names the token, not the key).
        self.as_nonces = DPoPNonces()
        self.rs_nonces = DPoPNonces()
        self.dpop_challenged = False
        self._keys: dict[str, DPoPKey] = {}
        self._presented: dict[str, DPoPKey] = {}
        self._presented_lock = threading.Lock()  # the DELETE's header comes from any thread

    # -- helpers ---------------------------------------------------------------------------

    @property
    def can_authorize(self) -> bool:
        return self.settings.is_machine_client or self.redirect_uri is not None

    def hint_url(self) -> str | None:
        if self.discovery is not None:
            return safe_url(self.discovery.metadata.issuer)
        if self.settings.authorization_server_url:
            return safe_url(self.settings.authorization_server_url)
        return None

    def login_hint(self, scopes: tuple[str, ...] = ()) -> str:
        return f"Run '{login_command(self.server_id, self.server_url, scopes)}'"

    def _error(self, cls: type[McpOAuthError], message: str) -> McpOAuthError:
        return cls(message, server_id=self.server_id, authorization_server_url=self.hint_url())

    def load(self, method: str) -> McpOAuthTokenRecord | None:
        try:
            return self.store.load(self.server_id)
        except McpOAuthTokenStoreError as exc:
            raise self._error(
                McpOAuthReLoginRequired,
                f"failed to read stored OAuth credentials before HTTP MCP '{method}' ({exc}). "
                f"{self.login_hint()} again.",
            ) from exc

    def load_quietly(self) -> McpOAuthTokenRecord | None:
        try:
            return self.store.load(self.server_id)
        except McpOAuthTokenStoreError:
            return None

    def forget(self) -> None:
        try:
            self.store.delete(self.server_id)
        except McpOAuthTokenStoreError:
            return

    def save(self, record: McpOAuthTokenRecord) -> None:
        self.store.save(self.server_id, record)

    # -- DPoP ------------------------------------------------------------------------------

    def _key(self, pem: str) -> DPoPKey:
        """The key stored as ``pem`` (parsed once); ``ValueError`` when it cannot be read."""
        key = self._keys.get(pem)
        if key is None:
            key = self._keys[pem] = DPoPKey.from_pem(pem)
        return key

    def login_prover(self, discovery: McpOAuthDiscovery) -> DPoPProver | None:
        """A new key for a login, when it uses DPoP (see the module docstring)."""
        wanted = self.settings.dpop
        if wanted is None:
            wanted = self.dpop_challenged or server_offers_dpop(discovery.metadata.raw)
        return DPoPProver(DPoPKey.generate(), self.as_nonces) if wanted else None

    def refresh_prover(self, record: McpOAuthTokenRecord) -> DPoPProver | None:
        """The stored key of a DPoP-bound ``record`` (its refresh token is bound to it)."""
        if not record.dpop_key:
            return None
        try:
            return DPoPProver(self._key(record.dpop_key), self.as_nonces)
        except ValueError as exc:
            raise McpOAuthTokenStoreError(
                f"the stored credentials of server {self.server_id!r} hold an unusable DPoP "
                f"key ({exc})",
                server_id=self.server_id,
            ) from None

    def present(self, record: McpOAuthTokenRecord) -> str:
        """The ``Authorization`` value of ``record``: ``DPoP <token>`` for a bound token (its
        key is then remembered for the proofs), else ``Bearer <token>``. ``ValueError`` when
        the stored key cannot be read."""
        if record.token_type != "DPoP" or not record.dpop_key:
            return f"Bearer {record.access_token}"
        key = self._key(record.dpop_key)
        with self._presented_lock:
            self._presented[record.access_token] = key
            while len(self._presented) > 8:  # the tokens of a few renewals are enough
                self._presented.pop(next(iter(self._presented)))
        return f"DPoP {record.access_token}"

    def dpop_proof(self, method: str, url: str, authorization: str) -> str | None:
        """The proof for a request carrying ``authorization`` (None unless it is a DPoP one)."""
        scheme, _, token = authorization.partition(" ")
        key = self._presented.get(token) if scheme == "DPoP" else None
        if key is None:
            return None
        return key.proof(method, url, access_token=token, nonce=self.rs_nonces.get(url))

    # -- flows -----------------------------------------------------------------------------

    def discover(self, www_authenticate: str | None) -> Flow[McpOAuthDiscovery]:
        challenge = parse_www_authenticate_bearer_challenge(www_authenticate)
        if self.discovery is not None and not challenge.get("resource_metadata"):
            return self.discovery
        discovery = yield from discovery_flow(
            server_id=self.server_id,
            resource_server_url=self.server_url,
            www_authenticate=www_authenticate,
            authorization_server_url=self.settings.authorization_server_url,
            timeout_s=self.timeout_s,
            protocol_version=self.protocol_version,
        )
        self.discovery = discovery
        return discovery

    def _known_registrations(self) -> list[McpOAuthClientRegistration]:
        """This session's registration and the stored one (a registration saved before issuers
        were recorded belongs to its record's issuer)."""
        known = [self.registration] if self.registration is not None else []
        stored = self.load_quietly()
        registration = stored.client_registration if stored is not None else None
        if registration is not None:
            if registration.issuer is None and stored is not None and stored.issuer:
                registration = replace(registration, issuer=stored.issuer)
            known.append(registration)
        return known

    def _reusable_registration(
        self, discovery: McpOAuthDiscovery
    ) -> McpOAuthClientRegistration | None:
        """A dynamic registration made with this very authorization server, for this redirect
        URI; ``None`` means register again (the protected resource may have moved to another
        authorization server: a client id is never shown to a server that did not issue it)."""
        if self.settings.client_id:
            self._check_pre_registered_issuer(discovery)
            return None
        issuer = discovery.metadata.issuer
        for registration in self._known_registrations():
            if (
                registration.method == "dynamic"
                and registration.is_bound_to(issuer)
                and self.redirect_uri in registration.redirect_uris
            ):
                return registration
        return None

    def _check_pre_registered_issuer(self, discovery: McpOAuthDiscovery) -> None:
        """A configured client id was registered with one authorization server: when the
        protected resource now names another, say so rather than show it the client id."""
        issuer = discovery.metadata.issuer
        for registration in self._known_registrations():
            if (
                registration.method == "pre_registered"
                and registration.client_id == self.settings.client_id
                and registration.issuer is not None
                and not registration.is_bound_to(issuer)
            ):
                raise McpOAuthRegistrationError(
                    f"the configured client id was used with authorization server "
                    f"{safe_url(registration.issuer)}, but the server now names "
                    f"{safe_url(issuer)}; configure a client registered there (or run "
                    f"'mcpstream auth logout' and log in again if the same client id is valid "
                    "at both)",
                    server_id=self.server_id,
                    authorization_server_url=safe_url(issuer),
                )

    def login_flow(
        self, www_authenticate: str | None, scopes: tuple[str, ...] | None = None
    ) -> Flow[McpOAuthTokenRecord]:
        discovery = yield from self.discover(www_authenticate)
        machine = self.settings.is_machine_client
        registration = self._reusable_registration(discovery)
        if any(scheme == "dpop" for scheme, _ in parse_www_authenticate(www_authenticate)):
            self.dpop_challenged = True
        dpop = self.login_prover(discovery)
        if scopes is None:
            challenge = parse_www_authenticate_bearer_challenge(www_authenticate)
            scopes = resolve_requested_scopes(
                configured_scopes=self.settings.scopes,
                challenge_scope=challenge.get("scope"),
                metadata_scopes_supported=discovery.scopes_supported,
                existing_granted_scopes=None,
                purpose="client_credentials" if machine else "login",
            )
        if not machine:
            scopes = with_offline_access(
                scopes,
                authorization_server_scopes=discovery.metadata.scopes_supported,
                configured_scopes=self.settings.scopes,
            )
        if machine:
            record = yield from client_credentials_flow(
                server_id=self.server_id,
                server_url=self.server_url,
                discovery=discovery,
                settings=self.settings,
                scopes=scopes,
                timeout_s=self.timeout_s,
                dpop=dpop,
            )
        else:
            if self.redirect_uri is None:
                raise self._error(
                    McpOAuthAuthRequiredError, f"OAuth login is required. {self.login_hint()}."
                )
            record = yield from authorization_code_flow(
                server_id=self.server_id,
                server_url=self.server_url,
                discovery=discovery,
                settings=self.settings,
                redirect_uri=self.redirect_uri,
                scopes=scopes,
                timeout_s=self.timeout_s,
                registration=registration,
                dpop=dpop,
            )
            self.registration = record.client_registration
        self.requested_scopes = scopes
        self.save(record)
        _log.info(
            "OAuth: authorized server %s (scopes: %s)",
            self.server_id,
            " ".join(record.granted_scopes) or "none",
        )
        return record

    def _metadata_for_refresh(
        self, record: McpOAuthTokenRecord, www_authenticate: str | None
    ) -> Flow[McpAuthorizationServerMetadata]:
        if parse_www_authenticate_bearer_challenge(www_authenticate).get("resource_metadata"):
            # A 401 naming the metadata: look again, the resource may have moved to another
            # authorization server (then the refresh token is not refreshed there, see below).
            discovery = yield from self.discover(www_authenticate)
            return discovery.metadata
        if self.discovery is not None:
            return self.discovery.metadata
        if record.token_endpoint and record.issuer:
            return McpAuthorizationServerMetadata(
                issuer=record.issuer, token_endpoint=record.token_endpoint
            )
        discovery = yield from self.discover(www_authenticate)
        return discovery.metadata

    def refresh_flow(
        self, record: McpOAuthTokenRecord, www_authenticate: str | None
    ) -> Flow[McpOAuthTokenRecord]:
        metadata = yield from self._metadata_for_refresh(record, www_authenticate)
        registration = record.client_registration
        if registration is None and self.settings.client_id:
            registration = McpOAuthClientRegistration(
                client_id=self.settings.client_id,
                client_secret=self.settings.client_secret,
                token_endpoint_auth_method=self.settings.token_endpoint_auth_method or "none",
            )
        if registration is None:
            raise McpOAuthTokenExchangeError(
                "cannot refresh: the stored credentials name no client",
                server_id=self.server_id,
                authorization_server_url=safe_url(metadata.issuer),
            )
        foreign = next(
            (i for i in (record.issuer, registration.issuer) if i and i != metadata.issuer), None
        )
        if foreign is not None:
            # Credentials are bound to their issuer: neither the refresh token nor the client
            # id goes to another authorization server; the caller logs in there instead.
            raise McpOAuthTokenExchangeError(
                f"cannot refresh: the stored credentials were issued by {safe_url(foreign)}, "
                f"and the server now names authorization server {safe_url(metadata.issuer)}",
                server_id=self.server_id,
                authorization_server_url=safe_url(metadata.issuer),
            )
        try:
            refreshed = yield from refresh_flow(
                server_id=self.server_id,
                metadata=metadata,
                registration=registration,
                refresh_token=record.refresh_token or "",
                resource=record.resource or canonical_resource_uri(self.server_url),
                requested_scopes=resolve_requested_scopes(
                    configured_scopes=self.settings.scopes,
                    challenge_scope=None,
                    metadata_scopes_supported=None,
                    existing_granted_scopes=record.granted_scopes,
                    purpose="refresh",
                ),
                timeout_s=self.timeout_s,
                previous=record,
                private_key_pem=self.settings.private_key_pem,
                signing_algorithm=self.settings.signing_algorithm,
                dpop=self.refresh_prover(record),
            )
        except McpOAuthTokenExchangeError:
            # Another process may have used (and rotated) the same refresh token first.
            current = self.load_quietly()
            if (
                current is not None
                and current.access_token != record.access_token
                and not is_token_expired(current)
            ):
                _log.debug("OAuth: adopted credentials refreshed by another process")
                return current
            raise
        self.save(refreshed)
        _log.debug("OAuth: refreshed the access token of server %s", self.server_id)
        return refreshed

    def header_flow(self, state: _RequestState) -> Flow[str | None]:
        record = self.load(state.method)
        if record is not None and is_token_expired(record):
            record = yield from self._renew_expired(state, record)
        state.sent_record = record
        if record is None:
            if self.can_authorize:
                return None
            raise self._error(
                McpOAuthAuthRequiredError,
                f"OAuth login is required before HTTP MCP '{state.method}'. {self.login_hint()}.",
            )
        try:
            return self.present(record)
        except ValueError as exc:
            self.forget()
            raise self._error(
                McpOAuthReLoginRequired,
                f"stored OAuth credentials hold an unusable DPoP key ({exc}). "
                f"{self.login_hint()} again.",
            ) from None

    def _renew_expired(
        self, state: _RequestState, record: McpOAuthTokenRecord
    ) -> Flow[McpOAuthTokenRecord | None]:
        if record.refresh_token:
            failure = (
                f"stored OAuth credentials could not be refreshed before HTTP MCP '{state.method}'."
            )
            return (yield from self._refresh_or_forget(record, None, failure))
        if self.settings.is_machine_client:
            return (yield from self.login_flow(None))
        self.forget()
        if self.can_authorize:
            return None
        raise self._error(
            McpOAuthReLoginRequired,
            f"stored OAuth credentials expired before HTTP MCP '{state.method}' and cannot be "
            f"refreshed. {self.login_hint()} again.",
        )

    def challenge_flow(
        self,
        state: _RequestState,
        status_code: int,
        headers: Mapping[str, str],
        body: bytes | None,
    ) -> Flow[bool]:
        lowered = {key.lower(): value for key, value in headers.items()}
        www = lowered.get("www-authenticate")
        self.rs_nonces.learn(self.server_url, lowered)  # a server may hand one out on any answer
        if status_code == 401 and is_nonce_challenge(401, lowered, _body_error(body)):
            return self._nonce_replay(state)
        params = parse_www_authenticate_bearer_challenge(www)
        signal = (params.get("error") or "").strip() or _body_error(body)
        if status_code == 403 and signal == "insufficient_scope":
            return (yield from self._step_up(state, www, params.get("scope")))
        if status_code != 401:
            return False
        requested = split_scopes(params.get("scope"))
        scope_hint = f" Server requested scopes: {', '.join(requested)}." if requested else ""
        if state.sent_record is None:
            if not self.can_authorize:
                raise self._error(
                    McpOAuthAuthRequiredError,
                    f"OAuth login is required before HTTP MCP '{state.method}'.{scope_hint} "
                    f"{self.login_hint()}.",
                )
        elif state.replayed:
            self.forget()
            raise self._error(
                McpOAuthReLoginRequired,
                f"HTTP MCP '{state.method}' still returned 401 after renewing OAuth credentials "
                f"and retrying.{scope_hint} {self.login_hint()} again.",
            )
        else:
            renewed = None
            if state.sent_record.refresh_token:
                failure = f"stored OAuth credentials could not be refreshed.{scope_hint}"
                renewed = yield from self._refresh_or_forget(state.sent_record, www, failure)
            if renewed is not None:
                return self._replay_or_raise(state, scope_hint)
            if not self.can_authorize:
                self.forget()
                raise self._error(
                    McpOAuthReLoginRequired,
                    f"HTTP MCP '{state.method}' returned 401 and stored OAuth credentials cannot "
                    f"be refreshed.{scope_hint} {self.login_hint()} again.",
                )
        yield from self.login_flow(www)
        return self._replay_or_raise(state, scope_hint)

    def _nonce_replay(self, state: _RequestState) -> bool:
        """A 401 ``use_dpop_nonce`` (its nonce is kept): send the request once more."""
        if state.nonce_replayed:
            raise McpOAuthDPoPError(
                f"HTTP MCP '{state.method}' was refused with use_dpop_nonce again after the retry "
                "with the server's DPoP nonce",
                server_id=self.server_id,
                authorization_server_url=self.hint_url(),
            )
        state.nonce_replayed = True
        _log.debug("OAuth: the MCP server asked for a DPoP nonce; sending the request again")
        return True

    def _refresh_or_forget(
        self, record: McpOAuthTokenRecord, www_authenticate: str | None, failure: str
    ) -> Flow[McpOAuthTokenRecord | None]:
        """Refresh the token of ``record``. When that fails the record is cleared, and ``None``
        returned if the session can log in again, else :class:`McpOAuthReLoginRequired` raised
        (``failure`` and the login hint)."""
        try:
            return (yield from self.refresh_flow(record, www_authenticate))
        except (
            McpOAuthDiscoveryError,
            McpOAuthTokenExchangeError,
            McpOAuthTokenStoreError,
        ) as exc:
            self.forget()
            if self.can_authorize:
                return None
            raise self._error(
                McpOAuthReLoginRequired, f"{failure} {self.login_hint()} again."
            ) from exc

    def _replay_or_raise(self, state: _RequestState, scope_hint: str) -> bool:
        state.replayed = True
        if state.replay_allowed:
            return True
        raise self._error(
            McpOAuthAuthRequiredError,
            f"HTTP MCP '{state.method}' returned 401.{scope_hint} OAuth credentials were renewed, "
            "but the request was not retried automatically because it may have side effects. "
            "Retry it.",
        )

    def _step_up(
        self, state: _RequestState, www: str | None, challenge_scope: str | None
    ) -> Flow[bool]:
        required = split_scopes(challenge_scope)
        current = state.sent_record or self.load_quietly()
        # The union of what was asked for before, what was granted and what is challenged now
        # (2026-07-28): a server that challenges per operation must not cost earlier scopes.
        scopes = resolve_requested_scopes(
            configured_scopes=self.settings.scopes,
            challenge_scope=challenge_scope,
            metadata_scopes_supported=None,
            existing_granted_scopes=merge_scopes(
                self.requested_scopes, current.granted_scopes if current else None
            ),
            purpose="step_up",
        )
        if not self.can_authorize:
            raise McpOAuthInsufficientScopeError(
                f"HTTP MCP '{state.method}' failed with insufficient_scope"
                + (f" (needs: {' '.join(required)})" if required else "")
                + f". {self.login_hint(scopes)}.",
                server_id=self.server_id,
                authorization_server_url=self.hint_url(),
                required_scopes=required,
            )
        if state.step_ups >= self.max_step_up_attempts:
            raise McpOAuthInsufficientScopeError(
                f"HTTP MCP '{state.method}' still failed with insufficient_scope after "
                f"{state.step_ups} step-up authorization(s); giving up",
                server_id=self.server_id,
                authorization_server_url=self.hint_url(),
                required_scopes=required,
            )
        state.step_ups += 1
        _log.info("OAuth: stepping up to scopes %s", " ".join(scopes) or "none")
        yield from self.login_flow(www, scopes)
        return True


class _SessionBase(Generic[ClientT, HandlerT]):
    """What the sync and async sessions share: the constructor, the core they drive and the
    calls that do no I/O. ``client`` is an ``httpx.Client`` for the sync session and an
    ``httpx.AsyncClient`` for the async one (``None``: a private client per exchange)."""

    def __init__(
        self,
        *,
        server_id: str,
        server_url: str,
        settings: McpOAuthClientSettings | object | None = None,
        client: ClientT | None = None,
        store: McpOAuthTokenStore | None = None,
        redirect_handler: HandlerT | None = None,
        timeout_s: float = 10.0,
        max_step_up_attempts: int = DEFAULT_MAX_STEP_UP_ATTEMPTS,
        protocol_version: str | None = None,
    ) -> None:
        self._core = _SessionCore(
            server_id=server_id,
            server_url=server_url,
            settings=McpOAuthClientSettings.from_config(settings),
            store=store if store is not None else default_oauth_token_store(),
            redirect_uri=redirect_handler.redirect_uri if redirect_handler else None,
            timeout_s=timeout_s,
            max_step_up_attempts=max_step_up_attempts,
            protocol_version=protocol_version,
        )
        self._client: ClientT | None = client
        self._redirect_handler = redirect_handler
        self._lock = self._new_lock()

    @staticmethod
    def _new_lock() -> object:
        """The lock that lets one flow run at a time (two refreshes must not race)."""
        raise NotImplementedError

    @property
    def server_id(self) -> str:
        """The store key of this server."""
        return self._core.server_id

    @staticmethod
    def _request_state(method: str, replay_allowed: bool | None) -> _RequestState:
        allowed = method != "tools/call" if replay_allowed is None else replay_allowed
        return _RequestState(method=method, replay_allowed=allowed)

    def stored_authorization_header(self) -> str | None:
        """The stored token as a header value, without refreshing and without raising (for the
        session DELETE at close)."""
        record = self._core.load_quietly()
        try:
            return self._core.present(record) if record is not None else None
        except ValueError:
            return None

    def dpop_proof(self, method: str, url: str, authorization: str) -> str | None:
        """The DPoP proof (RFC 9449) for one HTTP request to the MCP server that carries the
        ``Authorization`` value ``authorization`` this session gave: signed with the key of
        its token, with ``htm`` ``method``, ``htu`` ``url``, the token's ``ath`` and the
        server's latest nonce. ``None`` for a Bearer value (no proof to send)."""
        return self._core.dpop_proof(method, url, authorization)

    def dpop_answer(self, url: str, headers: Mapping[str, str]) -> None:
        """Keep the ``DPoP-Nonce`` of the MCP server's answer to a request that carried a
        proof: a server may hand out its next nonce on any answer, a 200 included (RFC 9449
        section 8.2), and the next proof then carries it instead of being refused first."""
        self._core.rs_nonces.learn(url, headers)

    def logout(self) -> bool:
        """Forget this server's stored credentials; ``True`` when there were some."""
        return self._core.store.delete(self._core.server_id)


class McpOAuthRequestAuth:
    """OAuth for one message a transport sends (see the module docstring)."""

    def __init__(self, session: McpOAuthSession, state: _RequestState) -> None:
        self._session = session
        self._state = state

    def authorization_header(self) -> str | None:
        """The ``Authorization`` header value to send now, or ``None`` to send none."""
        return self._session._run(self._session._core.header_flow(self._state))

    def should_retry(
        self, status_code: int, headers: Mapping[str, str], body: bytes | None = None
    ) -> bool:
        """Handle a 401/403: ``True`` when credentials changed and the request should be sent
        again; ``False`` when this is no OAuth matter (map the status as usual). Raises the
        OAuth errors described in the module docstring."""
        flow = self._session._core.challenge_flow(self._state, status_code, headers, body)
        return self._session._run(flow)


class McpOAuthSession(_SessionBase[httpx.Client, McpOAuthRedirectHandler]):
    """OAuth for one MCP server, over a blocking ``httpx.Client``.

    ``redirect_handler`` enables logins inside the session (a
    :class:`~mcpstream.oauth.redirect.LoopbackRedirectHandler` for a person,
    :class:`~mcpstream.oauth.redirect.HeadlessRedirectHandler` for test servers); without one,
    only stored credentials (and a client-credentials setting) are used. ``store`` defaults to
    the token store file.
    """

    _lock: threading.RLock

    @staticmethod
    def _new_lock() -> threading.RLock:
        return threading.RLock()

    @property
    def discovery(self) -> McpOAuthDiscovery | None:
        """What discovery found, once it ran."""
        return self._core.discovery

    def _run(self, flow: Flow[T]) -> T:
        with self._lock:
            limit = self._core.settings.max_document_bytes
            return run_sync(flow, self._client, self._redirect_handler, max_document_bytes=limit)

    def request_auth(
        self, *, method: str, replay_allowed: bool | None = None
    ) -> McpOAuthRequestAuth:
        """The OAuth hook for one message; ``replay_allowed`` defaults to ``method !=
        "tools/call"``."""
        return McpOAuthRequestAuth(self, self._request_state(method, replay_allowed))

    def login(
        self, *, www_authenticate: str | None = None, scopes: tuple[str, ...] | None = None
    ) -> McpOAuthTokenRecord:
        """Authorize now (discovery, registration, the grant) and store the record."""
        return self._run(self._core.login_flow(www_authenticate, scopes))


class AsyncMcpOAuthRequestAuth:
    """The async form of :class:`McpOAuthRequestAuth`."""

    def __init__(self, session: AsyncMcpOAuthSession, state: _RequestState) -> None:
        self._session = session
        self._state = state

    async def authorization_header(self) -> str | None:
        """The ``Authorization`` header value to send now, or ``None`` to send none."""
        return await self._session._run(self._session._core.header_flow(self._state))

    async def should_retry(
        self, status_code: int, headers: Mapping[str, str], body: bytes | None = None
    ) -> bool:
        """See :meth:`McpOAuthRequestAuth.should_retry`."""
        flow = self._session._core.challenge_flow(self._state, status_code, headers, body)
        return await self._session._run(flow)


class AsyncMcpOAuthSession(
    _SessionBase[httpx.AsyncClient, AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler]
):
    """OAuth for one MCP server, over an ``httpx.AsyncClient`` (the same decisions as
    :class:`McpOAuthSession`; a blocking redirect handler runs in a worker thread)."""

    _lock: asyncio.Lock

    @staticmethod
    def _new_lock() -> asyncio.Lock:
        return asyncio.Lock()

    async def _run(self, flow: Flow[T]) -> T:
        async with self._lock:
            limit = self._core.settings.max_document_bytes
            handler = self._redirect_handler
            return await run_async(flow, self._client, handler, max_document_bytes=limit)

    def request_auth(
        self, *, method: str, replay_allowed: bool | None = None
    ) -> AsyncMcpOAuthRequestAuth:
        """The OAuth hook for one message; ``replay_allowed`` defaults to ``method !=
        "tools/call"``."""
        return AsyncMcpOAuthRequestAuth(self, self._request_state(method, replay_allowed))

    async def login(
        self, *, www_authenticate: str | None = None, scopes: tuple[str, ...] | None = None
    ) -> McpOAuthTokenRecord:
        """Authorize now and store the record."""
        return await self._run(self._core.login_flow(www_authenticate, scopes))
