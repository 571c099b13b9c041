//! The stdio transport: newline-delimited JSON, one message per line.

use std::io::{self, BufRead, ErrorKind, Write};

use super::Connection;

/// Reads one message per line. A single place reads input, so a cap on the size
/// of one message belongs here.
struct LineReader<R> {
    reader: R,
    line: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    fn new(reader: R) -> Self {
        LineReader {
            reader,
            line: Vec::new(),
        }
    }

    /// The next non-blank line without its line ending, or `None` at the end of
    /// the input.
    fn next_message(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line)? == 0 {
                return Ok(None);
            }
            let not_blank = |byte: &u8| !byte.is_ascii_whitespace();
            if let Some(start) = self.line.iter().position(not_blank) {
                let end = self
                    .line
                    .iter()
                    .rposition(not_blank)
                    .map_or(start, |last| last + 1);
                return Ok(Some(&self.line[start..end]));
            }
        }
    }
}

/// Serves `connection` until the input ends or the peer stops reading.
pub(crate) fn serve(
    mut connection: Connection,
    reader: impl BufRead,
    mut writer: impl Write,
) -> io::Result<()> {
    let mut lines = LineReader::new(reader);
    while let Some(message) = lines.next_message()? {
        let Some(mut response) = connection.handle(message) else {
            continue;
        };
        response.push(b'\n');
        match writer.write_all(&response).and_then(|()| writer.flush()) {
            Ok(()) => {}
            // The client closed its end: the session is over, not failed.
            Err(error) if error.kind() == ErrorKind::BrokenPipe => return Ok(()),
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_blank_lines_and_strips_line_endings() {
        let input: &[u8] = b"\n  {\"a\":1}\r\n\n{\"b\":2}";
        let mut lines = LineReader::new(input);
        assert_eq!(lines.next_message().unwrap(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(lines.next_message().unwrap(), Some(&b"{\"b\":2}"[..]));
        assert_eq!(lines.next_message().unwrap(), None);
    }
}
