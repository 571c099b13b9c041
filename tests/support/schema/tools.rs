//! Tools that exercise the schema builder: every field type annot maps by
//! itself, a field two actions type differently, both shapes, one action.

use std::collections::{BTreeMap, HashMap};

use annot::mcp_tool;

/// Declares the mixed tool as `$name`, with `#[mcp_tool]` options beyond
/// `open_world = false`: one declaration for both schema shapes, so the two
/// tools cannot drift apart.
macro_rules! mixed_tool {
    ($(#[$outer:meta])* $name:ident, $($option:tt)*) => {
        $(#[$outer])*
        #[mcp_tool(open_world = false, $($option)*)]
        #[serde(rename_all = "snake_case")]
        #[allow(dead_code)]
        #[derive(Debug)]
        pub enum $name {
            /// Look something up.
            #[annotate(read_only)]
            Find {
                /// What to look for.
                target: String,
                limit: Option<u16>,
                tags: Vec<String>,
            },
            /// Store values.
            #[annotate(destructive = false)]
            Store {
                /// The slot number.
                target: u32,
                values: HashMap<String, i64>,
                extra: Option<serde_json::Value>,
                flags: BTreeMap<String, Option<bool>>,
            },
            #[annotate(destructive, idempotent)]
            Mark { letter: char, weight: f64 },
            #[annotate(read_only)]
            Ping,
        }
    };
}

mixed_tool! {
    /// Every field type annot maps by itself, and one field two actions type
    /// differently.
    Mixed,
}

mixed_tool! {
    /// The same tool, its schema exact.
    MixedExact, schema = "exact"
}

/// One action: the flat object is exact.
#[mcp_tool(read_only, open_world = false)]
#[allow(dead_code)]
pub enum Lookup {
    #[annotate]
    Get {
        key: String,
        default: Option<String>,
    },
}
