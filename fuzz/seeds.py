#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets into fuzz/corpus/<target>/.

Each seed is the four bytes ff ff ff ff (they choose a target's seed form,
see each target's documentation) and a text built from the bundled
documents' examples (crates/psi-drift/documents/*.json, the control API's
schemas/sandbox-control/openapi.json) and the known answers
(tests/known-answers/*.json). Seeds are named by their content's hash, so
running this again adds nothing twice; `cargo fuzz cmin` then keeps what
adds coverage (CONTRIBUTING.md, "Fuzzing").

    python3 fuzz/seeds.py
"""

import glob
import hashlib
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = b"\xff\xff\xff\xff"


def write(target, text):
    data = MARK + text.encode("utf-8")
    folder = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(folder, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)


def documents():
    for path in sorted(glob.glob(os.path.join(ROOT, "crates/psi-drift/documents/*.json"))):
        with open(path, encoding="utf-8") as f:
            yield os.path.basename(path)[: -len(".json")], json.load(f)


def known(name):
    with open(os.path.join(ROOT, "tests/known-answers", name), encoding="utf-8") as f:
        return json.load(f)


def walk(value):
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def examples(value):
    """Every example value under `value` (`example` and `examples.*.value`)."""
    for node in walk(value):
        if isinstance(node, dict):
            if "example" in node:
                yield node["example"]
            if isinstance(node.get("examples"), dict):
                for example in node["examples"].values():
                    if isinstance(example, dict) and "value" in example:
                        yield example["value"]


def webhook():
    """The known answers' cases: secret, timestamp, body and header."""
    for name in ["webhook-signatures.json", "webhook-verification.json",
                 "invoice-signatures.json", "invoice-verification.json"]:
        if not os.path.exists(os.path.join(ROOT, "tests/known-answers", name)):
            continue
        for node in walk(known(name)):
            if isinstance(node, dict) and "secret" in node and ("body" in node or "payload" in node):
                body = node.get("body", node.get("payload"))
                if not isinstance(body, str):
                    body = json.dumps(body, separators=(",", ":"))
                header = next((node[key] for key in ("header", "expected_header", "signature")
                               if key in node), "")
                timestamp = node.get("timestamp", node.get("t", 0))
                if not isinstance(timestamp, int):
                    timestamp = 0
                write("webhook", json.dumps({"secret": node["secret"], "timestamp": timestamp,
                                             "body": body, "header": str(header)}))


def decimal():
    """The known decimals, and every number of the documents' examples, by
    the text JSON gives them."""
    texts = set()
    for node in walk(known("decimals.json")):
        if isinstance(node, str) and re.fullmatch(r"-?[0-9][0-9.eE+-]*", node):
            texts.add(node)
    for _, document in documents():
        for example in examples(document):
            text = json.dumps(example)
            texts.update(re.findall(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w\"])", text))
    texts = sorted(texts)
    for start in range(0, len(texts), 16):
        write("decimal", " ".join(texts[start:start + 16]))


def patterns():
    """The documents' examples of values with a pattern."""
    lines = set()
    for _, document in documents():
        for node in walk(document):
            if isinstance(node, dict) and "pattern" in node:
                for example in examples(node):
                    if isinstance(example, str):
                        lines.add(example)
        for example in examples(document):
            for node in walk(example):
                if isinstance(node, str) and len(node) <= 40:
                    lines.add(node)
    lines = sorted(line for line in lines if "\n" not in line)
    for start in range(0, len(lines), 32):
        write("patterns", "\n".join(lines[start:start + 32]))


def answers(document):
    """(schema name, example) of every response of every operation."""
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for response in operation.get("responses", {}).values():
                if "$ref" in response:
                    response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
                for media in response.get("content", {}).values():
                    reference = media.get("schema", {}).get("$ref")
                    if not reference:
                        continue
                    schema = reference.rsplit("/", 1)[1]
                    found = list(examples(media))
                    found += list(examples(document["components"]["schemas"].get(schema, {})))[:1]
                    for example in found:
                        yield schema, example


def lenient_decode():
    for _, document in documents():
        for schema, example in answers(document):
            write("lenient_decode", schema + "\n" + json.dumps(example))


def prefix(server):
    path = server.split("}", 1)[1] if "}" in server else server
    return "/shop-config" + path if server.startswith("{shop_config_url}") else path


def sandbox_requests():
    control = os.path.join(ROOT, "schemas/sandbox-control/openapi.json")
    with open(control, encoding="utf-8") as f:
        everything = list(documents()) + [("sandbox-control", json.load(f))]
    for _, document in everything:
        base = prefix(document.get("servers", [{}])[0].get("url", ""))
        for path, item in document["paths"].items():
            for method, operation in item.items():
                if method not in ("get", "post", "put", "patch", "delete"):
                    continue
                if re.search(r"/(notify|notify-invoice|resend)$", path):
                    continue
                values = {}
                for parameter in operation.get("parameters", []) + item.get("parameters", []):
                    if "$ref" in parameter:
                        continue
                    found = list(examples(parameter))
                    if found:
                        values[parameter["name"]] = str(found[0])
                concrete = re.sub(r"\{([^}]+)\}", lambda m: values.get(m.group(1), "x-1"), base + path)
                bodies = list(examples(operation.get("requestBody", {}))) or [None]
                for body in bodies:
                    write("sandbox_requests", json.dumps(
                        {"method": method.upper(), "path": concrete, "body": body}))


def path_query():
    values = set(["", ".", "..", "a/b", "a\\b", "%2e%2e", "?x#y", "ä ö"])
    for _, document in documents():
        for node in walk(document):
            if isinstance(node, dict) and node.get("in") in ("path", "query"):
                for example in examples(node):
                    values.add(str(example))
    for value in sorted(values):
        write("path_query", value)


if __name__ == "__main__":
    webhook()
    decimal()
    patterns()
    lenient_decode()
    sandbox_requests()
    path_query()
