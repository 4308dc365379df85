// Sums and comparisons of exact decimals (LosslessNumbers), done on integers
// (bigint units at a common scale), so no binary float ever rounds a cent.
import { LosslessNumber } from "lossless-json";

interface Scaled {
  units: bigint;
  scale: number;
}

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

function scaled(value: LosslessNumber): Scaled {
  const match = PLAIN_DECIMAL.exec(value.value);
  if (!match) throw new RangeError(`${value.value} is not a plain decimal (digits, optional fraction)`);
  const [, sign, whole, fraction = ""] = match;
  return { units: BigInt(`${sign}${whole}${fraction}`), scale: fraction.length };
}

function atScale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

/** `a == b` as numbers: 43.8 equals 43.80. */
export function decimalEquals(a: LosslessNumber, b: LosslessNumber): boolean {
  const [x, y] = [scaled(a), scaled(b)];
  const scale = Math.max(x.scale, y.scale);
  return atScale(x, scale) === atScale(y, scale);
}

/** The exact sum, at the largest scale of its terms. */
export function decimalSum(values: LosslessNumber[]): LosslessNumber {
  const terms = values.map(scaled);
  const scale = Math.max(0, ...terms.map((term) => term.scale));
  const units = terms.reduce((total, term) => total + atScale(term, scale), 0n);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : "";
  return new LosslessNumber(`${negative ? "-" : ""}${whole}${fraction}`);
}
