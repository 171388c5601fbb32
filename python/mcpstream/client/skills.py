"""The skills extension (SEP-2640, ``io.modelcontextprotocol/skills``), without I/O: the entries
``skills/list`` and ``skills/get`` return, and the checks every skill file read must pass before
its content reaches the host.

A skill is a directory of files served as ordinary resources (read with ``resources/read``),
addressed by the URI of its ``SKILL.md``. Its entry lists every file with the SHA-256 ``digest``
and byte ``size`` of its content, and carries ``SKILL.md``'s YAML frontmatter as a JSON object.
A file read is checked (:func:`verify_file`) against its entry: its byte length, its digest and,
for the skill's own ``SKILL.md``, its frontmatter field by field; a file the entry does not list
is not read at all, and neither is any file of a skill that lists more than
:data:`MAX_SKILL_FILES` files or :data:`MAX_SKILL_BYTES` bytes in all (the limits SEP-2640 sets
servers; a host reading a whole skill reads at most that much). Any failure is an
``McpSkillIntegrityError`` and the content is dropped.

The frontmatter is parsed by PyYAML's safe loader (no Python objects, no code) with three
restrictions of this module: no aliases (an anchor reused ten times ten times over is the
"billion laughs"), at most :data:`MAX_FRONTMATTER_DEPTH` levels of nesting, at most
:data:`MAX_FRONTMATTER_BYTES` bytes; and two YAML 1.2 rules where PyYAML follows YAML 1.1:
timestamps stay strings, as they are in the entry's JSON, and only ``true`` and ``false`` are
booleans (``yes``, ``on`` stay strings). Digests come from the same server as the content: a
match proves the two consistent, not trustworthy.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .._text import sanitize
from ..errors import McpProtocolError, McpSkillError, McpSkillIntegrityError
from ._fields import dict_or_none, int_or_none, str_or_none
from .content import ResourceContents

__all__ = [
    "DYNAMIC",
    "MAX_FRONTMATTER_BYTES",
    "MAX_FRONTMATTER_DEPTH",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "SKILLS_EXTENSION",
    "SKILL_FILE",
    "Skill",
    "SkillFile",
    "SkillFileContent",
    "check_listed",
    "find_skill",
    "parse_frontmatter",
    "resource_bytes",
    "verify_file",
]

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
"""The extension's identifier, under ``capabilities.extensions`` of a server that serves it."""
SKILL_FILE = "SKILL.md"
DYNAMIC = "dynamic"
"""The ``resources`` of a generated skill: no file list, so no digest or size to check."""
MAX_FRONTMATTER_BYTES = 256 * 1024
MAX_FRONTMATTER_DEPTH = 32
MAX_SKILL_FILES = 512
"""The most files a skill's entry may list (``SKILL.md`` included), as SEP-2640 limits servers."""
MAX_SKILL_BYTES = 16 * 1024 * 1024
"""The most bytes a skill's files may hold together, as SEP-2640 limits servers."""
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill's entry: its resource ``uri``, the ``digest`` (``sha256:`` and 64
    lowercase hex digits) and ``size`` (bytes) its content must have."""

    uri: str
    digest: str
    size: int

    @classmethod
    def from_dict(cls, item: Any) -> SkillFile:
        """Parse one entry of a skill's ``resources``."""
        item = dict_or_none(item) or {}
        uri, digest = str_or_none(item.get("uri")), str_or_none(item.get("digest"))
        size = int_or_none(item.get("size"))
        if uri is None or digest is None or size is None or size < 0:
            raise McpProtocolError(
                "the server sent a skill file without a 'uri', 'digest' and 'size'"
            )
        return cls(uri=uri, digest=digest, size=size)


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill's entry (``skills/list``, ``skills/get``): the ``uri`` of its ``SKILL.md``, its
    ``name`` and ``description``, the whole ``frontmatter`` as the server rendered it, and its
    ``files`` (None for a generated skill, whose ``resources`` is ``"dynamic"``: nothing to
    verify its files against). Names are labels, not identifiers: two skills of one server may
    share one; the ``uri`` is unique."""

    uri: str
    name: str
    description: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...] | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, item: Any) -> Skill:
        """Parse one skill entry; ``McpProtocolError`` for an entry without its ``uri``, its
        frontmatter's ``name`` and ``description``, or its ``resources`` (a list or
        ``"dynamic"``: the spec forbids loading any other)."""
        entry = dict_or_none(item) or {}
        uri = str_or_none(entry.get("uri"))
        frontmatter = dict_or_none(entry.get("frontmatter")) or {}
        name = str_or_none(frontmatter.get("name"))
        description = str_or_none(frontmatter.get("description"))
        if uri is None or name is None or description is None:
            raise McpProtocolError(
                "the server sent a skill without a 'uri' and a frontmatter 'name' and 'description'"
            )
        resources = entry.get("resources")
        if resources != DYNAMIC and not isinstance(resources, list):
            raise McpProtocolError(
                f"the server sent the skill {sanitize(uri)} without a 'resources' list"
            )
        files = None if resources == DYNAMIC else tuple(map(SkillFile.from_dict, resources))
        return cls(uri, name, description, frontmatter, files, raw=entry)

    @property
    def root(self) -> str:
        """The skill's directory: its ``SKILL.md`` URI without the last segment."""
        return self.uri.rpartition("/")[0]

    def file_uri(self, path: str) -> str:
        """The URI of the file at ``path`` in the skill (``SKILL.md``, ``references/FORMS.md``,
        or a URI under the skill's directory); ``McpSkillError`` for a path that leaves it."""
        if path == SKILL_FILE:
            return self.uri
        uri = path if "://" in path else f"{self.root}/{path}"
        relative = uri.removeprefix(self.root + "/")
        segments = relative.split("/")
        if relative == uri or any(segment in ("", ".", "..") for segment in segments):
            raise McpSkillError(
                f"{sanitize(path)!r} is not a file of the skill {sanitize(self.uri)}"
            )
        return uri

    def file(self, uri: str) -> SkillFile | None:
        """The entry's file at ``uri`` (None when the entry does not list it)."""
        return next((item for item in self.files or () if item.uri == uri), None)


