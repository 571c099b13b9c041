//! The `inputSchema`: field types mapped to JSON Schema 2020-12 at compile time
//! (the schema of each shape is in `shape_schemas`),
//! with holes for what only the compiler (an `#[mcp_actions]` enum's names) or
//! the runtime (a `schemars` schema of a nested type) knows.
//!
//! Every sub-schema is an object with a validation keyword (no bare `true`, no
//! `{}`) and every `type` is one name (no type arrays): `Option<T>` is
//! `anyOf` of `T` and `{"type":"null"}`, and `serde_json::Value` is `anyOf` of
//! the six JSON types. This keeps the schema inside the subsets model APIs and
//! MCP clients' lints accept (see docs/declaring.md, "Schema portability").
//!
//! Each field's schema accepts exactly what the generated parser accepts for
//! it; how per-action rules are stated depends on the
//! [`SchemaShape`](crate::internals::attr::SchemaShape).

use quote::ToTokens;
use syn::Type;

use crate::expand::schema_json::Json;
use crate::internals::ast::Field;
use crate::internals::types::{Class, classify, peel};

/// What goes into a hole of the schema text.
pub enum FillKind {
    /// The whole schema of an `#[mcp_actions]` enum (`AnnotatedActions::SCHEMA`).
    ActionsSchema,
    /// The JSON array of its names (`AnnotatedActions::NAMES_JSON`).
    ActionsNames,
    /// The `schemars` schema of a type, at run time.
    Schemars,
    /// The `$defs` the `schemars` schemas refer to, at run time.
    Defs,
}

pub struct Fill {
    pub kind: FillKind,
    pub ty: Option<Type>,
}

/// Builds schemas and remembers the holes they have.
#[derive(Default)]
pub struct Builder {
    pub fills: Vec<Fill>,
    keys: Vec<String>,
}

impl Builder {
    pub(crate) fn fill(&mut self, kind: FillKind, ty: Option<&Type>) -> Json {
        let key = format!(
            "{}:{}",
            kind_name(&kind),
            ty.map(|ty| ty.to_token_stream().to_string())
                .unwrap_or_default()
        );
        if let Some(index) = self.keys.iter().position(|known| *known == key) {
            return Json::Fill(index);
        }
        self.keys.push(key);
        self.fills.push(Fill {
            kind,
            ty: ty.cloned(),
        });
        Json::Fill(self.fills.len() - 1)
    }

    /// Whether the schema can only be completed at run time.
    pub fn needs_runtime(&self) -> bool {
        self.fills
            .iter()
            .any(|fill| matches!(fill.kind, FillKind::Schemars))
    }

    /// The schema of a type, as serde deserializes it, by its one
    /// classification (`types::classify`).
    pub fn type_schema(&mut self, ty: &Type) -> Json {
        let simple = |kind: &str| Json::object([("type", Json::str(kind))]);
        match classify(ty) {
            Class::Bool => simple("boolean"),
            Class::Str => simple("string"),
            Class::Char => Json::object([
                ("type", Json::str("string")),
                ("minLength", Json::Number("1".into())),
                ("maxLength", Json::Number("1".into())),
            ]),
            Class::Float => simple("number"),
            Class::Option(inner) => {
                let inner = self.type_schema(inner);
                nullable(inner)
            }
            Class::Seq(item) => Json::object([
                ("type", Json::str("array")),
                ("items", self.type_schema(item)),
            ]),
            Class::Map(value) => Json::object([
                ("type", Json::str("object")),
                ("additionalProperties", self.type_schema(value)),
            ]),
            Class::Boxed(inner) => self.type_schema(inner),
            Class::JsonValue => any_value(),
            Class::Int(range) => Json::object([
                ("type", Json::str("integer")),
                ("minimum", Json::Number(range.min.to_string())),
                ("maximum", Json::Number(range.max.to_string())),
            ]),
            Class::Other => self.fill(FillKind::Schemars, Some(peel(ty))),
        }
    }

    /// The schema of a field, its doc comment as `description`.
    pub fn field_schema(&mut self, field: &Field) -> Json {
        let schema = self.type_schema(&field.ty);
        describe(schema, field.doc.as_deref())
    }

    /// The schema of the discriminator field of an annotated struct.
    pub(crate) fn action_field_schema(&mut self, field: &Field) -> Json {
        match &field.doc {
            None => self.fill(FillKind::ActionsSchema, Some(&field.ty)),
            Some(doc) => Json::object([
                ("type", Json::str("string")),
                ("enum", self.fill(FillKind::ActionsNames, Some(&field.ty))),
                ("description", Json::str(doc)),
            ]),
        }
    }
}

