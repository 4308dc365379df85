"""Receiving the sandbox's webhooks: a small HTTP server, and the checks of
the ``X-Signature`` header as the provider documents them. It signs the two
kinds of notification differently:

- a session notification: ``t=<unix seconds>,v1=<Base64 of HMAC-SHA256 over
  "<t>.<raw body>">``, keyed with the shared webhook secret
  (``verify_signature``);
- an invoice notification: the lowercase hex of HMAC-SHA512 over the raw
  body, keyed with the webhook subscription's secret; no timestamp
  (``verify_invoice_signature``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import queue
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# How far ``t`` may lie from now, in either direction, both ends included.
# The window bounds how late a captured notification can be replayed; within
# it, the same notification verifies every time it arrives, replayed or
# delivered again. Make the receiver idempotent: act on a session's status
# once, keyed by session_id and session_status, and answer 2xx to a repeat
# without acting again.
MAX_AGE_SECONDS = 300

# The whitespace ``str.trim`` removes in Rust (Unicode White_Space), so the
# three verifiers trim the same characters; Python's own ``str.strip``
# removes some others (U+001C to U+001F).
_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_DIGITS = re.compile(r"[0-9]+")
_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{43}=")
# An invoice signature: the hex of the 64 bytes of an HMAC-SHA512, either case.
_INVOICE_SIGNATURE = re.compile(r"[0-9a-fA-F]{128}")
_MAX_T = 2**63 - 1


class InvalidSignature(Exception):
    """The X-Signature header does not prove the body came from the sandbox.

    ``kind`` says why, as psi's Rust verifier does: ``malformed`` (the header
    cannot be read), ``mismatch`` (no ``v1`` signs this body; for an invoice
    notification: the HMAC-SHA512 does not), ``stale`` or ``future``
    (authentic, but ``t`` is outside MAX_AGE_SECONDS; session notifications
    only)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _malformed(message: str) -> InvalidSignature:
    return InvalidSignature("malformed", f"X-Signature {message}")


def verify_signature(header: str | None, raw_body: bytes, secret: bytes, now: int) -> None:
    """Raises InvalidSignature unless ``header`` signs ``raw_body`` with ``secret``
    at a time within MAX_AGE_SECONDS of ``now`` (Unix seconds). Use the body
    bytes as received: parsing and re-serialising changes them.

    Reads the header as psi's Rust verifier does: parts split at ``,``, each
    trimmed, empty ones skipped; the key is the text before the first ``=``
    and unknown keys are ignored; ``t`` once, ASCII digits exactly as sent
    (no sign, no ``_``, no other script's digits) and signed as sent; every
    ``v1`` the canonical Base64 of 32 bytes, and any one of them may match
    (a secret rotation signs with both secrets). The signature is checked
    before the age."""
    if header is None:
        raise _malformed("is missing")
    t_text = None
    signatures = []
    for raw_part in header.split(","):
        part = raw_part.strip(_WHITESPACE)
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise _malformed(f"part {part!r} is not name=value")
        if name == "t":
            if t_text is not None:
                raise _malformed("has t= twice")
            t_text = value
        elif name == "v1":
            signatures.append(value)
    if t_text is None:
        raise _malformed("needs t=")
    # Leading zeros are kept in what is signed; the value is bounded as a
    # signed 64-bit integer (and int() never sees thousands of digits).
    significant = t_text.lstrip("0") or "0"
    if not _DIGITS.fullmatch(t_text) or len(significant) > 19 or int(significant) > _MAX_T:
        raise _malformed(f"t={t_text!r} is not Unix seconds (ASCII digits)")
    if not signatures:
        raise _malformed("needs v1=")
    given = []
    for signature in signatures:
        if not _SIGNATURE.fullmatch(signature):
            raise _malformed(f"v1={signature!r} is not the Base64 of an HMAC-SHA256")
        decoded = base64.b64decode(signature, validate=True)
        if base64.b64encode(decoded).decode("ascii") != signature:
            raise _malformed(f"v1={signature!r} is not canonical Base64")
        given.append(decoded)
    # Signed over the timestamp text as sent, not a number formatted again.
    expected = hmac.new(secret, t_text.encode("ascii") + b"." + raw_body, hashlib.sha256).digest()
    # Constant time, and every candidate is compared, so the time taken says
    # neither how many bytes matched nor which candidate did.
    matched = False
    for candidate in given:
        matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise InvalidSignature("mismatch", "X-Signature v1 does not match the body")
    timestamp = int(t_text)
    if now - timestamp > MAX_AGE_SECONDS:
        raise InvalidSignature(
            "stale", f"X-Signature t={t_text} is more than {MAX_AGE_SECONDS} s from now ({now})"
        )
    if timestamp - now > MAX_AGE_SECONDS:
        raise InvalidSignature(
            "future", f"X-Signature t={t_text} is more than {MAX_AGE_SECONDS} s from now ({now})"
        )


def verify_invoice_signature(header: str | None, raw_body: bytes, secret: bytes) -> None:
    """Raises InvalidSignature unless ``header``, the ``X-Signature`` of an
    invoice notification, signs ``raw_body`` with ``secret``, the webhook
    subscription's secret. Use the body bytes as received: parsing and
    re-serialising changes them.

    The header is the hex of HMAC-SHA512 keyed with ``secret`` over the
    payload's compact string: the raw body as it arrives, or, for a body
    that arrives indented, its compact form (``compact_json``). psi's Rust
    verifier reads it the same way: trimmed of Unicode
    whitespace, then exactly 128 hex digits, either case (``malformed``
    otherwise: no prefix, no ``t=``/``v1=``, no Base64), compared in constant
    time (``mismatch`` when it differs).

    The signature has no timestamp, so nothing bounds when a captured
    notification can be replayed, and a delivery repeated verifies every
    time. Make the receiver idempotent: act once per ``invoice_id`` and
    answer 2xx to a repeat without acting again."""
    if header is None:
        raise _malformed("is missing")
    value = header.strip(_WHITESPACE)
    if not _INVOICE_SIGNATURE.fullmatch(value):
        raise _malformed(f"{value[:140]!r} is not the hex of an HMAC-SHA512 (128 hex digits)")
    given = bytes.fromhex(value)
    matched = False
    for candidate in (raw_body, compact_json(raw_body)):
        expected = hmac.new(secret, candidate, hashlib.sha512).digest()
        matched |= hmac.compare_digest(expected, given)
    if not matched:
        raise InvalidSignature("mismatch", "X-Signature does not match the body (HMAC-SHA512)")


def compact_json(raw_body: bytes) -> bytes:
    """The body without JSON whitespace (space, tab, line feed, carriage
    return) outside string literals; key order, escapes and numbers stay as
    received. The provider signs an invoice notification's payload in this
    form (``{"key":"value"}`` for a payload shown indented)."""
    out = bytearray()
    in_string = escaped = False
    for byte in raw_body:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte not in (0x20, 0x09, 0x0A, 0x0D):
            out.append(byte)
            in_string = byte == 0x22
    return bytes(out)


@dataclass(frozen=True)
class Received:
    path: str
    signature: str | None
    body: bytes


class Receiver:
    """An HTTP server that answers every POST with 204 and keeps what came,
    in order, for the test to take. It listens on 127.0.0.1; given ``name``,
    the name the sandbox reaches this machine by, it listens on every
    interface and its URLs use that name."""

    def __init__(self, name: str | None = None) -> None:
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
        self._name = name
        self._server = ThreadingHTTPServer(("0.0.0.0" if name else "127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{self._name or host}:{port}{path}"

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
