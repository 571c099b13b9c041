//! The bad-input table (tests/support/robust/cases.rs) through the stdio
//! example binary, one long session: each case is written as a line, followed
//! by a ping that must be answered next. Every read has a deadline, so a server
//! that hangs fails the test instead of stalling it.

use crate::robust_support;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use robust_support::cases::{self, Expect, HUGE, Id};
use robust_support::{
    TempDir, initialize_with_extension, manage_files_binary, parse_response, request,
};
use serde_json::{Value, json};

/// How long one answer may take (a 10 MB line included, on a busy machine).
const ANSWER_DEADLINE: Duration = Duration::from_secs(60);

/// The example binary serving a sandbox, and its output lines as they come.
struct Binary {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: thread::JoinHandle<String>,
    _sandbox: TempDir,
}

impl Binary {
    fn start(name: &str) -> Self {
        let sandbox = TempDir::new(name);
        let mut child = Command::new(manage_files_binary())
            .arg(&sandbox.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the manage_files example");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut stderr = child.stderr.take().expect("stderr");
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Binary {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            _sandbox: sandbox,
        }
    }

    fn send(&mut self, message: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(message).expect("write a message");
        stdin.write_all(b"\n").expect("write a line ending");
        stdin.flush().expect("flush");
    }

    /// The next line of output, without its line ending.
    fn next_line(&mut self, context: &str) -> Vec<u8> {
        match self.lines.recv_timeout(ANSWER_DEADLINE) {
            Ok(mut line) => {
                assert_eq!(
                    line.pop(),
                    Some(b'\n'),
                    "{context}: a response ends its line"
                );
                line
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("{context}: no answer within {ANSWER_DEADLINE:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("{context}: the server closed its output")
            }
        }
    }

    fn ping(&mut self, id: &str) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        let answer = parse_response(&self.next_line(id));
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }

    /// Closes stdin and checks the server exits cleanly, without a panic.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + ANSWER_DEADLINE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("poll the server") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit after its input ended");
            }
            thread::sleep(Duration::from_millis(20));
        };
        let stderr = self.stderr.join().expect("stderr reader");
        assert!(status.success(), "exit {status}; stderr:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            self.lines.try_recv().is_err(),
            "unread output after the last answer"
        );
    }
}

fn initialized(name: &str) -> Binary {
    let mut binary = Binary::start(name);
    binary.send(initialize_with_extension(0).as_bytes());
    let answer = parse_response(&binary.next_line("initialize"));
    assert_eq!(
        answer["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tool-resolution"],
        json!({}),
        "{answer}"
    );
    binary.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    binary
}

/// Checks one answer from the binary against what the case expects.
fn check(case: &str, expect: &Expect, line: &[u8]) {
    let value = parse_response(line);
    match expect {
        Expect::Silence => panic!("{case}: answered {value}"),
        Expect::Error { code, id } => {
            assert_eq!(value["error"]["code"], *code, "{case}: {value}");
            match id {
                Id::Echo(id) => assert_eq!(value.get("id"), Some(id), "{case}: {value}"),
                Id::Absent => assert_eq!(value.get("id"), None, "{case}: {value}"),
            }
            assert!(line.len() < 2048, "{case}: a {} byte error", line.len());
        }
        Expect::Success { id, check } => {
            assert_eq!(value.get("id"), Some(id), "{case}: {value}");
            check(&value["result"]);
        }
    }
}

#[test]
fn every_case_through_the_binary() {
    let mut binary = initialized("table");
    for case in cases::table() {
        binary.send(&case.message);
        let after = format!("after {}", case.name);
        binary.send(
            json!({"jsonrpc": "2.0", "id": after, "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        let expect = case.stdio_expect();
        // A `tools/call` runs beside the session: the ping may overtake it.
        let is_call = serde_json::from_slice::<Value>(&case.message)
            .is_ok_and(|message| message["method"] == "tools/call");
        let mut answers = Vec::new();
        if !matches!(expect, Expect::Silence) {
            answers.push(binary.next_line(case.name));
        }
        answers.push(binary.next_line(&after));
        if is_call && parse_response(&answers[0])["id"] == after {
            answers.reverse();
        }
        if let [line, _] = answers.as_slice() {
            check(case.name, expect, line);
        }
        // Else the ping is the very next answer: a silent case said nothing.
        let answer = parse_response(answers.last().expect("the ping's answer"));
        assert_eq!(answer["id"], after, "{}: {answer}", case.name);
        assert_eq!(answer["result"], json!({}), "{}: {answer}", case.name);
    }
    binary.finish();
}

/// The default cap is 4 MiB: a line of exactly 4 MiB is read and answered, one
/// byte more is refused with -32600 and no id, and the session goes on.
#[test]
fn the_binary_caps_one_message_at_four_mebibytes() {
    const CAP: usize = 4 * 1024 * 1024;
    let mut binary = initialized("cap");
    let padded = |length: usize, id: i64| -> String {
        let skeleton = request(
            id,
            "tools/resolve",
            json!({"name": "manage_files",
            "arguments": {"action": "append", "path": "a", "content": ""}}),
        );
        let padding = "p".repeat(length - skeleton.len());
        skeleton.replace(r#""content":"""#, &format!(r#""content":"{padding}""#))
    };
    let exact = padded(CAP, 1);
    assert_eq!(exact.len(), CAP);
    binary.send(exact.as_bytes());
    let answer = parse_response(&binary.next_line("exactly the cap"));
    assert_eq!(
        answer["result"]["annotations"]["destructiveHint"], false,
        "{answer}"
    );

    binary.send(padded(CAP + 1, 2).as_bytes());
    let answer = parse_response(&binary.next_line("one byte over"));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer.get("id"), None, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too large") && message.contains(&CAP.to_string()),
        "{message}"
    );
    binary.ping("after one byte over");

    // Several oversized lines in a row, one of them not even JSON, each get
    // their own answer.
    for (number, line) in [
        vec![b'['; HUGE],
        vec![b' '; CAP + 1],
        padded(HUGE, 3).into_bytes(),
    ]
    .iter()
    .enumerate()
    {
        binary.send(line);
        let answer = parse_response(&binary.next_line(&format!("oversized line {number}")));
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
    }
    binary.ping("after the oversized lines");
    binary.finish();
}

/// Deep nesting never overflows the binary's stack: the envelope is read
/// iteratively, and what `ping` ignores is never decoded, at any depth.
#[test]
fn deep_nesting_does_not_overflow_the_binary_stack() {
    let mut binary = initialized("deep");
    for depth in [100, 200, 1_000, cases::DEEP, 1_000_000] {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        binary.send(message.as_bytes());
        let answer: Value = parse_response(&binary.next_line(&format!("depth {depth}")));
        assert_eq!(answer["result"], json!({}), "depth {depth}: {answer}");
        binary.ping(&format!("after depth {depth}"));
    }
    binary.finish();
}