@dataclass(frozen=True, slots=True)
class SkillFileContent:
    """A verified skill file of ``skill``, read at ``uri``: its ``data`` (the bytes its size and
    digest were checked on) and ``mime_type`` (None when the server gave none)."""

    skill: Skill
    uri: str
    data: bytes
    mime_type: str | None

    @property
    def text(self) -> str:
        """The content as UTF-8 text (undecodable bytes replaced)."""
        return self.data.decode("utf-8", errors="replace")


def resource_bytes(contents: Iterable[ResourceContents], uri: str) -> tuple[bytes, str | None]:
    """The raw bytes (``text`` as UTF-8, ``blob`` decoded from base64) and MIME type of the
    ``resources/read`` contents for ``uri``; ``McpProtocolError`` when there are none."""
    for item in contents:
        if item.uri != uri:
            continue
        if item.text is not None:
            return item.text.encode("utf-8"), item.mime_type
        if item.blob is not None:
            try:
                return base64.b64decode(item.blob, validate=True), item.mime_type
            except (binascii.Error, ValueError):
                raise McpProtocolError(
                    f"the server sent {sanitize(uri)} as a blob that is not base64"
                ) from None
    raise McpProtocolError(f"the server's 'resources/read' answer has no contents for {uri}")


def find_skill(skills: Iterable[Skill], name: str) -> Skill:
    """The one skill called ``name`` among ``skills``; ``McpSkillError`` when none is, or when
    several are (names are not unique: then the message lists their URIs, to pick one by)."""
    matches = [skill for skill in skills if skill.name == name]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise McpSkillError(f"the server lists no skill named {sanitize(name, 60)!r}")
    uris = ", ".join(sanitize(skill.uri) for skill in matches[:5])
    raise McpSkillError(f"several skills are named {sanitize(name, 60)!r}: pass a URI ({uris})")


