"""The OAuth token store: one record per MCP server, in one JSON file of the user's config dir.

The file is ``oauth-tokens.json`` under ``platformdirs.user_config_dir("mcpstream")``, or under
``$MCPSTREAM_CONFIG_DIR`` when that is set (tests and sandboxes use it). Every write

- holds an exclusive lock on ``oauth-tokens.json.lock`` (``fcntl.flock``; ``msvcrt`` on
  Windows), so two processes saving at once both keep their record;
- reads the current file, changes one server's entry and leaves every other entry as it was,
  byte for byte the same JSON value, even an entry this version cannot parse;
- writes a temporary file (mode 0600) beside it, fsyncs it and renames it over the old one with
  ``os.replace``, so a reader sees the old file or the new one, never half of one.

A file that cannot be read or parsed raises :class:`McpOAuthTokenStoreError` naming the file, and
is never overwritten: fixing or removing it is the user's call, and the other servers' records
in it are not lost. Records and registrations hide their secrets in ``repr``.

What the store trusts on disk (POSIX; Windows has no such modes):

- the store file and its lock are opened without following a symbolic link (``O_NOFOLLOW``)
  and without blocking (``O_NONBLOCK``), and used only when they are regular files owned by
  this user: a symlink, a named pipe, a device or another user's file at either path is
  refused with :class:`McpOAuthTokenStoreError` (a pipe would otherwise hang ``load``);
- a directory that others may write to (``o+w``) is refused unless it has the sticky bit
  (``/tmp``-like: others cannot then replace our files, and the ownership check above stops a
  file they planted first);
- a store file larger than :data:`MAX_STORE_FILE_BYTES` is refused unread;
- times are finite numbers: ``NaN`` or ``Infinity`` (which ``json`` would write and read) is
  never written, and refused when read.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, NoReturn, Protocol, Self, get_type_hints

from .errors import McpOAuthTokenStoreError

__all__ = [
    "CONFIG_DIR_ENV_VAR",
    "MAX_STORE_FILE_BYTES",
    "STORE_FILE_NAME",
    "McpOAuthClientRegistration",
    "McpOAuthFileTokenStore",
    "McpOAuthMemoryTokenStore",
    "McpOAuthTokenRecord",
    "McpOAuthTokenStore",
    "McpOAuthTokenStoreError",
    "McpOAuthTokenStoreTransaction",
    "default_oauth_token_store",
    "delete_oauth_token_record",
    "list_oauth_token_records",
    "load_oauth_token_record",
    "oauth_config_dir",
    "oauth_token_store_path",
    "save_oauth_token_record",
]

CONFIG_DIR_ENV_VAR = "MCPSTREAM_CONFIG_DIR"
STORE_FILE_NAME = "oauth-tokens.json"
MAX_STORE_FILE_BYTES = 16 << 20
"""A store file larger than this (16 MiB, thousands of records) is refused unread."""
_FORMAT_VERSION = 1
_REDACTED = "<redacted>"
_SECRET: Mapping[str, Any] = MappingProxyType({"secret": True})  # field metadata: repr hides it

_Reader = Callable[[dict[str, Any], str], Any]


class _StoredJson:
    """``to_json`` and ``from_json`` derived from a dataclass's fields, so that a field is
    declared once: the JSON object has every field in order (a tuple as a list, a nested record
    as its object); reading it checks each field's type (see :func:`_field_reader`). The
    ``repr`` (and ``str``) shows the fields declared with ``repr`` (the dataclass default), one
    marked secret only as ``<redacted>``."""

    _JSON_NAME: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # the subclasses are dataclasses

    def to_json(self) -> dict[str, Any]:
        """The JSON object the store writes."""
        written: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, _StoredJson):
                value = value.to_json()
            written[item.name] = value
        return written

    def __repr__(self) -> str:
        shown = []
        for item in fields(self):
            if item.repr:
                value = getattr(self, item.name)
                if item.metadata.get("secret"):
                    value = _REDACTED if value else None
                shown.append(f"{item.name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """Parse what :meth:`to_json` wrote; raises ``ValueError`` on a malformed object."""
        if not isinstance(data, dict):
            raise ValueError(f"{cls._JSON_NAME} is not an object")
        return cls(**{name: read(data, name) for name, read in _field_readers(cls)})


_READERS: dict[type, tuple[tuple[str, _Reader], ...]] = {}


def _field_readers(cls: type[_StoredJson]) -> tuple[tuple[str, _Reader], ...]:
    """The name and reader of each field of ``cls``, worked out once per class."""
    readers = _READERS.get(cls)
    if readers is None:
        hints = get_type_hints(cls)
        readers = tuple(
            (item.name, _field_reader(hints[item.name], item.default)) for item in fields(cls)
        )
        _READERS[cls] = readers
    return readers


def _field_reader(annotation: Any, default: Any) -> _Reader:
    """How ``from_json`` reads a field of type ``annotation``. A ``str`` without a default is
    required; one with a default takes it when absent or empty. A record saved before
    ``obtained_at`` was stored reads as obtained at 0."""
    if annotation is str:
        if default is MISSING:
            return _required_str
        return lambda data, key: _optional_str(data, key) or default
    readers: dict[Any, _Reader] = {
        str | None: _optional_str,
        float | None: _optional_float,
        float: lambda data, key: _optional_float(data, key) or 0.0,
        tuple[str, ...]: _str_tuple,
        McpOAuthClientRegistration | None: _optional_registration,
    }
    return readers[annotation]


@dataclass(frozen=True, repr=False)
class McpOAuthClientRegistration(_StoredJson):
    """How mcpstream is known to one authorization server.

    ``method`` says where the registration came from: ``"pre_registered"`` (configured client
    id), ``"client_id_metadata_document"`` (the client id is the document's URL) or ``"dynamic"``
    (RFC 7591). ``token_endpoint_auth_method`` is ``client_secret_basic``,
    ``client_secret_post``, ``private_key_jwt`` or ``none``. ``issuer`` is the authorization
    server the client id belongs to (credentials are bound to their issuer: the MCP
    specification, 2026-07-28, forbids showing them to another).
    """

    client_id: str
    method: str = "pre_registered"
    client_secret: str | None = field(default=None, metadata=_SECRET)
    token_endpoint_auth_method: str = "none"
    client_secret_expires_at: float | None = field(default=None, repr=False)
    redirect_uris: tuple[str, ...] = ()
    registration_access_token: str | None = field(default=None, repr=False)
    registration_client_uri: str | None = field(default=None, repr=False)
    issuer: str | None = None

    _JSON_NAME: ClassVar[str] = "client registration"

    def is_bound_to(self, issuer: str) -> bool:
        """Whether this client id may be sent to the authorization server ``issuer``: a Client ID
        Metadata Document URL may go anywhere (the server fetches the document); any other
        client id only to the issuer it was registered with, compared as exact strings. A
        registration saved before issuers were recorded (``issuer`` ``None``) is bound to
        nothing."""
        if self.method == "client_id_metadata_document":
            return True
        return self.issuer is not None and self.issuer == issuer


@dataclass(frozen=True, repr=False)
class McpOAuthTokenRecord(_StoredJson):
    """The credentials stored for one MCP server.

    ``expires_at`` is the access token's expiry in seconds since the epoch (``None``: the server
    gave no lifetime). ``granted_scopes`` are the scopes the token carries. ``issuer``,
    ``authorization_server_url``, ``token_endpoint`` and ``resource`` record where the token came
    from and what it is for, so that a refresh in another process needs no new discovery.
    ``grant_type`` is ``authorization_code``, ``client_credentials`` or, for the assertion
    grants, ``urn:ietf:params:oauth:grant-type:jwt-bearer``. A DPoP-bound token (``token_type``
    ``DPoP``, RFC 9449) keeps its key in ``dpop_key`` (the private key as PKCS#8 PEM, a secret
    like the tokens; ``None`` for a Bearer token and in files written before DPoP).
    """

    access_token: str = field(metadata=_SECRET)
    token_type: str = "Bearer"
    refresh_token: str | None = field(default=None, metadata=_SECRET)
    expires_at: float | None = None
    granted_scopes: tuple[str, ...] = ()
    issuer: str | None = None
    authorization_server_url: str | None = field(default=None, repr=False)
    token_endpoint: str | None = field(default=None, repr=False)
    resource: str | None = None
    server_url: str | None = field(default=None, repr=False)
    client_registration: McpOAuthClientRegistration | None = None
    grant_type: str = "authorization_code"
    obtained_at: float = field(default_factory=time.time, repr=False)
    dpop_key: str | None = field(default=None, metadata=_SECRET)

    _JSON_NAME: ClassVar[str] = "token record"

    def __post_init__(self) -> None:
        # A token that cannot be an HTTP header value is never held: it could not be sent, and
        # the HTTP library's error would quote it whole.
        if not is_header_safe(self.access_token):
            raise ValueError("the access token is not printable ASCII without spaces")

    @property
    def expiry(self) -> float | None:
        """Alias of ``expires_at``."""
        return self.expires_at

    def with_changes(self, **changes: Any) -> McpOAuthTokenRecord:
        """A copy with the given fields replaced."""
        return replace(self, **changes)


def _required_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"field {key!r} is missing or not a non-empty string")
    return value


def _optional(data: dict[str, Any], key: str, kind: Any, what: str) -> Any:
    """``data[key]``, or ``None`` when absent or null; ``ValueError`` when it is not a ``kind``
    (a bool is no number)."""
    value = data.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise ValueError(f"field {key!r} is not {what}")
    return value


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value: str | None = _optional(data, key, str, "a string")
    return value


def _optional_float(data: dict[str, Any], key: str) -> float | None:
    value = _optional(data, key, int | float, "a number")
    if value is None:
        return None
    number = finite_seconds(value)
    if number is None:
        raise ValueError(f"field {key!r} is not a finite number")
    return number


def is_header_safe(value: str) -> bool:
    """Whether ``value`` can go in an HTTP header as a token: printable ASCII, no spaces."""
    return value.isascii() and value.isprintable() and " " not in value


def finite_seconds(value: object, maximum: float = 1e12) -> float | None:
    """``value`` as a float when it is a finite number (not a bool) in ``[-maximum, maximum]``;
    ``None`` otherwise (an ``OverflowError``-sized int, ``NaN``, ``Infinity``, a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) > maximum:
        return None
    number = float(value)
    return number if math.isfinite(number) and abs(number) <= maximum else None


