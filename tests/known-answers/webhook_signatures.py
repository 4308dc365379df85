#!/usr/bin/env python3
"""Known answers for the webhook signature, computed outside Rust.

The service signs a notification with the header
    X-Signature: t=<unix seconds>,v1=<signature>
where <signature> is the standard, padded Base64 of HMAC-SHA256 keyed with
the shared secret over the bytes  str(t) + "." + raw body.

    python3 tests/known-answers/webhook_signatures.py          # writes webhook-signatures.json
    python3 tests/known-answers/webhook_signatures.py --check  # recomputes, fails on a mismatch

Only the standard library is used (hmac, hashlib, base64, json), so a
misreading shared by the Rust signer and verifier cannot hide here.
"""

import base64
import hashlib
import hmac
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUTPUT = HERE / "webhook-signatures.json"

# (what the case shows, secret, t, body). Bodies are text; they are signed
# as their UTF-8 bytes, exactly as written here.
CASES = [
    (
        "a session record as the sandbox sends it",
        "sandbox-webhook-secret",
        1767225600,
        '{"session_id":"3f2c1d9e-4b5a-4c6d-8e7f-0a1b2c3d4e5f","transaction_id":"12-34567890123456789",'
        '"partner_transaction_id":"order-100045","session_status":"COMPLETED",'
        '"created_date":"2026-01-01T01:00:00+01:00","updated_date":"2026-01-01T01:05:00+01:00"}',
    ),
    ("an empty body", "sandbox-webhook-secret", 1767225600, ""),
    (
        "non-ASCII UTF-8 in the body (umlauts, sharp s, euro sign, emoji)",
        "sandbox-webhook-secret",
        1767225601,
        '{"name":"Müller & Söhne","street":"Hauptstraße 1","note":"€ 43,80 ✓ 🛒"}',
    ),
    (
        "whitespace and key order are part of the signed bytes",
        "sandbox-webhook-secret",
        1767225601,
        '{ "session_status" : "CANCELED",\n  "session_id" : "s-1" }\n',
    ),
    (
        "another secret, non-ASCII too",
        "whsec-Grüße-🔑",
        1700000000,
        '{"correspondence_id":"6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0","transaction_id":"12-00000000000000042"}',
    ),
    ("a timestamp of ten digits at the epoch's start", "k", 1000000000, "{}"),
    ("a short timestamp (no zero padding)", "sandbox-webhook-secret", 7, '{"a":1}'),
]


def header(secret: str, t: int, body: str) -> str:
    message = str(t).encode("ascii") + b"." + body.encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return "t={},v1={}".format(t, base64.b64encode(digest).decode("ascii"))


def cases() -> list:
    return [
        {
            "description": description,
            "secret": secret,
            "t": t,
            "body": body,
            "expected_header": header(secret, t, body),
        }
        for description, secret, t, body in CASES
    ]


def render(data: list) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        stored = json.loads(OUTPUT.read_text(encoding="utf-8"))
        failures = 0
        for case in stored:
            expected = header(case["secret"], case["t"], case["body"])
            if expected != case["expected_header"]:
                failures += 1
                print(
                    "mismatch in {!r}: stored {} but computed {}".format(
                        case["description"], case["expected_header"], expected
                    ),
                    file=sys.stderr,
                )
        if render(stored) != render(cases()):
            failures += 1
            print(
                "{} is not what this script writes; run it without --check".format(OUTPUT.name),
                file=sys.stderr,
            )
        if failures:
            return 1
        print("{} known answers check out".format(len(stored)))
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    OUTPUT.write_text(render(cases()), encoding="utf-8")
    print("wrote {} cases to {}".format(len(CASES), OUTPUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
