"""The demo server's skills (SEP-2640, ``io.modelcontextprotocol/skills``; imports the ``mcp``
SDK: load it only through ``mcpstream.demo.server``): one skill, ``pdf-processing``, whose
``SKILL.md`` and ``references/FORMS.md`` are resources, listed with their digest and size by
``skills/list`` and ``skills/get``. The SDK has no skills of its own; this is the least a
server declaring the extension serves."""

from __future__ import annotations

import hashlib
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams

__all__ = ["SKILLS_EXTENSION", "DemoSkills"]

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
_NAME = "pdf-processing"
_DESCRIPTION = "Extract, fill, and assemble PDF documents"
_FILES = {
    "SKILL.md": (
        f"---\nname: {_NAME}\ndescription: {_DESCRIPTION}\n---\n\n"
        "# PDF processing\n\nRead references/FORMS.md before filling a form.\n"
    ),
    "references/FORMS.md": "# Forms\n\nFill every required field; keep the original.\n",
}


def _entry() -> dict[str, Any]:
    resources = [
        {
            "uri": f"skill://{_NAME}/{path}",
            "digest": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
            "size": len(text.encode()),
        }
        for path, text in _FILES.items()
    ]
    frontmatter = {"name": _NAME, "description": _DESCRIPTION}
    return {"uri": f"skill://{_NAME}/SKILL.md", "frontmatter": frontmatter, "resources": resources}


class _SkillUri(RequestParams):
    """The params of ``skills/get``."""

    uri: str


class DemoSkills(Extension):
    """The skills extension serving ``pdf-processing``."""

    identifier = SKILLS_EXTENSION

    def resources(self) -> list[ResourceBinding]:
        """Each file of the skill, a text resource."""
        return [
            ResourceBinding(
                TextResource(
                    uri=f"skill://{_NAME}/{path}", name=path, mime_type="text/markdown", text=text
                )
            )
            for path, text in _FILES.items()
        ]

    def methods(self) -> list[MethodBinding]:
        """``skills/list`` and ``skills/get``."""
        return [
            MethodBinding("skills/list", PaginatedRequestParams, self._list),
            MethodBinding("skills/get", _SkillUri, self._get),
        ]

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        return {"skills": [_entry()], "ttlMs": 0, "cacheScope": "public"}

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        entry = _entry()
        if params.uri != entry["uri"]:
            raise MCPError(-32602, f"No skill is served at {params.uri}")
        return {"skill": entry, "ttlMs": 0, "cacheScope": "public"}
