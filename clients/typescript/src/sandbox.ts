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
  /** Sent with every control call when the sandbox has one (`--control-token`). */
  controlToken: string | undefined;
}

/**
 * A client of the sandbox's test-control API at `url`, typed by the
 * control API's generated `paths`, sending `controlToken` (when given) as
 * its bearer.
 */
export function controlClient(url: string, controlToken?: string): Client<ControlPaths> {
  const client = createClient<ControlPaths>({ baseUrl: url.replace(/\/+$/, "") });
  if (controlToken !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", `Bearer ${controlToken}`);
        return request;
      },
    });
  }
  return client;
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
  return controlClient(sandbox.url, sandbox.controlToken);
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
