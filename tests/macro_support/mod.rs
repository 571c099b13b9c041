//! Shared checks of `#[mcp_tool]` types, with the `jsonschema` crate as the
//! oracle of what the generated `inputSchema` accepts.

#![allow(dead_code)]

use annot::{AnnotatedTool, Annotations};
use serde_json::Value;

/// The tool's input schema, parsed, after checking it is valid JSON Schema
/// 2020-12 with an object root.
pub fn schema_of<T: AnnotatedTool>() -> Value {
    let schema: Value = serde_json::from_str(T::input_schema()).expect("inputSchema is JSON");
    if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{} is not valid JSON Schema 2020-12: {error}", T::NAME);
    }
    assert_eq!(schema["type"], "object", "{}: root type", T::NAME);
    schema
}

/// Asserts that the schema and `from_arguments` agree on every case: each
/// `valid` argument object passes both, each `invalid` one fails both.
pub fn assert_schema_and_parser_agree<T: AnnotatedTool + std::fmt::Debug>(
    valid: &[Value],
    invalid: &[Value],
) {
    let schema = schema_of::<T>();
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    for arguments in valid {
        let errors: Vec<String> = validator
            .iter_errors(arguments)
            .map(|error| error.to_string())
            .collect();
        assert!(errors.is_empty(), "schema refuses valid {arguments}: {errors:?}");
        if let Err(error) = T::from_arguments(arguments) {
            panic!("parser refuses valid {arguments}: {error}");
        }
        let text = arguments.to_string();
        assert!(T::from_arguments_str(&text).is_ok(), "text form of {text}");
    }
    for arguments in invalid {
        assert!(
            !validator.is_valid(arguments),
            "schema accepts invalid {arguments}"
        );
        if let Ok(parsed) = T::from_arguments(arguments) {
            panic!("parser accepts invalid {arguments} as {parsed:?}");
        }
    }
}

/// Asserts that every action, and every resolution of the given arguments,
/// stays within the static annotations (the conservative bound).
pub fn assert_within_static_bound<T: AnnotatedTool>(arguments: &[Value]) {
    let declared = T::STATIC_ANNOTATIONS;
    for action in T::ACTIONS {
        if let Err(violation) = action.annotations.check_within(&declared) {
            panic!("{}: action {} breaks the bound: {violation}", T::NAME, action.name);
        }
    }
    assert_eq!(
        declared,
        Annotations {
            title: T::TITLE,
            ..Annotations::join_all(
                &T::ACTIONS.iter().map(|action| action.annotations).collect::<Vec<_>>()
            )
        },
        "{}: static annotations are the join of the actions",
        T::NAME
    );
    for value in arguments {
        let parsed = T::from_arguments(value).expect("valid arguments");
        let resolved = parsed.resolve();
        assert!(resolved.is_within(&declared), "{}: {value} resolves to {resolved}", T::NAME);
        assert!(
            T::ACTIONS.iter().any(|action| action.annotations == resolved),
            "{}: {value} resolves to an action's annotations",
            T::NAME
        );
    }
}
