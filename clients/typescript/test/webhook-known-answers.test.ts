// The shared known answers of X-Signature verification
// (tests/known-answers/webhook-verification.json), which psi's Rust verifier
// and the Python client check too: the three accept and refuse the same
// headers, for the same reason. Needs no sandbox.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { InvalidSignature, MAX_AGE_SECONDS, verifySignature } from "../src/webhooks.js";

interface Case {
  description: string;
  secret: string;
  body: string;
  header: string;
  now: number;
  tolerance_seconds: number;
  answer: string;
}

// dist/test/ -> the repository root.
const path = new URL("../../../../tests/known-answers/webhook-verification.json", import.meta.url);
const cases = JSON.parse(readFileSync(path, "utf8")) as Case[];

test("the known answers are there", () => {
  assert.ok(cases.length >= 30);
  assert.deepEqual(new Set(cases.map((c) => c.answer)), new Set(["accepted", "malformed", "mismatch", "stale", "future"]));
});

for (const known of cases) {
  test(`known answer: ${known.description}`, () => {
    assert.equal(known.tolerance_seconds, MAX_AGE_SECONDS);
    let answer = "accepted";
    try {
      verifySignature(known.header, Buffer.from(known.body, "utf8"), known.secret, known.now);
    } catch (error) {
      if (!(error instanceof InvalidSignature)) throw error;
      answer = error.kind;
    }
    assert.equal(answer, known.answer, known.header);
  });
}
