//! From JSON arguments to resolved annotations, as `&serde_json::Value` and as
//! raw JSON text: the code `#[mcp_tool]` generates (from text, also its
//! borrowing path, `evaluate_arguments_str`), against serde's derive plus
//! a `match` (the typed limit) and against the rule interpreter a server author
//! would otherwise write (see `support/interpreter.rs`), alone and behind a
//! validation of the arguments against the tool's `inputSchema`.
//!
//! Each iteration resolves the same [`support::MIX`] argument sets, every
//! action mixed in a fixed pseudo-random order; every result goes through
//! `black_box`.

mod support;

use std::hint::black_box;
use std::marker::PhantomData;

use annot::AnnotatedTool;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

use support::http_api::HttpApi;
use support::interpreter::{self, Interpreter, Validated};
use support::limits::{TypedFiles, TypedHttp, TypedLimit};
use support::manage_files::ManageFiles;

/// The three ways to resolve one tool's arguments.
struct Contenders<T, S> {
    tool: &'static str,
    /// Argument sets covering every action.
    per_action: Vec<Value>,
    interpreter: Interpreter,
    validated: Validated,
    types: PhantomData<(T, S)>,
}

impl<T, S> Contenders<T, S>
where
    T: AnnotatedTool,
    S: TypedLimit,
{
    /// Every contender gives the generated answer for every argument set, and
    /// the sets cover every action, or the comparison means nothing.
    fn check(&self) {
        support::assert_every_action::<T>(&self.per_action);
        for arguments in &self.per_action {
            let text = arguments.to_string();
            let expected = T::from_arguments(arguments).unwrap().resolve();
            let answers = [
                T::from_arguments_str(&text).unwrap().resolve(),
                (T::GENERATED.evaluate_view)(&text)
                    .expect("the borrowing path")
                    .annotations(),
                (T::GENERATED.evaluate_arguments_str)(&text)
                    .unwrap()
                    .annotations(),
                S::deserialize(arguments).unwrap().resolve(),
                serde_json::from_str::<S>(&text).unwrap().resolve(),
                self.interpreter.resolve(arguments).unwrap(),
                self.interpreter.resolve_str(&text).unwrap(),
                self.validated.resolve(arguments).unwrap(),
                self.validated.resolve_str(&text).unwrap(),
            ];
            for answer in answers {
                assert_eq!(answer, expected, "{text}");
            }
        }
    }

    fn bench(&self, c: &mut Criterion) {
        self.check();
        let values = support::mixed(&self.per_action);
        let texts: Vec<String> = values.iter().map(Value::to_string).collect();

        let mut group = c.benchmark_group(format!("from_value/{}", self.tool));
        group.throughput(Throughput::Elements(values.len() as u64));
        group.bench_function("generated", |b| {
            b.iter(|| {
                for arguments in black_box(values.as_slice()) {
                    black_box(T::from_arguments(arguments).map(|tool| tool.resolve())).ok();
                }
            })
        });
        group.bench_function("serde_typed", |b| {
            b.iter(|| {
                for arguments in black_box(values.as_slice()) {
                    black_box(S::deserialize(arguments).map(|tool| tool.resolve())).ok();
                }
            })
        });
        group.bench_function("interpreter", |b| {
            b.iter(|| {
                for arguments in black_box(values.as_slice()) {
                    black_box(self.interpreter.resolve(arguments)).ok();
                }
            })
        });
        group.bench_function("interpreter_with_schema", |b| {
            b.iter(|| {
                for arguments in black_box(values.as_slice()) {
                    black_box(self.validated.resolve(arguments)).ok();
                }
            })
        });
        group.finish();

        let mut group = c.benchmark_group(format!("from_str/{}", self.tool));
        group.throughput(Throughput::Elements(texts.len() as u64));
        group.bench_function("generated", |b| {
            b.iter(|| {
                for arguments in black_box(texts.as_slice()) {
                    black_box(T::from_arguments_str(arguments).map(|tool| tool.resolve())).ok();
                }
            })
        });
        group.bench_function("borrowed", |b| {
            b.iter(|| {
                for arguments in black_box(texts.as_slice()) {
                    black_box(
                        (T::GENERATED.evaluate_arguments_str)(arguments)
                            .map(|outcome| outcome.annotations()),
                    )
                    .ok();
                }
            })
        });
        group.bench_function("serde_typed", |b| {
            b.iter(|| {
                for arguments in black_box(texts.as_slice()) {
                    black_box(serde_json::from_str::<S>(arguments).map(|tool| tool.resolve())).ok();
                }
            })
        });
        group.bench_function("interpreter", |b| {
            b.iter(|| {
                for arguments in black_box(texts.as_slice()) {
                    black_box(self.interpreter.resolve_str(arguments)).ok();
                }
            })
        });
        group.bench_function("interpreter_with_schema", |b| {
            b.iter(|| {
                for arguments in black_box(texts.as_slice()) {
                    black_box(self.validated.resolve_str(arguments)).ok();
                }
            })
        });
        group.finish();
    }
}

fn from_arguments(c: &mut Criterion) {
    Contenders::<ManageFiles, TypedFiles> {
        tool: "manage_files",
        per_action: support::manage_files_arguments(),
        interpreter: interpreter::manage_files(),
        validated: Validated::new::<ManageFiles>(interpreter::manage_files()),
        types: PhantomData,
    }
    .bench(c);
    Contenders::<HttpApi, TypedHttp> {
        tool: "http_request",
        per_action: support::http_api_arguments(),
        interpreter: interpreter::http_api(),
        validated: Validated::new::<HttpApi>(interpreter::http_api()),
        types: PhantomData,
    }
    .bench(c);
}

criterion_group!(benches, from_arguments);
criterion_main!(benches);
