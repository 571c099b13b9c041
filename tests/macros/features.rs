//! What `#[mcp_tool]` understands: serde renames, field types, doc comments,
//! tool-level defaults, SEP-1984 hints, and the `crate` override.

use crate::macro_support;
use std::collections::{BTreeMap, HashMap, HashSet};

use annot::{AnnotatedTool, Annotations, mcp_tool};
use macro_support::{
    assert_same_verdicts, assert_schema_and_parser_agree, assert_within_static_bound,
    exact_schema_of, schema_of,
};
use serde_json::json;

/// Kebab-case actions, camelCase fields everywhere, one variant renamed.
#[mcp_tool(discriminator = "op", open_world = false)]
#[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
#[derive(Debug, PartialEq)]
enum Renamed {
    #[annotate(read_only)]
    ListAll { page_size: u8 },
    #[serde(rename = "purge!")]
    #[annotate(destructive)]
    PurgeEverything,
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    #[annotate(destructive = false)]
    AddItem {
        r#type: String,
        #[serde(rename = "why")]
        reason: Option<String>,
    },
}

#[test]
fn serde_renames_are_honoured() {
    assert_eq!(Renamed::DISCRIMINATOR, Some("op"));
    let names: Vec<&str> = Renamed::ACTIONS.iter().map(|action| action.name).collect();
    assert_eq!(names, ["list-all", "purge!", "add-item"]);
    assert_eq!(
        Renamed::from_arguments(&json!({"op": "list-all", "pageSize": 5})),
        Ok(Renamed::ListAll { page_size: 5 })
    );
    assert_eq!(
        Renamed::from_arguments(&json!({"op": "add-item", "TYPE": "x", "why": "y"})),
        Ok(Renamed::AddItem {
            r#type: "x".into(),
            reason: Some("y".into())
        })
    );
    assert_schema_and_parser_agree::<Renamed>(
        &[
            json!({"op": "list-all", "pageSize": 255}),
            json!({"op": "purge!"}),
            json!({"op": "add-item", "TYPE": "t"}),
            json!({"op": "add-item", "TYPE": "t", "why": null}),
        ],
        &[
            json!({"op": "list_all", "pageSize": 1}),
            json!({"op": "list-all", "page_size": 1}),
            json!({"op": "list-all", "pageSize": 256}),
            json!({"op": "purge-everything"}),
            json!({"op": "purge!", "pageSize": 1}),
            json!({"op": "add-item", "type": "t"}),
            json!({"op": "add-item", "TYPE": "t", "reason": "r"}),
            json!({"action": "purge!"}),
        ],
    );
}

/// A tool whose fields cover the types annot maps itself.
#[mcp_tool(name = "types", open_world = false, idempotent)]
#[serde(tag = "kind")]
#[derive(Debug)]
#[allow(dead_code)]
enum Types {
    #[annotate]
    Numbers {
        tiny: i8,
        small: u16,
        big: u64,
        signed: i64,
        ratio: f64,
        single: f32,
        flag: bool,
        letter: char,
    },
    #[annotate]
    Collections {
        list: Vec<String>,
        nested: Vec<Vec<u8>>,
        set: HashSet<u32>,
        map: HashMap<String, bool>,
        sorted: BTreeMap<String, Vec<i16>>,
        boxed: Box<u32>,
        anything: serde_json::Value,
    },
    #[annotate]
    Optional {
        maybe: Option<u32>,
        maybe_list: Option<Vec<bool>>,
        list_of_maybe: Vec<Option<String>>,
        #[serde(default)]
        counter: u32,
        #[serde(skip)]
        cache: Option<String>,
    },
}

#[test]
fn tool_level_defaults_stand_in_for_annotate() {
    for action in Types::ACTIONS {
        assert_eq!(action.annotations.idempotent, Some(true));
        assert_eq!(action.annotations.open_world, Some(false));
        assert_eq!(action.annotations.destructive, Some(true));
    }
    assert_eq!(Types::DISCRIMINATOR, Some("kind"));
    assert_eq!(Types::NAME, "types");
}

