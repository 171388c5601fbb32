"""The public API of the reference transport, as facts the API tests compare mcpstream with.

The reference transport (``../shared/reference/transport_http.py`` beside the checkout) may not
be committed, and a fresh clone does not have it beside it. What the tests need of it is recorded
in ``reference_api.json`` next to this module: the transport's constructor keywords, its public
methods with their parameter names and its properties, and each public error class's base names
and constant class attributes. Nothing else (no code, no docstrings) is recorded.

:func:`extract` reads these facts from the reference's source with ``ast`` (nothing is
imported); it is the one extractor, used both to write the manifest and by the test that checks
the committed manifest is still what the reference says. From the repository root::

    python -m tests.transport.reference_api --write

rewrites the manifest from the reference beside the checkout (or ``--reference PATH``); without
``--write`` it prints what it would write.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT.parent / "shared" / "reference" / "transport_http.py"
MANIFEST = Path(__file__).resolve().with_name("reference_api.json")
TRANSPORT_CLASS = "McpHttpTransport"

Constant = str | int | float | bool | None
"""The values a recorded class attribute may have (those JSON round-trips unchanged)."""


@dataclass(frozen=True)
class TransportApi:
    """The reference transport class's public surface."""

    constructor_keywords: tuple[str, ...]
    """The keyword-only parameters of ``__init__``, in order."""
    methods: dict[str, tuple[str, ...]]
    """Each public method (not a property) and its parameter names after ``self``: positional
    ones, then keyword-only ones."""
    properties: tuple[str, ...]
    """The public names defined as ``@property``."""


@dataclass(frozen=True)
class ErrorApi:
    """One public error class of the reference."""

    bases: tuple[str, ...]
    """The names of its base classes, in order."""
    constants: dict[str, Constant]
    """Its class attributes assigned a literal (such as ``error_code`` and ``retryable``)."""


@dataclass(frozen=True)
class ReferenceApi:
    """Everything the API tests compare: the transport class and the error classes by name."""

    transport: TransportApi
    errors: dict[str, ErrorApi]

    def to_json(self) -> str:
        """The manifest's text: indented JSON in the reference's order, ending in a newline."""
        document = {
            "transport": {
                "constructor_keywords": list(self.transport.constructor_keywords),
                "methods": {name: list(p) for name, p in self.transport.methods.items()},
                "properties": list(self.transport.properties),
            },
            "errors": {
                name: {"bases": list(error.bases), "constants": error.constants}
                for name, error in self.errors.items()
            },
        }
        return json.dumps(document, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ReferenceApi:
        """Parse a manifest, raising ``ValueError`` naming the first entry of the wrong shape."""
        document = _object(json.loads(text), "the manifest", {"transport", "errors"})
        transport = _object(
            document["transport"], "transport", {"constructor_keywords", "methods", "properties"}
        )
        methods = _object(transport["methods"], "transport.methods", None)
        errors = _object(document["errors"], "errors", None)
        return cls(
            transport=TransportApi(
                constructor_keywords=_names(
                    transport["constructor_keywords"], "transport.constructor_keywords"
                ),
                methods={
                    name: _names(value, f"transport.methods.{name}")
                    for name, value in methods.items()
                },
                properties=_names(transport["properties"], "transport.properties"),
            ),
            errors={name: _error(value, f"errors.{name}") for name, value in errors.items()},
        )


def _object(value: Any, where: str, keys: set[str] | None) -> dict[str, Any]:
    """``value`` as a JSON object (with exactly ``keys``, when given)."""
    if not isinstance(value, dict) or (keys is not None and set(value) != keys):
        expected = "an object" if keys is None else f"an object with keys {sorted(keys)}"
        raise ValueError(f"{where} is not {expected}: {value!r}")
    return value


def _names(value: Any, where: str) -> tuple[str, ...]:
    """``value`` as a list of distinct Python identifiers."""
    if (
        not isinstance(value, list)
        or not all(isinstance(name, str) and name.isidentifier() for name in value)
        or len(set(value)) != len(value)
    ):
        raise ValueError(f"{where} is not a list of distinct identifiers: {value!r}")
    return tuple(value)


def _error(value: Any, where: str) -> ErrorApi:
    """``value`` as an error class entry."""
    entry = _object(value, where, {"bases", "constants"})
    constants = _object(entry["constants"], f"{where}.constants", None)
    for name, constant in constants.items():
        if not name.isidentifier() or not isinstance(constant, Constant):
            raise ValueError(f"{where}.constants.{name} is not a literal: {constant!r}")
    return ErrorApi(bases=_names(entry["bases"], f"{where}.bases"), constants=constants)


def _is_property(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in function.decorator_list)


def _transport(node: ast.ClassDef) -> TransportApi:
    """The public surface of the transport class's definition."""
    functions = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    init = next(f for f in functions if f.name == "__init__")
    public = [f for f in functions if not f.name.startswith("_")]
    return TransportApi(
        constructor_keywords=tuple(arg.arg for arg in init.args.kwonlyargs),
        methods={
            f.name: tuple(a.arg for a in [*f.args.args[1:], *f.args.kwonlyargs])
            for f in public
            if not _is_property(f)
        },
        properties=tuple(f.name for f in public if _is_property(f)),
    )


def _error_class(node: ast.ClassDef) -> ErrorApi:
    """The bases and literal class attributes of an error class's definition."""
    constants: dict[str, Constant] = {}
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Constant)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            value = statement.value.value
            # bytes, complex or Ellipsis would not survive JSON: refuse rather than record wrong.
            if not isinstance(value, Constant):
                raise ValueError(f"{node.name}.{statement.targets[0].id} is {value!r}")
            constants[statement.targets[0].id] = value
    return ErrorApi(
        bases=tuple(b.id for b in node.bases if isinstance(b, ast.Name)), constants=constants
    )


def extract(source: str) -> ReferenceApi:
    """The API facts of the reference transport's source: its ``McpHttpTransport`` class and
    every public top-level class whose name ends in ``Error``."""
    classes = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    transport = next((c for c in classes if c.name == TRANSPORT_CLASS), None)
    if transport is None:
        raise ValueError(f"{TRANSPORT_CLASS} is not in the reference")
    return ReferenceApi(
        transport=_transport(transport),
        errors={
            c.name: _error_class(c)
            for c in classes
            if c.name.endswith("Error") and not c.name.startswith("_")
        },
    )


def load(path: Path = MANIFEST) -> ReferenceApi:
    """The committed manifest."""
    return ReferenceApi.from_json(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    """Print the manifest extracted from the reference, or with ``--write`` write it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reference", type=Path, default=REFERENCE, help="the reference's file")
    parser.add_argument("--write", action="store_true", help=f"write {MANIFEST.name}")
    arguments = parser.parse_args(argv)
    text = extract(arguments.reference.read_text(encoding="utf-8")).to_json()
    if arguments.write:
        MANIFEST.write_text(text, encoding="utf-8")
        print(f"wrote {MANIFEST}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
