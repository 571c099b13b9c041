//! The three resolution dialects: `tools/annotations` (A), and `tools/resolve`
//! in SEP-1862's shape (B) or the tool-resolution extension's (C).

use crate::server_support;
use annot::protocol::{Dialect, ExtensionResolveResult, ResolveToolResult, error_code};
use annot::{AnnotatedTool, Annotations, ToolAnnotations};
use serde_json::{Value, json};
use server_support::tools::{self, Files, ManageFiles};
use server_support::{
    Client, assert_extension, assert_mcp, extension_capabilities, request_capabilities,
};

/// Seed 003's table: the four core hints of each action.
const TABLE: [(&str, [bool; 4]); 4] = [
    ("read", [true, false, true, false]),
    ("append", [false, false, false, false]),
    ("replace", [false, true, true, false]),
    ("delete", [false, true, true, false]),
];

fn arguments(action: &str) -> Value {
    match action {
        "read" | "delete" => json!({"action": action, "path": "notes.txt"}),
        _ => json!({"action": action, "path": "notes.txt", "content": "x"}),
    }
}

fn core(annotations: &Annotations) -> [bool; 4] {
    let effective = annotations.effective();
    [
        effective.read_only.unwrap(),
        effective.destructive.unwrap(),
        effective.idempotent.unwrap(),
        effective.open_world.unwrap(),
    ]
}

/// Checks the conservative bound of docs/PROTOCOL.md section 4 for a resolution.
fn assert_within_static(resolved: &Annotations) {
    resolved
        .check_within(&ManageFiles::STATIC_ANNOTATIONS)
        .unwrap_or_else(|violation| panic!("{violation}"));
}

#[test]
fn dialect_a_answers_the_refined_annotations() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for (action, expected) in TABLE {
        let result = client.result(
            "tools/annotations",
            json!({"name": "manage_files", "arguments": arguments(action)}),
        );
        assert_eq!(result.as_object().unwrap().len(), 1, "{result}");
        assert_mcp("ToolAnnotations", &result["annotations"]);
        let annotations: ToolAnnotations =
            serde_json::from_value(result["annotations"].clone()).unwrap();
        assert_eq!(core(&annotations.hints()), expected, "{action}");
        assert_within_static(&annotations.hints());
        let title = if action == "read" {
            "Read a file"
        } else {
            "Manage files"
        };
        assert_eq!(annotations.title.as_deref(), Some(title), "{action}");
    }
}

#[test]
fn dialect_b_answers_the_whole_tool_when_the_extension_is_not_negotiated() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let listed = client.result("tools/list", json!({}))["tools"][0].clone();
    for (action, expected) in TABLE {
        let result = client.result(
            "tools/resolve",
            json!({"name": "manage_files", "arguments": arguments(action)}),
        );
        assert_mcp("Tool", &result["tool"]);
        let resolved: ResolveToolResult = serde_json::from_value(result.clone()).unwrap();
        let annotations = resolved.tool.annotations.clone().unwrap();
        assert_eq!(core(&annotations.hints()), expected, "{action}");
        assert_within_static(&annotations.hints());

        // Everything but the annotations is the listed tool.
        let mut without_annotations = result["tool"].clone();
        let mut listed_without = listed.clone();
        without_annotations
            .as_object_mut()
            .unwrap()
            .remove("annotations");
        listed_without
            .as_object_mut()
            .unwrap()
            .remove("annotations");
        assert_eq!(without_annotations, listed_without);
        assert_eq!(resolved.tool.resolve, Some(true));
    }
}

#[test]
fn dialect_c_answers_when_initialize_negotiated_the_extension() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, extension_capabilities());
    for (action, expected) in TABLE {
        let result = client.result(
            "tools/resolve",
            json!({"name": "manage_files", "arguments": arguments(action)}),
        );
        assert_extension("ResolveToolResult", &result);
        assert!(result.get("_meta").is_none(), "{result}");
        let resolved: ExtensionResolveResult = serde_json::from_value(result).unwrap();
        assert_eq!(resolved.result_type, "complete");
        assert_eq!(resolved.name, "manage_files");
        let annotations = Annotations::from(resolved.annotations);
        assert_eq!(core(&annotations), expected, "{action}");
        assert_within_static(&annotations);
    }
}

