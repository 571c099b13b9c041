//! `tools/list` as the host sees it: pinned definitions, annotations raised
//! to what the gateway acts on, per-action tools where rules split a tool,
//! and nothing the profile can never let through.

use std::sync::Arc;

use annot_runtime::protocol::{DISPLAY_TEMPLATES_EXTENSION, TOOL_RESOLUTION_EXTENSION};
use annot_runtime::server::{Exposure, default_action_name};
use annot_runtime::{Annotations, Hint, Tool};
use serde_json::{Value, json};

use crate::digest;
use crate::gateway::{Gateway, State};
use crate::message::{code, error_response, result_response};
use crate::sources::{self, CompiledRules, Listed};
use crate::store::{PinState, StoreError};
use crate::upstream::UpstreamError;

impl Gateway {
    /// Answers `tools/list`: every page of every upstream's tools, as the
    /// gateway shows them, in one page.
    pub(crate) async fn list_tools(self: Arc<Self>, id: Value) {
        let mut tools = Vec::new();
        let mut failure = None;
        for index in 0..self.members.len() {
            match self.learn_tools(index).await {
                Ok(shown) => tools.extend(shown),
                Err(error) => failure = Some(error),
            }
        }
        let answer = match failure {
            Some(error) if tools.is_empty() => {
                error_response(&id, code::UPSTREAM_UNAVAILABLE, error.to_string())
            }
            _ => result_response(&id, json!({ "tools": tools })),
        };
        self.to_host(&answer);
    }

    /// What a name the host uses stands for; a host may call before it
    /// lists, so an unknown name makes the gateway list first.
    pub(crate) async fn listed(&self, name: &str) -> Option<Listed> {
        let known = self
            .state
            .lock()
            .expect("state lock")
            .listed
            .get(name)
            .cloned();
        if known.is_some() {
            return known;
        }
        let (index, _) = self.split_name(name)?;
        let _ = self.learn_tools(index).await;
        self.state
            .lock()
            .expect("state lock")
            .listed
            .get(name)
            .cloned()
    }

    /// Lists every page of upstream `index`'s tools; what the host is shown
    /// of them.
    pub(crate) async fn learn_tools(&self, index: usize) -> Result<Vec<Value>, UpstreamError> {
        self.ensure_upstream(index)
            .await
            .map_err(UpstreamError::Down)?;
        let upstream = self.upstream(index);
        let mut shown = Vec::new();
        let mut cursor: Option<Value> = None;
        // A bound on pages: an upstream that cursors forever is not followed forever.
        for _ in 0..100 {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let id = upstream.allocate_id();
            let params = self.own_params(index, params);
            let mut response = upstream.request(id, "tools/list", params).await?;
            let tools = response
                .pointer_mut("/result/tools")
                .and_then(Value::as_array_mut)
                .map(std::mem::take)
                .unwrap_or_default();
            shown.extend(self.expose(index, tools).await);
            cursor = response.pointer("/result/nextCursor").cloned();
            if cursor.is_none() {
                break;
            }
        }
        if self.settings.approvals.is_some() {
            self.shared.catalog.record(upstream.name(), &shown);
        }
        Ok(shown)
    }

    async fn expose(&self, index: usize, upstream_tools: Vec<Value>) -> Vec<Value> {
        // Each definition checked against its pin first, without the state's
        // lock (the store may be across the network).
        let mut checked = Vec::new();
        for definition in upstream_tools {
            let tool: Tool = match serde_json::from_value(definition.clone()) {
                Ok(tool) => tool,
                Err(error) => {
                    tracing::warn!("withheld an upstream tool that is not a valid tool: {error}");
                    continue;
                }
            };
            let digest = digest::of(&definition);
            let pin = self
                .store()
                .pin(
                    self.upstream(index).name(),
                    &tool.name,
                    &digest,
                    &definition,
                )
                .await;
            checked.push((tool, definition, digest, pin));
        }
        let mut rules_errors = Vec::new();
        let shown = self.expose_checked(index, checked, &mut rules_errors);
        for error in rules_errors {
            let _ = self
                .store()
                .event(self.upstream(index).name(), "rules-error", &error)
                .await;
        }
        shown
    }

