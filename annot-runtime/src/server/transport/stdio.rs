//! The stdio transport: newline-delimited JSON, one message per line.

use std::collections::HashMap;
use std::io::{self, BufRead, ErrorKind, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::thread;

use serde_json::json;

use crate::protocol::{RpcError, error_code};
use crate::read::Json;
use crate::server::registry::server_state::{Server, ServerState};
use crate::server::transport::connection::{Connection, Deferred, PendingCall, answer_call};
use crate::server::transport::in_flight::{CallControl, Outgoing, RequestKey};
use crate::server::transport::jsonrpc;

/// What the next line of input holds.
#[derive(Debug, PartialEq, Eq)]
enum Line<'a> {
    /// A message, without its line ending and surrounding whitespace.
    Message(&'a [u8]),
    /// A line longer than the limit; its bytes were read and dropped.
    Oversized,
}

/// Reads one message per line, holding at most `limit` bytes of a line: the
/// single place that reads input, so the cap on one message lives here.
struct LineReader<R> {
    reader: R,
    line: Vec<u8>,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    fn new(reader: R, limit: usize) -> Self {
        LineReader {
            reader,
            line: Vec::new(),
            limit,
        }
    }

    /// The next non-blank line, or `None` at the end of the input.
    fn next_message(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            self.line.clear();
            let Some(oversized) = self.read_line()? else {
                return Ok(None);
            };
            if oversized {
                return Ok(Some(Line::Oversized));
            }
            let not_blank = |byte: &u8| !byte.is_ascii_whitespace();
            if let Some(start) = self.line.iter().position(not_blank) {
                let end = self
                    .line
                    .iter()
                    .rposition(not_blank)
                    .map_or(start, |last| last + 1);
                return Ok(Some(Line::Message(&self.line[start..end])));
            }
        }
    }

    /// Reads up to and including the next `\n` (or the end of the input) into
    /// `self.line`, keeping no more than `limit` bytes: past that the rest of
    /// the line is consumed chunk by chunk and dropped. Returns whether the
    /// line was too long, or `None` when the input had already ended.
    fn read_line(&mut self) -> io::Result<Option<bool>> {
        let mut read_any = false;
        let mut oversized = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(read_any.then_some(oversized));
            }
            read_any = true;
            let newline = available.iter().position(|byte| *byte == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            if !oversized {
                if self.line.len() + chunk.len() > self.limit {
                    oversized = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let used = newline.map_or(available.len(), |at| at + 1);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(Some(oversized));
            }
        }
    }
}

/// Serves `connection` until the input ends or the peer stops reading. Lines
/// longer than `max_message_size` bytes are answered with `-32600`.
///
/// This thread reads, and answers every request but `tools/call` itself, in
/// the order they come. Each call runs on a worker thread (at most
/// `max_concurrent_calls` of them, started as calls first need them and kept
/// for the session); what workers and handlers send (progress, answers)
/// goes through one thread that writes it. Every line is written whole under
/// one lock, so that messages never interleave.
pub(crate) fn serve<W: Write + Send>(
    mut connection: Connection,
    state: &ServerState,
    reader: impl BufRead,
    writer: W,
) -> io::Result<()> {
    connection.run_calls_beside();
    let output = Output {
        writer: Mutex::new(writer),
        closed: AtomicBool::new(false),
        failed: Mutex::new(None),
    };
    let running = Running {
        calls: Mutex::new(HashMap::new()),
        count: AtomicUsize::new(0),
    };
    let (jobs, waiting) = mpsc::channel();
    let waiting = Mutex::new(waiting);
    let (lines, to_write) = mpsc::channel();
    thread::scope(|scope| {
        let mut calls = Calls {
            scope,
            state,
            output: &output,
            running: &running,
            waiting: &waiting,
            jobs: Some(jobs),
            lines,
            to_write: Some(to_write),
            workers: Vec::new(),
            writer: None,
        };
        let read = read(&mut connection, &mut calls, reader, state.max_message_size);
        if read.is_err() || output.closed.load(Ordering::Relaxed) {
            // Nobody reads their answers: let the handlers stop early.
            running.cancel_all();
        }
        calls.finish();
        read?;
        match lock(&output.failed).take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    })
}

