"""The skills extension (SEP-2640): the I/O-free entries and checks of
``mcpstream.client.skills``, then ``Client`` and ``AsyncClient`` against a real server (the
official SDK's, with the skills extension of ``skills_server``), in both of its modes."""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conformance.client import BlockingAsyncClient
from mcpstream import AsyncClient, Client, McpError
from mcpstream.client.content import ResourceContents
from mcpstream.client.skills import (
    MAX_FRONTMATTER_BYTES,
    MAX_FRONTMATTER_DEPTH,
    MAX_SKILL_BYTES,
    MAX_SKILL_FILES,
    Skill,
    check_listed,
    find_skill,
    parse_frontmatter,
    resource_bytes,
    verify_file,
)
from mcpstream.errors import (
    McpProtocolError,
    McpSkillError,
    McpSkillIntegrityError,
    McpSkillsNotSupportedError,
)

from .skills_server import SKILLS, SkillsServer, skill_md, skills_server

URI = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"
SKILL_MD = skill_md("pdf-processing", "Extract PDF text", extra="license: MIT\n").encode()
FORMS_MD = b"Forms.\n"


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry(
    frontmatter: dict[str, Any] | None = None, skill_md: bytes = SKILL_MD, **changes: Any
) -> Skill:
    """The entry of a skill with ``SKILL.md`` (``skill_md``) and ``FORMS.md``."""
    raw: dict[str, Any] = {
        "uri": URI,
        "frontmatter": frontmatter
        or {"name": "pdf-processing", "description": "Extract PDF text", "license": "MIT"},
        "resources": [
            {"uri": URI, "digest": sha256(skill_md), "size": len(skill_md)},
            {"uri": FORMS, "digest": sha256(FORMS_MD), "size": len(FORMS_MD)},
        ],
    }
    raw.update(changes)
    return Skill.from_dict(raw)


def rejected(skill: Skill, uri: str, data: bytes) -> McpSkillIntegrityError:
    with pytest.raises(McpSkillIntegrityError) as caught:
        verify_file(skill, uri, data)
    error = caught.value
    assert (error.skill, error.uri) == (skill.uri, uri)
    assert error.check in str(error) and uri in str(error)
    return error


# -- entries --------------------------------------------------------------------------------------


def test_an_entry_holds_its_frontmatter_and_files() -> None:
    skill = entry()
    assert (skill.name, skill.description, skill.root) == (
        "pdf-processing",
        "Extract PDF text",
        "skill://pdf-processing",
    )
    assert skill.frontmatter["license"] == "MIT"
    assert skill.files is not None and [f.uri for f in skill.files] == [URI, FORMS]
    assert skill.file(FORMS) is not None and skill.file("skill://other/x") is None


def test_a_generated_skill_lists_no_files() -> None:
    assert entry(resources="dynamic").files is None


@pytest.mark.parametrize(
    "changes",
    [
        {"uri": None},
        {"frontmatter": {"name": "x"}},
        {"frontmatter": "name: x"},
        {"resources": None},
        {"resources": "all"},
        {"resources": [{"uri": URI, "digest": "sha256:00"}]},
        {"resources": [{"uri": URI, "digest": "sha256:00", "size": -1}]},
        {"resources": [{"uri": URI, "digest": "sha256:00", "size": True}]},
    ],
)
def test_an_entry_the_spec_forbids_loading_is_a_protocol_error(changes: dict[str, Any]) -> None:
    with pytest.raises(McpProtocolError):
        entry(**changes)


def test_file_paths_stay_inside_the_skill() -> None:
    skill = entry()
    assert skill.file_uri("SKILL.md") == URI
    assert skill.file_uri("references/FORMS.md") == FORMS
    assert skill.file_uri(FORMS) == FORMS
    for path in ("../other/SKILL.md", "/etc/passwd", "a//b", "./x", "skill://other/SKILL.md", ""):
        with pytest.raises(McpSkillError):
            skill.file_uri(path)


def test_a_name_finds_one_skill_or_says_why_not() -> None:
    one = entry()
    other = Skill.from_dict({**one.raw, "uri": "skill://team/pdf-processing/SKILL.md"})
    assert find_skill([one], "pdf-processing") is one
    with pytest.raises(McpSkillError, match="no skill named"):
        find_skill([one], "nope")
    with pytest.raises(McpSkillError, match="several skills") as caught:
        find_skill([one, other], "pdf-processing")
    assert other.uri in str(caught.value)


