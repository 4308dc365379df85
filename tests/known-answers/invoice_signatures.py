#!/usr/bin/env python3
"""Known answers for the invoice notification signature, computed outside Rust.

The service signs an invoice notification (unlike a session notification,
see webhook_signatures.py) with the header
    x-signature: <lowercase hex of HMAC-SHA512 over the raw body>
keyed with the webhook subscription's secret: no timestamp, no `t=`/`v1=`,
no Base64. The provider's own example (secret `abc123`, body
`{"key":"value"}`) is the first case, and this script fails unless it gives
the provider's answer.

Two files, shared by the three verifiers (psi's Rust one, clients/typescript
and clients/python), each of which checks every case in its own test suite:

- invoice-signatures.json: the signature of a body under a secret
  (`expected_signature`, lowercase hex, 128 digits);
- invoice-verification.json: a header as it arrives (a string, or null when
  there is none) and the verifier's answer, `expected`:
  - "malformed": no header, or what remains after trimming Unicode
    whitespace (the White_Space characters Rust's `str::trim` removes) is
    not exactly 128 hex digits (either case; so no prefix such as
    `sha512=`, no `t=`/`v1=`, no Base64, nothing else inside);
  - "mismatch": the digits are the HMAC-SHA512 under the secret neither of
    the raw body nor of its compact form (compared in constant time);
  - "ok": they are. There is no age check: the notification carries no
    timestamp, so a receiver acts once per `invoice_id`.

The compact form: the provider computes the hash "on a string
representation of the payload", `{"key":"value"}` for a payload shown
indented. A body that arrives as that string verifies as it is; one that
arrives indented verifies through its compact form, the body with every JSON
whitespace character (space, tab, line feed, carriage return) outside string
literals removed. Nothing else is changed: key order, escapes and number
text stay as received.

    python3 tests/known-answers/invoice_signatures.py          # writes both files
    python3 tests/known-answers/invoice_signatures.py --check  # recomputes, fails on a mismatch

Only the standard library is used (hmac, hashlib, base64, json, re), so a
misreading shared by the Rust signer and verifier cannot hide here.
"""

import base64
import hashlib
import hmac
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
SIGNATURES = HERE / "invoice-signatures.json"
VERIFICATION = HERE / "invoice-verification.json"

# The provider's documented example.
PROVIDER_SECRET = "abc123"
PROVIDER_BODY = '{"key":"value"}'
PROVIDER_SIGNATURE = (
    "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8f"
    "f45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd"
)

# The provider requires subscription secrets of at least 64 characters.
SECRET = "invoice-subscription-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
# Longer than SHA-512's block (128 bytes): HMAC hashes such a key first.
LONG_SECRET = "whsec-" + "0123456789abcdef" * 12
# Non-ASCII, 64 characters and more bytes (umlauts, sharp s, emoji).
NON_ASCII_SECRET = "Grüße-aus-München-🔑-" + "x" * 44

INVOICE_BODY = (
    '{"id":92,"shop_transaction_id":"shop-transaction-id-1234",'
    '"gateway_payment_reference":"GD1234567890","gateway_transaction_id":"32-201411251340634",'
    '"invoice_id":"DG0627731Z7-001",'
    '"eml_url":"https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/eml",'
    '"pdf_url":"https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/pdf"}'
)
# The same fields, another key order and whitespace: other bytes, another signature.
INVOICE_BODY_REFORMATTED = (
    '{\n  "invoice_id": "DG0627731Z7-001",\n  "id": 92,\n'
    '  "shop_transaction_id": "shop-transaction-id-1234",\n'
    '  "gateway_payment_reference": "GD1234567890",\n'
    '  "gateway_transaction_id": "32-201411251340634",\n'
    '  "eml_url": "https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/eml",\n'
    '  "pdf_url": "https://api.example.com/api/order/32-201411251340634/correspondences/invoices/DG0627731Z7-001/pdf"\n}\n'
)

# (what the case shows, secret, body). Bodies and secrets are text; they are
# signed as their UTF-8 bytes, exactly as written here.
SIGNATURE_CASES = [
    ("the provider's example", PROVIDER_SECRET, PROVIDER_BODY),
    ("the provider's example with a space after the colon: whitespace is signed", PROVIDER_SECRET, '{"key": "value"}'),
    ("an invoice notification as the service sends it", SECRET, INVOICE_BODY),
    (
        "the same invoice notification in another key order, indented: other bytes, another signature",
        SECRET,
        INVOICE_BODY_REFORMATTED,
    ),
    ("an empty body", SECRET, ""),
    (
        "non-ASCII UTF-8 in the body (umlauts, sharp s, euro sign, emoji)",
        SECRET,
        '{"id":93,"shop_transaction_id":"Bestellung-Müller-Straße-€-🧾","invoice_id":"DG0627731Z7-002"}',
    ),
    ("non-ASCII UTF-8 in the secret", NON_ASCII_SECRET, INVOICE_BODY),
    ("a secret of exactly 64 characters, the provider's minimum", "k" * 64, PROVIDER_BODY),
    ("a secret longer than SHA-512's block of 128 bytes (HMAC hashes it first)", LONG_SECRET, INVOICE_BODY),
]


