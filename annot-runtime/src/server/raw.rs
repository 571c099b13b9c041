//! Reading JSON without building a tree: borrowed [`Json`] slices of the
//! request, looked at only as far as an answer needs.
//!
//! The hot path (`tools/list`, `tools/resolve`, `tools/annotations`) reads the
//! envelope, the params and their `_meta` into these borrowing structs, each
//! field a slice of the request's own bytes; the arguments go to the tool's
//! parser as text.

use std::borrow::Cow;

use core::fmt;
use core::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::private::SplitArguments;
use crate::protocol::{
    ANNOT_META, AUTHORIZATION_EXTENSION, CLIENT_CAPABILITIES_META, CLIENT_INFO_META,
    PROTOCOL_VERSION_META, TOOL_RESOLUTION_EXTENSION,
};

/// The text of one JSON value, a slice of the message it was read from, known
/// to be well-formed JSON (whoever made it checked it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Json<'a>(&'a str);

impl<'a> Json<'a> {
    /// The value's JSON text.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// Wraps text the caller has checked to be one JSON value.
    pub(crate) fn checked(text: &'a str) -> Self {
        Json(text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&RawValue>::deserialize(deserializer).map(|raw| Json(raw.get()))
    }
}

/// A field that is present (even as `null`), as opposed to absent: serde's
/// `Option` would read `null` as absent.
pub(crate) fn present<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Json<'de>>, D::Error> {
    Json::deserialize(deserializer).map(Some)
}

/// The JSON type of a raw value, for messages.
pub(crate) fn type_name(raw: Json<'_>) -> &'static str {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => "string",
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ if text.contains(['.', 'e', 'E']) => "a non-integer number",
        _ => "number",
    }
}

/// Whether a raw value is an object.
pub(crate) fn is_object(raw: Json<'_>) -> bool {
    raw.get().starts_with('{')
}

/// Whether a raw value is `{}` (whitespace allowed inside).
pub(crate) fn is_empty_object(raw: Json<'_>) -> bool {
    let text = raw.get();
    text.starts_with('{') && text[1..].trim_start().starts_with('}')
}

/// A raw JSON string's value: borrowed when it has no escapes.
pub(crate) fn string(raw: Json<'_>) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    let inner = &text[1..text.len() - 1];
    if crate::json_text::has_backslash(inner) {
        serde_json::from_str::<String>(text).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// `params` as the envelope reads it, in the same pass.
// One per request, on the stack: boxing the large variant would cost the
// allocation the hot path avoids.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum ParamsSlot<'a> {
    /// Absent, or `null`.
    #[default]
    Absent,
    /// An object, its fields read.
    Object(Fields<'a>),
    /// Any other JSON value: its type, for the error.
    Other(&'static str),
}

/// `_meta` as the params reader reads it, in the same pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum MetaSlot<'a> {
    /// An object, its keys read.
    Object(Meta<'a>),
    /// Any other JSON value (`null` included): its type, for the error.
    Other(&'static str),
}

/// The `params` fields any method of this server reads; every other field
/// is skipped (its syntax is checked all the same).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
pub(crate) struct Fields<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    pub name: Option<Json<'a>>,
    /// `name`'s text between its quotes, when the request reader found it a
    /// string without escapes (serde_json never fills it in).
    #[serde(skip)]
    pub plain_name: Option<&'a str>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub arguments: Option<Json<'a>>,
    /// `arguments` split into its members by the request reader's one
    /// pass, when it is an object of the shape that reader takes and of at
    /// most [`MAX_SPLIT`](crate::private::MAX_SPLIT) members.
    #[serde(skip)]
    pub split_arguments: Option<SplitArguments<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub cursor: Option<Json<'a>>,
    #[serde(rename = "_meta", default, borrow, deserialize_with = "meta_slot")]
    pub meta: Option<MetaSlot<'a>>,
    #[serde(
        rename = "protocolVersion",
        default,
        borrow,
        deserialize_with = "present"
    )]
    pub protocol_version: Option<Json<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub capabilities: Option<Json<'a>>,
    #[serde(rename = "clientInfo", default, borrow, deserialize_with = "present")]
    pub client_info: Option<Json<'a>>,
}

fn meta_slot<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<MetaSlot<'a>>, D::Error> {
    deserializer
        .deserialize_any(SlotVisitor(PhantomData))
        .map(|slot| {
            Some(match slot {
                Slot::Map(meta) => MetaSlot::Object(meta),
                Slot::Other(found) => MetaSlot::Other(found),
            })
        })
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

/// The `params._meta` keys this server reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
pub(crate) struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub protocol_version: Option<Json<'a>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub client_capabilities: Option<Json<'a>>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub client_info: Option<Json<'a>>,
    #[serde(rename = "dev.annot/resolution")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub annot: Option<Json<'a>>,
    /// The extensions `client_capabilities` declares, when the request
    /// reader read them in its one pass (serde_json never fills it in).
    #[serde(skip)]
    pub preread: Option<Extensions<'a>>,
}

