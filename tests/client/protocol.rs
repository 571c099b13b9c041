//! Preflight in MCP 2026-07-28 against scripted servers speaking JSON-RPC
//! lines: the per-request `_meta` on every request, `-32602` about the
//! envelope told apart from `-32602` about the arguments, `-32022` retried
//! once, and legacy sessions unchanged.

use crate::client_support;
use annot::client::{
    AnnotationSource, ClientExtension, ClientInfo, DiscoverError, JsonRpcRequester, NotResolvable,
    Preflight, PreflightError, RequestError, ResolutionFailure, ResolutionSupport,
};
use annot::protocol::{Dialect, RpcError, TOOL_RESOLUTION_EXTENSION, error_code};
use client_support::*;
use serde_json::{Value, json};

const V2026: &str = "2026-07-28";

fn host() -> ClientInfo {
    ClientInfo::new("annot-test-host", "0.1.0")
        .with_capabilities(json!({"roots": {}, "extensions": {"com.example/audit": {}}}))
}

/// A 2026-07-28 support from a `server/discover` result declaring `dialects`.
fn modern(client_extension: ClientExtension) -> ResolutionSupport {
    ResolutionSupport::from_discover_result(
        &json!({
            "supportedVersions": ["2025-11-25", V2026],
            "capabilities": {
                "tools": {"dynamicAnnotations": true, "resolve": true},
                "extensions": {TOOL_RESOLUTION_EXTENSION: {}}
            },
            "resultType": "complete",
            "ttlMs": 60000,
            "cacheScope": "public"
        }),
        host(),
        client_extension,
    )
    .unwrap()
}

/// Runs one preflight of `manage_files` reading through JSON-RPC lines.
fn preflight_over_lines(
    support: &ResolutionSupport,
    server: &mut Scripted,
) -> Result<Preflight, PreflightError> {
    let mut requester = JsonRpcRequester::new(|line: &[u8]| server.answer_line(line));
    support.preflight(&mut requester, &manage_files(), &read_arguments())
}

/// The `_meta` every 2026-07-28 request of this host carries, written out.
fn expected_meta(version: &str, with_extension: bool) -> Value {
    let mut extensions = json!({"com.example/audit": {}});
    if with_extension {
        extensions[TOOL_RESOLUTION_EXTENSION] = json!({});
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "annot-test-host", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "extensions": extensions}
    })
}

fn complete(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}});
    result
}