def signature(secret: str, body: str) -> str:
    """The lowercase hex of HMAC-SHA512 keyed with the secret over the body."""
    return hmac.new(secret.encode("utf-8"), body.encode("utf-8"), hashlib.sha512).hexdigest()


GOOD = signature(SECRET, INVOICE_BODY)
# One hex digit changed (the fifth; 0-9a-f stays 0-9a-f).
FLIPPED = GOOD[:4] + format(int(GOOD[4], 16) ^ 1, "x") + GOOD[5:]
SHA256_HEX = hmac.new(SECRET.encode("utf-8"), INVOICE_BODY.encode("utf-8"), hashlib.sha256).hexdigest()
BASE64 = base64.b64encode(bytes.fromhex(GOOD)).decode("ascii")
TAMPERED_BODY = INVOICE_BODY.replace('"id":92', '"id":93')
ARABIC_INDIC = "".join(chr(0x0660 + int(c)) if c.isdigit() else c for c in GOOD)
FULLWIDTH = "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in GOOD)

# (what the case shows, header, answer), with SECRET and INVOICE_BODY unless
# a fourth and fifth element give the secret and body the verifier is handed.
VERIFICATION_CASES = [
    ("the header as the service sends it", GOOD, "ok"),
    ("upper-case hex (read leniently)", GOOD.upper(), "ok"),
    ("mixed-case hex", GOOD[:64].upper() + GOOD[64:], "ok"),
    ("spaces around the value are trimmed", f"  {GOOD} ", "ok"),
    ("tabs and a line break around the value are trimmed", f"\t{GOOD}\r\n", "ok"),
    ("a no-break space and an ideographic space are trimmed (Unicode whitespace)", f"\u00a0{GOOD}\u3000", "ok"),
    ("a byte order mark is not whitespace to Rust's trim", f"\ufeff{GOOD}", "malformed"),
    ("U+001C is not whitespace to Rust's trim (Python's strip removes it)", f"{GOOD}\u001c", "malformed"),
    ("no header", None, "malformed"),
    ("an empty header", "", "malformed"),
    ("a header of whitespace only", " \t ", "malformed"),
    ("127 hex digits", GOOD[:-1], "malformed"),
    ("129 hex digits", GOOD + "0", "malformed"),
    ("the 128 digits twice, comma separated", f"{GOOD},{GOOD}", "malformed"),
    ("a space inside the value", GOOD[:64] + " " + GOOD[64:], "malformed"),
    ("a character that is not hex (g)", GOOD[:-1] + "g", "malformed"),
    ("Arabic-Indic digits for the decimal digits", ARABIC_INDIC, "malformed"),
    ("full-width digits for the decimal digits", FULLWIDTH, "malformed"),
    ("a session-style header (t=..., v1=...)", f"t=1767225600,v1={GOOD}", "malformed"),
    ("a sha512= prefix", f"sha512={GOOD}", "malformed"),
    ("a 0x prefix", f"0x{GOOD}", "malformed"),
    ("the Base64 of the right MAC", BASE64, "malformed"),
    ("the hex of HMAC-SHA256 instead (64 digits)", SHA256_HEX, "malformed"),
    ("a body changed after signing", GOOD, "mismatch", SECRET, TAMPERED_BODY),
    ("the same members in another key order, indented: not the payload signed", GOOD, "mismatch", SECRET, INVOICE_BODY_REFORMATTED),
    ("another secret (the sandbox's session webhook secret)", GOOD, "mismatch", "sandbox-webhook-secret", INVOICE_BODY),
    ("one hex digit flipped", FLIPPED, "mismatch"),
    ("all zeros", "0" * 128, "mismatch"),
    ("the provider's example", PROVIDER_SIGNATURE, "ok", PROVIDER_SECRET, PROVIDER_BODY),
    (
        "the provider's example sent indented: signed over its compact form, as the provider describes",
        PROVIDER_SIGNATURE,
        "ok",
        PROVIDER_SECRET,
        '{\n  "key": "value"\n}\n',
    ),
    (
        "whitespace inside a string stays in the compact form",
        signature(SECRET, '{"note":"a b\tc"}'),
        "ok",
        SECRET,
        '{ "note" : "a b\tc" }',
    ),
    (
        "whitespace inside a string removed is another payload",
        signature(SECRET, '{"note":"abc"}'),
        "mismatch",
        SECRET,
        '{ "note" : "a b c" }',
    ),
    (
        "an escaped quote does not end the string",
        signature(SECRET, '{"q":"say \\" hi \\\\","n":1}'),
        "ok",
        SECRET,
        '{"q": "say \\" hi \\\\", "n": 1}',
    ),
    ("an empty body, signed", signature(SECRET, ""), "ok", SECRET, ""),
    (
        "non-ASCII UTF-8 in the secret and the body",
        signature(NON_ASCII_SECRET, '{"note":"Grüße € 🧾"}'),
        "ok",
        NON_ASCII_SECRET,
        '{"note":"Grüße € 🧾"}',
    ),
]

