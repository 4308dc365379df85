// Receiving the sandbox's webhooks: a small HTTP server, and the check of the
// `X-Signature` header as the provider documents it:
// `t=<unix seconds>,v1=<Base64 of HMAC-SHA256 over "<t>.<raw body>">`, keyed
// with the shared webhook secret.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A notification signed longer ago (or further ahead) than this is refused: no replays. */
export const MAX_AGE_SECONDS = 300;

export class InvalidSignature extends Error {}

/**
 * Throws `InvalidSignature` unless `header` signs `rawBody` with `secret` at
 * a time within MAX_AGE_SECONDS of `nowSeconds`. Pass the body bytes as
 * received: parsing and re-serialising them changes the bytes.
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  nowSeconds: number,
): void {
  if (!header) throw new InvalidSignature("X-Signature is missing");
  const fields = new Map<string, string>();
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) throw new InvalidSignature(`X-Signature part ${JSON.stringify(part)} is not name=value`);
    fields.set(part.slice(0, at).trim(), part.slice(at + 1));
  }
  const t = fields.get("t");
  const v1 = fields.get("v1");
  if (t === undefined || v1 === undefined) throw new InvalidSignature("X-Signature needs t= and v1=");
  if (!/^\d+$/.test(t)) throw new InvalidSignature(`X-Signature t=${t} is not Unix seconds`);
  const timestamp = Number(t);
  if (Math.abs(nowSeconds - timestamp) > MAX_AGE_SECONDS) {
    throw new InvalidSignature(`X-Signature t=${t} is more than ${MAX_AGE_SECONDS} s from now (${nowSeconds})`);
  }
  const mac = createHmac("sha256", secret);
  mac.update(`${t}.`);
  mac.update(rawBody);
  const expected = Buffer.from(mac.digest("base64"));
  const given = Buffer.from(v1);
  // timingSafeEqual compares in constant time but needs equal lengths; the
  // length of a Base64 SHA-256 is public anyway.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidSignature("X-Signature v1 does not match the body");
  }
}

export interface Received {
  path: string;
  signature: string | undefined;
  body: Buffer;
}

/**
 * An HTTP server on 127.0.0.1 that answers every POST with 204 and keeps
 * what came, for the test to take.
 */
export class Receiver {
  private readonly received: Received[] = [];
  private readonly waiting = new Set<() => void>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
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
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  url(path: string): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address}:${port}${path}`;
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
