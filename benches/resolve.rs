//! Typed resolve: the `resolve` that `#[mcp_tool]` generates against a
//! hand-written `match` returning the same constants, the physical limit
//! (for `manage_files`, with the same regex test of its system-path rule).
//!
//! Each iteration resolves the same [`support::MIX`] parsed values, every
//! action mixed in a fixed pseudo-random order. The slice goes through
//! `black_box`, so neither side can see which variants it holds, and every
//! result goes through `black_box`, so neither side can skip the work.

mod support;
mod wide;

use std::hint::black_box;

use annot::{AnnotatedTool, Annotations};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

use support::http_api::HttpApi;
use support::limits;
use support::manage_files::ManageFiles;

/// Parses each argument set, as `tools/call` would.
fn parsed<T: AnnotatedTool>(arguments: &[Value]) -> Vec<T> {
    arguments
        .iter()
        .map(|arguments| T::from_arguments(arguments).expect("the bench's arguments are valid"))
        .collect()
}

/// One group: the generated `resolve` next to `limit`, over the same values.
fn compare<T, F>(c: &mut Criterion, tool: &str, per_action: &[Value], limit: F)
where
    T: AnnotatedTool,
    F: Fn(&T) -> Annotations,
{
    // Both sides must give the same answer for every argument set, and the
    // sets must cover every action, or the comparison means nothing.
    support::assert_every_action::<T>(per_action);
    for (value, arguments) in parsed::<T>(per_action).iter().zip(per_action) {
        assert_eq!(value.resolve(), limit(value), "{arguments}");
    }

    let inputs: Vec<T> = parsed(&support::mixed(per_action));
    let mut group = c.benchmark_group(format!("typed_resolve/{tool}"));
    group.throughput(Throughput::Elements(inputs.len() as u64));
    group.bench_function("generated", |b| {
        b.iter(|| {
            for value in black_box(inputs.as_slice()) {
                black_box(value.resolve());
            }
        })
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            for value in black_box(inputs.as_slice()) {
                black_box(limit(value));
            }
        })
    });
    group.finish();
}

fn typed_resolve(c: &mut Criterion) {
    compare::<ManageFiles, _>(
        c,
        "manage_files",
        &support::manage_files_arguments(),
        limits::manage_files,
    );
    compare::<HttpApi, _>(
        c,
        "http_request",
        &support::http_api_arguments(),
        limits::http_api,
    );
    compare::<wide::Wide64, _>(
        c,
        "wide_64",
        &wide::arguments::<wide::Wide64>(),
        wide::hand_written_64,
    );
}

criterion_group!(benches, typed_resolve);
criterion_main!(benches);
