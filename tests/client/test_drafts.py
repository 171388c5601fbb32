"""``draft_type``: a frozen result made by assignment, then given its class, is the object its
own ``__init__`` makes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from mcpstream.client._drafts import draft_type


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    tags: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)


def test_a_draft_given_the_frozen_class_is_that_class_s_object() -> None:
    draft = draft_type(Point)()
    draft.x, draft.tags = 3, {"a": 1}
    draft.__class__ = Point
    made = Point(3, {"a": 1})
    assert type(draft) is Point
    assert (draft, hash(draft), repr(draft)) == (made, hash(made), repr(made))
    assert dataclasses.asdict(draft) == dataclasses.asdict(made)
    assert dataclasses.replace(draft, x=4) == Point(4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        draft.x = 5  # type: ignore[misc]


def test_a_draft_has_the_slots_of_its_class_only() -> None:
    draft = draft_type(Point)()
    assert type(draft).__slots__ == Point.__slots__  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        draft.y = 1
