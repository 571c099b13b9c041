//! The preflight against scripted servers: one dialect each, every error code,
//! every malformed answer, the conservative bound, and no caching.

use std::collections::VecDeque;

use annot::client::{
    AnnotationSource, ClientExtension, NotResolvable, PreflightError, RequestError, Requester,
    ResolutionFailure, ResolutionSupport,
};
use annot::protocol::{
    CLIENT_CAPABILITIES_META, Dialect, RpcError, TOOL_RESOLUTION_EXTENSION, error_code,
};
use annot::{Annotations, Hint, Tool};
use serde_json::{Map, Value, json};

/// A server that answers from a script and remembers what it was asked.
#[derive(Default)]
struct Scripted {
    answers: VecDeque<Result<Value, RequestError>>,
    sent: Vec<(String, Value)>,
}

impl Scripted {
    fn answering(answers: impl IntoIterator<Item = Result<Value, RequestError>>) -> Self {
        Scripted {
            answers: answers.into_iter().collect(),
            sent: Vec::new(),
        }
    }
}

impl Requester for Scripted {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        self.sent.push((method.to_owned(), params));
        self.answers
            .pop_front()
            .unwrap_or_else(|| Err(RequestError::transport("script exhausted")))
    }
}

/// `manage_files` as listed: marked for every dialect, worst case a closed-world
/// irreversible deletion of sensitive files.
fn manage_files() -> Tool {
    serde_json::from_value(json!({
        "name": "manage_files",
        "inputSchema": {"type": "object"},
        "annotations": {
            "title": "Manage files",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
            "sensitiveDataHint": true,
            "reversibleHint": false
        },
        "dynamicAnnotations": true,
        "resolve": true,
        "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": true}}
    }))
    .unwrap()
}

fn only(dialect: Dialect) -> ResolutionSupport {
    ResolutionSupport {
        dynamic_annotations: dialect == Dialect::DynamicAnnotations,
        resolve: dialect == Dialect::ResolveTool,
        extension: dialect == Dialect::ToolResolutionExtension,
        client_extension: ClientExtension::Initialize,
    }
}

fn read_arguments() -> Map<String, Value> {
    json!({"action": "read", "path": "notes.txt"})
        .as_object()
        .unwrap()
        .clone()
}

const READ: Annotations = Annotations::new()
    .read_only(true)
    .open_world(false)
    .sensitive_data(true);

/// A well-formed answer in `dialect` for `name` with these core hints.
fn answer(dialect: Dialect, name: &str, hints: Value) -> Value {
    match dialect {
        Dialect::DynamicAnnotations => json!({"annotations": hints}),
        Dialect::ResolveTool => json!({"tool": {
            "name": name,
            "inputSchema": {"type": "object"},
            "annotations": hints
        }}),
        Dialect::ToolResolutionExtension => json!({
            "resultType": "complete",
            "name": name,
            "annotations": hints
        }),
    }
}

fn read_hints() -> Value {
    json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
    })
}

/// A's and B's answers carry SEP-1984 hints; C's cannot.
fn read_answer(dialect: Dialect) -> Value {
    let mut hints = read_hints();
    if dialect != Dialect::ToolResolutionExtension {
        hints["sensitiveDataHint"] = json!(true);
    }
    answer(dialect, "manage_files", hints)
}

fn fallback_failure(dialect: Dialect, reply: Result<Value, RequestError>) -> ResolutionFailure {
    let tool = manage_files();
    let mut server = Scripted::answering([reply]);
    let preflight = only(dialect)
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert_eq!(preflight.resolved, None);
    assert_eq!(
        preflight.annotations(),
        tool.annotations.unwrap().hints().effective(),
        "the fallback is the static annotations"
    );
    match preflight.source {
        AnnotationSource::Fallback {
            dialect: tried,
            failure,
        } => {
            assert_eq!(tried, dialect);
            failure
        }
        other => panic!("expected a fallback, got {other:?}"),
    }
}

fn rpc(code: i64, message: &str) -> Result<Value, RequestError> {
    Err(RpcError::new(code, message).into())
}