def test_resource_bytes_are_the_text_or_the_decoded_blob() -> None:
    text = ResourceContents(uri=URI, text="caf\u00e9", mime_type="text/markdown")
    assert resource_bytes([text], URI) == ("caf\u00e9".encode(), "text/markdown")
    blob = ResourceContents(uri=FORMS, blob=base64.b64encode(b"\x00\xff").decode())
    assert resource_bytes([text, blob], FORMS) == (b"\x00\xff", None)
    with pytest.raises(McpProtocolError, match="base64"):
        resource_bytes([ResourceContents(uri=URI, blob="not base64!")], URI)
    with pytest.raises(McpProtocolError, match="no contents"):
        resource_bytes([text], FORMS)


# -- verification ---------------------------------------------------------------------------------


def test_the_listed_content_passes() -> None:
    verify_file(entry(), URI, SKILL_MD)
    verify_file(entry(), FORMS, FORMS_MD)


def test_a_digest_mismatch_is_rejected() -> None:
    tampered = SKILL_MD.replace(b"Do the thing.", b"Do evil now!!")
    assert len(tampered) == len(SKILL_MD)
    assert rejected(entry(), URI, tampered).check == "digest"
    assert rejected(entry(), FORMS, b"Forms!\n").check == "digest"


def test_a_listed_digest_that_is_not_lowercase_sha256_matches_nothing() -> None:
    listed = entry().raw
    upper = {"uri": FORMS, "digest": sha256(FORMS_MD).upper(), "size": len(FORMS_MD)}
    skill = Skill.from_dict({**listed, "resources": [listed["resources"][0], upper]})
    assert rejected(skill, FORMS, FORMS_MD).check == "digest"


def test_a_size_mismatch_is_rejected_before_the_digest() -> None:
    assert rejected(entry(), URI, SKILL_MD + b"more\n").check == "size"
    assert rejected(entry(), FORMS, b"").check == "size"


def test_an_unlisted_file_is_rejected_and_a_generated_skill_allows_any() -> None:
    other = "skill://pdf-processing/scripts/run.sh"
    assert rejected(entry(), other, b"").check == "unlisted"
    with pytest.raises(McpSkillIntegrityError):
        check_listed(entry(), other)
    check_listed(entry(resources="dynamic"), other)
    verify_file(entry(resources="dynamic"), other, b"anything")


def test_a_skill_over_the_limits_is_not_read_at_all() -> None:
    listed = entry().raw["resources"]
    padding = [
        {"uri": f"skill://pdf-processing/f{k}", "digest": sha256(b""), "size": 0}
        for k in range(MAX_SKILL_FILES - len(listed))
    ]
    at_the_limit = entry(resources=[*listed, *padding])
    verify_file(at_the_limit, URI, SKILL_MD)
    one_more = {"uri": "skill://pdf-processing/extra", "digest": sha256(b""), "size": 0}
    too_many = entry(resources=[*listed, *padding, one_more])
    assert rejected(too_many, URI, SKILL_MD).check == "limits"
    room = MAX_SKILL_BYTES - len(SKILL_MD) - len(FORMS_MD)
    big = {"uri": "skill://pdf-processing/big.bin", "digest": sha256(b""), "size": room}
    verify_file(entry(resources=[*listed, big]), FORMS, FORMS_MD)
    too_big = entry(resources=[*listed, {**big, "size": room + 1}])
    assert rejected(too_big, FORMS, FORMS_MD).check == "limits"
    with pytest.raises(McpSkillIntegrityError, match="16777216 bytes a skill may have"):
        check_listed(too_big, FORMS)


@pytest.mark.parametrize(
    ("frontmatter", "field"),
    [
        ({"name": "pdf-processing", "description": "Other", "license": "MIT"}, "description"),
        ({"name": "pdf-processing", "description": "Extract PDF text"}, "license"),
        (
            {"name": "pdf-processing", "description": "Extract PDF text", "license": "MIT", "x": 1},
            "x",
        ),
        ({"name": "pdf-processing", "description": "Extract PDF text", "license": 1}, "license"),
    ],
)
def test_a_frontmatter_unlike_the_entry_is_rejected_naming_the_field(
    frontmatter: dict[str, Any], field: str
) -> None:
    error = rejected(entry(frontmatter), URI, SKILL_MD)
    assert (error.check, error.field) == ("frontmatter", field)


