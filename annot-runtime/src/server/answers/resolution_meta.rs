//! This project's own additions to resolution results: explanations under
//! `_meta["dev.annot/resolution"]` and, in dialect C, authorization under
//! `_meta["dev.annot/authorization"]`, each only when the client may see it
//! (docs/PROTOCOL.md section 3: a dialect C result's `_meta` carries only keys of
//! extensions the client negotiated).

use serde_json::{Map, Value, json};

use crate::Authorization;
use crate::protocol::{ANNOT_META, AUTHORIZATION_EXTENSION, Dialect, TRUST_ANNOTATIONS_EXTENSION};
use crate::rules::Explanation;

/// The extensions of this project a server advertises, each only when one of
/// its tools has something to say under it, and whether it offers the
/// trust-annotations extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AnnotExtensions {
    /// Some tool has rules, so explanations say more than "the resolver".
    pub resolution: bool,
    /// Some tool declares authorization.
    pub authorization: bool,
    /// `io.modelcontextprotocol/trust-annotations`: every call has a floor
    /// of claims, so it is offered whatever the dialects, unless the
    /// builder turned it off.
    pub trust_annotations: bool,
}

impl AnnotExtensions {
    /// Adds the advertised extensions to `capabilities.extensions`: this
    /// project's only when it exists (the server speaks dialect C), the
    /// trust-annotations extension in any case.
    pub fn advertise(self, capabilities: &mut Value) {
        if self.trust_annotations
            && let Some(capabilities) = capabilities.as_object_mut()
            && let Some(extensions) = capabilities
                .entry("extensions")
                .or_insert_with(|| json!({}))
                .as_object_mut()
        {
            extensions.insert(TRUST_ANNOTATIONS_EXTENSION.to_owned(), json!({}));
        }
        let Some(extensions) = capabilities
            .get_mut("extensions")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        if self.resolution {
            extensions.insert(ANNOT_META.to_owned(), json!({}));
        }
        if self.authorization {
            extensions.insert(AUTHORIZATION_EXTENSION.to_owned(), json!({}));
        }
    }
}

/// What one resolution request may receive besides the result itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Extras {
    /// The explanation, under `_meta["dev.annot/resolution"]`.
    pub explanation: bool,
    /// The authorization, under `_meta["dev.annot/authorization"]` (dialect C).
    pub authorization: bool,
}

/// Which of this project's extensions a client's capabilities take up (each
/// named with empty settings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub resolution: bool,
    pub authorization: bool,
    /// `io.modelcontextprotocol/trust-annotations`, not this project's own
    /// but negotiated alike.
    pub trust_annotations: bool,
}

impl Negotiated {
    /// Read once from the capabilities `initialize` sent.
    pub fn of(capabilities: &Value) -> Self {
        let negotiated = |key: &str| {
            capabilities
                .get("extensions")
                .and_then(|extensions| extensions.get(key))
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        };
        Negotiated {
            resolution: negotiated(ANNOT_META),
            authorization: negotiated(AUTHORIZATION_EXTENSION),
            trust_annotations: negotiated(TRUST_ANNOTATIONS_EXTENSION),
        }
    }
}

/// Decides the extras of one request in `dialect`: the client asked for the
/// explanation (`asked`, from `params._meta["dev.annot/resolution"].explain`);
/// in dialect C each key also needs the extension negotiated, by the
/// request's own capabilities (`per_request`, read only then) or else by the
/// session's.
pub(crate) fn extras(
    dialect: Dialect,
    advertised: AnnotExtensions,
    session: Negotiated,
    asked: bool,
    per_request: impl FnOnce() -> Option<Negotiated>,
) -> Extras {
    if dialect != Dialect::ToolResolutionExtension {
        return Extras {
            explanation: asked,
            authorization: false,
        };
    }
    let negotiated = per_request().unwrap_or(session);
    Extras {
        explanation: asked && advertised.resolution && negotiated.resolution,
        authorization: advertised.authorization && negotiated.authorization,
    }
}

/// The `_meta` object of a result, as JSON text; `None` when it is empty.
#[inline]
pub(crate) fn result_meta(
    extras: Extras,
    explanation: Option<&Explanation>,
    authorization: Option<Authorization>,
) -> Option<String> {
    result_meta_tree(extras, explanation, authorization).map(|meta| Value::Object(meta).to_string())
}

/// The `_meta` object of a result; `None` when it is empty.
// Inlined: most results have none, which is told from two flags here; the
// object itself is built out of line.
#[inline]
pub(crate) fn result_meta_tree(
    extras: Extras,
    explanation: Option<&Explanation>,
    authorization: Option<Authorization>,
) -> Option<Map<String, Value>> {
    let explanation = explanation.filter(|_| extras.explanation);
    let authorization = authorization.filter(|_| extras.authorization);
    if explanation.is_none() && authorization.is_none() {
        return None;
    }
    Some(meta_object(explanation, authorization))
}

