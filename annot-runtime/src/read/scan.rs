//! The request reader of the hot path: one pass over the message's bytes that
//! slices out the envelope's members, the params' fields and their `_meta`
//! keys, checking the JSON syntax of everything it passes over.
//!
//! It reads the shape every client sends (unescaped member names, each named
//! once, `params` an object or `null`) and gives up on anything else: a
//! `\u` escape, a control character, a repeated member, nesting deeper than
//! 128, any syntax error. The caller then reads the message with serde_json
//! (`by_serde.rs`, the same structs), which decides. So this
//! reader never accepts what serde_json refuses, and where it answers it
//! answers the same: debug builds (tests, fuzzing) check both agree on every
//! message it reads.

use super::json::Json;
use super::keys;
use super::message::{Envelope, Extensions, Fields, Meta, MetaSlot, ParamsSlot};
use super::split::SplitArguments;
pub(crate) use envelope_memo::{EnvelopeMemo, Recalled};
pub(crate) use memo::MetaMemo;

mod envelope_memo;
mod memo;

/// Reads the envelope of a message (UTF-8 text) into `envelope` (empty, as
/// `Envelope::default()` makes it), or gives up (`None`, `envelope` left half
/// read) when the message is not of the shape this reader takes. A
/// `params._meta` that `memo` (if any) remembers is compared, not read again;
/// one read is remembered.
pub(crate) fn envelope<'a>(
    text: &'a str,
    envelope: &mut Envelope<'a>,
    memo: Option<&mut MetaMemo>,
) -> Option<()> {
    debug_assert_eq!(
        *envelope,
        Envelope::default(),
        "read into an empty envelope"
    );
    let mut scan = Scan::new(text);
    scan.memo = memo;
    let mut params = false;
    scan.object(|scan, key| match key {
        keys::JSONRPC => once(&mut envelope.jsonrpc, scan.value()?),
        keys::ID => once(&mut envelope.id, scan.value()?),
        keys::METHOD => once_noting_plain(
            (&mut envelope.method, &mut envelope.plain_method),
            scan.value_noting_plain()?,
        ),
        keys::RESULT => once(&mut envelope.result, scan.value()?),
        keys::ERROR => once(&mut envelope.error, scan.value()?),
        keys::PARAMS if !params => {
            params = true;
            scan.params(&mut envelope.params)
        }
        keys::PARAMS => None,
        _ => scan.skip(),
    })?;
    scan.ws();
    (scan.pos == scan.bytes.len()).then_some(())
}

/// The extensions a capabilities object (checked JSON of any type) declares,
/// as serde reads them, or `None` when
/// it is not of the shape this reader takes.
pub(crate) fn extensions(capabilities: Json<'_>) -> Option<Extensions<'_>> {
    Scan::new(capabilities.get()).capabilities()
}

/// The members of an argument object named in `names`, each as its text,
/// slot `i` for `names[i]`: `Some(None)` as soon as a member is not in
/// `names` or comes twice, `None` when the text is not of the shape this
/// reader takes (the caller then asks serde_json, which decides).
pub(crate) fn members<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
) -> Option<Option<[Option<&'a str>; N]>> {
    let mut scan = Scan::new(text);
    let mut slots = [None; N];
    let mut refused = false;
    let read = scan.object(|scan, key| {
        let slot = names.iter().position(|name| name.as_bytes() == key);
        match slot {
            Some(slot) if slots[slot].is_none() => {
                slots[slot] = Some(scan.value()?.get());
                Some(())
            }
            _ => {
                refused = true;
                None
            }
        }
    });
    if refused {
        return Some(None);
    }
    read?;
    scan.ws();
    (scan.pos == scan.bytes.len()).then_some(Some(slots))
}

/// Sets a member read for the first time; `None` for a repeated one.
fn once<'a>(slot: &mut Option<Json<'a>>, value: Json<'a>) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}

/// [`once`] of a value read with its text between the quotes, when it is a
/// string without escapes, into the slot beside.
fn once_noting_plain<'a>(
    (slot, plain_slot): (&mut Option<Json<'a>>, &mut Option<&'a str>),
    (value, plain): (Json<'a>, Option<&'a str>),
) -> Option<()> {
    once(slot, value)?;
    *plain_slot = plain;
    Some(())
}

struct Scan<'a, 'm> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Where a `params._meta` is remembered, for a whole message.
    memo: Option<&'m mut MetaMemo>,
}

/// How deep arrays and objects may nest before the reader gives up.
const MAX_DEPTH: u32 = 128;

