//! Rule evaluation, with 1 and with 64 patterns on one field. The patterns of
//! one field form one `RegexSet`, so the cost of a call should barely grow
//! with their number. Next to each generated row, the same tool as the rule
//! interpreter of `support/interpreter.rs` (string equality for the action,
//! one `RegexSet` for the field), from the same `Value`.
//!
//! ```sh
//! cargo bench --bench rules -- --warm-up-time 1 --measurement-time 2
//! ```

mod support;

use std::hint::black_box;

use annot::{AnnotatedTool, mcp_tool};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use support::interpreter::{self, Interpreter};

/// A tool whose `read` action has one rule per pattern, all on `path`, and
/// its patterns as a constant for the interpreter.
macro_rules! tool_with_patterns {
    ($name:ident, $patterns:ident, [$($pattern:tt),* $(,)?]) => {
        #[mcp_tool(open_world = false, $(when(path matches $pattern) => (sensitive_data),)*)]
        #[allow(dead_code)]
        enum $name {
            #[annotate(read_only)]
            Read { path: String },
            #[annotate(read_only)]
            Ping,
        }
        const $patterns: &[&str] = &[$($pattern),*];
    };
}

tool_with_patterns!(OnePattern, ONE_PATTERN, ["^/srv/alpha00(/|$)"]);

tool_with_patterns!(
    SixtyFourPatterns,
    SIXTY_FOUR_PATTERNS,
    [
        "^/srv/alpha00(/|$)",
        r"\.bra01$",
        "^/home/[^/]+/charlie-02/",
        r"(?i)/secrets?/delta03\b",
        "^/srv/echo04(/|$)",
        r"\.fox05$",
        "^/home/[^/]+/golf-06/",
        r"(?i)/secrets?/hotel07\b",
        "^/srv/alpha08(/|$)",
        r"\.bra09$",
        "^/home/[^/]+/charlie-10/",
        r"(?i)/secrets?/delta11\b",
        "^/srv/echo12(/|$)",
        r"\.fox13$",
        "^/home/[^/]+/golf-14/",
        r"(?i)/secrets?/hotel15\b",
        "^/srv/alpha16(/|$)",
        r"\.bra17$",
        "^/home/[^/]+/charlie-18/",
        r"(?i)/secrets?/delta19\b",
        "^/srv/echo20(/|$)",
        r"\.fox21$",
        "^/home/[^/]+/golf-22/",
        r"(?i)/secrets?/hotel23\b",
        "^/srv/alpha24(/|$)",
        r"\.bra25$",
        "^/home/[^/]+/charlie-26/",
        r"(?i)/secrets?/delta27\b",
        "^/srv/echo28(/|$)",
        r"\.fox29$",
        "^/home/[^/]+/golf-30/",
        r"(?i)/secrets?/hotel31\b",
        "^/srv/alpha32(/|$)",
        r"\.bra33$",
        "^/home/[^/]+/charlie-34/",
        r"(?i)/secrets?/delta35\b",
        "^/srv/echo36(/|$)",
        r"\.fox37$",
        "^/home/[^/]+/golf-38/",
        r"(?i)/secrets?/hotel39\b",
        "^/srv/alpha40(/|$)",
        r"\.bra41$",
        "^/home/[^/]+/charlie-42/",
        r"(?i)/secrets?/delta43\b",
        "^/srv/echo44(/|$)",
        r"\.fox45$",
        "^/home/[^/]+/golf-46/",
        r"(?i)/secrets?/hotel47\b",
        "^/srv/alpha48(/|$)",
        r"\.bra49$",
        "^/home/[^/]+/charlie-50/",
        r"(?i)/secrets?/delta51\b",
        "^/srv/echo52(/|$)",
        r"\.fox53$",
        "^/home/[^/]+/golf-54/",
        r"(?i)/secrets?/hotel55\b",
        "^/srv/alpha56(/|$)",
        r"\.bra57$",
        "^/home/[^/]+/charlie-58/",
        r"(?i)/secrets?/delta59\b",
        "^/srv/echo60(/|$)",
        r"\.fox61$",
        "^/home/[^/]+/golf-62/",
        r"(?i)/secrets?/hotel63\b",
    ]
);

fn parse<T: AnnotatedTool>(arguments: &str) -> T {
    T::from_arguments_str(arguments).expect("valid arguments")
}

/// Panics unless `arguments` fire exactly the rules `fired` (by index), in the
/// generated code, and the interpreter agrees on the annotations.
fn assert_fires<T: AnnotatedTool>(interpreter: &Interpreter, arguments: &str, fired: &[usize]) {
    let tool: T = parse(arguments);
    let indices: Vec<usize> = tool.explain().fired.iter().map(|rule| rule.index).collect();
    assert_eq!(indices, fired, "{arguments} fires");
    let resolved = tool.resolve();
    let sensitive = (!fired.is_empty()).then_some(true);
    assert_eq!(resolved.sensitive_data, sensitive, "{arguments}");
    assert_eq!(resolved.read_only, Some(true), "{arguments}");
    let value: Value = serde_json::from_str(arguments).expect("JSON");
    let interpreted = interpreter
        .resolve(&value)
        .expect("the interpreter resolves");
    assert_eq!(interpreted, resolved, "the interpreter on {arguments}");
}

