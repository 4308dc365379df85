// The shared known answers of X-Signature verification, which psi's Rust
// verifier and the Python client check too: the three accept and refuse the
// same headers, for the same reason. Session notifications
// (tests/known-answers/webhook-verification.json) and invoice notifications
// (invoice-signatures.json: the signature of a body; invoice-verification.json:
// a header as it arrives). Needs no sandbox.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { InvalidSignature, MAX_AGE_SECONDS, verifyInvoiceSignature, verifySignature } from "../src/webhooks.js";

interface Case {
  description: string;
  secret: string;
  body: string;
  header: string;
  now: number;
  tolerance_seconds: number;
  answer: string;
}

interface InvoiceSignatureCase {
  description: string;
  secret: string;
  body: string;
  expected_signature: string;
}

interface InvoiceVerificationCase {
  description: string;
  secret: string;
  body: string;
  header: string | null;
  expected: "ok" | "malformed" | "mismatch";
}

// dist/test/ -> the repository root.
function load<T>(name: string): T[] {
  return JSON.parse(readFileSync(new URL(`../../../../tests/known-answers/${name}`, import.meta.url), "utf8")) as T[];
}

const cases = load<Case>("webhook-verification.json");
const invoiceSignatures = load<InvoiceSignatureCase>("invoice-signatures.json");
const invoiceVerification = load<InvoiceVerificationCase>("invoice-verification.json");

/** The kind of the refusal `verify` throws, or `ok`. */
function answerOf(verify: () => void): string {
  try {
    verify();
    return "ok";
  } catch (error) {
    if (!(error instanceof InvalidSignature)) throw error;
    return error.kind;
  }
}

test("the known answers are there", () => {
  assert.ok(cases.length >= 30);
  assert.deepEqual(new Set(cases.map((c) => c.answer)), new Set(["accepted", "malformed", "mismatch", "stale", "future"]));
});

for (const known of cases) {
  test(`known answer: ${known.description}`, () => {
    assert.equal(known.tolerance_seconds, MAX_AGE_SECONDS);
    const answer = answerOf(() => verifySignature(known.header, Buffer.from(known.body, "utf8"), known.secret, known.now));
    assert.equal(answer === "ok" ? "accepted" : answer, known.answer, known.header);
  });
}

test("the invoice known answers are there", () => {
  assert.ok(invoiceSignatures.length >= 7);
  // The provider's own example is among them.
  const [provider] = invoiceSignatures;
  assert.equal(provider?.secret, "abc123");
  assert.equal(provider?.body, '{"key":"value"}');
  assert.equal(
    provider?.expected_signature,
    "4c131d60caea39b5f65625b80270e5305d5a00ebc5d15a00ecf82da9de2fcc8ff45df068a11f8b336890b161eb1fdefafe452d2e452623b37e4bd3277bb348fd",
  );
  assert.ok(invoiceVerification.length >= 20);
  assert.deepEqual(new Set(invoiceVerification.map((c) => c.expected)), new Set(["ok", "malformed", "mismatch"]));
  assert.ok(invoiceVerification.some((c) => c.header === null));
});

for (const known of invoiceSignatures) {
  test(`invoice signature: ${known.description}`, () => {
    const body = Buffer.from(known.body, "utf8");
    // The expected signature, as the header carries it, is accepted for its
    // body and secret ...
    assert.equal(answerOf(() => verifyInvoiceSignature(known.expected_signature, body, known.secret)), "ok");
    // ... and not for another body (a byte more that is not whitespace
    // between tokens, which the compact form would drop).
    const other = Buffer.concat([body, Buffer.from("x")]);
    assert.equal(answerOf(() => verifyInvoiceSignature(known.expected_signature, other, known.secret)), "mismatch");
  });
}

for (const known of invoiceVerification) {
  test(`invoice verification: ${known.description}`, () => {
    const answer = answerOf(() => verifyInvoiceSignature(known.header, Buffer.from(known.body, "utf8"), known.secret));
    assert.equal(answer, known.expected, JSON.stringify(known.header));
  });
}
