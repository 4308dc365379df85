"""The shared known answers of X-Signature verification
(tests/known-answers/webhook-verification.json), which psi's Rust verifier
and the TypeScript client check too: the three accept and refuse the same
headers, for the same reason. Needs no sandbox."""

from __future__ import annotations

import json
import pathlib

import pytest

import webhooks
from webhooks import InvalidSignature, verify_signature

KNOWN_ANSWERS = (
    pathlib.Path(__file__).resolve().parents[2] / "tests" / "known-answers" / "webhook-verification.json"
)
CASES = json.loads(KNOWN_ANSWERS.read_text(encoding="utf-8"))


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
