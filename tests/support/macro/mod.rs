//! Shared checks of `#[mcp_tool]` types, with the `jsonschema` crate as the
//! oracle of what the generated `inputSchema` accepts: the exact schema
//! (`exact_input_schema`) accepts what the parser accepts, the advertised one
//! (portable by default) at least that.

#![allow(dead_code)]

use annot::AnnotatedTool;
use serde_json::Value;

/// The tool's advertised input schema, parsed, after checking it is valid JSON
/// Schema 2020-12 with an object root.
pub fn schema_of<T: AnnotatedTool>() -> Value {
    checked(T::NAME, T::input_schema())
}

/// The tool's exact input schema (`exact_input_schema`), checked as above.
pub fn exact_schema_of<T: AnnotatedTool>() -> Value {
    checked(T::NAME, T::exact_input_schema())
}

fn checked(name: &str, text: &str) -> Value {
    let schema: Value = serde_json::from_str(text).expect("inputSchema is JSON");
    if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("{name} is not valid JSON Schema 2020-12: {error}");
    }
    assert_eq!(schema["type"], "object", "{name}: root type");
    schema
}

/// Asserts that the exact schema and `from_arguments` agree on every case:
/// each `valid` argument object passes both, each `invalid` one fails both;
/// and that the advertised schema accepts every `valid` one (it may accept
/// more: see `assert_portable_superset`).
pub fn assert_schema_and_parser_agree<T: AnnotatedTool + std::fmt::Debug>(
    valid: &[Value],
    invalid: &[Value],
) {
    let advertised = jsonschema::draft202012::new(&schema_of::<T>()).expect("schema compiles");
    for arguments in valid {
        assert!(
            advertised.is_valid(arguments),
            "advertised schema refuses valid {arguments}"
        );
    }
    let schema = exact_schema_of::<T>();
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    for arguments in valid {
        let errors: Vec<String> = validator
            .iter_errors(arguments)
            .map(|error| error.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "schema refuses valid {arguments}: {errors:?}"
        );
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
/// stays within the static annotations (the conservative bound). The values
/// themselves are pinned by hand elsewhere (`tests/macros/examples.rs`).
pub fn assert_within_static_bound<T: AnnotatedTool>(arguments: &[Value]) {
    let declared = T::STATIC_ANNOTATIONS;
    for action in T::ACTIONS {
        if let Err(violation) = action.annotations.check_within(&declared) {
            panic!(
                "{}: action {} breaks the bound: {violation}",
                T::NAME,
                action.name
            );
        }
    }
    for value in arguments {
        let parsed = T::from_arguments(value).expect("valid arguments");
        let resolved = parsed.resolve();
        assert!(
            resolved.is_within(&declared),
            "{}: {value} resolves to {resolved}",
            T::NAME
        );
        // Each action's annotations are the worst case of its own calls.
        let action = parsed.explain().action;
        let bound = T::ACTIONS
            .iter()
            .find(|known| Some(known.name) == action)
            .unwrap_or_else(|| panic!("{}: {value} resolves as one of its actions", T::NAME));
        assert!(
            resolved.is_within(&bound.annotations),
            "{}: {value} resolves to {resolved}, outside its action's {}",
            T::NAME,
            bound.annotations
        );
    }
}

/// Every argument object made of these fields, each absent or holding one of
/// its candidate values.
pub fn combinations(fields: &[(&str, Vec<Value>)]) -> Vec<Value> {
    let mut objects = vec![serde_json::Map::new()];
    for (name, candidates) in fields {
        let mut next = Vec::new();
        for object in &objects {
            next.push(object.clone());
            for candidate in candidates {
                let mut with = object.clone();
                with.insert((*name).to_owned(), candidate.clone());
                next.push(with);
            }
        }
        objects = next;
    }
    objects.into_iter().map(Value::Object).collect()
}

/// Asserts that the exact schema accepts exactly the argument objects the
/// parser accepts, and the advertised one at least those, over every case;
/// returns how many were accepted.
pub fn assert_same_verdicts<T: AnnotatedTool + std::fmt::Debug>(cases: &[Value]) -> usize {
    let advertised = jsonschema::draft202012::new(&schema_of::<T>()).expect("schema compiles");
    let schema = exact_schema_of::<T>();
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    let mut accepted = 0;
    for arguments in cases {
        let parsed = T::from_arguments(arguments);
        assert!(
            parsed.is_err() || advertised.is_valid(arguments),
            "{}: advertised schema refuses {arguments}, which the parser accepts",
            T::NAME
        );
        assert_eq!(
            validator.is_valid(arguments),
            parsed.is_ok(),
            "{}: schema and parser disagree on {arguments}: parser says {parsed:?}",
            T::NAME
        );
        accepted += usize::from(parsed.is_ok());
    }
    accepted
}
