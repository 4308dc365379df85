"""The Python client against a running sandbox: token, session, completion
through the control API, signed webhooks, transaction status with exact
decimals, pay later and the invoice PDF. Every answer is parsed with the
models generated from schemas/ (generate_models.sh), the control API's too."""

from __future__ import annotations

import re
import secrets
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal

import httpx
import pytest

import order
from exact_json import dumps, loads
from models.order_status import InvoiceNotification
from models.pay_later import (
    PayLaterBookingRequest,
    PayLaterBookingResponse,
    PayLaterOfferAvailability,
    PayLaterOffersResponse,
    PayLaterStatus,
    PayLaterStatusResponse,
)
from models.payment_page import SessionRecord, SessionResponse, SessionStatus
from models.sandbox_control import CompleteSessionRequest
from models.transaction_status import TransactionStatusResponse
from sandbox import Sandbox, bearer
from webhooks import InvalidSignature, Receiver, verify_invoice_signature, verify_signature

JSON = {"Content-Type": "application/json"}
# The pay later document declares its bodies with the charset.
JSON_UTF8 = {"Content-Type": "application/json;charset=UTF-8"}
# The invoice subscription's own secret: the provider requires 64 characters
# or more. Its notifications are signed with it, not the sandbox's webhook
# secret (the session notifications' key).
INVOICE_SECRET = f"py-invoice-subscription-{secrets.token_hex(32)}"
assert len(INVOICE_SECRET) >= 64


@dataclass(frozen=True)
class Paid:
    """A session the buyer completed, as the merchant knows it."""

    session_id: str
    transaction_id: str
    order_id: str
    page_token: str


def parse(model, response: httpx.Response):
    """The answer's body as ``model``, numbers with a fraction read as Decimal."""
    assert response.status_code < 300, f"{response.request.method} {response.request.url}: {response.status_code} {response.text}"
    return model.model_validate(loads(response.content))


@pytest.fixture(scope="module")
def paid(http: httpx.Client, sandbox: Sandbox, receiver: Receiver) -> Paid:
    # Invoice notifications go to every subscription, each signed with the
    # subscription's secret; these two are ours: one with its own secret, one
    # without (signed with the sandbox's webhook secret).
    status, subscription = sandbox.subscribe_invoice_webhook(http, receiver.url("/invoice"), INVOICE_SECRET)
    assert status == 201 and subscription.url == receiver.url("/invoice")
    status, subscription = sandbox.subscribe_invoice_webhook(http, receiver.url("/invoice-default-secret"))
    assert status == 201 and subscription.url == receiver.url("/invoice-default-secret")

    order_id = f"py-{uuid.uuid4().hex[:12]}"
    page_token = sandbox.token(http, "payment-page")
    request = order.session_request(order_id, receiver.url("/session"))
    created = http.post(
        f"{sandbox.base_url}/pps/api/v1/session",
        content=dumps(request),
        headers={**JSON, **bearer(page_token), "Idempotency-Key": str(uuid.uuid4())},
    )
    session = parse(SessionResponse, created)
    assert session.session_id and session.landing_page

    # The buyer opens the landing page ...
    page = http.get(str(session.landing_page))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")

    # ... and pays by invoice (the control API stands in for the buyer's click).
    choice = CompleteSessionRequest(payment_option="OPEN_INVOICE", transfer_type="BANK_TRANSFER")
    completed = sandbox.complete_session(http, session.session_id, choice)
    assert str(completed.session_id) == str(session.session_id)
    return Paid(session.session_id, completed.transaction_id.root, order_id, page_token)


def test_the_session_record_is_completed_with_the_transaction(http, sandbox, paid):
    response = http.get(f"{sandbox.base_url}/pps/api/v1/session-record/{paid.session_id}", headers=bearer(paid.page_token))
    record = parse(SessionRecord, response)
    assert record.session_status == SessionStatus.COMPLETED
    assert record.transaction_id == paid.transaction_id
    assert record.partner_transaction_id == paid.order_id


def test_the_session_webhook_is_signed_and_a_tampered_body_is_refused(sandbox, receiver, paid):
    webhook = receiver.take(lambda r: r.path == "/session" and loads(r.body).get("session_id") == paid.session_id)
    now = int(time.time())
    verify_signature(webhook.signature, webhook.body, sandbox.webhook_secret, now)
    record = SessionRecord.model_validate(loads(webhook.body))
    assert record.session_status == SessionStatus.COMPLETED
    assert record.transaction_id == paid.transaction_id

    tampered = webhook.body.replace(b"COMPLETED", b"CANCELED")
    assert tampered != webhook.body
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_signature(webhook.signature, tampered, sandbox.webhook_secret, now)
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_signature(webhook.signature, webhook.body, b"another secret", now)
    # The same request replayed ten minutes later is refused.
    signed_at = int(webhook.signature.split(",")[0].removeprefix("t="))
    with pytest.raises(InvalidSignature, match="from now"):
        verify_signature(webhook.signature, webhook.body, sandbox.webhook_secret, signed_at + 600)
    with pytest.raises(InvalidSignature, match="missing"):
        verify_signature(None, webhook.body, sandbox.webhook_secret, now)