fn evaluation(c: &mut Criterion) {
    assert_eq!(OnePattern::RULES.len(), 1);
    assert_eq!(SixtyFourPatterns::RULES.len(), 64);
    assert_eq!(SIXTY_FOUR_PATTERNS.len(), 64);
    let one_interpreter = interpreter::path_patterns(ONE_PATTERN);
    let many_interpreter = interpreter::path_patterns(SIXTY_FOUR_PATTERNS);
    let miss = r#"{"action":"Read","path":"/var/lib/app/data/file.txt"}"#;
    let hit_last = r#"{"action":"Read","path":"/srv/secret/hotel63/x"}"#;
    let hit_first = r#"{"action":"Read","path":"/srv/alpha00/x"}"#;
    let ping = r#"{"action":"Ping"}"#;
    // Non-ASCII bytes, where the 64's Unicode `\b` makes their DFA quit: the
    // meta regex decides.
    let non_ascii = r#"{"action":"Read","path":"/srv/données/café.txt"}"#;
    // What each input is named for: no rule, the first rule, the last rule only.
    assert_fires::<OnePattern>(&one_interpreter, miss, &[]);
    assert_fires::<OnePattern>(&one_interpreter, hit_first, &[0]);
    assert_fires::<OnePattern>(&one_interpreter, ping, &[]);
    assert_fires::<SixtyFourPatterns>(&many_interpreter, miss, &[]);
    assert_fires::<SixtyFourPatterns>(&many_interpreter, hit_first, &[0]);
    assert_fires::<SixtyFourPatterns>(&many_interpreter, hit_last, &[63]);
    assert_fires::<OnePattern>(&one_interpreter, non_ascii, &[]);
    assert_fires::<SixtyFourPatterns>(&many_interpreter, non_ascii, &[]);

    if let Ok(case) = std::env::var("ANNOT_RULES_LOOP") {
        count_loop(&case, [miss, hit_first, hit_last, non_ascii]);
    }
    for (name, arguments) in [("miss", miss), ("hit", hit_first), ("non-ASCII", non_ascii)] {
        let one: OnePattern = parse(arguments);
        c.bench_function(&format!("1 pattern/{name}"), |b| {
            b.iter(|| black_box(&one).resolve())
        });
        // From a `Value`, both: the generated parser and resolve, and the interpreter.
        let value: Value = serde_json::from_str(arguments).expect("JSON");
        c.bench_function(&format!("1 pattern/{name}/from_value"), |b| {
            b.iter(|| {
                OnePattern::from_arguments(black_box(&value))
                    .map(|tool| tool.resolve())
                    .ok()
            })
        });
        c.bench_function(&format!("1 pattern/{name}/interpreter"), |b| {
            b.iter(|| one_interpreter.resolve(black_box(&value)).ok())
        });
    }
    for (name, arguments) in [
        ("miss", miss),
        ("hit", hit_first),
        ("hit last", hit_last),
        ("non-ASCII", non_ascii),
    ] {
        let many: SixtyFourPatterns = parse(arguments);
        c.bench_function(&format!("64 patterns/{name}"), |b| {
            b.iter(|| black_box(&many).resolve())
        });
        // From a `Value`, both: the generated parser and resolve, and the interpreter.
        let value: Value = serde_json::from_str(arguments).expect("JSON");
        c.bench_function(&format!("64 patterns/{name}/from_value"), |b| {
            b.iter(|| {
                SixtyFourPatterns::from_arguments(black_box(&value))
                    .map(|tool| tool.resolve())
                    .ok()
            })
        });
        c.bench_function(&format!("64 patterns/{name}/interpreter"), |b| {
            b.iter(|| many_interpreter.resolve(black_box(&value)).ok())
        });
    }
    let plain: OnePattern = parse(ping);
    c.bench_function("no rule (constant)", |b| {
        b.iter(|| black_box(&plain).resolve())
    });
    let explained: SixtyFourPatterns = parse(hit_last);
    c.bench_function("64 patterns/explain", |b| {
        b.iter(|| black_box(&explained).explain())
    });
}

/// For instruction counts, which a loaded machine does not move: with
/// `ANNOT_RULES_LOOP=<patterns>/<input>/<times>` (`64/miss/100000`; inputs
/// `miss`, `hit`, `hit last`, `non-ASCII`), resolves that input `times` times
/// and exits. The difference of two counts of the whole process (say with
/// `valgrind --tool=callgrind`) divided by the difference of `times` is one
/// resolution's.
fn count_loop(case: &str, [miss, hit, hit_last, non_ascii]: [&str; 4]) -> ! {
    let mut parts = case.split('/');
    let (patterns, input, times) = (parts.next(), parts.next(), parts.next());
    let arguments = match input {
        Some("miss") => miss,
        Some("hit") => hit,
        Some("hit last") => hit_last,
        Some("non-ASCII") => non_ascii,
        _ => panic!("no input {input:?}"),
    };
    let times: usize = times.and_then(|times| times.parse().ok()).expect("a count");
    fn repeat<T: AnnotatedTool>(arguments: &str, times: usize) {
        let tool: T = parse(arguments);
        for _ in 0..times {
            black_box(black_box(&tool).resolve());
        }
    }
    match patterns {
        Some("1") => repeat::<OnePattern>(arguments, times),
        Some("64") => repeat::<SixtyFourPatterns>(arguments, times),
        _ => panic!("no tool of {patterns:?} patterns"),
    }
    std::process::exit(0)
}

criterion_group! {
    name = benches;
    config = support::short_runs();
    targets = evaluation
}
criterion_main!(benches);
