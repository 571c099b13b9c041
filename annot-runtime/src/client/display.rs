//! Call previews of the `io.modelcontextprotocol/display-templates` extension:
//! the one line a person reads before approving a call ("delete notes.txt"
//! rather than raw JSON), rendered by the extension's normative rules.

use serde_json::{Map, Value};

use crate::protocol::{DISPLAY_TEMPLATE_BRANCH_KEY, DISPLAY_TEMPLATES_EXTENSION};

/// The preview of a call of `tool` (a `Tool` object as `tools/list` lists it)
/// with `arguments`, or `None` when the tool offers no usable template (the
/// host then shows its raw display).
///
/// The template is the one of the first `oneOf`/`anyOf` branch of the
/// `inputSchema`, in document order, that the arguments validate against and
/// that carries `io.modelcontextprotocol/display-template`; otherwise the
/// tool-level `_meta["io.modelcontextprotocol/display-templates"].template`.
/// Each `{name}` is replaced by the top-level argument `name` when it is a
/// string, a number or a boolean, and by `...` when it is missing, `null`, an
/// array or an object; `{{` and `}}` are literal braces. A template with an
/// unmatched brace is malformed and yields `None`. Everything the server wrote,
/// values and template alike, is untrusted text: control characters (line
/// breaks and terminal escapes included) and bidirectional overrides come out
/// as visible `\u{..}` escapes, so a preview cannot redraw the prompt it sits in.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::display::preview;
/// use serde_json::{json, Map};
///
/// let tool = json!({
///     "name": "manage_files",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
///     "_meta": {"io.modelcontextprotocol/display-templates": {"template": "delete {path} ({{x}})"}},
/// });
/// let arguments: Map<_, _> = json!({"path": "notes.txt\u{1b}[2J"}).as_object().unwrap().clone();
/// assert_eq!(preview(&tool, &arguments).as_deref(), Some("delete notes.txt\\u{1b}[2J ({x})"));
/// ```
pub fn preview(tool: &Value, arguments: &Map<String, Value>) -> Option<String> {
    let template = branch_template(tool, arguments).or_else(|| {
        tool.get("_meta")?
            .get(DISPLAY_TEMPLATES_EXTENSION)?
            .get("template")?
            .as_str()
    })?;
    render(template, arguments)
}

/// The template of the first branch the arguments validate against.
fn branch_template<'tool>(
    tool: &'tool Value,
    arguments: &Map<String, Value>,
) -> Option<&'tool str> {
    let schema = tool.get("inputSchema")?;
    let instance = Value::Object(arguments.clone());
    ["oneOf", "anyOf"]
        .into_iter()
        .filter_map(|keyword| schema.get(keyword)?.as_array())
        .flatten()
        .find(|branch| validates(schema, branch, &instance))
        .and_then(|branch| branch.get(DISPLAY_TEMPLATE_BRANCH_KEY)?.as_str())
}

/// Whether `instance` validates against `branch`, with the definitions of the
/// enclosing schema in reach of its `$ref`s. A branch that is no valid schema
/// matches nothing.
fn validates(schema: &Value, branch: &Value, instance: &Value) -> bool {
    let mut standalone = branch.clone();
    if let Value::Object(members) = &mut standalone {
        for definitions in ["$defs", "definitions"] {
            if let Some(shared) = schema.get(definitions) {
                members.entry(definitions).or_insert_with(|| shared.clone());
            }
        }
    }
    jsonschema::validator_for(&standalone).is_ok_and(|validator| validator.is_valid(instance))
}

/// Substitutes `arguments` into `template`, or `None` for a malformed one.
fn render(template: &str, arguments: &Map<String, Value>) -> Option<String> {
    let mut rendered = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        escape_into(&mut rendered, &rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{").or_else(|| tail.strip_prefix("}}")) {
            rendered.push_str(&tail[..1]);
            rest = after;
        } else if let Some(open) = tail.strip_prefix('{') {
            let close = open
                .find(['{', '}'])
                .filter(|&end| open[end..].starts_with('}'))?;
            let value = match arguments.get(&open[..close]) {
                Some(Value::String(text)) => text.clone(),
                Some(scalar @ (Value::Number(_) | Value::Bool(_))) => scalar.to_string(),
                _ => "...".to_owned(),
            };
            escape_into(&mut rendered, &value);
            rest = &open[close + 1..];
        } else {
            return None;
        }
    }
    escape_into(&mut rendered, rest);
    Some(rendered)
}

/// Appends `text` with every control character and bidirectional formatting
/// character written as a visible escape.
fn escape_into(out: &mut String, text: &str) {
    for character in text.chars() {
        let bidi = matches!(character, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if character.is_control() || bidi {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(character)));
        } else {
            out.push(character);
        }
    }
}
