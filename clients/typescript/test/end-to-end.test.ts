// The TypeScript client against a running sandbox ($PSI_SANDBOX_URL, default
// http://127.0.0.1:8787; its control token, if it has one, in
// $PSI_SANDBOX_CONTROL_TOKEN; the webhook receiver on every interface, named
// $PSI_WEBHOOK_RECEIVER_HOST, when the sandbox reaches this machine by that
// name, as from a container): token, session, completion through the control
// API, signed webhooks, transaction status with exact decimals, pay later and
// the invoice PDF. Every call goes through openapi-fetch clients typed by the
// `paths` generated from schemas/ (npm run generate), the control API's too.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { components as OrderStatus, paths as OrderStatusPaths } from "../generated/order-status.js";
import type { components as PayLater, paths as PayLaterPaths } from "../generated/pay-later.js";
import type { components as PaymentPage, paths as PaymentPagePaths } from "../generated/payment-page.js";
import type { components as TransactionStatus, paths as TransactionStatusPaths } from "../generated/transaction-status.js";
import { decimalEquals, decimalSum } from "../src/decimal.js";
import { dec, parseExact, wire } from "../src/exact-json.js";
import { GROSS_AMOUNT, sessionRequest, type SessionRequest } from "../src/order.js";
import { apiClient, completeSession, discover, subscribeInvoiceWebhook, token, type Sandbox } from "../src/sandbox.js";
import { InvalidSignature, Receiver, verifyInvoiceSignature, verifySignature, type Received } from "../src/webhooks.js";

type SessionRecord = PaymentPage["schemas"]["SessionRecord"];
type InvoiceNotification = OrderStatus["schemas"]["InvoiceNotification"];
/** The pay later document declares its bodies with the charset. */
const JSON_UTF8 = { "Content-Type": "application/json;charset=UTF-8" };
/**
 * The invoice subscription's own secret: the provider requires 64 characters
 * or more. Its notifications are signed with it, not the sandbox's webhook
 * secret (the session notifications' key).
 */
const INVOICE_SECRET = `ts-invoice-subscription-${randomBytes(32).toString("hex")}`;

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const bodyOf = (request: Received): Record<string, unknown> => JSON.parse(request.body.toString("utf8"));

/** Fails with the status and body of an answer that is not 2xx. */
function expectOk(what: string, response: Response, error: unknown): void {
  assert.ok(response.ok, `${what}: ${response.status} ${JSON.stringify(error)}`);
}

