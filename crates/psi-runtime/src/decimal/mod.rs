//! [`Decimal`]: money, quantities and rates, exact on the wire.

mod exact;
mod serde_impl;

pub use exact::ParseDecimalError;
pub(crate) use serde_impl::REFUSED;

use std::fmt;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Deref, DerefMut, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign,
};
use std::str::FromStr;

/// Money, quantities and rates: an exact decimal, never a float.
///
/// A thin wrapper around [`rust_decimal::Decimal`] (96-bit mantissa, 0 to 28
/// digits after the point) whose serde form is the exact JSON number text:
///
/// - **Serialising to JSON** writes the number as the decimal spells it,
///   scale included: `43.80` is sent as `43.80`, `12345678901234567.89` as
///   written, never through `f64`. Other formats (YAML, query strings,
///   `insta`'s snapshots) receive it as a string (`"43.80"`), as
///   `rust_decimal` itself does.
/// - **Deserialising from JSON text** (`serde_json::from_str`, `from_slice`,
///   `from_reader`, a response body) reads the number's own text through
///   serde_json's `RawValue`. A number no decimal holds exactly (more than 28
///   significant digits, finer than 28 places, beyond
///   79228162514264337593543950335) is **refused**, naming the limit, never
///   rounded. A decimal sent as a JSON string (`"43.80"`) is read too.
///
/// This needs no global serde setting: serde_json's `arbitrary_precision`
/// (which changes how every number of an application is buffered and breaks
/// `untagged`, `flatten` and internally tagged enums holding numbers) is
/// *not* turned on by psi. The trade-off: where a number passes through
/// serde_json's `Value` or serde's buffering (a `serde_json::Value`, `json!`,
/// `to_value`/`from_value`, an `#[serde(untagged)]` enum such as
/// storefront's `LoadData`), serde_json holds it as an `f64`: the value is
/// kept for up to 15 significant digits, trailing zeros of the scale are not
/// (`43.80` reads as `43.8`, an equal decimal), and longer numbers may be
/// rounded by serde_json before this type sees them. The crate feature
/// `arbitrary-precision` (of `psi-runtime`, re-exported by `psi`) turns
/// serde_json's `arbitrary_precision` on for those paths too, at the price
/// described above for the whole application.
///
/// Arithmetic, comparison and hashing are the decimal's: `43.80 == 43.8`.
/// [`Deref`] and [`DerefMut`] give every method of [`rust_decimal::Decimal`]
/// (`scale()`, `is_sign_negative()`, `rescale()`, ...); [`From`]/[`Into`]
/// convert both ways.
///
/// ```
/// use psi_runtime::Decimal;
/// let price: Decimal = serde_json::from_str("43.80").unwrap();
/// assert_eq!(serde_json::to_string(&price).unwrap(), "43.80");
/// assert_eq!(price * Decimal::TWO, "87.60".parse().unwrap());
/// let error = serde_json::from_str::<Decimal>("1.23456789012345678901234567891").unwrap_err();
/// assert!(error.to_string().contains("refused rather than rounded"));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Decimal(rust_decimal::Decimal);

impl Decimal {
    /// 0.
    pub const ZERO: Decimal = Decimal(rust_decimal::Decimal::ZERO);
    /// 1.
    pub const ONE: Decimal = Decimal(rust_decimal::Decimal::ONE);
    /// 2.
    pub const TWO: Decimal = Decimal(rust_decimal::Decimal::TWO);
    /// 100.
    pub const ONE_HUNDRED: Decimal = Decimal(rust_decimal::Decimal::ONE_HUNDRED);
    /// The largest decimal, 79228162514264337593543950335.
    pub const MAX: Decimal = Decimal(rust_decimal::Decimal::MAX);
    /// The smallest decimal, -79228162514264337593543950335.
    pub const MIN: Decimal = Decimal(rust_decimal::Decimal::MIN);

