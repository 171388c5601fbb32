"""A Griffe extension for the API reference (``mkdocs.yml``): a class's bases are shown only
where they are public. A private base (its name, or a module on its path, starting with an
underscore: ``ClientBase[...]`` of ``mcpstream.client._base``, ``_HandleView``) is an
implementation detail the reader cannot import; its public members are listed on the class
itself (``inherited_members``), as if defined there."""

from __future__ import annotations

from typing import Any

import griffe

__all__ = ["PublicBases"]


def _path(base: str | griffe.Expr) -> str:
    if isinstance(base, griffe.ExprSubscript):
        base = base.left
    if isinstance(base, griffe.ExprName | griffe.ExprAttribute):
        return base.canonical_path
    return str(base)


def _private(base: str | griffe.Expr) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in _path(base).split("."))


class PublicBases(griffe.Extension):
    """Drop the private bases of every class (after its members are loaded)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Once the package is loaded (so that inherited members resolve through the private
        bases first): copy each private base's public members onto the class, then drop it."""
        for cls in _classes(pkg):
            private = [base for base in cls.bases if _private(base)]
            if not private:
                continue
            try:
                inherited = cls.inherited_members
            except Exception:  # an unresolvable base: nothing to copy
                inherited = {}
            for name, member in inherited.items():
                public = not name.startswith("_") or name == "__init__"
                if public and name not in cls.members:
                    cls.set_member(name, member)
            cls.bases = [base for base in cls.bases if not _private(base)]


def _classes(module: griffe.Object) -> list[griffe.Class]:
    found: list[griffe.Class] = []
    for member in module.members.values():
        if member.is_alias:
            continue
        if isinstance(member, griffe.Class):
            found.append(member)
            found.extend(_classes(member))
        elif isinstance(member, griffe.Module):
            found.extend(_classes(member))
    return found
