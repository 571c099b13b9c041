//! A call's annotations from the best source: the upstream's resolution of
//! these arguments, else the configuration's rules, else the static
//! annotations, each raised where an audit saw a violation.

use std::sync::Arc;

use annot_runtime::Annotations;
use annot_runtime::client::{PreflightError, RequestError, Requester};
use annot_runtime::protocol::RpcError;
use serde_json::{Map, Value, json};

use super::annotations_json;
use crate::gateway::Gateway;
use crate::sources::{self, Listed};
use crate::upstream::Upstream;

/// A call's annotations and where they came from.
pub(crate) struct Resolved {
    pub annotations: Annotations,
    pub source: String,
    /// The scopes the call needs, as the upstream resolved them for these
    /// arguments (`None`: the listing's, the worst case, hold).
    pub security_schemes: Option<Value>,
}

impl Gateway {
    /// The call's annotations: the upstream's resolution, the rules, or the
    /// static annotations, raised by the audit. `Err` carries the error to
    /// answer when the upstream says the arguments are invalid.
    pub(crate) async fn resolve(
        &self,
        listed: &Listed,
        arguments: &Map<String, Value>,
    ) -> Result<Resolved, (Value, String)> {
        let tool = &listed.tool;
        let declared = sources::declared(tool);
        let support = self.state.lock().expect("state lock").upstreams[listed.upstream]
            .support
            .clone();
        let raise = |annotations| self.audit().raise(&tool.name, annotations);
        let audited = if self.audit().touches(&tool.name) {
            ", raised where the audit saw a violation"
        } else {
            ""
        };
        if support.dialect_for(tool).is_ok() {
            let upstream = Arc::clone(self.upstream(listed.upstream));
            let (tool, arguments) = (Arc::clone(tool), arguments.clone());
            let handle = tokio::runtime::Handle::current();
            let preflight = tokio::task::spawn_blocking(move || {
                let mut requester = UpstreamRequester { upstream, handle };
                support.preflight(&mut requester, &tool, &arguments)
            })
            .await
            .expect("the preflight does not panic");
            return match preflight {
                Ok(preflight) => Ok(Resolved {
                    annotations: raise(preflight.annotations()),
                    source: format!("the upstream ({}){audited}", preflight.source),
                    security_schemes: preflight.security_schemes,
                }),
                Err(PreflightError::InvalidParams { error, .. }) => {
                    let message = error.message.clone();
                    Err((
                        serde_json::to_value(&error).expect("errors serialize"),
                        message,
                    ))
                }
                Err(error) => Ok(Resolved {
                    annotations: raise(declared),
                    source: format!("the upstream's static annotations ({error}){audited}"),
                    security_schemes: None,
                }),
            };
        }
        match &listed.rules {
            Ok(Some(compiled)) => {
                match compiled.rules.evaluate(&Value::Object(arguments.clone())) {
                    Ok(outcome) => {
                        let stated = outcome.annotations();
                        let overridden = compiled.lowers && sources::lowers_any(stated, declared);
                        if overridden {
                            let detail = json!({"tool": tool.name,
                                "stated": annotations_json(stated),
                                "upstream": annotations_json(declared.effective())});
                            let _ = self
                                .store()
                                .event(
                                    self.upstream(listed.upstream).name(),
                                    "override",
                                    &detail.to_string(),
                                )
                                .await;
                        }
                        Ok(Resolved {
                            annotations: raise(sources::bounded(stated, declared, compiled.lowers)),
                            source: format!(
                                "the configuration's rules{}{audited}",
                                if overridden {
                                    " (overriding the upstream's hints)"
                                } else {
                                    ""
                                }
                            ),
                            security_schemes: None,
                        })
                    }
                    Err(error) => Ok(Resolved {
                        annotations: raise(compiled.rules.static_annotations().join(declared)),
                        source: format!(
                            "the worst case of the configuration's rules (they could not read the \
                         arguments: {error}){audited}"
                        ),
                        security_schemes: None,
                    }),
                }
            }
            Err(error) => Ok(Resolved {
                annotations: Annotations::worst(),
                source: format!(
                    "the worst case (the configuration's rules do not compile: {error})"
                ),
                security_schemes: None,
            }),
            Ok(None) => Ok(Resolved {
                annotations: raise(declared).effective(),
                source: format!("the upstream's static annotations{audited}"),
                security_schemes: None,
            }),
        }
    }
}

/// The client preflight's view of the upstream: one request at a time, from
/// a blocking thread.
struct UpstreamRequester {
    upstream: Arc<Upstream>,
    handle: tokio::runtime::Handle,
}

impl Requester for UpstreamRequester {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        let id = self.upstream.allocate_id();
        let response = self
            .handle
            .block_on(self.upstream.request(id, method, params))
            .map_err(RequestError::transport)?;
        if let Some(error) = response.get("error") {
            let error: RpcError = serde_json::from_value(error.clone())
                .map_err(|error| RequestError::transport(format!("a malformed error: {error}")))?;
            return Err(RequestError::Rpc(error));
        }
        response
            .get("result")
            .cloned()
            .ok_or_else(|| RequestError::transport("a response with neither result nor error"))
    }
}
