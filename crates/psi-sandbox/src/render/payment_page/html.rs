//! HTML building blocks: escaping, numbers, and the document around a page
//! (inline CSS only; no script, no external asset).

use super::text::Lang;
use crate::html::escape;
use psi_runtime::Decimal;

/// An amount with at least two decimals, from the decimal's own digits
/// (never through a float): 43.8 -> `43.80`, 0.125 -> `0.125`; German
/// writes a comma.
pub(super) fn money(amount: Decimal, lang: Lang) -> String {
    let mut amount = *amount;
    if amount.scale() < 2 {
        amount.rescale(2);
    }
    localise(amount.to_string(), lang)
}

/// A quantity or rate as given, without trailing zeros: 2.0 -> `2`.
pub(super) fn number(value: Decimal, lang: Lang) -> String {
    localise(value.normalize().to_string(), lang)
}

fn localise(text: String, lang: Lang) -> String {
    text.replace('.', &lang.decimal_separator().to_string())
}

/// `template` with `{name}` replaced by `value` (already escaped).
pub(super) fn fill(template: &str, name: &str, value: &str) -> String {
    template.replace(&format!("{{{name}}}"), value)
}

/// A link to a shop's address when it is http(s); other schemes are shown
/// as text, never as a link.
pub(super) fn link(url: &str, label: &str) -> String {
    if url.starts_with("https://") || url.starts_with("http://") {
        format!("<a href=\"{}\">{}</a>", escape(url), escape(label))
    } else {
        escape(label)
    }
}

/// The whole document around `body` (already HTML).
pub(super) fn document(lang: Lang, title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"{code}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"icon\" href=\"{FAVICON}\">\n\
         <style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        code = lang.code(),
        title = escape(title),
    )
}

/// The page's icon, inline (a browser asks for `/favicon.ico` otherwise
/// and logs the 404): a rounded square in the header's colour.
const FAVICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%231d2330'/%3E%3C/svg%3E";