describe("the TypeScript client against the sandbox", () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  let pageToken: string;
  let sessionId: string;
  let transactionId: string;
  const orderId = `ts-${randomUUID().slice(0, 12)}`;

  before(async () => {
    sandbox = await discover(process.env.PSI_SANDBOX_URL ?? "http://127.0.0.1:8787", process.env.PSI_SANDBOX_CONTROL_TOKEN || undefined);
    receiver = await Receiver.start(process.env.PSI_WEBHOOK_RECEIVER_HOST || undefined);
    // Invoice notifications go to every subscription, each signed with the
    // subscription's secret; these two are ours: one with its own secret, one
    // without (signed with the sandbox's webhook secret).
    assert.ok(INVOICE_SECRET.length >= 64);
    for (const [path, secret] of [["/invoice", INVOICE_SECRET], ["/invoice-default-secret", undefined]] as const) {
      const { status, subscription } = await subscribeInvoiceWebhook(sandbox, receiver.url(path), secret);
      assert.equal(status, 201);
      assert.equal(subscription.url, receiver.url(path));
    }

    pageToken = await token(sandbox, "payment-page");
    const pages = apiClient<PaymentPagePaths>(sandbox.baseUrl, pageToken);
    const created = await pages.POST("/pps/api/v1/session", {
      params: { header: { "Idempotency-Key": randomUUID() } },
      body: wire<SessionRequest>(sessionRequest(orderId, receiver.url("/session"))),
    });
    expectOk("createSession", created.response, created.error);
    assert.ok(created.data?.session_id && created.data.landing_page);
    sessionId = created.data.session_id;

    // The buyer opens the landing page ...
    const page = await fetch(created.data.landing_page);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);

    // ... and pays by invoice (the control API stands in for the buyer's click).
    const completed = await completeSession(sandbox, sessionId, {
      payment_option: "OPEN_INVOICE",
      transfer_type: "BANK_TRANSFER",
    });
    assert.equal(completed.session_id, sessionId);
    transactionId = completed.transaction_id;
  });

  after(async () => {
    await receiver?.close();
  });

  test("the session record is COMPLETED with the transaction", async () => {
    const pages = apiClient<PaymentPagePaths>(sandbox.baseUrl, pageToken);
    const { data, error, response } = await pages.GET("/pps/api/v1/session-record/{session_id}", {
      params: { path: { session_id: sessionId } },
    });
    expectOk("getSessionRecord", response, error);
    assert.equal(data?.session_status, "COMPLETED");
    assert.equal(data?.transaction_id, transactionId);
    assert.equal(data?.partner_transaction_id, orderId);
  });

  test("the session webhook is signed, and a tampered body is refused", async () => {
    const webhook = await receiver.take((r) => r.path === "/session" && bodyOf(r).session_id === sessionId);
    const secret = sandbox.webhookSecret;
    verifySignature(webhook.signature, webhook.body, secret, nowSeconds());
    const record = bodyOf(webhook) as SessionRecord;
    assert.equal(record.session_status, "COMPLETED");
    assert.equal(record.transaction_id, transactionId);

    const tampered = Buffer.from(webhook.body.toString("utf8").replace("COMPLETED", "CANCELED"));
    assert.notDeepEqual(tampered, webhook.body);
    assert.throws(() => verifySignature(webhook.signature, tampered, secret, nowSeconds()), InvalidSignature);
    assert.throws(() => verifySignature(webhook.signature, webhook.body, "another secret", nowSeconds()), /does not match/);
    // The same request replayed ten minutes later is refused.
    const signedAt = Number(/^t=(\d+),/.exec(webhook.signature ?? "")?.[1]);
    assert.throws(() => verifySignature(webhook.signature, webhook.body, secret, signedAt + 600), /from now/);
    assert.throws(() => verifySignature(undefined, webhook.body, secret, nowSeconds()), /missing/);
  });

  test("the transaction status carries the basket's amounts exactly", async () => {
    const status = apiClient<TransactionStatusPaths>(sandbox.apiUrl, await token(sandbox, "transaction-status"));
    const { data: text, error, response } = await status.GET("/transaction/status/v2/transactions/{transaction-id}", {
      params: { path: { "transaction-id": transactionId } },
      parseAs: "text",
    });
    expectOk("getTransactionStatus", response, error);
    const answer = parseExact<TransactionStatus["schemas"]["TransactionStatusResponse"]>(text ?? "");
    assert.equal(answer.gateway_transaction_id, transactionId);
    const [basket] = answer.shop_baskets ?? [];
    assert.ok(basket?.gross_amount, "the basket has its gross amount");
    assert.ok(decimalEquals(basket.gross_amount, GROSS_AMOUNT), `${basket.gross_amount.value} != ${GROSS_AMOUNT.value}`);
    const lines = [...(basket.items ?? []), ...(basket.special_items ?? [])].map((line) => {
      assert.ok(line.gross_total_price, "every line has its total");
      return line.gross_total_price;
    });
    assert.deepEqual(lines.map((line) => line.value), ["10.10", "20.20", "4.90"]);
    // Exact to the cent; the same sum in floats misses it.
    assert.ok(decimalEquals(decimalSum(lines), basket.gross_amount));
    assert.notEqual(lines.reduce((sum, line) => sum + Number(line.value), 0), Number(basket.gross_amount.value));
  });

  test("pay later: the status, the offers, and a booking of an AVAILABLE offer", async () => {
    const payLater = apiClient<PayLaterPaths>(sandbox.apiUrl, await token(sandbox, "pay-later"));
    const path = { transaction_id: transactionId };
    const before = await payLater.GET("/order/paylater/v1/{transaction_id}/status", { params: { path } });
    expectOk("getPayLaterStatus", before.response, before.error);
    assert.equal(before.data?.pay_later_status, "AVAILABLE");

    const listed = await payLater.GET("/order/paylater/v1/{transaction_id}/offers", { params: { path }, parseAs: "text" });
    expectOk("getPayLaterOffers", listed.response, listed.error);
    const offers = parseExact<PayLater["schemas"]["PayLaterOffersResponse"]>(listed.data ?? "").pay_Later_offers ?? [];
    assert.ok(offers.length > 0, "an open invoice has offers");
    const offer = offers.find((candidate) => candidate.available === "AVAILABLE");
    assert.ok(offer?.offer_id && offer.price, "an unbooked open invoice has an available offer with a price");
    assert.ok(Number(offer.price.value) > 0);

    const booked = await payLater.POST("/order/paylater/v1/{transaction_id}", {
      params: { path },
      headers: JSON_UTF8,
      body: { offer_id: offer.offer_id },
      parseAs: "text",
    });
    expectOk("bookPayLaterOffer", booked.response, booked.error);
    const booking = parseExact<PayLater["schemas"]["PayLaterBookingResponse"]>(booked.data ?? "");
    assert.equal(booking.new_due_date, offer.new_due_date);
    assert.ok(booking.fee && decimalEquals(booking.fee, offer.price), "the fee is the offer's price");

    const afterBooking = await payLater.GET("/order/paylater/v1/{transaction_id}/status", { params: { path } });
    assert.equal(afterBooking.data?.pay_later_status, "ALREADY_BOOKED");
  });

  /** The invoice notification of this transaction that came to `path`. */
  const invoiceWebhook = (path: string): Promise<Received> =>
    receiver.take((r) => r.path === path && bodyOf(r).gateway_transaction_id === transactionId);

  test("the invoice notification is signed and leads to the invoice PDF", async () => {
    const webhook = await invoiceWebhook("/invoice");
    // Verified before it is used: HMAC-SHA512 over the raw body, keyed with
    // the subscription's secret, in lowercase hex; no timestamp.
    verifyInvoiceSignature(webhook.signature, webhook.body, INVOICE_SECRET);
    assert.match(webhook.signature ?? "", /^[0-9a-f]{128}$/);
    const notification = bodyOf(webhook) as InvoiceNotification;
    assert.equal(notification.gateway_transaction_id, transactionId);
    assert.ok(Number.isInteger(notification.id), "the notification has its event id");
    assert.ok(notification.invoice_id, "the notification names the invoice (the correspondence)");

    const tampered = Buffer.from(webhook.body.toString("utf8").replaceAll(notification.invoice_id, "DG0000000000-999"));
    assert.notDeepEqual(tampered, webhook.body);
    assert.throws(() => verifyInvoiceSignature(webhook.signature, tampered, INVOICE_SECRET), /does not match/);
    // Not signed with the sandbox's webhook secret, nor in the session scheme.
    assert.throws(() => verifyInvoiceSignature(webhook.signature, webhook.body, sandbox.webhookSecret), /does not match/);
    assert.throws(
      () => verifySignature(webhook.signature, webhook.body, INVOICE_SECRET, nowSeconds()),
      (error: unknown) => error instanceof InvalidSignature && error.kind === "malformed",
    );
    assert.throws(() => verifyInvoiceSignature(undefined, webhook.body, INVOICE_SECRET), /missing/);

    // The correspondence retrieval takes the order status token.
    const orders = apiClient<OrderStatusPaths>(sandbox.apiUrl, await token(sandbox, "order-status"));
    const { data, error, response } = await orders.GET(
      "/api/order/{transaction_id}/correspondences/invoices/{correspondence_id}/{format}",
      {
        params: { path: { transaction_id: transactionId, correspondence_id: notification.invoice_id, format: "pdf" } },
        parseAs: "arrayBuffer",
      },
    );
    expectOk("getInvoiceCorrespondence", response, error);
    assert.match(response.headers.get("content-type") ?? "", /^application\/pdf/);
    assert.equal(notification.pdf_url, response.url, "the notification's pdf_url is the address called");
    assert.equal(Buffer.from(data ?? new ArrayBuffer(0)).subarray(0, 5).toString("latin1"), "%PDF-");
  });

  test("an invoice subscription without a secret is signed with the webhook secret", async () => {
    const webhook = await invoiceWebhook("/invoice-default-secret");
    verifyInvoiceSignature(webhook.signature, webhook.body, sandbox.webhookSecret);
    assert.throws(() => verifyInvoiceSignature(webhook.signature, webhook.body, INVOICE_SECRET), /does not match/);
    assert.equal((bodyOf(webhook) as InvoiceNotification).gateway_transaction_id, transactionId);
  });
});

test("exact decimals: a sum at two places, equality across scales", () => {
  assert.equal(decimalSum([dec("10.10"), dec("20.20"), dec("4.90")]).value, "35.20");
  assert.equal(decimalSum([dec("-0.05"), dec("0.02")]).value, "-0.03");
  assert.ok(decimalEquals(dec("43.8"), dec("43.80")));
  assert.ok(!decimalEquals(dec("43.81"), dec("43.80")));
  assert.equal(parseExact<{ a: number }>('{"a": 0.10000000000000000001}').a.value, "0.10000000000000000001");
});
