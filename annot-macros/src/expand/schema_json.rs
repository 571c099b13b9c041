//! A small JSON value for building schemas at compile time, rendered to text
//! with holes (`Fill`) for the parts only the compiler or the runtime knows.

/// A JSON value; objects keep the order they were built in.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Bool(bool),
    /// A number, as JSON text.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
    /// A hole, filled by the generated code (index into the fills).
    Fill(usize),
}

/// Rendered JSON: text, and holes between.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Text(String),
    Fill(usize),
}

impl Json {
    pub fn str(text: &str) -> Json {
        Json::String(text.to_owned())
    }

    pub fn object<const N: usize>(members: [(&str, Json); N]) -> Json {
        Json::Object(
            members
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    pub fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Json {
        Json::Array(items.into_iter().map(Json::str).collect())
    }

    /// Renders to text pieces, adjacent text merged.
    pub fn render(&self) -> Vec<Piece> {
        let mut pieces = Vec::new();
        self.write(&mut pieces);
        pieces
    }

    /// The text, with holes written as `<fill N>` (for comparisons and tests).
    pub fn text(&self) -> String {
        self.render()
            .into_iter()
            .map(|piece| match piece {
                Piece::Text(text) => text,
                Piece::Fill(index) => format!("<fill {index}>"),
            })
            .collect()
    }

    fn write(&self, out: &mut Vec<Piece>) {
        match self {
            Json::Bool(value) => push(out, if *value { "true" } else { "false" }),
            Json::Number(text) => push(out, text),
            Json::String(text) => push(out, &escape(text)),
            Json::Array(items) => {
                push(out, "[");
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        push(out, ",");
                    }
                    item.write(out);
                }
                push(out, "]");
            }
            Json::Object(members) => {
                push(out, "{");
                for (index, (key, value)) in members.iter().enumerate() {
                    if index > 0 {
                        push(out, ",");
                    }
                    push(out, &escape(key));
                    push(out, ":");
                    value.write(out);
                }
                push(out, "}");
            }
            Json::Fill(index) => out.push(Piece::Fill(*index)),
        }
    }
}

fn push(out: &mut Vec<Piece>, text: &str) {
    if let Some(Piece::Text(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(Piece::Text(text.to_owned()));
    }
}

/// A JSON string literal (with quotes).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
        assert_eq!(escape("é"), "\"é\"");
    }

    #[test]
    fn holes_split_the_text() {
        let json = Json::object([
            ("type", Json::str("object")),
            ("x", Json::Fill(0)),
            (
                "y",
                Json::Array(vec![Json::Bool(true), Json::Number("1".into())]),
            ),
        ]);
        assert_eq!(
            json.render(),
            vec![
                Piece::Text(r#"{"type":"object","x":"#.into()),
                Piece::Fill(0),
                Piece::Text(r#","y":[true,1]}"#.into()),
            ]
        );
        assert_eq!(
            json.text(),
            r#"{"type":"object","x":<fill 0>,"y":[true,1]}"#
        );
    }
}
