//! What the host sends: requests, each answered by a task of its own, the
//! notifications passed on, and the answers to what was asked of the host.

use std::sync::Arc;

use annot_runtime::protocol::TOOL_RESOLUTION_EXTENSION;
use serde_json::{Map, Value, json};

use super::{Busy, Gateway, HOST_REQUEST, HostWaiter};
use crate::era::{self, HostIdentity, UpstreamEra};
use crate::message::{code, error_response, result_response};

impl Gateway {
    /// Handles one line from the host.
    pub fn from_host(self: &Arc<Self>, bytes: &[u8]) {
        let message: Value = match serde_json::from_slice(bytes) {
            Ok(message) => message,
            Err(error) => {
                return self.to_host(&error_response(
                    &Value::Null,
                    code::PARSE_ERROR,
                    format!("the gateway could not parse the message as JSON: {error}"),
                ));
            }
        };
        let Some(object) = message.as_object() else {
            return self.to_host(&error_response(
                &Value::Null,
                code::INVALID_REQUEST,
                "a JSON-RPC message must be an object (batches are not part of MCP)",
            ));
        };
        let id = object.get("id").cloned();
        match (object.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => {
                let params = object.get("params").cloned().unwrap_or(json!({}));
                self.request(method.to_owned(), id, params);
            }
            (Some(method), None) => self.notification(method, object),
            (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
                self.response(&id, message)
            }
            (None, id) => self.to_host(&error_response(
                &id.unwrap_or(Value::Null),
                code::INVALID_REQUEST,
                "not a JSON-RPC request, notification or response: `method` is missing",
            )),
        }
    }

    fn request(self: &Arc<Self>, method: String, id: Value, params: Value) {
        let modern = era::is_modern(&method, &params);
        if modern {
            let listing = matches!(method.as_str(), "tools/list" | "server/discover");
            self.modern
                .lock()
                .expect("modern lock")
                .insert(id.to_string(), listing);
            let mut state = self.state.lock().expect("state lock");
            let identity = HostIdentity::from_meta(&params);
            state.host_resolves = identity.takes_up_resolution;
            state.host_elicits = false;
            if state
                .upstreams
                .iter()
                .all(|upstream| upstream.era == UpstreamEra::Unknown)
            {
                state.identity = identity;
            }
        }
        if method == "ping" {
            // The gateway's own liveness: answered even while the upstream restarts.
            return self.to_host(&result_response(&id, json!({})));
        }
        let gateway = Arc::clone(self);
        let busy = Busy::new(&self.active);
        // Once the upstream is open, what goes to it as it came is sent now,
        // in the host's order.
        let opened = self.members.len() == 1
            && self.state.lock().expect("state lock").upstreams[0].era != UpstreamEra::Unknown;
        let sent = match method.as_str() {
            "initialize" | "server/discover" | "tools/list" | "tools/call" | "tools/resolve"
            | "tools/annotations" => None,
            _ if opened => {
                let params = self.upstream_params(0, params.clone(), modern);
                Some(self.begin_forward(0, &id, &method, params))
            }
            _ => None,
        };
        tokio::spawn(HOST_REQUEST.scope(id.clone(), async move {
            let (key, this) = (id.to_string(), Arc::clone(&gateway));
            match (method.as_str(), sent) {
                ("initialize", _) => {
                    gateway.remember_host(&params);
                    gateway.initialize(id).await;
                }
                ("server/discover", _) => gateway.discover(id).await,
                ("tools/list", _) => gateway.list_tools(id).await,
                ("tools/call", _) => gateway.call_tool(id, params).await,
                ("tools/resolve" | "tools/annotations", _) => {
                    let answer = gateway.answer_resolution(&id, &method, &params).await;
                    gateway.to_host(&answer);
                }
                (_, Some(sent)) => {
                    let answer = sent.finish(&gateway).await;
                    gateway.to_host(&answer);
                }
                (_, None) => {
                    gateway.ensure_upstreams().await;
                    let answer = if gateway.members.len() == 1 {
                        let params = gateway.upstream_params(0, params, modern);
                        gateway.forward(0, &id, &method, params).await
                    } else {
                        gateway.route(&id, &method, params, modern).await
                    };
                    gateway.to_host(&answer);
                }
            }
            this.request_callers
                .lock()
                .expect("request-callers lock")
                .remove(&key);
            drop(busy);
        }));
    }