#[test]
fn primitive_fields_match_serde() {
    assert_schema_and_parser_agree::<Types>(
        &[
            json!({"kind": "Numbers", "tiny": -128, "small": 65535, "big": 18446744073709551615u64,
                   "signed": -9223372036854775808i64, "ratio": 0.5, "single": 1, "flag": true,
                   "letter": "é"}),
            json!({"kind": "Numbers", "tiny": 127.0, "small": 0, "big": 0, "signed": 1e3,
                   "ratio": -1, "single": 1e30, "flag": false, "letter": " "}),
        ],
        &[
            json!({"kind": "Numbers", "tiny": 128, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": -1, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": -1, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0.5, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 2e19, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 1e19,
                   "ratio": 0, "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 0,
                   "ratio": "0", "single": 0, "flag": true, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": 1, "letter": "a"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": "ab"}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true, "letter": ""}),
            json!({"kind": "Numbers", "tiny": 0, "small": 0, "big": 0, "signed": 0,
                   "ratio": 0, "single": 0, "flag": true}),
        ],
    );
}

/// Integers at the edge of their range, written as integers or floats, as
/// `serde_json` reads them (beyond 64 bits, as the nearest `f64`).
#[test]
fn integer_edges_get_the_same_verdict() {
    let numbers = |big: &str, signed: &str| {
        let text = format!(
            r#"{{"kind":"Numbers","tiny":0,"small":0,"big":{big},"signed":{signed},"ratio":0,"single":0,"flag":true,"letter":"a"}}"#
        );
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    let cases = [
        numbers("18446744073709551615", "0"),
        numbers("18446744073709551615.0", "0"),
        numbers("18446744073709551616", "0"),
        numbers("1e300", "0"),
        numbers("0", "-9223372036854775808"),
        numbers("0", "-9223372036854775809"),
        numbers("0", "9223372036854775807.0"),
        numbers("0", "9223372036854775808"),
        numbers("-0.0", "-0.0"),
        numbers("1e2", "-1e2"),
    ];
    // Accepted: u64::MAX, i64::MIN, the f64 nearest below i64::MIN (which is
    // i64::MIN), -0.0 and 1e2; every other case is refused by both.
    assert_eq!(assert_same_verdicts::<Types>(&cases), 5);
}

#[test]
fn container_fields_match_serde() {
    let collections = |extra: serde_json::Value| {
        let mut base = json!({"kind": "Collections", "list": [], "nested": [[1, 2]], "set": [3, 3],
                              "map": {}, "sorted": {"a": [-1]}, "boxed": 4, "anything": null});
        for (key, value) in extra.as_object().unwrap() {
            base[key] = value.clone();
        }
        base
    };
    assert_schema_and_parser_agree::<Types>(
        &[
            collections(json!({})),
            collections(json!({"anything": {"deep": [1, "x"]}, "map": {"k": false}})),
            json!({"kind": "Optional", "list_of_maybe": []}),
            json!({"kind": "Optional", "maybe": null, "maybe_list": null, "list_of_maybe": [null, "a"],
                   "counter": 3}),
            json!({"kind": "Optional", "maybe": 1, "maybe_list": [true], "list_of_maybe": []}),
        ],
        &[
            collections(json!({"list": "a"})),
            collections(json!({"list": [1]})),
            collections(json!({"nested": [[256]]})),
            collections(json!({"set": [-1]})),
            collections(json!({"map": {"k": "v"}})),
            collections(json!({"map": []})),
            collections(json!({"sorted": {"a": [40000]}})),
            collections(json!({"boxed": null})),
            json!({"kind": "Collections"}),
            json!({"kind": "Optional", "list_of_maybe": [1]}),
            json!({"kind": "Optional", "list_of_maybe": null}),
            json!({"kind": "Optional", "list_of_maybe": [], "counter": null}),
            json!({"kind": "Optional", "list_of_maybe": [], "cache": "x"}),
            json!({"kind": "Optional", "list_of_maybe": [], "maybe_list": [null]}),
        ],
    );
    let schema = schema_of::<Types>();
    assert_eq!(schema["properties"]["set"]["type"], "array");
    assert!(schema["properties"].get("cache").is_none());
}

/// A tool documented everywhere.
///
/// Second paragraph.
#[mcp_tool(open_world = false, title = "Notes")]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Notes {
    /// Show one note.
    #[annotate(read_only, title = "Show")]
    Show {
        /// The note's id.
        id: u32,
    },
    /// Forget one note.
    #[annotate(destructive, idempotent, reversible = false, sensitive_data)]
    Forget {
        /// The note's id.
        id: u32,
    },
    /// Ask a model about the notes.
    #[annotate(read_only, ai_processing, slow_execution, resource_intensive = false)]
    Ask { question: String },
    #[annotate(read_only = false, destructive = false, privileged_access)]
    Export,
}

