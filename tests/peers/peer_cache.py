"""Where ``scripts/install-peers.sh`` put the peer servers: the directory of each peer in its
cache, named by the hash of that peer's sources exactly as the script names it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
_SKIPPED_DIRS = {"node_modules", "target"}


def cache_root() -> Path:
    """``MCPSTREAM_PEERS_CACHE``, else the script's default under the XDG cache."""
    explicit = os.environ.get("MCPSTREAM_PEERS_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "mcpstream-peers"


def source_hash(peer: str) -> str:
    """The script's ``source_hash``: sha256 of the ``sha256sum`` lines of the peer's files
    (paths relative to ``servers/``, sorted bytewise), its first 16 hex digits."""
    files = sorted(
        (
            path.relative_to(SERVERS).as_posix()
            for path in (SERVERS / peer).rglob("*")
            if path.is_file() and not _SKIPPED_DIRS & set(path.relative_to(SERVERS).parts)
        ),
        key=lambda name: name.encode(),
    )
    listing = "".join(
        f"{hashlib.sha256((SERVERS / name).read_bytes()).hexdigest()}  {name}\n" for name in files
    )
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def peer_dir(peer: str) -> Path:
    """The built peer ``peer`` (``ts``, ``go`` or ``rust``); fails the test, naming the script,
    when it is not there."""
    directory = cache_root() / f"{peer}-{source_hash(peer)}"
    if not (directory / ".done").is_file():
        pytest.fail(
            f"the {peer} peer server is not built for these sources (no {directory}): run "
            "`bash scripts/install-peers.sh` (it prints the MCPSTREAM_PEERS_CACHE to use)",
            pytrace=False,
        )
    return directory
