"""A Griffe extension for the API reference (``mkdocs.yml``): a class's bases are shown only
where they are public. A private base (its name, or a module on its path, starting with an
underscore: ``ClientBase[...]`` of ``mcpstream.client._base``, ``_HandleView``) is an
implementation detail the reader cannot import: its public members (and ``__init__``, for the
signature) are listed on the class itself, as if defined there, with the base's type variables
replaced by the arguments the class gives them (``ClientBase[McpHttpTransport, httpx.Client,
...]``: ``http_client: httpx.Client``, not ``HttpClientT``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import griffe

__all__ = ["PublicBases"]

_GENERIC = ("typing.Generic", "Generic")


def _path(base: str | griffe.Expr) -> str:
    if isinstance(base, griffe.ExprSubscript):
        base = base.left
    if isinstance(base, griffe.ExprName | griffe.ExprAttribute):
        return base.canonical_path
    return str(base)


def _private(base: str | griffe.Expr) -> bool:
    parts = _path(base).split(".")
    return any(part.startswith("_") and not part.startswith("__") for part in parts)


def _arguments(subscript: griffe.ExprSubscript) -> list[str | griffe.Expr]:
    index = subscript.slice
    return list(index.elements) if isinstance(index, griffe.ExprTuple) else [index]


def _type_map(cls: griffe.Class, base: str | griffe.Expr) -> dict[str, str | griffe.Expr]:
    """The base's type variables (its ``Generic[...]``), each with the class's argument."""
    if not isinstance(base, griffe.ExprSubscript):
        return {}
    try:
        target = cls.modules_collection.get_member(_path(base))
    except (KeyError, ValueError, AttributeError):
        return {}
    for grand in getattr(target, "bases", ()):
        if isinstance(grand, griffe.ExprSubscript) and _path(grand) in _GENERIC:
            names = [str(name) for name in _arguments(grand)]
            return dict(zip(names, _arguments(base), strict=False))
    return {}


def _substitute(expr: Any, types: dict[str, str | griffe.Expr]) -> Any:
    if isinstance(expr, griffe.ExprName):
        return types.get(expr.name, expr)
    if isinstance(expr, griffe.Expr) and dataclasses.is_dataclass(expr):
        changes = {}
        for field in dataclasses.fields(expr):
            if field.name == "parent":
                continue
            value = getattr(expr, field.name)
            if isinstance(value, griffe.Expr):
                changes[field.name] = _substitute(value, types)
            elif isinstance(value, list | tuple):
                changes[field.name] = type(value)(_substitute(item, types) for item in value)
        return dataclasses.replace(expr, **changes) if changes else expr
    return expr


def _specialized(member: griffe.Object | griffe.Alias, types: dict[str, Any]) -> Any:
    """``member`` (a function) with the type variables of ``types`` replaced; other members
    as they are."""
    target = member.final_target if isinstance(member, griffe.Alias) else member
    if not types or not isinstance(target, griffe.Function):
        return member
    parameters = griffe.Parameters(
        *(
            griffe.Parameter(
                parameter.name,
                annotation=_substitute(parameter.annotation, types),
                kind=parameter.kind,
                default=parameter.default,
                docstring=parameter.docstring,
            )
            for parameter in target.parameters
        )
    )
    function = griffe.Function(
        target.name,
        lineno=target.lineno,
        endlineno=target.endlineno,
        parameters=parameters,
        returns=_substitute(target.returns, types),
        decorators=target.decorators,
        docstring=target.docstring,
    )
    function.labels = set(target.labels)
    return function


class PublicBases(griffe.Extension):
    """Drop the private bases of every class, once the package is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Copy each private base's public members onto the class (functions specialized to
        the class's type arguments), then drop the base."""
        for cls in _classes(pkg):
            private = [base for base in cls.bases if _private(base)]
            if not private:
                continue
            types: dict[str, Any] = {}
            for base in private:
                types.update(_type_map(cls, base))
            try:
                inherited = cls.inherited_members
            except Exception:  # an unresolvable base: nothing to copy
                inherited = {}
            for name, member in inherited.items():
                public = not name.startswith("_") or name == "__init__"
                if public and name not in cls.members:
                    cls.set_member(name, _specialized(member, types))
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