impl<'a> Scan<'a, '_> {
    fn new(text: &'a str) -> Self {
        Scan {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            memo: None,
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An object, each member handed to `member` with the reader on its
    /// value (whitespace skipped), which it must read whole.
    fn object(&mut self, member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.object_named(Self::key, member)
    }

    /// [`object`](Self::object), whose member names are long (`_meta`'s and
    /// the extensions' `io.modelcontextprotocol/...`): their ends are searched
    /// for eight bytes at a time.
    fn object_of_long_names(
        &mut self,
        member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        self.object_named(Self::long_key, member)
    }

    /// An object whose member names `name` reads.
    #[inline(always)]
    fn object_named(
        &mut self,
        mut name: impl FnMut(&mut Self) -> Option<&'a [u8]>,
        mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        self.ws();
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = name(self)?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            member(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.ws();
                }
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A member name without escapes, as bytes: compared with the names
    /// read, never taken as text.
    #[inline]
    fn key(&mut self) -> Option<&'a [u8]> {
        self.name_ending(bytewise_plain_end)
    }

    /// [`key`](Self::key), its end searched for eight bytes at a time.
    fn long_key(&mut self) -> Option<&'a [u8]> {
        self.name_ending(plain_end)
    }

    /// A member name, `plain_end` finding where its plain part ends.
    #[inline(always)]
    fn name_ending(&mut self, plain_end: fn(&[u8], usize) -> usize) -> Option<&'a [u8]> {
        // `string`, its text kept.
        let bytes = self.bytes;
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        let end = plain_end(bytes, start);
        if bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Some(&bytes[start..end]);
        }
        // An escape (given up on) or a control character (refused), read to
        // its end out of line: answering `None` here at once measured 30%
        // slower on a whole `tools/list` (the reader is inlined otherwise).
        let escaped = self.escaped_string(end)?;
        (!escaped).then(|| &self.bytes[start..self.pos - 1])
    }

    /// One value, as its text.
    #[inline]
    fn value(&mut self) -> Option<Json<'a>> {
        let start = self.pos;
        // Most values read by name are strings or numbers (an id): no need
        // for the nesting machinery of `skip`.
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'-' | b'0'..=b'9' => self.number()?,
            _ => self.skip()?,
        }
        Some(Json::checked(&self.text[start..self.pos]))
    }

    /// One value, as its text, and, when it is a string without escapes,
    /// its text between the quotes.
    #[inline]
    fn value_noting_plain(&mut self) -> Option<(Json<'a>, Option<&'a str>)> {
        let start = self.pos;
        if self.peek()? != b'"' {
            return Some((self.value()?, None));
        }
        let escaped = self.string()?;
        let plain = (!escaped).then(|| &self.text[start + 1..self.pos - 1]);
        Some((Json::checked(&self.text[start..self.pos]), plain))
    }

    /// One value, as its text, and what `read` makes of it in the same
    /// pass; where `read` gives up, the value is checked as any value and
    /// comes with `None`.
    fn value_with<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<(Json<'a>, Option<T>)> {
        let start = self.pos;
        let read = read(self);
        if read.is_none() {
            self.pos = start;
            self.skip()?;
        }
        Some((Json::checked(&self.text[start..self.pos]), read))
    }

    /// `params` into `slot`: an object's fields, or `null` (read as absent).
    fn params(&mut self, slot: &mut ParamsSlot<'a>) -> Option<()> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            *slot = ParamsSlot::Absent;
            return Some(());
        }
        *slot = ParamsSlot::Object(Fields::default());
        let ParamsSlot::Object(fields) = slot else {
            return None;
        };
        self.object(|scan, key| match key {
            keys::NAME => once_noting_plain(
                (&mut fields.name, &mut fields.plain_name),
                scan.value_noting_plain()?,
            ),
            keys::ARGUMENTS if fields.arguments.is_none() => scan.arguments(fields),
            keys::ARGUMENTS => None,
            keys::CURSOR => once(&mut fields.cursor, scan.value()?),
            keys::PROTOCOL_VERSION => once(&mut fields.protocol_version, scan.value()?),
            keys::CAPABILITIES => once(&mut fields.capabilities, scan.value()?),
            keys::CLIENT_INFO => once(&mut fields.client_info, scan.value()?),
            keys::META if fields.meta.is_none() => {
                let MetaSlot::Object(meta) = fields.meta.insert(MetaSlot::Object(Meta::default()))
                else {
                    return None;
                };
                scan.remembered_meta(meta)
            }
            keys::META => None,
            _ => scan.skip(),
        })
    }

    /// `params.arguments` into `fields`: its text, and its members split in
    /// this pass, so that the tool's reader does not read the object again
    /// (where it is not split, the tool does).
    // Inlined into both of its callers, as it was into `params` alone before
    // the envelope memo called it too.
    #[inline(always)]
    fn arguments(&mut self, fields: &mut Fields<'a>) -> Option<()> {
        // Split where it lies: the split is large for a return value. And
        // not through `value_with`, whose text and split came back through
        // memory, written a half at a time and read back whole: the read
        // stalled.
        let split = fields.split_arguments.insert(SplitArguments::default());
        let start = self.pos;
        if self.split_object(split).is_none() {
            self.pos = start;
            self.skip()?;
            fields.split_arguments = None;
        }
        fields.arguments = Some(Json::checked(&self.text[start..self.pos]));
        Some(())
    }

    /// An object's members, names and values as their text, into `split`
    /// (empty); `None` for anything else, or an object of more than
    /// [`MAX_SPLIT`](super::MAX_SPLIT) members.
    fn split_object(&mut self, split: &mut SplitArguments<'a>) -> Option<()> {
        if self.peek()? != b'{' {
            return None;
        }
        self.object(|scan, key| {
            let (value, plain) = scan.value_noting_plain()?;
            split.push(key, value.get(), plain.is_some())
        })
    }

    /// [`meta`](Self::meta), compared with the one the reader's memo
    /// remembers instead when it is the same text, and remembered otherwise.
    /// Out of line: most requests before 2026-07-28 carry no `_meta`.
    #[inline(never)]
    fn remembered_meta(&mut self, meta: &mut Meta<'a>) -> Option<()> {
        let start = self.pos;
        let Some(memo) = self.memo.take() else {
            return self.meta(meta);
        };
        if let Some((length, recalled)) = memo.recall(&self.text[start..]) {
            *meta = recalled;
            self.pos += length;
        } else {
            self.meta(meta)?;
            memo.remember(&self.text[start..self.pos], meta);
        }
        self.memo = Some(memo);
        Some(())
    }

    /// `params._meta` into `meta`: an object.
    fn meta(&mut self, meta: &mut Meta<'a>) -> Option<()> {
        self.object_of_long_names(|scan, key| match key {
            keys::META_PROTOCOL_VERSION => once(&mut meta.protocol_version, scan.value()?),
            keys::META_CLIENT_CAPABILITIES if meta.client_capabilities.is_none() => {
                // Their extensions are read in this pass, so that no later
                // step reads the capabilities again (where they are not,
                // serde_json does).
                let (capabilities, preread) = scan.value_with(Self::capabilities)?;
                meta.client_capabilities = Some(capabilities);
                meta.preread = preread;
                Some(())
            }
            keys::META_CLIENT_CAPABILITIES => None,
            keys::META_CLIENT_INFO => once(&mut meta.client_info, scan.value()?),
            keys::META_ANNOT => once(&mut meta.annot, scan.value()?),
            keys::META_PROGRESS_TOKEN => once(&mut meta.progress_token, scan.value()?),
            _ => scan.skip(),
        })
    }

    /// A capabilities value (of any JSON type): the extensions it declares,
    /// as serde reads them.
    fn capabilities(&mut self) -> Option<Extensions<'a>> {
        let mut extensions = None;
        if self.peek()? != b'{' {
            self.skip()?;
        } else {
            self.object(|scan, key| match key {
                keys::EXTENSIONS if extensions.is_none() => {
                    extensions = Some(scan.extensions()?);
                    Some(())
                }
                keys::EXTENSIONS => None,
                _ => scan.skip(),
            })?;
        }
        Some(extensions.unwrap_or_default())
    }

    /// `capabilities.extensions` (of any JSON type): the settings of the
    /// extensions this server knows.
    fn extensions(&mut self) -> Option<Extensions<'a>> {
        let mut extensions = Extensions::default();
        if self.peek()? != b'{' {
            self.skip()?;
            return Some(extensions);
        }
        self.object_of_long_names(|scan, key| match key {
            keys::EXTENSION_TOOL_RESOLUTION => once(&mut extensions.tool_resolution, scan.value()?),
            keys::EXTENSION_ANNOT_RESOLUTION => {
                once(&mut extensions.annot_resolution, scan.value()?)
            }
            keys::EXTENSION_ANNOT_AUTHORIZATION => {
                once(&mut extensions.annot_authorization, scan.value()?)
            }
            keys::EXTENSION_TRUST_ANNOTATIONS => {
                once(&mut extensions.trust_annotations, scan.value()?)
            }
            _ => scan.skip(),
        })?;
        Some(extensions)
    }

    /// Passes over one value, checking its syntax. Iterative: `open` holds
    /// one bit per enclosing container, set for an object.
    fn skip(&mut self) -> Option<()> {
        let mut open: u128 = 0;
        let mut depth = 0;
        loop {
            // A value starts here.
            self.ws();
            match self.peek()? {
                b'{' | b'[' if depth == MAX_DEPTH => return None,
                b'{' => {
                    self.pos += 1;
                    self.ws();
                    if self.eat(b'}').is_none() {
                        open = open << 1 | 1;
                        depth += 1;
                        self.member_name()?;
                        continue;
                    }
                }
                b'[' => {
                    self.pos += 1;
                    self.ws();
                    if self.eat(b']').is_none() {
                        open <<= 1;
                        depth += 1;
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close what it ends, or go on to the next one.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.ws();
                let object = open & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        if object {
                            self.ws();
                            self.member_name()?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                self.pos += 1;
                open >>= 1;
                depth -= 1;
            }
        }
    }

    /// `"name":` inside a skipped object.
    #[inline(always)]
    fn member_name(&mut self) -> Option<()> {
        self.string()?;
        self.ws();
        self.eat(b':')
    }

    /// A string, its quotes included; says whether it has escapes. Gives up
    /// on `\u` escapes (serde_json decides about surrogates) and control
    /// characters.
    #[inline]
    fn string(&mut self) -> Option<bool> {
        let bytes = self.bytes;
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        // Most strings have no escapes: one search for their end.
        let end = plain_end(bytes, self.pos + 1);
        if bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Some(false);
        }
        self.escaped_string(end)
    }

    /// The rest of a string from `pos`, where its plain start ends on
    /// something other than its closing quote.
    #[cold]
    fn escaped_string(&mut self, mut pos: usize) -> Option<bool> {
        let bytes = self.bytes;
        let mut escaped = false;
        loop {
            match *bytes.get(pos)? {
                b'"' => {
                    self.pos = pos + 1;
                    return Some(escaped);
                }
                b'\\' => match bytes.get(pos + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        escaped = true;
                        pos = plain_end(bytes, pos + 2);
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    #[inline]
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Option<()> {
        let _ = self.eat(b'-');
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let start = self.pos;
        self.digits();
        (self.pos > start).then_some(())
    }
}

/// Where the plain part of a string starting at `pos` ends: the position of
/// the next `"`, `\` or control character, or the end of `bytes`. Eight
/// bytes at a time, as a little-endian word in which the lowest flagged
/// byte is exact (a false flag can only follow a true one). Every string
/// value is searched so: counted in instructions on a whole `tools/resolve`,
/// 8% fewer than a byte at a time for its first 32 bytes (chosen before by
/// time on a quiet machine, where a loop whose exit the branch predictor sees
/// coming ran ahead of the word arithmetic). Member names, mostly short,
/// stay a byte at a time ([`bytewise_plain_end`]): eight at a time counted
/// 3% more.
#[inline]
fn plain_end(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let word = special(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if word != 0 {
            return pos + word.trailing_zeros() as usize / 8;
        }
        pos += 8;
    }
    while let Some(&byte) = bytes.get(pos) {
        if is_special(byte) {
            break;
        }
        pos += 1;
    }
    pos
}

/// [`plain_end`] a byte at a time to the end, each byte looked up in a
/// table: for member names, which are short or at most a few dozen bytes.
/// (Measured on whole `tools/resolve` requests: a bound of 32 bytes made
/// this 10% slower, the table 8% faster.)
#[inline]
fn bytewise_plain_end(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(&byte) = bytes.get(pos) {
        if SPECIAL[usize::from(byte)] {
            break;
        }
        pos += 1;
    }
    pos
}

/// Whether `byte` ends the plain part of a string: `"`, `\` or a control
/// character.
#[inline(always)]
const fn is_special(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// [`is_special`] of every byte, looked up.
static SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        special[byte] = is_special(byte as u8);
        byte += 1;
    }
    special
};

/// The high bit of each byte of `word` that is `"`, `\` or a control
/// character is set, and maybe of bytes after one that is.
#[inline]
fn special(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGH;
    zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\')))
        | (word.wrapping_sub(ONES * 0x20) & !word & HIGH)
}

#[cfg(test)]
mod tests;
