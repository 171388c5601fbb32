"""The exception tree of ``mcpstream.errors``: one root every documented failure derives from,
the reference transport's classes with their names and bases, and the OAuth errors defined
there (the same classes ``mcpstream.oauth`` and ``mcpstream.oauth_store`` raise)."""

from __future__ import annotations

import mcpstream
import mcpstream.oauth as oauth
import mcpstream.oauth_store as oauth_store
import pytest
from mcpstream import errors
from mcpstream.codec import SseDecoder
from mcpstream.errors import McpStreamError

# The reference transport's classes and their bases, as its importers rely on them.
REFERENCE_BASES = {
    "McpHttpTransportError": ("McpTransportError",),
    "McpHttpTransportTimeoutError": ("McpHttpTransportError", "McpTimeoutError"),
    "McpHttpTransportProtocolError": ("McpHttpTransportError", "McpProtocolError"),
    "McpHttpTransportRemoteError": ("McpHttpTransportError", "McpRemoteError"),
    "McpHttpTransportAuthRequiredError": ("McpHttpTransportError", "McpAuthError"),
    "McpHttpTransportSessionExpiredError": ("McpHttpTransportError",),
    "McpTimeoutError": ("McpTransportError",),
    "McpProtocolError": ("McpTransportError",),
    "McpRemoteError": ("McpTransportError",),
    "McpAuthError": ("McpTransportError",),
    "McpOAuthError": ("McpAuthError",),
}


@pytest.mark.parametrize("name", errors.__all__)
def test_every_documented_error_derives_from_the_root(name: str) -> None:
    kind = getattr(errors, name)
    assert issubclass(kind, McpStreamError)
    assert kind.__module__ == "mcpstream.errors"


@pytest.mark.parametrize(("name", "bases"), REFERENCE_BASES.items())
def test_the_reference_classes_keep_their_bases(name: str, bases: tuple[str, ...]) -> None:
    assert tuple(base.__name__ for base in getattr(errors, name).__bases__) == bases


def test_the_codec_errors_are_still_value_errors_and_caught_by_the_root() -> None:
    decoder = SseDecoder(max_event_bytes=8)
    with pytest.raises(McpStreamError) as caught:
        decoder.feed(b"data: " + b"x" * 64 + b"\n\n")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, errors.SseEventTooLargeError)


def test_the_oauth_errors_are_reachable_from_errors_and_oauth() -> None:
    oauth_names = [name for name in errors.__all__ if name.startswith("McpOAuth")]
    assert len(oauth_names) == 14
    for name in oauth_names:
        kind = getattr(errors, name)
        assert getattr(oauth, name) is kind
        assert issubclass(kind, errors.McpAuthError)
    assert oauth_store.McpOAuthTokenStoreError is errors.McpOAuthTokenStoreError


def test_the_root_is_exported_at_the_top() -> None:
    assert mcpstream.McpStreamError is McpStreamError
    assert "McpStreamError" in mcpstream.__all__
