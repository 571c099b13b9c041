//! One `tools/call`: its annotations from the best source, the profile and
//! the policy on them, a confirmation bound to the call when one is needed,
//! and the log entry, committed before the host gets its answer.

use std::sync::Arc;

use annot_runtime::client::{ProposedCall, Session, SessionConfig, Trust, Verdict};
use annot_runtime::protocol::{AUTHORIZATION_EXTENSION, DISPLAY_TEMPLATES_EXTENSION};
use annot_runtime::trust::TrustClaims;
use annot_runtime::{Annotations, Hint, Tool};
use serde_json::{Map, Value, json};

use crate::config::ConfirmMode;
use crate::confirm::{Question, RoundTrip};
use crate::digest;
use crate::gateway::Gateway;
use crate::message::{code, error_response, refusal};
use crate::sources::Listed;
use crate::store::{ApprovalRequest, CallRecord, Risk, StoreError};

mod annotations;

pub(crate) use annotations::Resolved;

/// How a call ended before its answer went out.
struct Ending {
    answer: Value,
    outcome: &'static str,
    claims: Option<TrustClaims>,
    /// The risk key's legs with the call's, for a call that ran.
    risk: Option<Risk>,
}

impl Gateway {
    pub(crate) async fn call_tool(self: Arc<Self>, id: Value, params: Value) {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let listed = match self.listed(name).await {
            Some(listed) => listed,
            None => {
                let answer = self.unknown_tool(&id, name);
                return self.to_host(&answer);
            }
        };
        let mut arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments.clone(),
            Some(_) => {
                return self.to_host(&error_response(
                    &id,
                    code::INVALID_PARAMS,
                    "`arguments` must be an object",
                ));
            }
        };
        if let Some((field, action)) = &listed.action {
            if arguments.contains_key(field) {
                return self.to_host(&error_response(
                    &id,
                    code::INVALID_PARAMS,
                    format!(
                        "`{name}` is one action of `{}`: leave `{field}` out",
                        listed.tool.name
                    ),
                ));
            }
            arguments.insert(field.clone(), json!(action));
        }
        let mut record = CallRecord {
            session: self.session_id.clone(),
            upstream: self.upstream(listed.upstream).name().to_owned(),
            tool: listed.tool.name.clone(),
            called_as: name.to_owned(),
            arguments_digest: digest::of(&Value::Object(arguments.clone())),
            arguments: self
                .settings
                .log_arguments
                .then(|| Value::Object(arguments.clone())),
            ..CallRecord::default()
        };
        let ending = self
            .decide_and_forward(&id, &params, &listed, arguments, &mut record)
            .await;
        record.outcome = ending.outcome.to_owned();
        record.claims = ending
            .claims
            .as_ref()
            .filter(|claims| !claims.is_empty())
            .map(|claims| serde_json::to_value(claims).expect("claims serialize"));
        let risk_key = self.risk_key(&id);
        let risk = ending.risk.as_ref().map(|risk| (risk_key.as_str(), risk));
        if let Err(error) = self.store().record(&record, risk).await {
            // A call the log cannot keep is not answered as if it were.
            tracing::error!("the decision log failed: {error}");
            return self.to_host(&error_response(
                &id,
                code::UPSTREAM_UNAVAILABLE,
                format!("the gateway's decision log failed, so the outcome is withheld: {error}"),
            ));
        }
        self.to_host(&ending.answer);
    }

    /// The call's one-line preview: the upstream's display template, else
    /// the configuration's `preview`.
    fn preview(&self, listed: &Listed, arguments: &Map<String, Value>) -> Option<String> {
        let mut tool = serde_json::to_value(&*listed.tool).expect("tools serialize");
        let own = annot_runtime::client::display::preview(&tool, arguments);
        own.or_else(|| {
            let state = self.state.lock().expect("state lock");
            let template = state.upstreams[listed.upstream]
                .rules
                .preview(&listed.tool.name)?;
            tool["_meta"] = json!({ DISPLAY_TEMPLATES_EXTENSION: {"template": template} });
            annot_runtime::client::display::preview(&tool, arguments)
        })
    }

    fn unknown_tool(&self, id: &Value, name: &str) -> Value {
        let state = self.state.lock().expect("state lock");
        match state.withheld.get(name) {
            Some(pinned) => error_response(
                id,
                code::INVALID_PARAMS,
                format!(
                    "`{name}` is withheld: its definition changed since it was pinned ({pinned}); \
                     an operator must accept it (`annot-gateway pins accept`)"
                ),
            ),
            None => error_response(
                id,
                code::INVALID_PARAMS,
                format!("unknown tool `{name}`: it is not in the gateway's `tools/list`"),
            ),
        }
    }

    async fn decide_and_forward(
        &self,
        id: &Value,
        params: &Value,
        listed: &Listed,
        arguments: Map<String, Value>,
        record: &mut CallRecord,
    ) -> Ending {
        let resolved = match self.resolve(listed, &arguments).await {
            Ok(resolved) => resolved,
            Err(answer) => {
                record.decision = "deny".into();
                record.reason = answer.1.clone();
                record.source = "upstream resolution".into();
                record.annotations = Value::Null;
                return Ending {
                    answer: error_with_id(id, answer.0),
                    outcome: "invalid-arguments",
                    claims: None,
                    risk: None,
                };
            }
        };
        record.annotations = annotations_json(resolved.annotations);
        record.source = resolved.source.clone();
        // Messages and the session name the tool as the host knows it.
        let shown = record.called_as.clone();
        let tool = &shown;
        let call = ProposedCall::new(tool, &arguments, resolved.annotations, Trust::Trusted);

        if let Err(violation) = self.settings.profile.check(&resolved.annotations) {
            let reason = format!(
                "annot-gateway refused `{tool}`: {violation}. The annotations come from {}.",
                resolved.source
            );
            return self.refuse(id, record, "deny", reason, &resolved, "profile");
        }
        if let Some(Err(why)) = self
            .caller(id)
            .map(|caller| caller.allows(&resolved.annotations))
        {
            let reason = format!(
                "annot-gateway refused `{tool}`: no scope of the caller's token lets it through \
                 ({why}). The annotations come from {}.",
                resolved.source
            );
            return self.refuse(id, record, "deny", reason, &resolved, "token scopes");
        }
        let schemes = resolved
            .security_schemes
            .clone()
            .or_else(|| listed_security_schemes(&listed.tool));
        if let (Some(caller), Some(schemes)) = (self.caller(id), schemes)
            && let Err(why) = caller.authorizes(&schemes)
        {
            let reason = format!(
                "annot-gateway refused `{tool}`: {why} (the upstream's `securitySchemes` for this \
                 call). The annotations come from {}.",
                resolved.source
            );
            return self.refuse(id, record, "deny", reason, &resolved, "token scopes");
        }
        // The legs every process recorded for this risk key, read now: a
        // session that read private data through another process counts.
        let mut session = match self.store().risk(&self.risk_key(id)).await {
            Ok(risk) => Session::resume(
                SessionConfig {
                    on_trifecta: self.settings.on_trifecta,
                    ..SessionConfig::default()
                },
                risk.private_data_from,
                risk.untrusted_content_from,
            ),
            Err(error) => return self.store_down(id, record, &resolved, &error),
        };
        let decision = session.review(&call, self.settings.policy.decide(&call));
        record.decision = verdict_name(decision.verdict()).into();
        record.reason = decision.to_string();
        match decision.verdict() {
            Verdict::Allow => {}
            Verdict::Deny => {
                let reason = format!(
                    "annot-gateway refused `{tool}`: {decision}. The annotations come from {}.",
                    resolved.source
                );
                return self.refuse(id, record, "deny", reason, &resolved, "policy");
            }
            Verdict::Confirm(_) => match self.settings.confirm {
                ConfirmMode::Host => record.confirmation = Some("left to the host".into()),
                ConfirmMode::Deny => {
                    let reason = format!(
                        "annot-gateway refused `{tool}`: it needs a person's confirmation \
                         ({decision}) and the gateway is set to refuse such calls \
                         (`confirm = \"deny\"`)."
                    );
                    return self.refuse(id, record, "confirm", reason, &resolved, "policy");
                }
                ConfirmMode::Ask | ConfirmMode::Page => {
                    let binding = json!({
                        "upstream": self.upstream(listed.upstream).name(),
                        "tool": listed.tool.name,
                        "arguments": Value::Object(arguments.clone()),
                        "annotations": annotations_json(resolved.annotations),
                    });
                    let preview = self.preview(listed, &arguments);
                    let question =
                        Question::new(&binding, tool, preview.as_deref(), &decision.to_string());
                    let answer = if self.page_decides(params) {
                        let arguments = Value::Object(arguments.clone());
                        let request = ApprovalRequest {
                            call_digest: question.digest,
                            risk_key: self.risk_key(id),
                            session: self.session_id.clone(),
                            upstream: record.upstream.clone(),
                            tool: listed.tool.name.clone(),
                            preview: preview.unwrap_or_else(|| format!("{tool} {arguments}")),
                            arguments,
                            annotations: annotations_json(resolved.annotations),
                            source: resolved.source.clone(),
                            reason: decision.to_string(),
                            ..ApprovalRequest::default()
                        };
                        self.confirm_on_page(request).await
                    } else if crate::era::is_modern("tools/call", params) {
                        match self.confirm_by_round_trip(question, params).await {
                            RoundTrip::Answered(answer) => answer,
                            RoundTrip::Ask(result) => {
                                record.confirmation = Some("asked (input required)".into());
                                return Ending {
                                    answer: json!({"jsonrpc": "2.0", "id": id, "result": result}),
                                    outcome: "input-required",
                                    claims: None,
                                    risk: None,
                                };
                            }
                        }
                    } else {
                        self.confirm(question).await
                    };
                    record.confirmation = Some(answer.describe());
                    if !answer.is_accepted() {
                        let reason = format!(
                            "annot-gateway refused `{tool}`: it needs a person's confirmation \
                             ({decision}) and {}.",
                            answer.describe()
                        );
                        return self.refuse(
                            id,
                            record,
                            "confirm",
                            reason,
                            &resolved,
                            "confirmation",
                        );
                    }
                }
            },
        }
        let mut forwarded = params.clone();
        if record
            .confirmation
            .as_deref()
            .is_some_and(|said| said.starts_with("accepted"))
            && let Some(forwarded) = forwarded.as_object_mut()
        {
            // The round trip was the gateway's own: the upstream never asked.
            forwarded.remove("requestState");
            forwarded.remove("inputResponses");
        }
        forwarded["name"] = json!(listed.tool.name);
        forwarded["arguments"] = Value::Object(arguments.clone());
        let modern = crate::era::is_modern("tools/call", params);
        let forwarded = self.upstream_params(listed.upstream, forwarded, modern);
        let mut answer = self
            .forward(listed.upstream, id, "tools/call", forwarded)
            .await;
        // The upstream's claims are honoured, and never below what the
        // call's annotations imply (trust-annotations' floors).
        let floor = TrustClaims::derived(&resolved.annotations.effective());
        let claims = answer.get_mut("result").map(|result| {
            let claims = TrustClaims::of_result(result).union(&floor);
            if let Some(result) = result.as_object_mut().filter(|_| !claims.is_empty()) {
                let meta = result.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    claims.write_meta(meta);
                }
            }
            claims
        });
        session.record(&call);
        if let Some(claims) = &claims {
            session.record_result(&call, claims);
        }
        let risk = Risk {
            private_data_from: session.private_data_from().map(str::to_owned),
            untrusted_content_from: session.untrusted_content_from().map(str::to_owned),
        };
        let outcome = match (answer.get("result"), answer.get("error")) {
            (Some(result), _) if result.get("isError") == Some(&json!(true)) => "tool-error",
            (Some(_), _) => "ok",
            (None, Some(error))
                if error.get("code") == Some(&json!(code::UPSTREAM_UNAVAILABLE)) =>
            {
                "upstream-failed"
            }
            (None, Some(error)) if error.get("code") == Some(&json!(code::REQUEST_CANCELLED)) => {
                "cancelled"
            }
            _ => "rpc-error",
        };
        Ending {
            answer,
            outcome,
            claims,
            risk: Some(risk),
        }
    }

    /// The key the trifecta's legs of request `id` are kept under: the
    /// token's subject (a person's sessions and requests without a session,
    /// in every process, share one risk), when it names one, else the
    /// configured key, else this gateway session.
    pub(crate) fn risk_key(&self, id: &Value) -> String {
        let subject = self.caller(id).and_then(|caller| caller.subject);
        match (subject, &self.settings.risk_key) {
            (Some(subject), _) => format!("subject:{subject}"),
            (None, Some(key)) => format!("key:{key}"),
            (None, None) => format!("session:{}", self.session_id),
        }
    }

    /// The refusal of a call whose risk the store could not give: without
    /// it the trifecta cannot be judged, so the gateway fails closed.
    fn store_down(
        &self,
        id: &Value,
        record: &mut CallRecord,
        resolved: &Resolved,
        error: &StoreError,
    ) -> Ending {
        tracing::error!("the store failed: {error}");
        let reason = format!(
            "annot-gateway refused `{}`: its store failed, so the session's risk is unknown \
             ({error})",
            record.called_as
        );
        self.refuse(id, record, "deny", reason, resolved, "store")
    }

    fn refuse(
        &self,
        id: &Value,
        record: &mut CallRecord,
        decision: &str,
        reason: String,
        resolved: &Resolved,
        by: &str,
    ) -> Ending {
        record.decision = decision.into();
        record.reason = reason.clone();
        let details = json!({
            "decision": decision,
            "by": by,
            "annotations": annotations_json(resolved.annotations),
            "source": resolved.source,
        });
        Ending {
            answer: json!({"jsonrpc": "2.0", "id": id, "result": refusal(reason, details)}),
            outcome: "refused",
            claims: None,
            risk: None,
        }
    }
}

fn error_with_id(id: &Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn verdict_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Allow => "allow",
        Verdict::Confirm(_) => "confirm",
        Verdict::Deny => "deny",
    }
}

/// The annotations as wire hints, defaults applied.
pub(crate) fn annotations_json(annotations: Annotations) -> Value {
    let annotations = annotations.effective();
    let mut object = Map::new();
    for hint in Hint::ALL {
        if let Some(value) = annotations.get(hint) {
            object.insert(hint.wire_name().to_owned(), json!(value));
        }
    }
    Value::Object(object)
}

/// The `securitySchemes` a tool was listed with: beside its annotations, or
/// under `_meta["dev.annot/authorization"]` for a host that took the
/// tool-resolution extension up.
fn listed_security_schemes(tool: &Tool) -> Option<Value> {
    tool.extra.get("securitySchemes").cloned().or_else(|| {
        tool.meta
            .as_ref()?
            .get(AUTHORIZATION_EXTENSION)?
            .get("securitySchemes")
            .cloned()
    })
}
