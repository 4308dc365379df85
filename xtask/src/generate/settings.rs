//! The progenitor settings of every generated crate (the API crates and
//! `psi-common`) and of the sandbox's control types.

use progenitor_impl::{GenerationSettings, InterfaceStyle, TagStyle, TypeImpl};
use schemars::schema::{InstanceType, SchemaObject};

/// Settings every generated crate shares: builders, the runtime context as
/// the client's inner value, the workspace's type conversions, and the
/// `schemars::JsonSchema` derive (behind each crate's `schemars` feature).
pub fn base_settings() -> GenerationSettings {
    let mut settings = settings_without_json_schema();
    settings.with_derive("schemars::JsonSchema");
    settings
}

/// [`base_settings`] without the `schemars::JsonSchema` derive: for the
/// sandbox's control types, in a crate that has no `schemars` feature.
pub fn settings_without_json_schema() -> GenerationSettings {
    let mut settings = GenerationSettings::default();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_derive("PartialEq")
        // Every client carries the runtime context (audience, token cache,
        // retry policy), which every `send()` hands to `psi_runtime::call::send`.
        .with_inner_type(quote::quote!(::psi_runtime::Context))
        // Money, quantities and rates: exact decimals with their own serde form,
        // no global serde_json feature (see docs/document-rules.md rule 7).
        .with_conversion(
            typed_schema(InstanceType::Number, "decimal"),
            "::psi_runtime::Decimal",
            [TypeImpl::Display, TypeImpl::FromStr, TypeImpl::Default].into_iter(),
        )
        // Client secrets and tokens never print (docs/document-rules.md rule 17).
        .with_conversion(
            typed_schema(InstanceType::String, "password"),
            "::psi_runtime::Secret",
            [TypeImpl::Display, TypeImpl::FromStr, TypeImpl::Default].into_iter(),
        )
        // The offset is part of a timestamp's value: keep it.
        .with_conversion(
            typed_schema(InstanceType::String, "date-time"),
            "::chrono::DateTime<::chrono::FixedOffset>",
            [TypeImpl::Display, TypeImpl::FromStr].into_iter(),
        );
    settings
}

fn typed_schema(instance_type: InstanceType, format: &str) -> SchemaObject {
    SchemaObject {
        instance_type: Some(instance_type.into()),
        format: Some(format.to_owned()),
        ..Default::default()
    }
}
