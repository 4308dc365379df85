#!/usr/bin/env python3
"""Known answers for exact decimals, computed outside Rust.

An amount on the wire is a JSON number; psi and the sandbox hold it in a
decimal of a 96-bit mantissa m (0 <= m <= 2**96 - 1) and a scale s (0 to
28 digits after the point): the value m / 10**s, with a sign. A number is
taken only when such a decimal equals it exactly; it is never rounded.
Its plain text keeps the places it was written with (2.50 stays 2.50),
dropping trailing zeros after the point only while they are what breaks a
limit. A number no decimal holds is refused, and the refusal names the
limit it breaks:

- out_of_range: beyond 2**96 - 1 in magnitude, whatever its places (1e30,
  123456789012345678901234567890.5);
- too_small_a_step: needs more than 28 places although its digits would
  fit (1e-30);
- too_many_digits: more significant digits than the mantissa holds.

    python3 tests/known-answers/decimals.py          # writes decimals.json
    python3 tests/known-answers/decimals.py --check  # recomputes, fails on a mismatch

Only the standard library's decimal module is used, so a misreading shared
by psi's and the sandbox's parsers cannot hide here.
"""

import decimal
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUTPUT = HERE / "decimals.json"
MAX_MANTISSA = 2**96 - 1
MAX_SCALE = 28

# JSON number texts: money as merchants write it, every notation JSON
# allows, and each limit from both sides.
CASES = [
    "0", "-0", "0.00", "-0.0", "0e5", "0.00e1", "0E-40",
    "7", "43.8", "43.80", "-1.55", "2.50", "10", "100.000",
    "4.38e1", "4.38E+1", "438e-1", "1e2", "1.0e2", "-12.5e3", "5e-3",
    "12345678901234567.89", "0.1", "0.30000000000000004",
    "79228162514264337593543950335", "-79228162514264337593543950335",
    "79228162514264337593543950336", "7.9228162514264337593543950335e28",
    "1e28", "1e29", "1e30", "123e27",
    "0.0000000000000000000000000001", "1e-28", "1e-29", "1e-30", "0.00000000000000000000000000010",
    "43.80000000000000000000000000000001", "1.2345678901234567890123456789",
    "1.23456789012345678901234567890", "7.922816251426433759354395033",
    "0.7922816251426433759354395034", "7922816251426433759354395033.5",
    "1.000000000000000000000000000000000",
    "123456789012345678901234567890.5", "79228162514264337593543950335.5",
    "79228162514264337593543950334.5",
]


def answer(text):
    number = decimal.Context(prec=1000).create_decimal(text)
    sign, digits, exponent = number.as_tuple()
    coefficient = int("".join(map(str, digits)))
    if coefficient == 0:
        scale = min(max(-exponent, 0), MAX_SCALE)
        return {"plain": "0" if scale == 0 else "0." + "0" * scale}
    if exponent >= 0:
        value = coefficient * 10**exponent
        if value > MAX_MANTISSA:
            return {"refused": "out_of_range"}
        return {"plain": ("-" if sign else "") + str(value)}
    scale = -exponent

    def fits(c, s):
        return s <= MAX_SCALE and c <= MAX_MANTISSA

    while scale > 0 and coefficient % 10 == 0 and not fits(coefficient, scale):
        coefficient //= 10
        scale -= 1
    if not fits(coefficient, scale):
        # Beyond the largest decimal whatever its places (the whole part,
        # or the largest whole part with places after it).
        if scale == 0 or coefficient > MAX_MANTISSA * 10**scale:
            return {"refused": "out_of_range"}
        if scale > MAX_SCALE and len(str(coefficient)) <= MAX_SCALE:
            return {"refused": "too_small_a_step"}
        return {"refused": "too_many_digits"}
    digits_text = str(coefficient).rjust(scale + 1, "0")
    plain = digits_text if scale == 0 else digits_text[:-scale] + "." + digits_text[-scale:]
    return {"plain": ("-" if sign else "") + plain}


def compute():
    return [{"text": text, **answer(text)} for text in CASES]


def main():
    cases = compute()
    rendered = json.dumps(cases, indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv[1:]:
        if OUTPUT.read_text(encoding="utf-8") != rendered:
            sys.exit(f"{OUTPUT.name} is not what {pathlib.Path(__file__).name} computes: run it without --check")
        print(f"{OUTPUT.name}: {len(cases)} known answers recomputed, all equal")
        return
    OUTPUT.write_text(rendered, encoding="utf-8")
    print(f"wrote {len(cases)} known answers to {OUTPUT.name}")


if __name__ == "__main__":
    main()