def _optional_registration(data: dict[str, Any], key: str) -> McpOAuthClientRegistration | None:
    value = data.get(key)
    return McpOAuthClientRegistration.from_json(value) if value is not None else None


def _str_tuple(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"field {key!r} is not a list of strings")
    return tuple(value)


class McpOAuthTokenStoreTransaction(Protocol):
    """The store seen while its lock is held: reads and writes that do not lock again."""

    def load(self, server_id: str) -> McpOAuthTokenRecord | None:
        """The record of ``server_id``, or ``None``."""
        ...

    def save(self, server_id: str, record: McpOAuthTokenRecord) -> None:
        """Store ``record`` for ``server_id``, keeping every other record."""
        ...

    def delete(self, server_id: str) -> bool:
        """Remove the record of ``server_id``; ``True`` when there was one."""
        ...


class McpOAuthTokenStore(McpOAuthTokenStoreTransaction, Protocol):
    """Where OAuth records live. :class:`McpOAuthFileTokenStore` is the default;
    :class:`McpOAuthMemoryTokenStore` keeps them in the process only."""

    def locked(self) -> contextlib.AbstractContextManager[McpOAuthTokenStoreTransaction]:
        """Hold the store's lock for a read-modify-write (a refresh that rotates tokens)."""
        ...

    def list_records(self) -> dict[str, McpOAuthTokenRecord | McpOAuthTokenStoreError]:
        """Every stored record by server id; a record that cannot be parsed maps to its error."""
        ...


