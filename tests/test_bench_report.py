"""``benches/report.py --markdown``: the benchmarks page's tables are written by the report,
block by block, and the page's prose is left as it is."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "benchmarks.md"
TABLES = ("codec", "parse", "linearity", "transport", "sessions")


def load_report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "benches" / "report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_blocks(text: str) -> str:
    return re.sub(r"<!-- report:(\w+) -->.*?<!-- /report:\1 -->", "", text, flags=re.DOTALL)


def test_every_table_of_the_report_has_its_block_in_the_page(tmp_path: Path) -> None:
    report = load_report()
    page = tmp_path / "benchmarks.md"
    page.write_text(PAGE.read_text(encoding="utf-8"), encoding="utf-8")
    tables = {name: f"| {name} |\n|---|\n| new figure |" for name in TABLES}
    report.write_markdown(page, tables)
    written = page.read_text(encoding="utf-8")
    for name in TABLES:
        table = f"| {name} |\n|---|\n| new figure |"
        assert f"<!-- report:{name} -->\n\n{table}\n\n<!-- /report:{name} -->" in written
    assert without_blocks(written) == without_blocks(PAGE.read_text(encoding="utf-8"))
    # Written again, the page does not change: the blocks are replaced, not appended to.
    report.write_markdown(page, tables)
    assert page.read_text(encoding="utf-8") == written


def test_a_table_without_its_block_writes_nothing(tmp_path: Path) -> None:
    report = load_report()
    page = tmp_path / "page.md"
    page.write_text("# Benchmarks\n\n<!-- report:codec -->\nold\n<!-- /report:codec -->\n")
    before = page.read_text()
    with pytest.raises(SystemExit, match="report:parse"):
        report.write_markdown(page, {"codec": "| new |", "parse": "| new |"})
    assert page.read_text() == before
