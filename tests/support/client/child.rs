//! A server run as a child process speaking JSON-RPC lines on stdio, as a
//! client's byte exchange: each request line gets the next response line
//! (notifications the server sends in between are skipped), a notification
//! gets nothing. Reading is bounded, and the child is killed on drop.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::Value;

/// Generous for a debug build on a loaded machine; a hang fails instead.
const BOUND: Duration = Duration::from_secs(90);

pub struct ChildServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl ChildServer {
    /// Starts `binary` with `args`.
    pub fn spawn(binary: &Path, args: &[&std::ffi::OsStr]) -> Self {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        ChildServer {
            child,
            stdin,
            lines,
        }
    }

    /// Sends one message; for a request, returns the response line.
    pub fn exchange(&mut self, message: &[u8]) -> Option<Vec<u8>> {
        self.stdin.write_all(message).expect("write to the server");
        self.stdin.write_all(b"\n").expect("write to the server");
        self.stdin.flush().expect("flush");
        let sent: Value = serde_json::from_slice(message).expect("the client sends JSON");
        sent.get("id")?;
        loop {
            let line = self
                .lines
                .recv_timeout(BOUND)
                .expect("the server answers in time");
            let answer: Value = serde_json::from_str(&line).expect("the server sends JSON");
            if answer.get("id").is_some() && answer.get("method").is_none() {
                return Some(line.into_bytes());
            }
        }
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
