//! A connection's memory of the last two tool requests' envelopes: their
//! bytes around each request's `id` and `params.arguments`.
//!
//! A client sends its requests to one tool in one envelope: the same members
//! in the same order, the same method, tool name and `_meta`; only the id and
//! the arguments change. The scanner's reading of a message is a pure
//! function of its bytes, and it reads the id and the arguments each as one
//! value that ends where its own bytes say. So when a message is the
//! remembered bytes with some other values where the id and the arguments
//! were, the scanner would read it as it read the remembered one, those two
//! values in their places: comparing the bytes around them is that reading.
//! The id and the arguments are read as always, and every request is judged
//! by its own bytes; nothing of an earlier request is taken but the
//! bytes-to-reading map.
//!
//! Two envelopes, as a client that resolves each call before making it
//! alternates `tools/resolve` and `tools/call`. An envelope's bytes are kept
//! the first time, what they read the second, and from the third it is
//! compared; a client whose every request is new to it (a progress token in
//! each) soon finds the memo resting, compared once in sixteen requests. (The
//! reader keeps nothing of a connection's first message: `read/mod.rs`.)

use super::memo::{MetaSpans, Span, span_in};
use super::{Envelope, Fields, Json, MetaSlot, ParamsSlot, Scan};

/// The longest envelope remembered, its two values left out: a larger one (a
/// trace context, a progress token in each request) is read every time
/// rather than copied.
const MAX_REMEMBERED: usize = 1024;

/// The last two tool requests' envelopes (a client that resolves each call
/// before making it alternates two), and what was read from them.
#[derive(Debug, Default)]
pub(crate) struct EnvelopeMemo {
    remembered: [Remembered; 2],
    /// The one read or remembered last.
    last: usize,
    /// How many requests running came in envelopes it did not remember
    /// (each with a progress token of its own, say): past [`TRIES`], it
    /// compares one request in [`REST`], so that such a client pays about
    /// nothing for it.
    misses: u32,
}

/// How many requests in new envelopes running before the memo rests.
const TRIES: u32 = 4;

/// While resting, the memo compares one request in this many.
const REST: u32 = 16;

/// One tool request's envelope and what was read from it.
#[derive(Debug, Default)]
struct Remembered {
    /// The remembered message without its id and its arguments; empty while
    /// nothing is remembered (no message is empty).
    literal: Vec<u8>,
    /// The values taken out of the message, in the order they came.
    holes: [Hole; 2],
    /// Where the rest of the reading lay in the remembered message: found
    /// when an envelope comes a second time running, so that a client that
    /// changes tools at every request pays for no more than a copy.
    spans: Option<EnvelopeSpans>,
}

/// A value taken out of the remembered message.
#[derive(Clone, Copy, Debug, Default)]
struct Hole {
    /// Where it was taken out of `literal`.
    at: usize,
    /// Where it ended in the remembered message: what followed has moved by
    /// the difference of its length and the new value's.
    end: usize,
    /// The id, or else the arguments.
    id: bool,
}

/// An [`Envelope`] of a request with arguments, its id and its arguments
/// left out, as spans.
#[derive(Clone, Copy, Debug, Default)]
struct EnvelopeSpans {
    jsonrpc: Span,
    method: Span,
    /// Whether the method was read as a plain string: its text without the
    /// quotes.
    plain_method: bool,
    name: Span,
    /// Whether the tool's name was read as a plain string.
    plain_name: bool,
    cursor: Span,
    protocol_version: Span,
    capabilities: Span,
    client_info: Span,
    /// `_meta`, an object (the scanner reads no other).
    meta: Option<MetaSpans>,
}

/// What [`EnvelopeMemo::recall`] made of a message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Recalled {
    /// It is the remembered envelope: read.
    Read,
    /// It is a remembered envelope (the one in this place of the memo),
    /// whose reading is not yet known.
    Repeated(usize),
    /// Anything else.
    New,
    /// Not compared: the memo rests.
    Skipped,
}

impl EnvelopeMemo {
    /// Reads `text` into `envelope` (empty) when it is a remembered envelope
    /// around an id and arguments of its own; `envelope` is left empty
    /// otherwise.
    pub(crate) fn recall<'a>(&mut self, text: &'a str, envelope: &mut Envelope<'a>) -> Recalled {
        if self.misses >= TRIES && !self.misses.is_multiple_of(REST) {
            self.misses = self.misses.wrapping_add(1);
            return Recalled::Skipped;
        }
        // The one used last first.
        for place in [self.last, 1 - self.last] {
            match self.remembered[place].recall(text, envelope) {
                Sight::Other => {}
                Sight::Read => {
                    self.last = place;
                    self.misses = 0;
                    return Recalled::Read;
                }
                Sight::Unread => {
                    self.misses = 0;
                    return Recalled::Repeated(place);
                }
            }
        }
        self.misses = self.misses.wrapping_add(1);
        Recalled::New
    }

    /// Remembers the envelope of `envelope`, read by the scanner from the
    /// whole message `text`, when it is a request with arguments: its bytes
    /// in place of the envelope used longest ago when they are new
    /// (`recalled`, what [`recall`](Self::recall) found), what was read from
    /// them when they come again.
    pub(crate) fn remember(&mut self, text: &str, envelope: &Envelope<'_>, recalled: Recalled) {
        let place = match recalled {
            Recalled::Repeated(place) => place,
            Recalled::New => 1 - self.last,
            // Read by the memo, or not compared: nothing to keep.
            Recalled::Read | Recalled::Skipped => return,
        };
        let repeated = matches!(recalled, Recalled::Repeated(_));
        if self.remembered[place]
            .remember(text, envelope, repeated)
            .is_some()
        {
            self.last = place;
        }
    }
}

