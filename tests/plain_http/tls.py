"""A real HTTPS server on loopback (Python's ``http.server`` under ``ssl``, with a self-signed
certificate for 127.0.0.1), for the tests of what a client says when an ``http://`` URL points
at a port that speaks TLS. A plain HTTP request reaches its TLS stack, which answers it as TLS
servers do: ``"close"``, OpenSSL's way (Python's ``ssl``, uvicorn, nginx's stream module: the
handshake fails and the connection is closed unanswered), or ``"alert"``, a fatal TLS alert
record (``15 03 03 00 02 02 0a``: unexpected_message), as other TLS stacks answer bytes that are
no ClientHello."""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import socket
import ssl
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["TLS_ALERT", "self_signed_certificate", "tls_site"]

TLS_ALERT = b"\x15\x03\x03\x00\x02\x02\x0a"
"""A TLS 1.2 record: a fatal alert, unexpected_message."""


def self_signed_certificate(root: Path, name: str | None = None) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and the DNS name ``name``, when given), and its
    key, written under ``root`` as ``cert.pem`` and ``key.pem``."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name or "127.0.0.1")])
    alternative_names: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    if name is not None:
        alternative_names.insert(0, x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(alternative_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = root / "cert.pem", root / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def tls_site(answer: Literal["close", "alert"]) -> Iterator[tuple[str, Path]]:
    """An HTTPS server answering ``GET`` with ``hello``, and a plain HTTP request as
    ``answer`` says; yields its ``http://`` origin (the mistake under test) and the path of
    its certificate (for a client that checks the server over https://)."""
    with tempfile.TemporaryDirectory() as root:
        cert_path, key_path = self_signed_certificate(Path(root))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def finish_request(self, request: object, client_address: object) -> None:
                assert isinstance(request, socket.socket)
                request.settimeout(10)
                try:
                    first = request.recv(1, socket.MSG_PEEK)
                    if answer == "alert" and first != b"\x16":  # not a TLS handshake record
                        request.sendall(TLS_ALERT)
                        return
                    wrapped = context.wrap_socket(request, server_side=True)
                except (ssl.SSLError, OSError):
                    return  # OpenSSL closes a plain HTTP request unanswered
                super().finish_request(wrapped, client_address)  # type: ignore[arg-type]

        server = Server(("127.0.0.1", 0), _Hello)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}", cert_path
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
