//! The trust-annotations extension on `tools/call` results: which requests
//! get claims, the claims a handler adds to its output, and how they are
//! written into `_meta` objects.
//!
//! A result claims at least its floor ([`Call::trust_floor`](crate::server::Call::trust_floor)):
//! what the call's resolution implies, joined with what the tool declares.
//! Nothing a handler does can lower it: [`ToolOutput`](crate::server::ToolOutput)
//! has no way to take a claim back, and every claim is joined with the
//! others (the extension's union semantics).

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::read::{self, Meta};
use crate::trust::TrustClaims;

/// The floor of a call's claims, as [`Call::trust_floor`](crate::server::Call::trust_floor)
/// gives it: small, since a floor carries no evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Floor {
    pub sensitive: bool,
    pub untrusted: bool,
}

impl Floor {
    /// The floor as claims.
    pub fn claims(self) -> TrustClaims {
        TrustClaims {
            sensitive: self.sensitive,
            untrusted: self.untrusted,
            evidence_ref: None,
        }
    }
}

/// What a handler claimed on its output: for the whole result, and for some
/// content blocks, by index. Only ever joined with more.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OutputClaims {
    result: TrustClaims,
    blocks: Vec<(usize, TrustClaims)>,
}

impl OutputClaims {
    /// Joins `claims` with the result's.
    pub fn add(&mut self, claims: &TrustClaims) {
        self.result = self.result.clone().union(claims);
    }

    /// Joins `claims` with those of block `index`.
    pub fn add_to_block(&mut self, index: usize, claims: TrustClaims) {
        match self.blocks.iter_mut().find(|(at, _)| *at == index) {
            Some((_, present)) => *present = present.clone().union(&claims),
            None => self.blocks.push((index, claims)),
        }
    }

    /// The result's own claims.
    pub fn result(&self) -> &TrustClaims {
        &self.result
    }

    /// Each claimed block's index and claims.
    pub fn blocks(&self) -> &[(usize, TrustClaims)] {
        &self.blocks
    }
}

/// Whether the answer to a `tools/call` carries claims: the server offers the
/// extension (`offered`) and the client took it up, with empty settings, in
/// the request's own capabilities when it carries some (a 2026-07-28 request
/// always does, and is judged by them alone), else in `initialize`
/// (`session`).
pub(crate) fn negotiated(offered: bool, session: bool, request_meta: Option<&Meta<'_>>) -> bool {
    offered
        && match request_meta.and_then(Meta::extensions) {
            Some(extensions) => extensions
                .trust_annotations
                .is_some_and(read::is_empty_object),
            None => session,
        }
}

/// The text of a result's `_meta` object for its claims: `floor` joined with
/// what the handler claimed (`own`, absent for a handler's error) for the
/// whole result and for blocks the result, of `blocks` blocks, does not
/// have: a claim is never dropped. `None` when they say nothing.
pub(crate) fn result_meta(
    floor: Floor,
    own: Option<&OutputClaims>,
    blocks: usize,
) -> Option<String> {
    let mut claims = floor.claims();
    if let Some(own) = own {
        claims = claims.union(&own.result);
        for (_, orphan) in own.blocks.iter().filter(|(at, _)| *at >= blocks) {
            claims = claims.union(orphan);
        }
    }
    let mut meta = Map::new();
    claims.write_meta(&mut meta);
    (!meta.is_empty()).then(|| Value::Object(meta).to_string())
}

/// A result's `content` as written: each block with the `_meta` of its own
/// claims, if it has any.
pub(crate) struct Blocks<'a, C> {
    content: &'a [C],
    claims: &'a [(usize, TrustClaims)],
    /// The display-templates text, on the first block.
    display_text: Option<&'a str>,
}

impl<'a, C> Blocks<'a, C> {
    /// `content`, each block with the claims `claims` gives for its index.
    pub fn new(content: &'a [C], claims: &'a [(usize, TrustClaims)]) -> Self {
        Blocks {
            content,
            claims,
            display_text: None,
        }
    }

    /// The first block also carries `text` for the person watching.
    pub fn with_display_text(mut self, text: Option<&'a str>) -> Self {
        self.display_text = text;
        self
    }
}

/// One block and the `_meta` of its claims.
#[derive(Serialize)]
struct ClaimedBlock<'a, C> {
    #[serde(flatten)]
    content: &'a C,
    #[serde(rename = "_meta")]
    meta: Map<String, Value>,
}

impl<C: Serialize> Serialize for Blocks<'_, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.content.len()))?;
        for (index, content) in self.content.iter().enumerate() {
            let mut meta = Map::new();
            for (_, claims) in self.claims.iter().filter(|(at, _)| *at == index) {
                claims.write_meta(&mut meta);
            }
            if let Some(text) = self.display_text.filter(|_| index == 0) {
                meta.insert(
                    crate::protocol::DISPLAY_TEMPLATES_EXTENSION.to_owned(),
                    serde_json::json!({ "text": text }),
                );
            }
            if meta.is_empty() {
                seq.serialize_element(content)?;
            } else {
                seq.serialize_element(&ClaimedBlock { content, meta })?;
            }
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = crate::protocol::TRUST_ANNOTATIONS_EXTENSION;

    fn meta(value: &Value) -> Meta<'_> {
        let text: &'static str = Box::leak(value.to_string().into_boxed_str());
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn negotiated_by_the_request_else_the_session() {
        let with = json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {KEY: {}}}});
        let without = json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {}}});
        let odd =
            json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {KEY: {"x": 1}}}});
        let nothing = json!({"other": 1});
        // (offered, session, request `_meta`, expected)
        let table = [
            (true, false, Some(&with), true),
            (true, true, Some(&without), false),
            (true, true, Some(&odd), false),
            (true, true, Some(&nothing), true),
            (true, true, None, true),
            (true, false, None, false),
            (false, true, Some(&with), false),
            (false, true, None, false),
        ];
        for (offered, session, request, expected) in table {
            let request = request.map(meta);
            assert_eq!(
                negotiated(offered, session, request.as_ref()),
                expected,
                "{offered} {session} {request:?}"
            );
        }
    }

    #[test]
    fn blocks_carry_their_own_claims_and_orphans_go_to_the_result() {
        let mut own = OutputClaims::default();
        own.add_to_block(1, TrustClaims::NONE.sensitive());
        own.add_to_block(1, TrustClaims::NONE);
        own.add_to_block(7, TrustClaims::NONE.untrusted());
        own.add(&TrustClaims::NONE);
        let content = [
            json!({"type": "text", "text": "a"}),
            json!({"type": "text", "text": "b"}),
        ];
        let written = serde_json::to_value(Blocks::new(&content, own.blocks())).unwrap();
        assert_eq!(
            written,
            json!([
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b", "_meta": {KEY: {"sensitive": true}}},
            ])
        );
        let plain = serde_json::to_value(Blocks::new(&content, &[])).unwrap();
        assert_eq!(plain, json!(content));
        let none = Floor {
            sensitive: false,
            untrusted: false,
        };
        let meta = result_meta(none, Some(&own), content.len()).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&meta).unwrap(),
            json!({KEY: {"untrusted": true}})
        );
        assert_eq!(result_meta(none, None, 0), None);
        let sensitive = Floor {
            sensitive: true,
            ..none
        };
        assert_eq!(
            result_meta(sensitive, None, 0).as_deref(),
            Some(r#"{"io.modelcontextprotocol/trust-annotations":{"sensitive":true}}"#)
        );
    }
}
