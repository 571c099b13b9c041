//! The `io.modelcontextprotocol/trust-annotations` extension: `sensitive` and
//! `untrusted` claims on tool results, with an optional `evidenceRef` that
//! commits to a record kept out of band.
//!
//! Claims only ever strengthen. On the wire an absent claim is "no claim",
//! never "asserted false"; a content block's claim may raise its result's claim
//! and never lower it (the extension's union semantics). A server derives a
//! floor from a call's resolved annotations ([`TrustClaims::derived`]) that a
//! handler may raise and never lower ([`TrustClaims::union`]); a client reads
//! the effective claims of a result ([`TrustClaims::of_result`]) and feeds them
//! to its session ([`Session::record_result`](crate::client::Session::record_result)).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Annotations;
pub use crate::protocol::TRUST_ANNOTATIONS_EXTENSION;

#[cfg(feature = "trust-evidence")]
mod evidence;
#[cfg(feature = "trust-evidence")]
pub use evidence::EvidenceError;

/// What one result, or one content block, claims about its content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustClaims {
    /// The content is sensitive: private data now sits in the model's context.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sensitive: bool,
    /// The content may carry text an attacker wrote (instructions included).
    #[serde(default, skip_serializing_if = "is_false")]
    pub untrusted: bool,
    /// A commitment to the out-of-band record these claims were decided from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_ref: Option<EvidenceRef>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// A digest of a record kept out of band, and how to re-derive it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRef {
    /// The record's kind, e.g. `data-class.v1` or `policy-decision`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `sha256:` followed by the lowercase hex digest of the canonical bytes.
    pub digest: String,
    /// How the record was turned into bytes: `jcs/rfc8785` or `cbor/rfc8949`.
    pub canonicalization: String,
    /// Where the record's schema lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Where the record itself can be fetched.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ref")]
    pub reference: Option<String>,
}

impl TrustClaims {
    /// No claim at all.
    pub const NONE: TrustClaims = TrustClaims {
        sensitive: false,
        untrusted: false,
        evidence_ref: None,
    };

    /// The claims a call's resolved annotations imply, the floor a handler's
    /// own claims are joined with:
    ///
    /// - `sensitiveDataHint: true` implies `sensitive`;
    /// - an open-world call implies `untrusted`: what it brings back was written
    ///   outside the server's control. A missing `openWorldHint` counts as open
    ///   (its default), so silence never lowers the claim.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::Annotations;
    /// use annot::trust::TrustClaims;
    ///
    /// let fetch = Annotations::new().read_only(true).open_world(true);
    /// assert!(TrustClaims::derived(&fetch).untrusted);
    /// let local = Annotations::new().read_only(true).open_world(false).sensitive_data(true);
    /// let claims = TrustClaims::derived(&local);
    /// assert!(claims.sensitive && !claims.untrusted);
    /// ```
    pub fn derived(resolved: &Annotations) -> TrustClaims {
        TrustClaims {
            sensitive: resolved.sensitive_data == Some(true),
            untrusted: resolved.open_world != Some(false),
            evidence_ref: None,
        }
    }

    /// Marks the content sensitive.
    #[must_use]
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Marks the content untrusted.
    #[must_use]
    pub fn untrusted(mut self) -> Self {
        self.untrusted = true;
        self
    }

    /// Attaches the evidence these claims were decided from.
    #[must_use]
    pub fn with_evidence(mut self, evidence: EvidenceRef) -> Self {
        self.evidence_ref = Some(evidence);
        self
    }

    /// Whether these claims say nothing.
    pub fn is_empty(&self) -> bool {
        *self == TrustClaims::NONE
    }

