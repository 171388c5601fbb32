"""What every layer that speaks HTTP shares, below all of them (the transport in ``_http``,
OAuth, the SDK route, the client, the command): it imports none of them.

* ``stack``: the table of what differs between httpx and httpx2; no I/O.
* ``bodies``: response bodies decompressed within a byte budget; reads a response's body.
* ``codings``: the ``Accept-Encoding`` every request carries; a constant.
"""
