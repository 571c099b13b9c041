//! With several upstreams: one `initialize` answer for all, lists merged
//! with names under each upstream's namespace, and each request that names
//! something sent to the upstream that listed it.

use serde_json::{Map, Value, json};

use crate::gateway::{Gateway, Member};
use crate::message::{code, error_response, result_response};

/// The host's `initialize` answer from every upstream's: the first answer's
/// protocol version, every capability any upstream declared, the gateway as
/// the server, and each upstream's instructions under its name.
fn merged_initialize(id: &Value, answers: &[Value], members: &[Member]) -> Value {
    let results: Vec<(&Member, &Value)> = members
        .iter()
        .zip(answers)
        .filter_map(|(member, answer)| Some((member, answer.get("result")?)))
        .collect();
    let Some((_, first)) = results.first() else {
        let mut answer = answers.first().cloned().unwrap_or(Value::Null);
        answer["id"] = id.clone();
        return answer;
    };
    let mut capabilities = Map::new();
    let mut instructions = Vec::new();
    for (member, result) in &results {
        if let Some(declared) = result.get("capabilities").and_then(Value::as_object) {
            merge_into(&mut capabilities, declared);
        }
        if let Some(text) = result.get("instructions").and_then(Value::as_str) {
            let name = member.namespace.as_deref().unwrap_or("upstream");
            instructions.push(format!("{name}: {text}"));
        }
    }
    let mut result = json!({
        "protocolVersion": first["protocolVersion"],
        "capabilities": capabilities,
        "serverInfo": {"name": "annot-gateway", "version": env!("CARGO_PKG_VERSION")},
    });
    if !instructions.is_empty() {
        result["instructions"] = json!(instructions.join("\n\n"));
    }
    result_response(id, result)
}

/// `into` with every key of `from`; objects under the same key merged, and
/// `true` winning over `false` (a capability any upstream has is offered).
pub(crate) fn merge_into(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(key), value) {
            (Some(Value::Object(mine)), Value::Object(theirs)) => merge_into(mine, theirs),
            (Some(Value::Bool(mine)), Value::Bool(theirs)) => *mine |= theirs,
            (Some(_), _) => {}
            (None, value) => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// The list methods merged across upstreams: the result key, and the field
/// each item is named by (namespaced) or found by (remembered).
const LISTS: [(&str, &str, &str, bool); 3] = [
    ("prompts/list", "prompts", "name", true),
    ("resources/list", "resources", "uri", false),
    (
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        false,
    ),
];

impl Gateway {
    /// The one `initialize` answer for the host (see [`merged_initialize`]).
    pub(crate) fn merged_initialize(&self, id: &Value, answers: &[Value]) -> Value {
        merged_initialize(id, answers, &self.members)
    }

    /// Answers a request other than `initialize` and the tools' with several
    /// upstreams.
    pub(crate) async fn route(
        &self,
        id: &Value,
        method: &str,
        params: Value,
        modern: bool,
    ) -> Value {
        if let Some(&(_, key, field, renamed)) = LISTS.iter().find(|list| list.0 == method) {
            return self.merged_list(id, method, key, field, renamed).await;
        }
        let target = match method {
            "prompts/get" => self.by_prompt(&params, "/name"),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                self.by_resource(&params, "/uri")
            }
            "completion/complete" => match params.pointer("/ref/type").and_then(Value::as_str) {
                Some("ref/prompt") => self.by_prompt(&params, "/ref/name"),
                Some("ref/resource") => self.by_resource(&params, "/ref/uri"),
                _ => Err("`ref.type` is neither `ref/prompt` nor `ref/resource`".to_owned()),
            },
            "logging/setLevel" => return self.to_every_upstream(id, method, params, modern).await,
            _ => {
                return error_response(
                    id,
                    code::METHOD_NOT_FOUND,
                    format!(
                        "the gateway cannot tell which of its upstreams `{method}` is for, so it \
                         sends it to none"
                    ),
                );
            }
        };
        match target {
            Ok((index, params)) => {
                let params = self.upstream_params(index, params, modern);
                self.forward(index, id, method, params).await
            }
            Err(why) => error_response(id, code::INVALID_PARAMS, why),
        }
    }

    /// The upstream of a namespaced prompt name at `pointer`, and the params
    /// with the upstream's own name.
    fn by_prompt(&self, params: &Value, pointer: &str) -> Result<(usize, Value), String> {
        let shown = params
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{}` is missing", &pointer[1..]))?;
        let (index, name) = self
            .split_name(shown)
            .ok_or_else(|| format!("unknown prompt `{shown}`: no upstream has that namespace"))?;
        let mut params = params.clone();
        if let Some(slot) = params.pointer_mut(pointer) {
            *slot = json!(name);
        }
        Ok((index, params))
    }

    /// The upstream that listed the resource URI at `pointer`.
    fn by_resource(&self, params: &Value, pointer: &str) -> Result<(usize, Value), String> {
        let uri = params
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{}` is missing", &pointer[1..]))?;
        let index = self
            .state
            .lock()
            .expect("state lock")
            .origins
            .get(uri)
            .copied()
            .ok_or_else(|| {
                format!("unknown resource `{uri}`: list the resources first, so the gateway knows its upstream")
            })?;
        Ok((index, params.clone()))
    }

    async fn merged_list(
        &self,
        id: &Value,
        method: &str,
        key: &str,
        field: &str,
        renamed: bool,
    ) -> Value {
        let mut items = Vec::new();
        let mut failures = Vec::new();
        for index in 0..self.members.len() {
            let params = self.own_params(index, json!({}));
            let answer = self.forward(index, id, method, params).await;
            let Some(listed) = answer
                .pointer(&format!("/result/{key}"))
                .and_then(Value::as_array)
            else {
                failures.push(answer);
                continue;
            };
            let mut state = self.state.lock().expect("state lock");
            for item in listed {
                let mut item = item.clone();
                let Some(name) = item.get(field).and_then(Value::as_str).map(str::to_owned) else {
                    continue;
                };
                if renamed {
                    item[field] = json!(self.shown_name(index, &name));
                } else {
                    state.origins.insert(name, index);
                }
                items.push(item);
            }
        }
        if items.is_empty() && failures.len() == self.members.len() {
            return failures.swap_remove(0);
        }
        result_response(id, json!({ key: items }))
    }

    async fn to_every_upstream(
        &self,
        id: &Value,
        method: &str,
        params: Value,
        modern: bool,
    ) -> Value {
        let mut answers = Vec::new();
        for index in 0..self.members.len() {
            let params = self.upstream_params(index, params.clone(), modern);
            answers.push(self.forward(index, id, method, params).await);
        }
        let first_success = answers
            .iter()
            .position(|answer| answer.get("result").is_some());
        answers.swap_remove(first_success.unwrap_or(0))
    }
}