def oauth_config_dir() -> Path:
    """The directory of the token store: ``$MCPSTREAM_CONFIG_DIR``, else the platform's user
    config directory for mcpstream."""
    override = os.environ.get(CONFIG_DIR_ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("mcpstream", appauthor=False))


def oauth_token_store_path() -> Path:
    """The token store file the default store uses now."""
    return oauth_config_dir() / STORE_FILE_NAME


class McpOAuthFileTokenStore:
    """The token store file (see the module docstring for its guarantees).

    ``path`` fixes the file; ``None`` resolves :func:`oauth_token_store_path` on every call, so
    that a change of ``$MCPSTREAM_CONFIG_DIR`` takes effect at once.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self._path = Path(path) if path is not None else None

    @property
    def path(self) -> Path:
        """The file this store reads and writes."""
        return self._path if self._path is not None else oauth_token_store_path()

    def load(self, server_id: str) -> McpOAuthTokenRecord | None:
        """The record of ``server_id``, or ``None`` when there is none."""
        path = self.path
        return _parse_entry(path, server_id, _read_document(path).get(server_id))

    def save(self, server_id: str, record: McpOAuthTokenRecord) -> None:
        """Store ``record`` for ``server_id``, keeping every other server's record."""
        with self.locked() as transaction:
            transaction.save(server_id, record)

    def delete(self, server_id: str) -> bool:
        """Remove the record of ``server_id``; ``True`` when there was one."""
        with self.locked() as transaction:
            return transaction.delete(server_id)

    def list_records(self) -> dict[str, McpOAuthTokenRecord | McpOAuthTokenStoreError]:
        """Every stored record by server id; an unparseable record maps to its error."""
        path = self.path
        result: dict[str, McpOAuthTokenRecord | McpOAuthTokenStoreError] = {}
        for server_id, entry in _read_document(path).items():
            try:
                record = _parse_entry(path, server_id, entry)
            except McpOAuthTokenStoreError as exc:
                result[server_id] = exc
            else:
                if record is not None:
                    result[server_id] = record
        return result

    @contextlib.contextmanager
    def locked(self) -> Iterator[McpOAuthTokenStoreTransaction]:
        """Hold the store's exclusive lock; the transaction reads and writes under it."""
        path = self.path
        _ensure_private_dir(path.parent)
        _check_directory(path)
        with _exclusive_lock(path.with_name(path.name + ".lock")):
            yield _FileTransaction(path)


