"""``mcpstream skills URL``: the skills an MCP server serves (the skills extension, SEP-2640),
and with ``--read NAME`` one skill file, printed only once verified against the skill's entry."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from ..client import Skill
from ..client.skills import SKILL_FILE
from ..errors import McpSkillError
from ._common import EXIT_ERROR, EXIT_OK, add_command, fail, open_client, print_listing_header
from ._output import markup_safe, one_line, out_console, plain, print_json, server_json

__all__ = ["register"]


def files_summary(skill: Skill) -> str:
    """How many files the skill lists (``dynamic`` for a generated skill)."""
    if skill.files is None:
        return "dynamic"
    return f"{len(skill.files)} file{'s' if len(skill.files) != 1 else ''}"


def run_skills(args: argparse.Namespace) -> int:
    """List the skills an MCP server serves (every page of skills/list; no skill file is read),
    or, with --read, print one file of a skill, read with resources/read and verified against
    the skill's entry (its size and SHA-256 digest and, for SKILL.md, its YAML frontmatter):
    a file that fails a check is not printed, and the command exits 1 naming the check."""
    try:
        with open_client(args) as client:
            info = client.connect()
            if args.read is not None:
                content = client.read_skill(args.read, args.file)
                if args.json:
                    print_json(
                        {"skill": content.skill.raw, "uri": content.uri, "text": content.text}
                    )
                else:
                    out_console().file.write(plain(content.text))
                return EXIT_OK
            skills = client.list_skills()
    except McpSkillError as exc:
        return fail(str(exc), EXIT_ERROR)
    if args.json:
        print_json({"server": server_json(info), "skills": [skill.raw for skill in skills]})
        return EXIT_OK
    console = print_listing_header(info, len(skills), "skill")
    if skills:
        table = Table("skill", "uri", "files", "description", header_style="bold")
        for skill in skills:
            table.add_row(
                f"[cyan]{markup_safe(skill.name)}[/]",
                markup_safe(skill.uri),
                files_summary(skill),
                markup_safe(one_line(skill.description, 120)),
            )
        console.print(table)
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add the ``skills`` command (its options: which skill file to read, if any)."""
    summary = "list the skills of an MCP server, or read one (verified)"
    parser = add_command(
        subparsers, "skills", run_skills, summary, connection=True, json_output=True
    )
    parser.add_argument(
        "--read",
        metavar="SKILL",
        help="print a file of this skill (a name, or the URI of its SKILL.md), once its size, "
        "digest and frontmatter match the skill's entry",
    )
    parser.add_argument(
        "--file",
        default=SKILL_FILE,
        metavar="PATH",
        help=f"the file of --read, relative to the skill's directory (default: {SKILL_FILE})",
    )
