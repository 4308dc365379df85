"""Where the sandbox is and how to get a token for each of its APIs.

``GET <sandbox>/__sandbox`` (the sandbox's test-control API) answers its
addresses, the demo client credentials and the webhook secret. A token is
issued for one API, named by its audience: ``{api_url}`` plus the API's path
in the specification's table, or ``{base_url}`` itself for the hosted payment
page. A sandbox serving beyond loopback (a container, a team server) has a
control token, which every control call carries."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from exact_json import loads
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
    control_token: str | None = None

    @classmethod
    def discover(cls, http: httpx.Client, url: str, control_token: str | None = None) -> Sandbox:
        """Reads the addresses and demo credentials of the sandbox at ``url``
        (with ``control_token`` when it has one)."""
        response = http.get(f"{url.rstrip('/')}/__sandbox", headers=control_headers(control_token))
        response.raise_for_status()
        about = loads(response.content)
        addresses = about["addresses"]
        return cls(
            url=about["url"],
            base_url=addresses["base_url"],
            api_url=addresses["api_url"],
            auth_url=addresses["auth_url"],
            client_id=about["client_id"],
            client_secret=about["client_secret"],
            webhook_secret=about["webhook_secret"].encode(),
            control_token=control_token,
        )

    def control_headers(self) -> dict[str, str]:
        """What a control call carries: the control token, when there is one."""
        return control_headers(self.control_token)

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


def control_headers(control_token: str | None) -> dict[str, str]:
    return bearer(control_token) if control_token else {}
