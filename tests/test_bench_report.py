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
TABLES = ("codec", "parse", "linearity", "transport", "sessions", "httpx2")


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


def test_the_pages_quote_the_figures_of_the_benchmarks_page() -> None:
    # One source: what README.md, docs/httpx2.md and docs/sdk.md show is derived from the
    # tables of the benchmarks page (`benches/report.py --quote` writes it).
    report = load_report()
    quotes = report.quoted_figures(PAGE.read_text(encoding="utf-8"))
    for page, names in report.FIGURE_PAGES.items():
        text = (ROOT / page).read_text(encoding="utf-8")
        for name in names:
            block = f"<!-- figures:{name} -->\n\n{quotes[name]}\n\n<!-- /figures:{name} -->"
            assert block in text, f"{page}: run `python benches/report.py --quote`"


def test_a_quote_follows_the_benchmarks_page(tmp_path: Path) -> None:
    report = load_report()
    page = PAGE.read_text(encoding="utf-8")
    before = report.quoted_figures(page)
    sessions = report.read_tables(page)["sessions"]
    reference = next(row["reference"] for row in sessions if row["workload"].startswith("300"))
    changed = page.replace(f"| {reference} |", "| 1,570 |", 1)
    after = report.quoted_figures(changed)
    assert before["headline"] != after["headline"]
    assert "reference transport, 1,570 us" in after["headline"]
    for directory in ("docs",):
        (tmp_path / directory).mkdir()
    (tmp_path / "docs" / "benchmarks.md").write_text(changed, encoding="utf-8")
    for name in report.FIGURE_PAGES:
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    report.write_quotes(tmp_path)
    assert "reference transport, 1,570 us" in (tmp_path / "README.md").read_text(encoding="utf-8")
