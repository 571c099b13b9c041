//! The trust-annotations extension on `tools/call` results: which requests
//! get claims, the claims a handler adds to its [`ToolOutput`] (which only
//! ever strengthen), and the `_meta` objects they are written to.
//!
//! A result claims at least its floor ([`Call::trust_floor`](super::Call::trust_floor)):
//! what the call's resolution implies, joined with what the tool declares.
//! Nothing a handler does can lower it: [`ToolOutput`] has no way to take a
//! claim back, and every claim is joined with the others (the extension's
//! union semantics).

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Map, Value};

use super::output::{Content, ToolOutput};
use crate::read::{self, Meta};
use crate::trust::TrustClaims;

/// The floor of a call's claims, as [`Call::trust_floor`](super::Call::trust_floor)
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
/// content blocks, by index.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct OutputClaims {
    result: TrustClaims,
    blocks: Vec<(usize, TrustClaims)>,
}

impl ToolOutput {
    /// Adds `claims` to the whole result. Claims only add up: each holds when
    /// any call to this method (or the call's floor) makes it, so passing
    /// [`TrustClaims::NONE`] changes nothing. The first evidence given is
    /// kept.
    ///
    /// The server sends the claims only to a client that negotiated the
    /// trust-annotations extension, joined with the call's floor
    /// ([`Call::trust_floor`](super::Call::trust_floor)).
    ///
    /// ```
    /// use annot_runtime::server::ToolOutput;
    /// use annot_runtime::trust::TrustClaims;
    ///
    /// let output = ToolOutput::text("the collaborator roster")
    ///     .with_claims(TrustClaims::NONE.sensitive())
    ///     .with_claims(TrustClaims::NONE); // no claim taken back
    /// assert!(output.claims().sensitive);
    /// ```
    #[must_use]
    pub fn with_claims(mut self, claims: TrustClaims) -> Self {
        let own = self.claims.get_or_insert_default();
        own.result = own.result.clone().union(&claims);
        self
    }

    /// Adds a content block that makes `claims` on its own `_meta`: one block
    /// of a result may be sensitive or untrusted when the others are not. A
    /// block's claim raises the result's, never lowers it.
    ///
    /// ```
    /// use annot_runtime::server::{Content, ToolOutput};
    /// use annot_runtime::trust::TrustClaims;
    ///
    /// let output = ToolOutput::text("README.md")
    ///     .with_claimed_content(Content::text("draft advisory"), TrustClaims::NONE.sensitive());
    /// assert_eq!(output.block_claims(0), None);
    /// assert!(output.block_claims(1).unwrap().sensitive);
    /// ```
    #[must_use]
    pub fn with_claimed_content(mut self, content: Content, claims: TrustClaims) -> Self {
        self.content.push(content);
        let index = self.content.len() - 1;
        self.claim_block(index, claims)
    }

    /// Adds `claims` to the content block at `index` (as
    /// [`with_claimed_content`](Self::with_claimed_content)). A claim for a
    /// block the result no longer has when it is sent counts for the whole
    /// result: a claim is never dropped.
    #[must_use]
    pub fn claim_block(mut self, index: usize, claims: TrustClaims) -> Self {
        let own = self.claims.get_or_insert_default();
        match own.blocks.iter_mut().find(|(at, _)| *at == index) {
            Some((_, present)) => *present = present.clone().union(&claims),
            None => own.blocks.push((index, claims)),
        }
        self
    }

    /// What the handler claimed for the whole result (the server joins the
    /// call's floor with it when it sends them).
    pub fn claims(&self) -> &TrustClaims {
        self.claims
            .as_ref()
            .map_or(&TrustClaims::NONE, |own| &own.result)
    }

    /// What the handler claimed for the content block at `index`, if anything.
    pub fn block_claims(&self, index: usize) -> Option<&TrustClaims> {
        self.block_claim_list()
            .iter()
            .find(|(at, _)| *at == index)
            .map(|(_, claims)| claims)
    }

