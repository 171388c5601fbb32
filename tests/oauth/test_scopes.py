"""The scope selection strategy: challenge, else scopes_supported, else omitted; step-up union."""

from __future__ import annotations

from mcpstream.oauth import resolve_requested_scopes


def _login(**overrides: object) -> tuple[str, ...]:
    arguments: dict[str, object] = {
        "configured_scopes": None,
        "challenge_scope": None,
        "metadata_scopes_supported": None,
        "existing_granted_scopes": None,
        "purpose": "login",
    }
    arguments.update(overrides)
    return resolve_requested_scopes(**arguments)  # type: ignore[arg-type]


def test_the_challenge_scope_wins_over_scopes_supported() -> None:
    assert _login(challenge_scope="mcp:basic", metadata_scopes_supported=["a", "b"]) == (
        "mcp:basic",
    )


def test_all_of_scopes_supported_are_used_when_the_challenge_names_none() -> None:
    assert _login(metadata_scopes_supported=["a", "b", "c"]) == ("a", "b", "c")


def test_the_scope_is_omitted_when_nothing_names_one() -> None:
    assert _login() == ()


def test_configured_scopes_come_first_and_keep_the_challenged_ones() -> None:
    assert _login(configured_scopes=["x"], challenge_scope="y x") == ("x", "y")


def test_step_up_asks_for_the_union_of_granted_and_challenged_scopes() -> None:
    scopes = resolve_requested_scopes(
        configured_scopes=None,
        challenge_scope="mcp:basic mcp:write",
        metadata_scopes_supported=None,
        existing_granted_scopes=["mcp:basic", "mcp:read"],
        purpose="step_up",
    )
    assert scopes == ("mcp:basic", "mcp:read", "mcp:write")


def test_refresh_asks_for_the_granted_scopes_only() -> None:
    scopes = resolve_requested_scopes(
        configured_scopes=["more"],
        challenge_scope="other",
        metadata_scopes_supported=["x"],
        existing_granted_scopes=["a"],
        purpose="refresh",
    )
    assert scopes == ("a",)
