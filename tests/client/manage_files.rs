//! The client against the reference `manage_files` tool: its generated static
//! annotations, schema, parser and resolver answer `tools/resolve` (SEP-1862),
//! and the policy asks fewer confirmations with resolution than without.

#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;

use annot::client::{
    AnnotationSource, ClientExtension, Decision, Policy, PolicyRule, PreflightError, ProposedCall,
    ResolutionSupport, Session, Strength, Trust, Verdict,
};
use annot::protocol::{Dialect, RpcError, error_code};
use annot::{AnnotatedTool, Hint, Tool, ToolAnnotations};
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

/// A minimal `tools/resolve` (B) answered by the generated parser and resolver,
/// altered to leave out the SEP-1984 hints the path rule did not raise: a
/// server silent about what it decided.
fn resolve_silently(method: &str, params: Value) -> Result<Value, RpcError> {
    resolve_stating(method, params, false)
}

/// The generated parser and resolver as they are: the tool declares the
/// sensitive-data and privileged-access hints `false`, so a call the path
/// rule does not raise states both `false`.
fn resolve_with_generated_code(method: &str, params: Value) -> Result<Value, RpcError> {
    resolve_stating(method, params, true)
}

fn resolve_stating(method: &str, params: Value, state: bool) -> Result<Value, RpcError> {
    if method != "tools/resolve" {
        return Err(RpcError::new(error_code::METHOD_NOT_FOUND, method));
    }
    let action = ManageFiles::from_arguments(&params["arguments"])
        .map_err(|error| RpcError::new(error_code::INVALID_PARAMS, error.to_string()))?;
    let mut resolved = action.resolve();
    if !state {
        for hint in [Hint::SensitiveData, Hint::PrivilegedAccess] {
            if resolved.get(hint) != Some(true) {
                resolved = resolved.with(hint, None);
            }
        }
    }
    let mut tool = listed();
    tool.annotations = Some(ToolAnnotations::from(resolved));
    Ok(json!({ "tool": tool }))
}

fn arguments(json: Value) -> Map<String, Value> {
    json.as_object().unwrap().clone()
}

/// The verdicts of the script's calls with and without resolution.
fn run_script(
    mut server: impl FnMut(&str, Value) -> Result<Value, RpcError>,
) -> (Vec<Decision>, Vec<Decision>) {
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
    (with, without)
}

fn verdicts(decisions: &[Decision]) -> Vec<Verdict> {
    decisions.iter().map(Decision::verdict).collect()
}

const STRONG: Verdict = Verdict::Confirm(Strength::Strong);

#[test]
fn resolution_saves_the_confirmations_of_reads_when_the_server_states_its_hints() {
    let (with, without) = run_script(resolve_with_generated_code);
    let normal = Verdict::Confirm(Strength::Normal);
    assert_eq!(
        verdicts(&with),
        [Verdict::Allow, normal, Verdict::Allow, normal, normal]
    );
    // Without resolution the client must assume the worst of every call,
    // a system path among it: privileged and sensitive, a strong confirmation.
    assert_eq!(verdicts(&without), [STRONG; 5]);
    assert_eq!(with[1].reason().rule, PolicyRule::NonDestructiveWrite);
    assert_eq!(with[4].reason().rule, PolicyRule::Destructive);
    assert_eq!(
        with[0].to_string(),
        "allow: `manage_files` only reads, and its server is trusted"
    );
}

#[test]
fn a_server_silent_about_sensitive_data_keeps_the_strong_confirmations() {
    // This server leaves out the hints its path rule did not raise; the
    // static annotations declare both, so silence keeps them.
    let (with, without) = run_script(resolve_silently);
    assert_eq!(verdicts(&with), [STRONG; 5]);
    assert_eq!(verdicts(&without), [STRONG; 5]);
    for decision in &with {
        assert_eq!(decision.reason().rule, PolicyRule::SensitiveAndPrivileged);
    }
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
