//! The stdio transport: newline-delimited JSON, one message per line.

use std::io::{self, BufRead, ErrorKind, Write};

use super::state::Server;
use super::{Connection, jsonrpc};
use crate::protocol::{RpcError, error_code};

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
pub(crate) fn serve(
    mut connection: Connection,
    reader: impl BufRead,
    mut writer: impl Write,
    max_message_size: usize,
) -> io::Result<()> {
    let mut lines = LineReader::new(reader, max_message_size);
    // One buffer for every answer, kept between them up to
    // `KEPT_RESPONSE_CAPACITY`.
    let mut response = Vec::new();
    while let Some(line) = lines.next_message()? {
        response.clear();
        match line {
            Line::Message(message) => {
                if !connection.handle_into(message, &mut response) {
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
        match writer.write_all(&response).and_then(|()| writer.flush()) {
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

impl Server {
    /// Serves one session over stdin and stdout until stdin ends; see
    /// [`Server::serve`].
    pub fn serve_stdio(&self) -> io::Result<()> {
        let stdin = io::stdin();
        let stdout = io::stdout();
        self.serve(stdin.lock(), stdout.lock())
    }

    /// Serves one session of newline-delimited JSON: each line read is one
    /// message, each response is written as one line and flushed at once.
    /// Returns `Ok` when the input ends or the peer closes the output.
    ///
    /// A line longer than
    /// [`ServerBuilder::max_message_size`](super::ServerBuilder::max_message_size)
    /// is skipped without being buffered whole and answered with a `-32600`
    /// error without an id.
    pub fn serve(&self, reader: impl BufRead, writer: impl Write) -> io::Result<()> {
        serve(self.connect(), reader, writer, self.state.max_message_size)
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
