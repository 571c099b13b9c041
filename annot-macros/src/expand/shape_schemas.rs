//! The schema of each shape: an enum of actions (a), a struct with an action
//! field (b), and an `#[mcp_actions]` enum's own schema.

use crate::expand::input_schema::{Builder, FillKind, describe};
use crate::expand::schema_json::Json;
use crate::internals::ast::{Field, Variant};
use crate::internals::attr::SchemaShape;

impl Builder {
    /// Closes a root schema: with `$defs` when nested types need them.
    fn root(&mut self, mut members: Vec<(String, Json)>) -> Json {
        if self.needs_runtime() {
            let defs = self.fill(FillKind::Defs, None);
            members.push(("$defs".into(), defs));
        }
        Json::Object(members)
    }

    /// Shape (a): one object whose fields depend on the discriminator.
    ///
    /// Both shapes start from one flat object: every field of every action,
    /// typed (an `anyOf` when actions give a field different types) and
    /// described (each action's doc when they describe it differently), the
    /// fields every action requires in `required`, unknown fields refused.
    /// The discriminator's description says what each action does and which
    /// fields it takes. No `oneOf`/`anyOf`/`allOf` at the root: OpenAI and
    /// Anthropic refuse them there.
    ///
    /// [`SchemaShape::Exact`] adds a chain of `if`/`then`/`else` on the
    /// discriminator giving each action its exact `required` list and closing
    /// it to its own fields (`propertyNames`), so the schema accepts exactly
    /// what the parser accepts.
    pub fn enum_schema(
        &mut self,
        discriminator: &str,
        variants: &[Variant],
        shape: SchemaShape,
    ) -> Json {
        // Each action's fields and their schemas.
        let per_variant: Vec<Vec<(&Field, Json)>> = variants
            .iter()
            .map(|variant| {
                variant
                    .fields
                    .iter()
                    .filter(|field| !field.skip)
                    .map(|field| (field, self.field_schema(field)))
                    .collect()
            })
            .collect();
        let several = variants.len() > 1;

        let lines: Vec<String> = variants
            .iter()
            .zip(&per_variant)
            .filter_map(|(variant, fields)| {
                let fields = several.then(|| fields_sentence(fields));
                let text = match (variant.doc.as_deref(), fields) {
                    (None, None) => return None,
                    (Some(doc), None) => doc.to_owned(),
                    (None, Some(fields)) => fields,
                    (Some(doc), Some(fields)) => format!("{doc} {fields}"),
                };
                Some(format!("`{}`: {text}", variant.name))
            })
            .collect();
        let mut discriminator_schema = vec![
            ("type".to_owned(), Json::str("string")),
            (
                "enum".to_owned(),
                Json::strings(variants.iter().map(|v| v.name.as_str())),
            ),
        ];
        if !lines.is_empty() {
            discriminator_schema.push(("description".into(), Json::String(lines.join("\n"))));
        }

        let mut properties = vec![(discriminator.to_owned(), Json::Object(discriminator_schema))];
        for fields in &per_variant {
            for (field, _) in fields {
                if properties.iter().any(|(name, _)| *name == field.name) {
                    continue;
                }
                let uses: Vec<(&str, &Json)> = variants
                    .iter()
                    .zip(&per_variant)
                    .filter_map(|(variant, fields)| {
                        let (_, schema) =
                            fields.iter().find(|(other, _)| other.name == field.name)?;
                        Some((variant.name.as_str(), schema))
                    })
                    .collect();
                properties.push((field.name.clone(), merged_field(&uses)));
            }
        }
        let mut required = vec![discriminator.to_owned()];
        if let Some(first) = per_variant.first() {
            for (field, _) in first {
                let everywhere = per_variant.iter().all(|fields| {
                    fields
                        .iter()
                        .any(|(other, _)| other.name == field.name && other.required())
                });
                if everywhere {
                    required.push(field.name.clone());
                }
            }
        }

        let mut root = vec![
            ("type".to_owned(), Json::str("object")),
            ("properties".to_owned(), Json::Object(properties.clone())),
            (
                "required".to_owned(),
                Json::strings(required.iter().map(String::as_str)),
            ),
            ("additionalProperties".to_owned(), Json::Bool(false)),
        ];
        if several && shape == SchemaShape::Exact {
            let branch = |index: usize| {
                let variant = &variants[index];
                let fields = &per_variant[index];
                let mut members = Vec::new();
                if let Some(doc) = &variant.doc {
                    members.push(("description".to_owned(), Json::str(doc)));
                }
                // A field's schema here only where the flat one is wider; a
                // field the flat schema already types exactly needs nothing.
                let narrower: Vec<(String, Json)> = fields
                    .iter()
                    .filter(|(field, schema)| {
                        properties
                            .iter()
                            .any(|(name, top)| *name == field.name && top != schema)
                    })
                    .map(|(field, schema)| (field.name.clone(), schema.clone()))
                    .collect();
                if !narrower.is_empty() {
                    members.push(("properties".to_owned(), Json::Object(narrower)));
                }
                let required: Vec<&str> = fields
                    .iter()
                    .filter(|(field, _)| field.required())
                    .map(|(field, _)| field.name.as_str())
                    .collect();
                if !required.is_empty() {
                    members.push(("required".to_owned(), Json::strings(required)));
                }
                // Closed to its own fields without repeating their schemas
                // (`additionalProperties` would need them listed again here).
                let names = std::iter::once(discriminator)
                    .chain(fields.iter().map(|(field, _)| field.name.as_str()));
                members.push((
                    "propertyNames".to_owned(),
                    Json::object([("enum", Json::strings(names))]),
                ));
                Json::Object(members)
            };
            let is_variant = |index: usize| {
                Json::object([(
                    "properties",
                    Json::Object(vec![(
                        discriminator.to_owned(),
                        Json::object([("const", Json::str(&variants[index].name))]),
                    )]),
                )])
            };
            // if v0 then b0 else (if v1 then b1 else (... else b_last))
            let last = variants.len() - 1;
            let mut otherwise = branch(last);
            for index in (1..last).rev() {
                otherwise = Json::object([
                    ("if", is_variant(index)),
                    ("then", branch(index)),
                    ("else", otherwise),
                ]);
            }
            root.push(("if".into(), is_variant(0)));
            root.push(("then".into(), branch(0)));
            root.push(("else".into(), otherwise));
        }
        self.root(root)
    }