#[test]
fn doc_comments_become_descriptions() {
    assert_eq!(
        Notes::DESCRIPTION,
        Some("A tool documented everywhere.\n\nSecond paragraph.")
    );
    let schema = schema_of::<Notes>();
    assert_eq!(schema["properties"]["id"]["description"], "The note's id.");
    assert_eq!(schema["properties"]["question"], json!({"type": "string"}));
    assert_eq!(
        schema["properties"]["action"]["description"],
        "`show`: Show one note. Requires `id`.\n`forget`: Forget one note. Requires `id`.\n\
         `ask`: Ask a model about the notes. Requires `question`.\n`export`: No other fields."
    );
    // The portable shape has no conditionals; the exact one describes each
    // action in its branch too.
    assert!(schema.get("then").is_none());
    assert_eq!(
        exact_schema_of::<Notes>()["then"]["description"],
        "Show one note."
    );
}

#[test]
fn sep_1984_hints_resolve_and_join() {
    let resolve = |arguments| Notes::from_arguments(&arguments).unwrap().resolve();
    let forget = resolve(json!({"action": "forget", "id": 1}));
    assert_eq!(forget.reversible, Some(false));
    assert_eq!(forget.sensitive_data, Some(true));
    assert_eq!(forget.ai_processing, None);
    let ask = resolve(json!({"action": "ask", "question": "?"}));
    assert_eq!(
        (
            ask.ai_processing,
            ask.slow_execution,
            ask.resource_intensive
        ),
        (Some(true), Some(true), Some(false))
    );
    let show = resolve(json!({"action": "show", "id": 2}));
    assert_eq!(show.title, Some("Show"));
    assert_eq!(show.sensitive_data, None);

    let declared = Notes::STATIC_ANNOTATIONS;
    assert_eq!(declared.title, Some("Notes"));
    assert_eq!(declared.sensitive_data, Some(true));
    assert_eq!(declared.ai_processing, Some(true));
    assert_eq!(declared.privileged_access, Some(true));
    assert_eq!(declared.reversible, Some(false));
    // Not every action claims `resource_intensive = false`: the join makes no claim.
    assert_eq!(declared.resource_intensive, None);
    assert_eq!(declared.open_world, Some(false));
    assert_within_static_bound::<Notes>(&[
        json!({"action": "show", "id": 1}),
        json!({"action": "forget", "id": 1}),
        json!({"action": "ask", "question": ""}),
        json!({"action": "export"}),
    ]);
}

/// One action only: the schema is one flat object.
#[mcp_tool]
#[derive(Debug)]
#[allow(dead_code)]
enum Single {
    #[annotate(read_only, open_world = false)]
    Ping { count: Option<u8> },
}

#[test]
fn a_single_action_has_a_flat_schema() {
    let schema = schema_of::<Single>();
    assert!(schema.get("if").is_none());
    assert_eq!(schema["required"], json!(["action"]));
    assert_eq!(Single::NAME, "single");
    assert_eq!(
        Single::STATIC_ANNOTATIONS,
        Annotations::new()
            .read_only(true)
            .open_world(false)
            .effective()
    );
    assert_schema_and_parser_agree::<Single>(
        &[
            json!({"action": "Ping"}),
            json!({"action": "Ping", "count": 3}),
        ],
        &[
            json!({"action": "ping"}),
            json!({"action": "Ping", "count": -3}),
        ],
    );
}

/// `#[serde]` attributes stay for serde's own derive when the type has one.
#[mcp_tool]
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
enum AlsoSerde {
    #[annotate(read_only)]
    Look {
        #[serde(rename = "where")]
        place: String,
    },
}

#[test]
fn names_agree_with_serde_derive() {
    let arguments = json!({"action": "look", "where": "here"});
    let ours = AlsoSerde::from_arguments(&arguments).unwrap();
    let theirs: AlsoSerde = serde_json::from_value(arguments.clone()).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(serde_json::to_value(&ours).unwrap(), arguments);
}

mod renamed_facade {
    pub use annot::__private;
}

#[mcp_tool(crate = "crate::features::renamed_facade", open_world = false)]
#[allow(dead_code)]
enum ThroughFacade {
    #[annotate(read_only)]
    Look,
}

#[test]
fn the_crate_path_can_be_overridden() {
    assert_eq!(ThroughFacade::NAME, "through_facade");
    let look = ThroughFacade::from_arguments(&json!({"action": "Look"})).unwrap();
    assert!(matches!(look, ThroughFacade::Look));
    assert_eq!(
        look.resolve().to_string(),
        r#"{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}"#
    );
}
