"""Receiving the sandbox's webhooks: a small HTTP server, and the check of the
``X-Signature`` header as the provider documents it:
``t=<unix seconds>,v1=<Base64 of HMAC-SHA256 over "<t>.<raw body>">``, keyed
with the shared webhook secret."""

from __future__ import annotations

import base64
import hashlib
import hmac
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A notification older (or further in the future) than this is refused, so a
# captured request cannot be replayed later.
MAX_AGE_SECONDS = 300


class InvalidSignature(Exception):
    """The X-Signature header does not prove the body came from the sandbox."""


def verify_signature(header: str | None, raw_body: bytes, secret: bytes, now: int) -> None:
    """Raises InvalidSignature unless ``header`` signs ``raw_body`` with ``secret``
    at a time within MAX_AGE_SECONDS of ``now`` (Unix seconds). Use the body
    bytes as received: parsing and re-serialising changes them."""
    if not header:
        raise InvalidSignature("X-Signature is missing")
    fields = {}
    for part in header.split(","):
        name, sep, value = part.strip().partition("=")
        if not sep:
            raise InvalidSignature(f"X-Signature part {part!r} is not name=value")
        fields[name] = value
    if "t" not in fields or "v1" not in fields:
        raise InvalidSignature("X-Signature needs t= and v1=")
    try:
        timestamp = int(fields["t"])
    except ValueError:
        raise InvalidSignature(f"X-Signature t={fields['t']!r} is not Unix seconds") from None
    if abs(now - timestamp) > MAX_AGE_SECONDS:
        raise InvalidSignature(f"X-Signature t={timestamp} is more than {MAX_AGE_SECONDS} s from now ({now})")
    mac = hmac.new(secret, f"{timestamp}.".encode() + raw_body, hashlib.sha256)
    expected = base64.b64encode(mac.digest())
    # Constant time: the comparison does not tell how many bytes matched.
    if not hmac.compare_digest(expected, fields["v1"].encode()):
        raise InvalidSignature("X-Signature v1 does not match the body")


@dataclass(frozen=True)
class Received:
    path: str
    signature: str | None
    body: bytes


class Receiver:
    """An HTTP server on 127.0.0.1 that answers every POST with 204 and keeps
    what came, in order, for the test to take."""

    def __init__(self) -> None:
        received: queue.Queue[Received] = queue.Queue()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                received.put(Received(self.path, self.headers.get("X-Signature"), body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test reports what matters

        self._received = received
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{path}"

    def take(self, wanted: Callable[[Received], bool], timeout: float = 10.0) -> Received:
        """The first request for which ``wanted`` is true, waiting up to
        ``timeout`` seconds for each arrival; the others are kept for later."""
        aside = []
        try:
            while True:
                request = self._received.get(timeout=timeout)
                if wanted(request):
                    return request
                aside.append(request)
        finally:
            for request in aside:
                self._received.put(request)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
