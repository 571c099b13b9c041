//! Whole requests: request bytes to response bytes through
//! `Connection::handle_into` (into one buffer kept for every answer, as the
//! stdio server keeps it), for `tools/resolve` and `tools/annotations` in each
//! dialect and `tools/call` of the same arguments, next to `tools/list` (a pre-rendered page: the floor of any
//! request) on the same connection.
//!
//! Each iteration answers one request; the resolution requests cycle through
//! every action of `manage_files`.
//!
//! Beside `tools/list` and the extension's `tools/resolve` (negotiated in
//! `initialize`, and per request at 2026-07-28) stands their floor: reading the
//! same request once with `serde_json::from_slice::<serde::de::IgnoredAny>`
//! and copying the same response bytes into a kept buffer, the least any
//! server must do; and,
//! beside the extension's `tools/resolve`, the part of it that is the tool's
//! own: reading the same arguments' text and resolving them, through the
//! entry point the server calls (`evaluate_arguments_str` of the tool's
//! generated table, the borrowing path).

mod support;

use std::hint::black_box;

use annot::AnnotatedTool;
use annot::server::{Connection, Server, ToolOutput};
use criterion::{Criterion, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use support::http_api::HttpApi;
use support::manage_files::ManageFiles;

fn server() -> Server {
    Server::builder("bench", "0.1.0")
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .tool(|_: HttpApi| Ok(ToolOutput::text("sent")))
        .build()
        .expect("the bench's server is valid")
}

/// A connection after `initialize` with these client capabilities.
fn initialized(server: &Server, capabilities: Value) -> Connection {
    let mut connection = server.connect();
    let initialize = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "bench", "version": "0.1.0"}
        }
    });
    let response = connection.handle(initialize.to_string().as_bytes());
    assert!(response.is_some_and(|response| contains(&response, b"\"result\"")));
    connection.handle(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    connection
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// One request per action of `manage_files`, as bytes.
fn resolve_requests(method: &str) -> Vec<Vec<u8>> {
    support::manage_files_arguments()
        .into_iter()
        .enumerate()
        .map(|(id, arguments)| {
            json!({
                "jsonrpc": "2.0",
                "id": id + 1,
                "method": method,
                "params": {"name": "manage_files", "arguments": arguments}
            })
            .to_string()
            .into_bytes()
        })
        .collect()
}

/// The extension's `tools/resolve` of two tools in turn (`manage_files` and
/// `http_request`), so that no request comes in the envelope of the one
/// before: what a connection remembers of the last envelope never serves.
fn two_tools_requests() -> Vec<Vec<u8>> {
    let files = support::manage_files_arguments();
    let http = support::http_api_arguments();
    files
        .iter()
        .zip(http.iter().cycle())
        .flat_map(|(files, http)| [("manage_files", files), ("http_request", http)])
        .enumerate()
        .map(|(id, (name, arguments))| {
            json!({
                "jsonrpc": "2.0",
                "id": id + 1,
                "method": "tools/resolve",
                "params": {"name": name, "arguments": arguments}
            })
            .to_string()
            .into_bytes()
        })
        .collect()
}

/// The extension's `tools/resolve` of `manage_files`, each with a progress
/// token of its own in `_meta` (64 of them, so that the loop's turns are
/// further apart than anything a connection remembers): every request comes
/// in an envelope new to the connection, the most a memory of envelopes can
/// cost.
fn progress_token_requests() -> Vec<Vec<u8>> {
    let requests = resolve_requests("tools/resolve");
    (0..64)
        .map(|id| {
            let request = &requests[id % requests.len()];
            let mut request: Value = serde_json::from_slice(request).expect("JSON");
            request["id"] = json!(id + 1);
            request["params"]["_meta"] = json!({"progressToken": id + 1});
            request.to_string().into_bytes()
        })
        .collect()
}

/// Benches `requests` on `connection`, one per iteration in turn, after
/// checking that each is answered with a result holding `expected`; then,
/// when `floor` is set, the floor of the same requests: reading each once
/// into `IgnoredAny` and copying its response.
fn bench_requests(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut connection: Connection,
    requests: Vec<Vec<u8>>,
    expected: &[u8],
) -> Vec<Vec<u8>> {
    let mut responses = Vec::with_capacity(requests.len());
    for request in &requests {
        let response = connection.handle(request).expect("a request is answered");
        assert!(
            contains(&response, b"\"result\"") && contains(&response, expected),
            "{}",
            String::from_utf8_lossy(&response)
        );
        responses.push(response);
    }
    // One buffer for every answer, as the stdio server keeps it.
    let mut response = Vec::new();
    let mut next = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            next = (next + 1) % requests.len();
            response.clear();
            black_box(connection.handle_into(black_box(&requests[next]), &mut response));
            black_box(&response);
        })
    });
    responses
}