fn kind_name(kind: &FillKind) -> &'static str {
    match kind {
        FillKind::ActionsSchema => "actions",
        FillKind::ActionsNames => "names",
        FillKind::Schemars => "schemars",
        FillKind::Defs => "defs",
    }
}

pub(crate) fn describe(schema: Json, doc: Option<&str>) -> Json {
    let Some(doc) = doc else { return schema };
    match schema {
        Json::Object(mut members) => {
            members.insert(0, ("description".to_owned(), Json::str(doc)));
            Json::Object(members)
        }
        other => Json::object([
            ("description", Json::str(doc)),
            ("allOf", Json::Array(vec![other])),
        ]),
    }
}

/// Any JSON value, spelled with a validation keyword and one type per branch
/// (a bare `true` or `{}` is what portability lints refuse).
pub(crate) fn any_value() -> Json {
    let types = ["null", "boolean", "number", "string", "array", "object"];
    Json::object([(
        "anyOf",
        Json::Array(
            types
                .into_iter()
                .map(|kind| Json::object([("type", Json::str(kind))]))
                .collect(),
        ),
    )])
}

/// `T` or null, as `anyOf` (not a type array, which single-type dialects
/// refuse).
fn nullable(inner: Json) -> Json {
    if inner == any_value() {
        return inner;
    }
    Json::object([(
        "anyOf",
        Json::Array(vec![inner, Json::object([("type", Json::str("null"))])]),
    )])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_of(ty: &str) -> String {
        let ty: Type = syn::parse_str(ty).unwrap();
        Builder::default().type_schema(&ty).text()
    }

    #[test]
    fn primitives_map_to_json_types() {
        assert_eq!(schema_of("bool"), r#"{"type":"boolean"}"#);
        assert_eq!(schema_of("std::string::String"), r#"{"type":"string"}"#);
        assert_eq!(
            schema_of("u8"),
            r#"{"type":"integer","minimum":0,"maximum":255}"#
        );
        assert_eq!(
            schema_of("i64"),
            r#"{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}"#
        );
        assert_eq!(schema_of("f32"), r#"{"type":"number"}"#);
        assert_eq!(
            schema_of("serde_json::Value"),
            r#"{"anyOf":[{"type":"null"},{"type":"boolean"},{"type":"number"},{"type":"string"},{"type":"array"},{"type":"object"}]}"#
        );
        assert_eq!(
            schema_of("Option<serde_json::Value>"),
            schema_of("serde_json::Value")
        );
    }

    #[test]
    fn containers_nest() {
        assert_eq!(
            schema_of("Option<String>"),
            r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#
        );
        assert_eq!(
            schema_of("Vec<Option<bool>>"),
            r#"{"type":"array","items":{"anyOf":[{"type":"boolean"},{"type":"null"}]}}"#
        );
        assert_eq!(
            schema_of("HashMap<String, u16>"),
            r#"{"type":"object","additionalProperties":{"type":"integer","minimum":0,"maximum":65535}}"#
        );
        assert_eq!(schema_of("Box<f64>"), r#"{"type":"number"}"#);
    }

    #[test]
    fn other_types_are_holes() {
        let mut builder = Builder::default();
        let ty: Type = syn::parse_str("Option<Point>").unwrap();
        assert_eq!(
            builder.type_schema(&ty).text(),
            r#"{"anyOf":[<fill 0>,{"type":"null"}]}"#
        );
        let map: Type = syn::parse_str("BTreeMap<u32, Point>").unwrap();
        assert_eq!(builder.type_schema(&map).text(), "<fill 1>");
        let again: Type = syn::parse_str("Point").unwrap();
        assert_eq!(builder.type_schema(&again).text(), "<fill 0>");
        assert!(builder.needs_runtime());
    }

    #[test]
    fn option_is_recognised_by_name() {
        let ty: Type = syn::parse_str("std::option::Option<u8>").unwrap();
        assert!(crate::internals::types::option_inner(&ty).is_some());
        let ty: Type = syn::parse_str("Vec<u8>").unwrap();
        assert!(crate::internals::types::option_inner(&ty).is_none());
    }

    #[test]
    fn string_pointers_and_wide_integers() {
        for ty in ["Box<str>", "std::sync::Arc<str>", "Cow<'static, str>"] {
            assert_eq!(schema_of(ty), r#"{"type":"string"}"#, "{ty}");
        }
        assert_eq!(
            schema_of("u128"),
            r#"{"type":"integer","minimum":0,"maximum":18446744073709551615}"#
        );
    }
}
