//! `[tools.NAME]`: an upstream tool's rules, in the language of `#[annotate]`.

use std::collections::BTreeMap;

use annot_runtime::{Annotations, Hint};
use serde::Deserialize;

use super::ConfigError;

/// Rules for one upstream tool, in the language of `#[annotate]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRules {
    /// The argument that names the action, for a multi-action tool.
    pub discriminator: Option<String>,
    /// The tool's annotations before any rule (attribute names:
    /// `read_only = true`).
    #[serde(default)]
    pub defaults: BTreeMap<String, bool>,
    /// Rules over every action.
    #[serde(default)]
    pub rules: String,
    /// Each action's annotations and rules.
    #[serde(default)]
    pub actions: BTreeMap<String, ActionRules>,
    /// Lets these rules state a hint lower than the upstream or an audit
    /// states. Every call that uses it is logged as an override.
    #[serde(default, rename = "override")]
    pub lowers: bool,
    /// A preset of actions: `"http"` gives each HTTP method (the value of the
    /// discriminator, `method` unless set) seed 002's hints: `GET`, `HEAD`
    /// and `OPTIONS` read-only, `PUT` idempotent, `DELETE` destructive.
    /// Actions written out replace the preset's.
    pub preset: Option<String>,
    /// The call preview a confirmation shows, as a display-templates
    /// template (`"write {path}"`), where the upstream gives none.
    pub preview: Option<String>,
}

impl ToolRules {
    /// Checks what can be checked before the upstream lists the tool: hint
    /// names and the preset.
    pub fn check(&self, tool: &str) -> Result<(), ConfigError> {
        annotations_of(&self.defaults, &format!("tools.{tool}.defaults"))?;
        for (action, rules) in &self.actions {
            let place = format!("tools.{tool}.actions.{action}.annotations");
            annotations_of(&rules.annotations, &place)?;
        }
        match self.preset.as_deref() {
            None | Some("http") => Ok(()),
            Some(other) => Err(ConfigError::Invalid(format!(
                "tools.{tool}.preset: unknown preset `{other}` (the one preset is `http`)"
            ))),
        }
    }

    /// Whether the entry says anything about annotations (it may only set a
    /// preview).
    pub fn has_rules(&self) -> bool {
        self.discriminator.is_some()
            || self.preset.is_some()
            || !self.defaults.is_empty()
            || !self.rules.trim().is_empty()
            || !self.actions.is_empty()
    }
}

/// One action of a multi-action upstream tool.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRules {
    /// The action's annotations (attribute names).
    #[serde(default)]
    pub annotations: BTreeMap<String, bool>,
    /// Rules over this action's arguments.
    #[serde(default)]
    pub rules: String,
}

/// Annotations from a table of attribute names (`read_only = true`).
pub fn annotations_of(
    table: &BTreeMap<String, bool>,
    place: &str,
) -> Result<Annotations, ConfigError> {
    table
        .iter()
        .try_fold(Annotations::new(), |annotations, (name, value)| {
            let hint = Hint::from_attribute_name(name).ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "{place}: unknown hint `{name}` (hints are spelled as in `#[annotate]`: \
                     read_only, destructive, idempotent, open_world, ...)"
                ))
            })?;
            Ok(annotations.with(hint, Some(*value)))
        })
}
