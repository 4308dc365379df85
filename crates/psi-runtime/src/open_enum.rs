//! Forward-compatible enumerations.
//!
//! The service may add values to any enumeration it returns. A closed Rust
//! enum would fail the whole response on one new value, so every enumeration
//! reachable from a response is declared with [`open_enum!`](crate::open_enum):
//! known values get a variant, anything else is kept verbatim in `Unknown` and
//! serializes back unchanged.

/// Declares an enumeration with an `Unknown(String)` variant that keeps
/// values this version does not know.
///
/// ```
/// psi_runtime::open_enum! {
///     /// Pay later status.
///     pub enum Status {
///         Available = "AVAILABLE",
///         NotAvailable = "NOT_AVAILABLE",
///     }
/// }
/// let known: Status = serde_json::from_str("\"AVAILABLE\"").unwrap();
/// assert_eq!(known, Status::Available);
/// let new: Status = serde_json::from_str("\"PAUSED\"").unwrap();
/// assert_eq!(new, Status::Unknown("PAUSED".into()));
/// assert_eq!(serde_json::to_string(&new).unwrap(), "\"PAUSED\"");
/// ```
#[macro_export]
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $value:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant, )*
            /// A value this version of psi does not know, kept verbatim.
            Unknown(::std::string::String),
        }

        impl $name {
            /// The values this version knows, in the order of the specification.
            pub const KNOWN_VALUES: &'static [&'static str] = &[$($value),*];

            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )*
                    Self::Unknown(value) => value.as_str(),
                }
            }

            /// `false` for a value this version does not know.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Unknown(_))
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $value => Self::$variant, )*
                    other => Self::Unknown(other.to_owned()),
                }
            }
        }

        impl ::std::convert::From<::std::string::String> for $name {
            fn from(value: ::std::string::String) -> Self {
                match value.as_str() {
                    $( $value => Self::$variant, )*
                    _ => Self::Unknown(value),
                }
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                Ok(Self::from(value))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error>
            where
                S: $crate::__private::serde::Serializer,
            {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: $crate::__private::serde::Deserializer<'de>,
            {
                let value: ::std::string::String =
                    $crate::__private::serde::Deserialize::deserialize(deserializer)?;
                Ok(Self::from(value))
            }
        }

        // The calling crate's feature: each generated crate forwards its
        // `schemars` feature to psi-runtime's.
        #[cfg(feature = "schemars")]
        impl $crate::__private::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::string::String {
                ::std::string::String::from(stringify!($name))
            }

            fn json_schema(
                _: &mut $crate::__private::schemars::gen::SchemaGenerator,
            ) -> $crate::__private::schemars::schema::Schema {
                $crate::open_enum_schema(Self::KNOWN_VALUES)
            }
        }
    };
}

/// JSON Schema of an open enum: any string, with the known values listed
/// under `x-known-values` (an `enum` keyword would claim it is closed).
#[doc(hidden)]
#[cfg(feature = "schemars")]
pub fn open_enum_schema(known: &[&str]) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, SchemaObject};
    let mut schema = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        ..Default::default()
    };
    schema.extensions.insert(
        "x-known-values".to_owned(),
        serde_json::Value::from(known.iter().map(|v| v.to_string()).collect::<Vec<_>>()),
    );
    schema.into()
}
