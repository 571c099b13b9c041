//! Annotation JSON rendered once, looked up per request, and the form it is
//! rendered in (`normalise`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::protocol::{ExtensionResolveResult, ResolvedToolAnnotations};
use crate::{Annotations, Authorization, Hint};

/// The form a resolution is rendered and compared in: defaults applied, and the
/// tool's title kept when the resolution names none, so a client showing
/// `annotations.title` shows the same name before and after resolving.
pub(crate) fn normalise(resolved: Annotations, static_annotations: &Annotations) -> Annotations {
    let mut annotations = resolved.effective();
    if annotations.title.is_none() {
        annotations.title = static_annotations.title;
    }
    annotations
}

/// The annotation JSON of every value seen at start-up, keyed by the value.
///
/// A rule-based resolver can return a combination no action declares; such a
/// value misses the map and is rendered on the spot.
#[derive(Debug, Default)]
pub(crate) struct Fragments {
    /// By the ten hints packed into one integer ([`hint_key`]), then by title:
    /// hashing one integer is cheaper than hashing the whole value.
    rendered: HashMap<u32, Vec<Titled>, BuildHasherDefault<FxHasher>>,
}

/// One rendered value: its title, and its JSON.
type Titled = (Option<&'static str>, Box<str>);

impl Fragments {
    /// Renders `annotations` unless it already is.
    pub fn insert(&mut self, annotations: Annotations) {
        let titles = self.rendered.entry(hint_key(&annotations)).or_default();
        if !titles.iter().any(|(title, _)| *title == annotations.title) {
            titles.push((annotations.title, annotations.to_string().into_boxed_str()));
        }
    }

    /// The length of the longest value rendered.
    pub fn longest(&self) -> usize {
        self.rendered
            .values()
            .flatten()
            .map(|(_, json)| json.len())
            .max()
            .unwrap_or(0)
    }

    /// The pre-rendered JSON of `annotations`, if it was seen at start-up.
    pub fn get(&self, annotations: &Annotations) -> Option<&str> {
        self.rendered
            .get(&hint_key(annotations))?
            .iter()
            .find(|(title, _)| *title == annotations.title)
            .map(|(_, json)| &**json)
    }
}

/// Appends `annotations` as compact JSON, byte for byte as their `Display`
/// writes it (the title, then the hints present in [`Hint::ALL`] order),
/// without the formatting machinery: for a value no fragment holds.
pub(crate) fn write_annotations(out: &mut Vec<u8>, annotations: &Annotations) {
    out.push(b'{');
    let mut first = true;
    if let Some(title) = annotations.title {
        out.extend_from_slice(br#""title":"#);
        serde_json::to_writer(&mut *out, title).expect("a string always serializes");
        first = false;
    }
    for hint in Hint::ALL {
        if let Some(value) = annotations.get(hint) {
            if !first {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(hint.wire_name().as_bytes());
            out.extend_from_slice(if value { b"\":true" } else { b"\":false" });
            first = false;
        }
    }
    out.push(b'}');
}

/// `,"securitySchemes":[...]` of a resolution that needs authorization,
/// appended to `out` (as `tool_forms::security_schemes` renders it).
pub(crate) fn write_security_schemes(out: &mut Vec<u8>, authorization: Option<Authorization>) {
    if let Some(authorization) = authorization {
        out.extend_from_slice(b",\"securitySchemes\":");
        serde_json::to_writer(out, &authorization).expect("an authorization always serializes");
    }
}

/// The ten hints, two bits each: 0 unset, 1 false, 2 true. Distinct hints give
/// distinct keys.
fn hint_key(annotations: &Annotations) -> u32 {
    [
        annotations.read_only,
        annotations.destructive,
        annotations.idempotent,
        annotations.open_world,
        annotations.ai_processing,
        annotations.slow_execution,
        annotations.resource_intensive,
        annotations.sensitive_data,
        annotations.privileged_access,
        annotations.reversible,
    ]
    .into_iter()
    .fold(0, |key, hint| {
        key << 2
            | match hint {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            }
    })
}

/// The 16 possible dialect C results of one tool, one per combination of the
/// four core hints.
#[derive(Debug)]
pub(crate) struct ExtensionResults {
    by_hints: Vec<Box<str>>,
}

impl ExtensionResults {
    /// Renders every combination for the tool `name`.
    pub fn new(name: &str) -> Self {
        let by_hints = (0..16u8)
            .map(|bits| {
                let result = ExtensionResolveResult {
                    result_type: "complete".to_owned(),
                    name: name.to_owned(),
                    annotations: from_bits(bits),
                    meta: None,
                };
                serde_json::to_string(&result)
                    .expect("a resolve result always serializes")
                    .into_boxed_str()
            })
            .collect();
        ExtensionResults { by_hints }
    }

    /// The length of the longest result.
    pub fn longest(&self) -> usize {
        self.by_hints
            .iter()
            .map(|result| result.len())
            .max()
            .unwrap_or(0)
    }

    /// The result for these effective hints.
    pub fn get(&self, hints: ResolvedToolAnnotations) -> &str {
        &self.by_hints[usize::from(to_bits(hints))]
    }
}

/// The index of `hints` among the 16 combinations of the four hints, as
/// the results prepared for each (here and in `resolution_tree.rs`) are kept.
pub(crate) fn to_bits(hints: ResolvedToolAnnotations) -> u8 {
    u8::from(hints.read_only_hint)
        | u8::from(hints.destructive_hint) << 1
        | u8::from(hints.idempotent_hint) << 2
        | u8::from(hints.open_world_hint) << 3
}

/// The hints of index `bits`: [`to_bits`] back.
pub(crate) fn from_bits(bits: u8) -> ResolvedToolAnnotations {
    ResolvedToolAnnotations {
        read_only_hint: bits & 1 != 0,
        destructive_hint: bits & 2 != 0,
        idempotent_hint: bits & 4 != 0,
        open_world_hint: bits & 8 != 0,
    }
}

/// The multiply-rotate hash of rustc (FxHash): a handful of small fields hash
/// in a few nanoseconds, where SipHash's flood protection buys nothing (the
/// keys are the tool's own annotation values, not client input).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Whole words read as they are; the last few bytes gathered into one
        // without a copy through memory.
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let word = rest
                .iter()
                .rev()
                .fold(0, |word, byte| word << 8 | u64::from(*byte));
            self.add(word);
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn write_isize(&mut self, value: isize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_round_trips() {
        let results = ExtensionResults::new("t");
        for bits in 0..16u8 {
            let hints = from_bits(bits);
            assert_eq!(to_bits(hints), bits);
            let parsed: ExtensionResolveResult = serde_json::from_str(results.get(hints)).unwrap();
            assert_eq!(parsed.annotations, hints);
            assert_eq!(parsed.name, "t");
        }
    }

    #[test]
    fn annotations_are_written_as_on_the_wire() {
        let written = |annotations: Annotations| {
            let mut out = b"[".to_vec();
            write_annotations(&mut out, &annotations);
            String::from_utf8(out).unwrap()
        };
        for (annotations, expected) in [
            (Annotations::new(), "[{}"),
            (
                Annotations::new().read_only(true),
                r#"[{"readOnlyHint":true}"#,
            ),
            (
                Annotations::new()
                    .title("Files")
                    .destructive(false)
                    .reversible(true),
                r#"[{"title":"Files","destructiveHint":false,"reversibleHint":true}"#,
            ),
            (
                Annotations::new().title("say \"hi\"\n").open_world(false),
                r#"[{"title":"say \"hi\"\n","openWorldHint":false}"#,
            ),
        ] {
            assert_eq!(written(annotations), expected);
        }
        // Every hint, each way: as `Display` (annot-model's own writer) has it.
        for bits in 0..(1u32 << Hint::ALL.len()) {
            let annotations = Hint::ALL
                .iter()
                .enumerate()
                .fold(Annotations::new().title("t"), |all, (index, hint)| {
                    all.with(*hint, Some(bits >> index & 1 == 1))
                });
            assert_eq!(written(annotations), format!("[{annotations}"));
        }
    }

    #[test]
    fn names_hash_by_little_endian_words() {
        let hash = |words: &[u64]| {
            let mut hasher = FxHasher::default();
            words.iter().for_each(|word| hasher.add(*word));
            hasher.finish()
        };
        let mut hasher = FxHasher::default();
        hasher.write(b"abcdefghijk");
        assert_eq!(hasher.finish(), hash(&[0x6867_6665_6463_6261, 0x6b_6a69]));
        let mut hasher = FxHasher::default();
        hasher.write(b"abcdefgh");
        assert_eq!(hasher.finish(), hash(&[0x6867_6665_6463_6261]));
        let mut hasher = FxHasher::default();
        hasher.write(b"");
        assert_eq!(hasher.finish(), hash(&[]));
    }

    #[test]
    fn fragments_miss_unseen_values() {
        let mut fragments = Fragments::default();
        let read = Annotations::new().read_only(true);
        fragments.insert(read);
        assert_eq!(fragments.get(&read), Some(r#"{"readOnlyHint":true}"#));
        assert_eq!(fragments.get(&Annotations::new().read_only(false)), None);
        // The same hints under another title, or none: different values.
        let titled = read.title("Read");
        assert_eq!(fragments.get(&titled), None);
        fragments.insert(titled);
        assert_eq!(
            fragments.get(&titled),
            Some(r#"{"title":"Read","readOnlyHint":true}"#)
        );
        assert_eq!(fragments.get(&read), Some(r#"{"readOnlyHint":true}"#));
        let reversible = Annotations::new().reversible(true);
        assert_eq!(fragments.get(&reversible), None);
        assert_ne!(hint_key(&reversible), hint_key(&read));
    }
}
