//! What a `tools/call` running beside the session shares with it: the
//! handler's view of cancellation and progress ([`CallControl`]), the id it is
//! known by ([`RequestKey`]), and the lines it sends ([`Outgoing`]).
//!
//! The stdio transport ([`super::stdio`](crate::server::transport::stdio)) runs each call on a worker thread;
//! the reading thread keeps answering the session's other requests, and
//! reads `notifications/cancelled` to set the flag of the call it names.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, mpsc};

use serde::Deserialize;
use serde_json::value::RawValue;

/// A line for the session's output, sent by a worker or a handler; `Stop`
/// ends the thread that writes them.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A whole message, its line ending included.
    Line(Vec<u8>),
    Stop,
}

/// Where a call stands, as far as its answer goes, and the last progress it
/// sent.
#[derive(Debug)]
struct State {
    phase: Phase,
    progress: Option<f64>,
}

/// Where a call stands, as far as its answer goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The handler runs (or is about to): progress goes out.
    Running,
    /// `notifications/cancelled` named it: nothing more goes out for it.
    Cancelled,
    /// Its answer went out: nothing more goes out for it.
    Done,
}

/// The cancellation flag and progress channel of one call in flight.
///
/// Every line that goes out for the call (progress, then the answer) is sent
/// while `state` is held, so none can follow the answer, and none goes out
/// once the call was cancelled.
pub(crate) struct CallControl {
    cancelled: AtomicBool,
    state: Mutex<State>,
    /// The request's `_meta.progressToken`, as written.
    progress_token: Option<Box<str>>,
    output: mpsc::Sender<Outgoing>,
}

