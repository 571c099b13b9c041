//! Schemas completed at run time: those with a nested user type, whose schema
//! comes from `schemars::JsonSchema` (feature `schemars`).

/// One piece of an input schema's text.
pub enum SchemaPiece {
    /// Text known at compile time.
    Text(&'static str),
    /// The schema of a nested type, as JSON text; definitions it refers to are
    /// collected in the generator.
    Type(fn(&mut SchemaGenerator) -> String),
    /// The `$defs` object of every definition collected so far.
    Defs,
}

/// Concatenates the pieces of a schema, with one generator for all nested types.
pub fn assemble_schema(pieces: &[SchemaPiece]) -> String {
    let mut generator = new_generator();
    let mut text = String::new();
    for piece in pieces {
        match piece {
            SchemaPiece::Text(part) => text.push_str(part),
            SchemaPiece::Type(schema) => text.push_str(&schema(&mut generator)),
            SchemaPiece::Defs => text.push_str(&take_definitions(&mut generator)),
        }
    }
    text
}

#[cfg(feature = "schemars")]
mod with_schemars {
    /// The generator of nested types' schemas (JSON Schema 2020-12).
    pub type SchemaGenerator = schemars::SchemaGenerator;

    pub(super) fn new_generator() -> SchemaGenerator {
        schemars::generate::SchemaSettings::draft2020_12().into_generator()
    }

    pub(super) fn take_definitions(generator: &mut SchemaGenerator) -> String {
        let mut definitions = generator.take_definitions(true);
        definitions
            .values_mut()
            .for_each(crate::private::portable::portable);
        serde_json::Value::Object(definitions).to_string()
    }

    /// A field type whose JSON Schema comes from `schemars`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no JSON Schema for the tool's inputSchema",
        label = "this field type is not one annot maps by itself",
        note = "derive `schemars::JsonSchema` for `{Self}` (annot maps primitives, String, \
                Option, Vec, sets, string-keyed maps and Box by itself)"
    )]
    pub trait FieldSchema {
        /// The schema of the type, as JSON text.
        fn schema_text(generator: &mut SchemaGenerator) -> String;
    }

    impl<T: schemars::JsonSchema + ?Sized> FieldSchema for T {
        fn schema_text(generator: &mut SchemaGenerator) -> String {
            let mut schema = generator.subschema_for::<T>().to_value();
            crate::private::portable::portable(&mut schema);
            schema.to_string()
        }
    }

    /// The schema of `T`, as JSON text.
    pub fn subschema<T: FieldSchema + ?Sized>(generator: &mut SchemaGenerator) -> String {
        T::schema_text(generator)
    }
}

#[cfg(not(feature = "schemars"))]
mod with_schemars {
    /// Stands for `schemars::SchemaGenerator` when the feature is off; never built
    /// with a nested type, since no type has a schema then.
    pub struct SchemaGenerator(());

    pub(super) fn new_generator() -> SchemaGenerator {
        SchemaGenerator(())
    }

    pub(super) fn take_definitions(_: &mut SchemaGenerator) -> String {
        "{}".to_owned()
    }

    /// A field type whose JSON Schema comes from `schemars`: none without the
    /// `schemars` feature.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no JSON Schema for the tool's inputSchema",
        label = "this field type is not one annot maps by itself",
        note = "annot maps primitives, String, Option, Vec, sets, string-keyed maps and Box by \
                itself; for other types enable the `schemars` feature of annot and derive \
                `schemars::JsonSchema`"
    )]
    pub trait FieldSchema {}

    /// The schema of `T`; unreachable, as no type implements [`FieldSchema`].
    pub fn subschema<T: FieldSchema + ?Sized>(_: &mut SchemaGenerator) -> String {
        "true".to_owned()
    }
}

pub use with_schemars::{FieldSchema, SchemaGenerator, subschema};