#[test]
fn dialect_c_answers_when_the_request_carries_the_extension() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/resolve",
        json!({
            "name": "manage_files",
            "arguments": arguments("delete"),
            "_meta": request_capabilities(extension_capabilities())
        }),
    );
    assert_extension("ResolveToolResult", &result);
    assert_eq!(result, tools::manage_files_delete_resolved());

    // The next request without per-request capabilities is B again.
    let result = client.result(
        "tools/resolve",
        json!({"name": "manage_files", "arguments": arguments("delete")}),
    );
    assert!(result.get("tool").is_some(), "{result}");

    // Per-request capabilities without the extension, even on a session that
    // never negotiated it: the request speaks the extension's language, so
    // it gets the extension's -32021, not B.
    let error = client.error(
        "tools/resolve",
        json!({
            "name": "manage_files",
            "arguments": arguments("read"),
            "_meta": request_capabilities(json!({"extensions": {}}))
        }),
    );
    assert_eq!(error["code"], error_code::MISSING_CAPABILITY);
}

#[test]
fn a_negotiated_client_dropping_the_extension_on_a_request_gets_32021() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, extension_capabilities());
    for capabilities in [json!({}), json!({"extensions": {"other/ext": {}}})] {
        let error = client.error(
            "tools/resolve",
            json!({
                "name": "manage_files",
                "arguments": arguments("read"),
                "_meta": request_capabilities(capabilities)
            }),
        );
        assert_eq!(error["code"], error_code::MISSING_CAPABILITY);
        assert_eq!(
            error["data"]["requiredCapabilities"],
            json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
        );
    }
    let error = client.error(
        "tools/resolve",
        json!({
            "name": "manage_files",
            "arguments": arguments("read"),
            "_meta": request_capabilities(json!("all of them"))
        }),
    );
    // Capabilities that are not an object take nothing up.
    assert_eq!(error["code"], error_code::MISSING_CAPABILITY);
}

#[test]
fn resolution_refuses_what_a_call_would_refuse() {
    let (server, _) = tools::server();
    let mut latest = Client::initialized(&server, json!({}));
    let mut older = Client::new(&server);
    older.initialize("2025-03-26", json!({}));
    let cases = [
        (json!({"action": "read"}), Some("path")),
        (json!({"action": "read", "path": 3}), Some("path")),
        (
            json!({"action": "read", "path": "a", "mode": "x"}),
            Some("mode"),
        ),
        (json!({"action": "format", "path": "a"}), Some("action")),
        (json!({"path": "a"}), Some("action")),
    ];
    for (arguments, path) in cases {
        let params = json!({"name": "manage_files", "arguments": arguments});
        let call_error = older.error("tools/call", params.clone());
        for method in ["tools/annotations", "tools/resolve"] {
            let error = latest.error(method, params.clone());
            assert_eq!(
                error["code"],
                error_code::INVALID_PARAMS,
                "{method} {arguments}"
            );
            assert_eq!(error["data"]["path"].as_str(), path, "{method} {arguments}");
            assert_eq!(error, call_error, "resolve and call validate alike");
        }
    }
}

#[test]
fn resolution_refuses_unknown_tools_and_missing_arguments() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, extension_capabilities());
    for method in ["tools/annotations", "tools/resolve"] {
        let error = client.error(method, json!({"name": "nope", "arguments": {}}));
        assert_eq!(error["code"], error_code::INVALID_PARAMS);
        assert_eq!(error["data"]["name"], "nope");
        let error = client.error(method, json!({"name": "manage_files"}));
        assert_eq!(error["data"]["path"], "arguments");
        let error = client.error(method, json!({"arguments": {}}));
        assert_eq!(error["data"]["path"], "name");
        let error = client.error(method, json!({"name": "manage_files", "arguments": "read"}));
        assert_eq!(error["data"]["path"], "arguments");
    }
}

