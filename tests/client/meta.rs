//! Result `_meta`: a client ignores the keys of extensions it did not
//! negotiate, whatever their value, and shows the negotiated ones and the
//! server's info on the preflight result.

use crate::client_support;
use annot::client::{AnnotationSource, ClientExtension, ClientInfo, ResolutionSupport};
use annot::protocol::{AUTHORIZATION_EXTENSION, Dialect, TOOL_RESOLUTION_EXTENSION};
use client_support::*;
use serde_json::{Map, Value, json};

const C: Dialect = Dialect::ToolResolutionExtension;

fn resolve_c(support: &ResolutionSupport, meta: Value) -> annot::client::Preflight {
    let mut reply = read_answer(C);
    reply["_meta"] = meta;
    let mut server = Scripted::answering([Ok(reply)]);
    support
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap()
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn unnegotiated_keys_are_ignored_whatever_their_value() {
    for value in [
        json!(5),
        json!("x"),
        json!(null),
        json!([1]),
        json!({"a": 1}),
    ] {
        let preflight = resolve_c(&only(C), json!({"com.example/x": value}));
        assert_eq!(preflight.source, AnnotationSource::Resolved(C), "{value}");
        assert!(preflight.meta.is_empty(), "{value}: {:?}", preflight.meta);
        assert!(preflight.annotations().is_read_only());
    }
}

#[test]
fn negotiated_metadata_and_server_info_are_exposed() {
    let support = ResolutionSupport {
        client_extension: ClientExtension::PerRequest,
        ..only(C)
    }
    .with_client(
        ClientInfo::new("host", "1.0")
            .with_capabilities(json!({"extensions": {"dev.annot/resolution": {}}})),
    );
    let preflight = resolve_c(
        &support,
        json!({
            "io.modelcontextprotocol/serverInfo": {"name": "files", "version": "2.1.0"},
            TOOL_RESOLUTION_EXTENSION: {"cached": false},
            "dev.annot/resolution": {"action": "read"},
            "com.example/x": 5
        }),
    );
    assert_eq!(preflight.source, AnnotationSource::Resolved(C));
    assert_eq!(
        preflight.server_info,
        Some(object(json!({"name": "files", "version": "2.1.0"})))
    );
    assert_eq!(
        preflight.meta,
        object(json!({
            TOOL_RESOLUTION_EXTENSION: {"cached": false},
            "dev.annot/resolution": {"action": "read"}
        }))
    );
}

#[test]
fn server_info_that_is_not_an_object_is_ignored() {
    let preflight = resolve_c(
        &only(C),
        json!({"io.modelcontextprotocol/serverInfo": "files 2.1"}),
    );
    assert_eq!(preflight.source, AnnotationSource::Resolved(C));
    assert_eq!(preflight.server_info, None);
}

#[test]
fn dialects_a_and_b_show_every_meta_key() {
    for dialect in [Dialect::DynamicAnnotations, Dialect::ResolveTool] {
        let mut reply = read_answer(dialect);
        reply["_meta"] = json!({
            "io.modelcontextprotocol/serverInfo": {"name": "files", "version": "1"},
            "dev.annot/resolution": {"action": "read"}
        });
        let mut server = Scripted::answering([Ok(reply)]);
        let preflight = only(dialect)
            .preflight(&mut server, &manage_files(), &read_arguments())
            .unwrap();
        assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
        assert_eq!(
            preflight.meta,
            object(json!({"dev.annot/resolution": {"action": "read"}}))
        );
        assert_eq!(preflight.server_info.unwrap()["name"], "files");
    }
}

#[test]
fn a_failed_answer_exposes_no_metadata() {
    let mut reply = answer(C, "manage_files", json!({"readOnlyHint": true}));
    reply["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {"name": "files"}});
    let mut server = Scripted::answering([Ok(reply)]);
    let preflight = only(C)
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert!(matches!(
        preflight.source,
        AnnotationSource::Fallback { .. }
    ));
    assert_eq!(preflight.server_info, None);
}

/// What the call needs to be authorized, as the server's answer states it:
/// dialect B's resolved Tool carries `securitySchemes`; dialect C carries them
/// under `_meta["dev.annot/authorization"]`, read only once negotiated.
#[test]
fn the_calls_security_schemes_come_from_the_answer() {
    let read_only = json!([{"type": "oauth2", "scopes": ["files:read"]}]);

    let mut reply = read_answer(Dialect::ResolveTool);
    reply["tool"]["securitySchemes"] = read_only.clone();
    let mut server = Scripted::answering([Ok(reply)]);
    let preflight = only(Dialect::ResolveTool)
        .preflight(&mut server, &manage_files(), &read_arguments())
        .unwrap();
    assert_eq!(preflight.security_schemes, Some(read_only.clone()));

    let stated = json!({AUTHORIZATION_EXTENSION: {"securitySchemes": read_only}});
    let not_negotiated = resolve_c(&only(C), stated.clone());
    assert_eq!(not_negotiated.security_schemes, None);
    let support = ResolutionSupport {
        client_extension: ClientExtension::PerRequest,
        ..only(C)
    }
    .with_client(
        ClientInfo::new("host", "1.0")
            .with_capabilities(json!({"extensions": {AUTHORIZATION_EXTENSION: {}}})),
    );
    let negotiated = resolve_c(&support, stated);
    assert_eq!(negotiated.security_schemes, Some(read_only));
    assert_eq!(resolve_c(&only(C), json!({})).security_schemes, None);
}