/// The reading loop of [`serve`]: reads and answers until the input ends or
/// the output closes.
fn read<W: Write + Send>(
    connection: &mut Connection,
    calls: &mut Calls<'_, '_, W>,
    reader: impl BufRead,
    max_message_size: usize,
) -> io::Result<()> {
    let mut lines = LineReader::new(reader, max_message_size);
    // One buffer for every answer, kept between them up to
    // `KEPT_RESPONSE_CAPACITY`.
    let mut response = Vec::new();
    while let Some(line) = lines.next_message()? {
        // The writing thread found the output closed: nobody reads answers.
        if calls.output.closed.load(Ordering::Relaxed) {
            return Ok(());
        }
        response.clear();
        match line {
            Line::Message(message) => {
                let mut answered = connection.handle_into(message, &mut response);
                let mut deferred = connection.take_deferred();
                for deferred in deferred.drain(..) {
                    match deferred {
                        Deferred::Call(mut call) => {
                            call.message = message.to_vec();
                            answered |= calls.start(call, &mut response);
                        }
                        Deferred::Cancel(key) => calls.running.cancel(&key),
                    }
                }
                connection.give_back(deferred);
                if !answered {
                    continue;
                }
            }
            // No id can be read from a message that was never held whole.
            Line::Oversized => jsonrpc::error(
                &mut response,
                None,
                &RpcError::new(
                    error_code::INVALID_REQUEST,
                    format!(
                        "message too large: a line of more than {max_message_size} bytes \
                         was discarded"
                    ),
                ),
            ),
        }
        response.push(b'\n');
        match calls.output.write(&response) {
            Ok(()) => {}
            // The client closed its end: the session is over, not failed.
            Err(error) if error.kind() == ErrorKind::BrokenPipe => return Ok(()),
            Err(error) => return Err(error),
        }
        // A rare long answer (a large page, a batch) is not held for good.
        response.shrink_to(KEPT_RESPONSE_CAPACITY);
    }
    Ok(())
}

/// The most a session's answer buffer keeps between messages, in bytes.
const KEPT_RESPONSE_CAPACITY: usize = 64 * 1024;

/// A lock that a panic elsewhere left as valid as it was.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The session's output, written a whole line at a time.
struct Output<W> {
    writer: Mutex<W>,
    /// The writer failed (the peer closed its end, or another error, kept
    /// in `failed`): nothing more is written.
    closed: AtomicBool,
    failed: Mutex<Option<io::Error>>,
}

impl<W: Write> Output<W> {
    /// Writes one line (its line ending included) and flushes it.
    fn write(&self, line: &[u8]) -> io::Result<()> {
        let mut writer = lock(&self.writer);
        let written = writer.write_all(line).and_then(|()| writer.flush());
        if written.is_err() {
            self.closed.store(true, Ordering::Relaxed);
        }
        written
    }
}

/// The calls in flight, by request id.
struct Running {
    calls: Mutex<HashMap<RequestKey, Arc<CallControl>>>,
    /// How many: the entries of `calls`, read without its lock.
    count: AtomicUsize,
}

impl Running {
    /// `notifications/cancelled` named `key`: if it runs, its handler sees
    /// the flag and its answer is dropped.
    fn cancel(&self, key: &RequestKey) {
        if let Some(control) = lock(&self.calls).get(key) {
            control.cancel();
        }
    }

    fn cancel_all(&self) {
        for control in lock(&self.calls).values() {
            control.cancel();
        }
    }

