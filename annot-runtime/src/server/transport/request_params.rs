//! Reading `params`, with `-32602` errors that name the field.

use std::borrow::Cow;

use crate::read::Json;
use serde_json::{Map, Value, json};

use crate::ArgumentError;
use crate::protocol::{RpcError, error_code};
use crate::read::{self, Fields, Meta, MetaSlot, ParamsSlot};
use crate::server::negotiation::dialects::{Stance, extension_stance};

/// The longest piece of client input quoted back in an error message.
const QUOTE_LIMIT: usize = 64;

/// The fields of absent params.
static NO_FIELDS: Fields<'static> = Fields {
    name: None,
    plain_name: None,
    arguments: None,
    split_arguments: None,
    cursor: None,
    meta: None,
    protocol_version: None,
    capabilities: None,
    client_info: None,
};

/// One request's params, read once (and borrowed from where they were read).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params<'a> {
    pub fields: &'a Fields<'a>,
    pub meta: Option<&'a Meta<'a>>,
}

impl Params<'_> {
    /// What the request's own capabilities (in `_meta`) say about the
    /// tool-resolution extension, when it carries some.
    pub fn stance(&self) -> Option<Stance> {
        let extensions = self.meta?.extensions()?;
        Some(extension_stance(&extensions))
    }
}

/// The params of a request: their fields and `_meta` keys, borrowed where
/// the envelope reader put them.
pub(crate) fn read<'a>(params: &'a ParamsSlot<'a>) -> Result<Params<'a>, RpcError> {
    let fields = match params {
        ParamsSlot::Absent => &NO_FIELDS,
        ParamsSlot::Object(fields) => fields,
        ParamsSlot::Other(found) => {
            return Err(invalid(format!(
                "`params` must be an object, found {found}"
            )));
        }
    };
    let meta = match &fields.meta {
        None => None,
        Some(MetaSlot::Object(meta)) => Some(meta),
        Some(MetaSlot::Other(found)) => {
            return Err(invalid(format!("`_meta` must be an object, found {found}"))
                .with_data(json!({ "path": "_meta" })));
        }
    };
    Ok(Params { fields, meta })
}

/// The required `name`: as the request reader found it where it could.
pub(crate) fn name<'a>(fields: &Fields<'a>) -> Result<Cow<'a, str>, RpcError> {
    match fields.plain_name {
        Some(name) => Ok(Cow::Borrowed(name)),
        None => raw_required_string(fields.name, "name"),
    }
}

/// A required string field, read from its raw text.
pub(crate) fn raw_required_string<'a>(
    value: Option<Json<'a>>,
    field: &str,
) -> Result<Cow<'a, str>, RpcError> {
    match value {
        None => Err(invalid(format!("missing `{field}`")).with_data(json!({ "path": field }))),
        Some(value) => read::string(value).ok_or_else(|| raw_wrong_type(field, "a string", value)),
    }
}

/// An optional string field, read from its raw text.
pub(crate) fn raw_optional_string<'a>(
    value: Option<Json<'a>>,
    field: &str,
) -> Result<Option<Cow<'a, str>>, RpcError> {
    value
        .map(|value| read::string(value).ok_or_else(|| raw_wrong_type(field, "a string", value)))
        .transpose()
}

/// An optional object field, as its JSON text.
pub(crate) fn raw_optional_object<'a>(
    value: Option<Json<'a>>,
    field: &str,
) -> Result<Option<&'a str>, RpcError> {
    match value {
        None => Ok(None),
        Some(value) if read::is_object(value) => Ok(Some(value.get())),
        Some(value) => Err(raw_wrong_type(field, "an object", value)),
    }
}

fn raw_wrong_type(field: &str, expected: &str, found: Json<'_>) -> RpcError {
    invalid(format!(
        "`{field}` must be {expected}, found {}",
        read::type_name(found)
    ))
    .with_data(json!({ "path": field }))
}

/// `-32602` with a message.
pub(crate) fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(error_code::INVALID_PARAMS, message)
}

/// `-32602` for a name no registered tool has.
pub(crate) fn unknown_tool(name: &str) -> RpcError {
    let name = quote(name);
    invalid(format!("unknown tool `{name}`")).with_data(json!({ "name": name }))
}

/// `-32602` for a tool that is not marked resolvable: its annotations do not
/// depend on its arguments, so its static annotations are the answer.
pub(crate) fn not_resolvable(name: &str) -> RpcError {
    invalid(format!(
        "tool `{name}` is not resolvable: its annotations do not depend on its arguments"
    ))
    .with_data(json!({ "name": name }))
}

/// `-32602` for arguments that do not fit the tool, with the offending field's
/// path in `data.path` when the problem has a place.
pub(crate) fn invalid_arguments(tool: &str, error: &ArgumentError) -> RpcError {
    let mut data = Map::new();
    data.insert("name".into(), tool.into());
    if let Some(path) = error.path() {
        data.insert("path".into(), quote(path).into());
    }
    data.insert("reason".into(), quote_message(&error.to_string()).into());
    invalid(format!(
        "invalid arguments for `{tool}`: {}",
        quote_message(&error.to_string())
    ))
    .with_data(Value::Object(data))
}

/// Client input cut to [`QUOTE_LIMIT`] characters, so an error never echoes a
/// megabyte back.
pub(crate) fn quote(input: &str) -> Cow<'_, str> {
    match input.char_indices().nth(QUOTE_LIMIT) {
        None => Cow::Borrowed(input),
        Some((end, _)) => Cow::Owned(format!("{}…", &input[..end])),
    }
}

/// A message that may embed client input, cut to a sane length.
pub(crate) fn quote_message(message: &str) -> Cow<'_, str> {
    match message.char_indices().nth(QUOTE_LIMIT * 4) {
        None => Cow::Borrowed(message),
        Some((end, _)) => Cow::Owned(format!("{}…", &message[..end])),
    }
}
