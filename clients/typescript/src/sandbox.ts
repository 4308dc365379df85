// Where the sandbox is, and a typed, authenticated client for each of its APIs.
//
// `GET <sandbox>/__sandbox`, of the sandbox's test-control API, answers the
// addresses, the demo client credentials and the webhook secret (the session
// notifications' key; an invoice notification is signed with its webhook
// subscription's secret). The control API is typed from its published
// document like the APIs (generated/sandbox-control.ts, from
// schemas/sandbox-control/). A token is issued for one API, named by its
// audience: `{api_url}` plus the API's path in the specification's table, or
// `{base_url}` itself for the hosted payment page.
import createClient, { type Client } from "openapi-fetch";
import type { components as ControlComponents, paths as ControlPaths } from "../generated/sandbox-control.js";
import type { paths as TokenPaths } from "../generated/token.js";
import { stringifyExact } from "./exact-json.js";

export type Api = "payment-page" | "pay-later" | "order-status" | "transaction-status";

/** The schemas of the control API's document. */
export type Control = ControlComponents["schemas"];

/** Path of each API's audience after `{api_url}` (the specification's table). */
const AUDIENCE_PATHS: Record<Exclude<Api, "payment-page">, string> = {
  "pay-later": "/paylater",
  "order-status": "/order/status/v2/transactions", // also the invoice files
  "transaction-status": "/transaction/status/v2/transactions",
};

export interface Sandbox {
  /** The sandbox itself, where its control API lives. */
  url: string;
  baseUrl: string;
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  /**
   * Sent with every control call when there is one: the operator's
   * (`--control-token`) or a tenant's (`forTenant`).
   */
  controlToken: string | undefined;
  /**
   * The tenant an operator's control calls act on (`?tenant=`), when not the
   * demo tenant (`scoped`).
   */
  tenant?: string;
}

/**
 * A client of the sandbox's test-control API at `url`, typed by the
 * control API's generated `paths`, sending `controlToken` (when given) as
 * its bearer.
 */
export function controlClient(url: string, controlToken?: string, tenant?: string): Client<ControlPaths> {
  const client = createClient<ControlPaths>({ baseUrl: url.replace(/\/+$/, "") });
  if (controlToken !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", `Bearer ${controlToken}`);
        return request;
      },
    });
  }
  if (tenant !== undefined) {
    client.use({
      onRequest({ request }) {
        return new Request(withTenant(request.url, tenant), request);
      },
    });
  }
  return client;
}

/**
 * `url` with the `tenant` query parameter, unless it manages tenants
 * (`/__sandbox/tenants...`), which acts on no one tenant.
 */
export function withTenant(url: string, tenant: string): string {
  const address = new URL(url);
  if (address.pathname === "/__sandbox/tenants" || address.pathname.startsWith("/__sandbox/tenants/")) {
    return url;
  }
  address.searchParams.set("tenant", tenant);
  return address.toString();
}

/** Reads the addresses and demo credentials of the sandbox at `url`. */
export async function discover(url: string, controlToken?: string): Promise<Sandbox> {
  const { data: about, error, response } = await controlClient(url, controlToken).GET("/__sandbox");
  if (!about) throw new Error(`GET ${url}/__sandbox answered ${response.status} ${JSON.stringify(error)}`);
  if (!about.webhook_secret) {
    throw new Error(`${url} answers no webhook secret: the operator chose it (--webhook-secret)`);
  }
  return {
    url: about.url,
    baseUrl: about.addresses.base_url,
    apiUrl: about.addresses.api_url,
    authUrl: about.addresses.auth_url,
    clientId: about.client_id,
    clientSecret: about.client_secret,
    webhookSecret: about.webhook_secret,
    controlToken,
  };
}

/** The control API of `sandbox`. */
export function control(sandbox: Sandbox): Client<ControlPaths> {
  return controlClient(sandbox.url, sandbox.controlToken, sandbox.tenant);
}

/**
 * Creates a tenant, named `name` or by the sandbox (`t-` and 12 hexadecimal
 * digits); answers its credentials and control token, which only this answer
 * carries. Only the operator may (its control token, or none on a sandbox
 * without one).
 */