# The rules of the module docstring, as a reference the hand-written answers
# above are checked against (so a case cannot be labelled wrong).
_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_HEX = re.compile(r"[0-9a-fA-F]{128}")


def compact(body: str) -> str:
    """The body without JSON whitespace outside string literals."""
    out = []
    in_string = escaped = False
    for character in body:
        if in_string:
            out.append(character)
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character not in " \t\n\r":
            out.append(character)
            in_string = character == '"'
    return "".join(out)


def reference_answer(secret: str, body: str, header) -> str:
    if header is None:
        return "malformed"
    value = header.strip(_WHITESPACE)
    if not _HEX.fullmatch(value):
        return "malformed"
    given = bytes.fromhex(value)
    for candidate in (body, compact(body)):
        expected = hmac.new(secret.encode("utf-8"), candidate.encode("utf-8"), hashlib.sha512).digest()
        if hmac.compare_digest(expected, given):
            return "ok"
    return "mismatch"


def signature_cases() -> list:
    return [
        {
            "description": description,
            "secret": secret,
            "body": body,
            "expected_signature": signature(secret, body),
        }
        for description, secret, body in SIGNATURE_CASES
    ]


def verification_cases() -> list:
    cases = []
    for description, header, expected, *given in VERIFICATION_CASES:
        secret, body = given if given else (SECRET, INVOICE_BODY)
        cases.append(
            {
                "description": description,
                "secret": secret,
                "body": body,
                "header": header,
                "expected": expected,
            }
        )
    return cases


def render(data: list) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def self_check() -> list:
    """What is wrong with the cases themselves, before any file is read."""
    problems = []
    if signature(PROVIDER_SECRET, PROVIDER_BODY) != PROVIDER_SIGNATURE:
        problems.append("the provider's example does not give the provider's signature")
    for name, secret in [("SECRET", SECRET), ("LONG_SECRET", LONG_SECRET), ("NON_ASCII_SECRET", NON_ASCII_SECRET)]:
        if len(secret) < 64:
            problems.append(f"{name} has {len(secret)} characters, fewer than the provider's 64")
    if len(LONG_SECRET.encode("utf-8")) <= 128:
        problems.append("LONG_SECRET is not longer than SHA-512's block")
    if FLIPPED == GOOD or len(FLIPPED) != 128:
        problems.append("FLIPPED does not differ from GOOD in one digit")
    for case in verification_cases():
        answer = reference_answer(case["secret"], case["body"], case["header"])
        if answer != case["expected"]:
            problems.append(f"{case['description']!r}: labelled {case['expected']} but the rules give {answer}")
    descriptions = [case["description"] for case in signature_cases()]
    descriptions_v = [case["description"] for case in verification_cases()]
    for which, names in [("signature", descriptions), ("verification", descriptions_v)]:
        if len(set(names)) != len(names):
            problems.append(f"two {which} cases share a description")
    return problems


def main() -> int:
    problems = self_check()
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    if sys.argv[1:] == ["--check"]:
        failures = 0
        stored = json.loads(SIGNATURES.read_text(encoding="utf-8"))
        for case in stored:
            expected = signature(case["secret"], case["body"])
            if expected != case["expected_signature"]:
                failures += 1
                print(
                    "mismatch in {!r}: stored {} but computed {}".format(
                        case["description"], case["expected_signature"], expected
                    ),
                    file=sys.stderr,
                )
        stored_v = json.loads(VERIFICATION.read_text(encoding="utf-8"))
        for case in stored_v:
            answer = reference_answer(case["secret"], case["body"], case["header"])
            if answer != case["expected"]:
                failures += 1
                print(
                    "mismatch in {!r}: stored {} but the rules give {}".format(
                        case["description"], case["expected"], answer
                    ),
                    file=sys.stderr,
                )
        for path, data in [(SIGNATURES, signature_cases()), (VERIFICATION, verification_cases())]:
            if path.read_text(encoding="utf-8") != render(data):
                failures += 1
                print(f"{path.name} is not what this script writes; run it without --check", file=sys.stderr)
        if failures:
            return 1
        print(f"{len(stored)} invoice signature and {len(stored_v)} invoice verification known answers check out")
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    SIGNATURES.write_text(render(signature_cases()), encoding="utf-8")
    VERIFICATION.write_text(render(verification_cases()), encoding="utf-8")
    print(f"wrote {len(SIGNATURE_CASES)} cases to {SIGNATURES}")
    print(f"wrote {len(VERIFICATION_CASES)} cases to {VERIFICATION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
