//! Null is absence: the readers generated types use for optional fields that
//! have a default (lists, free-form objects, flags), so a `null` reads like a
//! missing field. `cargo xtask generate` adds them as `deserialize_with`;
//! fields of type `Option<T>` need nothing, serde reads `null` as `None`.

use serde::{Deserialize, Deserializer};

/// `null` or a missing field is `T::default()`.
pub fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// For flags whose documented default is `true`: `null` is `true`.
pub fn or_true<'de, D>(deserializer: D) -> Result<bool, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(Option::<bool>::deserialize(deserializer)?.unwrap_or(true))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Probe {
        #[serde(default, deserialize_with = "super::or_default")]
        items: Vec<u8>,
        #[serde(default = "yes", deserialize_with = "super::or_true")]
        flag: bool,
    }

    fn yes() -> bool {
        true
    }

    #[test]
    fn null_reads_as_the_default() {
        let probe: Probe = serde_json::from_str(r#"{"items": null, "flag": null}"#).unwrap();
        assert_eq!(
            probe,
            Probe {
                items: vec![],
                flag: true
            }
        );
        let probe: Probe = serde_json::from_str(r#"{}"#).unwrap();
        assert_eq!(
            probe,
            Probe {
                items: vec![],
                flag: true
            }
        );
        let probe: Probe = serde_json::from_str(r#"{"items": [1], "flag": false}"#).unwrap();
        assert_eq!(
            probe,
            Probe {
                items: vec![1],
                flag: false
            }
        );
    }
}
