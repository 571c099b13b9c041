//! The dialects a server offers, what a client's capabilities say of the
//! tool-resolution extension, and which shape a `tools/resolve` request gets.

use serde_json::{Map, Value, json};

use crate::read::{self, Extensions};

use crate::protocol::{Dialect, RpcError, TOOL_RESOLUTION_EXTENSION, error_code};

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

/// What a capabilities object (of `initialize`, or of one request) says about
/// the tool-resolution extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Stance {
    /// It does not name the extension (or is not an object).
    #[default]
    Absent,
    /// It takes the extension up: an empty settings object.
    Offered,
    /// It names the extension with settings the extension does not define (or
    /// with a value that is not an object): it asks for something this server
    /// does not support.
    Unsupported,
}

/// Reads `capabilities.extensions["io.modelcontextprotocol/tool-resolution"]`.
pub(crate) fn stance(capabilities: &Value) -> Stance {
    match capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
    {
        None => Stance::Absent,
        Some(Value::Object(settings)) if settings.is_empty() => Stance::Offered,
        Some(_) => Stance::Unsupported,
    }
}

/// What the extensions a capabilities object declares (as
/// [`read::extensions`] reads them) say about the tool-resolution extension:
/// [`stance`] without the tree.
pub(crate) fn extension_stance(extensions: &Extensions<'_>) -> Stance {
    match extensions.tool_resolution {
        None => Stance::Absent,
        Some(settings) if read::is_empty_object(settings) => Stance::Offered,
        Some(_) => Stance::Unsupported,
    }
}

/// Chooses the dialect of one `tools/resolve` request, following the
/// tool-resolution extension to the letter; it runs before the parameters are
/// read, so a request lacking the capability gets `-32021` whatever its
/// arguments.
///
/// - A 2026-07-28 request (`modern`) is judged by its own capabilities only:
///   the extension with empty settings gets C's shape, anything else `-32021`.
/// - A handshake request that carries its own capabilities is judged by them
///   alone, in the same way.
/// - Otherwise the session decides: C's shape when `initialize` negotiated
///   the extension, `-32021` when it named the extension with settings, and
///   SEP-1862's `{tool}` (dialect B) when it did not name it at all.
pub(crate) fn resolve_dialect(
    dialects: DialectSet,
    session: Stance,
    per_request: Option<Stance>,
    modern: bool,
) -> Result<Dialect, RpcError> {
    let extension = dialects.contains(Dialect::ToolResolutionExtension);
    if modern {
        if !extension {
            return Err(RpcError::new(
                error_code::METHOD_NOT_FOUND,
                "tools/resolve of 2026-07-28 is the tool-resolution extension's, which this server does not offer",
            ));
        }
        return match per_request {
            Some(Stance::Offered) => Ok(Dialect::ToolResolutionExtension),
            _ => Err(missing_extension(
                "this request's clientCapabilities do not take up the extension with empty settings",
            )),
        };
    }
    if extension {
        match (per_request, session) {
            (Some(stance), _) => {
                return if stance == Stance::Offered {
                    Ok(Dialect::ToolResolutionExtension)
                } else {
                    Err(missing_extension(
                        "this request's capabilities do not take up the extension with empty settings",
                    ))
                };
            }
            (None, Stance::Offered) => return Ok(Dialect::ToolResolutionExtension),
            (None, Stance::Unsupported) => {
                return Err(missing_extension(
                    "initialize named the extension with settings it does not define",
                ));
            }
            (None, Stance::Absent) => {}
        }
    }
    if dialects.contains(Dialect::ResolveTool) {
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

    use crate::read::Json;

    fn raw_stance(capabilities: Json<'_>) -> Stance {
        extension_stance(&read::extensions(capabilities))
    }

    #[test]
    fn only_an_empty_settings_object_negotiates() {
        let with = |settings: Value| {
            let capabilities = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: settings}});
            let text = capabilities.to_string();
            assert_eq!(stance(&capabilities), raw_stance(Json::checked(&text)));
            stance(&capabilities) == Stance::Offered
        };
        assert!(with(json!({})));
        assert!(!with(json!({"mode": "strict"})));
        assert!(!with(json!(true)));
        assert_eq!(stance(&json!({})), Stance::Absent);
    }

    #[test]
    fn dialect_choice_follows_negotiation() {
        use Stance::{Absent, Offered, Unsupported};
        let all = DialectSet::ALL;
        let c_caps = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
        let other = json!({"extensions": {"com.example/other": {}}});
        let picky = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {"mode": "x"}}});
        let b = Ok(Dialect::ResolveTool);
        let c = Ok(Dialect::ToolResolutionExtension);
        let code = |result: Result<Dialect, RpcError>| result.unwrap_err().code;
        let missing = error_code::MISSING_CAPABILITY;

        assert_eq!(resolve_dialect(all, Absent, None, false), b);
        assert_eq!(resolve_dialect(all, Offered, None, false), c);
        assert_eq!(
            code(resolve_dialect(all, Unsupported, None, false)),
            missing
        );
        assert_eq!(
            resolve_dialect(all, Absent, Some(stance(&c_caps)), false),
            c
        );
        for caps in [&other, &picky, &json!(7), &json!({})] {
            for session in [Absent, Offered] {
                assert_eq!(
                    code(resolve_dialect(all, session, Some(stance(caps)), false)),
                    missing
                );
                assert_eq!(
                    code(resolve_dialect(all, session, Some(stance(caps)), true)),
                    missing
                );
            }
        }
        // 2026-07-28: the session never counts.
        assert_eq!(code(resolve_dialect(all, Offered, None, true)), missing);
        assert_eq!(resolve_dialect(all, Absent, Some(stance(&c_caps)), true), c);

        let only_b = DialectSet::from_dialects([Dialect::ResolveTool]);
        assert_eq!(
            resolve_dialect(only_b, Absent, Some(stance(&c_caps)), false),
            b
        );
        assert_eq!(
            code(resolve_dialect(only_b, Absent, Some(stance(&c_caps)), true)),
            error_code::METHOD_NOT_FOUND
        );
        let only_c = DialectSet::from_dialects([Dialect::ToolResolutionExtension]);
        let error = resolve_dialect(only_c, Absent, None, false).unwrap_err();
        assert_eq!(error.code, missing);
        assert!(error.data.unwrap()["requiredCapabilities"]["extensions"].is_object());
    }
}
