//! What a field's patterns cost the build: the macro's determinisation of 1,
//! 8 and 64 of the path patterns of `benches/rules.rs` into the DFA the
//! generated code embeds, timed, with the size of what it embeds. The
//! macro's own source of it (`src/rules/dfa_builder.rs`) is compiled in, as a proc
//! macro crate exports nothing else.
//!
//! ```sh
//! cargo bench -p annot-macros --bench dfa_build          # optimised
//! cargo test -p annot-macros --bench dfa_build --release # the same
//! cargo test -p annot-macros --bench dfa_build           # as a debug build of the macro
//! ```
//!
//! A user's build runs the macro unoptimised unless their profile says
//! otherwise (`build-override`); this workspace builds `regex-automata`
//! optimised even in debug builds (the root `Cargo.toml`), so the third line
//! measures the macro's own code unoptimised, not `regex-automata`'s.

#[path = "../src/rules/dfa_builder.rs"]
mod dfa_builder;

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Pattern `index` of the 64 of `benches/rules.rs`: four shapes in turn
/// (anchored directory, extension, anchored home directory, secret with a
/// Unicode `\b`), each with a name of its own.
fn pattern(index: usize) -> String {
    const NAMES: [&str; 8] = [
        "alpha", "bra", "charlie", "delta", "echo", "fox", "golf", "hotel",
    ];
    let name = NAMES[index % 8];
    match index % 4 {
        0 => format!("^/srv/{name}{index:02}(/|$)"),
        1 => format!(r"\.{name}{index:02}$"),
        2 => format!("^/home/[^/]+/{name}-{index:02}/"),
        _ => format!(r"(?i)/secrets?/{name}{index:02}\b"),
    }
}

fn main() {
    // `cargo test` passes the harness's flags; none applies.
    println!("patterns  build (median of runs)  embedded bytes");
    for count in [1, 8, 64] {
        let patterns: Vec<String> = (0..count).map(pattern).collect();
        let mut times = Vec::new();
        let mut bytes = 0;
        let started = Instant::now();
        while times.len() < 5 || (started.elapsed() < Duration::from_secs(2) && times.len() < 101) {
            let begun = Instant::now();
            let dfa =
                dfa_builder::serialized_dfa(black_box(&patterns)).expect("the set gets a DFA");
            times.push(begun.elapsed());
            bytes = dfa.little_endian.len();
            assert_eq!(dfa.big_endian.len(), bytes);
        }
        times.sort_unstable();
        let median = times[times.len() / 2];
        println!(
            "{count:>8}  {:>10.2} ms ({} runs)  {:>8} ({} KiB)",
            median.as_secs_f64() * 1e3,
            times.len(),
            bytes,
            bytes / 1024
        );
    }
}