def check_listed(skill: Skill, uri: str) -> None:
    """``McpSkillIntegrityError`` unless ``skill`` may be read at ``uri``: check ``"limits"``
    when its entry lists more than ``MAX_SKILL_FILES`` files or ``MAX_SKILL_BYTES`` bytes,
    ``"unlisted"`` when it does not list the file ``uri`` (any file of a generated skill is
    allowed): the client does not even read such a file (an unlisted one would be a change to
    the skill)."""
    if skill.files is None:
        return
    total = sum(item.size for item in skill.files)
    if len(skill.files) > MAX_SKILL_FILES or total > MAX_SKILL_BYTES:
        what = f"belongs to a skill of {len(skill.files)} files and {total} bytes, more than "
        what += f"the {MAX_SKILL_FILES} files and {MAX_SKILL_BYTES} bytes a skill may have"
        raise _failure(skill, uri, "limits", what)
    if skill.file(uri) is None:
        raise _failure(skill, uri, "unlisted", "is not listed in the skill's resources")


def verify_file(skill: Skill, uri: str, data: bytes) -> None:
    """Check the bytes read at ``uri`` against ``skill``'s entry (module docstring):
    ``McpSkillIntegrityError`` naming the check that failed. The entry's own ``SKILL.md`` (and
    only it: a nested skill's ``SKILL.md`` is a plain file here) has its frontmatter compared
    too, a generated skill's included."""
    check_listed(skill, uri)
    listed = skill.file(uri)
    if listed is not None:
        if len(data) != listed.size:
            message = f"is {len(data)} bytes long, the skill lists {listed.size}"
            raise _failure(skill, uri, "size", message)
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        if not _DIGEST.fullmatch(listed.digest) or digest != listed.digest:
            raise _failure(skill, uri, "digest", "does not match the digest the skill lists")
    if uri == skill.uri:
        try:
            frontmatter = parse_frontmatter(data)
        except ValueError as exc:
            raise _failure(skill, uri, "frontmatter", str(exc)) from None
        name = _first_difference(frontmatter, skill.frontmatter)
        if name is not None:
            message = f"has a frontmatter field {sanitize(name, 60)!r} unlike the skill's entry"
            raise _failure(skill, uri, "frontmatter", message, name)


def _failure(
    skill: Skill, uri: str, check: str, what: str, name: str | None = None
) -> McpSkillIntegrityError:
    message = f"skill file {sanitize(uri)} {what} ({check} check failed); its content is dropped"
    return McpSkillIntegrityError(message, skill=skill.uri, uri=uri, check=check, field=name)


# -- the frontmatter --------------------------------------------------------------------------


def parse_frontmatter(data: bytes) -> dict[str, Any]:
    """The YAML frontmatter of a ``SKILL.md`` (between its opening ``---`` line and the next
    ``---`` line) as a mapping; ``ValueError`` saying why there is none (no UTF-8, no
    delimiters, malformed or hostile YAML, not a mapping with string keys)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("is not UTF-8") from None
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise ValueError("does not begin with a '---' frontmatter line")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip("\r\n") == "---"), None)
    if end is None:
        raise ValueError("has no closing '---' frontmatter line")
    source = "".join(lines[1:end])
    if len(source.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise ValueError(f"has a frontmatter larger than {MAX_FRONTMATTER_BYTES} bytes")
    # PyYAML is imported here, at the first skill read, not with mcpstream (a host that reads
    # no skill never pays its import).
    from ._frontmatter import load_frontmatter

    value = load_frontmatter(source, max_depth=MAX_FRONTMATTER_DEPTH)
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError("has a frontmatter that is not a mapping of names")
    return value


def _first_difference(parsed: dict[str, Any], listed: dict[str, Any]) -> str | None:
    """The first field (in name order) missing from one side or unequal; None if none."""
    for name in sorted(set(parsed) | set(listed)):
        if name not in parsed or name not in listed or not _same(parsed[name], listed[name]):
            return name
    return None


def _same(a: Any, b: Any) -> bool:
    """JSON equality: a bool is not a number (``True == 1`` in Python), 1 and 1.0 are one
    number, and a YAML type JSON lacks (a set, bytes) equals nothing from the entry."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b
