"""The order the end-to-end test pays: a realistic basket whose amounts a
binary float cannot add up (10.10 + 20.20 + 4.90 is 35.199999999999996 in
floats), built with the generated models so a field the document does not
know, or a wrong type, fails here and not at the sandbox."""

from __future__ import annotations

from decimal import Decimal

from models.payment_page import SessionRequest

GROSS_AMOUNT = Decimal("35.20")


def _address() -> dict:
    return {"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"}


def session_request(order_id: str, webhook_url: str) -> SessionRequest:
    """Socks (2 x 5.05), a cap (20.20) and shipping (4.90), VAT 19 %: gross
    35.20 EUR, net 29.58, tax 5.62. Amounts are Decimal, written with two places."""
    d = Decimal
    return SessionRequest.model_validate(
        {
            "order_data": {
                "partner_transaction_id": order_id,
                "currency": "EUR",
                "buyer": {
                    "billing_address": _address(),
                    "contact": {"email": "erika.mustermann@example.com"},
                    "language": "de",
                    "person": {"first_name": "Erika", "last_name": "Mustermann", "date_of_birth": "1980-01-31"},
                },
                "delivery": {"first_name": "Erika", "last_name": "Mustermann", "address": _address()},
                "shop_baskets": [
                    {
                        "partner_shop_id": "shop-1",
                        "shop_transaction_id": f"SO-{order_id}",
                        "gross_amount": GROSS_AMOUNT,
                        "items": [
                            {"article_number": "SOCK-2", "name": "Wool socks", "quantity": d("2"), "tax_rate": d("19"),
                             "gross_unit_price": d("5.05"), "gross_total_price": d("10.10"),
                             "net_unit_price": d("4.24"), "net_total_price": d("8.49")},
                            {"article_number": "CAP-7", "name": "Cap", "quantity": d("1"), "tax_rate": d("19"),
                             "gross_unit_price": d("20.20"), "gross_total_price": d("20.20"),
                             "net_unit_price": d("16.97"), "net_total_price": d("16.97")},
                        ],
                        "special_items": [
                            {"category": "shipping", "name": "Shipping", "quantity": d("1"), "tax_rate": d("19"),
                             "gross_unit_price": d("4.90"), "gross_total_price": d("4.90"),
                             "net_unit_price": d("4.12"), "net_total_price": d("4.12")},
                        ],
                        "vats": [{"tax_rate": d("19"), "net_amount": d("29.58"), "tax_amount": d("5.62")}],
                    }
                ],
            },
            "url_data": {
                "success_url": "https://shop.example.com/checkout/success",
                "failure_url": "https://shop.example.com/checkout/failure",
                "cancel_url": "https://shop.example.com/checkout/cancel",
                "webhook_url": webhook_url,
            },
        }
    )