class _FileTransaction:
    def __init__(self, path: Path) -> None:
        self._path = path

    def load(self, server_id: str) -> McpOAuthTokenRecord | None:
        return _parse_entry(self._path, server_id, _read_document(self._path).get(server_id))

    def save(self, server_id: str, record: McpOAuthTokenRecord) -> None:
        servers = _read_document(self._path)
        servers[server_id] = record.to_json()
        _write_document(self._path, servers)

    def delete(self, server_id: str) -> bool:
        servers = _read_document(self._path)
        if server_id not in servers:
            return False
        del servers[server_id]
        _write_document(self._path, servers)
        return True


class McpOAuthMemoryTokenStore:
    """A store that keeps records in this process only (tests, one-shot clients, CI)."""

    def __init__(self) -> None:
        self._records: dict[str, McpOAuthTokenRecord] = {}
        self._lock = threading.RLock()

    def load(self, server_id: str) -> McpOAuthTokenRecord | None:
        """The record of ``server_id``, or ``None``."""
        with self._lock:
            return self._records.get(server_id)

    def save(self, server_id: str, record: McpOAuthTokenRecord) -> None:
        """Store ``record`` for ``server_id``."""
        with self._lock:
            self._records[server_id] = record

    def delete(self, server_id: str) -> bool:
        """Remove the record of ``server_id``; ``True`` when there was one."""
        with self._lock:
            return self._records.pop(server_id, None) is not None

    def list_records(self) -> dict[str, McpOAuthTokenRecord | McpOAuthTokenStoreError]:
        """Every stored record by server id."""
        with self._lock:
            return dict(self._records)

    @contextlib.contextmanager
    def locked(self) -> Iterator[McpOAuthTokenStoreTransaction]:
        """Hold the store's lock (re-entrant within a thread)."""
        with self._lock:
            yield self


def _store_error(
    path: Path, message: str, *, server_id: str | None = None
) -> McpOAuthTokenStoreError:
    return McpOAuthTokenStoreError(
        f"OAuth token store {path}: {message}", path=str(path), server_id=server_id
    )


_OPEN_FLAGS = (
    getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
)


def _check_directory(path: Path) -> None:
    """Refuse a store directory others may write to, unless it is sticky (module docstring)."""
    if sys.platform == "win32":  # pragma: no cover - no POSIX modes there
        return
    try:
        mode = os.stat(path.parent).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _store_error(path, f"its directory cannot be read ({exc.strerror})") from exc
    if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
        raise _store_error(
            path,
            "its directory is writable by every user (and not sticky), so another user could "
            "replace the file; use a private directory (chmod o-w) or set MCPSTREAM_CONFIG_DIR",
        )


def _open_own_file(path: Path, flags: int, what: str) -> int:
    """Open ``path`` without following a symlink or blocking; the descriptor of a regular file
    this user owns, else a store error (module docstring) whose message starts with ``what``."""
    try:
        fd = os.open(path, flags | _OPEN_FLAGS, 0o600)
    except FileNotFoundError:
        raise
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if os.path.islink(path):
            reason = "it is a symbolic link, which mcpstream does not follow"
        raise _store_error(path, f"{what} ({reason})") from exc
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "it is not a regular file"
    elif hasattr(os, "getuid") and info.st_uid != os.getuid():
        problem = "it belongs to another user"
    if problem is not None:
        os.close(fd)
        raise _store_error(path, f"{what} ({problem}); remove it")
    return fd