    /// The call `key` no longer runs.
    fn release(&self, key: &RequestKey) {
        lock(&self.calls).remove(key);
        self.count.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A call handed to a worker.
struct Job {
    call: PendingCall,
    key: RequestKey,
    control: Arc<CallControl>,
}

/// The calls of one session: the workers that run them, and the thread that
/// writes what they send. Nothing starts before the first call.
struct Calls<'scope, 'env, W> {
    scope: &'scope thread::Scope<'scope, 'env>,
    state: &'env ServerState,
    output: &'env Output<W>,
    running: &'env Running,
    /// Where idle workers wait for a job.
    waiting: &'env Mutex<mpsc::Receiver<Job>>,
    jobs: Option<mpsc::Sender<Job>>,
    /// What workers and handlers send, to the writing thread.
    lines: mpsc::Sender<Outgoing>,
    to_write: Option<mpsc::Receiver<Outgoing>>,
    workers: Vec<thread::ScopedJoinHandle<'scope, ()>>,
    writer: Option<thread::ScopedJoinHandle<'scope, ()>>,
}

impl<'scope, 'env: 'scope, W: Write + Send> Calls<'scope, 'env, W> {
    /// Starts `call` on a worker, or answers it at once into `response`
    /// when it cannot run: the session runs as many calls as it may, or one
    /// with the same id. Says whether it answered.
    fn start(&mut self, mut call: PendingCall, response: &mut Vec<u8>) -> bool {
        let id = Json::checked(&call.id);
        let Some(key) = RequestKey::of(&call.id) else {
            // An id the session accepted is a string or an integer.
            let error = RpcError::new(error_code::INTERNAL_ERROR, "internal error");
            jsonrpc::error(response, Some(id), &error);
            return true;
        };
        let bound = self.state.max_concurrent_calls;
        if self.running.count.load(Ordering::Relaxed) >= bound {
            let error = RpcError::new(
                error_code::SERVER_BUSY,
                format!(
                    "server busy: {bound} calls are running, the most this server runs at once; \
                     send it again once one is answered"
                ),
            )
            .with_data(json!({ "maxConcurrentCalls": bound }));
            jsonrpc::error(response, Some(id), &error);
            return true;
        }
        let control = Arc::new(CallControl::new(
            call.progress_token.take(),
            self.lines.clone(),
        ));
        {
            let mut running = lock(&self.running.calls);
            if running.contains_key(&key) {
                let error = RpcError::new(
                    error_code::INVALID_REQUEST,
                    "a call with this id is still running: ids of requests in flight must differ",
                );
                jsonrpc::error(response, Some(id), &error);
                return true;
            }
            running.insert(key.clone(), Arc::clone(&control));
        }
        // Only this thread adds, so the bound checked above holds.
        let in_flight = self.running.count.fetch_add(1, Ordering::Relaxed) + 1;
        self.start_writer();
        if self.workers.len() < in_flight {
            let (state, running, waiting) = (self.state, self.running, self.waiting);
            self.workers
                .push(self.scope.spawn(move || work(state, running, waiting)));
        }
        let job = Job { call, key, control };
        if let Some(jobs) = &self.jobs {
            // The workers wait until this sender is dropped.
            let _ = jobs.send(job);
        }
        false
    }

    fn start_writer(&mut self) {
        if let Some(to_write) = self.to_write.take() {
            let output = self.output;
            self.writer = Some(self.scope.spawn(move || write_calls(&to_write, output)));
        }
    }

    /// Lets the calls in flight finish and their answers be written, then
    /// stops every thread.
    fn finish(mut self) {
        drop(self.jobs.take());
        for worker in self.workers.drain(..) {
            // A panic outside a handler is the scope's to report.
            let _ = worker.join();
        }
        if let Some(writer) = self.writer.take() {
            let _ = self.lines.send(Outgoing::Stop);
            let _ = writer.join();
        }
    }
}

/// A worker: runs calls until the session ends.
fn work(state: &ServerState, running: &Running, waiting: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        let Ok(job) = lock(waiting).recv() else {
            return;
        };
        let mut answer = Vec::new();
        // A call cancelled before it started does not start.
        if !job.control.is_cancelled() {
            answer_call(state, &job.call, &job.control, &mut answer);
            answer.push(b'\n');
        }
        // Released before its answer goes, so that a client that sends
        // another call on reading it finds room.
        running.release(&job.key);
        job.control.finish(answer);
    }
}

