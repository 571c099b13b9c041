//! `tools/resolve` and `tools/annotations` for the rmcp adapter, read from
//! the tree rmcp hands over and answered as one: the arguments go to the
//! tool's `from_arguments`, the result is built as the `Value` rmcp sends,
//! and no JSON text is written or read in between.
//!
//! Only the plain shape comes here (see [`resolve_tree`]); everything else
//! takes [`answer_resolution`](super::shared::answer_resolution), the
//! `Connection`'s own reading of the same params. Debug builds (the tests)
//! answer every request both ways and check that the answers are the same.

use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::erased::Evaluation;
use super::extras::{AnnotExtensions, Extras, result_meta_tree};
use super::negotiation::resolve_dialect;
use super::params;
use super::render::{from_bits, to_bits};
use super::shared::ClientExtensions;
use super::state::Server;
use super::tools::resolve_failure;
use crate::protocol::{
    ANNOT_META, CLIENT_CAPABILITIES_META, Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE,
    ResolvedToolAnnotations, RpcError,
};
use crate::{AnnotatedTool, ArgumentError};

/// Evaluates one tool's arguments handed over as a tree, explaining the
/// resolution when asked: [`evaluate_tree`] of the tool's type.
pub(crate) type EvaluateTree = fn(&Value, bool) -> Result<Evaluation, ArgumentError>;

/// The arguments parsed by `T::from_arguments`, the value a `tools/call`
/// hands its handler, and evaluated once.
pub(crate) fn evaluate_tree<T: AnnotatedTool>(
    arguments: &Value,
    explain: bool,
) -> Result<Evaluation, ArgumentError> {
    let outcome = T::from_arguments(arguments)?.evaluate();
    Ok(Evaluation::of(&outcome, explain))
}

