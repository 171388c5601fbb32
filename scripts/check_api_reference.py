"""Check that the built API reference has an entry for every public name.

``python scripts/check_api_reference.py site/objects.inv``: reads each public module's
``__all__`` from the source (statically, with ``ast``: nothing is imported) and the objects the
site's inventory (written by mkdocstrings) lists, and fails naming every public name missing
from the reference. The public modules are ``mcpstream`` and its modules whose name does not
start with an underscore, less the command (``cli``, documented as a page) and ``benchmark``
(``mcpstream bench``).
"""

from __future__ import annotations

import ast
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "mcpstream"
NOT_API = {"cli", "benchmark"}


def public_modules() -> dict[str, Path]:
    """The public modules, by dotted name, and the file of each."""
    modules = {"mcpstream": PACKAGE / "__init__.py"}
    for path in sorted(PACKAGE.iterdir()):
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("_") or name in NOT_API:
            continue
        if path.suffix == ".py":
            modules[f"mcpstream.{name}"] = path
        elif (path / "__init__.py").is_file():
            modules[f"mcpstream.{name}"] = path / "__init__.py"
    return modules


def declared_names(path: Path, modules: dict[str, Path]) -> list[str]:
    """The names of a module's ``__all__``: its literal list (``*NAMES`` of a literal tuple or
    list of the same module spread in it), plus ``__all__ += other.__all__`` of another public
    module imported under ``other``."""
    names: list[str] = []
    body = ast.parse(path.read_text(encoding="utf-8")).body
    # Module-level literal tuples and lists, for `__all__ = [..., *_NAMES]`.
    literals = {
        target.id: node.value
        for node in body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List | ast.Tuple)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in body:
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            value = node.value
            if isinstance(value, ast.List | ast.Tuple):
                items = []
                for item in value.elts:
                    if isinstance(item, ast.Starred) and isinstance(item.value, ast.Name):
                        items += getattr(literals.get(item.value.id), "elts", [item])
                    else:
                        items.append(item)
                for item in items:
                    if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                        raise SystemExit(f"{path}: __all__ is not a list of strings")
                    names.append(item.value)
            elif (
                isinstance(value, ast.Attribute)
                and value.attr == "__all__"
                and isinstance(value.value, ast.Name)
                and f"mcpstream.{value.value.id}" in modules
            ):
                names += declared_names(modules[f"mcpstream.{value.value.id}"], modules)
            else:
                raise SystemExit(f"{path}: __all__ must be a literal list of strings")
    return names


def inventory(path: Path) -> set[str]:
    """The object names of a Sphinx inventory (version 2, as mkdocstrings writes it)."""
    data = path.read_bytes()
    lines = data.split(b"\n", 4)
    if lines[0] != b"# Sphinx inventory version 2":
        raise SystemExit(f"{path}: not a Sphinx inventory of version 2")
    body = zlib.decompress(lines[4]).decode("utf-8")
    return {line.split(" ", 1)[0] for line in body.splitlines() if line}


def main() -> None:
    """Report the public names the reference lacks; exit 1 if there are any."""
    documented = inventory(Path(sys.argv[1]))
    modules = public_modules()
    top_level = set(declared_names(modules["mcpstream"], modules))

    def in_reference(module: str, name: str) -> bool:
        # A name the top level re-exports is documented there (mcpstream.Client, not
        # mcpstream.client.Client); a function named like the submodule that defines it
        # (mcpstream.oauth.login) is documented under that submodule.
        return name == "__version__" or any(
            entry in documented
            for entry in (
                f"{module}.{name}",
                f"mcpstream.{name}" if name in top_level else "",
                f"{module}.{name}.{name}",
            )
        )

    missing = [
        f"{module}.{name}"
        for module, path in modules.items()
        for name in declared_names(path, modules)
        if not in_reference(module, name)
    ]
    undocumented_modules = [
        module
        for module, path in modules.items()
        if module not in documented and not set(declared_names(path, modules)) <= top_level
    ]
    for name in undocumented_modules + missing:
        print(f"check_api_reference: {name} is not in the API reference", file=sys.stderr)
    if missing or undocumented_modules:
        raise SystemExit(1)
    count = sum(len(declared_names(path, modules)) for path in modules.values())
    print(f"check_api_reference: {len(modules)} public modules, {count} public names, all in it")


if __name__ == "__main__":
    main()
