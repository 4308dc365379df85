"""The shared known answers of X-Signature verification, which psi's Rust
verifier and the TypeScript client check too: the three accept and refuse
the same headers, for the same reason. Session notifications
(tests/known-answers/webhook-verification.json) and invoice notifications
(invoice-signatures.json: the signature of a body; invoice-verification.json:
a header as it arrives). Needs no sandbox."""

from __future__ import annotations

import json
import pathlib

import pytest

import webhooks
from webhooks import InvalidSignature, verify_invoice_signature, verify_signature

KNOWN_ANSWERS_DIR = pathlib.Path(__file__).resolve().parents[2] / "tests" / "known-answers"


def load(name: str) -> list:
    return json.loads((KNOWN_ANSWERS_DIR / name).read_text(encoding="utf-8"))


CASES = load("webhook-verification.json")
INVOICE_SIGNATURES = load("invoice-signatures.json")
INVOICE_VERIFICATION = load("invoice-verification.json")


def test_the_known_answers_are_there() -> None:
    assert len(CASES) >= 30
    answers = {case["answer"] for case in CASES}
    assert answers == {"accepted", "malformed", "mismatch", "stale", "future"}


@pytest.mark.parametrize("case", CASES, ids=[case["description"] for case in CASES])
def test_the_verifier_gives_the_known_answer(case: dict) -> None:
    assert case["tolerance_seconds"] == webhooks.MAX_AGE_SECONDS
    secret = case["secret"].encode("utf-8")
    body = case["body"].encode("utf-8")
    try:
        verify_signature(case["header"], body, secret, case["now"])
        answer = "accepted"
    except InvalidSignature as refusal:
        answer = refusal.kind
    assert answer == case["answer"], case["header"]


def test_the_invoice_known_answers_are_there() -> None:
    assert len(INVOICE_SIGNATURES) >= 7
    # The provider's own example is among them.
    assert {
        "secret": "abc123",
        "body": '{"key":"value"}',
        "expected_signature": "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8f"
        "f45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd",
    }.items() <= INVOICE_SIGNATURES[0].items()
    assert len(INVOICE_VERIFICATION) >= 20
    assert {case["expected"] for case in INVOICE_VERIFICATION} == {"ok", "malformed", "mismatch"}
    assert any(case["header"] is None for case in INVOICE_VERIFICATION)


@pytest.mark.parametrize("case", INVOICE_SIGNATURES, ids=[case["description"] for case in INVOICE_SIGNATURES])
def test_an_invoice_signature_as_the_service_sends_it_verifies(case: dict) -> None:
    # The expected signature, as the header carries it, is accepted for its
    # body and secret ...
    verify_invoice_signature(case["expected_signature"], case["body"].encode("utf-8"), case["secret"].encode("utf-8"))
    # ... and not for another body (a byte more that is not whitespace
    # between tokens, which the compact form would drop).
    with pytest.raises(InvalidSignature) as refusal:
        verify_invoice_signature(
            case["expected_signature"], case["body"].encode("utf-8") + b"x", case["secret"].encode("utf-8")
        )
    assert refusal.value.kind == "mismatch"


@pytest.mark.parametrize("case", INVOICE_VERIFICATION, ids=[case["description"] for case in INVOICE_VERIFICATION])
def test_the_invoice_verifier_gives_the_known_answer(case: dict) -> None:
    try:
        verify_invoice_signature(case["header"], case["body"].encode("utf-8"), case["secret"].encode("utf-8"))
        answer = "ok"
    except InvalidSignature as refusal:
        answer = refusal.kind
    assert answer == case["expected"], case["header"]
