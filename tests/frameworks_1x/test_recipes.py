"""The recipes of docs/frameworks.md for the frameworks of the SDK's 1.x line (``python
{.framework .sdk1x}`` blocks, only compiled by tests/docs/test_examples.py) run as written, here
where those frameworks are installed. The demo server needs the SDK's 2.x line, which this
environment does not have: the recipes meet the 1.x SDK's server of ``server_url`` instead,
which has the demo's ``echo`` at the same path (the port is rewritten as for the demo)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.docs.test_examples import Example, recipes, run_example

RECIPES = recipes("sdk1x")


def test_each_framework_has_a_recipe() -> None:
    code = "".join(recipe.code for recipe in RECIPES)
    for name in ("strands", "mcp_proxy"):
        assert f"import {name}" in code or f"from {name}" in code or f"{name}." in code, name


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.id)
def test_the_recipe_runs_as_written(recipe: Example, server_url: str, tmp_path: Path) -> None:
    port = urlsplit(server_url).port
    assert port is not None
    run_example(recipe, port, tmp_path)
