"""Runs schemathesis over every published bundle against a live sandbox.

Called by `.ci/schemathesis` (which installs schemathesis and builds the
sandbox); see `.ci/schemathesis.md`. Steps:

1. start the sandbox binary on a free port (or use `--url` of a running one),
2. read its addresses and demo credentials from `GET /__sandbox`,
3. fetch one bearer token per API (audience per the specification's table),
4. seed real ids (a completed session and its transaction, a bank account,
   a shop configuration, storefront orders) and write them as schemathesis
   dictionaries under the run directory,
5. run `schemathesis run schemas/<api>/openapi.yaml` once per bundle with
   `.ci/schemathesis.toml` and print one line per bundle;
6. last, the sandbox's own test-control API (`schemas/sandbox-control/`)
   against a second, fresh sandbox of its own (see `run_control`): its
   calls move the clock, arm faults and end sessions, which would change
   what the API bundles meet.

Exits non-zero when any bundle fails. Standard library only, so it runs in
the schemathesis virtual environment without more packages.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".ci" / "schemathesis.toml"
# Where `.ci/schemathesis.toml` reads the seeded dictionaries from.
RUN_DIR = ROOT / "target" / "schemathesis"

# The dictionaries of the control run (written by `seed_control`).
CONTROL_DICTIONARIES = ("control-sessions", "control-transactions", "control-shop-partners", "control-shops")

# Every published bundle (one directory each under schemas/), so a new API's
# bundle is run as soon as it is published; one without an audience or
# project below fails the run instead of being skipped.
# The proxy's own paths (`schemas/sandbox-proxy/`) are served by
# `psi-sandbox proxy`, not by the sandbox: they are tested in
# crates/psi-sandbox/tests/proxy.rs.
PROXY = "sandbox-proxy"
BUNDLES = sorted(
    path.parent.name for path in (ROOT / "schemas").glob("*/openapi.yaml") if path.parent.name != PROXY
)
# The sandbox's test-control API: no token audience, its own sandbox, run last.
CONTROL = "sandbox-control"

# The token audience of each API below `{api_url}` (the specification's
# table); the payment page's is `{base_url}` itself and the shop
# configuration's comes from the sandbox (see `addresses`).
AUDIENCE_PATHS = {
    "pay-later": "/paylater",
    "bank-accounts": "/shop/consumer/v1",
    "order-status": "/order/status/v2/transactions",
    "transaction-status": "/transaction/status/v2/transactions",
}


# ------------------------------------------------------------------ HTTP


def call(method: str, url: str, body: object | None = None, headers: dict | None = None):
    """One JSON call; answers (status, parsed body or text)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text) if text else None
    except json.JSONDecodeError:
        return status, text


def expect(what: str, answer: tuple, *statuses: int):
    status, body = answer
    if status not in statuses:
        sys.exit(f"schemathesis step: {what} answered {status}: {body}")
    return body