#[test]
fn every_request_carries_version_client_info_and_whole_capabilities() {
    let dialect = Dialect::ToolResolutionExtension;
    let support = modern(ClientExtension::PerRequest);
    assert_eq!(support.protocol_version.as_deref(), Some(V2026));
    let mut server = Scripted::answering([Ok(complete(read_answer(dialect)))]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
    assert_eq!(preflight.protocol_version.as_deref(), Some(V2026));
    assert_eq!(preflight.server_info.unwrap()["name"], "s");
    assert_eq!(
        server.sent,
        [(
            "tools/resolve".to_owned(),
            json!({
                "name": "manage_files",
                "arguments": read_arguments(),
                "_meta": expected_meta(V2026, true)
            })
        )]
    );
}

#[test]
fn without_the_extension_dynamic_annotations_carry_the_envelope_too() {
    let dialect = Dialect::DynamicAnnotations;
    let support = modern(ClientExtension::NotOffered);
    let mut server = Scripted::answering([Ok(complete(read_answer(dialect)))]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    // SEP-1862's `{tool}` shape is legacy-only, so A is the best left.
    assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
    assert_eq!(server.methods(), ["tools/annotations"]);
    assert_eq!(server.sent[0].1["_meta"], expected_meta(V2026, false));
}

#[test]
fn sep_1862_alone_is_not_used_per_request() {
    let mut tool = manage_files();
    tool.dynamic_annotations = None;
    tool.meta = None;
    let support = modern(ClientExtension::PerRequest);
    let mut server = Scripted::default();
    let preflight = support
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert_eq!(
        preflight.source,
        AnnotationSource::Static(NotResolvable::LegacyOnly)
    );
    assert!(server.sent.is_empty());
}

#[test]
fn a_complete_result_type_is_accepted_and_any_other_falls_back() {
    let dialect = Dialect::DynamicAnnotations;
    let support = modern(ClientExtension::NotOffered);
    let mut reply = read_answer(dialect);
    reply["resultType"] = json!("incomplete");
    let mut server = Scripted::answering([Ok(reply)]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    match preflight.source {
        AnnotationSource::Fallback {
            failure: ResolutionFailure::Malformed { detail },
            ..
        } => assert!(detail.contains("resultType"), "{detail}"),
        other => panic!("expected a malformed answer, got {other:?}"),
    }
}

#[test]
fn an_envelope_error_falls_back_and_says_why() {
    // rmcp 3.9's words for a request without the per-request version.
    let rmcp = RpcError::new(
        error_code::INVALID_PARAMS,
        "request _meta is missing or has malformed required fields: \
         io.modelcontextprotocol/protocolVersion",
    );
    // A legacy client meets a 2026-07-28-only server.
    let legacy = only(Dialect::ToolResolutionExtension);
    let mut server = Scripted::answering([Err(rmcp.clone().into())]);
    let preflight = preflight_over_lines(&legacy, &mut server).unwrap();
    assert!(!preflight.is_resolved());
    assert_eq!(
        preflight.annotations(),
        manage_files().annotations.unwrap().hints().effective()
    );
    assert_eq!(
        preflight.source.to_string(),
        "static annotations: tools/resolve (tool-resolution extension) failed: the server \
         rejected the request's _meta, not the arguments (-32602: request _meta is missing or \
         has malformed required fields: io.modelcontextprotocol/protocolVersion)"
    );
    // Named in `data` instead of the message.
    let data = RpcError::new(error_code::INVALID_PARAMS, "Invalid params")
        .with_data(json!({"missing": ["io.modelcontextprotocol/clientCapabilities"]}));
    let mut server = Scripted::answering([Err(data.into())]);
    let preflight =
        preflight_over_lines(&modern(ClientExtension::PerRequest), &mut server).unwrap();
    assert!(matches!(
        preflight.source,
        AnnotationSource::Fallback {
            failure: ResolutionFailure::Envelope { .. },
            ..
        }
    ));
}

#[test]
fn an_arguments_error_still_blocks_the_call() {
    let error = RpcError::new(error_code::INVALID_PARAMS, "unknown action `shred`")
        .with_data(json!({"path": "/action"}));
    for support in [
        modern(ClientExtension::PerRequest),
        only(Dialect::ResolveTool),
    ] {
        let mut server = Scripted::answering([Err(error.clone().into())]);
        let refused = preflight_over_lines(&support, &mut server).unwrap_err();
        let PreflightError::InvalidParams { error: got, tool } = refused else {
            panic!("expected invalid params");
        };
        assert_eq!((tool.as_str(), got), ("manage_files", error.clone()));
    }
}

fn unsupported(requested: &str, supported: &[&str]) -> Result<Value, RequestError> {
    Err(RpcError::new(-32022, "Unsupported protocol version")
        .with_data(json!({"requested": requested, "supported": supported}))
        .into())
}

#[test]
fn an_unsupported_version_is_retried_once_with_a_listed_one() {
    let dialect = Dialect::ToolResolutionExtension;
    let mut support = modern(ClientExtension::PerRequest);
    support.protocol_version = Some("2026-12-01".to_owned());
    let mut server = Scripted::answering([
        unsupported("2026-12-01", &["2025-11-25", V2026]),
        Ok(complete(read_answer(dialect))),
    ]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
    assert_eq!(preflight.protocol_version.as_deref(), Some(V2026));
    let versions: Vec<&Value> = server
        .sent
        .iter()
        .map(|(_, params)| &params["_meta"]["io.modelcontextprotocol/protocolVersion"])
        .collect();
    assert_eq!(versions, [&json!("2026-12-01"), &json!(V2026)]);
    assert_eq!(server.sent[1].1["_meta"], expected_meta(V2026, true));
}

#[test]
fn an_unsupported_version_without_a_common_one_falls_back() {
    let support = modern(ClientExtension::PerRequest);
    let mut server = Scripted::answering([unsupported(V2026, &["2025-06-18", "2025-11-25"])]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    assert_eq!(server.sent.len(), 1, "no retry without a common version");
    assert_eq!(
        preflight.source,
        AnnotationSource::Fallback {
            dialect: Dialect::ToolResolutionExtension,
            failure: ResolutionFailure::UnsupportedVersion {
                requested: V2026.to_owned(),
                supported: vec!["2025-06-18".to_owned(), "2025-11-25".to_owned()],
            },
        }
    );
}

/// A server that refuses the very version it lists gets no retry: asking again
/// with the same version would be refused again.
#[test]
fn an_unsupported_version_that_is_the_one_listed_is_not_retried() {
    let support = modern(ClientExtension::PerRequest);
    assert_eq!(support.protocol_version.as_deref(), Some(V2026));
    let mut server = Scripted::answering([
        unsupported(V2026, &[V2026]),
        Ok(complete(read_answer(Dialect::ToolResolutionExtension))),
    ]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    assert_eq!(server.sent.len(), 1, "no retry with the version refused");
    assert_eq!(
        preflight.source,
        AnnotationSource::Fallback {
            dialect: Dialect::ToolResolutionExtension,
            failure: ResolutionFailure::UnsupportedVersion {
                requested: V2026.to_owned(),
                supported: vec![V2026.to_owned()],
            },
        }
    );
}

#[test]
fn a_second_unsupported_version_ends_the_retries() {
    let mut support = modern(ClientExtension::PerRequest);
    support.protocol_version = Some("2026-12-01".to_owned());
    let mut server = Scripted::answering([
        unsupported("2026-12-01", &[V2026]),
        unsupported(V2026, &[V2026]),
        Ok(complete(read_answer(Dialect::ToolResolutionExtension))),
    ]);
    let preflight = preflight_over_lines(&support, &mut server).unwrap();
    assert_eq!(server.sent.len(), 2);
    assert!(matches!(
        preflight.source,
        AnnotationSource::Fallback {
            failure: ResolutionFailure::UnsupportedVersion { .. },
            ..
        }
    ));
}

#[test]
fn legacy_sessions_send_no_envelope_and_do_not_retry() {
    for dialect in Dialect::ALL {
        let mut server = Scripted::answering([unsupported(V2026, &[V2026])]);
        let preflight = preflight_over_lines(&only(dialect), &mut server).unwrap();
        assert_eq!(server.sent.len(), 1);
        assert_eq!(server.sent[0].1.get("_meta"), None, "{dialect:?}");
        assert!(matches!(
            preflight.source,
            AnnotationSource::Fallback {
                failure: ResolutionFailure::Rpc { code: -32022, .. },
                ..
            }
        ));
    }
}

#[test]
fn discover_results_without_a_common_version_or_shape_are_errors() {
    let old = ResolutionSupport::from_discover_result(
        &json!({"supportedVersions": ["2025-11-25"], "capabilities": {}}),
        host(),
        ClientExtension::PerRequest,
    );
    assert_eq!(
        old.unwrap_err(),
        DiscoverError::NoCommonVersion {
            supported: vec!["2025-11-25".to_owned()]
        }
    );
    let malformed = ResolutionSupport::from_discover_result(
        &json!({"supportedVersions": [V2026]}),
        host(),
        ClientExtension::PerRequest,
    );
    assert_eq!(
        malformed.unwrap_err().to_string(),
        "the server/discover result is malformed: `capabilities` must be an object, found null"
    );
}
