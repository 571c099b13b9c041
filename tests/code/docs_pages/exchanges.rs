//! The recorded exchanges of `docs/serving.md`, made by the `manage_files`
//! example server itself: each `text` block of the section is one session,
//! its `-->` lines sent to a fresh server over stdio and its `<--` lines the
//! answers. The test fails when an answer in the page is not the server's;
//! `ANNOT_BLESS_DOCS=1 cargo test --test code docs_pages` writes the server's
//! answers into the page instead.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::robust_support::{TempDir, manage_files_binary};
use super::{read, root};

const PAGE: &str = "docs/serving.md";
const SECTION: &str = "## Recorded exchanges";
const SENT: &str = "--> ";
const ANSWERED: &str = "<-- ";

/// The byte ranges of the `text` blocks of the section, their fences left out.
fn blocks(page: &str) -> Vec<std::ops::Range<usize>> {
    let start = page
        .find(SECTION)
        .expect("docs/serving.md has a recorded exchanges section");
    let end = page[start + SECTION.len()..]
        .find("\n## ")
        .map_or(page.len(), |at| start + SECTION.len() + at);
    let mut ranges = Vec::new();
    let mut rest = start;
    while let Some(open) = page[rest..end].find("```text\n") {
        let body = rest + open + "```text\n".len();
        let close = body + page[body..end].find("```").expect("a closed block");
        ranges.push(body..close);
        rest = close + 3;
    }
    ranges
}

/// The id of a JSON-RPC message, if it has one.
fn id_of(message: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(message)
        .unwrap_or_else(|e| panic!("not JSON in {PAGE}: {message}: {e}"));
    value.get("id").cloned()
}

/// The block the server makes of the requests of `block`: each request, then
/// its answer (matched by id: answers may come in any order).
fn replay(block: &str, sandbox: &TempDir) -> String {
    let requests: Vec<&str> = block
        .lines()
        .filter_map(|line| line.strip_prefix(SENT))
        .collect();
    assert!(!requests.is_empty(), "a recorded exchange with no request");
    let mut server = Command::new(manage_files_binary())
        .arg(&sandbox.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the manage_files example");
    let mut input = server.stdin.take().expect("stdin");
    for request in &requests {
        writeln!(input, "{request}").expect("write a request");
    }
    drop(input); // the end of input ends the session
    let output = server.wait_with_output().expect("the server's output");
    assert!(
        output.status.success(),
        "the server failed: {:?}",
        output.status
    );
    let answers: Vec<String> = String::from_utf8(output.stdout)
        .expect("UTF-8 answers")
        .lines()
        .map(str::to_owned)
        .collect();
    let mut made = String::new();
    for request in &requests {
        made.push_str(&format!("{SENT}{request}\n"));
        if let Some(id) = id_of(request) {
            let answer = answers
                .iter()
                .find(|answer| id_of(answer).as_ref() == Some(&id))
                .unwrap_or_else(|| panic!("no answer to {request}"));
            made.push_str(&format!("{ANSWERED}{answer}\n"));
        }
    }
    made
}

#[test]
fn the_recorded_exchanges_are_the_servers() {
    let path = root().join(PAGE);
    let page = read(&path);
    let sandbox = TempDir::new("docs-exchanges");
    let ranges = blocks(&page);
    assert!(
        ranges.len() >= 4,
        "{PAGE} records {} exchanges",
        ranges.len()
    );
    let mut made = page.clone();
    let mut stale = Vec::new();
    // From the last block back, so that earlier ranges stay valid.
    for range in ranges.into_iter().rev() {
        let recorded = &page[range.clone()];
        let replayed = replay(recorded, &sandbox);
        if recorded != replayed {
            stale.push(format!("recorded:\n{recorded}server:\n{replayed}"));
            made.replace_range(range, &replayed);
        }
    }
    if stale.is_empty() {
        return;
    }
    if std::env::var_os("ANNOT_BLESS_DOCS").is_some() {
        std::fs::write(&path, made).expect("write docs/serving.md");
        return;
    }
    panic!(
        "{PAGE} is not what the server answers; `ANNOT_BLESS_DOCS=1 cargo test --test \
         docs_pages` writes the server's answers into it.\n{}",
        stale.join("\n")
    );
}