/// The `outputSchema` of `#[mcp_tool(output = Type)]` (feature `output-schema`).
#[cfg(feature = "output-schema")]
mod output {
    /// The type of `#[mcp_tool(output = Type)]`, whose JSON Schema is the
    /// tool's `outputSchema`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no JSON Schema for the tool's outputSchema",
        label = "the type of `output = ...` needs `schemars::JsonSchema`",
        note = "derive `schemars::JsonSchema` and `serde::Serialize` for `{Self}`"
    )]
    pub trait OutputSchema {
        /// The root schema of the type, as JSON text.
        fn output_schema_text() -> String;
    }

    impl<T: schemars::JsonSchema + ?Sized> OutputSchema for T {
        fn output_schema_text() -> String {
            let mut schema = schemars::generate::SchemaSettings::draft2020_12()
                .into_generator()
                .into_root_schema_for::<T>()
                .to_value();
            // The dialect is the specification's default (2020-12); naming it
            // makes some clients' validators fetch the meta-schema.
            if let Some(object) = schema.as_object_mut() {
                object.remove("$schema");
            }
            without_number_formats(&mut schema);
            crate::private::portable::portable(&mut schema);
            schema.to_string()
        }
    }

    /// The `format`s `schemars` names Rust's number types with: none is a
    /// JSON Schema format, and clients' validators warn about each (the
    /// range stays, in `minimum` and `maximum`).
    const NUMBER_FORMATS: [&str; 14] = [
        "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
        "uint128", "uint", "float", "double",
    ];

    /// Removes every `"format"` of [`NUMBER_FORMATS`] from a schema.
    fn without_number_formats(schema: &mut serde_json::Value) {
        use serde_json::Value;
        match schema {
            Value::Object(object) => {
                let rust_number = |format: &Value| {
                    format
                        .as_str()
                        .is_some_and(|format| NUMBER_FORMATS.contains(&format))
                };
                if object.get("format").is_some_and(rust_number) {
                    object.remove("format");
                }
                object.values_mut().for_each(without_number_formats);
            }
            Value::Array(items) => items.iter_mut().for_each(without_number_formats),
            _ => {}
        }
    }

    /// The `outputSchema` of a tool whose results are `T`s, as JSON text.
    pub fn output_schema<T: OutputSchema + ?Sized>() -> String {
        T::output_schema_text()
    }
}

/// Stands for the `outputSchema` of `#[mcp_tool(output = Type)]` without the
/// `output-schema` feature: no type has one, and the error says why.
#[cfg(not(feature = "output-schema"))]
mod output {
    /// The type of `#[mcp_tool(output = Type)]`: none without the
    /// `output-schema` feature.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no JSON Schema for the tool's outputSchema",
        label = "the type of `output = ...` needs `schemars::JsonSchema`",
        note = "enable the `output-schema` feature of annot (or `schemars`) and derive \
                `schemars::JsonSchema` and `serde::Serialize` for `{Self}`"
    )]
    pub trait OutputSchema {}

    /// The `outputSchema` of `T`; unreachable, as no type implements
    /// [`OutputSchema`].
    pub fn output_schema<T: OutputSchema + ?Sized>() -> String {
        "{}".to_owned()
    }
}

pub use output::{OutputSchema, output_schema};

use with_schemars::{new_generator, take_definitions};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::portable::portable;

    #[test]
    fn text_pieces_concatenate() {
        let text = assemble_schema(&[
            SchemaPiece::Text("{\"type\":\"object\",\"$defs\":"),
            SchemaPiece::Defs,
            SchemaPiece::Text("}"),
        ]);
        assert_eq!(text, "{\"type\":\"object\",\"$defs\":{}}");
    }

    #[test]
    fn type_arrays_and_booleans_become_portable() {
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "maxLength": 3},
                "b": true,
                "c": {"type": ["integer"]},
                "d": {"type": "array", "items": false},
                "e": {"type": "object", "additionalProperties": true}
            },
            "$defs": {"X": {"anyOf": [{"type": ["boolean", "null"]}]}}
        });
        portable(&mut schema);
        assert_eq!(
            schema,
            serde_json::json!({
                "type": "object",
                "properties": {
                    "a": {"anyOf": [{"type": "string"}, {"type": "null"}], "maxLength": 3},
                    "b": {"anyOf": [{"type": "null"}, {"type": "boolean"}, {"type": "number"},
                                    {"type": "string"}, {"type": "array"}, {"type": "object"}]},
                    "c": {"type": "integer"},
                    "d": {"type": "array", "items": {"not": {}}},
                    "e": {"type": "object", "additionalProperties": true}
                },
                "$defs": {"X": {"anyOf": [{"anyOf": [{"type": "boolean"}, {"type": "null"}]}]}}
            })
        );
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn nested_types_share_one_set_of_definitions() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Point {
            x: i32,
        }
        let text = assemble_schema(&[
            SchemaPiece::Text("{\"a\":"),
            SchemaPiece::Type(subschema::<Point>),
            SchemaPiece::Text(",\"b\":"),
            SchemaPiece::Type(subschema::<Vec<Point>>),
            SchemaPiece::Text(",\"$defs\":"),
            SchemaPiece::Defs,
            SchemaPiece::Text("}"),
        ]);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["a"]["$ref"], "#/$defs/Point");
        assert_eq!(value["b"]["items"]["$ref"], "#/$defs/Point");
        assert_eq!(
            value["$defs"]["Point"]["properties"]["x"]["type"],
            "integer"
        );
    }
}