def test_the_frontmatter_is_compared_as_json_values() -> None:
    extra = "on: true\nn: 1\nr: 1.0\nday: 2026-07-28\nl: [a, {b: null}]\nflag: yes\n"
    text = skill_md("s", "d", extra=extra)
    listed = {"name": "s", "description": "d", "on": True, "n": 1.0, "r": 1}
    # YAML 1.2, as the entry's JSON: a date and "yes" are strings, "on" is a key.
    listed |= {"day": "2026-07-28", "l": ["a", {"b": None}], "flag": "yes"}
    verify_file(entry(listed, text.encode(), resources="dynamic"), URI, text.encode())
    # A bool is not a number (True == 1 in Python) and a number is not its string.
    for field, value in (("on", 1), ("n", True), ("n", "1")):
        error = rejected(entry({**listed, field: value}, resources="dynamic"), URI, text.encode())
        assert error.field == field


def test_a_generated_skills_frontmatter_is_still_checked() -> None:
    frontmatter = {"name": "pdf-processing", "description": "Other", "license": "MIT"}
    error = rejected(entry(frontmatter, resources="dynamic"), URI, SKILL_MD)
    assert error.check == "frontmatter"


def test_a_nested_skill_md_is_a_plain_file() -> None:
    nested = "skill://pdf-processing/inner/SKILL.md"
    listed = entry().raw
    resources = [*listed["resources"], {"uri": nested, "digest": sha256(b"x"), "size": 1}]
    verify_file(Skill.from_dict({**listed, "resources": resources}), nested, b"x")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b"no frontmatter\n", "does not begin"),
        (b"\n---\nname: x\n---\n", "does not begin"),
        (b"---\nname: x\ndescription: y\n", "no closing"),
        (b"---\nname: [x\n---\n", "malformed"),
        (b"---\n- a list\n---\n", "not a mapping"),
        (b"---\n1: one\n---\n", "not a mapping"),
        (b"---\n---\n", "not a mapping"),
        (b"---\nname: caf\xe9\n---\n", "not UTF-8"),
        (b"---\nname: !!python/object/apply:os.system ['true']\n---\n", "malformed"),
        (b"---\nname: !!binary aGk=\n---\n", None),  # bytes: no JSON value equals it
    ],
)
def test_a_missing_or_malformed_frontmatter_is_rejected(text: bytes, reason: str | None) -> None:
    skill = entry(skill_md=text)
    error = rejected(skill, URI, text)
    assert error.check == "frontmatter"
    if reason is not None:
        assert reason in str(error)


def test_the_frontmatter_may_end_in_crlf() -> None:
    text = SKILL_MD.replace(b"\n", b"\r\n")
    verify_file(entry(skill_md=text), URI, text)


def test_hostile_yaml_is_refused_fast() -> None:
    # The billion laughs: nine levels of nine aliases each.
    laughs = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    deep = "x: " + "[" * (MAX_FRONTMATTER_DEPTH + 1) + "]" * (MAX_FRONTMATTER_DEPTH + 1)
    very_deep = "x: " + "[" * 100_000 + "]" * 100_000
    big = "x: '" + "a" * MAX_FRONTMATTER_BYTES + "'"
    for source, reason in (
        ("\n".join(laughs), "alias"),
        (deep, "deeper"),
        (very_deep, "deeper"),
        (big, "larger"),
    ):
        started = time.perf_counter()
        with pytest.raises(ValueError, match=reason):
            parse_frontmatter(f"---\n{source}\n---\n".encode())
        assert time.perf_counter() - started < 5.0


def test_the_deepest_allowed_nesting_parses() -> None:
    depth = MAX_FRONTMATTER_DEPTH - 1  # the mapping itself is one level
    value = parse_frontmatter(f"---\nx: {'[' * (depth - 1)}{']' * (depth - 1)}\n---\n".encode())
    assert "x" in value


# -- against a real server ------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["sse", "json"])
def served(request: pytest.FixtureRequest) -> Iterator[SkillsServer]:
    with skills_server(json_response=request.param == "json") as server:
        yield server