    fn expose_checked(
        &self,
        index: usize,
        checked: Vec<(Tool, Value, String, Result<PinState, StoreError>)>,
        rules_errors: &mut Vec<String>,
    ) -> Vec<Value> {
        let mut state = self.state.lock().expect("state lock");
        let per_action = match self.settings.exposure {
            Exposure::PerAction => true,
            Exposure::Auto => !state.host_resolves,
            _ => false,
        };
        let mut shown = Vec::new();
        for (tool, definition, digest, pin) in checked {
            if !self.pinned(&mut state, index, &tool.name, &digest, pin) {
                continue;
            }
            let rules = state.upstreams[index]
                .rules
                .for_tool(&tool)
                .map_err(|error| error.to_string());
            if let Err(error) = &rules {
                tracing::error!("{error}");
                rules_errors.push(error.clone());
            }
            let tool = Arc::new(tool);
            let split = match &rules {
                Ok(Some(compiled)) if per_action && compiled.discriminator.is_some() => {
                    Some(Arc::clone(compiled))
                }
                _ => None,
            };
            match split {
                Some(compiled) => {
                    self.per_action(&mut state, &mut shown, index, &tool, &definition, &compiled)
                }
                None => {
                    let (bound, shown_to_host) = self.tool_bound(&state, index, &tool, &rules);
                    let name = self.shown_name(index, &tool.name);
                    let mut definition = with_annotations(definition, bound);
                    definition["name"] = json!(name);
                    let varies = matches!(rules, Ok(Some(_)))
                        || state.upstreams[index].support.dialect_for(&tool).is_ok();
                    mark_resolvable(&mut definition, varies, state.host_resolves);
                    with_preview(
                        &mut definition,
                        state.upstreams[index].rules.preview(&tool.name),
                    );
                    // Known but not shown: see `per_action`.
                    state.listed.insert(
                        name,
                        Listed {
                            upstream: index,
                            tool: Arc::clone(&tool),
                            action: None,
                            rules,
                        },
                    );
                    if shown_to_host {
                        shown.push(definition);
                    }
                }
            }
        }
        shown
    }

    /// Whether `definition` is the pinned one; a changed one is withheld.
    fn pinned(
        &self,
        state: &mut State,
        index: usize,
        name: &str,
        digest: &str,
        pin: Result<PinState, StoreError>,
    ) -> bool {
        let upstream = self.upstream(index).name();
        let shown = self.shown_name(index, name);
        match pin {
            Ok(PinState::Pinned) => {
                state.withheld.remove(&shown);
                true
            }
            Ok(PinState::Changed { pinned }) => {
                tracing::warn!(
                    "withheld `{shown}`: its definition changed ({pinned} is pinned, {digest} seen); \
                     accept it with `annot-gateway pins accept --upstream {upstream} {name}`"
                );
                state
                    .listed
                    .retain(|_, listed| listed.upstream != index || listed.tool.name != name);
                state.withheld.insert(shown, pinned);
                false
            }
            Err(error) => {
                tracing::error!("withheld `{name}`: the pin store failed: {error}");
                false
            }
        }
    }

    /// The annotations a tool is listed with, and whether some call of it
    /// can pass the profile (else it is not shown).
    fn tool_bound(
        &self,
        state: &State,
        index: usize,
        tool: &Tool,
        rules: &Result<Option<Arc<CompiledRules>>, String>,
    ) -> (Annotations, bool) {
        let declared = sources::declared(tool);
        let profile = self.settings.profile;
        let raise = |annotations| self.audit().raise(&tool.name, annotations);
        match rules {
            Ok(Some(compiled)) => {
                let actions: Vec<Annotations> = compiled
                    .rules
                    .actions()
                    .iter()
                    .map(|action| {
                        raise(sources::bounded(
                            action.annotations,
                            declared,
                            compiled.lowers,
                        ))
                    })
                    .collect();
                let any_passes = compiled
                    .rules
                    .actions()
                    .iter()
                    .any(|action| self.may_pass(tool, action.annotations, declared, compiled));
                (Annotations::join_all(&actions), any_passes)
            }
            _ => {
                let bound = raise(declared);
                let resolvable = state.upstreams[index].support.dialect_for(tool).is_ok();
                (bound, resolvable || profile.allows(&bound))
            }
        }
    }