    // The forwarding methods and operators are `#[inline]`, as the
    // rust_decimal ones they call: a caller's arithmetic is inlined, and
    // rust_decimal's is compiled only into the crates that use it, not into
    // every application's psi-runtime.

    /// `num` × 10^-`scale`: `Decimal::new(4380, 2)` is 43.80.
    ///
    /// # Panics
    /// When `scale` exceeds 28, as [`rust_decimal::Decimal::new`].
    #[inline]
    pub fn new(num: i64, scale: u32) -> Decimal {
        Decimal(rust_decimal::Decimal::new(num, scale))
    }

    /// From the parts of the 96-bit mantissa, as
    /// [`rust_decimal::Decimal::from_parts`] (usable in constants).
    pub const fn from_parts(lo: u32, mid: u32, hi: u32, negative: bool, scale: u32) -> Decimal {
        Decimal(rust_decimal::Decimal::from_parts(
            lo, mid, hi, negative, scale,
        ))
    }

    /// The wrapped `rust_decimal::Decimal`.
    pub const fn into_inner(self) -> rust_decimal::Decimal {
        self.0
    }

    /// `self + other`, or `None` on overflow.
    #[inline]
    pub fn checked_add(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_add(other.0).map(Decimal)
    }

    /// `self - other`, or `None` on overflow.
    #[inline]
    pub fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_sub(other.0).map(Decimal)
    }

    /// `self × other`, or `None` on overflow.
    #[inline]
    pub fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_mul(other.0).map(Decimal)
    }

    /// `self ÷ other`, or `None` on overflow or division by zero.
    #[inline]
    pub fn checked_div(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_div(other.0).map(Decimal)
    }

    /// The absolute value.
    #[inline]
    pub fn abs(self) -> Decimal {
        Decimal(self.0.abs())
    }

    /// The same value without trailing zeros after the point (`43.80` → `43.8`).
    #[inline]
    pub fn normalize(self) -> Decimal {
        Decimal(self.0.normalize())
    }

    /// Rounded to `dp` places with `strategy`.
    #[inline]
    pub fn round_dp_with_strategy(
        self,
        dp: u32,
        strategy: rust_decimal::RoundingStrategy,
    ) -> Decimal {
        Decimal(self.0.round_dp_with_strategy(dp, strategy))
    }
}

impl Deref for Decimal {
    type Target = rust_decimal::Decimal;

    #[inline]
    fn deref(&self) -> &rust_decimal::Decimal {
        &self.0
    }
}

/// No invariant beyond the wrapped decimal's: its mutating methods
/// (`rescale`, `set_sign_negative`, ...) are available too.
impl DerefMut for Decimal {
    #[inline]
    fn deref_mut(&mut self) -> &mut rust_decimal::Decimal {
        &mut self.0
    }
}

impl fmt::Debug for Decimal {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Decimal {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Parses a number in JSON's syntax exactly (`43.80`, `-1.5e3`), refusing
/// a value a decimal would have to round.
impl FromStr for Decimal {
    type Err = ParseDecimalError;

