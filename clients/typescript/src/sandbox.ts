// Where the sandbox is, and a typed, authenticated client for each of its APIs.
//
// `GET <sandbox>/__sandbox` (the sandbox's test-control API, not part of the
// published documents) answers the addresses, the demo client credentials
// and the webhook secret. A token is issued for one API, named by its
// audience: `{api_url}` plus the API's path in the specification's table, or
// `{base_url}` itself for the hosted payment page. A sandbox serving beyond
// loopback (a container, a team server) has a control token, which every
// control call carries.
import createClient, { type Client } from "openapi-fetch";
import type { paths as TokenPaths } from "../generated/token.js";
import { stringifyExact } from "./exact-json.js";

export type Api = "payment-page" | "pay-later" | "order-status" | "transaction-status";

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
  /** The control token, when the sandbox has one. */
  controlToken: string | undefined;
}

interface About {
  url: string;
  addresses: { base_url: string; api_url: string; auth_url: string };
  client_id: string;
  client_secret: string;
  webhook_secret: string;
}

/**
 * Reads the addresses and demo credentials of the sandbox at `url` (with
 * `controlToken` when it has one).
 */
export async function discover(url: string, controlToken?: string): Promise<Sandbox> {
  const response = await fetch(`${url.replace(/\/+$/, "")}/__sandbox`, {
    headers: controlHeaders(controlToken),
  });
  if (!response.ok) throw new Error(`GET ${url}/__sandbox answered ${response.status}`);
  const about = (await response.json()) as About;
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

/** What a control call carries: the control token, when there is one. */
export function controlHeaders(controlToken: string | undefined): Record<string, string> {
  return controlToken ? { Authorization: `Bearer ${controlToken}` } : {};
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