    fn block_claim_list(&self) -> &[(usize, TrustClaims)] {
        self.claims.as_ref().map_or(&[], |own| &own.blocks)
    }
}

/// Whether the answer to a `tools/call` carries claims: the server offers the
/// extension (`offered`) and the client took it up, with empty settings, in
/// the request's own capabilities when it carries some (a 2026-07-28 request
/// always does, and is judged by them alone), else in `initialize`
/// (`session`).
pub(super) fn negotiated(offered: bool, session: bool, request_meta: Option<&Meta<'_>>) -> bool {
    offered
        && match request_meta.and_then(Meta::extensions) {
            Some(extensions) => extensions
                .trust_annotations
                .is_some_and(read::is_empty_object),
            None => session,
        }
}

/// The text of a result's `_meta` object for its claims: `floor` joined with
/// what the handler claimed for the whole result (`output`, absent for a
/// handler's error) and with the claims of blocks the result does not have.
/// `None` when they say nothing.
pub(super) fn result_meta(floor: Floor, output: Option<&ToolOutput>) -> Option<String> {
    let mut claims = floor.claims();
    if let Some(output) = output {
        claims = claims.union(output.claims());
        let blocks = output.content.len();
        for (_, orphan) in output
            .block_claim_list()
            .iter()
            .filter(|(at, _)| *at >= blocks)
        {
            claims = claims.union(orphan);
        }
    }
    let mut meta = Map::new();
    claims.write_meta(&mut meta);
    (!meta.is_empty()).then(|| Value::Object(meta).to_string())
}

/// A result's `content` as written: each block with the `_meta` of its own
/// claims when the client gets claims and the handler made some.
pub(super) struct Blocks<'a> {
    content: &'a [Content],
    claims: &'a [(usize, TrustClaims)],
}

impl<'a> Blocks<'a> {
    /// The blocks of `output`, with their claims when `claimed`.
    pub fn of(output: &'a ToolOutput, claimed: bool) -> Self {
        Blocks {
            content: &output.content,
            claims: if claimed {
                output.block_claim_list()
            } else {
                &[]
            },
        }
    }

    /// Blocks that claim nothing.
    pub fn plain(content: &'a [Content]) -> Self {
        Blocks {
            content,
            claims: &[],
        }
    }
}

/// One block and the `_meta` of its claims.
#[derive(Serialize)]
struct ClaimedBlock<'a> {
    #[serde(flatten)]
    content: &'a Content,
    #[serde(rename = "_meta")]
    meta: Map<String, Value>,
}

impl Serialize for Blocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.content.len()))?;
        for (index, content) in self.content.iter().enumerate() {
            let mut meta = Map::new();
            for (_, claims) in self.claims.iter().filter(|(at, _)| *at == index) {
                claims.write_meta(&mut meta);
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
        let output = ToolOutput::text("a")
            .with_claimed_content(Content::text("b"), TrustClaims::NONE.sensitive())
            .claim_block(1, TrustClaims::NONE)
            .claim_block(7, TrustClaims::NONE.untrusted());
        let written = serde_json::to_value(Blocks::of(&output, true)).unwrap();
        assert_eq!(
            written,
            json!([
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b", "_meta": {KEY: {"sensitive": true}}},
            ])
        );
        let plain = serde_json::to_value(Blocks::of(&output, false)).unwrap();
        assert_eq!(
            plain,
            json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
        );
        let none = Floor {
            sensitive: false,
            untrusted: false,
        };
        let meta = result_meta(none, Some(&output)).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&meta).unwrap(),
            json!({KEY: {"untrusted": true}})
        );
        assert_eq!(result_meta(none, None), None);
        let sensitive = Floor {
            sensitive: true,
            ..none
        };
        assert_eq!(
            result_meta(sensitive, None).as_deref(),
            Some(r#"{"io.modelcontextprotocol/trust-annotations":{"sensitive":true}}"#)
        );
    }
}
