//! Prints what `#[mcp_tool]` derived for `manage_files`: the static worst case
//! advertised by `tools/list`, the `inputSchema`, and the resolution of a few
//! argument sets.
//!
//! ```sh
//! cargo run --example describe
//! ```

#[path = "tools/manage_files.rs"]
mod manage_files;

use annot::AnnotatedTool;
use manage_files::ManageFiles;
use serde_json::{Value, json};

fn main() {
    println!("static annotations (tools/list):");
    println!("  {}", ManageFiles::STATIC_ANNOTATIONS);

    let schema: Value = serde_json::from_str(ManageFiles::input_schema())
        .expect("the generated inputSchema is JSON");
    println!("\ninputSchema:");
    let pretty = serde_json::to_string_pretty(&schema).expect("a Value serializes");
    for line in pretty.lines() {
        println!("  {line}");
    }

    println!("\nresolutions (tools/resolve):");
    let samples = [
        json!({"action": "read", "path": "notes.txt"}),
        json!({"action": "append", "path": "notes.txt", "content": "hi"}),
        json!({"action": "delete", "path": "notes.txt"}),
        json!({"action": "read", "path": "/etc/shadow"}),
        json!({"action": "delete"}),
    ];
    for arguments in samples {
        match ManageFiles::from_arguments(&arguments) {
            Ok(call) => println!("  {arguments}\n    -> {}", call.resolve()),
            Err(error) => println!("  {arguments}\n    -> invalid arguments: {error}"),
        }
    }
}