def test_the_transaction_status_carries_the_exact_amounts(http, sandbox, paid):
    token = sandbox.token(http, "transaction-status")
    response = http.get(f"{sandbox.api_url}/transaction/status/v2/transactions/{paid.transaction_id}", headers=bearer(token))
    status = parse(TransactionStatusResponse, response)
    assert status.gateway_transaction_id == paid.transaction_id
    [basket] = status.shop_baskets
    assert isinstance(basket.gross_amount, Decimal)
    assert basket.gross_amount == order.GROSS_AMOUNT
    lines = [item.gross_total_price for item in basket.items] + [item.gross_total_price for item in basket.special_items]
    assert lines == [Decimal("10.10"), Decimal("20.20"), Decimal("4.90")]
    # Exact to the cent; the same sum in floats misses it.
    assert sum(lines, Decimal(0)) == basket.gross_amount
    assert sum(float(line) for line in lines) != float(basket.gross_amount)


def test_pay_later_offers_are_listed_and_one_is_booked(http, sandbox, paid):
    token = sandbox.token(http, "pay-later")
    base = f"{sandbox.api_url}/order/paylater/v1/{paid.transaction_id}"
    status = parse(PayLaterStatusResponse, http.get(f"{base}/status", headers=bearer(token)))
    assert status.pay_later_status == PayLaterStatus.AVAILABLE

    offers = parse(PayLaterOffersResponse, http.get(f"{base}/offers", headers=bearer(token)))
    assert offers.pay_Later_offers, "an open invoice has offers"
    available = [offer for offer in offers.pay_Later_offers if offer.available == PayLaterOfferAvailability.AVAILABLE]
    assert available, "an unbooked open invoice has available offers"
    offer = available[0]
    assert isinstance(offer.price, Decimal) and offer.price > 0

    booked = http.post(base, content=dumps(PayLaterBookingRequest(offer_id=offer.offer_id)), headers={**JSON_UTF8, **bearer(token)})
    booking = parse(PayLaterBookingResponse, booked)
    assert booking.new_due_date == offer.new_due_date
    assert booking.fee == offer.price
    after = parse(PayLaterStatusResponse, http.get(f"{base}/status", headers=bearer(token)))
    assert after.pay_later_status == PayLaterStatus.ALREADY_BOOKED


def invoice_webhook(receiver: Receiver, path: str, paid: Paid):
    """The invoice notification of ``paid``'s transaction that came to ``path``."""
    return receiver.take(lambda r: r.path == path and loads(r.body).get("gateway_transaction_id") == paid.transaction_id)


def test_the_invoice_notification_is_signed_and_leads_to_the_pdf(http, sandbox, receiver, paid):
    webhook = invoice_webhook(receiver, "/invoice", paid)
    # Verified before it is used: HMAC-SHA512 over the raw body, keyed with
    # the subscription's secret, in lowercase hex; no timestamp.
    verify_invoice_signature(webhook.signature, webhook.body, INVOICE_SECRET.encode())
    assert re.fullmatch(r"[0-9a-f]{128}", webhook.signature), webhook.signature
    notification = InvoiceNotification.model_validate(loads(webhook.body))
    assert notification.gateway_transaction_id == paid.transaction_id
    assert notification.id is not None and notification.id == int(notification.id), "an event number"
    assert notification.invoice_id, "the notification names the invoice (the correspondence)"
    assert notification.pdf_url is not None

    tampered = webhook.body.replace(notification.invoice_id.encode(), b"DG0000000000-999")
    assert tampered != webhook.body
    with pytest.raises(InvalidSignature, match="does not match") as refusal:
        verify_invoice_signature(webhook.signature, tampered, INVOICE_SECRET.encode())
    assert refusal.value.kind == "mismatch"
    # Not signed with the sandbox's webhook secret, nor in the session scheme.
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_invoice_signature(webhook.signature, webhook.body, sandbox.webhook_secret)
    with pytest.raises(InvalidSignature) as refusal:
        verify_signature(webhook.signature, webhook.body, INVOICE_SECRET.encode(), int(time.time()))
    assert refusal.value.kind == "malformed"
    with pytest.raises(InvalidSignature, match="missing"):
        verify_invoice_signature(None, webhook.body, INVOICE_SECRET.encode())

    # The correspondence retrieval takes the order status token.
    token = sandbox.token(http, "order-status")
    pdf = http.get(str(notification.pdf_url), headers={**bearer(token), "Accept": "application/pdf"})
    assert pdf.status_code == 200, pdf.text
    assert pdf.headers["content-type"].startswith("application/pdf")
    assert pdf.content.startswith(b"%PDF-")


def test_an_invoice_subscription_without_a_secret_is_signed_with_the_webhook_secret(sandbox, receiver, paid):
    webhook = invoice_webhook(receiver, "/invoice-default-secret", paid)
    verify_invoice_signature(webhook.signature, webhook.body, sandbox.webhook_secret)
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_invoice_signature(webhook.signature, webhook.body, INVOICE_SECRET.encode())
    notification = InvoiceNotification.model_validate(loads(webhook.body))
    assert notification.gateway_transaction_id == paid.transaction_id
