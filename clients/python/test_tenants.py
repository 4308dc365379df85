"""Tenants of the sandbox through the Python client: the operator creates,
lists and deletes them; a tenant's control token acts on that tenant alone;
``scoped`` names a tenant for the operator's calls. Against the sandbox of
the end-to-end test. A sandbox whose ``GET /__sandbox`` names no ``tenant``
keeps no tenants: the tests that need them are skipped there."""

from __future__ import annotations

import secrets

import httpx
import pytest

from exact_json import loads
from models.sandbox_control import ResetOutcome, SandboxDescription
from sandbox import Sandbox, bearer


def test_a_scoped_sandbox_names_its_tenant_on_every_scoped_call():
    sandbox = Sandbox(
        url="http://127.0.0.1:8787",
        base_url="http://127.0.0.1:8787",
        api_url="http://127.0.0.1:8787",
        auth_url="http://127.0.0.1:8787",
        client_id="c",
        client_secret="s",
        webhook_secret=b"w",
    )
    assert sandbox.control_url("/sessions") == "http://127.0.0.1:8787/__sandbox/sessions"
    scoped = sandbox.scoped("acme-shop")
    assert scoped.control_url("") == "http://127.0.0.1:8787/__sandbox?tenant=acme-shop"
    assert scoped.control_url("/sessions") == "http://127.0.0.1:8787/__sandbox/sessions?tenant=acme-shop"
    assert scoped.control_url("/tenants") == "http://127.0.0.1:8787/__sandbox/tenants"
    assert scoped.control_url("/tenants/t-1") == "http://127.0.0.1:8787/__sandbox/tenants/t-1"


@pytest.fixture(scope="module")
def operator(http: httpx.Client, sandbox: Sandbox) -> Sandbox:
    headers = {} if sandbox.control_token is None else bearer(sandbox.control_token)
    about = loads(http.get(f"{sandbox.url}/__sandbox", headers=headers).content)
    if not isinstance(about.get("tenant"), str):
        pytest.skip("this sandbox keeps no tenants (GET /__sandbox names no tenant)")
    return sandbox


def ident(value) -> str:
    """A tenant id as text, whether the model keeps it as a string or a root model."""
    return str(getattr(value, "root", value))


def about(http: httpx.Client, sandbox: Sandbox) -> httpx.Response:
    headers = {} if sandbox.control_token is None else bearer(sandbox.control_token)
    return http.get(sandbox.control_url(""), headers=headers)


def test_a_tenant_is_created_acts_on_itself_alone_and_is_deleted(http, operator):
    name = f"py-{secrets.token_hex(6)}"
    tenant = operator.create_tenant(http, name)
    assert ident(tenant.tenant) == name
    assert tenant.client_id != operator.client_id

    own = operator.for_tenant(tenant)
    described = SandboxDescription.model_validate(loads(about(http, own).content))
    assert described.client_id == tenant.client_id
    assert own.token(http, "payment-page")

    everyone = [ident(t.tenant) for t in operator.tenants(http)]
    assert "demo" in everyone and name in everyone
    assert [ident(t.tenant) for t in own.tenants(http)] == [name]

    scoped = loads(about(http, operator.scoped(name)).content)
    assert scoped["tenant"] == name

    refused = own.control(http, "POST", "/tenants", None, content="{}")
    assert refused.status_code == 403
    assert about(http, own.scoped("demo")).status_code == 403

    reset = own.control(http, "POST", "/reset", None, content="{}")
    assert reset.status_code == 200
    assert [ident(t) for t in ResetOutcome.model_validate(loads(reset.content)).tenants] == [name]

    assert operator.delete_tenant(http, name).status_code == 204
    assert operator.delete_tenant(http, name).status_code == 404
    assert about(http, own).status_code == 401


def test_the_sandbox_names_a_tenant_created_without_a_name(http, operator):
    tenant = operator.create_tenant(http)
    name = ident(tenant.tenant)
    assert name.startswith("t-") and len(name) == 14
    assert operator.delete_tenant(http, name).status_code == 204


def test_the_demo_tenant_stays(http, operator):
    assert operator.delete_tenant(http, "demo").status_code == 409
