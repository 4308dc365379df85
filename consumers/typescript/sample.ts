// What a TypeScript team writes against the published schemas: types from
// openapi-typescript (generated/<api>.ts, made from schemas/<api>/openapi.yaml)
// and a typed client from openapi-fetch. `tsc -p consumers/typescript` must
// accept this file; the lines marked @ts-expect-error must be rejected (tsc
// fails on an unused @ts-expect-error), which proves the types are strict.
import createClient from "openapi-fetch";
import type { components as PayLater, paths as PayLaterPaths } from "./generated/pay-later";
import type { components as PaymentPage, paths as PaymentPagePaths } from "./generated/payment-page";
import type { components as Token, paths as TokenPaths } from "./generated/token";

type SessionRequest = PaymentPage["schemas"]["SessionRequest"];
type SessionRecord = PaymentPage["schemas"]["SessionRecord"];
type SessionStatus = PaymentPage["schemas"]["SessionStatus"];
type TokenRequest = Token["schemas"]["TokenRequest"];
type BookingRequest = PayLater["schemas"]["PayLaterBookingRequest"];

/** A session request for one basket; amounts are decimals sent as JSON numbers. */
export function sessionRequest(orderId: string): SessionRequest {
  return {
    order_data: {
      partner_transaction_id: orderId,
      currency: "EUR",
      buyer: {
        person: { first_name: "Max", last_name: "Mustermann", date_of_birth: "1980-05-17" },
        billing_address: { city: "Berlin", country_code: "DE", street: "Musterstraße", zip_code: "10115" },
        contact: { email: "max.mustermann@example.com" },
      },
      delivery: {
        full_name: "Erika Mustermann",
        address: { city: "Berlin", country_code: "DE", street: "Musterstraße", zip_code: "10115" },
      },
      shop_baskets: [
        {
          partner_shop_id: "shop-1",
          shop_transaction_id: `SO-${orderId}`,
          gross_amount: 10,
          items: [{ name: "T-shirt", quantity: 1, tax_rate: 19, gross_unit_price: 10, gross_total_price: 10 }],
        },
      ],
    },
    url_data: {
      success_url: "https://shop.example.com/checkout/success",
      failure_url: "https://shop.example.com/checkout/failure",
      cancel_url: "https://shop.example.com/checkout/cancel",
      webhook_url: "https://shop.example.com/webhooks/payment-page",
    },
  };
}

/** Statuses are a closed union here; the service may add values, so keep a default branch. */
export function describe(status: SessionStatus | null | undefined): string {
  switch (status) {
    case "COMPLETED":
      return "paid";
    case "CANCELED":
    case "EXPIRED":
    case "ERROR":
      return "not paid";
    case undefined:
      return "unknown";
    default:
      return `pending (${status})`;
  }
}

/** Reads the session notification body; `transaction_id` is nullable. */
export function transactionOf(record: SessionRecord): string {
  return record.transaction_id ?? "(no transaction yet)";
}

/** Token, session and pay later booking through typed clients. */
export async function checkout(authUrl: string, baseUrl: string, apiUrl: string): Promise<string> {
  const tokens = createClient<TokenPaths>({ baseUrl: authUrl });
  const token = await tokens.POST("/oauth/token", {
    body: {
      client_id: "example-client-id",
      client_secret: "example-client-secret",
      audience: baseUrl,
      grant_type: "client_credentials",
    },
  });
  if (token.error !== undefined) {
    return `no token: ${JSON.stringify(token.error)}`;
  }
  const headers = { Authorization: `Bearer ${token.data.access_token ?? ""}` };

  const sessions = createClient<PaymentPagePaths>({ baseUrl, headers });
  const session = await sessions.POST("/pps/api/v1/session", {
    params: { header: { "Idempotency-Key": "3b241101-e2bb-4255-8caf-4136c566a962" } },
    body: sessionRequest("order-100045"),
  });
  if (session.error !== undefined) {
    // Optional fields may be null as well as absent (null is absence).
    const category: PaymentPage["schemas"]["DeclineCategory"] | null | undefined =
      session.error.decline?.category;
    return `declined: ${category ?? "unknown"}`;
  }
  const records = await sessions.GET("/pps/api/v1/session-record", {
    params: { query: { createdDate: "2024-05-17" } },
  });
  const statuses = (records.data ?? []).map((record) => describe(record.session_status));

  const payLater = createClient<PayLaterPaths>({ baseUrl: apiUrl, headers });
  const booking: BookingRequest = { offer_id: "payl-2" };
  const booked = await payLater.POST("/order/paylater/v1/{transaction_id}", {
    params: { path: { transaction_id: "12-34567890123456789" } },
    body: booking,
  });
  // Any 2xx is success; the booking body may be absent (null).
  const fee: number | null | undefined = booked.data?.fee;
  return `${session.data.landing_page ?? ""} ${statuses.join(",")} fee ${fee ?? 0}`;
}

// Each of these must fail to type-check.
export const rejected = [
  // @ts-expect-error grant_type is a closed enumeration
  { client_id: "id", client_secret: "secret", grant_type: "password" } satisfies TokenRequest,
  // @ts-expect-error offer_id is required
  {} satisfies BookingRequest,
  // @ts-expect-error amounts are numbers, not strings
  { partner_shop_id: "shop-1", gross_amount: "10.00" } satisfies PaymentPage["schemas"]["ShopBasket"],
  // @ts-expect-error unknown fields are not part of a request type
  { offer_id: "payl-2", offer: "payl-2" } satisfies BookingRequest,
  // @ts-expect-error the session status union has no such value
  "PAID" satisfies SessionStatus,
];
