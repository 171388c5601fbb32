"""A scripted socket server for the HTTP/1.1 transport's tests (``test_h1*.py``), and a sync
view of an ``httpx.AsyncClient`` so that one test body serves the sync and the async transport."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from typing import Any

import h11

from .conftest import EventLoopThread

Reply = Callable[["Exchange"], None]


class Exchange:
    """One request the scripted server read (with h11), and its connection to answer on."""

    def __init__(self, sock: socket.socket, request: h11.Request, body: bytes, index: int) -> None:
        self.sock = sock
        self.request = request
        self.body = body
        self.connection_index = index

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)


class ScriptedServer:
    """A socket server on 127.0.0.1 that reads requests with h11 and answers each with a reply
    function of the test's (raw bytes: exact framing, closes, silences). Counts connections and
    requests."""

    def __init__(self, reply: Reply, tls: ssl.SSLContext | None = None) -> None:
        self.reply = reply
        self.tls = tls
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.resumed: list[bool] = []
        """Whether each TLS connection's handshake resumed an earlier session."""
        self.requests: list[tuple[h11.Request, bytes]] = []
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            thread = threading.Thread(
                target=self._serve, args=(sock, self.connections), daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _serve(self, sock: socket.socket, index: int) -> None:
        if self.tls is not None:
            try:
                sock = self.tls.wrap_socket(sock, server_side=True)
            except OSError:  # a client that refused the certificate
                sock.close()
                return
            self.resumed.append(sock.session_reused)
        with sock:
            connection = h11.Connection(h11.SERVER)
            while True:
                request, body = None, b""
                try:
                    while True:
                        event = connection.next_event()
                        if event is h11.NEED_DATA:
                            data = sock.recv(65536)
                            if not data:
                                return
                            connection.receive_data(data)
                        elif isinstance(event, h11.Request):
                            request = event
                        elif isinstance(event, h11.Data):
                            body += event.data
                        elif isinstance(event, h11.EndOfMessage):
                            break
                        else:
                            return
                except (OSError, h11.ProtocolError):
                    return
                assert request is not None
                self.requests.append((request, body))
                try:
                    self.reply(Exchange(sock, request, body, index))
                except OSError:
                    return
                if sock.fileno() == -1:
                    return
                # the reply wrote raw bytes: h11 is told the response ended so that it reads
                # the next request
                connection.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
                connection.send(h11.EndOfMessage())
                try:
                    connection.start_next_cycle()
                except h11.LocalProtocolError:  # the request asked for the close
                    return

    def close(self) -> None:
        self.listener.close()


def ok(body: bytes) -> Reply:
    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body))

    return reply


class AsyncView:
    """An ``httpx.AsyncClient`` (or httpx2's) behind the sync methods the tests use: each call
    runs on the test's event loop thread; responses are read unless streamed."""

    def __init__(self, runner: EventLoopThread, client: Any) -> None:
        self.runner = runner
        self.client = client

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        return self.runner.run(self.client.request(method, url, **kwargs))

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Any:
        return self.request("POST", url, **kwargs)

    def build_request(self, method: str, url: str, **kwargs: Any) -> Any:
        return self.client.build_request(method, url, **kwargs)

    def send(self, request: Any) -> Any:
        return self.runner.run(self.client.send(request))

    @contextlib.contextmanager
    def stream(self, method: str, url: str, **kwargs: Any) -> Iterator[StreamView]:
        manager = self.client.stream(method, url, **kwargs)
        response = self.runner.run(manager.__aenter__())
        try:
            yield StreamView(self.runner, response)
        finally:
            self.runner.run(manager.__aexit__(None, None, None))

    def close(self) -> None:
        self.runner.run(self.client.aclose())


class StreamView:
    """A streamed async response behind ``iter_raw`` and ``iter_lines``."""

    def __init__(self, runner: EventLoopThread, response: Any) -> None:
        self.runner = runner
        self.response = response

    def _iterate(self, iterator: Any) -> Iterator[Any]:
        while True:
            try:
                yield self.runner.run(iterator.__anext__())
            except StopAsyncIteration:
                return

    def iter_raw(self) -> Iterator[bytes]:
        return self._iterate(self.response.aiter_raw())

    def iter_lines(self) -> Iterator[str]:
        return self._iterate(self.response.aiter_lines())

    def read(self) -> bytes:
        data: bytes = self.runner.run(self.response.aread())
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.response, name)
