"""mcpstream.codec picks a backend: MCPSTREAM_BACKEND, BACKEND, load_backend; the public names."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import mcpstream
import mcpstream.codec as codec
import pytest
from mcpstream import errors


def contract_names() -> set[str]:
    """The runtime names of the backend contract: the ``__all__`` of ``_native.pyi`` (read from
    the stub, so the test works whether or not the extension is built)."""
    stub = ast.parse((Path(mcpstream.__file__).parent / "_native.pyi").read_text("utf-8"))
    for node in stub.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return set(ast.literal_eval(node.value))
    raise AssertionError("_native.pyi has no __all__")


RUNTIME_NAMES = contract_names()
PYTHON_ROOT = str(Path(mcpstream.__file__).resolve().parent.parent)

PROBE = """
import json, mcpstream.codec as codec
print(json.dumps({"backend": codec.BACKEND, "module": codec.SseDecoder.__module__}))
"""


def probe(backend_env: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCPSTREAM_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHON_ROOT, env.get("PYTHONPATH")]))
    if backend_env is not None:
        env["MCPSTREAM_BACKEND"] = backend_env
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )


def native_importable() -> bool:
    return importlib.util.find_spec("mcpstream._native") is not None


@pytest.mark.parametrize("value", ["python", "PYTHON", " python "])
def test_mcpstream_backend_python_selects_the_pure_backend(value: str) -> None:
    result = probe(value)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"backend": "python", "module": "mcpstream._pure.sse"}


def test_mcpstream_backend_native_selects_the_native_backend_or_fails_to_import() -> None:
    result = probe("native")
    if native_importable():
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["backend"] == "native"
    else:
        assert result.returncode != 0
        assert "ImportError" in result.stderr
        assert "native backend" in result.stderr


def test_an_unknown_mcpstream_backend_fails_to_import() -> None:
    result = probe("bogus")
    assert result.returncode != 0
    assert "ImportError: MCPSTREAM_BACKEND='bogus' is not a backend" in result.stderr


@pytest.mark.parametrize("value", [None, ""])
def test_without_mcpstream_backend_native_is_preferred(value: str | None) -> None:
    result = probe(value)
    assert result.returncode == 0, result.stderr
    expected = "native" if native_importable() else "python"
    assert json.loads(result.stdout)["backend"] == expected


def test_backend_names_the_backend_whose_classes_codec_exports() -> None:
    module = codec.load_backend(codec.BACKEND)
    assert codec.SseDecoder is module.SseDecoder
    assert codec.parse_jsonrpc_line is module.parse_jsonrpc_line
    assert codec.DEFAULT_MAX_EVENT_BYTES == 64 * 1024 * 1024


def test_load_backend_python_returns_the_pure_module() -> None:
    from mcpstream import _pure

    assert codec.load_backend("python") is _pure


def test_load_backend_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown mcpstream backend 'rust'"):
        codec.load_backend("rust")  # type: ignore[arg-type]


def test_codec_reexports_the_error_classes() -> None:
    assert codec.InvalidUtf8Error is errors.InvalidUtf8Error
    assert codec.SseEventTooLargeError is errors.SseEventTooLargeError
    assert codec.JsonRpcProtocolError is errors.JsonRpcProtocolError
    assert codec.CodecError is errors.CodecError


def test_every_backend_has_every_runtime_name_of_the_contract(backend: ModuleType) -> None:
    missing = {name for name in RUNTIME_NAMES if not hasattr(backend, name)}
    assert not missing


def test_the_pure_backend_exports_exactly_the_contracts_names() -> None:
    from mcpstream import _pure

    assert set(_pure.__all__) == RUNTIME_NAMES | {"JsonRpcId", "JsonRpcMessage"}


def test_every_public_name_of_the_pure_backend_has_a_docstring() -> None:
    from mcpstream import _pure

    for name in sorted(RUNTIME_NAMES - {"DEFAULT_MAX_EVENT_BYTES"}):
        obj = getattr(_pure, name)
        assert obj.__doc__, name
        for attr, member in vars(obj).items() if isinstance(obj, type) else ():
            if not attr.startswith("_") and callable(member):
                assert member.__doc__, f"{name}.{attr}"


def test_backends_raise_the_error_classes_of_mcpstream_errors(backend: ModuleType) -> None:
    with pytest.raises(errors.InvalidUtf8Error):
        backend.Utf8Decoder().decode(b"\xff")
    with pytest.raises(errors.SseEventTooLargeError):
        backend.SseDecoder(1).feed(b"ab")
    with pytest.raises(errors.JsonRpcProtocolError):
        backend.parse_jsonrpc_line("[]")
