//! Where a call's annotations come from, and how the sources combine.
//!
//! In order of preference: the upstream's own resolution (checked against
//! its static annotations by the client preflight), the configuration's
//! rules, the upstream's static annotations. Over all of them, a hint an
//! audit saw violated is raised to what was observed. Silence never lowers
//! risk: a rule may raise any hint, and lowers one the upstream states only
//! where the configuration says `override = true` (every such call is
//! logged as an override).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use annot_runtime::rules::text::{CompileError, TextRules, ToolSpec};
use std::sync::Arc;

use annot_runtime::{Annotations, Hint, HttpMethod, Tool};
use serde_json::Value;

use crate::config::{ToolRules, annotations_of};

/// A tool's rules from the configuration, compiled.
pub struct CompiledRules {
    /// The compiled rules.
    pub rules: TextRules,
    /// The discriminator, for a multi-action tool.
    pub discriminator: Option<String>,
    /// Whether they may state hints lower than the upstream does.
    pub lowers: bool,
}

/// Why a tool's rules do not compile.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// A hint name or another setting is wrong.
    #[error("{0}")]
    Config(#[from] crate::config::ConfigError),
    /// The rules are not valid in the rule language.
    #[error("rules of `{tool}`: {source}")]
    Compile {
        /// The upstream tool.
        tool: String,
        /// The compiler's error, with line and column in the rule text.
        source: CompileError,
    },
}

/// Compiles `rules` for the upstream tool `tool`, whose `inputSchema` is
/// `schema` and whose static annotations are `declared`: a hint neither
/// the action nor the configured defaults state keeps the upstream's value.
pub fn compile(
    tool: &str,
    schema: &Value,
    rules: &ToolRules,
    declared: Annotations,
) -> Result<CompiledRules, RulesError> {
    let mut defaults = annotations_of(&rules.defaults, &format!("tools.{tool}.defaults"))?;
    for hint in Hint::ALL {
        if defaults.get(hint).is_none() {
            defaults = defaults.with(hint, declared.get(hint));
        }
    }
    let mut actions: Vec<(&str, Annotations, &str)> = Vec::new();
    for (name, action) in &rules.actions {
        let place = format!("tools.{tool}.actions.{name}.annotations");
        let annotations = annotations_of(&action.annotations, &place)?;
        actions.push((name, annotations, &action.rules));
    }
    let http = rules.preset.as_deref() == Some("http");
    if http {
        for method in HttpMethod::ALL {
            if !rules.actions.contains_key(method.as_str()) {
                actions.push((method.as_str(), method.inferred_annotations(), ""));
            }
        }
    }
    let discriminator = match (&rules.discriminator, http) {
        (Some(field), _) => Some(field.clone()),
        (None, true) => Some("method".to_owned()),
        (None, false) => None,
    };
    let mut spec = ToolSpec::new(tool, schema)
        .defaults(defaults)
        .rules(&rules.rules);
    if let Some(field) = &discriminator {
        spec = spec.discriminator(field);
    }
    for (name, annotations, text) in actions {
        spec = spec.action(name, annotations, text);
    }
    let compiled = spec.compile().map_err(|source| RulesError::Compile {
        tool: tool.to_owned(),
        source,
    })?;
    Ok(CompiledRules {
        rules: compiled,
        discriminator,
        lowers: rules.lowers,
    })
}

/// The hints an audit saw violated, per tool: each at its risky value.
#[derive(Clone, Debug, Default)]
pub struct AuditRaise {
    raised: HashMap<String, Vec<Hint>>,
}

impl AuditRaise {
    /// Reads an `annot-audit` JSON report: every `behaviour.*` finding with
    /// the verdict `VIOLATION` raises its hint on its tool.
    pub fn read(path: &Path) -> Result<AuditRaise, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        let report: Value = serde_json::from_str(&text)
            .map_err(|error| format!("{} is not JSON: {error}", path.display()))?;
        let findings = report
            .get("findings")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                format!(
                    "{} is not an annot-audit report (no findings)",
                    path.display()
                )
            })?;
        let mut raised: HashMap<String, Vec<Hint>> = HashMap::new();
        for finding in findings {
            let field = |name: &str| finding.get(name).and_then(Value::as_str).unwrap_or("");
            if field("verdict") != "VIOLATION" {
                continue;
            }
            let hint = match field("check") {
                "behaviour.read_only" => Hint::ReadOnly,
                "behaviour.non_destructive" => Hint::Destructive,
                "behaviour.idempotent" => Hint::Idempotent,
                "behaviour.closed_world" => Hint::OpenWorld,
                _ => continue,
            };
            let tool = field("subject").split('/').next().unwrap_or("").to_owned();
            raised.entry(tool).or_default().push(hint);
        }
        Ok(AuditRaise { raised })
    }

    /// `annotations` with every hint the audit saw violated on `tool` at its
    /// risky value.
    pub fn raise(&self, tool: &str, annotations: Annotations) -> Annotations {
        let mut raised = annotations.effective();
        for hint in self.raised.get(tool).into_iter().flatten() {
            raised = raised.with(*hint, Some(hint.risky_value()));
        }
        raised.effective()
    }

    /// Whether the audit raised anything on `tool`.
    pub fn touches(&self, tool: &str) -> bool {
        self.raised.contains_key(tool)
    }
}