    /// What a legacy host's `initialize` says about it.
    fn remember_host(&self, params: &Value) {
        let mut state = self.state.lock().expect("state lock");
        let capabilities = &params["capabilities"];
        state.host_elicits = capabilities.get("elicitation").is_some();
        state.host_resolves = capabilities
            .get("extensions")
            .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
            .is_some();
        state.identity = HostIdentity::from_initialize(params);
        state.requested_version = params["protocolVersion"].as_str().map(str::to_owned);
    }

    /// A host request's `params` as upstream `index` wants them: `_meta`
    /// added for a 2026-07-28 upstream behind a legacy host, its
    /// 2026-07-28 keys taken off for a legacy upstream behind a 2026-07-28
    /// host.
    pub(crate) fn upstream_params(&self, index: usize, params: Value, modern_host: bool) -> Value {
        let state = self.state.lock().expect("state lock");
        match (&state.upstreams[index].era, modern_host) {
            (UpstreamEra::Modern, false) => era::with_meta(params, &state.identity),
            (UpstreamEra::Legacy, true) => era::without_meta(params),
            _ => params,
        }
    }

    /// The params of the gateway's own request to upstream `index`.
    pub(crate) fn own_params(&self, index: usize, params: Value) -> Value {
        let state = self.state.lock().expect("state lock");
        match state.upstreams[index].era {
            UpstreamEra::Modern => era::with_meta(params, &state.identity),
            _ => params,
        }
    }

    fn notification(&self, method: &str, object: &Map<String, Value>) {
        let mut message = Value::Object(object.clone());
        if method == "notifications/cancelled" {
            let host_id = object
                .get("params")
                .and_then(|params| params.get("requestId"))
                .map(Value::to_string);
            let forwarded = host_id.and_then(|host_id| {
                self.in_flight
                    .lock()
                    .expect("in-flight lock")
                    .get(&host_id)
                    .copied()
            });
            // Not in flight upstream (answered, or refused here): nothing to stop.
            let Some((index, upstream_id)) = forwarded else {
                return;
            };
            message["params"]["requestId"] = json!(upstream_id);
            if let Err(error) = self.upstream(index).send(&message) {
                tracing::warn!("dropped `{method}` for the upstream: {error}");
            }
            // A server does not answer what was cancelled: stop waiting for
            // it now, and answer the host nothing.
            if let Some(host_id) = object.get("params").and_then(|p| p.get("requestId")) {
                self.cancelled
                    .lock()
                    .expect("cancelled lock")
                    .insert(host_id.to_string());
            }
            self.upstream(index).forget(upstream_id);
            return;
        }
        if method == "notifications/initialized" {
            // The gateway opens each upstream itself, and says so itself.
            return;
        }
        for member in &self.members {
            if let Err(error) = member.upstream.send(&message) {
                tracing::warn!(
                    upstream = member.upstream.name(),
                    "dropped `{method}`: {error}"
                );
            }
        }
    }

    fn response(&self, id: &Value, mut message: Value) {
        let key = id
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| id.to_string());
        let waiter = self.waiters.lock().expect("waiters lock").remove(&key);
        self.related.lock().expect("related lock").remove(&key);
        match waiter {
            Some(HostWaiter::Upstream(index, upstream_id)) => {
                message["id"] = upstream_id;
                if let Err(error) = self.upstream(index).send(&message) {
                    tracing::warn!("dropped the host's answer for the upstream: {error}");
                }
            }
            Some(HostWaiter::Gateway(sender)) => {
                let _ = sender.send(message);
            }
            None => tracing::warn!("dropped a host response nobody waits for (id {id})"),
        }
    }
}