/// Answers `tools/annotations` or `tools/resolve` of a session whose
/// capabilities say `session`, from `params` and the request's `_meta` as
/// rmcp read them (rmcp takes `_meta` out of the params), the result as the
/// `Value` rmcp sends. `evaluate` gives the [`EvaluateTree`] of a registered
/// tool's name.
///
/// `None` for what it leaves to
/// [`answer_resolution`](super::shared::answer_resolution): another method;
/// params that are not an object with a string `name` and an object
/// `arguments`, or that still hold a `_meta`; a `tools/resolve` in dialect
/// B, whose result is the whole tool; a tool that is not resolvable.
pub(crate) fn resolve_tree(
    server: &Server,
    method: &str,
    params: Option<&Value>,
    meta: Option<&Map<String, Value>>,
    session: ClientExtensions,
    evaluate: impl Fn(&'static str) -> Option<EvaluateTree>,
) -> Option<Result<Value, RpcError>> {
    let answer = plain_resolution(server, method, params, meta, session, evaluate)?;
    #[cfg(debug_assertions)]
    check_against_text(server, method, params, meta, session, &answer);
    Some(answer)
}

fn plain_resolution(
    server: &Server,
    method: &str,
    params: Option<&Value>,
    meta: Option<&Map<String, Value>>,
    session: ClientExtensions,
    evaluate: impl Fn(&'static str) -> Option<EvaluateTree>,
) -> Option<Result<Value, RpcError>> {
    let state = &*server.state;
    let dialects = state.dialects;
    // One pass over the members (a plain request has two) where three
    // searches compared each key in order.
    let (mut name, mut arguments) = (None, None);
    for (key, value) in params?.as_object()? {
        match key.as_str() {
            "name" => name = Some(value),
            "arguments" => arguments = Some(value),
            "_meta" => return None,
            _ => {}
        }
    }
    // The request's own capabilities, when its `_meta` carries some: they
    // alone judge it, as `Params::stance` and `extras` read them.
    let per_request = meta
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META))
        .map(|capabilities| ClientExtensions::of(|key| declared(capabilities, key)));
    let name = name?.as_str()?;
    let arguments = arguments.filter(|value| value.is_object())?;
    // As `tools::annotations` and `tools::resolve` choose, before the params
    // are read (they can give no error here).
    let dialect = match method {
        METHOD_ANNOTATIONS if dialects.contains(Dialect::DynamicAnnotations) => {
            Dialect::DynamicAnnotations
        }
        METHOD_RESOLVE
            if dialects.contains(Dialect::ResolveTool)
                || dialects.contains(Dialect::ToolResolutionExtension) =>
        {
            let stance = per_request.map(|extensions| extensions.stance);
            match resolve_dialect(dialects, session.stance, stance, false) {
                Ok(Dialect::ResolveTool) => return None,
                Ok(dialect) => dialect,
                Err(error) => return Some(Err(error)),
            }
        }
        _ => return None,
    };
    let extras = extras_of(dialect, state.extensions, session, per_request, meta);
    let Some(tool) = state.tool(name) else {
        return Some(Err(params::unknown_tool(name)));
    };
    if !tool.resolvable() {
        return None;
    }
    let evaluate = evaluate(tool.tool())?;
    // A per-action tool's arguments are its tool's, the discriminator put back.
    let with_action;
    let arguments = match tool.fixed() {
        None => arguments,
        Some(fixed) => {
            let mut object = arguments.as_object()?.clone();
            if object.contains_key(fixed.discriminator) {
                let error = fixed.discriminator_given();
                return Some(Err(params::invalid_arguments(tool.name(), &error)));
            }
            object.insert(fixed.discriminator.to_owned(), fixed.action.into());
            with_action = Value::Object(object);
            &with_action
        }
    };
    let resolution = match evaluate(arguments, extras.explanation) {
        Ok(evaluation) => tool.settle(evaluation),
        Err(error) => return Some(Err(params::invalid_arguments(tool.name(), &error))),
    };
    let resolution = match resolution {
        Ok(resolution) => resolution,
        Err(failure) => return Some(Err(resolve_failure(tool, failure))),
    };
    let meta = result_meta_tree(
        extras,
        resolution.explanation.as_deref(),
        resolution.authorization,
    );
    let annotations = resolution.annotations();
    let result = match dialect {
        Dialect::DynamicAnnotations => {
            let mut result = Map::new();
            result.insert("annotations".to_owned(), tree_of(annotations));
            if let Some(meta) = meta {
                result.insert("_meta".to_owned(), Value::Object(meta));
            }
            result
        }
        _ => extension_result(
            tool.name(),
            ResolvedToolAnnotations::from(*annotations),
            meta,
        ),
    };
    Some(Ok(Value::Object(result)))
}

/// Whether `capabilities` take extension `key` up (empty settings), name
/// it otherwise, or not at all, read as leniently as `read::extensions`
/// reads their text: nothing when they or their `extensions` are not objects.
fn declared(capabilities: &Value, key: &str) -> Option<bool> {
    let settings = capabilities.get("extensions")?.as_object()?.get(key)?;
    Some(settings.as_object().is_some_and(Map::is_empty))
}

/// [`extras`](super::extras::extras) of a request whose `_meta` rmcp read
/// into `meta`, and whose own capabilities say `per_request`.
fn extras_of(
    dialect: Dialect,
    advertised: AnnotExtensions,
    session: ClientExtensions,
    per_request: Option<ClientExtensions>,
    meta: Option<&Map<String, Value>>,
) -> Extras {
    let asked = meta
        .and_then(|meta| meta.get(ANNOT_META))
        .and_then(|settings| settings.as_object()?.get("explain"))
        .is_some_and(|explain| *explain == Value::Bool(true));
    if dialect != Dialect::ToolResolutionExtension {
        return Extras {
            explanation: asked,
            authorization: false,
        };
    }
    let negotiated = per_request.unwrap_or(session).negotiated;
    Extras {
        explanation: asked && advertised.resolution && negotiated.resolution,
        authorization: advertised.authorization && negotiated.authorization,
    }
}