/// The thread that writes what workers and handlers send, until told to
/// stop; after a write error, what comes is dropped.
fn write_calls<W: Write>(lines: &mpsc::Receiver<Outgoing>, output: &Output<W>) {
    for outgoing in lines {
        match outgoing {
            Outgoing::Stop => return,
            Outgoing::Line(_) if output.closed.load(Ordering::Relaxed) => {}
            Outgoing::Line(line) => {
                if let Err(error) = output.write(&line)
                    && error.kind() != ErrorKind::BrokenPipe
                {
                    lock(&output.failed).get_or_insert(error);
                }
            }
        }
    }
}

impl Server {
    /// Serves one session over stdin and stdout until stdin ends; see
    /// [`Server::serve`].
    pub fn serve_stdio(&self) -> io::Result<()> {
        let stdin = io::stdin();
        self.serve(stdin.lock(), io::stdout())
    }

    /// Serves one session of newline-delimited JSON: each line read is one
    /// message, each response is written as one line and flushed at once.
    /// Returns `Ok` when the input ends (once the calls in flight are
    /// answered) or the peer closes the output.
    ///
    /// `tools/call`s run beside the session, each on a worker thread, at most
    /// [`ServerBuilder::max_concurrent_calls`](crate::server::ServerBuilder::max_concurrent_calls)
    /// at once: a slow call holds up nothing else, and its answer comes when
    /// it is ready, possibly after answers to later requests (JSON-RPC
    /// matches them by id). `notifications/cancelled` sets the call's
    /// [`Call::is_cancelled`](crate::server::Call::is_cancelled) and drops its
    /// answer; a handler sends progress with
    /// [`Call::progress`](crate::server::Call::progress). Every other request is
    /// answered on the reading thread, in order. A batch is answered as one
    /// array, its calls run within it. See the serving chapter, "Concurrent
    /// calls".
    ///
    /// A line longer than
    /// [`ServerBuilder::max_message_size`](crate::server::ServerBuilder::max_message_size)
    /// is skipped without being buffered whole and answered with a `-32600`
    /// error without an id.
    pub fn serve(&self, reader: impl BufRead, writer: impl Write + Send) -> io::Result<()> {
        serve(self.connect(), &self.state, reader, writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_blank_lines_and_strips_line_endings() {
        let input: &[u8] = b"\n  {\"a\":1}\r\n\n{\"b\":2}";
        let mut lines = LineReader::new(input, 64);
        assert_eq!(
            lines.next_message().unwrap(),
            Some(Line::Message(b"{\"a\":1}"))
        );
        assert_eq!(
            lines.next_message().unwrap(),
            Some(Line::Message(b"{\"b\":2}"))
        );
        assert_eq!(lines.next_message().unwrap(), None);
    }

    #[test]
    fn drops_long_lines_and_reads_on() {
        // A tiny buffer, so the long line arrives in many chunks.
        let input: &[u8] = b"12345678\n123456789\nabc\n123456789";
        let mut lines = LineReader::new(io::BufReader::with_capacity(3, input), 8);
        assert_eq!(
            lines.next_message().unwrap(),
            Some(Line::Message(b"12345678"))
        );
        assert_eq!(lines.next_message().unwrap(), Some(Line::Oversized));
        assert!(lines.line.capacity() <= 16, "the long line was not held");
        assert_eq!(lines.next_message().unwrap(), Some(Line::Message(b"abc")));
        // An oversized last line without a line ending.
        assert_eq!(lines.next_message().unwrap(), Some(Line::Oversized));
        assert_eq!(lines.next_message().unwrap(), None);
    }
}