/// The static annotations the upstream lists for `tool`.
pub fn declared(tool: &Tool) -> Annotations {
    tool.annotations
        .as_ref()
        .map(|annotations| annotations.hints())
        .unwrap_or_default()
}

/// What a rule-stated `stated` comes to beside the upstream's `declared`:
/// a hint the rules leave unstated keeps the upstream's value (as a
/// resolution's silence does, `docs/PROTOCOL.md` section 8); then the rules
/// stand where they may lower hints, and never go below `declared`
/// otherwise.
pub fn bounded(stated: Annotations, declared: Annotations, lowers: bool) -> Annotations {
    let mut filled = stated;
    for hint in Hint::ALL {
        if filled.get(hint).is_none() {
            filled = filled.with(hint, declared.get(hint));
        }
    }
    if lowers {
        filled.effective()
    } else {
        filled.join(declared)
    }
}

/// Whether `stated` is lower than `declared` anywhere (so needed the
/// override).
pub fn lowers_any(stated: Annotations, declared: Annotations) -> bool {
    bounded(stated, declared, false) != bounded(stated, declared, true)
}

/// The configuration's rules by upstream tool, compiled lazily: a tool's
/// `inputSchema` is known only once the upstream lists it.
#[derive(Default)]
pub struct RuleBook {
    config: BTreeMap<String, ToolRules>,
    compiled: HashMap<String, Arc<CompiledRules>>,
}

impl RuleBook {
    /// The configuration's rules, not yet compiled.
    pub fn new(config: BTreeMap<String, ToolRules>) -> Self {
        RuleBook {
            config,
            compiled: HashMap::new(),
        }
    }

    /// The compiled rules of `tool` (compiled against its `inputSchema` and
    /// static annotations the first time), `None` when the configuration has
    /// none.
    pub fn for_tool(&mut self, tool: &Tool) -> Result<Option<Arc<CompiledRules>>, RulesError> {
        let name = tool.name.as_str();
        if let Some(compiled) = self.compiled.get(name) {
            return Ok(Some(Arc::clone(compiled)));
        }
        // An entry that only sets a preview leaves the hints to the upstream.
        let Some(rules) = self.config.get(name).filter(|rules| rules.has_rules()) else {
            return Ok(None);
        };
        let compiled = Arc::new(compile(name, &tool.input_schema, rules, declared(tool))?);
        self.compiled.insert(name.to_owned(), Arc::clone(&compiled));
        Ok(Some(compiled))
    }

    /// The configured call preview of `tool`, if any.
    pub fn preview(&self, tool: &str) -> Option<&str> {
        self.config.get(tool)?.preview.as_deref()
    }
}

/// What a name listed to the host stands for.
#[derive(Clone)]
pub(crate) struct Listed {
    /// The upstream's position.
    pub upstream: usize,
    /// The upstream tool, as the upstream listed it.
    pub tool: Arc<Tool>,
    /// For a per-action tool: the discriminator and the action.
    pub action: Option<(String, String)>,
    /// The configuration's rules for the tool, or why they do not compile.
    pub rules: Result<Option<Arc<CompiledRules>>, String>,
}

#[cfg(test)]
mod tests {
    use annot_runtime::Annotations;
    use serde_json::json;

    use super::compile;
    use crate::config::ToolRules;

    fn http_tool(extra: &str) -> super::CompiledRules {
        let schema = json!({
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]},
                "url": {"type": "string"},
            },
            "required": ["method", "url"],
        });
        let rules: ToolRules = toml::from_str(&format!("preset = \"http\"\n{extra}")).unwrap();
        let declared = Annotations::new().open_world(true);
        compile("http_request", &schema, &rules, declared).unwrap()
    }

    fn resolved(rules: &super::CompiledRules, method: &str) -> Annotations {
        let call = json!({"method": method, "url": "https://example.com/"});
        rules
            .rules
            .evaluate(&call)
            .unwrap()
            .annotations()
            .effective()
    }

    /// Seed 002's table, written out by hand.
    #[test]
    fn the_http_preset_gives_each_method_seed_002s_hints() {
        let rules = http_tool("");
        let table = [
            ("GET", true, false, true),
            ("HEAD", true, false, true),
            ("OPTIONS", true, false, true),
            ("POST", false, false, false),
            ("PUT", false, false, true),
            ("PATCH", false, false, false),
            ("DELETE", false, true, true),
        ];
        for (method, read_only, destructive, idempotent) in table {
            let hints = resolved(&rules, method);
            let got = (hints.read_only, hints.destructive, hints.idempotent);
            assert_eq!(
                got,
                (Some(read_only), Some(destructive), Some(idempotent)),
                "{method}"
            );
            assert_eq!(
                hints.open_world,
                Some(true),
                "{method} keeps the upstream's open world"
            );
        }
    }

    #[test]
    fn an_action_written_out_replaces_the_presets() {
        let rules =
            http_tool("actions.DELETE.annotations = { read_only = false, destructive = false }\n");
        assert_eq!(resolved(&rules, "DELETE").destructive, Some(false));
        assert_eq!(resolved(&rules, "GET").read_only, Some(true));
    }
}