# -------------------------------------------------------------- sandbox


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sandbox(binary: str, log: Path, flags: tuple[str, ...] = (), headers: dict | None = None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    out = open(log, "w")
    process = subprocess.Popen([binary, "--port", str(port), *flags], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    # Poll until it answers; 200 attempts of 50 ms is 10 s for a process
    # that binds its port in milliseconds.
    for _ in range(200):
        if process.poll() is not None:
            sys.exit(f"schemathesis step: the sandbox exited ({process.returncode}); see {log}")
        try:
            if call("GET", f"{url}/__sandbox", headers=headers)[0] == 200:
                return process, url
        except OSError:
            pass
        time.sleep(0.05)
    process.kill()
    sys.exit(f"schemathesis step: the sandbox did not answer on {url}; see {log}")


def addresses_of(about: dict, url: str) -> dict:
    """The sandbox's addresses: `GET /__sandbox`'s `addresses` when it has
    them, else today's layout (everything at the sandbox URL)."""
    given = about.get("addresses") or {}
    api_url = given.get("api_url", url)
    return {
        "sandbox_url": url,
        "base_url": given.get("base_url", url),
        "api_url": api_url,
        "auth_url": given.get("auth_url", url),
        "platform_url": given.get("platform_url", url),
        "shop_config_url": given.get("shop_config_url", url),
        "shop_config_audience": given.get("shop_config_audience", api_url),
    }


def audience_of(bundle: str, addresses: dict) -> str | None:
    if bundle == "payment-page":
        return addresses["base_url"]
    if bundle == "shop-config":
        return addresses["shop_config_audience"]
    path = AUDIENCE_PATHS.get(bundle)
    return None if path is None else addresses["api_url"] + path


def service_token(about: dict, addresses: dict, audience: str) -> str:
    body = {
        "grant_type": "client_credentials",
        "client_id": about["client_id"],
        "client_secret": about["client_secret"],
        "audience": audience,
    }
    answer = call("POST", addresses["auth_url"] + "/oauth/token", body)
    return expect(f"token for {audience}", answer, 200)["access_token"]


def platform_token(about: dict, addresses: dict) -> str:
    body = {
        "grant_type": "client_credentials",
        "client_id": about["platform_client_id"],
        "client_secret": about["platform_client_secret"],
        "scope": "write",
    }
    answer = call("POST", addresses["platform_url"] + "/api/oauth/token", body)
    return expect("platform token", answer, 200)["access_token"]


def server_url(bundle: str, addresses: dict) -> str:
    """The bundle's server URL with the sandbox's addresses for its variables."""
    document = json.loads((ROOT / "schemas" / bundle / "openapi.json").read_text())
    server = document["servers"][0]
    url = server["url"]
    for name in server.get("variables", {}):
        url = url.replace("{" + name + "}", addresses[name])
    return url


def example_body(bundle: str, operation_id: str) -> object:
    """The first example request body of an operation in a bundle."""
    document = json.loads((ROOT / "schemas" / bundle / "openapi.json").read_text())
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                media = next(iter(operation["requestBody"]["content"].values()))
                if "example" in media:
                    return media["example"]
                return next(iter(media["examples"].values()))["value"]
    raise KeyError(operation_id)


# -------------------------------------------------------------- seeding


def seed(about: dict, addresses: dict, tokens: dict, url: str) -> dict[str, list[str]]:
    """Creates data through the APIs and the control API; answers the
    dictionaries (name -> values) `.ci/schemathesis.toml` refers to."""
    bearer = lambda bundle: {"Authorization": f"Bearer {tokens[bundle]}"}  # noqa: E731
    audiences = [a for a in (audience_of(b, addresses) for b in BUNDLES) if a is not None]
    sessions, transactions, correspondences = [], [], []
    # Three sessions: two completed as open invoices (one for pay later
    # bookings, one left unbooked), one left open.
    for index in range(3):
        answer = call(
            "POST",
            addresses["base_url"] + "/pps/api/v1/session",
            example_body("payment-page", "createSession"),
            {**bearer("payment-page"), "Idempotency-Key": str(uuid.uuid4())},
        )
        session_id = expect("createSession", answer, 200, 201)["session_id"]
        sessions.append(session_id)
        if index < 2:
            answer = call(
                "POST",
                f"{url}/__sandbox/sessions/{session_id}/complete",
                {"payment_option": "OPEN_INVOICE"},
            )
            transactions.append(expect("complete session", answer, 200)["transaction_id"])
    # The invoice correspondence ids arrive with the invoice notifications.
    deliveries = expect("webhooks", call("GET", f"{url}/__sandbox/webhooks"), 200)
    for delivery in deliveries if isinstance(deliveries, list) else deliveries.get("deliveries", []):
        payload = delivery.get("payload") or delivery.get("body") or {}
        if isinstance(payload, str):
            try:
                payload = json.loads(payload)
            except json.JSONDecodeError:
                continue
        if isinstance(payload, dict) and payload.get("correspondence_id"):
            correspondences.append(payload["correspondence_id"])

    bank = example_body("bank-accounts", "storeBankAccount")
    partner, buyer = "pp0123456789", "buyer-4711"
    answer = call(
        "POST",
        server_url("bank-accounts", addresses) + f"/partners/{partner}/consumer/{buyer}/bank-accounts",
        bank,
        bearer("bank-accounts"),
    )
    stored = expect("storeBankAccount", answer, 200, 201)
    reference = stored.get("bank_account_reference") or stored.get("reference")

    shop_partner, shop = "pp0123456789", "shop-1"
    answer = call(
        "PUT",
        server_url("shop-config", addresses) + f"/v2/partners/{shop_partner}/shops/{shop}",
        example_body("shop-config", "updateShopConfiguration"),
        bearer("shop-config"),
    )
    expect("updateShopConfiguration", answer, 200, 201, 202, 204)

    offers = set()
    for transaction_id in transactions:
        answer = call(
            "GET",
            server_url("pay-later", addresses) + f"/order/paylater/v1/{transaction_id}/offers",
            headers=bearer("pay-later"),
        )
        for offer in expect("getPayLaterOffers", answer, 200).get("offers") or []:
            offers.add(offer["offer_id"])

    orders = []
    for transaction_id in transactions:
        answer = call("POST", f"{url}/__sandbox/storefront/orders", {"transaction_id": transaction_id})
        orders.append(expect("seed storefront order", answer, 201)["order_id"])

    return {
        "client-ids": [about["client_id"]],
        "client-secrets": [about["client_secret"]],
        "audiences": audiences,
        "platform-client-ids": [about["platform_client_id"]],
        "platform-client-secrets": [about["platform_client_secret"]],
        "offer-ids": sorted(offers) or ["payl-1"],
        "sessions": sessions,
        "transactions": transactions,
        "correspondences": correspondences or [str(uuid.uuid4())],
        "partners": [partner],
        "buyers": [buyer],
        "bank-account-references": [reference] if reference else [str(uuid.uuid4())],
        "shop-partners": [shop_partner],
        "shops": [shop],
        "orders": orders,
    }


def write_dictionaries(dictionaries: dict[str, list[str]]) -> None:
    """One libFuzzer-style file per dictionary: a quoted value a line."""
    directory = RUN_DIR / "dictionaries"
    directory.mkdir(parents=True, exist_ok=True)
    for name, values in dictionaries.items():
        lines = [json.dumps(value) for value in values]
        (directory / f"{name}.dict").write_text("\n".join(lines) + "\n")


def seed_control(about: dict, addresses: dict, url: str, control: dict) -> dict[str, list[str]]:
    """Creates what the control API's calls act on in the control run's
    sandbox: open sessions to end, transactions (one with a pay later
    booking to withdraw) and a shop configuration to read back. Answers
    the `control-*` dictionaries of `.ci/schemathesis.toml`."""
    page = {"Authorization": f"Bearer {service_token(about, addresses, addresses['base_url'])}"}
    sessions = []
    for _ in range(6):
        answer = call(
            "POST",
            addresses["base_url"] + "/pps/api/v1/session",
            example_body("payment-page", "createSession"),
            {**page, "Idempotency-Key": str(uuid.uuid4())},
        )
        sessions.append(expect("createSession", answer, 200, 201)["session_id"])
    # Two completed: one to book pay later on (then withdrawable), one not.
    transactions = []
    for session_id in sessions[:2]:
        answer = call("POST", f"{url}/__sandbox/sessions/{session_id}/complete", {"payment_option": "OPEN_INVOICE"}, control)
        transactions.append(expect("complete session", answer, 200)["transaction_id"])
    pay_later = {"Authorization": f"Bearer {service_token(about, addresses, audience_of('pay-later', addresses))}"}
    booking = call(
        "POST",
        server_url("pay-later", addresses) + f"/order/paylater/v1/{transactions[0]}",
        {"offer_id": "payl-1"},
        {**pay_later, "Content-Type": "application/json;charset=UTF-8"},
    )
    expect("bookPayLaterOffer", booking, 200, 201, 204)
    shop_partner, shop = "pp0123456789", "shop-1"
    shop_config = {"Authorization": f"Bearer {service_token(about, addresses, addresses['shop_config_audience'])}"}
    answer = call(
        "PUT",
        server_url("shop-config", addresses) + f"/v2/partners/{shop_partner}/shops/{shop}",
        example_body("shop-config", "updateShopConfiguration"),
        shop_config,
    )
    expect("updateShopConfiguration", answer, 200, 201, 202, 204)
    return {
        # The four not completed stay open for the control run to end.
        "control-sessions": sessions[2:],
        "control-transactions": transactions,
        "control-shop-partners": [shop_partner],
        "control-shops": [shop],
    }


def run_control(args, schemathesis: str, url: str | None) -> tuple[int, float]:
    """The control API's bundle against a sandbox of its own, started with
    a control token (so every call carries it as the document's bearer),
    webhook receivers limited to 127.0.0.1 (so no address the fuzzer makes
    up is ever called) and room for every fault and subscription the run
    arms; with `--url` (and `--only sandbox-control`), against that
    sandbox."""
    process = None
    token = os.environ.get("PSI_SANDBOX_CONTROL_TOKEN", "")
    try:
        if args.sandbox:
            token = uuid.uuid4().hex
            flags = (
                "--control-token", token,
                "--webhook-allow", "127.0.0.1",
                "--max-faults", "1000000",
                "--max-webhook-subscriptions", "1000000",
            )
            control = {"Authorization": f"Bearer {token}"}
            process, url = start_sandbox(args.sandbox, RUN_DIR / "sandbox-control.log", flags, control)
        control = {"Authorization": f"Bearer {token}"} if token else {}
        about = expect("GET /__sandbox", call("GET", f"{url}/__sandbox", headers=control), 200)
        addresses = addresses_of(about, url.rstrip("/"))
        dictionaries = seed_control(about, addresses, url.rstrip("/"), control)
        write_dictionaries(dictionaries)
        print("control sandbox", url, "seeded", json.dumps(dictionaries), flush=True)
        return run_bundle(schemathesis, CONTROL, server_url(CONTROL, addresses), token or None, args.extra)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=10)


# ------------------------------------------------------------------ run


def run_bundle(schemathesis: str, bundle: str, base_url: str, token: str | None, extra: list[str]) -> tuple[int, float]:
    env = dict(os.environ)
    # The bearer token `.ci/schemathesis.toml` sends; the token server's
    # operation declares no security, so it gets none.
    env["PSI_SCHEMATHESIS_TOKEN"] = token or "none"
    env["PSI_SCHEMATHESIS_SEEDED"] = str(RUN_DIR / "seeded.json")
    reports = RUN_DIR / "reports" / bundle
    command = [
        schemathesis,
        "--config-file",
        str(CONFIG),
        "run",
        str(ROOT / "schemas" / bundle / "openapi.yaml"),
        "--url",
        base_url,
        "--report",
        "junit",
        "--report-dir",
        str(reports),
        *extra,
    ]
    print(f"\n---- {bundle}: {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    code = subprocess.call(command, env=env, cwd=ROOT)
    return code, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", help="the psi-sandbox binary to start")
    parser.add_argument("--url", help="a running sandbox instead of --sandbox")
    parser.add_argument("--schemathesis", default=str(Path(sys.executable).parent / "schemathesis"))
    parser.add_argument("--only", action="append", help="run only this bundle (repeatable)")
    parser.add_argument("extra", nargs="*", help="more options for `schemathesis run` (after --)")
    args = parser.parse_args()
    if not (args.sandbox or args.url):
        parser.error("give --sandbox or --url")

    RUN_DIR.mkdir(parents=True, exist_ok=True)
    process = None
    url = args.url
    if args.sandbox:
        process, url = start_sandbox(args.sandbox, RUN_DIR / "sandbox.log")
    try:
        about = expect("GET /__sandbox", call("GET", f"{url}/__sandbox"), 200)
        addresses = addresses_of(about, url.rstrip("/"))
        tokens = {}
        for bundle in BUNDLES:
            audience = audience_of(bundle, addresses)
            if audience is not None:
                tokens[bundle] = service_token(about, addresses, audience)
        tokens["storefront"] = platform_token(about, addresses)
        dictionaries = seed(about, addresses, tokens, url.rstrip("/"))
        # The control run's dictionaries come from its own sandbox; until it
        # seeds them, values that name nothing (the configuration reads every
        # dictionary file, whichever bundles run).
        dictionaries.update({name: ["unknown"] for name in CONTROL_DICTIONARIES})
        write_dictionaries(dictionaries)
        (RUN_DIR / "seeded.json").write_text(json.dumps(dictionaries, indent=2))
        print("sandbox", url, "seeded", json.dumps(dictionaries), flush=True)

        results = []
        for bundle in args.only or BUNDLES:
            if bundle == CONTROL:
                continue
            code, seconds = run_bundle(
                args.schemathesis, bundle, server_url(bundle, addresses), tokens.get(bundle), args.extra
            )
            results.append((bundle, code, seconds))
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=10)
    if args.url and not (args.only and CONTROL in args.only):
        # Its calls would move that sandbox's clock, end its sessions and,
        # without --webhook-allow there, subscribe made-up addresses it then
        # calls: only when asked for by name.
        print(f"\n---- {CONTROL}: skipped against --url (ask for it with --only {CONTROL})", flush=True)
    elif CONTROL in (args.only or BUNDLES):
        code, seconds = run_control(args, args.schemathesis, url)
        results.append((CONTROL, code, seconds))

    print("\n==== schemathesis summary")
    for bundle, code, seconds in results:
        print(f"{bundle:20} {'ok' if code == 0 else f'FAILED ({code})':12} {seconds:6.1f} s")
    failed = sum(1 for _, code, _ in results if code != 0)
    print(f"schemathesis: {len(results) - failed} of {len(results)} bundles clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
