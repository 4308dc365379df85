#!/usr/bin/env python3
"""Known answers for verifying an X-Signature header, shared by the three
verifiers (psi's Rust one, clients/typescript and clients/python), each of
which checks every case in its own test suite.

A case gives the secret, the raw body, the header as it arrives, the
verifier's "now" (Unix seconds; the tolerance is 300 s either way, both ends
included) and the answer: "accepted", or the kind of refusal:

- "malformed": the header cannot be read: a part without `=`, no `t` or two,
  a `t` that is not ASCII digits (as sent: `+1`, `1_0`, non-ASCII digits,
  spaces inside the value) or beyond a signed 64-bit integer, no `v1`, or a
  `v1` that is not the canonical padded Base64 of 32 bytes;
- "mismatch": no `v1` is the HMAC-SHA256 of `<t as sent>.<raw body>`;
- "stale" / "future": an authentic signature with `t` more than 300 s
  before / after now.

The header is split at `,`; each part is trimmed of whitespace, empty parts
are skipped, the key is what comes before the first `=`, unknown keys are
ignored, and every `v1` is tried (a secret rotation signs with both).

    python3 tests/known-answers/webhook_verification.py          # writes webhook-verification.json
    python3 tests/known-answers/webhook_verification.py --check  # fails when the file differs

Only the standard library signs here (hmac, hashlib, base64, json).
"""

import base64
import hashlib
import hmac
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUTPUT = HERE / "webhook-verification.json"

SECRET = "sandbox-webhook-secret"
OLD_SECRET = "the-secret-before-rotation"
T = 1767225600
BODY = '{"session_id":"s-1","session_status":"COMPLETED"}'


def v1(secret: str, t_text: str, body: str = BODY) -> str:
    """The Base64 HMAC-SHA256 over the timestamp text exactly as given."""
    message = t_text.encode("utf-8") + b"." + body.encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


GOOD = v1(SECRET, str(T))
OLD = v1(OLD_SECRET, str(T))
# The last Base64 character of a 32-byte value carries 4 bits and 2 zero
# bits; setting those makes text that decodes leniently to the same bytes.
_last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".index(GOOD[-2])
NON_CANONICAL = GOOD[:-2] + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[_last | 1] + "="
ARABIC_INDIC_T = "".join(chr(0x0660 + int(digit)) for digit in str(T))

