"""Frozen results made cheaply: the result types are frozen slotted dataclasses, whose generated
``__init__`` sets each field through ``object.__setattr__`` (a frozen class refuses plain
assignment). That costs more than the rest of parsing a small tool result, which is made on
every call. ``draft_type`` gives a plain class with the same slots: an object made as it, its
fields assigned, and then given the frozen class (``__class__``, allowed between classes of
one layout) is the very object the frozen class's ``__init__`` would make, for half the
instructions."""

from __future__ import annotations

from typing import Any

__all__ = ["draft_type"]


def draft_type(frozen: type[Any]) -> type[Any]:
    """A plain class with the slots of ``frozen`` (a frozen dataclass with ``slots=True``): its
    objects take their fields by assignment, then ``draft.__class__ = frozen``."""
    slots = frozen.__dict__["__slots__"]
    return type(f"_{frozen.__name__}Draft", (), {"__slots__": slots})
