"""``mcpstream skills URL``, run as a subprocess against the SDK server with the skills
extension (tests/client/skills_server.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from client.skills_server import SKILLS, SkillsExtension, SkillsServer, honest

from .conftest import RunCommand
from .test_cli_client_commands import assert_one_error_line

# Server text that would retitle the terminal, or be read as rich markup.
HOSTILE = honest("hostile", "\x1b]0;pwned\x07[bold red]look[/] \x9b2J")


@pytest.fixture(scope="module")
def server() -> Iterator[SkillsServer]:
    with SkillsServer(SkillsExtension([*SKILLS, HOSTILE])) as running:
        yield running


def test_skills_lists_every_skill_and_reads_none(
    mcpstream_cli: RunCommand, server: SkillsServer
) -> None:
    run = mcpstream_cli("skills", server.url)
    assert run.status == 0, run.err
    assert "skills-server (modern era, protocol 2026-07-28): 6 skills" in run.out
    assert "pdf-processing" in run.out and "skill://git-workflow/SKILL.md" in run.out
    assert "2 files" in run.out and "Follow the team's Git conventions" in run.out
    assert server.extension.reads == []


def test_skills_json_is_the_servers_listing(
    mcpstream_cli: RunCommand, server: SkillsServer
) -> None:
    run = mcpstream_cli("skills", server.url, "--json")
    assert run.status == 0, run.err
    document = json.loads(run.out)
    assert document["server"]["era"] == "modern"
    assert [skill["uri"] for skill in document["skills"]][:2] == [
        "skill://pdf-processing/SKILL.md",
        "skill://git-workflow/SKILL.md",
    ]


def test_read_prints_a_verified_file(mcpstream_cli: RunCommand, server: SkillsServer) -> None:
    run = mcpstream_cli("skills", server.url, "--read", "pdf-processing")
    assert run.status == 0, run.err
    assert run.out.startswith("---\nname: pdf-processing\n")
    args = ("--read", "skill://pdf-processing/SKILL.md", "--file", "references/FORMS.md")
    run = mcpstream_cli("skills", server.url, *args, "--json")
    assert run.status == 0, run.err
    document = json.loads(run.out)
    assert document["text"] == "Forms \u2713 caf\u00e9.\n"
    assert document["uri"] == "skill://pdf-processing/references/FORMS.md"


@pytest.mark.parametrize("check", ["digest", "size", "frontmatter"])
def test_a_tampered_file_is_not_printed(
    mcpstream_cli: RunCommand, server: SkillsServer, check: str
) -> None:
    run = mcpstream_cli("skills", server.url, "--read", f"tampered-{check}")
    assert run.status == 1
    assert run.out == ""
    assert_one_error_line(run.err, f"skill://tampered-{check}/SKILL.md", f"{check} check failed")


def test_unknown_skills_and_servers_without_the_extension_fail_in_one_line(
    mcpstream_cli: RunCommand, server: SkillsServer
) -> None:
    run = mcpstream_cli("skills", server.url, "--read", "nope")
    assert run.status == 1
    assert_one_error_line(run.err, "no skill named 'nope'")
    run = mcpstream_cli("skills", server.url, "--read", "pdf-processing", "--file", "../x")
    assert run.status == 1
    assert_one_error_line(run.err, "is not a file of the skill")
    run = mcpstream_cli("skills", server.url, "--protocol", "legacy")
    assert run.status == 1
    assert_one_error_line(run.err, "does not declare the skills extension")


def test_server_text_is_escaped(mcpstream_cli: RunCommand, server: SkillsServer) -> None:
    run = mcpstream_cli("skills", server.url)
    assert run.status == 0, run.err
    assert "\x1b" not in run.out and "\x07" not in run.out and "\x9b" not in run.out
    assert "[bold red]look[/]" in run.out
