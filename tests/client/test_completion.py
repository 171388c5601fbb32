"""``complete`` against the official SDK's server (the demo server), in both eras, sync and
async: prompt and resource-template references, typed and as dicts, with context."""

from __future__ import annotations

import asyncio

import pytest
from mcpstream import AsyncClient, Client, Completion, PromptReference, ResourceTemplateReference
from mcpstream.demo import DemoServer

ERAS = ["legacy", "modern"]


@pytest.mark.parametrize("era", ERAS)
def test_complete_a_prompt_argument_with_the_context_of_the_others(
    server: DemoServer, era: str
) -> None:
    with Client(server.url, protocol=era) as client:
        assert client.era == era
        languages = client.complete(PromptReference("greet"), {"name": "language", "value": ""})
        assert languages == Completion(values=("en", "fr"), total=2, has_more=False)
        ref = {"type": "ref/prompt", "name": "greet"}
        names = client.complete(ref, {"name": "name", "value": "a"}, {"language": "fr"})
        assert names.values == ("Amélie", "Antoine") and names.total == 2
        english = client.complete(ref, {"name": "name", "value": "a"})
        assert english.values == ("Alice", "Albert")


@pytest.mark.parametrize("era", ERAS)
def test_complete_a_resource_template_argument(server: DemoServer, era: str) -> None:
    with Client(server.url, protocol=era) as client:
        ref = ResourceTemplateReference("demo://note/{name}")
        assert client.complete(ref, {"name": "name", "value": "g"}).values == ("gamma",)
        raw = {"type": "ref/resource", "uri": "demo://greeting/{name}"}
        assert client.complete(raw, {"name": "name", "value": "b"}).values == ("Bob",)
        unknown = client.complete(
            ResourceTemplateReference("demo://nothing/{x}"),
            {
                "name": "x",
                "value": "",
            },
        )
        assert unknown.values == () and not unknown.has_more


@pytest.mark.parametrize("era", ERAS)
def test_the_async_client_completes_as_the_sync_one(sse_server: DemoServer, era: str) -> None:
    async def scenario() -> tuple[Completion, Completion]:
        async with AsyncClient(sse_server.url, protocol=era) as client:
            return await asyncio.gather(
                client.complete(PromptReference("greet"), {"name": "name", "value": "B"}),
                client.complete(
                    ResourceTemplateReference("demo://note/{name}"),
                    {"name": "name", "value": "d"},
                ),
            )

    names, notes = asyncio.run(scenario())
    assert names.values == ("Bob",) and notes.values == ("delta",)


def test_a_bad_reference_is_refused_before_anything_is_sent(sse_server: DemoServer) -> None:
    with Client(sse_server.url) as client, pytest.raises(ValueError, match="ref must be"):
        client.complete({"type": "ref/prompt"}, {"name": "name", "value": ""})