def _read_bytes(path: Path) -> bytes:
    fd = _open_own_file(path, os.O_RDONLY, "cannot be read")
    try:
        if os.fstat(fd).st_size > MAX_STORE_FILE_BYTES:
            raise _store_error(path, f"is larger than {MAX_STORE_FILE_BYTES} bytes; not read")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_STORE_FILE_BYTES + 1)
    finally:
        os.close(fd)


def _read_document(path: Path) -> dict[str, Any]:
    """The ``servers`` mapping of the store file (empty when the file does not exist)."""
    _check_directory(path)
    try:
        raw = _read_bytes(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise _store_error(path, f"cannot be read ({exc.strerror or type(exc).__name__})") from exc
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except RecursionError:
        raise _store_error(path, "is nested too deeply to be a store file") from None
    except (UnicodeDecodeError, ValueError) as exc:
        # Only the position is named: the text around it may be a token.
        position = getattr(exc, "pos", getattr(exc, "start", "?"))
        raise _store_error(
            path, f"is not valid JSON (at character {position}); fix or remove the file"
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("servers"), dict):
        raise _store_error(path, "has an unexpected layout; fix or remove the file")
    version = document.get("version")
    if version != _FORMAT_VERSION:
        raise _store_error(
            path, f"has format version {version!r}, this mcpstream reads {_FORMAT_VERSION}"
        )
    servers: dict[str, Any] = document["servers"]
    return servers


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _parse_entry(path: Path, server_id: str, entry: Any) -> McpOAuthTokenRecord | None:
    if entry is None:
        return None
    try:
        return McpOAuthTokenRecord.from_json(entry)
    except (ValueError, TypeError) as exc:
        raise _store_error(
            path, f"the record of server {server_id!r} is malformed ({exc})", server_id=server_id
        ) from None


def _write_document(path: Path, servers: dict[str, Any]) -> None:
    document = {"version": _FORMAT_VERSION, "servers": servers}
    try:
        text = json.dumps(document, indent=2, sort_keys=True, allow_nan=False)
    except ValueError:
        raise _store_error(path, "a record holds NaN or Infinity; not written") from None
    data = (text + "\n").encode("utf-8")
    directory = path.parent
    try:
        # mkstemp creates the file with mode 0600, before any secret is written to it.
        fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise _store_error(
            path, f"cannot be written ({exc.strerror or type(exc).__name__})"
        ) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, 0o600)
        os.replace(temp_name, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise _store_error(
            path, f"cannot be written ({exc.strerror or type(exc).__name__})"
        ) from exc
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    if sys.platform == "win32":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _ensure_private_dir(directory: Path) -> None:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise _store_error(
            directory / STORE_FILE_NAME,
            f"its directory cannot be created ({exc.strerror or type(exc).__name__})",
        ) from exc


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    fd = _open_own_file(lock_path, os.O_RDWR | os.O_CREAT, "lock file cannot be opened")
    try:
        _lock_fd(fd)
        try:
            yield
        finally:
            _unlock_fd(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                continue

    def _unlock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


_DEFAULT_STORE = McpOAuthFileTokenStore()


def default_oauth_token_store() -> McpOAuthFileTokenStore:
    """The file store the module-level functions use (its path follows the environment)."""
    return _DEFAULT_STORE


def load_oauth_token_record(server_id: str) -> McpOAuthTokenRecord | None:
    """The stored record of ``server_id``, or ``None``; raises
    :class:`McpOAuthTokenStoreError` when the store file or the record cannot be read."""
    return _DEFAULT_STORE.load(server_id)


def save_oauth_token_record(server_id: str, record: McpOAuthTokenRecord) -> None:
    """Store ``record`` for ``server_id`` (atomically, under the store's lock)."""
    _DEFAULT_STORE.save(server_id, record)


def delete_oauth_token_record(server_id: str) -> bool:
    """Remove the stored record of ``server_id``; ``True`` when there was one."""
    return _DEFAULT_STORE.delete(server_id)


def list_oauth_token_records() -> dict[str, McpOAuthTokenRecord | McpOAuthTokenStoreError]:
    """Every stored record by server id; an unparseable record maps to its error."""
    return _DEFAULT_STORE.list_records()
