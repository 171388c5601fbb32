"""Answers to requests the server sends to the client, plugged into the transport's
``server_request_handler``.

The defaults:

* ``ping``: answered (an empty result), always.
* ``elicitation/create``: the client announces the ``elicitation`` capability and, without an
  ``elicitation_handler``, declines (``{"action": "decline"}``): the server's tool learns that no
  user is there to ask, and goes on.
* ``sampling/createMessage``: announced only with a ``sampling_handler``; otherwise refused with
  "method not found".
* ``roots/list``: announced only with ``roots``; answered with them.
* anything else: "method not found".

A handler returns its answer (or, for ``AsyncClient``, may return an awaitable of it); raising
``McpServerRequestHandlerError(code, message)`` sends that JSON-RPC error instead.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from ..server_requests import McpUnsupportedServerRequestError, ServerRequest
from .events import ElicitationRequest, ElicitationResponse, SamplingRequest, SamplingResponse

if TYPE_CHECKING:
    from .._telemetry import Telemetry

__all__ = [
    "ElicitationHandler",
    "SamplingHandler",
    "ServerRequestRouter",
    "ServerRequests",
    "root_entries",
]

ElicitationAnswer = ElicitationResponse | dict[str, Any]
SamplingAnswer = SamplingResponse | dict[str, Any]
ElicitationHandler = Callable[
    [ElicitationRequest], ElicitationAnswer | Awaitable[ElicitationAnswer]
]
"""Answers ``elicitation/create``; for ``Client``, must not return an awaitable."""
SamplingHandler = Callable[[SamplingRequest], SamplingAnswer | Awaitable[SamplingAnswer]]
"""Answers ``sampling/createMessage``; for ``Client``, must not return an awaitable."""


def _decline(_: ElicitationRequest) -> ElicitationResponse:
    return ElicitationResponse(action="decline")


def root_entries(roots: Sequence[str | Path]) -> list[dict[str, str]]:
    """``roots/list`` entries: a ``Path`` (or a string without a scheme) becomes a ``file://``
    URI of its absolute path; a ``file://`` URI is taken as it is. MCP roots are ``file://``
    URIs only: any other scheme raises ``ValueError``."""
    entries = []
    for root in roots:
        if isinstance(root, str) and "://" in root:
            if not root.startswith("file://"):
                raise ValueError(f"roots must be paths or file:// URIs, not {root!r}")
            uri, name = root, root.rstrip("/").rsplit("/", 1)[-1]
        else:
            path = Path(root).expanduser().resolve()
            uri, name = path.as_uri(), path.name or str(path)
        entries.append({"uri": uri, "name": name})
    return entries


@dataclass(frozen=True, slots=True)
class _Call:
    """Call ``function(argument)`` and turn what it returns into the result with ``finish``."""

    function: Callable[[Any], Any]
    argument: Any
    finish: Callable[[Any], Any]


def _to_result(answer: Any) -> Any:
    if isinstance(answer, ElicitationResponse | SamplingResponse):
        return answer.to_result()
    return answer


class ServerRequests:
    """The routing of server requests, shared by the sync and the async adapter."""

    def __init__(
        self,
        *,
        elicitation_handler: ElicitationHandler | None,
        sampling_handler: SamplingHandler | None,
        roots: Sequence[str | Path] | None,
    ) -> None:
        self.elicitation_handler: ElicitationHandler = elicitation_handler or _decline
        self.sampling_handler = sampling_handler
        self.roots = None if roots is None else root_entries(roots)

    def capabilities(self) -> dict[str, Any]:
        """The client capabilities to announce in ``initialize``."""
        capabilities: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
        if self.sampling_handler is not None:
            capabilities["sampling"] = {}
        if self.roots is not None:
            capabilities["roots"] = {"listChanged": False}
        return capabilities

    def route(self, method: str, params: Any) -> _Call | Any:
        """A ``_Call`` to make, or the result itself; raises for unsupported methods."""
        if method == "ping":
            return {}
        if method == "elicitation/create":
            return _Call(
                self.elicitation_handler, ElicitationRequest.from_params(params), _to_result
            )
        if method == "sampling/createMessage" and self.sampling_handler is not None:
            return _Call(self.sampling_handler, SamplingRequest.from_params(params), _to_result)
        if method == "roots/list" and self.roots is not None:
            return {"roots": list(self.roots)}
        raise McpUnsupportedServerRequestError(method)


class ServerRequestRouter:
    """The transports' server request handler for a client's ``ServerRequests``.

    With ``awaitable_answers`` (``AsyncClient``) a handler may return an awaitable: the router
    then returns an awaitable of the result, which the async transport awaits. Without it
    (``Client``), an awaitable answer is refused with ``TypeError``.
    """

    def __init__(
        self,
        requests: ServerRequests,
        *,
        awaitable_answers: bool,
        telemetry: Telemetry | None = None,
    ) -> None:
        self._requests = requests
        self._awaitable_answers = awaitable_answers
        self._telemetry = telemetry

    def handle_request(self, **request: Unpack[ServerRequest]) -> Any:
        """Answer one server request (see the module docstring)."""
        return self.answer(request["method"], request["params"], request.get("request_id"))

    def answer(self, method: str, params: Any, request_id: object = None) -> Any:
        """Answer the server request ``method`` with ``params``, wherever it came from (on a
        stream, or as an input request of a task); with ``telemetry``, in a ``SERVER`` span
        while a provider is configured (``_telemetry``)."""
        telemetry = self._telemetry
        served = telemetry.serve(method, params, request_id) if telemetry is not None else None
        if served is None:
            return self._answer(method, params)
        if self._awaitable_answers:
            return _served_later(served, self._answer, method, params)
        with served:
            return self._answer(method, params)

    def _answer(self, method: str, params: Any) -> Any:
        step = self._requests.route(method, params)
        if not isinstance(step, _Call):
            return step
        answer = step.function(step.argument)
        if not inspect.isawaitable(answer):
            return step.finish(answer)
        if self._awaitable_answers:
            return _finish_later(answer, step.finish)
        close = getattr(answer, "close", None)
        if callable(close):
            close()  # a coroutine never awaited would warn
        raise TypeError("a handler of the sync Client returned an awaitable")


async def _finish_later(answer: Awaitable[Any], finish: Callable[[Any], Any]) -> Any:
    return finish(await answer)


async def _served_later(
    served: AbstractContextManager[object],
    answer: Callable[[str, Any], Any],
    method: str,
    params: Any,
) -> Any:
    """``answer(method, params)``, awaited if need be, within ``served`` (its span)."""
    with served:
        result = answer(method, params)
        return (await result) if inspect.isawaitable(result) else result
