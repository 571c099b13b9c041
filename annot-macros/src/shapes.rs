//! The schema of each shape: an enum of actions (a), a struct with an action
//! field (b), and an `#[mcp_actions]` enum's own schema.

use crate::ast::{Field, Variant};
use crate::json::Json;
use crate::schema::{Builder, FillKind};

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
    /// Every field of every action is listed at the top (with its schema when
    /// all actions agree on it), so a reader sees one flat object, and a chain
    /// of `if`/`then`/`else` on the discriminator gives each action its exact
    /// `required` list and closes it with `additionalProperties: false`. No
    /// `oneOf`/`anyOf`/`allOf` at the root: some model APIs refuse them there.
    pub fn enum_schema(&mut self, discriminator: &str, variants: &[Variant]) -> Json {
        let mut discriminator_schema = vec![
            ("type".to_owned(), Json::str("string")),
            (
                "enum".to_owned(),
                Json::strings(variants.iter().map(|v| v.name.as_str())),
            ),
        ];
        let documented: Vec<String> = variants
            .iter()
            .filter_map(|v| Some(format!("`{}`: {}", v.name, v.doc.as_deref()?)))
            .collect();
        if !documented.is_empty() {
            discriminator_schema.push(("description".into(), Json::String(documented.join("\n"))));
        }

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

        let mut properties = vec![(discriminator.to_owned(), Json::Object(discriminator_schema))];
        let mut shared: Vec<String> = Vec::new();
        for fields in &per_variant {
            for (field, schema) in fields {
                if properties.iter().any(|(name, _)| *name == field.name) {
                    continue;
                }
                let all_agree = per_variant.iter().flatten().all(|(other, other_schema)| {
                    other.name != field.name || other_schema == schema
                });
                let undescribed = without_description(schema);
                let same_type = per_variant.iter().flatten().all(|(other, other_schema)| {
                    other.name != field.name || without_description(other_schema) == undescribed
                });
                let top = if all_agree {
                    shared.push(field.name.clone());
                    schema.clone()
                } else if same_type {
                    // Same type, described differently per action: the type here,
                    // each action's description in its branch.
                    undescribed
                } else {
                    Json::Object(Vec::new())
                };
                properties.push((field.name.clone(), top));
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
                if everywhere && field.required() {
                    required.push(field.name.clone());
                }
            }
        }

        let mut root = vec![
            ("type".to_owned(), Json::str("object")),
            ("properties".to_owned(), Json::Object(properties)),
            (
                "required".to_owned(),
                Json::strings(required.iter().map(String::as_str)),
            ),
            ("additionalProperties".to_owned(), Json::Bool(false)),
        ];
        if variants.len() > 1 {
            let branch = |index: usize| {
                let variant = &variants[index];
                let mut properties = vec![(discriminator.to_owned(), Json::Bool(true))];
                for (field, schema) in &per_variant[index] {
                    let schema = if shared.contains(&field.name) {
                        Json::Bool(true)
                    } else {
                        schema.clone()
                    };
                    properties.push((field.name.clone(), schema));
                }
                let required: Vec<&str> = per_variant[index]
                    .iter()
                    .filter(|(field, _)| field.required())
                    .map(|(field, _)| field.name.as_str())
                    .collect();
                let mut members = Vec::new();
                if let Some(doc) = &variant.doc {
                    members.push(("description".to_owned(), Json::str(doc)));
                }
                members.push(("properties".to_owned(), Json::Object(properties)));
                if !required.is_empty() {
                    members.push(("required".to_owned(), Json::strings(required)));
                }
                members.push(("additionalProperties".to_owned(), Json::Bool(false)));
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
