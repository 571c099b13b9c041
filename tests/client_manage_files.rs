//! The client against the reference `manage_files` tool: its generated static
//! annotations, schema, parser and resolver answer `tools/resolve` (SEP-1862),
//! and the policy asks fewer confirmations with resolution than without.

#[path = "../examples/tools/manage_files.rs"]
mod manage_files;

use annot::client::{
    AnnotationSource, ClientExtension, Policy, PreflightError, ProposedCall, ResolutionSupport,
    Rule, Session, Strength, Trust, Verdict,
};
use annot::protocol::{Dialect, RpcError, error_code};
use annot::{AnnotatedTool, Tool, ToolAnnotations};
use manage_files::ManageFiles;
use serde_json::{Map, Value, json};

/// `manage_files` as `tools/list` shows it, built from the generated constants.
fn listed() -> Tool {
    Tool {
        name: ManageFiles::NAME.to_owned(),
        title: ManageFiles::TITLE.map(str::to_owned),
        description: ManageFiles::DESCRIPTION.map(str::to_owned),
        input_schema: serde_json::from_str(ManageFiles::input_schema()).unwrap(),
        annotations: Some(ToolAnnotations::from(ManageFiles::STATIC_ANNOTATIONS)),
        resolve: Some(true),
        ..Tool::default()
    }
}

/// A minimal `tools/resolve` (B) answered by the generated parser and resolver.
fn resolve_with_generated_code(method: &str, params: Value) -> Result<Value, RpcError> {
    if method != "tools/resolve" {
        return Err(RpcError::new(error_code::METHOD_NOT_FOUND, method));
    }
    let action = ManageFiles::from_arguments(&params["arguments"])
        .map_err(|error| RpcError::new(error_code::INVALID_PARAMS, error.to_string()))?;
    let mut tool = listed();
    tool.annotations = Some(ToolAnnotations::from(action.resolve()));
    Ok(json!({ "tool": tool }))
}

fn arguments(json: Value) -> Map<String, Value> {
    json.as_object().unwrap().clone()
}

#[test]
fn resolution_saves_the_confirmations_of_reads() {
    let support = ResolutionSupport {
        resolve: true,
        client_extension: ClientExtension::NotOffered,
        ..ResolutionSupport::default()
    };
    let tool = listed();
    let policy = Policy::default();
    let session = Session::default();
    let script = [
        json!({"action": "read", "path": "notes.txt"}),
        json!({"action": "append", "path": "log.txt", "content": "done"}),
        json!({"action": "read", "path": "log.txt"}),
        json!({"action": "replace", "path": "notes.txt", "content": ""}),
        json!({"action": "delete", "path": "old.txt"}),
    ];
    let mut with = Vec::new();
    let mut without = Vec::new();
    for arguments in script.map(arguments) {
        let mut server = resolve_with_generated_code;
        let preflight = support.preflight(&mut server, &tool, &arguments).unwrap();
        assert_eq!(
            preflight.source,
            AnnotationSource::Resolved(Dialect::ResolveTool)
        );
        let resolved = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        let listed_only =
            ProposedCall::new(&tool.name, &arguments, preflight.declared, Trust::Trusted);
        with.push(session.review(&resolved, policy.decide(&resolved)));
        without.push(session.review(&listed_only, policy.decide(&listed_only)));
    }
    let verdicts = |decisions: &[annot::client::Decision]| -> Vec<Verdict> {
        decisions
            .iter()
            .map(|decision| decision.verdict())
            .collect()
    };
    let normal = Verdict::Confirm(Strength::Normal);
    assert_eq!(
        verdicts(&with),
        [Verdict::Allow, normal, Verdict::Allow, normal, normal]
    );
    // Without resolution the client must assume the worst of every call,
    // a system path among it: privileged and sensitive, a strong confirmation.
    assert_eq!(verdicts(&without), [Verdict::Confirm(Strength::Strong); 5]);
    assert_eq!(with[1].reason().rule, Rule::NonDestructiveWrite);
    assert_eq!(with[4].reason().rule, Rule::Destructive);
    assert_eq!(
        with[0].to_string(),
        "allow: `manage_files` only reads, and its server is trusted"
    );
}

#[test]
fn arguments_the_generated_parser_rejects_are_surfaced() {
    let support = ResolutionSupport {
        resolve: true,
        ..ResolutionSupport::default()
    };
    let mut server = resolve_with_generated_code;
    let error = support
        .preflight(
            &mut server,
            &listed(),
            &arguments(json!({"action": "shred", "path": "a"})),
        )
        .unwrap_err();
    let PreflightError::InvalidParams { error, .. } = error else {
        panic!("expected invalid params");
    };
    assert!(error.message.contains("shred"), "{}", error.message);
}
