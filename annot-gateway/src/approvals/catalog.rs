//! Each upstream's tools as the gateway last listed them, for the page's
//! tool cards: the name the host sees, the description and the hints the
//! gateway lists (rules, audit and profile applied).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;

/// One tool card.
#[derive(Clone, Debug, Serialize)]
pub struct ToolCard {
    /// The name the host sees.
    pub name: String,
    /// The tool's title, else its description.
    pub description: String,
    /// Its listed annotations (wire names).
    pub annotations: Value,
}

/// The latest listing of every upstream, by upstream name.
#[derive(Default)]
pub struct ToolCatalog {
    upstreams: Mutex<BTreeMap<String, Vec<ToolCard>>>,
}

impl ToolCatalog {
    /// Keeps what a session was just listed of `upstream`.
    pub fn record(&self, upstream: &str, definitions: &[Value]) {
        let cards = definitions
            .iter()
            .map(|definition| ToolCard {
                name: text(definition, "name"),
                description: definition
                    .pointer("/annotations/title")
                    .or_else(|| definition.get("title"))
                    .or_else(|| definition.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                annotations: definition.get("annotations").cloned().unwrap_or_default(),
            })
            .collect();
        self.upstreams
            .lock()
            .expect("catalog lock")
            .insert(upstream.to_owned(), cards);
    }

    /// Every upstream's cards, by upstream name.
    pub fn upstreams(&self) -> BTreeMap<String, Vec<ToolCard>> {
        self.upstreams.lock().expect("catalog lock").clone()
    }
}

fn text(definition: &Value, key: &str) -> String {
    definition
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
