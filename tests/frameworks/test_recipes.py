"""The recipes of docs/frameworks.md that need a framework (``python {.framework}`` blocks, only
compiled by tests/docs/test_examples.py) run as written against the demo server, here where the
frameworks are installed (a recipe whose fence names another environment, ``{.framework .adk}``,
runs in that one: tests/frameworks_adk/test_recipes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.test_examples import ROOT, Example, demo_port, fenced_blocks, run_example

__all__ = ["demo_port", "recipes"]

ENVIRONMENTS = ("adk",)
"""The environments of their own a recipe's fence may name (scripts/framework-tests.sh)."""


def recipes(environment: str | None) -> list[Example]:
    """The framework recipes of docs/frameworks.md to run in ``environment`` (None: this one)."""
    return [
        block
        for block in fenced_blocks(ROOT / "docs" / "frameworks.md")
        if block.framework
        and next((word for word in block.info if word in ENVIRONMENTS), None) == environment
    ]


RECIPES = recipes(None)


def test_each_framework_has_a_recipe() -> None:
    code = "".join(recipe.code for recipe in RECIPES)
    for name in ("fastmcp", "pydantic_ai", "agents", "llama_index"):
        assert f"import {name}" in code or f"from {name}" in code, name


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.id)
def test_the_recipe_runs_as_written(recipe: Example, demo_port: int, tmp_path: Path) -> None:
    run_example(recipe, demo_port, tmp_path)
