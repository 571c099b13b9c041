//! The preflight against scripted servers: the dialect it picks, what it sends,
//! what it keeps from each answer, and that nothing is cached.

use crate::client_support;
use annot::Annotations;
use annot::client::{
    AnnotationSource, ClientExtension, NotResolvable, ResolutionFailure, ResolutionSupport,
};
use annot::protocol::{
    CLIENT_CAPABILITIES_META, Dialect, RpcError, TOOL_RESOLUTION_EXTENSION, error_code,
};
use client_support::*;
use serde_json::{Value, json};

#[test]
fn resolves_in_each_dialect() {
    for dialect in Dialect::ALL {
        let mut server = Scripted::answering([Ok(read_answer(dialect))]);
        let preflight = only(dialect)
            .preflight(&mut server, &manage_files(), &read_arguments())
            .unwrap();
        assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
        assert_eq!(
            preflight.resolved.unwrap().annotations().effective(),
            READ.effective()
        );
        assert_eq!(preflight.annotations(), READ.effective(), "{dialect:?}");
        assert_eq!(
            server.sent,
            [(
                dialect.method().to_owned(),
                json!({"name": "manage_files", "arguments": read_arguments()})
            )]
        );
    }
}

#[test]
fn prefers_the_extension_and_opts_in_per_request() {
    let support = ResolutionSupport {
        dynamic_annotations: true,
        resolve: true,
        extension: true,
        client_extension: ClientExtension::PerRequest,
        ..ResolutionSupport::default()
    };
    let dialect = Dialect::ToolResolutionExtension;
    let mut server = Scripted::answering([Ok(read_answer(dialect))]);
    let preflight = support
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
    let (method, params) = &server.sent[0];
    assert_eq!(method, "tools/resolve");
    assert_eq!(
        params["_meta"][CLIENT_CAPABILITIES_META],
        json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}})
    );
}

#[test]
fn the_extension_keeps_the_static_sep_1984_hints() {
    let dialect = Dialect::ToolResolutionExtension;
    let mut server = Scripted::answering([Ok(read_answer(dialect))]);
    let preflight = only(dialect)
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    let resolved = preflight.resolved.unwrap().annotations();
    assert_eq!(resolved.sensitive_data, Some(true));
    // Meaningless for a read, so `effective` drops it.
    assert_eq!(resolved.reversible, Some(false));
    assert_eq!(preflight.annotations().reversible, None);
}

#[test]
fn the_extension_accepts_meta_of_objects() {
    let dialect = Dialect::ToolResolutionExtension;
    let mut reply = read_answer(dialect);
    reply["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {"name": "files"}});
    let mut server = Scripted::answering([Ok(reply)]);
    let preflight = only(dialect)
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert!(preflight.is_resolved());
}

#[test]
fn unresolvable_tools_use_static_annotations_without_asking() {
    let mut unmarked = manage_files();
    unmarked.dynamic_annotations = None;
    unmarked.resolve = None;
    unmarked.meta = None;
    let everything = ResolutionSupport {
        dynamic_annotations: true,
        resolve: true,
        extension: true,
        client_extension: ClientExtension::Initialize,
        ..ResolutionSupport::default()
    };
    let mut server = Scripted::default();
    let preflight = everything
        .preflight(&mut server, &unmarked, &read_arguments())
        .unwrap();
    assert_eq!(
        preflight.source,
        AnnotationSource::Static(NotResolvable::Unmarked)
    );

    let preflight = ResolutionSupport::default()
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert_eq!(
        preflight.source,
        AnnotationSource::Static(NotResolvable::NotDeclared {
            dialect: Dialect::ToolResolutionExtension
        })
    );
    assert!(server.sent.is_empty());
    assert!(!preflight.is_resolved());
}

#[test]
fn a_tool_without_static_annotations_falls_back_to_the_worst_case() {
    let mut tool = manage_files();
    tool.annotations = None;
    let mut server = Scripted::answering([rpc(error_code::INTERNAL_ERROR, "down")]);
    let preflight = only(Dialect::ResolveTool)
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert_eq!(preflight.annotations(), Annotations::new().effective());
    assert!(preflight.source.to_string().contains("-32603"));
}

#[test]
fn nothing_is_cached_across_calls() {
    let dialect = Dialect::ResolveTool;
    let delete = answer(
        dialect,
        "manage_files",
        json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false}),
    );
    let mut server = Scripted::answering([
        Ok(read_answer(dialect)),
        Ok(delete),
        Ok(read_answer(dialect)),
    ]);
    let support = only(dialect);
    let tool = manage_files();
    let delete_arguments = json!({"action": "delete", "path": "notes.txt"})
        .as_object()
        .unwrap()
        .clone();

    let first = support
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    let second = support
        .preflight(&mut server, &tool, &delete_arguments)
        .unwrap();
    let third = support
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert!(first.annotations().is_read_only());
    assert_eq!(second.annotations().destructive, Some(true));
    assert!(third.annotations().is_read_only());
    let asked: Vec<&Value> = server
        .sent
        .iter()
        .map(|(_, params)| &params["arguments"])
        .collect();
    assert_eq!(
        asked,
        [
            &Value::Object(read_arguments()),
            &Value::Object(delete_arguments.clone()),
            &Value::Object(read_arguments())
        ]
    );
}

#[test]
fn closures_are_requesters() {
    let mut calls = 0;
    let mut server = |method: &str, params: Value| -> Result<Value, RpcError> {
        calls += 1;
        assert_eq!(method, "tools/annotations");
        assert_eq!(params["name"], "manage_files");
        Ok(read_answer(Dialect::DynamicAnnotations))
    };
    let preflight = only(Dialect::DynamicAnnotations)
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert!(preflight.is_resolved());
    assert_eq!(calls, 1);
}

#[test]
fn sources_read_well() {
    let source = AnnotationSource::Fallback {
        dialect: Dialect::ResolveTool,
        failure: ResolutionFailure::NameMismatch {
            expected: "a".into(),
            found: "b".into(),
        },
    };
    assert_eq!(
        source.to_string(),
        "static annotations: tools/resolve (SEP-1862) failed: the answer is for tool `b`, not `a`"
    );
    assert_eq!(
        AnnotationSource::Resolved(Dialect::DynamicAnnotations).to_string(),
        "resolved by tools/annotations (dynamic annotations)"
    );
}
