"""JSON with exact decimals, both ways.

Reading: every number with a fraction or an exponent becomes a
``decimal.Decimal`` built from its digits (``json.loads(...,
parse_float=Decimal)``), so ``43.80`` is never the binary float
43.799999... The generated pydantic models type money as ``Decimal``
(``format: decimal`` in the schemas) and keep that value as it is.

Writing: ``json.dumps`` cannot write a ``Decimal``, and pydantic's JSON mode
writes it as a string, which the API refuses (its amounts are JSON numbers).
``dumps`` writes a ``Decimal`` as a JSON number with its own digits, so
``Decimal("43.80")`` goes out as ``43.80``, and refuses a ``float`` outright.
"""

from __future__ import annotations

import datetime
import enum
import json
from decimal import Decimal
from typing import Any

from pydantic import BaseModel


def loads(text: str | bytes) -> Any:
    """Parses JSON text; numbers with a fraction come back as Decimal."""
    return json.loads(text, parse_float=Decimal)


def dumps(value: Any) -> str:
    """Writes JSON text; a pydantic model is written without its unset or None fields."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="python", by_alias=True, exclude_none=True)
    return _write(value)


def _write(value: Any) -> str:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a JSON number")
        # "f" keeps the scale: Decimal("43.80") -> 43.80, never 4.380E+1.
        return format(value, "f")
    if isinstance(value, float):
        raise TypeError(f"float {value!r} in a request: money must be a Decimal")
    if isinstance(value, enum.Enum):
        return _write(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return json.dumps(value.isoformat())
    if isinstance(value, dict):
        members = (f"{json.dumps(str(key), ensure_ascii=False)}:{_write(item)}" for key, item in value.items())
        return "{" + ",".join(members) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_write(item) for item in value) + "]"
    # pydantic's URL and other string-like types.
    return json.dumps(str(value), ensure_ascii=False)
