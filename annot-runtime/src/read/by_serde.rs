//! The serde reading of the message structs: what decides whenever the
//! scanner gives up (an escape in a name, a repeated member, deep nesting,
//! bad syntax), and what debug builds hold the scanner to.
//!
//! Each struct is read member by member, its names matched against the
//! constants of `keys.rs`, as the scanner matches them. As serde's derive
//! would: a member not known is skipped, a repeated known member is an error,
//! a member present as `null` is `Some`.

use std::borrow::Cow;

use core::fmt;
use core::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::json::{Json, is_object};
use super::keys;
use super::message::{Envelope, Extensions, Fields, Meta, MetaSlot, ParamsSlot};

/// A struct read from a JSON object, member by member.
trait Object<'de>: Default {
    /// Reads the value of the member `name` when it is one this struct
    /// keeps (`Ok(true)`); `Ok(false)` leaves it to be skipped.
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error>;
}

/// Reads an [`Object`].
fn object<'de, D: Deserializer<'de>, T: Object<'de>>(deserializer: D) -> Result<T, D::Error> {
    struct ObjectVisitor<T>(PhantomData<T>);
    impl<'de, T: Object<'de>> Visitor<'de> for ObjectVisitor<T> {
        type Value = T;
        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut object = T::default();
            while let Some(Name(name)) = map.next_key()? {
                if !object.member(name.as_bytes(), &mut map)? {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(object)
        }
    }
    deserializer.deserialize_map(ObjectVisitor(PhantomData))
}

/// A member name, borrowed when it has no escape.
struct Name<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(name)))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(name.to_owned())))
            }
            fn visit_string<E: de::Error>(self, name: String) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(name)))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// A member's value into its empty slot; a repeated member is an error.
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
) -> Result<bool, A::Error> {
    if slot.is_some() {
        return Err(repeated());
    }
    *slot = Some(map.next_value()?);
    Ok(true)
}

fn repeated<E: de::Error>() -> E {
    E::custom("a repeated member")
}

/// [`Envelope`], with whether `params` was seen (`null` reads as absent,
/// and counts as seen).
#[derive(Default)]
struct EnvelopeReading<'a> {
    envelope: Envelope<'a>,
    params_seen: bool,
}

impl<'de: 'a, 'a> Object<'de> for EnvelopeReading<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        let envelope = &mut self.envelope;
        match name {
            keys::JSONRPC => once(&mut envelope.jsonrpc, map),
            keys::ID => once(&mut envelope.id, map),
            keys::METHOD => once(&mut envelope.method, map),
            keys::RESULT => once(&mut envelope.result, map),
            keys::ERROR => once(&mut envelope.error, map),
            keys::PARAMS if self.params_seen => Err(repeated()),
            keys::PARAMS => {
                self.params_seen = true;
                envelope.params = map.next_value()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Envelope<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object::<D, EnvelopeReading<'a>>(deserializer).map(|reading| reading.envelope)
    }
}

impl<'de: 'a, 'a> Object<'de> for Fields<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        match name {
            keys::NAME => once(&mut self.name, map),
            keys::ARGUMENTS => once(&mut self.arguments, map),
            keys::CURSOR => once(&mut self.cursor, map),
            keys::META => once(&mut self.meta, map),
            keys::PROTOCOL_VERSION => once(&mut self.protocol_version, map),
            keys::CAPABILITIES => once(&mut self.capabilities, map),
            keys::CLIENT_INFO => once(&mut self.client_info, map),
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object(deserializer)
    }
}

impl<'de: 'a, 'a> Object<'de> for Meta<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        match name {
            keys::META_PROTOCOL_VERSION => once(&mut self.protocol_version, map),
            keys::META_CLIENT_CAPABILITIES => once(&mut self.client_capabilities, map),
            keys::META_CLIENT_INFO => once(&mut self.client_info, map),
            keys::META_ANNOT => once(&mut self.annot, map),
            keys::META_PROGRESS_TOKEN => once(&mut self.progress_token, map),
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Meta<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object(deserializer)
    }
}

impl<'de: 'a, 'a> Object<'de> for Extensions<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        match name {
            keys::EXTENSION_TOOL_RESOLUTION => once(&mut self.tool_resolution, map),
            keys::EXTENSION_ANNOT_RESOLUTION => once(&mut self.annot_resolution, map),
            keys::EXTENSION_ANNOT_AUTHORIZATION => once(&mut self.annot_authorization, map),
            keys::EXTENSION_TRUST_ANNOTATIONS => once(&mut self.trust_annotations, map),
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Extensions<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object(deserializer)
    }
}

/// `capabilities.extensions`.
#[derive(Default)]
struct Capabilities<'a> {
    extensions: Option<Json<'a>>,
}

impl<'de: 'a, 'a> Object<'de> for Capabilities<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        match name {
            keys::EXTENSIONS => once(&mut self.extensions, map),
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Capabilities<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object(deserializer)
    }
}

/// `{"explain": true}` of `_meta["dev.annot/resolution"]`.
#[derive(Default)]
struct AnnotAsk<'a> {
    explain: Option<Json<'a>>,
}

impl<'de: 'a, 'a> Object<'de> for AnnotAsk<'a> {
    fn member<A: MapAccess<'de>>(&mut self, name: &[u8], map: &mut A) -> Result<bool, A::Error> {
        match name {
            keys::EXPLAIN => once(&mut self.explain, map),
            _ => Ok(false),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for AnnotAsk<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        object(deserializer)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ParamsSlot<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(SlotVisitor(PhantomData))
            .map(|slot| match slot {
                Slot::Map(fields) => ParamsSlot::Object(fields),
                Slot::Other("null") => ParamsSlot::Absent,
                Slot::Other(found) => ParamsSlot::Other(found),
            })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaSlot<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(SlotVisitor(PhantomData))
            .map(|slot| match slot {
                Slot::Map(meta) => MetaSlot::Object(meta),
                Slot::Other(found) => MetaSlot::Other(found),
            })
    }
}

/// An object read as `T`, or the type of anything else.
enum Slot<T> {
    Map(T),
    Other(&'static str),
}

struct SlotVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for SlotVisitor<T> {
    type Value = Slot<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Slot::Map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Slot::Other("array"))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Slot::Other("null"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Slot::Other("boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Slot::Other("number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Slot::Other("number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Slot::Other("a non-integer number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Slot::Other("string"))
    }
}

/// The extensions a capabilities value declares, read with serde: nothing
/// for one that is not an object or cannot be read.
pub(crate) fn extensions(capabilities: Json<'_>) -> Extensions<'_> {
    if !is_object(capabilities) {
        return Extensions::default();
    }
    let Ok(Capabilities {
        extensions: Some(extensions),
    }) = serde_json::from_str::<Capabilities<'_>>(capabilities.get())
    else {
        return Extensions::default();
    };
    if !is_object(extensions) {
        return Extensions::default();
    }
    serde_json::from_str(extensions.get()).unwrap_or_default()
}

/// Whether `_meta["dev.annot/resolution"].explain` is `true`.
pub(crate) fn asks_explanation(meta: Option<&Meta<'_>>) -> bool {
    meta.and_then(|meta| meta.annot)
        .filter(|settings| is_object(*settings))
        .and_then(|settings| serde_json::from_str::<AnnotAsk<'_>>(settings.get()).ok())
        .and_then(|ask| ask.explain)
        .is_some_and(|explain| explain.get() == "true")
}