    fn from_str(text: &str) -> Result<Decimal, ParseDecimalError> {
        exact::exact(text).map(Decimal)
    }
}

impl From<rust_decimal::Decimal> for Decimal {
    #[inline]
    fn from(value: rust_decimal::Decimal) -> Decimal {
        Decimal(value)
    }
}

impl From<Decimal> for rust_decimal::Decimal {
    #[inline]
    fn from(value: Decimal) -> rust_decimal::Decimal {
        value.0
    }
}

macro_rules! from_integer {
    ($($int:ty),*) => {$(
        impl From<$int> for Decimal {
            #[inline]
            fn from(value: $int) -> Decimal {
                Decimal(rust_decimal::Decimal::from(value))
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! operator {
    ($trait:ident $method:ident, $assign:ident $assign_method:ident) => {
        impl $trait for Decimal {
            type Output = Decimal;
            #[inline]
            fn $method(self, other: Decimal) -> Decimal {
                Decimal(self.0.$method(other.0))
            }
        }
        impl $trait<&Decimal> for Decimal {
            type Output = Decimal;
            #[inline]
            fn $method(self, other: &Decimal) -> Decimal {
                Decimal(self.0.$method(other.0))
            }
        }
        impl $trait<Decimal> for &Decimal {
            type Output = Decimal;
            #[inline]
            fn $method(self, other: Decimal) -> Decimal {
                Decimal(self.0.$method(other.0))
            }
        }
        impl $assign for Decimal {
            #[inline]
            fn $assign_method(&mut self, other: Decimal) {
                self.0.$assign_method(other.0)
            }
        }
    };
}
operator!(Add add, AddAssign add_assign);
operator!(Sub sub, SubAssign sub_assign);
operator!(Mul mul, MulAssign mul_assign);
operator!(Div div, DivAssign div_assign);

impl Rem for Decimal {
    type Output = Decimal;
    #[inline]
    fn rem(self, other: Decimal) -> Decimal {
        Decimal(self.0 % other.0)
    }
}

impl Neg for Decimal {
    type Output = Decimal;
    #[inline]
    fn neg(self) -> Decimal {
        Decimal(-self.0)
    }
}

impl Sum for Decimal {
    fn sum<I: Iterator<Item = Decimal>>(iter: I) -> Decimal {
        Decimal(iter.map(|d| d.0).sum())
    }
}

impl<'a> Sum<&'a Decimal> for Decimal {
    fn sum<I: Iterator<Item = &'a Decimal>>(iter: I) -> Decimal {
        Decimal(iter.map(|d| d.0).sum())
    }
}

impl Product for Decimal {
    fn product<I: Iterator<Item = Decimal>>(iter: I) -> Decimal {
        Decimal(iter.map(|d| d.0).product())
    }
}

/// The schema of `rust_decimal::Decimal` (a JSON number).
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Decimal {
    fn is_referenceable() -> bool {
        <rust_decimal::Decimal as schemars::JsonSchema>::is_referenceable()
    }

    fn schema_name() -> String {
        <rust_decimal::Decimal as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <rust_decimal::Decimal as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        <rust_decimal::Decimal as schemars::JsonSchema>::json_schema(generator)
    }
}

#[cfg(test)]
mod round_trips {
    use super::Decimal;
    use proptest::strategy::Strategy as _;

    /// Decimal text as JSON writes it: an optional minus, an integer part
    /// without leading zeros, an optional fraction (trailing zeros kept),
    /// at most 27 digits in all (a 96-bit mantissa holds every such number).
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        (
            proptest::bool::ANY,
            "(0|[1-9][0-9]{0,14})",
            proptest::option::of("[0-9]{1,12}"),
        )
            .prop_map(|(negative, integer, fraction)| {
                let mut text = String::new();
                if negative {
                    text.push('-');
                }
                text.push_str(&integer);
                if let Some(fraction) = fraction {
                    text.push('.');
                    text.push_str(&fraction);
                }
                text
            })
    }

    proptest::proptest! {
        /// The text read is the text written, trailing zeros and all,
        /// through `FromStr`/`Display` and through JSON alike (a negative
        /// zero is written as zero).
        #[test]
        fn decimal_text_survives_every_round_trip(text in text()) {
            let expected = match text.strip_prefix('-') {
                Some(unsigned) if unsigned.bytes().all(|b| b == b'0' || b == b'.') => unsigned.to_owned(),
                _ => text.clone(),
            };
            let parsed: Decimal = text.parse().unwrap();
            proptest::prop_assert_eq!(parsed.to_string(), expected.clone());
            let read: Decimal = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(read, parsed);
            proptest::prop_assert_eq!(serde_json::to_string(&read).unwrap(), expected);
        }
    }
}
