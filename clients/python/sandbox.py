"""Where the sandbox is, how to get a token for each of its APIs, and the
calls of its test-control API the tests make.

``GET <sandbox>/__sandbox`` (the sandbox's test-control API) answers its
addresses, the demo client credentials and the webhook secret (the session
notifications' key; an invoice notification is signed with its webhook
subscription's secret). The control API's bodies are the models generated
from its published document (``models/sandbox_control.py``, from
``schemas/sandbox-control/``), like the APIs'. A token is issued for one
API, named by its audience: ``{api_url}`` plus the API's path in the
specification's table, or ``{base_url}`` itself for the hosted payment
page."""

from __future__ import annotations

from dataclasses import dataclass, replace

import httpx

from exact_json import dumps, loads
from models.sandbox_control import (
    CompletedSession,
    CompleteSessionRequest,
    SandboxDescription,
    Tenant,
    TenantRequest,
    TenantSummary,
    WebhookSubscription,
    WebhookSubscriptionRequest,
)
from models.token import GrantType, TokenRequest, TokenResponse

# Path of each API's audience after {api_url} (the specification's table).
AUDIENCE_PATHS = {
    "pay-later": "/paylater",
    "order-status": "/order/status/v2/transactions",  # also the invoice files
    "transaction-status": "/transaction/status/v2/transactions",
}