/// An [`ExtensionResolveResult`](crate::protocol::ExtensionResolveResult), as
/// serde would write it into a tree: a copy of the result built once for its
/// four hints, `name` and `_meta` put in. serde's tree serializer costs as
/// much again as the allocations it makes, and a copy walks no search. A
/// unit test holds the two to the same tree, every field of the type set.
fn extension_result(
    name: &str,
    hints: ResolvedToolAnnotations,
    meta: Option<Map<String, Value>>,
) -> Map<String, Value> {
    static BUILT: LazyLock<[Map<String, Value>; 16]> =
        LazyLock::new(|| std::array::from_fn(|bits| built_result(from_bits(bits as u8))));
    let mut result = BUILT[usize::from(to_bits(hints))].clone();
    result.insert("name".to_owned(), Value::String(name.to_owned()));
    if let Some(meta) = meta {
        result.insert("_meta".to_owned(), Value::Object(meta));
    }
    result
}

/// The result of `hints` without `name` and `_meta`.
fn built_result(hints: ResolvedToolAnnotations) -> Map<String, Value> {
    let ResolvedToolAnnotations {
        read_only_hint,
        destructive_hint,
        idempotent_hint,
        open_world_hint,
    } = hints;
    let mut annotations = Map::new();
    for (key, hint) in [
        ("destructiveHint", destructive_hint),
        ("idempotentHint", idempotent_hint),
        ("openWorldHint", open_world_hint),
        ("readOnlyHint", read_only_hint),
    ] {
        annotations.insert(key.to_owned(), Value::Bool(hint));
    }
    let mut result = Map::new();
    result.insert("annotations".to_owned(), Value::Object(annotations));
    result.insert(
        "resultType".to_owned(),
        Value::String("complete".to_owned()),
    );
    result
}

/// A value of this crate's wire types as a tree: serde straight into
/// `Value`, no text.
fn tree_of(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("the wire types always serialize")
}

/// Panics unless the `Connection`'s reading of the same request, written out
/// as text, gives the same answer.
#[cfg(debug_assertions)]
fn check_against_text(
    server: &Server,
    method: &str,
    params: Option<&Value>,
    meta: Option<&Map<String, Value>>,
    session: ClientExtensions,
    answer: &Result<Value, RpcError>,
) {
    // The params as the request wrote them, `_meta` put back.
    let mut params = params.cloned();
    if let (Some(Value::Object(params)), Some(meta)) = (&mut params, meta) {
        params.insert("_meta".to_owned(), Value::Object(meta.clone()));
    }
    let text = super::shared::answer_resolution(server, method, params.clone(), session)
        .expect("the text path answers every method the tree path does");
    let text = text.map(|bytes| {
        let mut response: Value = serde_json::from_slice(&bytes).expect("a response is JSON");
        response["result"].take()
    });
    assert_eq!(
        &text, answer,
        "the tree and text paths answer {method} {params:?} differently"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ExtensionResolveResult;
    use serde_json::json;

    #[test]
    fn the_extension_result_is_the_tree_serde_writes() {
        // Every field of the wire type set, `_meta` included, and the struct
        // built whole (no `..`): a field added to `ExtensionResolveResult`
        // fails to build here, or appears in serde's tree and not in
        // `extension_result`'s.
        let meta = json!({ (ANNOT_META): {"hints": []} });
        let Value::Object(meta) = meta else {
            unreachable!("an object")
        };
        for bits in 0..32u8 {
            let hints = from_bits(bits & 15);
            let meta = (bits & 16 != 0).then(|| meta.clone());
            let by_serde = tree_of(&ExtensionResolveResult {
                result_type: "complete".to_owned(),
                name: "manage_files".to_owned(),
                annotations: hints,
                meta: meta.clone(),
            });
            let built = Value::Object(extension_result("manage_files", hints, meta));
            assert_eq!(built, by_serde, "hints and _meta {bits:05b}");
        }
    }
}
