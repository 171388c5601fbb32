"""Imports go one way: no module of the package imports, directly or through others, one that
imports it back, at run time or for typing; the package's rooms (its folders and top-level
modules) form no loop either, and the transport core's modules and the rooms around the
transport form layers.

The graph is read statically from the source (``ast``), so it includes the imports under
``if TYPE_CHECKING:`` and those inside functions, which an import-time check would miss.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mcpstream

PACKAGE_ROOT = Path(mcpstream.__file__).parent

CORE = "mcpstream._http.core"
CORE_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"steps", "era", "cancel", "advice"}),  # what a flow asks for; era rules; hints
    # the state of one transport: session, headers, era, queue; the process's discovery answers
    frozenset({"protocol", "discovery"}),
    frozenset(
        {"exchange", "listen", "relay"}
    ),  # one call; the GET stream; a host session's messages
    frozenset({"flows"}),  # the order of the steps
    frozenset({"sse_legacy"}),  # the HTTP+SSE transport (2024-11-05) over call_flow
    frozenset({"modern"}),  # the era's flows over call_flow
)
"""The core's modules from the bottom up: each imports only from layers below its own."""

ROOM_LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"_httpbase", "_eras"}),  # HTTP stacks, bodies, codings; the protocol's versions
    frozenset({"oauth"}),  # authorization: discovery, tokens, the login
    frozenset({"_telemetry"}),  # semantic conventions, OpenTelemetry's calls, the gate
    frozenset({"_http"}),  # the transport's machinery
    frozenset({"transport_http", "transport_http_async"}),  # the transports' public modules
    frozenset({"client", "sdk"}),  # the front ends: Client, the SDK route
    frozenset({"cli"}),  # the command, over the client
)
"""Rooms of the package (``mcpstream.<name>``) from the bottom up: each imports from no room of
its layer or above. Rooms not named here are held only to the no-loop rule."""


def module_files(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package at ``root``: its dotted name, file and whether it is a
    package (``__init__``). Stubs count too (``_native.pyi`` names the extension module)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules.setdefault(".".join(parts), (path, is_package))
    return modules


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _imported(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                # ``from . import x`` imports the module ``x`` when there is one, else a name
                # of the package.
                submodule = f"{target}.{alias.name}"
                if submodule in known:
                    yield submodule
                elif target in known:
                    yield target


def import_graph(root: Path) -> dict[str, set[str]]:
    """Which modules of the package each of its modules imports (every ``import`` statement,
    wherever it is)."""
    modules = module_files(root)
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = set(_imported(tree, module, is_package, known)) - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules in order, the first repeated at the end), or
    None when it has none."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, successors = stack[-1]
            for nxt in successors:
                if nxt in on_path:
                    return [*path[path.index(nxt) :], nxt]
                if nxt not in done:
                    stack.append((nxt, iter(sorted(graph[nxt]))))
                    path.append(nxt)
                    on_path.add(nxt)
                    break
            else:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE_ROOT)
    assert "mcpstream._http.core.protocol" in graph  # the walk found the package
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_core_modules_import_only_from_the_layers_below() -> None:
    graph = import_graph(PACKAGE_ROOT)
    core_modules = {m.removeprefix(CORE + ".") for m in graph if m.startswith(CORE + ".")}
    layered = set().union(*CORE_LAYERS)
    assert core_modules == layered, "every core module has its place in CORE_LAYERS"
    for height, layer in enumerate(CORE_LAYERS):
        below = set().union(*CORE_LAYERS[:height])
        for name in layer:
            imported = {
                m.removeprefix(CORE + ".")
                for m in graph[f"{CORE}.{name}"]
                if m == CORE or m.startswith(CORE + ".")
            }
            assert imported <= below, (
                f"{name} imports {sorted(imported - below)} from its layer or above"
            )


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which rooms (``mcpstream.<name>``, a folder or a top-level module; the package's own
    ``__init__`` apart) each room imports."""
    rooms: dict[str, set[str]] = {}
    for module, imported in graph.items():
        source = _room(module)
        rooms.setdefault(source, set()).update(
            target for target in map(_room, imported) if target != source
        )
    rooms.pop("", None)
    for targets in rooms.values():
        targets.discard("")
    return rooms


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_rooms_of_the_package_form_no_loop() -> None:
    rooms = room_graph(import_graph(PACKAGE_ROOT))
    assert {"_http", "_httpbase", "oauth", "client"} <= set(rooms)
    assert find_cycle(rooms) is None, " -> ".join(find_cycle(rooms) or [])


def test_the_rooms_import_only_from_the_layers_below() -> None:
    graph = import_graph(PACKAGE_ROOT)
    rooms = room_graph(graph)
    for height, layer in enumerate(ROOM_LAYERS):
        at_or_above = set().union(*ROOM_LAYERS[height:])
        for name in layer:
            assert name in rooms, f"{name} is a room of the package"
            upward = sorted(rooms[name] & at_or_above)
            modules = sorted(
                f"{module} -> {target}"
                for module in graph
                if _room(module) == name
                for target in graph[module]
                if _room(target) in upward
            )
            assert not upward, f"{name} imports from its layer or above: {modules}"


def test_the_demo_tools_and_server_do_not_import_each_other() -> None:
    graph = import_graph(PACKAGE_ROOT)
    assert "mcpstream.demo.server" not in graph["mcpstream.demo._tools"]


def test_a_cycle_through_a_type_checking_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .low import Low\n")
    (package / "sub" / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..high import High\n"
        "class Low: ...\n"
    )
    (package / "high.py").write_text("def make():\n    from .sub import low\n    return low\n")
    graph = import_graph(package)
    assert graph["pkg.sub.low"] == {"pkg.high"}
    assert graph["pkg.high"] == {"pkg.sub.low"}
    assert find_cycle(graph) == ["pkg.high", "pkg.sub.low", "pkg.high"]
    (package / "sub" / "low.py").write_text("class Low: ...\n")
    assert find_cycle(import_graph(package)) is None