#[test]
fn a_combination_no_action_declares_is_rendered_on_the_spot() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let bump = |client: &mut Client, by: u32| {
        client.result(
            "tools/annotations",
            json!({"name": "counter", "arguments": {"action": "bump", "by": by}}),
        )["annotations"]
            .clone()
    };
    let by_zero = bump(&mut client, 0);
    assert_eq!(
        by_zero,
        json!({
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        })
    );
    assert_eq!(bump(&mut client, 0), by_zero);
    assert_eq!(bump(&mut client, 2)["idempotentHint"], false);

    let mut extension = Client::initialized(&server, extension_capabilities());
    let result = extension.result(
        "tools/resolve",
        json!({"name": "counter", "arguments": {"action": "bump", "by": 0}}),
    );
    assert_extension("ResolveToolResult", &result);
    assert_eq!(result["annotations"], by_zero);
}

#[test]
fn a_resolution_outside_the_static_bound_is_an_internal_error() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for method in ["tools/annotations", "tools/resolve"] {
        let error = client.error(method, json!({"name": "liar", "arguments": {"lie": true}}));
        assert_eq!(error["code"], error_code::INTERNAL_ERROR, "{method}");
        let fine = client.result(method, json!({"name": "liar", "arguments": {}}));
        // Within the bound, the honest read-only answer comes through as is.
        let annotations = match method {
            "tools/annotations" => &fine["annotations"],
            _ => &fine["tool"]["annotations"],
        };
        assert_eq!(
            annotations,
            &json!({
                "readOnlyHint": true, "destructiveHint": false,
                "idempotentHint": true, "openWorldHint": true
            }),
            "{method}"
        );
    }
}

#[test]
fn resolution_is_deterministic_to_the_byte() {
    let (server, _) = tools::server();
    for capabilities in [json!({}), extension_capabilities()] {
        let mut client = Client::initialized(&server, capabilities);
        for method in ["tools/annotations", "tools/resolve"] {
            let message = json!({
                "jsonrpc": "2.0", "id": 1, "method": method,
                "params": {"name": "manage_files", "arguments": arguments("append")}
            })
            .to_string();
            let first = client.connection.handle(message.as_bytes()).unwrap();
            let second = client.connection.handle(message.as_bytes()).unwrap();
            assert_eq!(first, second);
        }
    }
}

#[test]
fn disabled_dialects_are_not_served() {
    let only_a = tools::builder(Files::default())
        .dialects([Dialect::DynamicAnnotations])
        .build()
        .unwrap();
    let mut client = Client::initialized(&only_a, extension_capabilities());
    let params = json!({"name": "manage_files", "arguments": arguments("read")});
    let error = client.error("tools/resolve", params.clone());
    assert_eq!(error["code"], error_code::METHOD_NOT_FOUND);
    assert!(
        client
            .result("tools/annotations", params.clone())
            .is_object()
    );

    let only_b = tools::builder(Files::default())
        .dialects([Dialect::ResolveTool])
        .build()
        .unwrap();
    let mut client = Client::initialized(&only_b, extension_capabilities());
    let error = client.error("tools/annotations", params.clone());
    assert_eq!(error["code"], error_code::METHOD_NOT_FOUND);
    // The client offered the extension, but this server does not speak it: B.
    let result = client.result("tools/resolve", params.clone());
    assert!(result.get("tool").is_some(), "{result}");

    let only_c = tools::builder(Files::default())
        .dialects([Dialect::ToolResolutionExtension])
        .build()
        .unwrap();
    let mut plain = Client::initialized(&only_c, json!({}));
    let error = plain.error("tools/resolve", params.clone());
    assert_eq!(error["code"], error_code::MISSING_CAPABILITY);
    assert!(error["data"]["requiredCapabilities"].is_object());
    let mut negotiated = Client::initialized(&only_c, extension_capabilities());
    assert_extension(
        "ResolveToolResult",
        &negotiated.result("tools/resolve", params),
    );
}

