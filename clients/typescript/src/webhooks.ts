// Receiving the sandbox's webhooks: a small HTTP server, and the checks of
// the `X-Signature` header as the provider documents them. It signs the two
// kinds of notification differently:
// - a session notification: `t=<unix seconds>,v1=<Base64 of HMAC-SHA256 over
//   "<t>.<raw body>">`, keyed with the shared webhook secret
//   (`verifySignature`);
// - an invoice notification: the lowercase hex of HMAC-SHA512 over the raw
//   body, keyed with the webhook subscription's secret; no timestamp
//   (`verifyInvoiceSignature`).
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How far `t` may lie from now, in either direction, both ends included. The
 * window bounds how late a captured notification can be replayed; within it,
 * the same notification verifies every time it arrives, replayed or
 * delivered again. Make the receiver idempotent: act on a session's status
 * once, keyed by `session_id` and `session_status`, and answer 2xx to a
 * repeat without acting again.
 */
export const MAX_AGE_SECONDS = 300;

/** Why a header was refused, as psi's Rust verifier says it. */
export type RefusalKind = "malformed" | "mismatch" | "stale" | "future";

/**
 * The X-Signature header does not prove the body came from the sandbox.
 * `kind`: `malformed` (the header cannot be read), `mismatch` (no `v1` signs
 * this body; for an invoice notification: the HMAC-SHA512 does not), `stale`
 * or `future` (authentic, but `t` is outside MAX_AGE_SECONDS; session
 * notifications only).
 */
export class InvalidSignature extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
  }
}

