//! What the benches share: the example tools, the hand-written code each one
//! is measured against, and inputs that mix every action.

#![allow(dead_code)] // Each bench uses a different part.

#[path = "../../examples/tools/http_api.rs"]
pub mod http_api;
pub mod interpreter;
pub mod keyword_sql;
pub mod limits;
#[path = "../../examples/tools/manage_files.rs"]
pub mod manage_files;

use std::time::Duration;

use annot::AnnotatedTool;
use criterion::Criterion;
use serde_json::{Value, json};

/// Criterion's settings for benches of many small functions (benches/rules.rs,
/// benches/sql.rs): each is measured in nanoseconds to microseconds, so half a
/// second of warm-up and two of measurement over 50 samples settle it while
/// keeping a whole run within minutes.
pub fn short_runs() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

/// How many inputs one iteration goes through: enough that every action
/// appears many times and the order cannot be learnt as one short pattern.
pub const MIX: usize = 256;

/// `count` indices below `len` in a fixed pseudo-random order (xorshift), each
/// index equally often, so branch prediction sees a realistic mix.
pub fn mixed_indices(len: usize, count: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..count).map(|i| i % len).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..indices.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        indices.swap(i, (state % (i as u64 + 1)) as usize);
    }
    indices
}

/// Valid `manage_files` arguments: each action on an ordinary path and on a
/// system path, which its rule catches.
pub fn manage_files_arguments() -> Vec<Value> {
    ["notes/2026/report.txt", "/etc/hosts"]
        .iter()
        .flat_map(|path| {
            [
                json!({"action": "read", "path": path}),
                json!({"action": "append", "path": path, "content": "One more line.\n"}),
                json!({"action": "replace", "path": path, "content": "All new.\n"}),
                json!({"action": "delete", "path": path}),
            ]
        })
        .collect()
}

/// Valid `http_request` arguments for each method.
pub fn http_api_arguments() -> Vec<Value> {
    ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
        .iter()
        .map(|method| match *method {
            "GET" | "HEAD" | "OPTIONS" | "DELETE" => {
                json!({"method": method, "path": "/v1/orders/42"})
            }
            _ => json!({
                "method": method,
                "path": "/v1/orders/42",
                "headers": {"content-type": "application/json"},
                "body": "{\"quantity\":3}",
                "timeout_seconds": 10
            }),
        })
        .collect()
}

/// Panics unless `arguments` name every action of `T`, so that a bench
/// cannot leave an action out.
pub fn assert_every_action<T: AnnotatedTool>(arguments: &[Value]) {
    for action in T::ACTIONS {
        assert!(
            arguments
                .iter()
                .any(|arguments| T::DISCRIMINATOR
                    .is_none_or(|field| arguments[field] == action.name)),
            "no arguments for the action `{}` of `{}`",
            action.name,
            T::NAME
        );
    }
}

/// [`MIX`] arguments drawn from `per_action` in mixed order.
pub fn mixed(per_action: &[Value]) -> Vec<Value> {
    mixed_indices(per_action.len(), MIX)
        .into_iter()
        .map(|index| per_action[index].clone())
        .collect()
}