@pytest.fixture(params=["httpx", "httpx2"])
def http_stack(request: pytest.FixtureRequest) -> str:
    """The line of httpx the clients' transports run on (``http_stack``)."""
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def make_client(
    request: pytest.FixtureRequest, served: SkillsServer, http_stack: str
) -> Iterator[Any]:
    """``make_client(**options)``: a connected ``Client``, or an ``AsyncClient`` driven from
    this thread (the same calls, awaited on a loop of its own), on httpx and on httpx2; the
    server's logs cleared."""
    served.extension.reads.clear()
    served.extension.calls.clear()
    opened: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("http_stack", http_stack)
        if request.param == "sync":
            client: Any = Client(served.url, **options)
        else:
            client = BlockingAsyncClient(lambda: AsyncClient(served.url, **options))
        opened.append(client)
        client.connect()
        return client

    yield make
    for client in opened:
        client.close()


def test_listing_pages_through_every_skill_and_reads_nothing(
    make_client: Any, served: SkillsServer
) -> None:
    client = make_client()
    skills = client.list_skills()
    assert [skill.name for skill in skills] == [skill.name for skill in SKILLS]
    assert served.extension.calls == ["skills/list"] * 3  # pages of 2
    pdf = skills[0]
    assert pdf.uri == "skill://pdf-processing/SKILL.md" and pdf.files is not None
    assert len(pdf.files) == 2
    assert served.extension.reads == []  # never a file ahead of need


def test_a_skill_is_read_on_demand_and_verified(make_client: Any, served: SkillsServer) -> None:
    client = make_client()
    skill = client.read_skill("pdf-processing")  # lists first: no listing held yet
    assert skill.text.startswith("---\nname: pdf-processing\n")
    assert skill.mime_type == "text/markdown" and skill.uri == "skill://pdf-processing/SKILL.md"
    forms = client.read_skill(skill.skill, "references/FORMS.md")
    assert forms.text == "Forms \u2713 caf\u00e9.\n"
    by_uri = client.read_skill("skill://git-workflow/SKILL.md")  # from the listing held
    assert by_uri.skill.name == "git-workflow"
    assert served.extension.reads == [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
        "skill://git-workflow/SKILL.md",
    ]
    assert served.extension.calls == ["skills/list"] * 3


def test_a_uri_not_listed_is_fetched_with_skills_get(
    make_client: Any, served: SkillsServer
) -> None:
    client = make_client()
    assert client.get_skill("skill://git-workflow/SKILL.md").name == "git-workflow"
    assert client.read_skill("skill://git-workflow/SKILL.md").skill.name == "git-workflow"
    assert served.extension.calls == ["skills/get"] * 2
    with pytest.raises(McpError) as caught:
        client.get_skill("skill://nope/SKILL.md")
    assert caught.value.code == McpError.INVALID_PARAMS


@pytest.mark.parametrize(
    ("name", "check", "field"),
    [
        ("tampered-digest", "digest", None),
        ("tampered-size", "size", None),
        ("tampered-frontmatter", "frontmatter", "description"),
    ],
)
def test_a_tampered_skill_md_is_rejected(
    make_client: Any, served: SkillsServer, name: str, check: str, field: str | None
) -> None:
    client = make_client()
    with pytest.raises(McpSkillIntegrityError) as caught:
        client.read_skill(name)
    assert (caught.value.check, caught.value.field) == (check, field)
    assert caught.value.uri == f"skill://{name}/SKILL.md"
    assert served.extension.reads == [f"skill://{name}/SKILL.md"]


def test_an_unlisted_file_is_not_even_read(make_client: Any, served: SkillsServer) -> None:
    client = make_client()
    with pytest.raises(McpSkillIntegrityError) as caught:
        client.read_skill("pdf-processing", "references/OTHER.md")
    assert caught.value.check == "unlisted"
    assert served.extension.reads == []


def test_the_handshake_era_has_no_skills(make_client: Any, served: SkillsServer) -> None:
    # The extension is defined against 2026-07-28: the SDK declares extensions only there.
    client = make_client(protocol="legacy")
    for call in (client.list_skills, lambda: client.read_skill("pdf-processing")):
        with pytest.raises(McpSkillsNotSupportedError, match="does not declare"):
            call()
    assert served.extension.calls == [] and served.extension.reads == []