/// The floor of `requests`: each read once, its response copied into the
/// one buffer kept for them.
fn bench_floor(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    requests: &[Vec<u8>],
    responses: &[Vec<u8>],
) {
    let mut response = Vec::new();
    let mut next = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            next = (next + 1) % requests.len();
            floor_once(&requests[next], &responses[next], &mut response);
        })
    });
}

/// One request of a floor: read once with `IgnoredAny`, its answer copied.
fn floor_once(request: &[u8], answer: &[u8], response: &mut Vec<u8>) {
    let read: IgnoredAny = serde_json::from_slice(black_box(request)).unwrap();
    black_box(read);
    response.clear();
    response.extend_from_slice(black_box(answer));
    black_box(response);
}

/// One 2026-07-28 `tools/resolve` per action, with the extension in the
/// request's own capabilities.
fn modern_resolve_requests() -> Vec<Vec<u8>> {
    support::manage_files_arguments()
        .into_iter()
        .enumerate()
        .map(|(id, arguments)| {
            json!({
                "jsonrpc": "2.0",
                "id": id + 1,
                "method": "tools/resolve",
                "params": {
                    "name": "manage_files",
                    "arguments": arguments,
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0.1.0"},
                        "io.modelcontextprotocol/clientCapabilities": {
                            "extensions": {"io.modelcontextprotocol/tool-resolution": {}}
                        }
                    }
                }
            })
            .to_string()
            .into_bytes()
        })
        .collect()
}

fn requests(c: &mut Criterion) {
    let server = server();
    let plain = || initialized(&server, json!({}));
    let extension = || {
        initialized(
            &server,
            json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}}),
        )
    };
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#.to_vec();
    if let Ok(case) = std::env::var("ANNOT_REQUESTS_LOOP") {
        count_loop(&case, &server, extension());
    }

    let mut group = c.benchmark_group("requests/manage_files");
    let list = vec![list];
    let listed = bench_requests(
        &mut group,
        "tools_list",
        plain(),
        list.clone(),
        b"\"tools\"",
    );
    bench_floor(&mut group, "tools_list_floor", &list, &listed);
    bench_requests(
        &mut group,
        "a_tools_annotations",
        plain(),
        resolve_requests("tools/annotations"),
        b"\"annotations\"",
    );
    bench_requests(
        &mut group,
        "b_tools_resolve",
        plain(),
        resolve_requests("tools/resolve"),
        b"\"tool\"",
    );
    let requests = resolve_requests("tools/resolve");
    let resolved = bench_requests(
        &mut group,
        "c_tools_resolve_extension",
        extension(),
        requests.clone(),
        b"\"resultType\":\"complete\"",
    );
    bench_floor(
        &mut group,
        "c_tools_resolve_extension_floor",
        &requests,
        &resolved,
    );
    if let Some(directory) = std::env::var_os("ANNOT_REFERENCE_INPUTS") {
        write_reference_inputs(
            directory.as_ref(),
            extension(),
            &list[0],
            &requests,
            &resolved,
        );
    }
    let arguments: Vec<String> = support::manage_files_arguments()
        .iter()
        .map(Value::to_string)
        .collect();
    let mut next = 0;
    group.bench_function("c_tools_resolve_extension_arguments", |b| {
        b.iter(|| {
            next = (next + 1) % arguments.len();
            let outcome =
                (ManageFiles::GENERATED.evaluate_arguments_str)(black_box(&arguments[next]))
                    .expect("valid arguments");
            black_box((outcome.annotations(), outcome.authorization()))
        })
    });
    // The same request kind in other envelopes: what a connection remembers
    // of a client's last envelopes serves two tools in turn, and a progress
    // token in each request defeats it.
    for (name, requests) in [
        ("c_tools_resolve_two_tools", two_tools_requests()),
        ("c_tools_resolve_progress", progress_token_requests()),
    ] {
        let resolved = bench_requests(
            &mut group,
            name,
            extension(),
            requests.clone(),
            b"\"resultType\":\"complete\"",
        );
        bench_floor(&mut group, &format!("{name}_floor"), &requests, &resolved);
    }
    // `tools/call` of the same tool with the same arguments, on the same
    // connection kind as the extension's `tools/resolve`: the handler is
    // trivial, so what it costs beyond `tools/resolve` is reading the
    // arguments into the tool's type and writing a result.
    bench_requests(
        &mut group,
        "d_tools_call",
        extension(),
        resolve_requests("tools/call"),
        b"\"done\"",
    );
    let requests = modern_resolve_requests();
    let resolved = bench_requests(
        &mut group,
        "c_tools_resolve_2026",
        server.connect(),
        requests.clone(),
        b"\"io.modelcontextprotocol/serverInfo\"",
    );
    bench_floor(
        &mut group,
        "c_tools_resolve_2026_floor",
        &requests,
        &resolved,
    );
    group.finish();
}

