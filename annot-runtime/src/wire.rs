//! `ToolAnnotations` as it travels: owned, and keeping fields it does not know.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Annotations, Hint};

/// The `annotations` object of a Tool as read from or written to the wire.
///
/// Unlike [`Annotations`], it owns its title and keeps every field it does not
/// know (for example a namespaced `com.example/cost`) in [`extra`](Self::extra), so
/// a proxy that reads and re-sends annotations loses nothing.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::ToolAnnotations;
///
/// let json = r#"{"readOnlyHint":true,"com.example/cost":{"usd":0.1}}"#;
/// let annotations: ToolAnnotations = serde_json::from_str(json).unwrap();
/// assert_eq!(annotations.hints().read_only, Some(true));
/// assert_eq!(serde_json::to_string(&annotations).unwrap(), json);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `readOnlyHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// `aiProcessingHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_processing_hint: Option<bool>,
    /// `slowExecutionHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_execution_hint: Option<bool>,
    /// `resourceIntensiveHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_intensive_hint: Option<bool>,
    /// `sensitiveDataHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive_data_hint: Option<bool>,
    /// `privilegedAccessHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privileged_access_hint: Option<bool>,
    /// `reversibleHint` (SEP-1984).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reversible_hint: Option<bool>,
    /// Every other field, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolAnnotations {
    /// The ten hints, without title or extra fields.
    pub fn hints(&self) -> Annotations {
        Annotations {
            title: None,
            read_only: self.read_only_hint,
            destructive: self.destructive_hint,
            idempotent: self.idempotent_hint,
            open_world: self.open_world_hint,
            ai_processing: self.ai_processing_hint,
            slow_execution: self.slow_execution_hint,
            resource_intensive: self.resource_intensive_hint,
            sensitive_data: self.sensitive_data_hint,
            privileged_access: self.privileged_access_hint,
            reversible: self.reversible_hint,
        }
    }

    /// The value of one hint.
    pub fn get(&self, hint: Hint) -> Option<bool> {
        self.hints().get(hint)
    }
}

impl From<Annotations> for ToolAnnotations {
    fn from(a: Annotations) -> Self {
        ToolAnnotations {
            title: a.title.map(str::to_owned),
            read_only_hint: a.read_only,
            destructive_hint: a.destructive,
            idempotent_hint: a.idempotent,
            open_world_hint: a.open_world,
            ai_processing_hint: a.ai_processing,
            slow_execution_hint: a.slow_execution,
            resource_intensive_hint: a.resource_intensive,
            sensitive_data_hint: a.sensitive_data,
            privileged_access_hint: a.privileged_access,
            reversible_hint: a.reversible,
            extra: Map::new(),
        }
    }
}

/// A Tool as listed by `tools/list` or returned by `tools/resolve` (SEP-1862).
///
/// Fields this crate does not model (`icons`, `outputSchema`, future ones) are
/// kept in [`extra`](Self::extra).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root has `"type": "object"`.
    pub input_schema: Value,
    /// Behaviour hints; for a resolvable tool, the worst case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Dialect A marker: the tool answers `tools/annotations`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_annotations: Option<bool>,
    /// Dialect B marker (SEP-1862): the tool answers `tools/resolve` with a Tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve: Option<bool>,
    /// `_meta`; dialect C marks a resolvable tool here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Every other field, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_hint_and_unknown_fields() {
        let json = serde_json::json!({
            "title": "Files",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
            "aiProcessingHint": true,
            "slowExecutionHint": false,
            "resourceIntensiveHint": true,
            "sensitiveDataHint": true,
            "privilegedAccessHint": false,
            "reversibleHint": false,
            "com.example/cost": {"usd": 0.25},
            "futureHint": true
        });
        let parsed: ToolAnnotations = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(parsed.extra.len(), 2);
        assert_eq!(parsed.get(Hint::Reversible), Some(false));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json);
    }

    #[test]
    fn agrees_with_the_const_model() {
        let a = Annotations::new()
            .title("t")
            .read_only(false)
            .privileged_access(true);
        let wire = ToolAnnotations::from(a);
        assert_eq!(
            serde_json::to_value(&wire).unwrap(),
            serde_json::to_value(a).unwrap()
        );
        assert_eq!(wire.hints(), Annotations { title: None, ..a });
    }

    #[test]
    fn tool_keeps_unknown_fields() {
        let json = serde_json::json!({
            "name": "manage_files",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": false},
            "resolve": true,
            "_meta": {"io.modelcontextprotocol/tool-resolution": {"resolvable": true}},
            "icons": [{"src": "https://example.com/i.png"}]
        });
        let tool: Tool = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(tool.resolve, Some(true));
        assert!(tool.extra.contains_key("icons"));
        assert_eq!(serde_json::to_value(&tool).unwrap(), json);
    }

    #[test]
    fn rejects_a_hint_of_the_wrong_type() {
        let error = serde_json::from_str::<ToolAnnotations>(r#"{"readOnlyHint":"yes"}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("expected a boolean"), "{error}");
    }
}
