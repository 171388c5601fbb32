"""The token store file: round trip, permissions, atomic and concurrent writes, corrupt files."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import stat
from pathlib import Path

import pytest
from mcpstream.oauth_store import (
    McpOAuthClientRegistration,
    McpOAuthTokenRecord,
    McpOAuthTokenStoreError,
    delete_oauth_token_record,
    list_oauth_token_records,
    load_oauth_token_record,
    oauth_token_store_path,
    save_oauth_token_record,
)


def _record(n: int = 0) -> McpOAuthTokenRecord:
    return McpOAuthTokenRecord(
        access_token=f"access-{n}",
        refresh_token=f"refresh-{n}",
        expires_at=1_900_000_000.0,
        granted_scopes=("a", "b"),
        issuer="https://as.example.com",
        resource="https://mcp.example.com/mcp",
        client_registration=McpOAuthClientRegistration(
            client_id="c",
            method="dynamic",
            client_secret="cs",
            token_endpoint_auth_method="client_secret_basic",
        ),
    )


def test_a_saved_record_loads_back_equal(config_dir: Path) -> None:
    save_oauth_token_record("one", _record())
    assert load_oauth_token_record("one") == _record().with_changes(
        obtained_at=load_oauth_token_record("one").obtained_at  # type: ignore[union-attr]
    )
    assert load_oauth_token_record("other") is None
    assert oauth_token_store_path().parent == config_dir


def test_the_store_file_is_mode_0600_in_a_0700_directory(config_dir: Path) -> None:
    save_oauth_token_record("one", _record())
    assert stat.S_IMODE(os.stat(oauth_token_store_path()).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(config_dir).st_mode) == 0o700


def test_deleting_one_record_keeps_the_others() -> None:
    save_oauth_token_record("one", _record(1))
    save_oauth_token_record("two", _record(2))
    assert delete_oauth_token_record("one") is True
    assert delete_oauth_token_record("one") is False
    assert load_oauth_token_record("two") is not None
    assert list(list_oauth_token_records()) == ["two"]


def test_a_corrupt_file_is_an_error_naming_it_and_is_never_overwritten() -> None:
    save_oauth_token_record("one", _record())
    path = oauth_token_store_path()
    path.write_text('{"version": 1, "servers": {"one": {"access_token": "tok-secret"', "utf-8")
    before = path.read_bytes()
    with pytest.raises(McpOAuthTokenStoreError) as caught:
        load_oauth_token_record("one")
    assert str(path) in str(caught.value)
    assert "tok-secret" not in str(caught.value)
    with pytest.raises(McpOAuthTokenStoreError):
        save_oauth_token_record("two", _record())
    assert path.read_bytes() == before


def test_a_malformed_record_does_not_cost_the_other_servers_theirs() -> None:
    save_oauth_token_record("good", _record())
    path = oauth_token_store_path()
    document = json.loads(path.read_text())
    document["servers"]["bad"] = {"access_token": 42}
    path.write_text(json.dumps(document))
    with pytest.raises(McpOAuthTokenStoreError, match="'bad'"):
        load_oauth_token_record("bad")
    save_oauth_token_record("new", _record())
    assert load_oauth_token_record("good") is not None
    records = list_oauth_token_records()
    assert isinstance(records["bad"], McpOAuthTokenStoreError)
    assert json.loads(path.read_text())["servers"]["bad"] == {"access_token": 42}


def test_an_unreadable_file_is_an_error_naming_it(config_dir: Path) -> None:
    if os.geteuid() == 0:
        # root reads any file; a directory in the file's place fails for everyone.
        config_dir.mkdir(parents=True)
        oauth_token_store_path().mkdir()
    else:
        save_oauth_token_record("one", _record())
        oauth_token_store_path().chmod(0)
    with pytest.raises(McpOAuthTokenStoreError, match="cannot be read") as caught:
        load_oauth_token_record("one")
    assert caught.value.path == str(oauth_token_store_path())


def _writer(config_dir: str, prefix: str, count: int) -> None:
    os.environ["MCPSTREAM_CONFIG_DIR"] = config_dir
    for n in range(count):
        save_oauth_token_record(f"{prefix}-{n}", _record(n))


def test_two_processes_saving_at_once_both_keep_every_record(config_dir: Path) -> None:
    context = multiprocessing.get_context("spawn")
    count = 40
    workers = [
        context.Process(target=_writer, args=(str(config_dir), name, count)) for name in "ab"
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    records = list_oauth_token_records()
    assert len(records) == 2 * count
    assert not list(config_dir.glob("*.tmp"))


def test_reprs_show_no_secret() -> None:
    text = repr(_record()) + str(_record().client_registration)
    for secret in ("access-0", "refresh-0", "'cs'"):
        assert secret not in text
    assert "<redacted>" in text


def test_every_field_round_trips_through_the_json_object() -> None:
    record = _record()
    assert record.client_registration is not None
    registration = dataclasses.replace(
        record.client_registration,
        client_secret_expires_at=1_900_000_000.0,
        redirect_uris=("http://127.0.0.1:1/cb",),
        registration_access_token="rat",
        registration_client_uri="https://as.example.com/clients/c",
    )
    record = record.with_changes(
        authorization_server_url="https://as.example.com/",
        token_endpoint="https://as.example.com/token",
        server_url="https://mcp.example.com/mcp",
        client_registration=registration,
        grant_type="client_credentials",
        obtained_at=1_800_000_000.0,
        dpop_key="-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n",
    )
    written = json.loads(json.dumps(record.to_json()))
    assert list(written) == [
        "access_token",
        "token_type",
        "refresh_token",
        "expires_at",
        "granted_scopes",
        "issuer",
        "authorization_server_url",
        "token_endpoint",
        "resource",
        "server_url",
        "client_registration",
        "grant_type",
        "obtained_at",
        "dpop_key",
    ]
    assert written["granted_scopes"] == ["a", "b"]
    assert written["client_registration"]["redirect_uris"] == ["http://127.0.0.1:1/cb"]
    assert McpOAuthTokenRecord.from_json(written) == record


def test_a_minimal_record_reads_with_the_defaults() -> None:
    record = McpOAuthTokenRecord.from_json(
        {"access_token": "a", "token_type": "", "client_registration": {"client_id": "c"}}
    )
    assert record == McpOAuthTokenRecord(
        access_token="a",
        client_registration=McpOAuthClientRegistration(client_id="c"),
        obtained_at=0.0,
    )