impl CallControl {
    pub(crate) fn new(progress_token: Option<Box<str>>, output: mpsc::Sender<Outgoing>) -> Self {
        CallControl {
            cancelled: AtomicBool::new(false),
            state: Mutex::new(State {
                phase: Phase::Running,
                progress: None,
            }),
            progress_token,
            output,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while it was held left a valid state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the client cancelled the call (or the session ended for it).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Whether the request carried a `progressToken`.
    pub(crate) fn reports_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Marks the call cancelled, unless its answer already went out.
    pub(crate) fn cancel(&self) {
        let mut state = self.state();
        if state.phase == Phase::Running {
            state.phase = Phase::Cancelled;
            self.cancelled.store(true, Ordering::Relaxed);
        }
    }

    /// Sends the call's answer (a whole line), unless it was cancelled: then
    /// the answer is dropped, as the specification asks. Says whether it went.
    pub(crate) fn finish(&self, answer: Vec<u8>) -> bool {
        let mut state = self.state();
        if state.phase != Phase::Running {
            return false;
        }
        state.phase = Phase::Done;
        // A closed channel: the session is over, nobody reads answers.
        self.output.send(Outgoing::Line(answer)).is_ok()
    }

    /// Sends `notifications/progress` with the request's token, while the
    /// call runs; nothing without a token, for a number that is not finite,
    /// or for progress that does not grow (the specification asks it to grow
    /// with each notification).
    pub(crate) fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        if !progress.is_finite() || total.is_some_and(|total| !total.is_finite()) {
            return;
        }
        let mut line = Vec::with_capacity(96 + token.len() + message.map_or(0, str::len));
        line.extend_from_slice(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
        );
        line.extend_from_slice(token.as_bytes());
        line.extend_from_slice(br#","progress":"#);
        write_number(&mut line, progress);
        if let Some(total) = total {
            line.extend_from_slice(br#","total":"#);
            write_number(&mut line, total);
        }
        if let Some(message) = message {
            line.extend_from_slice(br#","message":"#);
            serde_json::to_writer(&mut line, message).expect("a string always serializes");
        }
        line.extend_from_slice(b"}}\n");
        let mut state = self.state();
        if state.phase == Phase::Running && state.progress.is_none_or(|last| progress > last) {
            state.progress = Some(progress);
            let _ = self.output.send(Outgoing::Line(line));
        }
    }
}

/// A finite number, as an integer when it is one.
fn write_number(out: &mut Vec<u8>, number: f64) {
    // 2^53: every integer below it is exact in an f64.
    if number.fract() == 0.0 && number.abs() < 9_007_199_254_740_992.0 {
        // Exact: checked just above.
        #[allow(clippy::cast_possible_truncation)]
        let integer = number as i64;
        out.extend_from_slice(integer.to_string().as_bytes());
    } else {
        serde_json::to_writer(&mut *out, &number).expect("a finite number always serializes");
    }
}

impl core::fmt::Debug for CallControl {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CallControl")
            .field("cancelled", &self.is_cancelled())
            .field("progress_token", &self.progress_token)
            .finish_non_exhaustive()
    }
}

/// A request id as JSON-RPC compares ids: a string by its characters, a
/// number by its value, whatever escapes or spelling carried them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RequestKey {
    Number(i128),
    Text(Box<str>),
}

impl RequestKey {
    /// The key of an id's JSON text; `None` for anything but a string or an
    /// integer.
    pub(crate) fn of(id: &str) -> Option<RequestKey> {
        if id.starts_with('"') {
            serde_json::from_str::<String>(id)
                .ok()
                .map(|text| RequestKey::Text(text.into_boxed_str()))
        } else {
            id.parse().ok().map(RequestKey::Number)
        }
    }

    /// The `requestId` a `notifications/cancelled` message names, if it
    /// names one this server could have been sent.
    pub(crate) fn cancelled_by(message: &[u8]) -> Option<RequestKey> {
        #[derive(Deserialize)]
        struct Notification<'a> {
            #[serde(borrow)]
            params: Option<Params<'a>>,
        }
        #[derive(Deserialize)]
        struct Params<'a> {
            #[serde(rename = "requestId", borrow)]
            request_id: Option<&'a RawValue>,
        }
        let notification: Notification<'_> = serde_json::from_slice(message).ok()?;
        RequestKey::of(notification.params?.request_id?.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_compare_as_json_rpc_compares_them() {
        assert_eq!(RequestKey::of("\"a\""), RequestKey::of("\"\\u0061\""));
        assert_eq!(RequestKey::of("7"), Some(RequestKey::Number(7)));
        assert_ne!(RequestKey::of("7"), RequestKey::of("\"7\""));
        assert_eq!(RequestKey::of("1.5"), None);
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":"r"}}"#;
        assert_eq!(
            RequestKey::cancelled_by(cancel),
            Some(RequestKey::Text("x".into()))
        );
        assert_eq!(RequestKey::cancelled_by(b"{}"), None);
    }

    #[test]
    fn progress_goes_out_while_the_call_runs_and_never_after() {
        let (sender, receiver) = mpsc::channel();
        let control = CallControl::new(Some("\"t\"".into()), sender);
        control.progress(1.0, Some(4.0), Some("one \"of\" four"));
        control.progress(1.0, Some(4.0), None);
        control.progress(1.5, None, None);
        control.progress(f64::NAN, None, None);
        assert!(control.finish(b"answer\n".to_vec()));
        control.progress(2.0, None, None);
        control.cancel();
        assert!(!control.is_cancelled(), "the answer already went");
        let lines: Vec<String> = receiver
            .try_iter()
            .map(|outgoing| match outgoing {
                Outgoing::Line(line) => String::from_utf8(line).unwrap(),
                Outgoing::Stop => unreachable!(),
            })
            .collect();
        assert_eq!(
            lines,
            [
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1,\"total\":4,\"message\":\"one \\\"of\\\" four\"}}\n",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1.5}}\n",
                "answer\n",
            ]
        );
    }

    #[test]
    fn a_cancelled_call_sends_nothing_more() {
        let (sender, receiver) = mpsc::channel();
        let control = CallControl::new(Some("1".into()), sender);
        control.cancel();
        assert!(control.is_cancelled());
        control.progress(1.0, None, None);
        assert!(!control.finish(b"answer\n".to_vec()));
        assert!(receiver.try_recv().is_err());
    }
}
