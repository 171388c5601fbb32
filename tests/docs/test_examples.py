"""Every Python example of the README and the documentation runs as written, against the demo.

The fenced ``python`` blocks of ``README.md`` and ``docs/*.md`` are collected (the pages of
the site: ``docs/contributing.md`` only includes ``CONTRIBUTING.md``). Each block runs alone,
in a fresh interpreter, as a reader would paste it into a file, against the demo server started
as the pages say (``mcpstream demo --serve --port 8000``) on a free port: the examples' URL
``http://127.0.0.1:8000`` is rewritten to that port, nothing else. A block that is deliberately
not a whole program (a fragment of a call, a configuration shown alone) says so in its fence's
info string, as a class (which the site's Markdown accepts and GitHub ignores):
```` ```python {.fragment} ````; those are compiled, not run, and kept few. A block that needs an
agent framework (```` ```python {.framework} ````, in ``docs/frameworks.md``) is compiled here and
run by ``tests/frameworks/test_recipes.py`` in the frameworks' own environment, or, where its
fence names another of ``ENVIRONMENTS`` (```` ```python {.framework .adk} ````, ``.sdk1x`` for
the SDK's 1.x line), by the ``test_recipes.py`` of that environment's suite (``recipes``).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DEMO_URL = "http://127.0.0.1:8000"
FRAGMENT = "fragment"
FRAMEWORK = "framework"
ENVIRONMENTS = ("adk", "sdk1x")
"""The framework environments of their own a recipe's fence may name (scripts/framework-tests.sh:
Google ADK's, the SDK 1.x line's)."""
RUN_TIMEOUT_S = 120.0
START_TIMEOUT_S = 60.0
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")


@dataclass(frozen=True)
class Example:
    """One fenced block: its page, first line (1-based), info string words and code."""

    page: Path
    line: int
    info: tuple[str, ...]
    code: str
    raw_info: str = ""

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def fragment(self) -> bool:
        return FRAGMENT in self.info[1:]

    @property
    def framework(self) -> bool:
        """Needs an agent framework: run by tests/frameworks/test_recipes.py."""
        return FRAMEWORK in self.info[1:]

    @property
    def environment(self) -> str | None:
        """The framework environment of its own the block names (``ENVIRONMENTS``), if any."""
        return next((word for word in self.info[1:] if word in ENVIRONMENTS), None)


def recipes(environment: str | None) -> list[Example]:
    """The framework recipes of docs/frameworks.md to run in ``environment`` (None: the 2.x
    frameworks' environment, tests/frameworks/)."""
    return [
        block
        for block in fenced_blocks(ROOT / "docs" / "frameworks.md")
        if block.framework and block.environment == environment
    ]


def fenced_blocks(page: Path) -> Iterator[Example]:
    """The fenced code blocks of ``page`` (any language), in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or not opening["info"].strip():
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        body: list[str] = []
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            body.append(lines[end][indent:])
            end += 1
        info = tuple(opening["info"].replace("{", " ").replace("}", " ").replace(".", " ").split())
        raw = opening["info"].strip()
        yield Example(page, index + 1, info, "\n".join(body) + "\n", raw)
        index = end + 1


def python_examples() -> list[Example]:
    """Every ``python`` block of the README and the documentation pages."""
    return [
        block
        for page in PAGES
        for block in fenced_blocks(page)
        if block.info and block.info[0] in ("python", "py")
    ]


EXAMPLES = python_examples()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def demo_port() -> Iterator[int]:
    """The demo server as the pages start it (``mcpstream demo --serve --port N``)."""
    port = _free_port()
    command = [sys.executable, "-m", "mcpstream.cli", "demo", "--serve", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _accepts(port):
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            assert time.monotonic() < deadline, "the demo server did not start"
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_pages_have_examples_and_few_fragments() -> None:
    pages = {example.page.name for example in EXAMPLES}
    assert {"README.md", "client.md", "getting-started.md", "sdk.md", "skills.md"} <= pages
    fragments = [example.id for example in EXAMPLES if example.fragment]
    assert len(fragments) <= len(EXAMPLES) // 4, fragments


def test_every_python_fence_renders_on_the_site() -> None:
    # The site's Markdown (pymdownx.superfences) takes a fence's language and then only
    # {attributes}: "python fragment" would render as a paragraph of text, not as code.
    wrong = [
        example.id
        for example in EXAMPLES
        if not re.fullmatch(r"(python|py)( \{[^}]*\})?", example.raw_info)
    ]
    assert wrong == []


def test_the_fence_parser_reads_info_strings_and_indented_blocks(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python {.fragment}\nf(x)\n```\n\n- item\n\n  ```python\n  print(1)\n  ```\n"
        "\n```sh\nls\n```\n"
    )
    blocks = list(fenced_blocks(page))
    assert [(b.line, b.info, b.code) for b in blocks] == [
        (3, ("python", "fragment"), "f(x)\n"),
        (9, ("python",), "print(1)\n"),
        (13, ("sh",), "ls\n"),
    ]
    assert blocks[0].fragment and not blocks[1].fragment


@pytest.mark.parametrize(
    "example", [e for e in EXAMPLES if e.fragment or e.framework], ids=lambda e: e.id
)
def test_a_fragment_compiles(example: Example) -> None:
    compile(example.code, example.id, "exec")


@pytest.mark.parametrize(
    "example", [e for e in EXAMPLES if not (e.fragment or e.framework)], ids=lambda e: e.id
)
def test_the_example_runs_as_written(example: Example, demo_port: int, tmp_path: Path) -> None:
    run_example(example, demo_port, tmp_path)


def run_example(example: Example, demo_port: int, tmp_path: Path) -> None:
    """Run ``example`` as a script of its own against the demo server on ``demo_port``."""
    code = example.code.replace(DEMO_URL, f"http://127.0.0.1:{demo_port}")
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert run.returncode == 0, f"{example.id} failed:\n{run.stdout}\n{run.stderr}"
