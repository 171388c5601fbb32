"""The recipe of docs/frameworks.md for Google ADK (``python {.framework .adk}``) runs as written
against the demo server, in ADK's environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.test_examples import Example, demo_port, recipes, run_example

__all__ = ["demo_port"]

RECIPES = recipes("adk")


def test_adk_has_a_recipe() -> None:
    assert [recipe for recipe in RECIPES if "from google.adk" in recipe.code]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda recipe: recipe.id)
def test_the_recipe_runs_as_written(recipe: Example, demo_port: int, tmp_path: Path) -> None:
    run_example(recipe, demo_port, tmp_path)
