"""What the examples of the documentation use from the demo server, through the client: the
task tool ``render`` in both eras that have tasks, and the skill ``pdf-processing``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcpstream import Client
from mcpstream.demo import DemoServer
from mcpstream.errors import McpError, McpTaskCancelledError

ERAS = ("2026-07-28", "2025-11-25")


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoServer]:
    with DemoServer() as server:
        yield server


@pytest.mark.parametrize("protocol", ERAS)
def test_render_runs_as_a_task_in_both_eras(demo: DemoServer, protocol: str) -> None:
    with Client(demo.url, protocol=protocol) as client:
        assert client.protocol_version == protocol
        handle = client.call_tool("render", {"scene": 7, "seconds": 0.2}, as_task=True)
        assert handle.task_id is not None and handle.status == "working"
        assert handle.result(timeout_s=30).text == "rendered scene 7"
        assert handle.refresh() is not None and handle.status == "completed"
        # A plain call of the same tool is answered with its result too (at 2026-07-28 the
        # server makes it a task, which the call waits for).
        assert client.call_tool("render", {"scene": 2, "seconds": 0}).text == "rendered scene 2"
        # Other tools are not tasks: as_task gets the plain result.
        plain = client.call_tool("echo", {"text": "hi"}, as_task=True)
        assert plain.task_id is None and plain.result().text == "hi"


@pytest.mark.parametrize("protocol", ERAS)
def test_a_render_task_can_be_cancelled(demo: DemoServer, protocol: str) -> None:
    with Client(demo.url, protocol=protocol) as client:
        handle = client.call_tool("render", {"scene": 1, "seconds": 60}, as_task=True)
        handle.cancel()
        task = handle.refresh()
        assert task is not None and task.status == "cancelled"
        with pytest.raises((McpTaskCancelledError, McpError)):
            handle.result(timeout_s=10)


def test_the_handshake_era_lists_the_tasks(demo: DemoServer) -> None:
    with Client(demo.url, protocol="2025-11-25") as client:
        handle = client.call_tool("render", {"scene": 4, "seconds": 0}, as_task=True)
        handle.result(timeout_s=30)
        assert handle.task_id in {task.task_id for task in client.list_tasks()}


def test_the_skill_is_listed_and_read_verified(demo: DemoServer) -> None:
    with Client(demo.url) as client:
        (skill,) = client.list_skills()
        assert skill.name == "pdf-processing" and skill.uri == "skill://pdf-processing/SKILL.md"
        skill_md = client.read_skill("pdf-processing")
        assert skill_md.text is not None and skill_md.text.startswith("---\nname: pdf-processing")
        forms = client.read_skill(skill_md.skill, "references/FORMS.md")
        assert forms.data.startswith(b"# Forms")
