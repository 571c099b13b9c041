//! [`Call`]: what a handler learns about the call it runs, so that it can hold
//! itself to the call's resolution (see the `guard` module, features
//! `guard-fs` and `guard-http`).

use super::claims::Floor;
use super::profile::Profile;
use crate::trust::TrustClaims;
use crate::{AnnotatedTool, Annotations, Authorization};

/// One call as its handler sees it: the tool, and the annotations these very
/// arguments resolve to (defaults applied, under the server's [`Profile`]),
/// which is what `tools/resolve` answered for them.
///
/// A handler receives it when registered with
/// [`ServerBuilder::tool_with_call`](super::ServerBuilder::tool_with_call)
/// (or, through the rmcp adapter, from the request's extensions with
/// `annot::rmcp::resolved_call`). By the time the handler runs, the
/// call has passed the profile, so [`annotations`](Self::annotations) is
/// within it. A guard built from it refuses every effect the resolution did
/// not claim.
///
/// It also carries the floor of the call's trust-annotations claims
/// ([`trust_floor`](Self::trust_floor)) and whether the client negotiated the
/// extension ([`emits_trust_claims`](Self::emits_trust_claims)), so that a
/// handler computes costly evidence only when it will be sent.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::server::{Call, Profile, Server, ToolOutput};
/// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
/// # use serde_json::Value;
/// # struct Notes;
/// # impl AnnotatedTool for Notes {
/// #     const NAME: &'static str = "notes";
/// #     const TITLE: Option<&'static str> = None;
/// #     const DESCRIPTION: Option<&'static str> = None;
/// #     const DISCRIMINATOR: Option<&'static str> = None;
/// #     const ACTIONS: &'static [Action] = &[];
/// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);
/// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
/// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
/// #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Notes) }
/// # }
///
/// let server = Server::builder("notes", "1.0.0")
///     .tool_with_call(|_: Notes, call: &Call| {
///         // The resolution of exactly these arguments.
///         assert!(call.annotations().is_read_only());
///         Ok(ToolOutput::text(format!("{} runs read-only", call.tool())))
///     })
///     .build()?;
/// # let _ = server;
/// // Outside a server, for a test of a handler:
/// let call = Call::of(&Notes, Profile::any());
/// assert_eq!(call.annotations().read_only, Some(true));
/// # Ok::<(), annot::server::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    tool: &'static str,
    annotations: Annotations,
    authorization: Option<Authorization>,
    profile: Profile,
    /// The floor of the results' claims (without evidence, so a `Call`
    /// stays `Copy`).
    floor: Floor,
    trust_negotiated: bool,
}

impl Call {
    /// The call of `T` with these arguments under `profile`: what a server
    /// gives the handler (the resolution with defaults applied and the tool's
    /// title kept, and the authorization the arguments need).
    ///
    /// It does not check the profile: a server runs the handler only for a
    /// call that passes it. The trust-annotations extension counts as not
    /// negotiated; a server sets it per request.
    pub fn of<T: AnnotatedTool>(arguments: &T, profile: Profile) -> Call {
        let outcome = (T::GENERATED.evaluate)(arguments);
        let annotations = normalise(outcome.annotations(), &T::STATIC_ANNOTATIONS);
        // The declared claims read the rules from the same evaluation.
        let declared = (T::GENERATED.result_claims_of)(arguments, &outcome);
        let floor = TrustClaims::derived(&annotations).union(&declared);
        Call {
            tool: T::NAME,
            annotations,
            authorization: outcome.authorization().or(T::STATIC_AUTHORIZATION),
            profile,
            floor: Floor {
                sensitive: floor.sensitive,
                untrusted: floor.untrusted,
            },
            trust_negotiated: false,
        }
    }

    /// The same call, for a client that did (or did not) negotiate the
    /// trust-annotations extension.
    pub(crate) fn with_trust_negotiated(mut self, negotiated: bool) -> Call {
        self.trust_negotiated = negotiated;
        self
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The resolved annotations of this call, defaults applied: every hint
    /// the specification defines is present.
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The authorization this call needs, if the tool declares any.
    pub fn authorization(&self) -> Option<&Authorization> {
        self.authorization.as_ref()
    }

    /// The profile the server serves under (the call passed it).
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The least this call's results claim under the trust-annotations
    /// extension: what the resolution implies ([`TrustClaims::derived`]:
    /// `sensitiveDataHint: true` is `sensitive`, an open-world call
    /// `untrusted`) joined with what the tool declares for these arguments
    /// ([`AnnotatedTool::result_claims`]). A handler's own claims
    /// ([`ToolOutput::with_claims`](super::ToolOutput::with_claims)) are
    /// joined with it, so nothing it returns can claim less.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Call, Profile};
    /// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
    /// # use serde_json::Value;
    /// # struct Fetch;
    /// # impl AnnotatedTool for Fetch {
    /// #     const NAME: &'static str = "fetch";
    /// #     const TITLE: Option<&'static str> = None;
    /// #     const DESCRIPTION: Option<&'static str> = None;
    /// #     const DISCRIMINATOR: Option<&'static str> = None;
    /// #     const ACTIONS: &'static [Action] = &[];
    /// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);
    /// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
    /// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
    /// #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Fetch) }
    /// # }
    ///
    /// // A read-only tool that says nothing of the open world: what it brings
    /// // back counts as written by someone else.
    /// let call = Call::of(&Fetch, Profile::any());
    /// let floor = call.trust_floor();
    /// assert!(floor.untrusted && !floor.sensitive);
    /// ```
    pub fn trust_floor(&self) -> TrustClaims {
        self.floor().claims()
    }

    /// [`trust_floor`](Self::trust_floor), small.
    pub(super) fn floor(&self) -> Floor {
        self.floor
    }

    /// Whether the client of this call negotiated the trust-annotations
    /// extension, so that the result's claims are sent: a handler may skip
    /// deriving an `evidenceRef` nobody will see. A result's claims are
    /// emitted (or left out) by the server either way.
    pub fn emits_trust_claims(&self) -> bool {
        self.trust_negotiated
    }
}

/// The form a resolution is rendered and compared in: defaults applied, and the
/// tool's title kept when the resolution names none, so a client showing
/// `annotations.title` shows the same name before and after resolving.
pub(super) fn normalise(resolved: Annotations, static_annotations: &Annotations) -> Annotations {
    let mut annotations = resolved.effective();
    if annotations.title.is_none() {
        annotations.title = static_annotations.title;
    }
    annotations
}