// The whitespace `str::trim` removes in Rust (Unicode White_Space), so the
// three verifiers trim the same characters; JavaScript's own `trim` also
// removes U+FEFF.
const WHITESPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${WHITESPACE}+|${WHITESPACE}+$`, "g");
const MAX_T = 2n ** 63n - 1n;
/** An invoice signature: the hex of the 64 bytes of an HMAC-SHA512, either case. */
const INVOICE_SIGNATURE = /^[0-9a-fA-F]{128}$/;

function malformed(message: string): InvalidSignature {
  return new InvalidSignature("malformed", `X-Signature ${message}`);
}

/**
 * Throws `InvalidSignature` unless `header` signs `rawBody` with `secret` at
 * a time within MAX_AGE_SECONDS of `nowSeconds`. Pass the body bytes as
 * received: parsing and re-serialising them changes the bytes.
 *
 * Reads the header as psi's Rust verifier does: parts split at `,`, each
 * trimmed, empty ones skipped; the key is the text before the first `=` and
 * unknown keys are ignored; `t` once, ASCII digits exactly as sent and signed
 * as sent; every `v1` the canonical Base64 of 32 bytes, and any one of them
 * may match (a secret rotation signs with both secrets). The signature is
 * checked before the age.
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  nowSeconds: number,
): void {
  if (header === undefined) throw malformed("is missing");
  let t: string | undefined;
  const signatures: string[] = [];
  for (const rawPart of header.split(",")) {
    const part = rawPart.replace(TRIM, "");
    if (part === "") continue;
    const at = part.indexOf("=");
    if (at < 0) throw malformed(`part ${JSON.stringify(part)} is not name=value`);
    const name = part.slice(0, at);
    const value = part.slice(at + 1);
    if (name === "t") {
      if (t !== undefined) throw malformed("has t= twice");
      t = value;
    } else if (name === "v1") {
      signatures.push(value);
    }
  }
  if (t === undefined) throw malformed("needs t=");
  if (!/^[0-9]+$/.test(t) || BigInt(t) > MAX_T) {
    throw malformed(`t=${JSON.stringify(t)} is not Unix seconds (ASCII digits)`);
  }
  if (signatures.length === 0) throw malformed("needs v1=");
  const given = signatures.map((signature) => {
    const decoded = Buffer.from(signature, "base64");
    // Buffer.from skips what is not Base64; the round trip refuses it.
    if (!/^[A-Za-z0-9+/]{43}=$/.test(signature) || decoded.toString("base64") !== signature) {
      throw malformed(`v1=${JSON.stringify(signature)} is not the Base64 of an HMAC-SHA256`);
    }
    return decoded;
  });
  // Signed over the timestamp text as sent, not a number formatted again.
  const mac = createHmac("sha256", secret);
  mac.update(`${t}.`);
  mac.update(rawBody);
  const expected = mac.digest();
  // Constant time (every candidate has the digest's length), and every
  // candidate is compared, so the time taken says neither how many bytes
  // matched nor which candidate did.
  let matched = false;
  for (const candidate of given) matched = timingSafeEqual(candidate, expected) || matched;
  if (!matched) throw new InvalidSignature("mismatch", "X-Signature v1 does not match the body");
  const age = BigInt(Math.floor(nowSeconds)) - BigInt(t);
  const limit = BigInt(MAX_AGE_SECONDS);
  if (age > limit) {
    throw new InvalidSignature("stale", `X-Signature t=${t} is more than ${MAX_AGE_SECONDS} s from now (${nowSeconds})`);
  }
  if (-age > limit) {
    throw new InvalidSignature("future", `X-Signature t=${t} is more than ${MAX_AGE_SECONDS} s from now (${nowSeconds})`);
  }
}

/**
 * Throws `InvalidSignature` unless `header`, the `X-Signature` of an invoice
 * notification, signs `rawBody` with `secret`, the webhook subscription's
 * secret. Pass the body bytes as received: parsing and re-serialising them
 * changes the bytes.
 *
 * The header is the hex of HMAC-SHA512 keyed with `secret` over the
 * payload's compact string: the raw body as it arrives, or, for a body that
 * arrives indented, its compact form (`compactJson`). psi's Rust verifier
 * reads it the same way: trimmed of Unicode
 * whitespace, then exactly 128 hex digits, either case (`malformed`
 * otherwise: no prefix, no `t=`/`v1=`, no Base64), compared in constant time
 * (`mismatch` when it differs).
 *
 * The signature has no timestamp, so nothing bounds when a captured
 * notification can be replayed, and a delivery repeated verifies every time.
 * Make the receiver idempotent: act once per `invoice_id` and answer 2xx to a
 * repeat without acting again.
 */
export function verifyInvoiceSignature(header: string | null | undefined, rawBody: Buffer, secret: string): void {
  if (header === undefined || header === null) throw malformed("is missing");
  const value = header.replace(TRIM, "");
  if (!INVOICE_SIGNATURE.test(value)) {
    throw malformed(`${JSON.stringify(value.slice(0, 140))} is not the hex of an HMAC-SHA512 (128 hex digits)`);
  }
  const given = Buffer.from(value, "hex");
  // The payload's compact string is signed: the body as it arrives, or the
  // compact form of a body that arrives indented. Both are tried; both
  // MACs are 64 bytes, as the pattern above allows nothing else.
  let matched = false;
  for (const candidate of [rawBody, compactJson(rawBody)]) {
    const expected = createHmac("sha512", secret).update(candidate).digest();
    matched = timingSafeEqual(given, expected) || matched;
  }
  if (!matched) {
    throw new InvalidSignature("mismatch", "X-Signature does not match the body (HMAC-SHA512)");
  }
}

/**
 * The body without JSON whitespace (space, tab, line feed, carriage return)
 * outside string literals; key order, escapes and numbers stay as received.
 * The provider signs an invoice notification's payload in this form
 * (`{"key":"value"}` for a payload shown indented).
 */
export function compactJson(rawBody: Buffer): Buffer {
  const out: number[] = [];
  let inString = false;
  let escaped = false;
  for (const byte of rawBody) {
    if (inString) {
      out.push(byte);
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) inString = false;
    } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) {
      out.push(byte);
      inString = byte === 0x22;
    }
  }
  return Buffer.from(out);
}

export interface Received {
  path: string;
  signature: string | undefined;
  body: Buffer;
}

/**
 * An HTTP server that answers every POST with 204 and keeps what came, for
 * the test to take. It listens on 127.0.0.1; given `name`, the name the
 * sandbox reaches this machine by, it listens on every interface and its
 * URLs use that name.
 */
export class Receiver {
  private readonly received: Received[] = [];
  private readonly waiting = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    private readonly name: string | undefined,
  ) {}

  static async start(name?: string): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server, name);
    server.on("request", (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const signature = request.headers["x-signature"];
        receiver.received.push({
          path: request.url ?? "",
          signature: Array.isArray(signature) ? signature[0] : signature,
          body: Buffer.concat(chunks),
        });
        response.writeHead(204).end();
        for (const wake of receiver.waiting) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, name ? "0.0.0.0" : "127.0.0.1", resolve));
    return receiver;
  }

  url(path: string): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${this.name ?? address}:${port}${path}`;
  }

  /** The first request (already here or still to come) for which `wanted` is true. */
  take(wanted: (request: Received) => boolean, timeoutMs = 10_000): Promise<Received> {
    return new Promise((resolve, reject) => {
      const look = (): boolean => {
        const index = this.received.findIndex(wanted);
        if (index < 0) return false;
        const [found] = this.received.splice(index, 1);
        this.waiting.delete(wake);
        clearTimeout(timer);
        resolve(found as Received);
        return true;
      };
      const wake = (): void => void look();
      const timer = setTimeout(() => {
        this.waiting.delete(wake);
        reject(new Error(`no matching webhook within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.add(wake);
      look();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
