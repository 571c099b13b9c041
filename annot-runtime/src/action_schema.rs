//! A tool's `inputSchema` narrowed to some of its actions: what a server
//! with a [`Profile`](crate::server::Profile) lists, and the default of
//! [`AnnotatedTool::input_schema_for`](crate::AnnotatedTool::input_schema_for).
//!
//! The schema is composed from the tool's full schema and its per-action
//! field lists ([`AnnotatedTool::ACTION_FIELDS`](crate::AnnotatedTool::ACTION_FIELDS)),
//! keeping the portable shape: one flat typed object, no root `oneOf`. What
//! changes: the discriminator's `enum` (only the kept names), its
//! description (only the kept actions' lines), `properties` (only the kept
//! actions' fields), `required` (the discriminator and the fields every kept
//! action requires), and the description of a field several actions share
//! (only the kept actions' lines). Members keep their order. Left as they
//! are: the type of a field actions type differently (the union of theirs,
//! wider than the kept actions may need, which the portable schema already
//! allows), and the `if`/`then`/`else` chain of an exact schema (its
//! branches for dropped actions never apply: the `enum` refuses them).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::Action;

/// A JSON object's members, in order, values unparsed.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Ordered)
    }
}

impl Members {
    fn parse(text: &str) -> Option<Members> {
        serde_json::from_str(text).ok()
    }

    fn text(&self) -> String {
        let mut out = String::from("{");
        for (index, (key, value)) in self.0.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push_str(&quoted(key));
            out.push(':');
            out.push_str(value.get());
        }
        out.push('}');
        out
    }

    fn set(&mut self, key: &str, text: String) {
        let value = RawValue::from_string(text).expect("the narrowing writes valid JSON");
        match self.0.iter_mut().find(|(name, _)| name == key) {
            Some((_, old)) => *old = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.get())
    }
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

/// `schema` narrowed to the actions at `kept` (see the module's doc); the
/// schema unchanged when the tool has no discriminator, every action is kept,
/// or the schema is not the flat object this expects.
pub(crate) fn narrow_schema(
    schema: &str,
    discriminator: Option<&str>,
    actions: &[Action],
    action_fields: &[&[(&str, bool)]],
    kept: &[usize],
) -> String {
    let Some(discriminator) = discriminator else {
        return schema.to_owned();
    };
    if kept.len() == actions.len() {
        return schema.to_owned();
    }
    narrow_text(schema, discriminator, actions, action_fields, kept)
        .unwrap_or_else(|| schema.to_owned())
}

fn narrow_text(
    schema: &str,
    discriminator: &str,
    actions: &[Action],
    action_fields: &[&[(&str, bool)]],
    kept: &[usize],
) -> Option<String> {
    let names: Vec<&str> = kept.iter().map(|&index| actions[index].name).collect();
    let mut root = Members::parse(schema)?;
    let mut properties = Members::parse(root.get("properties")?)?;

    let mut choice = Members::parse(properties.get(discriminator)?)?;
    choice.set(
        "enum",
        serde_json::to_string(&names).expect("names serialize"),
    );
    if let Some(description) = choice.get("description") {
        let text: String = serde_json::from_str(description).ok()?;
        let all: Vec<&str> = actions.iter().map(|action| action.name).collect();
        choice.set("description", quoted(&kept_lines(&text, &all, &names)));
    }
    properties.set(discriminator, choice.text());

    // Per-action fields are known for an enum of actions; a struct's actions
    // all take the same fields, which stay.
    let per_action = action_fields.len() == actions.len();
    if per_action {
        let used = |name: &str| {
            name == discriminator
                || kept
                    .iter()
                    .any(|&index| action_fields[index].iter().any(|(field, _)| *field == name))
        };
        properties.0.retain(|(name, _)| used(name));
        // A field several actions share describes each in its own line.
        let all: Vec<&str> = actions.iter().map(|action| action.name).collect();
        rewrite_descriptions(&mut properties, Some(discriminator), |text| {
            let kept_text = kept_lines(text, &all, &names);
            (kept_text != text).then_some(kept_text)
        });
        let mut required = vec![discriminator];
        if let Some(&first) = kept.first() {
            for (field, _) in action_fields[first] {
                let everywhere = kept.iter().all(|&index| {
                    action_fields[index]
                        .iter()
                        .any(|(other, needed)| other == field && *needed)
                });
                if everywhere {
                    required.push(field);
                }
            }
        }
        root.set(
            "required",
            serde_json::to_string(&required).expect("names serialize"),
        );
    }
    root.set("properties", properties.text());
    Some(root.text())
}

/// `schema` (already narrowed to `action`) without the property `member`,
/// in `properties` and in `required`: the `inputSchema` of a per-action
/// tool, whose discriminator is implied. A field's description that is the
/// action's line alone loses its "`action`: " opening. `None` when the schema
/// is not an object with `properties`.
pub(crate) fn without_member(schema: &str, member: &str, action: &str) -> Option<String> {
    let mut root = Members::parse(schema)?;
    let mut properties = Members::parse(root.get("properties")?)?;
    properties.0.retain(|(name, _)| name != member);
    let opening = format!("`{action}`: ");
    rewrite_descriptions(&mut properties, None, |text| {
        text.strip_prefix(&opening).map(str::to_owned)
    });
    root.set("properties", properties.text());
    if let Some(required) = root.get("required") {
        let mut names: Vec<String> = serde_json::from_str(required).ok()?;
        names.retain(|name| name != member);
        root.set(
            "required",
            serde_json::to_string(&names).expect("names serialize"),
        );
    }
    Some(root.text())
}