/// Text colours meet WCAG 2.1 AA (4.5:1) on every light background of the
/// page (tested below).
const STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d2330;background:#eef1f5}
header.top{display:flex;align-items:center;gap:14px;padding:16px 32px;background:#1d2330;color:#fff}
header.top h1{margin:0;font-size:20px;font-weight:600}
header.top .ref{margin-left:auto;opacity:.8;font-size:14px}
.badge{background:#f5a524;color:#1d2330;font-weight:700;font-size:12px;letter-spacing:.08em;text-transform:uppercase;padding:3px 8px;border-radius:4px}
main{display:grid;grid-template-columns:minmax(0,1.6fr) minmax(0,1fr);gap:20px;max-width:1180px;margin:24px auto;padding:0 24px}
.column{display:flex;flex-direction:column;gap:20px}
.card{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(20,30,50,.12);padding:20px 22px}
.card h2{margin:0 0 12px;font-size:16px}
.card h3{margin:14px 0 6px;font-size:14px;color:#4a5366}
table{width:100%;border-collapse:collapse;font-size:14px}
th{text-align:left;font-weight:600;color:#4a5366;border-bottom:1px solid #d9dee7;padding:6px 4px}
td{padding:7px 4px;border-bottom:1px solid #eef1f5;vertical-align:top}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.muted{color:#5f6778;font-size:13px}
.special td{color:#4a5366}
.totals td{border:none;padding:3px 4px}
.totals .grand td{font-weight:700;font-size:16px;border-top:2px solid #1d2330;padding-top:8px}
.due{display:flex;justify-content:space-between;align-items:baseline;margin-top:14px;padding-top:12px;border-top:1px solid #d9dee7;font-size:18px;font-weight:700}
address{font-style:normal}
.methods{display:flex;flex-direction:column;gap:8px}
label.method{display:grid;grid-template-columns:auto 1fr;column-gap:10px;padding:10px 12px;border:1px solid #d9dee7;border-radius:8px;cursor:pointer}
label.method:has(input:checked){border-color:#2456d6;background:#f3f6fe}
label.method small{grid-column:2;color:#5f6778}
fieldset{border:1px solid #d9dee7;border-radius:8px;margin:10px 0 0;padding:10px 12px}
legend{font-weight:600;font-size:14px;padding:0 4px}
.field{display:flex;flex-direction:column;gap:3px;margin:6px 0}
.field label{font-size:13px;font-weight:600;color:#4a5366}
input[type=text],select{font:inherit;padding:7px 9px;border:1px solid #b9c1cf;border-radius:6px}
input[aria-invalid=true]{border-color:#c62828;background:#fff5f5}
.error{color:#c62828;font-size:13px;margin:2px 0 0}
.note{background:#fff8e6;border-left:3px solid #f5a524;padding:8px 10px;font-size:13px}
.sandbox{border:2px dashed #f5a524;background:#fffcf5}
.sandbox h2{color:#8a5a00}
.outcomes{display:flex;flex-direction:column;gap:10px;margin-top:10px}
.outcome{display:grid;grid-template-columns:1fr;gap:4px;padding:10px 0;border-top:1px solid #f1e3c4}
.outcome .then{font-size:12px;color:#5f6778}
.outcome .url{overflow-wrap:anywhere}
.outcome .then code{font-size:12px}
button{font:inherit;font-weight:600;padding:9px 14px;border-radius:6px;border:1px solid #b9c1cf;background:#fff;color:#1d2330;cursor:pointer;text-align:left}
button.primary{background:#2456d6;border-color:#2456d6;color:#fff;font-size:16px;text-align:center}
button.danger{border-color:#c62828;color:#c62828}
.inline{display:flex;gap:8px;align-items:end;flex-wrap:wrap}
.inline .field{flex:1;margin:0}
.message{max-width:640px;margin:60px auto}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
@media (max-width:800px){main{grid-template-columns:1fr}}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    /// WCAG 2.1 relative luminance of `#rrggbb` or `#rgb`.
    fn luminance(hex: &str) -> f64 {
        let hex: String = if hex.len() == 3 {
            hex.chars().flat_map(|c| [c, c]).collect()
        } else {
            hex.to_owned()
        };
        let channel = |at: usize| {
            let value = f64::from(u8::from_str_radix(&hex[at..at + 2], 16).unwrap()) / 255.0;
            if value <= 0.039_28 {
                value / 12.92
            } else {
                ((value + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
    }

    /// Every `{property}:#hex` of the style sheet.
    fn colours(property: &str) -> Vec<String> {
        let marker = format!("{property}:#");
        STYLE
            .match_indices(&marker)
            .map(|(at, _)| {
                STYLE[at + marker.len()..]
                    .chars()
                    .take_while(char::is_ascii_hexdigit)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_dark_text_colour_meets_aa_contrast_on_every_light_background() {
        let light: Vec<String> = colours("background")
            .into_iter()
            .filter(|background| luminance(background) > 0.5)
            .collect();
        assert!(light.len() >= 4, "{light:?}");
        for text in colours("color").iter().filter(|c| luminance(c) < 0.5) {
            for background in &light {
                let (a, b) = (luminance(text), luminance(background));
                let ratio = (a.max(b) + 0.05) / (a.min(b) + 0.05);
                assert!(ratio >= 4.5, "#{text} on #{background}: {ratio:.2}:1");
            }
        }
        // The known answer: black on white is 21:1.
        assert!((luminance("fff") - 1.0).abs() < 1e-9 && luminance("000") == 0.0);
    }

    #[test]
    fn the_page_carries_its_icon() {
        let page = document(Lang::En, "t", "");
        assert!(
            page.contains("<link rel=\"icon\" href=\"data:image/svg+xml,"),
            "{page}"
        );
    }

    #[test]
    fn everything_that_could_open_markup_is_escaped() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
    }

    #[test]
    fn amounts_keep_their_digits_and_get_two_decimals_at_least() {
        assert_eq!(money(decimal("43.8"), Lang::En), "43.80");
        assert_eq!(money(decimal("10"), Lang::En), "10.00");
        assert_eq!(money(decimal("-1.55"), Lang::De), "-1,55");
        assert_eq!(money(decimal("0.125"), Lang::En), "0.125", "never rounded");
        assert_eq!(
            money(decimal("12345678901234567.89"), Lang::En),
            "12345678901234567.89",
            "no float on the way"
        );
        assert_eq!(number(decimal("2.0"), Lang::En), "2");
        assert_eq!(number(decimal("7.5"), Lang::De), "7,5");
    }

    #[test]
    fn only_http_addresses_become_links() {
        assert_eq!(
            link("https://shop.example/ok?a=1&b=2", "Back"),
            "<a href=\"https://shop.example/ok?a=1&amp;b=2\">Back</a>"
        );
        assert_eq!(link("javascript:alert(1)", "Back"), "Back");
    }
}
