//! Every member name the reader looks for, spelled once: the scanner matches
//! a name read from the wire against these bytes, and the serde reading
//! (`by_serde.rs`) against the same constants, in patterns of the same shape.
//! The `_meta` keys and extension names are the protocol's own constants
//! ([`crate::protocol`]), taken as bytes.

use crate::protocol::{
    ANNOT_META, AUTHORIZATION_EXTENSION, CLIENT_CAPABILITIES_META, CLIENT_INFO_META,
    PROTOCOL_VERSION_META, TOOL_RESOLUTION_EXTENSION, TRUST_ANNOTATIONS_EXTENSION,
};

// The envelope of a JSON-RPC message.
pub(crate) const JSONRPC: &[u8] = b"jsonrpc";
pub(crate) const ID: &[u8] = b"id";
pub(crate) const METHOD: &[u8] = b"method";
pub(crate) const PARAMS: &[u8] = b"params";
pub(crate) const RESULT: &[u8] = b"result";
pub(crate) const ERROR: &[u8] = b"error";

// The fields of `params` any method of this server reads.
pub(crate) const NAME: &[u8] = b"name";
pub(crate) const ARGUMENTS: &[u8] = b"arguments";
pub(crate) const CURSOR: &[u8] = b"cursor";
pub(crate) const META: &[u8] = b"_meta";
pub(crate) const PROTOCOL_VERSION: &[u8] = b"protocolVersion";
pub(crate) const CAPABILITIES: &[u8] = b"capabilities";
pub(crate) const CLIENT_INFO: &[u8] = b"clientInfo";

// The keys of `params._meta` (2026-07-28, and this project's request).
pub(crate) const META_PROTOCOL_VERSION: &[u8] = PROTOCOL_VERSION_META.as_bytes();
pub(crate) const META_CLIENT_CAPABILITIES: &[u8] = CLIENT_CAPABILITIES_META.as_bytes();
pub(crate) const META_CLIENT_INFO: &[u8] = CLIENT_INFO_META.as_bytes();
pub(crate) const META_ANNOT: &[u8] = ANNOT_META.as_bytes();
pub(crate) const META_PROGRESS_TOKEN: &[u8] = b"progressToken";

// Client capabilities: where extensions are declared, and those this
// server knows.
pub(crate) const EXTENSIONS: &[u8] = b"extensions";
pub(crate) const EXTENSION_TOOL_RESOLUTION: &[u8] = TOOL_RESOLUTION_EXTENSION.as_bytes();
pub(crate) const EXTENSION_ANNOT_RESOLUTION: &[u8] = ANNOT_META.as_bytes();
pub(crate) const EXTENSION_ANNOT_AUTHORIZATION: &[u8] = AUTHORIZATION_EXTENSION.as_bytes();
pub(crate) const EXTENSION_TRUST_ANNOTATIONS: &[u8] = TRUST_ANNOTATIONS_EXTENSION.as_bytes();

// `_meta["dev.annot/resolution"]` of a request.
pub(crate) const EXPLAIN: &[u8] = b"explain";