/// The `_meta` object of a result with an explanation or an authorization
/// to carry.
fn meta_object(
    explanation: Option<&Explanation>,
    authorization: Option<Authorization>,
) -> Map<String, Value> {
    let mut meta = Map::new();
    if let Some(explanation) = explanation {
        let value = serde_json::to_value(explanation).expect("an explanation always serializes");
        meta.insert(ANNOT_META.to_owned(), value);
    }
    if let Some(authorization) = authorization {
        meta.insert(
            AUTHORIZATION_EXTENSION.to_owned(),
            json!({ "securitySchemes": authorization }),
        );
    }
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TOOL_RESOLUTION_EXTENSION;
    use crate::read::{self, Meta};
    use crate::server::answers::resolution::ClientExtensions;

    /// [`extras`] of a request whose `_meta` is `meta`, read as a
    /// `Connection` reads it.
    fn request_extras(
        dialect: Dialect,
        advertised: AnnotExtensions,
        session: Negotiated,
        meta: Option<&Meta<'_>>,
    ) -> Extras {
        let asked = read::asks_explanation(meta);
        extras(dialect, advertised, session, asked, || {
            let extensions = meta?.extensions()?;
            Some(ClientExtensions::of_read(&extensions).negotiated)
        })
    }

    const BOTH: AnnotExtensions = AnnotExtensions {
        resolution: true,
        authorization: true,
        trust_annotations: false,
    };

    fn meta(value: &Value) -> Meta<'_> {
        let text: &'static str = Box::leak(value.to_string().into_boxed_str());
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn dialects_a_and_b_explain_when_asked() {
        let asked = json!({ANNOT_META: {"explain": true}});
        let asked = meta(&asked);
        for dialect in [Dialect::DynamicAnnotations, Dialect::ResolveTool] {
            assert!(
                request_extras(
                    dialect,
                    AnnotExtensions::default(),
                    Negotiated::default(),
                    Some(&asked)
                )
                .explanation
            );
            assert_eq!(
                request_extras(dialect, BOTH, Negotiated::default(), None),
                Extras::default()
            );
        }
        let not_asked = json!({ANNOT_META: {"explain": false}});
        let not_asked = meta(&not_asked);
        assert!(
            !request_extras(
                Dialect::ResolveTool,
                BOTH,
                Negotiated::default(),
                Some(&not_asked)
            )
            .explanation
        );
    }

    #[test]
    fn dialect_c_needs_the_extension_negotiated() {
        let asked = json!({ANNOT_META: {"explain": true}});
        let asked = meta(&asked);
        let c = Dialect::ToolResolutionExtension;
        assert_eq!(
            request_extras(c, BOTH, Negotiated::default(), Some(&asked)),
            Extras::default()
        );

        let session = json!({"extensions": {
            TOOL_RESOLUTION_EXTENSION: {}, ANNOT_META: {}, AUTHORIZATION_EXTENSION: {}
        }});
        let all = Extras {
            explanation: true,
            authorization: true,
        };
        assert_eq!(
            request_extras(c, BOTH, Negotiated::of(&session), Some(&asked)),
            all
        );
        // Not advertised: not negotiated.
        assert_eq!(
            request_extras(
                c,
                AnnotExtensions::default(),
                Negotiated::of(&session),
                Some(&asked)
            ),
            Extras::default()
        );
        // Per-request capabilities replace the session's.
        let request = json!({
            ANNOT_META: {"explain": true},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}
        });
        let request = meta(&request);
        assert_eq!(
            request_extras(c, BOTH, Negotiated::of(&session), Some(&request)),
            Extras::default()
        );
        // Settings the extension does not define: not negotiated.
        let odd = json!({"extensions": {ANNOT_META: {"verbose": 1}}});
        assert!(!request_extras(c, BOTH, Negotiated::of(&odd), Some(&asked)).explanation);
    }

    #[test]
    fn advertised_only_beside_the_tool_resolution_extension() {
        let mut with_c = json!({"tools": {}, "extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
        BOTH.advertise(&mut with_c);
        assert_eq!(
            with_c["extensions"],
            json!({TOOL_RESOLUTION_EXTENSION: {}, ANNOT_META: {}, AUTHORIZATION_EXTENSION: {}})
        );
        let mut without = json!({"tools": {}});
        BOTH.advertise(&mut without);
        assert_eq!(without, json!({"tools": {}}));
        assert_eq!(result_meta(Extras::default(), None, None), None);
    }
}
