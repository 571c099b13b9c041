//! The built-in server's reader of the wire: what a message's bytes say,
//! read once. (In front of rmcp, `rmcp/resolving.rs` only screens each line
//! for a plain resolution; the answer comes from the same core.)
//!
//! - `message.rs`: the structs a message is read into (the envelope, the
//!   fields of `params`, the keys of `params._meta`, the extensions a
//!   client declares), every field a slice of the message's own bytes;
//! - `keys.rs`: every member name they are read by, spelled once;
//! - `scan.rs`: the scanner of the hot path, one pass over the bytes for
//!   the shape every client sends, giving up on anything else; beside it,
//!   what a connection remembers of the bytes a client repeats
//!   (`scan/envelope_memo.rs`, `scan/memo.rs`), compared instead of read;
//! - `by_serde.rs`: serde's reading of the same structs, which decides
//!   whatever the scanner gives up on;
//! - `split.rs`, `arguments.rs`: a tool's argument object split into its
//!   members, by the same scanner and serde behind it.
//!
//! Where the scanner (or what it remembers) answers, serde answers the same:
//! debug builds (tests, fuzzing) check it on every message the scanner reads.

mod arguments;
mod by_serde;
mod json;
mod keys;
mod message;
mod scan;
mod split;

pub use arguments::{Member, Text, members};
pub(crate) use by_serde::asks_explanation;
pub(crate) use json::{Json, is_empty_object, is_object, string, type_name};
pub(crate) use message::{Envelope, Extensions, Fields, Meta, MetaSlot, ParamsSlot};
pub use split::{MAX_SPLIT, SplitArguments};

/// What a connection remembers of the messages it read, so that the bytes a
/// client repeats are compared rather than read again: the last two tool
/// requests' envelopes around their ids and arguments, and the last
/// `params._meta`.
#[derive(Debug, Default)]
pub(crate) struct ReadMemo {
    envelope: scan::EnvelopeMemo,
    meta: scan::MetaMemo,
    /// Whether the scanner read a message before: nothing of a connection's
    /// first message is remembered, so that a connection made for one request
    /// (a stateless server's) pays no copy and no allocation for a memory it
    /// never uses.
    read_before: bool,
}

/// Reads a message (UTF-8 text, a JSON object) into `envelope` (empty, as
/// `Envelope::default()` makes it): by the scanner, else by serde. `None`
/// when serde refuses it too (bad JSON, a repeated member).
///
/// What `memo` remembers is compared, not read again, and what the scanner
/// reads is remembered.
// Inlined into the server's parse: one call per message, on the hot path.
#[inline]
pub(crate) fn envelope<'a>(
    text: &'a str,
    envelope: &mut Envelope<'a>,
    memo: &mut ReadMemo,
) -> Option<()> {
    let recalled = memo.envelope.recall(text, envelope);
    if recalled == scan::Recalled::Read {
        #[cfg(debug_assertions)]
        check_envelope(text, *envelope);
        return Some(());
    }
    let meta = memo.read_before.then_some(&mut memo.meta);
    if scan::envelope(text, envelope, meta).is_some() {
        if memo.read_before {
            memo.envelope.remember(text, envelope, recalled);
        }
        memo.read_before = true;
        #[cfg(debug_assertions)]
        check_envelope(text, *envelope);
        return Some(());
    }
    *envelope = serde_json::from_str::<Envelope<'_>>(text).ok()?;
    Some(())
}

/// The extensions a capabilities object (checked JSON of any type)
/// declares; nothing for one that is not an object or cannot be read.
pub(crate) fn extensions(capabilities: Json<'_>) -> Extensions<'_> {
    match scan::extensions(capabilities) {
        Some(extensions) => {
            debug_assert_eq!(
                by_serde::extensions(capabilities),
                extensions,
                "the scanner and serde read {} differently",
                capabilities.get()
            );
            extensions
        }
        None => by_serde::extensions(capabilities),
    }
}

impl<'a> Meta<'a> {
    /// The extensions the request's own capabilities declare (as
    /// [`extensions`] reads them), or `None` when it
    /// carries none: read in the request's one pass when the scanner could,
    /// else read here.
    pub fn extensions(&self) -> Option<Extensions<'a>> {
        let capabilities = self.client_capabilities?;
        Some(self.preread.unwrap_or_else(|| extensions(capabilities)))
    }
}

/// Panics unless serde reads `text` as the scanner did, the extensions it
/// read in the same pass included.
#[cfg(debug_assertions)]
fn check_envelope(text: &str, mut envelope: Envelope<'_>) {
    let plain = |plain: Option<&str>, raw: Option<Json<'_>>| {
        if let Some(plain) = plain {
            assert_eq!(raw.and_then(string).as_deref(), Some(plain), "{text}");
        }
    };
    plain(envelope.plain_method.take(), envelope.method);
    if let ParamsSlot::Object(fields) = &mut envelope.params {
        plain(fields.plain_name.take(), fields.name);
        // The split arguments are checked where they are read
        // (`arguments::members`), against serde's reading of their text.
        fields.split_arguments = None;
        if let Some(MetaSlot::Object(meta)) = &mut fields.meta
            && let Some(preread) = meta.preread.take()
        {
            let capabilities = meta.client_capabilities.expect("read with its extensions");
            assert_eq!(
                by_serde::extensions(capabilities),
                preread,
                "the scanner and serde read the extensions of {text} differently"
            );
        }
    }
    assert_eq!(
        serde_json::from_str::<Envelope<'_>>(text).ok(),
        Some(envelope),
        "the scanner and serde read {text} differently"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    fn raw(text: &str) -> Json<'_> {
        let _: IgnoredAny = serde_json::from_str(text).unwrap();
        Json::checked(text)
    }

    #[test]
    fn nothing_of_a_connection_first_message_is_remembered() {
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{{"name":"t","arguments":{{}},"_meta":{meta}"#
        );
        let mut memo = ReadMemo::default();
        let recalled = |memo: &mut ReadMemo| memo.envelope.recall(&text, &mut Envelope::default());
        envelope(&text, &mut Envelope::default(), &mut memo).unwrap();
        assert!(memo.meta.recall(meta).is_none());
        assert_eq!(recalled(&mut memo), scan::Recalled::New);
        // From the second, both are.
        envelope(&text, &mut Envelope::default(), &mut memo).unwrap();
        assert!(memo.meta.recall(meta).is_some());
        assert!(matches!(recalled(&mut memo), scan::Recalled::Repeated(_)));
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
        // Escaped names are serde's to read, and read alike.
        let escaped = raw(r#"{"extensions":{"io.modelcontextprotocol\/tool-resolution":{}}}"#);
        assert!(extensions(escaped).tool_resolution.is_some());
        let repeated = raw(r#"{"extensions":{},"extensions":{"dev.annot/resolution":{}}}"#);
        assert_eq!(extensions(repeated), Extensions::default());
        let meta: Meta<'_> =
            serde_json::from_str(r#"{"dev.annot/resolution":{"explain":true}}"#).unwrap();
        assert!(asks_explanation(Some(&meta)));
        let meta: Meta<'_> =
            serde_json::from_str(r#"{"dev.annot/resolution":{"explain":1}}"#).unwrap();
        assert!(!asks_explanation(Some(&meta)));
        let repeated: Result<Meta<'_>, _> =
            serde_json::from_str(r#"{"dev.annot/resolution":{},"dev.annot/resolution":{}}"#);
        assert!(repeated.is_err());
    }
}
