"""The recipes of docs/frameworks.md that need a framework (``python {.framework}`` blocks, only
compiled by tests/docs/test_examples.py) run as written against the demo server, here where the
frameworks are installed (a recipe whose fence names another environment, ``{.framework .adk}``
or ``{.framework .sdk1x}``, runs in that one: tests/frameworks_adk/, tests/frameworks_1x/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.test_examples import Example, demo_port, recipes, run_example

__all__ = ["demo_port"]

RECIPES = recipes(None)


def test_each_framework_has_a_recipe() -> None:
    code = "".join(recipe.code for recipe in RECIPES)
    for name in ("fastmcp", "pydantic_ai", "agents", "llama_index"):
        assert f"import {name}" in code or f"from {name}" in code, name


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.id)
def test_the_recipe_runs_as_written(recipe: Example, demo_port: int, tmp_path: Path) -> None:
    run_example(recipe, demo_port, tmp_path)