/// What one remembered envelope made of a message.
enum Sight {
    /// It is this envelope: read.
    Read,
    /// It is this envelope, whose reading is not yet known.
    Unread,
    /// Anything else.
    Other,
}

impl Remembered {
    /// Reads `text` into `envelope` when it is this envelope around an id
    /// and arguments of its own.
    fn recall<'a>(&self, text: &'a str, envelope: &mut Envelope<'a>) -> Sight {
        if !self.surrounds(text) {
            return Sight::Other;
        }
        let sight = match (self.values_within(text, envelope), &self.spans) {
            (None, _) => Sight::Other,
            (Some(_), None) => Sight::Unread,
            (Some(ends), Some(spans)) => match self.read_from(text, ends, spans, envelope) {
                Some(()) => return Sight::Read,
                None => Sight::Other,
            },
        };
        // Whoever reads it next finds it empty.
        *envelope = Envelope::default();
        sight
    }

    /// Whether `text` begins and ends as the remembered envelope: compared
    /// first, so that a message in another envelope costs no reading of its
    /// values.
    fn surrounds(&self, text: &str) -> bool {
        let [first, second] = self.holes;
        let (Some(before), Some(after)) =
            (self.literal.get(..first.at), self.literal.get(second.at..))
        else {
            return false;
        };
        !self.literal.is_empty()
            && text.as_bytes().starts_with(before)
            && text.as_bytes().ends_with(after)
    }

    /// When `text`, which [`surrounds`](Self::surrounds) found to begin and
    /// end as the remembered envelope, is it around values of its own: reads
    /// them into `envelope` and says where each ends.
    fn values_within<'a>(&self, text: &'a str, envelope: &mut Envelope<'a>) -> Option<[usize; 2]> {
        let bytes = text.as_bytes();
        let [first, second] = self.holes;
        let after = self.literal.get(second.at..)?;
        envelope.params = ParamsSlot::Object(Fields::default());
        let ParamsSlot::Object(fields) = &mut envelope.params else {
            return None;
        };
        let mut scan = Scan::new(text);
        scan.pos = first.at;
        let first_end = read_value(&mut scan, first.id, &mut envelope.id, fields)?;
        let between = self.literal.get(first.at..second.at)?;
        if !bytes.get(first_end..)?.starts_with(between) {
            return None;
        }
        scan.pos = first_end + between.len();
        let second_end = read_value(&mut scan, second.id, &mut envelope.id, fields)?;
        (second_end + after.len() == bytes.len()).then_some([first_end, second_end])
    }

    /// Fills in the rest of `envelope`, whose values end at `ends`, from the
    /// remembered reading.
    fn read_from<'a>(
        &self,
        text: &'a str,
        ends: [usize; 2],
        spans: &EnvelopeSpans,
        envelope: &mut Envelope<'a>,
    ) -> Option<()> {
        let [first, second] = self.holes;
        let ParamsSlot::Object(fields) = &mut envelope.params else {
            return None;
        };
        // A remembered span's place in `text`: after a value, moved as its
        // end moved.
        let text_of = |(start, end): (usize, usize)| {
            let (from, to) = if start >= second.end {
                (second.end, ends[1])
            } else if start >= first.end {
                (first.end, ends[0])
            } else {
                (0, 0)
            };
            text.get(start - from + to..end - from + to)
        };
        let value = |span: Span| match span {
            None => Some(None),
            Some(span) => text_of(span).map(|text| Some(Json::checked(text))),
        };
        envelope.jsonrpc = value(spans.jsonrpc)?;
        envelope.method = value(spans.method)?;
        envelope.plain_method = spans.plain_method.then(|| inner(envelope.method)).flatten();
        fields.name = value(spans.name)?;
        fields.plain_name = spans.plain_name.then(|| inner(fields.name)).flatten();
        fields.cursor = value(spans.cursor)?;
        fields.protocol_version = value(spans.protocol_version)?;
        fields.capabilities = value(spans.capabilities)?;
        fields.client_info = value(spans.client_info)?;
        if let Some(meta) = spans.meta {
            fields.meta = Some(MetaSlot::Object(meta.at(text_of)?));
        }
        Some(())
    }

    /// Remembers the envelope of `envelope`, read by the scanner from the
    /// whole message `text`: its bytes, or what was read from them when
    /// they are `repeated`. `None` (and nothing remembered) unless it is a
    /// request with arguments.
    fn remember(&mut self, text: &str, envelope: &Envelope<'_>, repeated: bool) -> Option<()> {
        let [first, second] = values(text, envelope)?;
        let bytes = text.as_bytes();
        let between = &bytes[first.end..second.start];
        let holes = [
            Hole {
                at: first.start,
                end: first.end,
                id: first.id,
            },
            Hole {
                at: first.start + between.len(),
                end: second.end,
                id: second.id,
            },
        ];
        if repeated {
            self.holes = holes;
            // Every other span lies outside both values: they are members
            // apart from `id` and `arguments`, or inside other members.
            self.spans = match &envelope.params {
                ParamsSlot::Object(fields) => {
                    EnvelopeSpans::of(envelope, fields, |value| span_in(text, value))
                }
                _ => None,
            };
            return Some(());
        }
        let (before, after) = (&bytes[..first.start], &bytes[second.end..]);
        if before.len() + between.len() + after.len() > MAX_REMEMBERED {
            return None;
        }
        self.holes = holes;
        self.spans = None;
        self.literal.clear();
        self.literal.extend_from_slice(before);
        self.literal.extend_from_slice(between);
        self.literal.extend_from_slice(after);
        Some(())
    }
}

