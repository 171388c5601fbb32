"""The Streamable HTTP transport's machinery. A call is decided by the core's flows, built into
an httpx request by ``wire``, sent by a driver through httpx (over the host's client, one made
here, or the HTTP/1.1 transports of ``h1``), and its answer framed and decoded back into the
core's terms by ``wire`` and the driver's I/O pieces.

Where a request goes: its description is built by ``core.protocol`` for a flow of
``core.flows``; ``wire`` makes it an httpx request; the driver (``sync`` or ``aio``) sends it;
over HTTP/1.1 the head is encoded and the answer framed by ``h1`` (with the codec's
``Http1Response``); the body is decoded by the core (``core.exchange``: JSON or SSE).

Every module, and whether it does I/O:

* ``core/``: every protocol decision and the order of the steps, as flows; no I/O. Its
  modules, mapped in ``core/__init__``: ``steps``, ``flows``, ``protocol``, ``exchange``,
  ``listen``, ``era``, ``modern``, ``discovery``, ``relay``, ``cancel``, ``sse_legacy``,
  ``advice``.
* ``h1/``: HTTP/1.1 transports for httpx and httpx2 on Python's sockets or asyncio; I/O.
  ``sync`` and ``aio`` are the two transports, ``base`` what they share that does no I/O (TLS,
  errors, responses), ``pool`` the request's origin, head and framing and the pool's rules.
* ``facade``: what the two transports share: constructor wiring, state, the flows of calls; no
  I/O.
* ``sync``: the sync driver, ``McpHttpTransport``, running the flows over ``httpx.Client``; I/O.
* ``sync_io``: the sync driver's I/O pieces: the body reader thread, the GET stream's; I/O.
* ``aio``: the async driver, ``AsyncMcpHttpTransport``, over ``httpx.AsyncClient``; I/O.
* ``aio_io``: the async driver's I/O pieces: what a running flow has open, bounded reads; I/O.
* ``aio_flow``: flow control of the asyncio protocols (paused reads, drained writes); I/O.
* ``wire``: the translation between the core's descriptions and httpx, for both drivers: the
  requests, the head of an answer, bodies and failures; no I/O of its own.
* ``auth``: the authorization hook the transports ask (an OAuth session) and the login hint of
  a 401; I/O only through OAuth's drivers.
* ``httpx_clients``: the httpx clients a transport makes for itself and their network
  streams; I/O.
* ``asyncio_backend``: an httpcore network backend on asyncio itself; I/O.
* ``large_reads``: how the streams made here size their reads and hold small writes; no I/O.
* ``low_water``: the socket's receive low-water mark while a large body of a known length is
  read, for fewer wake-ups (Linux); no I/O of its own.
* ``shared_pools``: the HTTP/1.1 transports the sessions of mcpstream's own clients share in a
  process, and the closing of their idle connections; I/O (a reaper thread).
* ``deadline``: the deadline of the operation under way, which every wait obeys; no I/O.
* ``receive_buffer``: h11's receive buffer that hands large body pieces on uncopied; no I/O.
* ``capability``: probes of the private attributes the speed work reads; no I/O (no socket).
* ``interception``: what a host installed on its client's way, found before a transport of
  mcpstream's stands in for it; no I/O.
* ``host_probe``: whether mcpstream's HTTP/1.1 transport can stand in for a host's client (which
  client sends, a stock transport and pool, the stand-in with the pool's settings); no I/O.
* ``host_view``: a view of a host's client over a transport of mcpstream's choosing; no I/O.
* ``host_settings``: what the transports read from a host's client (``base_url``,
  ``max_redirects``, ``Timeout``); no I/O.

Below the transport, shared with OAuth, the SDK route and the client: ``mcpstream._httpbase``
(the httpx/httpx2 table, bodies decoded within a budget, the codings asked for) and
``mcpstream._eras`` (the protocol's versions, the negotiation's values).
"""
