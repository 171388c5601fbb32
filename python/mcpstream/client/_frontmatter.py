"""The YAML reader of a ``SKILL.md`` frontmatter (``mcpstream.client.skills``), kept apart so
that PyYAML is imported at the first skill read, not with mcpstream.

PyYAML's safe loader without aliases, deep nesting or timestamps, with YAML 1.2's booleans.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = ["load_frontmatter"]

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_BOOL_TAG = "tag:yaml.org,2002:bool"
# YAML 1.2's booleans: YAML 1.1 (PyYAML's) also reads yes/no/on/off as booleans, which the
# YAML 1.2 parsers most servers use keep as strings ("on:" would even be a key True).
_YAML12_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")


class _FrontmatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases, deep nesting or timestamps."""

    # PyYAML reads this per class (the stubs call it an instance variable, hence no ClassVar).
    yaml_implicit_resolvers: dict[Any, Any] = {  # noqa: RUF012
        first: [
            (tag, _YAML12_BOOL if tag == _BOOL_TAG else regexp)
            for tag, regexp in resolvers
            if tag != _TIMESTAMP_TAG
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    max_depth = 32

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise ValueError("the frontmatter uses a YAML alias")
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                raise ValueError(f"the frontmatter nests deeper than {self.max_depth}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_frontmatter(source: str, *, max_depth: int) -> Any:
    """``source`` read as YAML with the safe loader (plain data only, never a Python object),
    no aliases and at most ``max_depth`` levels of nesting; ``ValueError`` saying why not."""
    loader = _FrontmatterLoader(source)
    loader.max_depth = max_depth
    try:
        return loader.get_single_data()
    except (yaml.YAMLError, RecursionError) as exc:
        raise ValueError(f"has a malformed YAML frontmatter ({type(exc).__name__})") from None
    finally:
        loader.dispose()