    /// Whether some call of an action whose worst case is `bound` can pass
    /// the profile: its rules may lower it, but not below the upstream's
    /// `declared` annotations unless they may override them, nor below what
    /// an audit saw.
    fn may_pass(
        &self,
        tool: &Tool,
        bound: Annotations,
        declared: Annotations,
        compiled: &CompiledRules,
    ) -> bool {
        let profile = self.settings.profile;
        let floor = if compiled.lowers {
            Annotations::new().read_only(true)
        } else {
            declared
        };
        profile.can_satisfy(&bound, compiled.rules.rules())
            && profile.can_satisfy(&self.audit().raise(&tool.name, floor), &[])
    }

    fn per_action(
        &self,
        state: &mut State,
        shown: &mut Vec<Value>,
        index: usize,
        tool: &Arc<Tool>,
        definition: &Value,
        compiled: &Arc<CompiledRules>,
    ) {
        let declared = sources::declared(tool);
        let field = compiled
            .discriminator
            .clone()
            .expect("split tools have one");
        for action in compiled.rules.actions() {
            let bound = self.audit().raise(
                &tool.name,
                sources::bounded(action.annotations, declared, compiled.lowers),
            );
            let name = self.shown_name(index, &default_action_name(&tool.name, action.name));
            let mut definition = with_annotations(definition.clone(), bound);
            definition["name"] = json!(name);
            without_field(&mut definition["inputSchema"], &field);
            state.listed.insert(
                name,
                Listed {
                    upstream: index,
                    tool: Arc::clone(tool),
                    action: Some((field.clone(), action.name.to_owned())),
                    rules: Ok(Some(Arc::clone(compiled))),
                },
            );
            // Known but not shown: a call of it anyway is refused by the
            // profile with its reason, and logged, rather than unknown.
            if self.may_pass(tool, action.annotations, declared, compiled) {
                shown.push(definition);
            }
        }
    }
}

/// `definition` with its hints set to `annotations` (every other key kept).
fn with_annotations(mut definition: Value, annotations: Annotations) -> Value {
    let Some(object) = definition.as_object_mut() else {
        return definition;
    };
    let listed = object.entry("annotations").or_insert_with(|| json!({}));
    if let Some(listed) = listed.as_object_mut() {
        for hint in Hint::ALL {
            if let Some(value) = annotations.get(hint) {
                listed.insert(hint.wire_name().to_owned(), json!(value));
            }
        }
    }
    definition
}

/// Lists the configured preview as the tool's display template, where the
/// upstream gives none.
fn with_preview(definition: &mut Value, preview: Option<&str>) {
    let Some(preview) = preview else { return };
    if definition
        .pointer("/_meta")
        .and_then(|meta| meta.get(DISPLAY_TEMPLATES_EXTENSION))
        .is_some()
    {
        return;
    }
    let Some(object) = definition.as_object_mut() else {
        return;
    };
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    meta[DISPLAY_TEMPLATES_EXTENSION] = json!({"template": preview});
}

/// Marks a tool whose annotations vary with its arguments as resolvable, in
/// the extension's shape for a host that took it up and in dialects A's
/// and B's otherwise; takes the upstream's own markers off, since the
/// gateway answers.
fn mark_resolvable(definition: &mut Value, varies: bool, extension: bool) {
    let Some(object) = definition.as_object_mut() else {
        return;
    };
    object.remove("dynamicAnnotations");
    object.remove("resolve");
    if let Some(meta) = object.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove(TOOL_RESOLUTION_EXTENSION);
    }
    if !varies {
        return;
    }
    if extension {
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        meta[TOOL_RESOLUTION_EXTENSION] = json!({"resolvable": true});
    } else {
        object.insert("dynamicAnnotations".into(), json!(true));
        object.insert("resolve".into(), json!(true));
    }
}

/// The schema without the discriminator: a per-action tool's name says it.
fn without_field(schema: &mut Value, field: &str) {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove(field);
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|name| name.as_str() != Some(field));
    }
}