    /// The union of two claims: each claim holds when either side makes it. The
    /// evidence of `self` is kept, else `other`'s.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::trust::TrustClaims;
    ///
    /// let result = TrustClaims::NONE.untrusted();
    /// let block = TrustClaims::NONE.sensitive();
    /// let joined = result.union(&block);
    /// assert!(joined.sensitive && joined.untrusted);
    /// ```
    #[must_use]
    pub fn union(mut self, other: &TrustClaims) -> TrustClaims {
        self.sensitive |= other.sensitive;
        self.untrusted |= other.untrusted;
        if self.evidence_ref.is_none() {
            self.evidence_ref = other.evidence_ref.clone();
        }
        self
    }

    /// The claims one `_meta` object carries under the extension's key:
    /// `None` when the key is absent. A claim that is not `true` (absent,
    /// `false`, or malformed) is no claim: silence never lowers risk, and a
    /// reader never takes `false` as a promise.
    pub fn from_meta(meta: &Map<String, Value>) -> Option<TrustClaims> {
        let claims = meta.get(TRUST_ANNOTATIONS_EXTENSION)?.as_object();
        let claim = |name: &str| {
            claims
                .and_then(|claims| claims.get(name))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let evidence_ref = claims
            .and_then(|claims| claims.get("evidenceRef"))
            .and_then(|evidence| serde_json::from_value(evidence.clone()).ok());
        Some(TrustClaims {
            sensitive: claim("sensitive"),
            untrusted: claim("untrusted"),
            evidence_ref,
        })
    }

    /// The effective claims of a `CallToolResult`: the result's own `_meta`
    /// joined with every content block's. A block may raise the result's claim,
    /// never lower it.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::trust::TrustClaims;
    /// use serde_json::json;
    ///
    /// let result = json!({
    ///     "content": [
    ///         {"type": "text", "text": "public"},
    ///         {"type": "text", "text": "draft advisory",
    ///          "_meta": {"io.modelcontextprotocol/trust-annotations": {"sensitive": true}}},
    ///     ],
    ///     "_meta": {"io.modelcontextprotocol/trust-annotations": {}},
    /// });
    /// assert!(TrustClaims::of_result(&result).sensitive);
    /// ```
    pub fn of_result(result: &Value) -> TrustClaims {
        let meta_claims = |holder: &Value| {
            holder
                .get("_meta")
                .and_then(Value::as_object)
                .and_then(TrustClaims::from_meta)
                .unwrap_or_default()
        };
        let blocks = result.get("content").and_then(Value::as_array);
        blocks
            .into_iter()
            .flatten()
            .fold(meta_claims(result), |claims, block| {
                claims.union(&meta_claims(block))
            })
    }

    /// Writes these claims into a `_meta` object under the extension's key,
    /// joined with any claims already there (so a later writer cannot weaken
    /// an earlier one). Writes nothing for empty claims.
    pub fn write_meta(&self, meta: &mut Map<String, Value>) {
        let joined = match TrustClaims::from_meta(meta) {
            Some(present) => present.union(self),
            None => self.clone(),
        };
        if joined.is_empty() {
            return;
        }
        let value = serde_json::to_value(&joined).expect("trust claims serialize");
        meta.insert(TRUST_ANNOTATIONS_EXTENSION.to_owned(), value);
    }
}

/// How a record is turned into the bytes its digest covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Canonicalization {
    /// RFC 8785, the JSON Canonicalization Scheme: `jcs/rfc8785`.
    Jcs,
    /// RFC 8949 §4.2.1 core deterministic CBOR: `cbor/rfc8949`.
    Cbor,
}

impl Canonicalization {
    /// Both schemes, by their wire names.
    pub const ALL: [Canonicalization; 2] = [Canonicalization::Jcs, Canonicalization::Cbor];

    /// The wire name.
    pub const fn name(self) -> &'static str {
        match self {
            Canonicalization::Jcs => "jcs/rfc8785",
            Canonicalization::Cbor => "cbor/rfc8949",
        }
    }

    /// The scheme a wire name names.
    pub fn named(name: &str) -> Option<Canonicalization> {
        Canonicalization::ALL
            .into_iter()
            .find(|scheme| scheme.name() == name)
    }
}
