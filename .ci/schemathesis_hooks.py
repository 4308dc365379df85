"""schemathesis hooks of `.ci/schemathesis`: accept the expected refusals.

A failure is dropped only when an entry of `.ci/schemathesis-expected.toml`
names its operation, its failure code and its status, and every problem the
answer reports (each invalid field with its message, or the error message)
matches one of the entry's patterns. An answer that reports anything else
as well still fails the run, so an entry cannot hide an unrelated refusal.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import schemathesis

EXPECTED = Path(__file__).with_name("schemathesis-expected.toml")
REFUSALS = tomllib.loads(EXPECTED.read_text())["refusal"]
for refusal in REFUSALS:
    refusal["compiled"] = [re.compile(pattern) for pattern in refusal.get("problems", [])]


def problems(content: bytes) -> list[str] | None:
    """What an error answer complains about, one `field: message` (or
    message) per problem, from each API's error shape (the control API's
    `{"error"}` included); None when the body is none of them."""
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    decline = body.get("decline")
    if isinstance(decline, dict):
        fields = decline.get("invalid_fields") or []
        found = [f"{f.get('json_path')}: {f.get('message')}" for f in fields if isinstance(f, dict)]
        return found or [" ".join(map(str, decline.get("reasons") or []))]
    if isinstance(body.get("errors"), dict):
        # The shop configuration API: field -> messages.
        return [f"{field}: {message}" for field, messages in body["errors"].items() for message in messages]
    if "error" in body and "error_description" not in body and isinstance(body["error"], str):
        # The sandbox's test-control API: one message; a 422 joins its
        # problems, each starting with its JSON path, by "; ".
        return re.split(r"; (?=\$)", body["error"])
    if "error" in body:
        # The token servers.
        return [f"{body.get('error')}: {body.get('error_description')}"]
    if "message" in body:
        # The storefront module.
        return [str(body["message"])]
    return None


def expected_refusal(failure, case, response) -> dict | None:
    found = problems(response.content) or []
    query = json.dumps(case.query or {}, sort_keys=True)
    for refusal in REFUSALS:
        if not (
            case.operation.label in refusal["operations"]
            and failure.code == refusal["failure"]
            and response.status_code == refusal["status"]
        ):
            continue
        if "query" in refusal:
            # An accepted request, recognised by its query alone.
            if re.fullmatch(refusal["query"], query):
                return refusal
        elif "body" in refusal:
            # An accepted request, recognised by its JSON body.
            if re.search(refusal["body"], json.dumps(case.body, sort_keys=True)):
                return refusal
        elif found and all(any(p.search(problem) for p in refusal["compiled"]) for problem in found):
            return refusal
    return None


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    if os.environ.get("PSI_SCHEMATHESIS_DEBUG"):
        print("failure", failure.code, case.operation.label, response.status_code, json.dumps(case.query), response.content[:300])
    return expected_refusal(failure, case, response) is None