/// A hand-written tool that counts the resolutions handed the request
/// reader's split of its arguments (`evaluate_split`), and resolves from its
/// parsed value whatever it is handed.
struct SplitProbe {
    write: bool,
}

static SPLIT_READS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

const PROBE_READ: Annotations = Annotations::new().read_only(true).effective();
const PROBE_WRITE: Annotations = Annotations::new().destructive(true).effective();

impl AnnotatedTool for SplitProbe {
    const NAME: &'static str = "split_probe";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [annot::Action] = &[
        annot::Action {
            name: "read",
            annotations: PROBE_READ,
        },
        annot::Action {
            name: "write",
            annotations: PROBE_WRITE,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations = PROBE_WRITE;

    fn input_schema() -> &'static str {
        r#"{"type":"object"}"#
    }

    fn resolve(&self) -> Annotations {
        if self.write { PROBE_WRITE } else { PROBE_READ }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, annot::ArgumentError> {
        Ok(SplitProbe {
            write: arguments["action"] == "write",
        })
    }

    const GENERATED: annot::__private::Generated<Self> = annot::__private::Generated {
        evaluate_split: probe_split,
        ..annot::__private::Generated::hand_written()
    };
}

fn probe_split(
    arguments: &str,
    _: &annot::__private::SplitArguments<'_>,
) -> Option<annot::__private::Outcome> {
    SPLIT_READS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let value = SplitProbe::from_arguments_str(arguments).ok()?;
    Some((SplitProbe::GENERATED.evaluate)(&value))
}

#[test]
fn the_request_reader_hands_its_split_of_the_arguments_to_the_tool() {
    use std::sync::atomic::Ordering::SeqCst;
    let server = annot::server::Server::builder("probe", "0")
        .tool(|_: SplitProbe| Ok(annot::server::ToolOutput::text("ok")))
        .build()
        .unwrap();
    let read_only = |result: &Value| result["annotations"]["readOnlyHint"].clone();
    for capabilities in [json!({}), extension_capabilities()] {
        let method = if capabilities == json!({}) {
            "tools/annotations"
        } else {
            "tools/resolve"
        };
        let mut client = Client::initialized(&server, capabilities);
        let before = SPLIT_READS.load(SeqCst);
        let arguments = json!({"action": "read", "note": [1, {"a": "b"}]});
        let result = client.result(
            method,
            json!({"name": "split_probe", "arguments": arguments}),
        );
        assert_eq!(read_only(&result), true, "{method}");
        assert_eq!(SPLIT_READS.load(SeqCst), before + 1, "{method}: split once");
        // Beyond what the reader splits (more members than it holds, an
        // escaped name): the tool reads the text, and answers the same.
        let many: serde_json::Map<String, Value> = (0..annot::__private::MAX_SPLIT)
            .map(|index| (format!("extra{index}"), json!(index)))
            .chain([("action".to_owned(), json!("write"))])
            .collect();
        let result = client.result(method, json!({"name": "split_probe", "arguments": many}));
        assert_eq!(read_only(&result), false, "{method}");
        let escaped = format!(
            r#"{{"jsonrpc":"2.0","id":99,"method":"{method}","params":{{"name":"split_probe","arguments":{{"\u0061ction":"write"}}}}}}"#
        );
        let response = client.connection.handle(escaped.as_bytes()).unwrap();
        let response: Value = serde_json::from_slice(&response).unwrap();
        assert_eq!(
            read_only(&response["result"]),
            false,
            "{method}: {response}"
        );
        assert_eq!(SPLIT_READS.load(SeqCst), before + 1, "{method}: not split");
    }
}
