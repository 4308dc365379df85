//! The check as the body is read: a serde `DeserializeSeed` per schema that
//! checks each value while serde_json parses it, so a clean answer builds no
//! `serde_json::Value` (its maps and strings were most of what checking
//! cost). It finds exactly what [`crate::walk`] finds on the parsed value
//! (`tests.rs` compares the two); a schema whose check needs the whole value
//! (a `oneOf`/`anyOf`, whose branch is chosen by trying each) is read into a
//! value there and walked.

use crate::schema::{Id, Stream, Type};
use crate::walk::{push_token, Scalar, Walk, MAX_DEPTH};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// Checks the JSON `body` against schema `id`; `false` when it is not JSON
/// (what was found before the error is then dropped).
pub(crate) fn check(walk: &mut Walk<'_>, id: Id, body: &[u8]) -> bool {
    let mut reader = serde_json::Deserializer::from_slice(body);
    let seed = Seed {
        walk: &mut *walk,
        id,
        optional: false,
        member: None,
        depth: 0,
    };
    let read = seed.deserialize(&mut reader).and_then(|()| reader.end());
    if read.is_err() {
        walk.found.clear();
    }
    read.is_ok()
}

struct Seed<'w, 'a, 'm> {
    walk: &'w mut Walk<'a>,
    id: Id,
    optional: bool,
    member: Option<&'m str>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            IgnoredAny::deserialize(reader)?;
            return Ok(());
        }
        // Through single-branch wrappers to the schema that checks.
        let at = self.walk.schemas.through(self.id);
        if self.walk.schemas.nodes[at].stream == Stream::Tree {
            let value = Value::deserialize(reader)?;
            self.walk
                .value(self.id, &value, self.optional, self.member, self.depth);
            return Ok(());
        }
        reader.deserialize_any(Check {
            walk: self.walk,
            first: self.id,
            at,
            optional: self.optional,
            member: self.member,
            depth: self.depth,
        })
    }
}

/// The visitor of one value: `first` is the schema the value is of (its
/// `null` rule), `at` the one that checks it.
struct Check<'w, 'a, 'm> {
    walk: &'w mut Walk<'a>,
    first: Id,
    at: Id,
    optional: bool,
    member: Option<&'m str>,
    depth: usize,
}

impl Check<'_, '_, '_> {
    fn scalar(self, scalar: Scalar<'_>) {
        let node = &self.walk.schemas.nodes[self.at];
        self.walk.scalar(node, &scalar, self.member);
    }
}

impl<'de> Visitor<'de> for Check<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        let node = &self.walk.schemas.nodes[self.first];
        self.walk.null(node, self.optional);
        Ok(())
    }

    fn visit_bool<E>(self, flag: bool) -> Result<(), E> {
        self.scalar(Scalar::Bool(flag));
        Ok(())
    }

    fn visit_i64<E>(self, number: i64) -> Result<(), E> {
        self.scalar(Scalar::Number(number.into()));
        Ok(())
    }

    fn visit_u64<E>(self, number: u64) -> Result<(), E> {
        self.scalar(Scalar::Number(number.into()));
        Ok(())
    }

    fn visit_f64<E>(self, number: f64) -> Result<(), E> {
        if let Some(number) = serde_json::Number::from_f64(number) {
            self.scalar(Scalar::Number(number));
        }
        Ok(())
    }

    fn visit_str<E>(self, text: &str) -> Result<(), E> {
        self.scalar(Scalar::String(text));
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let node = &self.walk.schemas.nodes[self.at];
        if node.ty.is_some_and(|ty| ty != Type::Array) {
            let mut count = 0;
            while items.next_element::<IgnoredAny>()?.is_some() {
                count += 1;
            }
            self.walk
                .typed(node, Type::Array, || format!("array of {count}"));
            return Ok(());
        }
        let before = self.walk.found.len();
        let kept = self.walk.pointer.len();
        self.walk.pointer.push_str("/*");
        let mut count = 0;
        loop {
            let more = match node.items {
                Some(id) => items
                    .next_element_seed(Seed {
                        walk: &mut *self.walk,
                        id,
                        optional: false,
                        member: self.member,
                        depth: self.depth + 1,
                    })?
                    .is_some(),
                None => items.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                break;
            }
            count += 1;
        }
        self.walk.pointer.truncate(kept);
        self.walk.item_count(node, count);
        self.walk.dedup_from(before);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let node = &self.walk.schemas.nodes[self.at];
        if node.ty.is_some_and(|ty| ty != Type::Object) {
            let value = Value::deserialize(de::value::MapAccessDeserializer::new(members))?;
            self.walk.typed(node, Type::Object, || {
                crate::redact::example(&value, self.member)
            });
            return Ok(());
        }
        let mut seen = vec![false; node.required.len()];
        while let Some(Key(name)) = members.next_key()? {
            let required = node.required.iter().position(|required| *required == *name);
            if let Some(index) = required {
                seen[index] = true;
            }
            let schema = node.member(&name);
            match schema {
                Some(id) => {
                    let kept = self.walk.pointer.len();
                    push_token(&mut self.walk.pointer, &name);
                    members.next_value_seed(Seed {
                        walk: &mut *self.walk,
                        id,
                        optional: required.is_none(),
                        member: Some(&name),
                        depth: self.depth + 1,
                    })?;
                    self.walk.pointer.truncate(kept);
                }
                None if node.object_like
                    && !node.open
                    && !node.declared.contains(name.as_ref()) =>
                {
                    let value: Value = members.next_value()?;
                    self.walk.declared(node, &name, || value);
                }
                None => {
                    members.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (name, seen) in node.required.iter().zip(seen) {
            if !seen {
                self.walk.missing(node, name);
            }
        }
        Ok(())
    }
}

/// A member name, borrowed from the body where it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_str<E>(self, name: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
            fn visit_string<E>(self, name: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(name)))
            }
        }
        reader.deserialize_str(Name)
    }
}
