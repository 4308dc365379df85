// JSON with exact decimals, both ways.
//
// `JSON.parse` reads every number as a binary float: 43.80 becomes 43.8 and a
// long amount loses digits. (A reviver that sees the number's source text
// would help, but Node 20 has none.) So the client reads answers as text
// (openapi-fetch `parseAs: "text"`) and parses them with lossless-json,
// which keeps every number as a `LosslessNumber` holding its digits as a
// string. `Exact<T>` is the generated type `T` with each `number` read that
// way, so the type checker still checks every field name against schemas/.
//
// Writing: amounts are built as `LosslessNumber`s ("43.80") and
// `stringifyExact` (the clients' `bodySerializer`) writes each one as a JSON
// number with exactly those digits.
import { LosslessNumber, parse, stringify } from "lossless-json";

export { LosslessNumber };

/** `T` with every `number` kept exact, as a `LosslessNumber`. */
export type Exact<T> = T extends number
  ? LosslessNumber
  : T extends readonly (infer U)[]
    ? Exact<U>[]
    : T extends object
      ? { [K in keyof T]: Exact<T[K]> }
      : T;

/** Parses an answer; the caller names the generated type it has. */
export function parseExact<T>(text: string): Exact<T> {
  return parse(text) as Exact<T>;
}

/** The JSON text of a request body, every LosslessNumber written as its digits. */
export function stringifyExact(body: unknown): string {
  const text = stringify(body);
  if (text === undefined) throw new TypeError("the request body is not JSON");
  return text;
}

/** An exact number from its digits, e.g. `dec("43.80")`; refuses anything else. */
export function dec(digits: string): LosslessNumber {
  return new LosslessNumber(digits);
}

/**
 * The one place an exact value meets openapi-fetch's generated body type,
 * which says `number`: the client's `bodySerializer` is `stringifyExact`,
 * which writes each `LosslessNumber` as a number, so the wire format is the
 * one the generated type describes.
 */
export function wire<T>(value: Exact<T>): T {
  return value as T;
}
