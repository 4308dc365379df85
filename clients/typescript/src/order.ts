// The order the end-to-end test pays: a realistic basket whose amounts binary
// floats cannot add up (10.10 + 20.20 + 4.90 is 35.199999999999996 in
// floats). Typed as the generated `SessionRequest` with exact numbers, so a
// field the document does not know, or a wrong type, fails in tsc.
import type { components } from "../generated/payment-page.js";
import { dec, type Exact } from "./exact-json.js";

export type SessionRequest = components["schemas"]["SessionRequest"];

export const GROSS_AMOUNT = dec("35.20");

const address = {
  street: "Hauptstraße",
  street_number: "1",
  zip_code: "10115",
  city: "Berlin",
  country_code: "DE",
};

/**
 * Socks (2 x 5.05), a cap (20.20) and shipping (4.90), VAT 19 %: gross
 * 35.20 EUR, net 29.58, tax 5.62; every amount written with two places.
 */
export function sessionRequest(orderId: string, webhookUrl: string): Exact<SessionRequest> {
  return {
    order_data: {
      partner_transaction_id: orderId,
      currency: "EUR",
      buyer: {
        billing_address: address,
        contact: { email: "erika.mustermann@example.com" },
        language: "de",
        person: { first_name: "Erika", last_name: "Mustermann", date_of_birth: "1980-01-31" },
      },
      delivery: { first_name: "Erika", last_name: "Mustermann", address },
      shop_baskets: [
        {
          partner_shop_id: "shop-1",
          shop_transaction_id: `SO-${orderId}`,
          gross_amount: GROSS_AMOUNT,
          items: [
            {
              article_number: "SOCK-2", name: "Wool socks", quantity: dec("2"), tax_rate: dec("19"),
              gross_unit_price: dec("5.05"), gross_total_price: dec("10.10"),
              net_unit_price: dec("4.24"), net_total_price: dec("8.49"),
            },
            {
              article_number: "CAP-7", name: "Cap", quantity: dec("1"), tax_rate: dec("19"),
              gross_unit_price: dec("20.20"), gross_total_price: dec("20.20"),
              net_unit_price: dec("16.97"), net_total_price: dec("16.97"),
            },
          ],
          special_items: [
            {
              category: "shipping", name: "Shipping", quantity: dec("1"), tax_rate: dec("19"),
              gross_unit_price: dec("4.90"), gross_total_price: dec("4.90"),
              net_unit_price: dec("4.12"), net_total_price: dec("4.12"),
            },
          ],
          vats: [{ tax_rate: dec("19"), net_amount: dec("29.58"), tax_amount: dec("5.62") }],
        },
      ],
    },
    url_data: {
      success_url: "https://shop.example.com/checkout/success",
      failure_url: "https://shop.example.com/checkout/failure",
      cancel_url: "https://shop.example.com/checkout/cancel",
      webhook_url: webhookUrl,
    },
  };
}
