//! The structs a message is read into, every field a slice of the message's
//! own bytes: the envelope, the fields of `params`, the keys of
//! `params._meta`, and the extensions a client's capabilities declare. Both
//! readers fill them: the scanner (`scan.rs`) and serde (`by_serde.rs`).

use super::json::Json;
use super::split::SplitArguments;

/// The members of an envelope, each borrowed as written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Envelope<'a> {
    pub jsonrpc: Option<Json<'a>>,
    pub id: Option<Json<'a>>,
    pub method: Option<Json<'a>>,
    /// `method`'s text between its quotes, when the scanner found it a
    /// string without escapes (serde never fills it in).
    pub plain_method: Option<&'a str>,
    pub params: ParamsSlot<'a>,
    pub result: Option<Json<'a>>,
    pub error: Option<Json<'a>>,
}

/// `params` as the envelope reads it, in the same pass.
// One per request, on the stack: boxing the large variant would cost the
// allocation the hot path avoids.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum ParamsSlot<'a> {
    /// Absent, or `null`.
    #[default]
    Absent,
    /// An object, its fields read.
    Object(Fields<'a>),
    /// Any other JSON value: its type, for the error.
    Other(&'static str),
}

/// `_meta` as the params reader reads it, in the same pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum MetaSlot<'a> {
    /// An object, its keys read.
    Object(Meta<'a>),
    /// Any other JSON value (`null` included): its type, for the error.
    Other(&'static str),
}

/// The `params` fields any method of this server reads; every other field
/// is skipped (its syntax is checked all the same). A field present as
/// `null` is `Some`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Fields<'a> {
    pub name: Option<Json<'a>>,
    /// `name`'s text between its quotes, when the scanner found it a string
    /// without escapes (serde never fills it in).
    pub plain_name: Option<&'a str>,
    pub arguments: Option<Json<'a>>,
    /// `arguments` split into its members by the scanner's one pass, when
    /// it is an object of the shape the scanner takes and of at most
    /// [`MAX_SPLIT`](super::MAX_SPLIT) members.
    pub split_arguments: Option<SplitArguments<'a>>,
    pub cursor: Option<Json<'a>>,
    pub meta: Option<MetaSlot<'a>>,
    pub protocol_version: Option<Json<'a>>,
    pub capabilities: Option<Json<'a>>,
    pub client_info: Option<Json<'a>>,
}

/// The `params._meta` keys this server reads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Meta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<Json<'a>>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<Json<'a>>,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: Option<Json<'a>>,
    /// `dev.annot/resolution`.
    pub annot: Option<Json<'a>>,
    /// `progressToken`: where the client wants progress of a request sent.
    pub progress_token: Option<Json<'a>>,
    /// The extensions `client_capabilities` declares, when the scanner read
    /// them in its one pass (serde never fills it in).
    pub preread: Option<Extensions<'a>>,
}

/// The extensions this server knows, each with its settings.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Extensions<'a> {
    /// `io.modelcontextprotocol/tool-resolution`.
    pub tool_resolution: Option<Json<'a>>,
    /// `dev.annot/resolution`.
    pub annot_resolution: Option<Json<'a>>,
    /// `dev.annot/authorization`.
    pub annot_authorization: Option<Json<'a>>,
    /// `io.modelcontextprotocol/trust-annotations`.
    pub trust_annotations: Option<Json<'a>>,
}
