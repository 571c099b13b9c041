//! Errors in rule text: each at a line and a column of the text it was
//! found in, with that line and a caret under the offending tokens, in the
//! shape rustc gives the macro's.

use core::fmt;

/// One error in rule text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// Which text: `rules of the tool`, `rules of action `delete``...
    pub origin: String,
    /// What is wrong, with a suggestion where one is close; further lines
    /// (`expected one of: ...`) after a `\n`.
    pub message: String,
    /// Where, when the error has a place in the text.
    pub location: Option<Location>,
}

/// A range of rule text, 1-based lines and columns (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
    /// The last line of the range, and the column just past its end.
    pub end_line: usize,
    pub end_column: usize,
    /// The whole line the range starts on.
    pub line_text: String,
    /// The text of the range itself.
    pub snippet: String,
}

/// Every error of one compilation, in the order found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleErrors(pub Vec<RuleError>);

impl RuleErrors {
    /// The errors, in the order found.
    pub fn errors(&self) -> &[RuleError] {
        &self.0
    }
}

impl std::error::Error for RuleErrors {}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = self.message.lines();
        writeln!(f, "error: {}", lines.next().unwrap_or_default())?;
        let Some(at) = &self.location else {
            writeln!(f, "  --> {}", self.origin)?;
            return notes(f, lines, 0);
        };
        let number = at.line.to_string();
        let gutter = " ".repeat(number.len());
        writeln!(
            f,
            "{gutter}--> {}, line {}, column {}",
            self.origin, at.line, at.column
        )?;
        writeln!(f, "{gutter} |")?;
        writeln!(f, "{number} | {}", at.line_text)?;
        // The caret runs to the end of the range, or of the line it starts on.
        let width = if at.end_line == at.line {
            at.end_column.saturating_sub(at.column).max(1)
        } else {
            (at.line_text.chars().count() + 1)
                .saturating_sub(at.column)
                .max(1)
        };
        writeln!(
            f,
            "{gutter} | {}{}",
            " ".repeat(at.column - 1),
            "^".repeat(width)
        )?;
        notes(f, lines, gutter.len())
    }
}

fn notes<'a>(
    f: &mut fmt::Formatter<'_>,
    lines: impl Iterator<Item = &'a str>,
    indent: usize,
) -> fmt::Result {
    for line in lines {
        writeln!(f, "{} = note: {line}", " ".repeat(indent))?;
    }
    Ok(())
}

impl fmt::Display for RuleErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.0.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

/// The errors of `error` (combined), placed in `text`, lexed on this
/// thread (spans are read from the thread's source map).
pub(super) fn place(error: syn::Error, origin: &str, text: &str, into: &mut Vec<RuleError>) {
    for one in error {
        let span = one.span();
        let range = span.byte_range();
        let location = (range.end > 0 || range.start > 0).then(|| {
            let start = span.start();
            let end = span.end();
            Location {
                line: start.line,
                column: start.column + 1,
                end_line: end.line,
                end_column: end.column + 1,
                line_text: text
                    .lines()
                    .nth(start.line - 1)
                    .unwrap_or_default()
                    .to_owned(),
                snippet: text.get(range).unwrap_or_default().to_owned(),
            }
        });
        into.push(RuleError {
            origin: origin.to_owned(),
            message: one.to_string(),
            location,
        });
    }
}
