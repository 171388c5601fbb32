"""The token store against a hostile local setup (issue 11, classes 5 and 8): a named pipe, a
symlink, a directory anyone may write to, corrupt files, non-finite times."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from mcpstream.oauth_store import (
    McpOAuthFileTokenStore,
    McpOAuthTokenRecord,
    McpOAuthTokenStoreError,
    load_oauth_token_record,
    oauth_token_store_path,
    save_oauth_token_record,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes and FIFOs")


def _in_thread(function: object, timeout_s: float = 5.0) -> BaseException | None:
    """Run ``function`` in a thread; fail if it hangs; return what it raised."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            function()  # type: ignore[operator]
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout_s)
    assert outcome, "the store hung"
    return outcome[0]


def test_a_named_pipe_at_the_store_path_does_not_hang_load(config_dir: Path) -> None:
    config_dir.mkdir(mode=0o700)
    os.mkfifo(oauth_token_store_path())
    error = _in_thread(lambda: load_oauth_token_record("srv"))
    assert isinstance(error, McpOAuthTokenStoreError)
    assert "not a regular file" in str(error)


def test_a_symlink_at_the_lock_path_is_not_followed(config_dir: Path, tmp_path: Path) -> None:
    config_dir.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    lock = oauth_token_store_path().with_name("oauth-tokens.json.lock")
    lock.symlink_to(victim)
    with pytest.raises(McpOAuthTokenStoreError, match="symbolic link"):
        save_oauth_token_record("srv", McpOAuthTokenRecord(access_token="at"))
    assert victim.read_text() == "keep me"
    assert not oauth_token_store_path().exists()


def test_a_symlink_at_the_store_path_is_not_followed(config_dir: Path, tmp_path: Path) -> None:
    config_dir.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"version": 1, "servers": {}}))
    oauth_token_store_path().symlink_to(elsewhere)
    with pytest.raises(McpOAuthTokenStoreError, match="symbolic link"):
        load_oauth_token_record("srv")


def test_a_world_writable_directory_is_refused_unless_sticky(config_dir: Path) -> None:
    config_dir.mkdir()
    config_dir.chmod(0o777)
    with pytest.raises(McpOAuthTokenStoreError, match="writable by every user"):
        save_oauth_token_record("srv", McpOAuthTokenRecord(access_token="at"))
    with pytest.raises(McpOAuthTokenStoreError, match="writable by every user"):
        load_oauth_token_record("srv")
    config_dir.chmod(0o777 | stat.S_ISVTX)  # /tmp-like: others cannot replace our files
    save_oauth_token_record("srv", McpOAuthTokenRecord(access_token="at"))
    record = load_oauth_token_record("srv")
    assert record is not None and record.access_token == "at"


@pytest.mark.parametrize("expiry", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_expiry_is_never_written(config_dir: Path, expiry: float) -> None:
    save_oauth_token_record("other", McpOAuthTokenRecord(access_token="keep"))
    with pytest.raises(McpOAuthTokenStoreError, match="NaN or Infinity"):
        save_oauth_token_record("srv", McpOAuthTokenRecord(access_token="at", expires_at=expiry))
    text = oauth_token_store_path().read_text()
    assert "Infinity" not in text and "NaN" not in text
    assert load_oauth_token_record("other") is not None


@pytest.mark.parametrize(
    "expires_at",
    ["Infinity", "-Infinity", "NaN", "1e400", "1" + "0" * 400],
)
def test_a_non_finite_or_huge_expiry_in_the_file_is_a_store_error(
    config_dir: Path, expires_at: str
) -> None:
    config_dir.mkdir(mode=0o700)
    oauth_token_store_path().write_text(
        '{"version": 1, "servers": {"srv": {"access_token": "at", "expires_at": '
        + expires_at
        + "}}}"
    )
    with pytest.raises(McpOAuthTokenStoreError):
        load_oauth_token_record("srv")


def test_a_deeply_nested_file_is_a_store_error(config_dir: Path) -> None:
    config_dir.mkdir(mode=0o700)
    oauth_token_store_path().write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(McpOAuthTokenStoreError, match="nested too deeply"):
        load_oauth_token_record("srv")


def test_a_file_with_a_huge_integer_is_a_store_error(config_dir: Path) -> None:
    config_dir.mkdir(mode=0o700)
    oauth_token_store_path().write_text('{"version": ' + "9" * 10_000 + ', "servers": {}}')
    with pytest.raises(McpOAuthTokenStoreError):
        load_oauth_token_record("srv")


def test_an_oversized_store_file_is_refused_unread(config_dir: Path) -> None:
    config_dir.mkdir(mode=0o700)
    with open(oauth_token_store_path(), "wb") as handle:
        handle.truncate(17 << 20)  # sparse: no real disk use
    with pytest.raises(McpOAuthTokenStoreError, match="larger than"):
        McpOAuthFileTokenStore().load("srv")


def test_a_stored_token_that_cannot_be_a_header_is_refused_without_quoting_it(
    config_dir: Path,
) -> None:
    config_dir.mkdir(mode=0o700)
    token = "stolen-looking\r\nX-Injected: 1"
    document = {"version": 1, "servers": {"srv": {"access_token": token}}}
    oauth_token_store_path().write_text(json.dumps(document))
    with pytest.raises(McpOAuthTokenStoreError, match="not printable ASCII") as caught:
        load_oauth_token_record("srv")
    assert "stolen" not in str(caught.value)
