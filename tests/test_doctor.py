"""``mcpstream.doctor()`` (``mcpstream._doctor``) against the stacks, SDK and OpenTelemetry
installed here: every stack named with its version and where it is, served by mcpstream's
transport unless something keeps it off (each reason named), the codec and why, the SDK and
whether ``install()`` is in effect, as data that round-trips through JSON."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import h11
import httpcore
import httpcore2
import httpx
import httpx2
import mcpstream
import pytest
from mcpstream import codec


def test_every_stack_is_named_with_its_version_and_path_and_served() -> None:
    found = mcpstream.doctor()
    assert found.version == mcpstream.__version__
    assert Path(found.path) == Path(mcpstream.__file__).parent
    assert found.h11 == h11.__version__
    by_name = {stack.name: stack for stack in found.stacks}
    assert set(by_name) == {"httpx", "httpx2"}
    for module, core in ((httpx, httpcore), (httpx2, httpcore2)):
        stack = by_name[module.__name__]
        assert stack.installed
        assert (stack.version, stack.core, stack.core_version) == (
            module.__version__,
            core.__name__,
            core.__version__,
        )
        assert stack.path is not None and Path(stack.path) == Path(module.__file__).parent
        assert stack.core_path is not None and Path(stack.core_path) == Path(core.__file__).parent
        assert (stack.served, stack.why) == (True, ())


def test_what_keeps_the_transport_off_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "0")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    for stack in mcpstream.doctor().stacks:
        assert not stack.served
        assert len(stack.why) == 2
        assert "MCPSTREAM_H1_TRANSPORT=0" in stack.why[0]
        assert "proxy" in stack.why[1] and "https" in stack.why[1]


def test_the_codec_the_sdk_and_opentelemetry_are_reported() -> None:
    import mcpstream.sdk

    found = mcpstream.doctor()
    assert found.codec == codec.BACKEND
    assert found.codec_why
    assert found.python.endswith(sys.version.split()[0]) and found.python_path == sys.executable
    assert found.sdk_version == importlib.metadata.version("mcp")
    assert found.sdk_line == f"{found.sdk_version[0]}.x"
    assert found.otel_version == importlib.metadata.version("opentelemetry-api")
    assert not found.sdk_installed
    mcpstream.sdk.install()
    try:
        assert mcpstream.doctor().sdk_installed
    finally:
        mcpstream.sdk.uninstall()


def test_the_diagnosis_round_trips_through_json() -> None:
    found = mcpstream.doctor()
    data = json.loads(found.to_json())
    assert data == found.as_dict()
    assert data["stacks"][1]["why"] == []
    assert set(data) == {field.name for field in dataclasses.fields(found)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.codec = "python"  # type: ignore[misc]


def test_a_forced_pure_codec_says_why() -> None:
    code = "import mcpstream; d = mcpstream.doctor(); print(d.codec, '|', d.codec_why)"
    env = {"MCPSTREAM_BACKEND": "python", "PYTHONPATH": str(Path(mcpstream.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.strip() == "python | MCPSTREAM_BACKEND=python asks for it"


def test_opentelemetry_is_loaded_once_imported() -> None:
    code = (
        "import mcpstream; a = mcpstream.doctor().otel_loaded; import opentelemetry.trace; "
        "print(a, mcpstream.doctor().otel_loaded)"
    )
    env = {"PYTHONPATH": str(Path(mcpstream.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.split() == ["False", "True"]