/// Replaces the description of each property but `skip` with what `rewrite`
/// makes of it; `None` leaves the property as it is.
fn rewrite_descriptions(
    properties: &mut Members,
    skip: Option<&str>,
    rewrite: impl Fn(&str) -> Option<String>,
) {
    for (name, value) in &mut properties.0 {
        if skip == Some(&**name) {
            continue;
        }
        let Some(mut field) = Members::parse(value.get()) else {
            continue;
        };
        let Some(text) = field
            .get("description")
            .and_then(|text| serde_json::from_str::<String>(text).ok())
        else {
            continue;
        };
        if let Some(rewritten) = rewrite(&text) {
            field.set("description", quoted(&rewritten));
            *value = RawValue::from_string(field.text()).expect("valid JSON");
        }
    }
}

/// What the discriminator's description of `schema` says of `action`: its
/// paragraph (see [`kept_lines`]) without the "`name`: " that opens it, or
/// `None` when it says nothing of it.
pub(crate) fn action_description(
    schema: &str,
    discriminator: &str,
    action: &str,
) -> Option<String> {
    let root = Members::parse(schema)?;
    let properties = Members::parse(root.get("properties")?)?;
    let choice = Members::parse(properties.get(discriminator)?)?;
    let text: String = serde_json::from_str(choice.get("description")?).ok()?;
    let opening = format!("`{action}`: ");
    let start = text.lines().position(|line| line.starts_with(&opening))?;
    let mut lines = text.lines().skip(start);
    let mut paragraph = vec![lines.next()?[opening.len()..].to_owned()];
    // Continuation lines, up to the next action's line.
    paragraph.extend(
        lines
            .take_while(|line| !(line.starts_with('`') && line.contains("`: ")))
            .map(str::to_owned),
    );
    let paragraph = paragraph.join("\n").trim().to_owned();
    (!paragraph.is_empty()).then_some(paragraph)
}

/// The lines of a description that concern kept actions: a line starting
/// with "`name`: " opens that action's paragraph (its continuation lines go
/// with it); lines before the first action's are about all of them.
fn kept_lines(text: &str, all: &[&str], kept: &[&str]) -> String {
    let opens = |line: &str, name: &str| {
        line.strip_prefix('`')
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.starts_with("`:"))
    };
    let mut keep = true;
    let mut lines = Vec::new();
    for line in text.lines() {
        if let Some(name) = all.iter().find(|name| opens(line, name)) {
            keep = kept.contains(name);
        }
        if keep {
            lines.push(line);
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Annotations;

    const ACTIONS: &[Action] = &[
        Action {
            name: "get",
            annotations: Annotations::new(),
        },
        Action {
            name: "put",
            annotations: Annotations::new(),
        },
    ];

    #[test]
    fn keeps_the_kept_actions_fields_in_order() {
        let schema = r#"{"type":"object","properties":{"action":{"type":"string","enum":["get","put"],"description":"`get`: Read.\nSlowly.\n`put`: Write."},"key":{"type":"string"},"value":{"type":"string"}},"required":["action","key"],"additionalProperties":false}"#;
        let fields: &[&[(&str, bool)]] = &[&[("key", true)], &[("key", true), ("value", true)]];
        assert_eq!(
            narrow_schema(schema, Some("action"), ACTIONS, fields, &[0]),
            r#"{"type":"object","properties":{"action":{"type":"string","enum":["get"],"description":"`get`: Read.\nSlowly."},"key":{"type":"string"}},"required":["action","key"],"additionalProperties":false}"#
        );
        assert_eq!(
            narrow_schema(schema, Some("action"), ACTIONS, fields, &[1]),
            r#"{"type":"object","properties":{"action":{"type":"string","enum":["put"],"description":"`put`: Write."},"key":{"type":"string"},"value":{"type":"string"}},"required":["action","key","value"],"additionalProperties":false}"#
        );
        assert_eq!(
            narrow_schema(schema, Some("action"), ACTIONS, fields, &[0, 1]),
            schema
        );
    }

    #[test]
    fn a_per_action_schema_leaves_the_discriminator_out() {
        let narrowed = r#"{"type":"object","properties":{"action":{"type":"string","enum":["put"]},"key":{"type":"string"},"value":{"type":"string","description":"`put`: The value."}},"required":["action","key","value"],"additionalProperties":false}"#;
        assert_eq!(
            without_member(narrowed, "action", "put").unwrap(),
            r#"{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string","description":"The value."}},"required":["key","value"],"additionalProperties":false}"#
        );
        assert_eq!(without_member("[]", "action", "put"), None);
    }

    #[test]
    fn an_action_is_described_by_its_paragraph() {
        let schema = r#"{"type":"object","properties":{"action":{"type":"string","description":"Pick one.\n`get`: Read.\nSlowly.\n`put`: Write."}}}"#;
        assert_eq!(
            action_description(schema, "action", "get").as_deref(),
            Some("Read.\nSlowly.")
        );
        assert_eq!(
            action_description(schema, "action", "put").as_deref(),
            Some("Write.")
        );
        assert_eq!(action_description(schema, "action", "drop"), None);
        assert_eq!(action_description(schema, "method", "get"), None);
    }
}
