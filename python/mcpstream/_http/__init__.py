"""The pieces of the Streamable HTTP protocol core (``mcpstream.transport_core`` is their
public face): ``protocol``, ``exchange`` (one call) and ``listen`` (the GET stream)."""
