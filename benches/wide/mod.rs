//! Tools of 4, 16, 64 and 256 actions, and their arguments.

#![allow(dead_code)] // Each bench uses a different part.

mod tools;

use annot::AnnotatedTool;
use serde_json::{Value, json};

pub use tools::*;

/// Valid arguments for each action of `T`, in declaration order.
pub fn arguments<T: AnnotatedTool>() -> Vec<Value> {
    T::ACTIONS
        .iter()
        .map(|action| json!({"action": action.name, "target": "orders/42"}))
        .collect()
}