export async function createTenant(sandbox: Sandbox, name?: string): Promise<Control["Tenant"]> {
  const body: Control["TenantRequest"] = name === undefined ? {} : { name };
  const { data, error, response } = await control(sandbox).POST("/__sandbox/tenants", { body });
  if (!data) throw new Error(`createTenant: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** The tenants `sandbox`'s control token may see (every one for the operator), without secrets. */
export async function listTenants(sandbox: Sandbox): Promise<Control["TenantSummary"][]> {
  const { data, error, response } = await control(sandbox).GET("/__sandbox/tenants");
  if (!data) throw new Error(`listTenants: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** Deletes the tenant `tenantId` with all its data (the operator only). */
export async function deleteTenant(sandbox: Sandbox, tenantId: string): Promise<void> {
  const { error, response } = await control(sandbox).DELETE("/__sandbox/tenants/{tenant}", {
    params: { path: { tenant: tenantId } },
    body: {},
  });
  if (response.status !== 204) throw new Error(`deleteTenant: ${response.status} ${JSON.stringify(error)}`);
}

/**
 * The sandbox as `tenant` sees it: its credentials for tokens, and its
 * control token on every control call (which then act on it alone).
 */
export function forTenant(sandbox: Sandbox, tenant: Control["Tenant"]): Sandbox {
  // Without the operator's `tenant`: a tenant's token acts on its tenant.
  const { tenant: _operatorsScope, ...unscoped } = sandbox;
  return {
    ...unscoped,
    clientId: tenant.client_id,
    clientSecret: tenant.client_secret,
    controlToken: tenant.control_token,
  };
}

/** `sandbox` with its control calls acting on the tenant `tenantId` (`?tenant=`), for the operator. */
export function scoped(sandbox: Sandbox, tenantId: string): Sandbox {
  return { ...sandbox, tenant: tenantId };
}

/** The buyer completes the session as `choice` says; answers the new transaction. */
export async function completeSession(
  sandbox: Sandbox,
  sessionId: string,
  choice: Control["CompleteSessionRequest"],
): Promise<Control["CompletedSession"]> {
  const { data, error, response } = await control(sandbox).POST("/__sandbox/sessions/{session_id}/complete", {
    params: { path: { session_id: sessionId } },
    body: choice,
  });
  if (!data) throw new Error(`completeSession: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/**
 * Subscribes `url` to the invoice notifications, signed with `secret` (the
 * provider requires 64 characters or more; without it, the sandbox signs them
 * with its webhook secret, the one of the session notifications); answers the
 * status (201 new, 200 subscribed already) and the subscription.
 */
export async function subscribeInvoiceWebhook(
  sandbox: Sandbox,
  url: string,
  secret?: string,
): Promise<{ status: number; subscription: Control["WebhookSubscription"] }> {
  const body: Control["WebhookSubscriptionRequest"] = secret === undefined ? { url } : { url, secret };
  const { data, error, response } = await control(sandbox).POST("/__sandbox/webhook-subscriptions", { body });
  if (!data) throw new Error(`subscribeInvoiceWebhook: ${response.status} ${JSON.stringify(error)}`);
  return { status: response.status, subscription: data };
}

export function audience(sandbox: Sandbox, api: Api): string {
  return api === "payment-page" ? sandbox.baseUrl : sandbox.apiUrl + AUDIENCE_PATHS[api];
}

/** A bearer token for `api` (client credentials grant). */
export async function token(sandbox: Sandbox, api: Api): Promise<string> {
  const tokens = createClient<TokenPaths>({ baseUrl: sandbox.authUrl });
  const { data, error, response } = await tokens.POST("/oauth/token", {
    body: {
      grant_type: "client_credentials",
      client_id: sandbox.clientId,
      client_secret: sandbox.clientSecret,
      audience: audience(sandbox, api),
    },
  });
  if (!data?.access_token) {
    throw new Error(`token for ${api}: ${response.status} ${JSON.stringify(error)}`);
  }
  return data.access_token;
}

/**
 * A client of one API typed by its generated `paths`, sending `token` on
 * every call and writing bodies with exact decimals.
 */
export function apiClient<Paths extends {}>(baseUrl: string, bearer: string): Client<Paths> {
  const client = createClient<Paths>({ baseUrl, bodySerializer: stringifyExact });
  client.use({
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${bearer}`);
      return request;
    },
  });
  return client;
}
