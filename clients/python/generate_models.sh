#!/usr/bin/env bash
# Writes pydantic v2 models for the APIs the client calls, and for the
# sandbox's test-control API, from the published documents in schemas/, into
# models/ (not checked in: always made from the
# schemas of this checkout, so they cannot go stale). Options as in
# .ci/consumers; `format: decimal` numbers become decimal.Decimal fields.
# Usage: generate_models.sh [python-venv-dir]   (default: .venv beside this file)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
schemas="$here/../../schemas"
venv="${1:-$here/.venv}"
rm -rf "$here/models"
mkdir -p "$here/models"
# sandbox-control: the sandbox's test-control API (`/__sandbox`).
for api in token payment-page transaction-status pay-later order-status sandbox-control; do
  "$venv/bin/datamodel-codegen" --input "$schemas/$api/openapi.json" --input-file-type openapi \
    --output "$here/models/${api//-/_}.py" \
    --output-model-type pydantic_v2.BaseModel --target-python-version 3.11 \
    --use-annotated --extra-fields allow --formatters builtin --disable-timestamp
done
