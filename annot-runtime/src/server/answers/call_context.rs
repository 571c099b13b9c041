//! [`Call`]: what a handler learns about the call it runs, so that it can hold
//! itself to the call's resolution (see the `guard` module, features
//! `guard-fs` and `guard-http`).

use std::sync::Arc;

use crate::server::answers::annotation_json;
use crate::server::answers::profile::Profile;
use crate::server::answers::trust_claims::Floor;
use crate::server::transport::in_flight::CallControl;
use crate::trust::TrustClaims;
use crate::{AnnotatedTool, Annotations, Authorization};

/// One call as its handler sees it: the tool, and the annotations these very
/// arguments resolve to (defaults applied, under the server's [`Profile`]),
/// which is what `tools/resolve` answered for them.
///
/// A handler receives it when registered with
/// [`ServerBuilder::tool_with_call`](crate::server::ServerBuilder::tool_with_call)
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
/// Served over stdio ([`Server::serve`](crate::server::Server::serve)), a call runs
/// beside the session's other requests, and its `Call` also says whether the
/// client cancelled it ([`is_cancelled`](Self::is_cancelled)) and sends
/// progress to a client that asked for it ([`progress`](Self::progress)). A
/// `Call` is `Send` and `Sync`, and a clone sees the same call: a handler
/// that hands work to other threads hands them a clone.
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    tool: &'static str,
    annotations: Annotations,
    authorization: Option<Authorization>,
    profile: Profile,
    /// The floor of the results' claims (without evidence, so a `Call`
    /// stays `Copy`).
    floor: Floor,
    trust_negotiated: bool,
    control: Control,
}

/// The call's cancellation flag and progress channel, when a transport runs
/// it beside the session ([`CallControl`]).
#[derive(Clone, Debug, Default)]
struct Control(Option<Arc<CallControl>>);

impl PartialEq for Control {
    /// The same call in flight, or neither in flight.
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(this), Some(other)) => Arc::ptr_eq(this, other),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for Control {}

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
        let annotations = annotation_json::normalise(outcome.annotations(), &T::STATIC_ANNOTATIONS);
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
            control: Control(None),
        }
    }

    /// The same call, run beside the session under `control`.
    pub(crate) fn with_control(mut self, control: Option<Arc<CallControl>>) -> Call {
        self.control = Control(control);
        self
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
    /// ([`ToolOutput::with_claims`](crate::server::ToolOutput::with_claims)) are
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
    pub(crate) fn floor(&self) -> Floor {
        self.floor
    }

    /// Whether the client of this call negotiated the trust-annotations
    /// extension, so that the result's claims are sent: a handler may skip
    /// deriving an `evidenceRef` nobody will see. A result's claims are
    /// emitted (or left out) by the server either way.
    pub fn emits_trust_claims(&self) -> bool {
        self.trust_negotiated
    }

    /// Whether the client cancelled this call (`notifications/cancelled`
    /// naming its request), or the session's output closed under it. A long
    /// handler looks now and then and stops early: whatever it returns after
    /// the cancellation is dropped, never sent, as the specification asks.
    ///
    /// Always `false` for a call that no transport runs beside its session:
    /// one made with [`Call::of`], one answered by
    /// [`Connection::handle`](crate::server::Connection::handle), and one served
    /// through the rmcp adapter (whose `RequestContext` carries rmcp's own
    /// cancellation token).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Call, Profile, ToolError, ToolOutput};
    /// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
    /// # use serde_json::Value;
    /// # struct Push;
    /// # impl AnnotatedTool for Push {
    /// #     const NAME: &'static str = "push";
    /// #     const TITLE: Option<&'static str> = None;
    /// #     const DESCRIPTION: Option<&'static str> = None;
    /// #     const DISCRIMINATOR: Option<&'static str> = None;
    /// #     const ACTIONS: &'static [Action] = &[];
    /// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new();
    /// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
    /// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
    /// #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Push) }
    /// # }
    ///
    /// fn push(_: Push, call: &Call) -> Result<ToolOutput, ToolError> {
    ///     for step in 0..10 {
    ///         if call.is_cancelled() {
    ///             return Err(ToolError::new("cancelled"));
    ///         }
    ///         call.progress(f64::from(step), Some(10.0), None);
    ///         // ... one step of the work ...
    ///     }
    ///     Ok(ToolOutput::text("pushed"))
    /// }
    /// assert!(push(Push, &Call::of(&Push, Profile::any())).is_ok());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.control
            .0
            .as_ref()
            .is_some_and(|control| control.is_cancelled())
    }

    /// Sends `notifications/progress` for this call: `progress` so far, of
    /// `total` if known, with a human-readable `message`, under the
    /// `progressToken` the request's `_meta` carried. Does nothing when the
    /// request carried none ([`reports_progress`](Self::reports_progress)),
    /// once the call was cancelled or answered, for a number that is not
    /// finite, for a call no transport runs beside its session (as for
    /// [`is_cancelled`](Self::is_cancelled)), and for `progress` no greater
    /// than the last sent: the specification asks it to grow with each
    /// notification. Every notification is written before the call's answer.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(control) = &self.control.0 {
            control.progress(progress, total, message);
        }
    }

    /// Whether [`progress`](Self::progress) reaches the client: the request
    /// carried a `progressToken`, and a transport runs the call beside its
    /// session.
    pub fn reports_progress(&self) -> bool {
        self.control
            .0
            .as_ref()
            .is_some_and(|control| control.reports_progress())
    }
}
