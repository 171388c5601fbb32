"""``mcpstream.doctor()``: what mcpstream runs with in this process, as data (``Diagnosis``),
and ``mcpstream doctor`` prints it. The first thing to look at when asking "is mcpstream's fast
path actually in use?".

Nothing is imported at ``import mcpstream`` (nor when the name is first used: this module
imports what it needs in its functions); a call imports what it inspects: the codec, each
installed HTTP stack (to probe what mcpstream's hooks read of it, ``_http.capability``). The
official SDK and OpenTelemetry are looked up without being imported (their versions from the
installed distributions; ``install()`` and OpenTelemetry can only be in effect once imported).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Diagnosis", "HttpStackDiagnosis", "doctor"]


@dataclass(frozen=True)
class HttpStackDiagnosis:
    """One HTTP stack mcpstream runs on (``httpx`` with httpcore, ``httpx2`` with httpcore2).

    ``installed``: whether it can be imported; ``version``/``path``: the httpx module's,
    ``core``/``core_version``/``core_path``: its core's (None where not installed).
    ``served``: whether mcpstream's own HTTP/1.1 transport and hooks serve the stack's stock
    clients (those mcpstream makes, and a host's under ``mcpstream.sdk``); where not, ``why``
    says what keeps them off and what to do (empty when served).
    """

    name: str
    installed: bool
    version: str | None = None
    path: str | None = None
    core: str | None = None
    core_version: str | None = None
    core_path: str | None = None
    served: bool = False
    why: tuple[str, ...] = ()


@dataclass(frozen=True)
class Diagnosis:
    """What ``mcpstream.doctor()`` found (``as_dict()``/``to_json()`` for machines).

    ``codec``: the codec backend in use (``"native"``, the Rust extension, or ``"python"``, the
    pure twin) and ``codec_why``: why that one. ``h11``: the version h11 both stacks parse
    HTTP/1.1 with. ``stacks``: httpx's and httpx2's (``HttpStackDiagnosis``). ``sdk_version``:
    the official MCP SDK installed (None: none), ``sdk_line``: its release line (``"1.x"`` or
    ``"2.x"``), ``sdk_installed``: whether ``mcpstream.sdk.install()`` is in effect.
    ``otel_version``: the OpenTelemetry API installed (None: none), ``otel_loaded``: whether
    the process imported it (without that, mcpstream records nothing).
    """

    version: str
    path: str
    codec: str
    codec_why: str
    python: str
    python_path: str
    platform: str
    h11: str
    stacks: tuple[HttpStackDiagnosis, ...]
    sdk_version: str | None
    sdk_line: str | None
    sdk_installed: bool
    otel_version: str | None
    otel_loaded: bool

    def as_dict(self) -> dict[str, Any]:
        """The diagnosis as plain data (lists for tuples), for JSON."""
        data: dict[str, Any] = dataclasses.asdict(self)
        data["stacks"] = [{**stack, "why": list(stack["why"])} for stack in data["stacks"]]
        return data

    def to_json(self) -> str:
        """The diagnosis as a JSON object (``as_dict``), indented."""
        return json.dumps(self.as_dict(), indent=2)


def _distribution_version(name: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _where(module: Any) -> str:
    """The directory of a package (the file of a plain module)."""
    file = str(getattr(module, "__file__", "") or "")
    return str(Path(file).parent) if file.endswith("__init__.py") else file


def _codec() -> tuple[str, str]:
    import importlib

    from . import codec

    forced = os.environ.get("MCPSTREAM_BACKEND", "").strip()
    if forced:
        return codec.BACKEND, f"MCPSTREAM_BACKEND={forced} asks for it"
    if codec.BACKEND == "native":
        native = sys.modules.get("mcpstream._native")
        return codec.BACKEND, f"the Rust extension loaded ({_where(native)})"
    try:
        importlib.import_module("mcpstream._native")
    except ImportError as exc:
        return codec.BACKEND, f"the Rust extension did not load: {exc}"
    return codec.BACKEND, "the Rust extension loaded after the codec chose"  # pragma: no cover


def _stack(name: str) -> HttpStackDiagnosis:
    import importlib.util
    import urllib.request

    if importlib.util.find_spec(name) is None:
        return HttpStackDiagnosis(
            name, False, why=(f"not installed (pip install 'mcpstream[{name}]')",)
        )
    from ._http import capability
    from ._http.httpx_clients import H1_ENV, h1_enabled
    from ._httpbase.stack import stack_named

    stack = stack_named(name)
    module, core = stack.httpx, stack.httpcore
    why: list[str] = []
    if not h1_enabled():
        why.append(f"{H1_ENV}=0 turns mcpstream's HTTP/1.1 transport off")
    proxies = urllib.request.getproxies()
    if proxies:
        schemes = ", ".join(sorted(proxies))
        why.append(
            f"a proxy is configured in the environment ({schemes}), which mcpstream's "
            "HTTP/1.1 transport does not speak to"
        )
    for verdict in capability.verdicts(stack).values():
        if not verdict.fits:
            why.append(
                f"{verdict.package} {verdict.version} does not have what mcpstream reads "
                f"({verdict.hook}: {verdict.reason}); {verdict.advice()}"
            )
    return HttpStackDiagnosis(
        name=name,
        installed=True,
        version=str(getattr(module, "__version__", "unknown")),
        path=_where(module),
        core=core.__name__,
        core_version=str(getattr(core, "__version__", "unknown")),
        core_path=_where(core),
        served=not why,
        why=tuple(why),
    )


def _sdk() -> tuple[str | None, str | None, bool]:
    version = _distribution_version("mcp")
    line = None if version is None else ("1.x" if version.startswith("1.") else "2.x")
    installer = sys.modules.get("mcpstream.sdk.installer")
    installed = installer is not None and bool(installer.installed())
    return version, line, installed


def doctor() -> Diagnosis:
    """What mcpstream runs with in this process: its version, the codec backend, Python and
    the platform, each HTTP stack (its version, where it is, whether mcpstream's transport
    serves its stock clients and, if not, why), the official SDK and whether
    ``mcpstream.sdk.install()`` is in effect, and OpenTelemetry. ``mcpstream doctor`` prints
    it."""
    import platform

    import h11

    from . import _telemetry, _version

    codec, codec_why = _codec()
    sdk_version, sdk_line, sdk_installed = _sdk()
    return Diagnosis(
        version=_version.__version__,
        path=str(Path(__file__).parent),
        codec=codec,
        codec_why=codec_why,
        python=f"{platform.python_implementation()} {platform.python_version()}",
        python_path=sys.executable,
        platform=platform.platform(),
        h11=str(getattr(h11, "__version__", "unknown")),
        stacks=(_stack("httpx"), _stack("httpx2")),
        sdk_version=sdk_version,
        sdk_line=sdk_line,
        sdk_installed=sdk_installed,
        otel_version=_distribution_version("opentelemetry-api"),
        otel_loaded=_telemetry.otel_loaded(),
    )
