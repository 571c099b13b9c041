//! What a profile costs per request: `tools/call` and `tools/annotations` of
//! `manage_files` through `Connection::handle`, on a server without a profile
//! and on one with `no_privileged` (every action kept, each call and
//! resolution checked). The calls read a file off system paths, so both
//! servers run the handler; a call under the profile resolves its arguments
//! once more before the handler.

mod support;

use std::hint::black_box;

use annot::server::{Connection, Profile, Server, ToolOutput};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

use support::manage_files::ManageFiles;

fn connection(profile: Profile) -> Connection {
    let server = Server::builder("bench", "0.1.0")
        .profile(profile)
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .build()
        .expect("the bench's server is valid");
    let mut connection = server.connect();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0.1.0"}}
    });
    connection
        .handle(initialize.to_string().as_bytes())
        .expect("initialize is answered");
    connection.handle(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    connection
}

fn profiles(c: &mut Criterion) {
    let mut group = c.benchmark_group("profiles");
    for method in ["tools/call", "tools/annotations"] {
        let request = json!({
            "jsonrpc": "2.0", "id": 1, "method": method,
            "params": {"name": "manage_files",
                       "arguments": {"action": "read", "path": "notes/today.txt"}}
        })
        .to_string();
        for (name, profile) in [
            ("none", Profile::any()),
            ("no_privileged", Profile::no_privileged()),
        ] {
            let mut connection = connection(profile);
            let answer = connection.handle(request.as_bytes()).expect("answered");
            assert!(!String::from_utf8_lossy(&answer).contains("refused"));
            group.bench_function(format!("{method}, profile {name}"), |b| {
                b.iter(|| black_box(connection.handle(black_box(request.as_bytes()))));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, profiles);
criterion_main!(benches);
