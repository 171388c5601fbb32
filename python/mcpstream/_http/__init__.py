"""The Streamable HTTP transport's machinery.

* ``core/``: every protocol decision and the order of the steps, as flows; no I/O (see there).
* ``sync``, ``aio``: the drivers, which run the core's flows with ``httpx.Client`` (and reader
  threads) or ``httpx.AsyncClient`` (and tasks); with their I/O pieces (``sync_io``,
  ``aio_io``), they do all the I/O.
* ``facade``: the base both transports share (constructor wiring, state, the flows of calls).
* ``wire``: the translation between the core's descriptions and httpx, for both drivers.
* ``auth``: the authorization hook the transports ask (an OAuth session).
* ``httpx_clients``: the httpx clients a transport makes for itself.
* ``stack``: what differs between httpx and httpx2 (a host's client may be of either), in one
  table that the wire layer, the clients made here and the OAuth driver look up.
"""