/// `ANNOT_REQUESTS_LOOP=<case>/<times>` (`resolve/100000`; cases `resolve`
/// and `resolve_floor`, the extension's `tools/resolve` and its floor, `call`,
/// its `tools/call`, `resolve_two_tools` and `resolve_progress` (each with its
/// floor, `_floor`), `resolve_2026` and `resolve_2026_floor`) answers that
/// case's requests in turn `times` times and exits. The difference of two
/// counts of the whole process (say with `valgrind --tool=callgrind`) divided
/// by the difference of `times` is one request's: a measure the load of the
/// machine does not move.
fn count_loop(case: &str, server: &Server, extension: Connection) -> ! {
    let (case, times) = case.split_once('/').expect("<case>/<times>");
    let times: usize = times.parse().expect("a count");
    let (mut connection, requests, floor) = match case {
        "resolve" | "resolve_floor" => (
            extension,
            resolve_requests("tools/resolve"),
            case.ends_with("floor"),
        ),
        "call" => (extension, resolve_requests("tools/call"), false),
        "resolve_two_tools" | "resolve_two_tools_floor" => {
            (extension, two_tools_requests(), case.ends_with("floor"))
        }
        "resolve_progress" | "resolve_progress_floor" => (
            extension,
            progress_token_requests(),
            case.ends_with("floor"),
        ),
        "resolve_2026" | "resolve_2026_floor" => (
            server.connect(),
            modern_resolve_requests(),
            case.ends_with("floor"),
        ),
        _ => panic!("no case {case}"),
    };
    let responses: Vec<Vec<u8>> = requests
        .iter()
        .map(|request| connection.handle(request).expect("answered"))
        .collect();
    let mut response = Vec::new();
    for turn in 0..times {
        let next = turn % requests.len();
        if floor {
            floor_once(&requests[next], &responses[next], &mut response);
        } else {
            response.clear();
            black_box(connection.handle_into(black_box(&requests[next]), &mut response));
            black_box(&response);
        }
    }
    std::process::exit(0)
}

/// Writes what `benches/reference/resolve.mjs` replays in Node: the
/// extension's `tools/resolve` requests and annot's answers (one JSON text a
/// line each) and the tools as `tools/list` lists them on `connection`.
fn write_reference_inputs(
    directory: &std::path::Path,
    mut connection: Connection,
    list: &[u8],
    requests: &[Vec<u8>],
    responses: &[Vec<u8>],
) {
    let lines = |texts: &[Vec<u8>]| {
        texts
            .iter()
            .map(|text| String::from_utf8(text.clone()).expect("UTF-8") + "\n")
            .collect::<String>()
    };
    let listed = connection.handle(list).expect("tools/list is answered");
    let listed: Value = serde_json::from_slice(&listed).expect("JSON");
    std::fs::create_dir_all(directory).expect("the directory is made");
    let write = |name: &str, text: String| {
        std::fs::write(directory.join(name), text).expect("the file is written");
    };
    write("requests.jsonl", lines(requests));
    write("responses.jsonl", lines(responses));
    write("tools.json", listed["result"]["tools"].to_string());
}

criterion_group!(benches, requests);
criterion_main!(benches);
