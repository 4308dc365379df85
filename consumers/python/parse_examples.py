"""Parses every example of the published bundles with the pydantic models
that datamodel-code-generator made from them, and checks that a few invalid
values are rejected (so the models are not a permissive `Any`).

The examples are those of named types, as `cargo xtask` enumerates them:
request and response bodies (callbacks included) and parameters whose schema
is a `$ref`, and the named schemas' own examples. Numbers are read as
`Decimal`, so money keeps its exact digits.

usage: python parse_examples.py <schemas dir> <models dir>
Prints one line per failure and ends with "N passed, N failed"; exits 1 on
any failure or when fewer than 100 examples were found.
"""

import importlib.util
import json
import sys
from decimal import Decimal
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

PREFIX = "#/components/schemas/"

# (api, model, value): each must be rejected.
INVALID = [
    ("payment-page", "CurrencyCode", "eur"),  # pattern ^[A-Z]{3}$
    ("payment-page", "IdempotencyKey", "k" * 65),  # maxLength 64
    ("pay-later", "PayLaterBookingRequest", {}),  # offer_id is required
    ("token", "TokenRequest", {"client_id": "id", "client_secret": "s", "grant_type": "password"}),
    ("shop-config", "NameFormat", "FIRST"),  # closed enumeration
    ("pay-later", "PayLaterStatusResponse", {"booking": {"fee": "a lot"}}),  # decimal
]


def named_examples(document):
    """(pointer, schema name, example) of every example of a named type."""
    found = []

    def walk(at, value):
        if isinstance(value, list):
            for index, child in enumerate(value):
                walk(f"{at}/{index}", child)
            return
        if not isinstance(value, dict):
            return
        schema = value.get("schema")
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if isinstance(ref, str) and ref.startswith(PREFIX):
            name = ref[len(PREFIX):]
            if "example" in value:
                found.append((f"{at}/example", name, value["example"]))
            for key, example in (value.get("examples") or {}).items():
                if "value" in example:
                    found.append((f"{at}/examples/{key}/value", name, example["value"]))
        for key, child in value.items():
            if key not in ("components", "example", "examples"):
                walk(f"{at}/{key}", child)

    walk("", document)
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        if "example" in schema:
            found.append((f"/components/schemas/{name}/example", name, schema["example"]))
    return found


def load_models(path):
    spec = importlib.util.spec_from_file_location(f"psi_models_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    # pydantic resolves generic models through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def model_of(module, name):
    model = getattr(module, name, None)
    if model is None:
        raise LookupError(f"no model {name} in {module.__name__}")
    return TypeAdapter(model)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    schemas, models = Path(sys.argv[1]), Path(sys.argv[2])
    modules = {}
    passed, failures = 0, []
    for api_dir in sorted(p for p in schemas.iterdir() if p.is_dir()):
        api = api_dir.name
        document = json.loads((api_dir / "openapi.json").read_text("utf-8"), parse_float=Decimal)
        modules[api] = module = load_models(models / f"{api.replace('-', '_')}.py")
        for pointer, name, example in named_examples(document):
            try:
                model_of(module, name).validate_python(example)
                passed += 1
            except (LookupError, ValidationError) as error:
                failures.append(f"{api}#{pointer} ({name}): {error}")
    examples = passed + len(failures)
    for api, name, value in INVALID:
        try:
            model_of(modules[api], name).validate_python(value)
            failures.append(f"{api} {name}: accepted the invalid value {value!r}")
        except ValidationError:
            passed += 1
        except LookupError as error:
            failures.append(f"{api} {name}: {error}")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{examples} examples of {len(modules)} APIs, {len(INVALID)} invalid values")
    if examples < 100:
        print(f"only {examples} examples found in {schemas}")
        failures.append("too few examples")
    print(f"python models: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