# (what the case shows, header, now, answer), each with SECRET and BODY.
CASES = [
    ("the header as the service sends it", f"t={T},v1={GOOD}", T, "accepted"),
    ("rotation: the matching v1 first", f"t={T},v1={GOOD},v1={OLD}", T, "accepted"),
    ("rotation: the matching v1 last", f"t={T},v1={OLD},v1={GOOD}", T, "accepted"),
    ("rotation: the matching v1 between two others", f"t={T},v1={OLD},v1={GOOD},v1={OLD}", T, "accepted"),
    ("rotation: no v1 matches", f"t={T},v1={OLD},v1={OLD}", T, "mismatch"),
    ("v1 before t", f"v1={GOOD},t={T}", T, "accepted"),
    ("a trailing comma", f"t={T},v1={GOOD},", T, "accepted"),
    ("a leading comma and an empty part in between", f",t={T},,v1={GOOD}", T, "accepted"),
    ("spaces after the commas", f"t={T}, v1={GOOD}", T, "accepted"),
    ("spaces and tabs around every part", f"  t={T} ,\tv1={GOOD}\t, ", T, "accepted"),
    ("a no-break space around a part (Unicode whitespace is trimmed)", f"t={T},\u00a0v1={GOOD}", T, "accepted"),
    ("an unknown scheme beside v1 is ignored", f"t={T},v1={GOOD},v2=not-base64!", T, "accepted"),
    ("a space inside a part: the key is `t `, so t is missing", f"t ={T},v1={GOOD}", T, "malformed"),
    ("a space after `=`: the value is not digits", f"t= {T},v1={GOOD}", T, "malformed"),
    (
        "a leading zero, signed as sent",
        f"t=0{T},v1={v1(SECRET, '0' + str(T))}",
        T,
        "accepted",
    ),
    ("a leading zero, signed without it: t is signed as sent", f"t=0{T},v1={GOOD}", T, "mismatch"),
    ("t with a plus sign", f"t=+{T},v1={v1(SECRET, '+' + str(T))}", T, "malformed"),
    ("t with a plus sign, signed without it", f"t=+{T},v1={GOOD}", T, "malformed"),
    ("t with an underscore, signed without it", f"t=1_767_225_600,v1={GOOD}", T, "malformed"),
    ("t in Arabic-Indic digits, signed as ASCII digits", f"t={ARABIC_INDIC_T},v1={GOOD}", T, "malformed"),
    ("t with a minus sign", f"t=-{T},v1={v1(SECRET, '-' + str(T))}", T, "malformed"),
    (
        "t with an underscore between digits",
        "t=1_767_225_600,v1={}".format(v1(SECRET, "1_767_225_600")),
        T,
        "malformed",
    ),
    (
        "t in Arabic-Indic digits",
        f"t={ARABIC_INDIC_T},v1={v1(SECRET, ARABIC_INDIC_T)}",
        T,
        "malformed",
    ),
    ("t empty", f"t=,v1={GOOD}", T, "malformed"),
    ("t beyond a signed 64-bit integer", f"t=9223372036854775808,v1={v1(SECRET, '9223372036854775808')}", T, "malformed"),
    ("t twice", f"t={T},t={T},v1={GOOD}", T, "malformed"),
    ("no t", f"v1={GOOD}", T, "malformed"),
    ("no v1", f"t={T}", T, "malformed"),
    ("a part without `=`", f"t={T},v1={GOOD},junk", T, "malformed"),
    ("an empty header", "", T, "malformed"),
    ("a v1 that is not Base64, beside a matching one", f"t={T},v1=not*base64,v1={GOOD}", T, "malformed"),
    ("a v1 of 16 bytes", f"t={T},v1={GOOD[:22]}==", T, "malformed"),
    ("a v1 without its padding", f"t={T},v1={GOOD[:-1]}", T, "malformed"),
    ("a v1 with non-zero padding bits", f"t={T},v1={NON_CANONICAL}", T, "malformed"),
    ("signed with another secret", f"t={T},v1={OLD}", T, "mismatch"),
    ("t changed after signing", f"t={T + 1},v1={GOOD}", T, "mismatch"),
    ("exactly 300 s old", f"t={T},v1={GOOD}", T + 300, "accepted"),
    ("301 s old", f"t={T},v1={GOOD}", T + 301, "stale"),
    ("exactly 300 s ahead", f"t={T},v1={GOOD}", T - 300, "accepted"),
    ("301 s ahead", f"t={T},v1={GOOD}", T - 301, "future"),
    ("stale and signed with another secret: the signature is checked first", f"t={T},v1={OLD}", T + 3600, "mismatch"),
    (
        "t = 0, the epoch, as sent",
        f"t=0,v1={v1(SECRET, '0')}",
        0,
        "accepted",
    ),
]


def cases() -> list:
    return [
        {
            "description": description,
            "secret": SECRET,
            "body": BODY,
            "header": header,
            "now": now,
            "tolerance_seconds": 300,
            "answer": answer,
        }
        for description, header, now, answer in CASES
    ]


def render(data: list) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        if OUTPUT.read_text(encoding="utf-8") != render(cases()):
            print(f"{OUTPUT.name} is not what this script writes; run it without --check", file=sys.stderr)
            return 1
        print(f"{len(CASES)} verification known answers check out")
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    OUTPUT.write_text(render(cases()), encoding="utf-8")
    print(f"wrote {len(CASES)} cases to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
