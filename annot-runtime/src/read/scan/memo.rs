//! A connection's memory of the last `params._meta` object it read.
//!
//! A 2026-07-28 client sends the same `_meta` (protocol version, client
//! info, client capabilities) with every request, about two thirds of a
//! `tools/resolve`. Reading it is a pure function of its bytes, and a JSON
//! object ends where its own bytes say, so when the text at hand starts with
//! the bytes of the last `_meta` read, the reader would read exactly those
//! bytes again and find the same keys at the same places: comparing them is
//! that reading. Every request is still judged by its own `_meta`; nothing of
//! an earlier request is taken but the bytes-to-reading map.

use crate::read::json::Json;
use crate::read::message::{Extensions, Meta};

/// The longest `_meta` text remembered: a larger one (a trace context, a
/// progress token in each request) is read every time rather than copied.
const MAX_REMEMBERED: usize = 1024;

/// The last `_meta` object read and what was read from it.
#[derive(Debug, Default)]
pub(crate) struct MetaMemo {
    /// Its text; empty while nothing is remembered (no object is empty).
    text: Vec<u8>,
    /// Where each key's value lies in `text`.
    spans: MetaSpans,
}

/// Where a value lies in the remembered text, as a byte range.
pub(super) type Span = Option<(usize, usize)>;

/// [`Meta`], with spans of the remembered text in place of borrowed slices.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MetaSpans {
    protocol_version: Span,
    client_capabilities: Span,
    client_info: Span,
    annot: Span,
    progress_token: Span,
    preread: Option<ExtensionSpans>,
}

/// [`Extensions`], as spans.
#[derive(Clone, Copy, Debug, Default)]
struct ExtensionSpans {
    tool_resolution: Span,
    annot_resolution: Span,
    annot_authorization: Span,
    trust_annotations: Span,
}

impl MetaMemo {
    /// The `_meta` object at the start of `text`, when it is the one
    /// remembered: its length and its reading, borrowed from `text`.
    pub(crate) fn recall<'a>(&self, text: &'a str) -> Option<(usize, Meta<'a>)> {
        if self.text.is_empty() || !text.as_bytes().starts_with(&self.text) {
            return None;
        }
        // The same bytes as a whole object: a boundary of characters.
        let object = text.get(..self.text.len())?;
        Some((
            object.len(),
            self.spans.at(|(start, end)| object.get(start..end))?,
        ))
    }

    /// Remembers `meta`, read from the whole object `object`, in place of
    /// what was remembered.
    pub(crate) fn remember(&mut self, object: &str, meta: &Meta<'_>) {
        if object.len() > MAX_REMEMBERED {
            return;
        }
        self.text.clear();
        if let Some(spans) = MetaSpans::of(meta, |value| span_in(object, value)) {
            self.text.extend_from_slice(object.as_bytes());
            self.spans = spans;
        }
    }
}

impl MetaSpans {
    /// The spans of `meta`'s values, `span` saying where each lies; `None`
    /// if one has no span.
    pub(super) fn of(
        meta: &Meta<'_>,
        span: impl Fn(&str) -> Option<(usize, usize)>,
    ) -> Option<Self> {
        // `Some(None)` for an absent value, `None` for one without a span.
        let span = |value: Option<Json<'_>>| match value {
            None => Some(None),
            Some(value) => span(value.get()).map(Some),
        };
        let preread = match meta.preread {
            None => None,
            Some(extensions) => Some(ExtensionSpans {
                tool_resolution: span(extensions.tool_resolution)?,
                annot_resolution: span(extensions.annot_resolution)?,
                annot_authorization: span(extensions.annot_authorization)?,
                trust_annotations: span(extensions.trust_annotations)?,
            }),
        };
        Some(MetaSpans {
            protocol_version: span(meta.protocol_version)?,
            client_capabilities: span(meta.client_capabilities)?,
            client_info: span(meta.client_info)?,
            annot: span(meta.annot)?,
            progress_token: span(meta.progress_token)?,
            preread,
        })
    }

    /// The reading these spans make, `text` giving each span's text.
    pub(super) fn at<'a>(
        &self,
        text: impl Fn((usize, usize)) -> Option<&'a str>,
    ) -> Option<Meta<'a>> {
        let value = |span: Span| match span {
            None => Some(None),
            Some(span) => text(span).map(|text| Some(Json::checked(text))),
        };
        let preread = match self.preread {
            None => None,
            Some(extensions) => Some(Extensions {
                tool_resolution: value(extensions.tool_resolution)?,
                annot_resolution: value(extensions.annot_resolution)?,
                annot_authorization: value(extensions.annot_authorization)?,
                trust_annotations: value(extensions.trust_annotations)?,
            }),
        };
        Some(Meta {
            protocol_version: value(self.protocol_version)?,
            client_capabilities: value(self.client_capabilities)?,
            client_info: value(self.client_info)?,
            annot: value(self.annot)?,
            progress_token: value(self.progress_token)?,
            preread,
        })
    }
}

/// Where `value` lies in `object`, if it is a slice of it.
pub(super) fn span_in(object: &str, value: &str) -> Option<(usize, usize)> {
    let start = (value.as_ptr() as usize).checked_sub(object.as_ptr() as usize)?;
    let end = start.checked_add(value.len())?;
    (end <= object.len()).then_some((start, end))
}
