"""The token exchange (RFC 8693) of enterprise-managed authorization: the user's ID token, from
the company's single sign-on, for an Identity Assertion JWT Authorization Grant (ID-JAG) at the
company's identity provider.

The request names the MCP server's authorization server (``audience``, its issuer) and the MCP
server (``resource``), and the scopes wanted there; the identity provider applies its policy and
answers with the ID-JAG (in ``access_token``, ``issued_token_type``
``urn:ietf:params:oauth:token-type:id-jag``), which the JWT bearer grant then presents to the
authorization server. The client authenticates to the identity provider as the client it signed
the user in with (``idp_client_id``; ``idp_client_secret`` sent with ``client_secret_post``, as
the extension's example does).

The request goes through the OAuth drivers like every other (the URL policy, the operation's
deadline, the document byte budget). A refusal is an :class:`McpOAuthAssertionRejectedError`
(``grant`` ``"token-exchange"``), not retried; neither token appears in any message.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Protocol

from .._text import sanitize
from ..errors import McpOAuthTokenExchangeError
from ..oauth_store import is_header_safe
from ..redaction import scrub_secrets
from ._flow import Flow, build_request, http_step, response_json
from .assertions import assertion_rejected
from .discovery import McpOAuthDiscovery
from .urls import safe_url

__all__ = [
    "ID_JAG_TOKEN_TYPE",
    "ID_TOKEN_TYPE",
    "TOKEN_EXCHANGE_GRANT",
    "ExchangeContext",
    "IdentityProvider",
    "id_jag_flow",
]

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
_DESCRIPTION_LIMIT = 300
_log = logging.getLogger("mcpstream.oauth")


@dataclass(frozen=True, repr=False)
class IdentityProvider:
    """The company's identity provider as the client knows it: its token endpoint and the
    client the user signed in with there (the secret is not shown in ``repr``)."""

    token_endpoint: str
    client_id: str
    client_secret: str | None = None

    def __repr__(self) -> str:
        return f"IdentityProvider(token_endpoint={safe_url(self.token_endpoint)!r})"


class ExchangeContext(Protocol):
    """What the exchange needs of the grant it serves (``authorize._Grant`` has it): the MCP
    server's id, what discovery found (the issuer is the ``audience``, the resource the
    ``resource``) and the operation's time budget."""

    @property
    def server_id(self) -> str | None: ...

    @property
    def discovery(self) -> McpOAuthDiscovery: ...

    @property
    def timeout_s(self) -> float: ...


def id_jag_flow(
    idp: IdentityProvider, id_token: str, grant: ExchangeContext, scopes: tuple[str, ...]
) -> Flow[str]:
    """Exchange ``id_token`` for an ID-JAG for the authorization server and the MCP server of
    ``grant``, with ``scopes``; returns the ID-JAG."""
    server_id, discovery, timeout_s = grant.server_id, grant.discovery, grant.timeout_s
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "requested_token_type": ID_JAG_TOKEN_TYPE,
        "audience": discovery.metadata.issuer,
        "resource": discovery.resource,
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN_TYPE,
        "client_id": idp.client_id,
    }
    if scopes:
        form["scope"] = " ".join(scopes)
    if idp.client_secret:
        form["client_secret"] = idp.client_secret
    sent = (id_token, idp.client_secret)
    endpoint = safe_url(idp.token_endpoint)
    where = f"the identity provider's token endpoint {endpoint}"

    failure = functools.partial(
        McpOAuthTokenExchangeError, server_id=server_id, authorization_server_url=endpoint
    )

    request = build_request("POST", idp.token_endpoint, timeout_s=timeout_s, data=form)
    response = yield from http_step(
        request, lambda error: failure(f"token exchange request to {where} failed: {error}")
    )
    _log.debug("OAuth: token exchange at %s -> HTTP %s", endpoint, response.status_code)
    document = response_json(response)
    if not isinstance(document, dict):
        document = {}
    if response.status_code != 200:
        error = document.get("error")
        if isinstance(error, str):  # it becomes the error's oauth_error, and its message
            error = sanitize(" ".join(scrub_secrets(error, sent).split()), _DESCRIPTION_LIMIT)
        description = document.get("error_description")
        refusal = failure(
            "refused",
            status_code=response.status_code,
            oauth_error=error if isinstance(error, str) and error else None,
            error_description=(
                sanitize(" ".join(scrub_secrets(description, sent).split()), _DESCRIPTION_LIMIT)
                if isinstance(description, str) and description
                else None
            ),
        )
        raise assertion_rejected(refusal, what="ID token", where=where, grant="token-exchange")
    issued_type = document.get("issued_token_type")
    if issued_type != ID_JAG_TOKEN_TYPE:
        shown = sanitize(scrub_secrets(str(issued_type), sent), 80)
        raise failure(
            f"{where} answered the token exchange with a token of type {shown!r}, not an "
            f"ID-JAG ({ID_JAG_TOKEN_TYPE})",
            status_code=200,
        )
    id_jag = document.get("access_token")
    if not isinstance(id_jag, str) or not id_jag or not is_header_safe(id_jag):
        raise failure(
            f"{where} answered the token exchange without an ID-JAG in access_token (or with "
            "one that is not printable ASCII)",
            status_code=200,
        )
    return id_jag
