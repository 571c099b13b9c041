//! The rmcp adapter's reader of a resolution request: `tools/resolve` and
//! `tools/annotations` read from the tree rmcp hands over and answered by
//! the [`resolution`] core as a tree, with no JSON text
//! written or read in between.
//!
//! Only params of the plain shape are read here (see [`resolve_tree`]); any
//! other goes to [`answer_resolution`](crate::server::rmcp_bridge::answer_resolution),
//! which reads their text as a `Connection` reads it, errors included.

use std::borrow::Cow;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use crate::Annotations;
use crate::protocol::{
    ANNOT_META, CLIENT_CAPABILITIES_META, Dialect, ResolvedToolAnnotations, RpcError,
};
use crate::server::answers::annotation_json::{from_bits, to_bits};
use crate::server::answers::resolution::{
    self, Answer, Arguments, Asker, ClientExtensions, Method, ResolutionParams,
};
use crate::server::answers::resolution_meta::result_meta_tree;
use crate::server::registry::server_state::Server;

/// Answers `tools/annotations` or `tools/resolve` of a session whose
/// capabilities say `session`, from `params` and the request's `_meta` as
/// rmcp read them (rmcp takes `_meta` out of the params), the result as the
/// `Value` rmcp sends.
///
/// `None` for what it leaves to
/// [`answer_resolution`](crate::server::rmcp_bridge::answer_resolution): another method,
/// or params that are not an object with a string `name` and an object
/// `arguments`, or that still hold a `_meta`.
pub(crate) fn resolve_tree(
    server: &Server,
    method: &str,
    params: Option<&Value>,
    meta: Option<&Map<String, Value>>,
    session: ClientExtensions,
) -> Option<Result<Value, RpcError>> {
    let state = &*server.state;
    let method = Method::offered(method, state.dialects)?;
    let params = TreeParams::plain(params?, meta)?;
    let asker = Asker {
        modern: false,
        session,
    };
    Some(resolution::resolve(
        state, method, &params, asker, into_tree,
    ))
}

/// An answer's result as a tree, as rmcp sends it.
pub(crate) fn into_tree(answer: &Answer<'_>) -> Value {
    if answer.modern.is_some() || answer.dialect == Dialect::ResolveTool {
        // Rare forms (the whole tool, a 2026-07-28 result): their text,
        // written as for a `Connection`, read back.
        let mut out = Vec::with_capacity(answer.capacity());
        answer.write(&mut out);
        return serde_json::from_slice(&out).expect("a written result is JSON");
    }
    let resolution = answer.resolution;
    let meta = result_meta_tree(
        answer.extras,
        resolution.explanation.as_deref(),
        resolution.authorization,
    );
    let annotations = resolution.annotations();
    Value::Object(match answer.dialect {
        Dialect::DynamicAnnotations => annotations_result(annotations, meta),
        _ => extension_result(
            answer.tool.name(),
            ResolvedToolAnnotations::from(*annotations),
            meta,
        ),
    })
}

/// The params of a plain request: a string `name`, an object `arguments`,
/// and the `_meta` rmcp took out of them.
struct TreeParams<'a> {
    name: &'a str,
    arguments: &'a Value,
    meta: Option<&'a Map<String, Value>>,
}

impl<'a> TreeParams<'a> {
    fn plain(params: &'a Value, meta: Option<&'a Map<String, Value>>) -> Option<Self> {
        // One pass over the members (a plain request has two) where three
        // searches compared each key in order.
        let (mut name, mut arguments) = (None, None);
        for (key, value) in params.as_object()? {
            match key.as_str() {
                "name" => name = Some(value),
                "arguments" => arguments = Some(value),
                "_meta" => return None,
                _ => {}
            }
        }
        Some(TreeParams {
            name: name?.as_str()?,
            arguments: arguments.filter(|value| value.is_object())?,
            meta,
        })
    }
}

impl<'a> ResolutionParams<'a> for TreeParams<'a> {
    fn name(&self) -> Result<Cow<'a, str>, RpcError> {
        Ok(Cow::Borrowed(self.name))
    }

    fn arguments(&self) -> Result<Option<Arguments<'a>>, RpcError> {
        Ok(Some(Arguments::Tree(self.arguments)))
    }

    fn asks_explanation(&self) -> bool {
        self.meta
            .and_then(|meta| meta.get(ANNOT_META))
            .and_then(|settings| settings.as_object()?.get("explain"))
            .is_some_and(|explain| *explain == Value::Bool(true))
    }

    fn capabilities(&self) -> Option<ClientExtensions> {
        let capabilities = self.meta?.get(CLIENT_CAPABILITIES_META)?;
        Some(ClientExtensions::of(|key| declared(capabilities, key)))
    }
}

/// Whether `capabilities` take extension `key` up (empty settings), name
/// it otherwise, or not at all, read as leniently as `read::extensions`
/// reads their text: nothing when they or their `extensions` are not objects.
fn declared(capabilities: &Value, key: &str) -> Option<bool> {
    let settings = capabilities.get("extensions")?.as_object()?.get(key)?;
    Some(settings.as_object().is_some_and(Map::is_empty))
}

/// Dialect A's result: `annotations`, and `_meta` when it has one.
fn annotations_result(
    annotations: &Annotations,
    meta: Option<Map<String, Value>>,
) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("annotations".to_owned(), tree_of(annotations));
    if let Some(meta) = meta {
        result.insert("_meta".to_owned(), Value::Object(meta));
    }
    result
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