@dataclass(frozen=True)
class Sandbox:
    url: str  # the sandbox itself, where its control API lives
    base_url: str
    api_url: str
    auth_url: str
    client_id: str
    client_secret: str
    webhook_secret: bytes
    # Sent with every control call when there is one: the operator's
    # (--control-token) or a tenant's (for_tenant).
    control_token: str | None = None
    # The tenant an operator's control calls act on (?tenant=), when not the
    # demo tenant (scoped).
    tenant: str | None = None

    @classmethod
    def discover(cls, http: httpx.Client, url: str, control_token: str | None = None) -> Sandbox:
        """Reads the addresses and demo credentials of the sandbox at ``url``."""
        headers = {} if control_token is None else bearer(control_token)
        response = http.get(f"{url.rstrip('/')}/__sandbox", headers=headers)
        response.raise_for_status()
        about = SandboxDescription.model_validate(loads(response.content))
        if about.webhook_secret is None:
            raise ValueError(f"{url} answers no webhook secret: the operator chose it (--webhook-secret)")
        return cls(
            url=about.url,
            base_url=about.addresses.base_url,
            api_url=about.addresses.api_url,
            auth_url=about.addresses.auth_url,
            client_id=about.client_id,
            client_secret=about.client_secret.get_secret_value(),
            webhook_secret=about.webhook_secret.get_secret_value().encode(),
            control_token=control_token,
        )

    def control(self, http: httpx.Client, method: str, path: str, body, content: str | None = None) -> httpx.Response:
        """One call of the control API (``path`` below ``/__sandbox``) with
        ``body``, a model of its document, as JSON (every control write
        must say so), and the control token when there is one. ``content``,
        when given, is sent instead of ``body`` dumped (for a body whose
        secret fields a dump would mask)."""
        headers = {"Content-Type": "application/json"}
        if self.control_token is not None:
            headers.update(bearer(self.control_token))
        if content is None:
            content = body.model_dump_json(exclude_none=True)
        return http.request(method, self.control_url(path), content=content, headers=headers)

    def control_url(self, path: str) -> str:
        """``/__sandbox`` and ``path``, with the ``tenant`` parameter of a
        scoped sandbox, except on the calls that manage tenants (they act on
        no one tenant)."""
        url = f"{self.url}/__sandbox{path}"
        if self.tenant is None or path == "/tenants" or path.startswith("/tenants/"):
            return url
        return str(httpx.URL(url).copy_merge_params({"tenant": self.tenant}))

    def create_tenant(self, http: httpx.Client, name: str | None = None) -> Tenant:
        """Creates a tenant named ``name`` (or by the sandbox: ``t-`` and 12
        hexadecimal digits); answers its credentials and control token, which
        only this answer carries. Only the operator may (its control token,
        or none on a sandbox without one)."""
        response = self.control(http, "POST", "/tenants", TenantRequest(name=name))
        assert response.status_code == 201, f"createTenant: {response.status_code} {response.text}"
        return Tenant.model_validate(loads(response.content))

    def tenants(self, http: httpx.Client) -> list[TenantSummary]:
        """The tenants this sandbox's control token may see (every one for
        the operator), without secrets."""
        headers = {} if self.control_token is None else bearer(self.control_token)
        response = http.get(self.control_url("/tenants"), headers=headers)
        assert response.status_code == 200, f"listTenants: {response.status_code} {response.text}"
        return [TenantSummary.model_validate(t) for t in loads(response.content)]

    def delete_tenant(self, http: httpx.Client, tenant_id: str) -> httpx.Response:
        """Deletes the tenant ``tenant_id`` with all its data (the operator
        only); answers the response (204, or the refusal)."""
        return self.control(http, "DELETE", f"/tenants/{tenant_id}", None, content="{}")

    def for_tenant(self, tenant: Tenant) -> Sandbox:
        """The sandbox as ``tenant`` sees it: its credentials for tokens, and
        its control token on every control call (which then act on it alone)."""
        return replace(
            self,
            client_id=tenant.client_id,
            client_secret=tenant.client_secret.get_secret_value(),
            control_token=tenant.control_token.get_secret_value(),
            tenant=None,
        )

    def scoped(self, tenant_id: str) -> Sandbox:
        """This sandbox with its control calls acting on the tenant
        ``tenant_id`` (``?tenant=``), for the operator."""
        return replace(self, tenant=tenant_id)

    def subscribe_invoice_webhook(
        self, http: httpx.Client, url: str, secret: str | None = None
    ) -> tuple[int, WebhookSubscription]:
        """Subscribes ``url`` to the invoice notifications, signed with
        ``secret`` (the provider requires 64 characters or more; without
        it, the sandbox signs them with its webhook secret, the one of the
        session notifications); answers the status (201 new, 200 subscribed
        already) and the subscription."""
        fields = {"url": url} if secret is None else {"url": url, "secret": secret}
        # Checked against the document's model, then sent as given: a secret
        # typed as a password (SecretStr) would dump masked.
        request = WebhookSubscriptionRequest.model_validate(fields)
        response = self.control(http, "POST", "/webhook-subscriptions", request, content=dumps(fields))
        assert response.status_code in (200, 201), f"subscribeInvoiceWebhook: {response.status_code} {response.text}"
        return response.status_code, WebhookSubscription.model_validate(loads(response.content))

    def complete_session(self, http: httpx.Client, session_id: str, choice: CompleteSessionRequest) -> CompletedSession:
        """The buyer completes the session as ``choice`` says; answers the new transaction."""
        response = self.control(http, "POST", f"/sessions/{session_id}/complete", choice)
        assert response.status_code == 200, f"completeSession: {response.status_code} {response.text}"
        return CompletedSession.model_validate(loads(response.content))

    def audience(self, api: str) -> str:
        if api == "payment-page":
            return self.base_url
        return self.api_url + AUDIENCE_PATHS[api]

    def token(self, http: httpx.Client, api: str) -> str:
        """A bearer token for ``api`` (client credentials grant)."""
        request = TokenRequest(
            grant_type=GrantType.client_credentials,
            client_id=self.client_id,
            client_secret=self.client_secret,
            audience=self.audience(api),
        )
        body = request.model_dump(mode="python")
        body["client_secret"] = request.client_secret.get_secret_value()
        response = http.post(f"{self.auth_url}/oauth/token", json=body)
        response.raise_for_status()
        token = TokenResponse.model_validate(loads(response.content))
        assert token.access_token is not None, "the token response has no access_token"
        return token.access_token.get_secret_value()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
