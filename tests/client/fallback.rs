//! Every way a resolution fails and what the preflight does about it: each
//! error code, malformed answers of each dialect, another tool's name, and
//! answers beyond the conservative bound.

use crate::client_support;
use annot::client::{
    AnnotationSource, Policy, PreflightError, ProposedCall, ResolutionFailure, Session,
    SessionConfig, Strength, Trust, Verdict,
};
use annot::protocol::{Dialect, RpcError, TOOL_RESOLUTION_EXTENSION, error_code};
use annot::{Annotations, Hint};
use client_support::*;
use serde_json::{Value, json};

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
    assert_eq!(
        failure.to_string(),
        "the server requires a capability this client did not declare (-32021: Missing \
         capability; required: {\"extensions\":{\"io.modelcontextprotocol/tool-resolution\":{}}})"
    );
    // Without `data.requiredCapabilities` the message says nothing was named.
    let bare = fallback_failure(
        Dialect::ToolResolutionExtension,
        rpc(error_code::MISSING_CAPABILITY, "Missing capability"),
    );
    assert_eq!(
        bare,
        ResolutionFailure::MissingCapability {
            message: "Missing capability".into(),
            required: None,
        }
    );
    assert_eq!(
        bare.to_string(),
        "the server requires a capability this client did not declare (-32021: Missing \
         capability)"
    );
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
    assert_eq!(
        detail,
        r#"resultType is "incomplete" where "complete" is required"#
    );
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
    // A `_meta` that is not an object at all; a bad key inside one is ignored
    // (`tests/client/meta.rs`).
    let detail = malformed(dialect, with(&|r| r["_meta"] = json!([1])));
    assert!(detail.contains("`_meta` must be an object"), "{detail}");
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
        let failure = fallback_failure(dialect, Ok(answer(dialect, "manage_files", hints.clone())));
        let ResolutionFailure::OutOfBound(violation) = failure else {
            panic!("{dialect:?}: expected a bound violation, got {failure:?}");
        };
        assert_eq!(violation.hint, Hint::OpenWorld);
        // The open world the answer admits stands.
        let tool = manage_files();
        let preflight = only(dialect)
            .preflight(
                &mut Scripted::answering([Ok(answer(dialect, "manage_files", hints))]),
                &tool,
                &read_arguments(),
            )
            .unwrap();
        assert_eq!(preflight.annotations().open_world, Some(true));
    }
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
fn omitted_core_hints_keep_their_static_values_instead_of_breaking_the_bound() {
    // Silence is no claim: the omitted `openWorldHint` stays the static `false`
    // rather than becoming the default `true`, which the bound would reject.
    let tool = manage_files();
    let mut server = Scripted::answering([Ok(json!({"annotations": {"readOnlyHint": true}}))]);
    let preflight = only(Dialect::DynamicAnnotations)
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert!(preflight.is_resolved(), "{}", preflight.source);
    let acted_on = preflight.annotations();
    assert_eq!(acted_on.read_only, Some(true));
    assert_eq!(acted_on.open_world, Some(false));
    assert_eq!(acted_on.sensitive_data, Some(true));
}

/// Preflights `tool` against a server whose one answer states `hints` in
/// `dialect`, and checks the answer was rejected for breaking the bound.
fn rejected(dialect: Dialect, tool: &annot::Tool, hints: Value) -> annot::client::Preflight {
    let mut server = Scripted::answering([Ok(answer(dialect, &tool.name, hints))]);
    let preflight = only(dialect)
        .preflight(&mut server, tool, &read_arguments())
        .unwrap();
    assert!(
        matches!(
            preflight.source,
            AnnotationSource::Fallback {
                failure: ResolutionFailure::OutOfBound(_),
                ..
            }
        ),
        "{dialect:?}: {}",
        preflight.source
    );
    preflight
}

#[test]
fn a_rejected_answer_never_leaves_the_client_below_what_the_server_admitted() {
    let arguments = read_arguments();
    // Listed read-only, resolved as a destructive write: the answer breaks
    // the bound, and the write it admits stands.
    let reader = tool_declaring(
        "reader",
        Annotations::new().read_only(true).open_world(false),
    );
    for dialect in Dialect::ALL {
        let preflight = rejected(
            dialect,
            &reader,
            json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}),
        );
        let acted_on = preflight.annotations();
        assert_eq!(
            (acted_on.read_only, acted_on.destructive),
            (Some(false), Some(true)),
            "{dialect:?}"
        );
        let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        assert_eq!(
            Policy::default().decide(&call).verdict(),
            Verdict::Confirm(Strength::Normal),
            "{dialect:?}"
        );
    }
    // Sensitive data with privileged access, admitted beyond a listing that
    // claims neither: the strong confirmation stays.
    let quiet = tool_declaring(
        "quiet",
        Annotations::new()
            .read_only(true)
            .open_world(false)
            .sensitive_data(false)
            .privileged_access(false),
    );
    for dialect in [Dialect::DynamicAnnotations, Dialect::ResolveTool] {
        let preflight = rejected(
            dialect,
            &quiet,
            json!({"readOnlyHint": true, "openWorldHint": false, "sensitiveDataHint": true, "privilegedAccessHint": true}),
        );
        let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        assert_eq!(
            Policy::default().decide(&call).verdict(),
            Verdict::Confirm(Strength::Strong),
            "{dialect:?}"
        );
    }
    // Open world admitted beyond a closed-world listing: the session records
    // the call as bringing in untrusted content.
    for dialect in Dialect::ALL {
        let preflight = rejected(
            dialect,
            &reader,
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}),
        );
        let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        assert_eq!(call.annotations().open_world, Some(true), "{dialect:?}");
        let mut session = Session::new(SessionConfig::default());
        session.record(&call);
        assert_eq!(
            session.untrusted_content_from(),
            Some("reader"),
            "{dialect:?}"
        );
    }
}
