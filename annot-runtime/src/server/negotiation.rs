//! Protocol versions, the dialects a server offers, and which shape a
//! `tools/resolve` request gets.

use serde_json::{Map, Value, json};

use crate::protocol::{
    CLIENT_CAPABILITIES_META, Dialect, LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, RpcError,
    TOOL_RESOLUTION_EXTENSION, error_code,
};

/// The version a server answers a client that asks for `requested`: the same
/// when supported, else the latest.
pub(crate) fn negotiate_version(requested: &str) -> &'static str {
    PROTOCOL_VERSIONS
        .iter()
        .find(|supported| **supported == requested)
        .copied()
        .unwrap_or(LATEST_PROTOCOL_VERSION)
}

/// Whether the negotiated version reports invalid tool arguments as a tool
/// execution error (`isError: true`, SEP-1303, 2025-11-25 on) rather than as
/// `-32602`. Before `initialize` the latest rules apply.
pub(crate) fn argument_errors_are_tool_errors(version: Option<&str>) -> bool {
    version.is_none_or(|version| version >= "2025-11-25")
}

/// The set of dialects a server offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DialectSet {
    enabled: [bool; 3],
}

impl DialectSet {
    /// All three, the default.
    pub const ALL: DialectSet = DialectSet { enabled: [true; 3] };

    pub fn from_dialects(dialects: impl IntoIterator<Item = Dialect>) -> Self {
        let mut set = DialectSet {
            enabled: [false; 3],
        };
        for dialect in dialects {
            set.enabled[index(dialect)] = true;
        }
        set
    }

    pub fn contains(self, dialect: Dialect) -> bool {
        self.enabled[index(dialect)]
    }

    /// The enabled dialects, oldest first.
    pub fn iter(self) -> impl Iterator<Item = Dialect> {
        Dialect::ALL.into_iter().filter(move |d| self.contains(*d))
    }

    /// The server capabilities of `initialize`.
    pub fn capabilities(self) -> Value {
        let mut tools = Map::new();
        if self.contains(Dialect::DynamicAnnotations) {
            tools.insert("dynamicAnnotations".into(), Value::Bool(true));
        }
        if self.contains(Dialect::ResolveTool) {
            tools.insert("resolve".into(), Value::Bool(true));
        }
        let mut capabilities = Map::new();
        capabilities.insert("tools".into(), Value::Object(tools));
        if self.contains(Dialect::ToolResolutionExtension) {
            capabilities.insert(
                "extensions".into(),
                json!({ TOOL_RESOLUTION_EXTENSION: {} }),
            );
        }
        Value::Object(capabilities)
    }
}

fn index(dialect: Dialect) -> usize {
    match dialect {
        Dialect::DynamicAnnotations => 0,
        Dialect::ResolveTool => 1,
        Dialect::ToolResolutionExtension => 2,
    }
}

/// Whether a capabilities object (of `initialize`, or per request) takes up the
/// tool-resolution extension. Only an empty settings object does: the extension
/// defines no settings, so a client asking for any is asking for something this
/// server does not support.
pub(crate) fn offers_tool_resolution(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
}

/// Chooses the dialect of one `tools/resolve` request, as PROTOCOL.md section 3
/// says: C's shape when the client negotiated the extension (in `initialize`
/// or on this request), B's otherwise; a request whose own capabilities drop
/// an extension the session negotiated, or a client that must speak C to be
/// answered at all, gets `-32021`.
pub(crate) fn resolve_dialect(
    dialects: DialectSet,
    session_negotiated: bool,
    request_meta: Option<&Map<String, Value>>,
) -> Result<Dialect, RpcError> {
    let extension = dialects.contains(Dialect::ToolResolutionExtension);
    let per_request = request_meta.and_then(|meta| meta.get(CLIENT_CAPABILITIES_META));
    let negotiated = match per_request {
        Some(capabilities) => {
            if !capabilities.is_object() {
                return Err(RpcError::new(
                    error_code::INVALID_PARAMS,
                    format!("`_meta[\"{CLIENT_CAPABILITIES_META}\"]` must be an object"),
                ));
            }
            let offered = offers_tool_resolution(capabilities);
            if !offered && session_negotiated {
                return Err(missing_extension(
                    "this request's capabilities do not include the extension the session negotiated",
                ));
            }
            offered
        }
        None => session_negotiated,
    };
    if extension && negotiated {
        Ok(Dialect::ToolResolutionExtension)
    } else if dialects.contains(Dialect::ResolveTool) {
        Ok(Dialect::ResolveTool)
    } else {
        Err(missing_extension(
            "this server answers tools/resolve only to clients that negotiate the extension",
        ))
    }
}

/// `-32021` naming the capability the request needs.
fn missing_extension(why: &str) -> RpcError {
    RpcError::new(
        error_code::MISSING_CAPABILITY,
        format!("missing client capability `{TOOL_RESOLUTION_EXTENSION}`: {why}"),
    )
    .with_data(json!({
        "requiredCapabilities": { "extensions": { TOOL_RESOLUTION_EXTENSION: {} } }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(capabilities: Value) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(CLIENT_CAPABILITIES_META.into(), capabilities);
        meta
    }

    #[test]
    fn versions_echo_or_fall_to_the_latest() {
        assert_eq!(negotiate_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_version("2024-11-05"), LATEST_PROTOCOL_VERSION);
        assert!(!argument_errors_are_tool_errors(Some("2025-06-18")));
        assert!(argument_errors_are_tool_errors(Some("2025-11-25")));
    }

    #[test]
    fn only_an_empty_settings_object_negotiates() {
        let with = |settings: Value| {
            offers_tool_resolution(&json!({"extensions": {TOOL_RESOLUTION_EXTENSION: settings}}))
        };
        assert!(with(json!({})));
        assert!(!with(json!({"mode": "strict"})));
        assert!(!with(json!(true)));
        assert!(!offers_tool_resolution(&json!({})));
    }

    #[test]
    fn dialect_choice_follows_negotiation() {
        let all = DialectSet::ALL;
        let c_caps = meta(json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}));
        let no_caps = meta(json!({"extensions": {}}));
        assert_eq!(resolve_dialect(all, false, None), Ok(Dialect::ResolveTool));
        assert_eq!(
            resolve_dialect(all, true, None),
            Ok(Dialect::ToolResolutionExtension)
        );
        assert_eq!(
            resolve_dialect(all, false, Some(&c_caps)),
            Ok(Dialect::ToolResolutionExtension)
        );
        assert_eq!(
            resolve_dialect(all, false, Some(&no_caps)),
            Ok(Dialect::ResolveTool)
        );
        let error = resolve_dialect(all, true, Some(&no_caps)).unwrap_err();
        assert_eq!(error.code, error_code::MISSING_CAPABILITY);
        assert!(error.data.unwrap()["requiredCapabilities"]["extensions"].is_object());

        let only_b = DialectSet::from_dialects([Dialect::ResolveTool]);
        assert_eq!(
            resolve_dialect(only_b, false, Some(&c_caps)),
            Ok(Dialect::ResolveTool)
        );
        let only_c = DialectSet::from_dialects([Dialect::ToolResolutionExtension]);
        let error = resolve_dialect(only_c, false, None).unwrap_err();
        assert_eq!(error.code, error_code::MISSING_CAPABILITY);
    }
}
