"""``ToolResult``: parsed from a ``tools/call`` result, and its text."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from mcpstream.client.content import ImageContent, TextContent, parse_content
from mcpstream.client.results import ToolResult
from mcpstream.errors import McpProtocolError


def test_a_parsed_result_is_the_object_its_constructor_makes() -> None:
    raw: dict[str, Any] = {
        "content": [{"type": "text", "text": "ok"}],
        "isError": True,
        "structuredContent": {"n": 1},
    }
    parsed = ToolResult.from_dict(raw)
    made = ToolResult((TextContent("ok", raw["content"][0]),), True, {"n": 1}, raw)
    assert (type(parsed), parsed, repr(parsed)) == (ToolResult, made, repr(made))
    assert type(parsed.content[0]) is TextContent and parsed.content[0].raw is raw["content"][0]
    assert parse_content({"type": "text", "text": "ok"}) == TextContent("ok")
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.is_error = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.content[0].text = "changed"  # type: ignore[misc]


def test_a_subclass_is_made_by_its_own_constructor() -> None:
    class Mine(ToolResult):
        pass

    parsed = Mine.from_dict({"content": []})
    assert type(parsed) is Mine and parsed.content == () and parsed.is_error is False


def test_a_result_without_a_content_list_is_refused() -> None:
    with pytest.raises(McpProtocolError, match="'content' list"):
        ToolResult.from_dict({"content": "text"})


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ([], ""),
        ([{"type": "text", "text": "one"}], "one"),
        ([{"type": "image", "data": "AA==", "mimeType": "image/png"}], ""),
        (
            [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "text", "text": "b"},
            ],
            "a\nb",
        ),
    ],
)
def test_the_text_is_the_text_items_joined(content: list[dict[str, Any]], text: str) -> None:
    result = ToolResult.from_dict({"content": content})
    assert result.text == text
    assert any(isinstance(item, ImageContent) for item in result.content) == (
        "image" in str(content)
    )