/// Where a request's id and arguments lie in `text`.
#[derive(Clone, Copy)]
struct Value {
    start: usize,
    end: usize,
    id: bool,
}

/// The id and the arguments of `envelope`, read from `text`, in the order
/// they come; `None` unless it is a request with arguments.
fn values(text: &str, envelope: &Envelope<'_>) -> Option<[Value; 2]> {
    let (Some(id), None, None, ParamsSlot::Object(fields)) = (
        envelope.id,
        envelope.result,
        envelope.error,
        &envelope.params,
    ) else {
        return None;
    };
    let value =
        |json: Json<'_>, id| span_in(text, json.get()).map(|(start, end)| Value { start, end, id });
    let id = value(id, true)?;
    let arguments = value(fields.arguments?, false)?;
    let ordered = if id.start < arguments.start {
        [id, arguments]
    } else {
        [arguments, id]
    };
    (ordered[0].end <= ordered[1].start).then_some(ordered)
}

/// Reads the id (`id`) or else the arguments at `scan`'s place, as the
/// scanner reads them in the envelope and in `params`; where the value ends.
#[inline]
fn read_value<'a>(
    scan: &mut Scan<'a, '_>,
    id: bool,
    id_slot: &mut Option<Json<'a>>,
    fields: &mut Fields<'a>,
) -> Option<usize> {
    // The scanner passes over whitespace before a value; a remembered value
    // never starts with it, so this message's whitespace differs.
    if let Some(b' ' | b'\t' | b'\n' | b'\r') = scan.peek() {
        return None;
    }
    if id {
        *id_slot = Some(scan.value()?);
    } else {
        scan.arguments(fields)?;
    }
    Some(scan.pos)
}

/// A string value's text inside its quotes.
fn inner(value: Option<Json<'_>>) -> Option<&str> {
    value?.get().strip_prefix('"')?.strip_suffix('"')
}

impl EnvelopeSpans {
    /// The spans of what `envelope` (whose params are `fields`) read,
    /// `span` saying where each lies; `None` if one has no span.
    fn of(
        envelope: &Envelope<'_>,
        fields: &Fields<'_>,
        span: impl Fn(&str) -> Option<(usize, usize)>,
    ) -> Option<Self> {
        // `Some(None)` for an absent value, `None` for one without a span.
        let value = |value: Option<Json<'_>>| {
            value
                .map(|value| span(value.get()))
                .map_or(Some(None), |span| span.map(Some))
        };
        // A plain string is its value's text inside the quotes: `None` for
        // any other (the scanner reads none).
        let plain = |plain: Option<&str>, value: Option<Json<'_>>| match plain {
            None => Some(false),
            Some(plain) => (inner(value) == Some(plain)).then_some(true),
        };
        Some(EnvelopeSpans {
            jsonrpc: value(envelope.jsonrpc)?,
            method: value(envelope.method)?,
            plain_method: plain(envelope.plain_method, envelope.method)?,
            name: value(fields.name)?,
            plain_name: plain(fields.plain_name, fields.name)?,
            cursor: value(fields.cursor)?,
            protocol_version: value(fields.protocol_version)?,
            capabilities: value(fields.capabilities)?,
            client_info: value(fields.client_info)?,
            meta: match &fields.meta {
                None => None,
                Some(MetaSlot::Object(meta)) => Some(MetaSpans::of(meta, &span)?),
                Some(MetaSlot::Other(_)) => return None,
            },
        })
    }
}

#[cfg(test)]
mod tests;