impl<'a> Meta<'a> {
    /// The extensions the request's own capabilities declare (as
    /// [`extensions`] reads them), or `None` when it carries none: read in
    /// the request's one pass when the reader could, else read here.
    pub fn extensions(&self) -> Option<Extensions<'a>> {
        let capabilities = self.client_capabilities?;
        Some(self.preread.unwrap_or_else(|| extensions(capabilities)))
    }
}

/// `capabilities.extensions`.
#[derive(Debug, Default, Deserialize)]
struct Capabilities<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    extensions: Option<Json<'a>>,
}

/// The extensions this server knows, each with its settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
pub(crate) struct Extensions<'a> {
    #[serde(rename = "io.modelcontextprotocol/tool-resolution")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub tool_resolution: Option<Json<'a>>,
    #[serde(rename = "dev.annot/resolution")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub annot_resolution: Option<Json<'a>>,
    #[serde(rename = "dev.annot/authorization")]
    #[serde(default, borrow, deserialize_with = "present")]
    pub annot_authorization: Option<Json<'a>>,
}

/// The extensions a capabilities object (any JSON value) declares; nothing
/// for one that is not an object or cannot be read.
pub(crate) fn extensions(capabilities: Json<'_>) -> Extensions<'_> {
    match super::scan::extensions(capabilities) {
        Some(extensions) => {
            debug_assert_eq!(
                read_extensions(capabilities),
                extensions,
                "the hot-path reader and serde_json read {} differently",
                capabilities.get()
            );
            extensions
        }
        None => read_extensions(capabilities),
    }
}

/// [`extensions`], read with serde_json.
pub(crate) fn read_extensions(capabilities: Json<'_>) -> Extensions<'_> {
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

/// `{"explain": true}` of `_meta["dev.annot/resolution"]`.
#[derive(Debug, Default, Deserialize)]
struct AnnotAsk<'a> {
    #[serde(default, borrow)]
    explain: Option<Json<'a>>,
}

/// Whether `_meta["dev.annot/resolution"].explain` is `true`.
pub(crate) fn asks_explanation(meta: Option<&Meta<'_>>) -> bool {
    meta.and_then(|meta| meta.annot)
        .filter(|settings| is_object(*settings))
        .and_then(|settings| serde_json::from_str::<AnnotAsk<'_>>(settings.get()).ok())
        .and_then(|ask| ask.explain)
        .is_some_and(|explain| explain.get() == "true")
}

// The names above must be the protocol's: checked once here rather than
// repeated as literals elsewhere.
const _: () = {
    assert!(eq(
        PROTOCOL_VERSION_META,
        "io.modelcontextprotocol/protocolVersion"
    ));
    assert!(eq(
        CLIENT_CAPABILITIES_META,
        "io.modelcontextprotocol/clientCapabilities"
    ));
    assert!(eq(CLIENT_INFO_META, "io.modelcontextprotocol/clientInfo"));
    assert!(eq(
        TOOL_RESOLUTION_EXTENSION,
        "io.modelcontextprotocol/tool-resolution"
    ));
    assert!(eq(ANNOT_META, "dev.annot/resolution"));
    assert!(eq(AUTHORIZATION_EXTENSION, "dev.annot/authorization"));
};

const fn eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Json<'_> {
        let _: IgnoredAny = serde_json::from_str(text).unwrap();
        Json(text)
    }

    #[test]
    fn reads_types_strings_and_empty_objects() {
        assert_eq!(type_name(raw("1.5")), "a non-integer number");
        assert_eq!(type_name(raw("-3")), "number");
        assert_eq!(type_name(raw("null")), "null");
        assert!(is_empty_object(raw("{ \n }")));
        assert!(!is_empty_object(raw("{\"a\":1}")));
        assert!(matches!(string(raw("\"ab\"")), Some(Cow::Borrowed("ab"))));
        assert_eq!(string(raw(r#""a\u0062""#)).as_deref(), Some("ab"));
        assert_eq!(string(raw("7")), None);
    }

    #[test]
    fn reads_extensions_leniently() {
        let caps = raw(r#"{"extensions":{"io.modelcontextprotocol/tool-resolution":{},"x/y":{}}}"#);
        assert!(
            extensions(caps)
                .tool_resolution
                .is_some_and(is_empty_object)
        );
        assert!(extensions(raw("[1]")).tool_resolution.is_none());
        assert!(
            extensions(raw(r#"{"extensions":3}"#))
                .tool_resolution
                .is_none()
        );
        let meta: Meta<'_> =
            serde_json::from_str(r#"{"dev.annot/resolution":{"explain":true}}"#).unwrap();
        assert!(asks_explanation(Some(&meta)));
        let meta: Meta<'_> =
            serde_json::from_str(r#"{"dev.annot/resolution":{"explain":1}}"#).unwrap();
        assert!(!asks_explanation(Some(&meta)));
    }
}
