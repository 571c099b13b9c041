//! Opening each upstream in its own era, once, and answering the host's
//! opening (`initialize`, or a 2026-07-28 host's `server/discover`) from
//! what the upstreams said.

use std::sync::Arc;
use std::time::Duration;

use annot_runtime::client::{ClientExtension, ResolutionSupport};
use annot_runtime::protocol::{
    LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION, SERVER_INFO_META, SUPPORTED_PROTOCOL_VERSIONS,
};
use serde_json::{Value, json};

use crate::era::{self, UpstreamEra};
use crate::gateway::Gateway;
use crate::message::{code, error_response, result_response};

/// How long an upstream may take to say whether it answers
/// `server/discover`: one that ignores unknown methods is then opened with
/// `initialize`, which a slow starter still answers.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

impl Gateway {
    /// Opens upstream `index` if it is not open yet: `server/discover`
    /// first, `initialize` (with the host's identity) when it is not a
    /// 2026-07-28 server. Returns what an `initialize` result of it reads
    /// like, for the host's `initialize` answer.
    pub(crate) async fn ensure_upstream(&self, index: usize) -> Result<Value, String> {
        let _opening = self.members[index].opening.lock().await;
        let (era, hello, identity, requested) = {
            let state = self.state.lock().expect("state lock");
            let upstream = &state.upstreams[index];
            (
                upstream.era.clone(),
                upstream.hello.clone(),
                state.identity.clone(),
                state.requested_version.clone(),
            )
        };
        if era != UpstreamEra::Unknown {
            return hello.ok_or_else(|| "the upstream could not be opened".to_owned());
        }
        let upstream = Arc::clone(self.upstream(index));
        let probe = upstream
            .send_request(
                upstream.allocate_id(),
                "server/discover",
                era::with_meta(json!({}), &identity),
            )
            .map_err(|error| error.to_string())?;
        let discovered = probe
            .wait_at_most(PROBE_TIMEOUT.min(self.settings.timeout))
            .await
            .ok()
            .and_then(|response| response.get("result").cloned())
            .filter(|result| {
                result["supportedVersions"]
                    .as_array()
                    .is_some_and(|versions| versions.iter().any(|v| v == MODERN_PROTOCOL_VERSION))
            });
        let (era, support, hello) = match discovered {
            Some(result) => {
                let hello = json!({
                    "protocolVersion": era::negotiated(requested.as_deref()),
                    "capabilities": result["capabilities"],
                    "serverInfo": result["_meta"][SERVER_INFO_META].as_object().map_or_else(
                        || json!({"name": upstream.name(), "version": "unknown"}),
                        |info| json!(info),
                    ),
                    "instructions": result["instructions"],
                });
                (UpstreamEra::Modern, identity.support(&result), hello)
            }
            None => {
                let version = requested.as_deref().unwrap_or(LATEST_PROTOCOL_VERSION);
                let params = identity.initialize_params(version);
                upstream.remember_handshake(params.clone());
                let id = upstream.allocate_id();
                let response = upstream
                    .request(id, "initialize", params)
                    .await
                    .map_err(|error| error.to_string())?;
                let Some(result) = response.get("result").cloned() else {
                    return Err(format!(
                        "the upstream refused `initialize`: {}",
                        response["error"]
                    ));
                };
                let _ = upstream.notify("notifications/initialized", json!({}));
                let support =
                    ResolutionSupport::from_initialize_result(&result, ClientExtension::Initialize)
                        .with_client(identity.client_info());
                (UpstreamEra::Legacy, support, result)
            }
        };
        let mut hello = hello;
        if let Some(object) = hello.as_object_mut() {
            object.retain(|_, value| !value.is_null());
        }
        tracing::info!(upstream = upstream.name(), "opened in the {era:?} era");
        let mut state = self.state.lock().expect("state lock");
        if let Some(declared) = hello["capabilities"].as_object() {
            crate::route::merge_into(&mut state.capabilities, declared);
        }
        let opened = &mut state.upstreams[index];
        opened.era = era;
        opened.support = support;
        opened.hello = Some(hello.clone());
        Ok(hello)
    }

    /// Opens every upstream.
    pub(crate) async fn ensure_upstreams(&self) -> Vec<Result<Value, String>> {
        let mut opened = Vec::new();
        for index in 0..self.members.len() {
            opened.push(self.ensure_upstream(index).await);
        }
        opened
    }

    /// Answers a legacy host's `initialize`.
    pub(crate) async fn initialize(self: Arc<Self>, id: Value) {
        let opened = self.ensure_upstreams().await;
        let answers: Vec<Value> = opened
            .into_iter()
            .map(|hello| match hello {
                Ok(result) => result_response(&id, result),
                Err(why) => error_response(&id, code::UPSTREAM_UNAVAILABLE, why),
            })
            .collect();
        let mut answer = if self.members.len() == 1 {
            answers.into_iter().next().expect("one answer")
        } else {
            self.merged_initialize(&id, &answers)
        };
        if let Some(result) = answer.get_mut("result") {
            Gateway::offer_resolution(result);
        }
        self.to_host(&answer);
    }

    /// Answers a 2026-07-28 host's `server/discover` from what the
    /// upstreams declared.
    pub(crate) async fn discover(self: Arc<Self>, id: Value) {
        self.ensure_upstreams().await;
        let capabilities = self.state.lock().expect("state lock").capabilities.clone();
        let mut result = json!({
            "supportedVersions": SUPPORTED_PROTOCOL_VERSIONS,
            "capabilities": capabilities,
        });
        Gateway::offer_resolution(&mut result);
        self.to_host(&result_response(&id, result));
    }
}
