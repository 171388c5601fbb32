"""``mcpstream doctor``: what mcpstream runs with, printed (every stack's version and path,
whether it is served) and as JSON, run as a subprocess as a user runs it."""

from __future__ import annotations

import json

import httpcore2
import httpx
import httpx2

from .conftest import RunCommand


def test_doctor_prints_every_stack_with_its_version_and_path(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("doctor")
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[0].startswith("mcpstream ")
    assert any(line.startswith("codec ") for line in lines)
    for module in (httpx, httpx2):
        [line] = [line for line in lines if line.startswith(f"{module.__name__} ")]
        assert module.__version__ in line and module.__file__.rsplit("/", 1)[0] in line
    assert httpcore2.__version__ in run.out
    assert [line.split()[-1] for line in lines if "served by mcpstream" in line] == ["yes", "yes"]


def test_doctor_json_is_the_diagnosis(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("doctor", "--json")
    assert run.status == 0, run.err
    data = json.loads(run.out)
    stacks = {stack["name"]: stack for stack in data["stacks"]}
    assert stacks["httpx2"]["version"] == httpx2.__version__
    assert stacks["httpx"]["core_version"] is not None
    assert all(stack["served"] and stack["why"] == [] for stack in stacks.values())
    assert data["codec"] in ("native", "python")


def test_doctor_names_why_the_transport_is_off(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("doctor", "--json", extra_env={"MCPSTREAM_H1_TRANSPORT": "0"})
    data = json.loads(run.out)
    assert [stack["served"] for stack in data["stacks"]] == [False, False]
    assert all("MCPSTREAM_H1_TRANSPORT=0" in stack["why"][0] for stack in data["stacks"])