#[test]
fn resolves_in_each_dialect() {
    for dialect in Dialect::ALL {
        let mut server = Scripted::answering([Ok(read_answer(dialect))]);
        let preflight = only(dialect)
            .preflight(&mut server, &manage_files(), &read_arguments())
            .unwrap();
        assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
        assert_eq!(preflight.resolved.unwrap().effective(), READ.effective());
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
    let resolved = preflight.resolved.unwrap();
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
fn method_not_found_falls_back() {
    for dialect in Dialect::ALL {
        let failure = fallback_failure(
            dialect,
            rpc(error_code::METHOD_NOT_FOUND, "Method not found"),
        );
        assert_eq!(
            failure,
            ResolutionFailure::MethodNotFound {
                message: "Method not found".into()
            }
        );
    }
}

#[test]
fn internal_error_falls_back() {
    for dialect in Dialect::ALL {
        let failure = fallback_failure(dialect, rpc(error_code::INTERNAL_ERROR, "boom"));
        assert_eq!(
            failure,
            ResolutionFailure::Internal {
                message: "boom".into()
            }
        );
    }
}

#[test]
fn missing_capability_falls_back_and_keeps_what_was_required() {
    let required = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
    let error = RpcError::new(error_code::MISSING_CAPABILITY, "Missing capability")
        .with_data(json!({"requiredCapabilities": required}));
    let failure = fallback_failure(Dialect::ToolResolutionExtension, Err(error.into()));
    assert_eq!(
        failure,
        ResolutionFailure::MissingCapability {
            message: "Missing capability".into(),
            required: Some(required),
        }
    );
    assert!(failure.to_string().contains("-32021"), "{failure}");
}

#[test]
fn other_errors_and_transport_failures_fall_back() {
    let failure = fallback_failure(Dialect::ResolveTool, rpc(-32000, "overloaded"));
    assert_eq!(
        failure,
        ResolutionFailure::Rpc {
            code: -32000,
            message: "overloaded".into()
        }
    );
    let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed");
    let failure = fallback_failure(Dialect::DynamicAnnotations, Err(io.into()));
    assert!(
        matches!(&failure, ResolutionFailure::Transport { message } if message == "pipe closed"),
        "{failure:?}"
    );
}

#[test]
fn invalid_params_is_surfaced_not_papered_over() {
    for dialect in Dialect::ALL {
        let error = RpcError::new(error_code::INVALID_PARAMS, "unknown action `shred`")
            .with_data(json!({"path": "action"}));
        let mut server = Scripted::answering([Err(error.clone().into())]);
        let outcome = only(dialect).preflight(&mut server, &manage_files(), &read_arguments());
        let failure = outcome.unwrap_err();
        assert_eq!(
            failure,
            PreflightError::InvalidParams {
                tool: "manage_files".into(),
                error
            }
        );
        let message = failure.to_string();
        assert!(
            message.contains("manage_files") && message.contains("unknown action `shred`"),
            "{message}"
        );
    }
}

fn malformed(dialect: Dialect, reply: Value) -> String {
    match fallback_failure(dialect, Ok(reply.clone())) {
        ResolutionFailure::Malformed { detail } => detail,
        other => panic!("{reply} in {dialect:?}: expected malformed, got {other:?}"),
    }
}

#[test]
fn malformed_dynamic_annotations_fall_back() {
    let dialect = Dialect::DynamicAnnotations;
    let detail = malformed(dialect, json!({"annotations": {"readOnlyHint": "yes"}}));
    assert!(detail.contains("annotations.readOnlyHint"), "{detail}");
    malformed(dialect, json!({}));
    malformed(dialect, json!({"annotations": null}));
    let detail = malformed(dialect, json!([read_hints()]));
    assert_eq!(detail, "the result must be an object, found array");
    malformed(dialect, Value::Null);
}

#[test]
fn malformed_resolved_tools_fall_back() {
    let dialect = Dialect::ResolveTool;
    malformed(dialect, json!({}));
    malformed(dialect, json!({"tool": {"name": "manage_files"}}));
    let detail = malformed(
        dialect,
        json!({"tool": {
            "name": "manage_files",
            "inputSchema": {"type": "object"},
            "annotations": {"openWorldHint": 0}
        }}),
    );
    assert!(
        detail.contains("tool.annotations.openWorldHint"),
        "{detail}"
    );
    // Dialect C's shape is not dialect B's.
    malformed(dialect, read_answer(Dialect::ToolResolutionExtension));
}

#[test]
fn malformed_extension_results_fall_back() {
    let dialect = Dialect::ToolResolutionExtension;
    let good = read_answer(dialect);
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut reply = good.clone();
        edit(&mut reply);
        reply
    };

    let detail = malformed(dialect, with(&|r| r["resultType"] = json!("incomplete")));
    assert!(detail.contains("complete"), "{detail}");
    malformed(
        dialect,
        with(&|r| drop(r.as_object_mut().unwrap().remove("resultType"))),
    );
    malformed(
        dialect,
        with(&|r| drop(r.as_object_mut().unwrap().remove("name"))),
    );
    for hint in Hint::CORE {
        let detail = malformed(
            dialect,
            with(&|r| {
                drop(
                    r["annotations"]
                        .as_object_mut()
                        .unwrap()
                        .remove(hint.wire_name()),
                )
            }),
        );
        assert!(detail.contains(hint.wire_name()), "{detail}");
    }
    let detail = malformed(
        dialect,
        with(&|r| r["annotations"]["title"] = json!("Read")),
    );
    assert!(detail.contains("title"), "{detail}");
    malformed(
        dialect,
        with(&|r| r["annotations"]["sensitiveDataHint"] = json!(true)),
    );
    malformed(
        dialect,
        with(&|r| r["tool"] = json!({"name": "manage_files"})),
    );
    let detail = malformed(dialect, with(&|r| r["_meta"] = json!({"x.y/z": 1})));
    assert!(detail.contains("x.y/z"), "{detail}");
    // Dialect B's shape is not dialect C's.
    malformed(dialect, read_answer(Dialect::ResolveTool));
}

#[test]
fn an_answer_about_another_tool_falls_back() {
    for dialect in [Dialect::ResolveTool, Dialect::ToolResolutionExtension] {
        let failure = fallback_failure(dialect, Ok(answer(dialect, "delete_all", read_hints())));
        assert_eq!(
            failure,
            ResolutionFailure::NameMismatch {
                expected: "manage_files".into(),
                found: "delete_all".into()
            }
        );
    }
}

#[test]
fn a_resolution_beyond_the_static_bound_falls_back() {
    for dialect in Dialect::ALL {
        // Static `openWorldHint: false`: no resolution may be open-world.
        let mut hints = read_hints();
        hints["openWorldHint"] = json!(true);
        let failure = fallback_failure(dialect, Ok(answer(dialect, "manage_files", hints)));
        let ResolutionFailure::OutOfBound(violation) = failure else {
            panic!("{dialect:?}: expected a bound violation, got {failure:?}");
        };
        assert_eq!(violation.hint, Hint::OpenWorld);
    }
    // Omitted core hints mean their risky defaults, which break the same bound.
    let failure = fallback_failure(
        Dialect::DynamicAnnotations,
        Ok(json!({"annotations": {"readOnlyHint": true}})),
    );
    assert!(matches!(failure, ResolutionFailure::OutOfBound(v) if v.hint == Hint::OpenWorld));
    // SEP-1984 hints too: the static declaration makes no privileged claim.
    for dialect in [Dialect::DynamicAnnotations, Dialect::ResolveTool] {
        let mut hints = read_hints();
        hints["privilegedAccessHint"] = json!(true);
        let failure = fallback_failure(dialect, Ok(answer(dialect, "manage_files", hints)));
        let ResolutionFailure::OutOfBound(violation) = failure else {
            panic!("{dialect:?}: expected a bound violation, got {failure:?}");
        };
        assert_eq!(violation.hint, Hint::PrivilegedAccess);
        assert!(violation.to_string().contains("privilegedAccessHint"));
    }
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