    /// Shape (b): a flat object; the discriminator field's schema comes from its
    /// `#[mcp_actions]` type.
    /// The schema of a struct tool: with its action field (shape b), or of
    /// exactly its fields (`discriminator` `None`, a single-action tool).
    pub fn struct_schema(&mut self, discriminator: Option<&str>, fields: &[Field]) -> Json {
        let mut properties = Vec::new();
        let mut required = Vec::new();
        for field in fields.iter().filter(|field| !field.skip) {
            let schema = if Some(field.name.as_str()) == discriminator {
                self.action_field_schema(field)
            } else {
                self.field_schema(field)
            };
            properties.push((field.name.clone(), schema));
            if field.required() {
                required.push(field.name.as_str());
            }
        }
        self.root(vec![
            ("type".to_owned(), Json::str("object")),
            ("properties".to_owned(), Json::Object(properties)),
            ("required".to_owned(), Json::strings(required)),
            ("additionalProperties".to_owned(), Json::Bool(false)),
        ])
    }
}

/// The schema of an `#[mcp_actions]` enum: a string naming one action.
pub fn actions_schema(doc: Option<&str>, variants: &[Variant]) -> Json {
    let mut lines: Vec<String> = doc.map(str::to_owned).into_iter().collect();
    lines.extend(
        variants
            .iter()
            .filter_map(|v| Some(format!("`{}`: {}", v.name, v.doc.as_deref()?))),
    );
    let mut members = vec![
        ("type".to_owned(), Json::str("string")),
        (
            "enum".to_owned(),
            Json::strings(variants.iter().map(|v| v.name.as_str())),
        ),
    ];
    if !lines.is_empty() {
        members.push(("description".to_owned(), Json::String(lines.join("\n"))));
    }
    Json::Object(members)
}

/// "Requires `a`, `b`. Optional: `c`.": the fields one action takes.
fn fields_sentence(fields: &[(&Field, Json)]) -> String {
    let list = |required: bool| {
        fields
            .iter()
            .filter(|(field, _)| field.required() == required)
            .map(|(field, _)| format!("`{}`", field.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (required, optional) = (list(true), list(false));
    match (required.is_empty(), optional.is_empty()) {
        (true, true) => "No other fields.".to_owned(),
        (false, true) => format!("Requires {required}."),
        (true, false) => format!("Optional: {optional}."),
        (false, false) => format!("Requires {required}. Optional: {optional}."),
    }
}

/// The flat schema of a field several actions take: theirs when they agree,
/// else the type (an `anyOf` of the distinct ones) with each action's
/// description.
fn merged_field(uses: &[(&str, &Json)]) -> Json {
    let (_, first) = uses[0];
    if uses.iter().all(|(_, schema)| *schema == first) {
        return first.clone();
    }
    let mut types: Vec<Json> = Vec::new();
    for (_, schema) in uses {
        let bare = without_description(schema);
        if !types.contains(&bare) {
            types.push(bare);
        }
    }
    let base = if types.len() == 1 {
        types.remove(0)
    } else {
        Json::object([("anyOf", Json::Array(types))])
    };
    let docs: Vec<String> = uses
        .iter()
        .filter_map(|(action, schema)| Some(format!("`{action}`: {}", description_of(schema)?)))
        .collect();
    if docs.is_empty() {
        base
    } else {
        describe(base, Some(&docs.join("\n")))
    }
}

fn description_of(schema: &Json) -> Option<&str> {
    match schema {
        Json::Object(members) => members.iter().find_map(|(key, value)| match value {
            Json::String(text) if key == "description" => Some(text.as_str()),
            _ => None,
        }),
        _ => None,
    }
}

fn without_description(schema: &Json) -> Json {
    match schema {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter(|(key, _)| key != "description")
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    }
}
