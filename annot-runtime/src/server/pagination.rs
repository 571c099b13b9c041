//! The pages of `tools/list`, rendered once, and their cursors.

use std::hash::Hasher;

use super::registry::ToolEntry;
use super::render::FxHasher;
use crate::protocol::{RpcError, error_code};

/// Every `tools/list` result, one per page.
#[derive(Debug)]
pub(crate) struct ToolPages {
    pages: Vec<Box<str>>,
    /// `cursors[i]` is the cursor that fetches page `i` (`cursors[0]` is never
    /// issued: the first page is asked for without one).
    cursors: Vec<Box<str>>,
}

impl ToolPages {
    /// Splits `tools`, in order, into pages of `page_size` (at least 1).
    pub fn render(tools: &[ToolEntry], page_size: usize) -> Self {
        let chunks: Vec<&[ToolEntry]> = if tools.is_empty() {
            vec![&[]]
        } else {
            tools.chunks(page_size).collect()
        };
        // The cursor carries a fingerprint of the tool set, so a cursor of another
        // server (or of an earlier build of this one) is refused, not misread.
        let mut fingerprint = FxHasher::default();
        for tool in tools {
            fingerprint.write(tool.name().as_bytes());
            fingerprint.write_u8(0);
        }
        fingerprint.write_usize(page_size);
        let fingerprint = fingerprint.finish();
        let cursors: Vec<Box<str>> = (0..chunks.len())
            .map(|page| format!("{fingerprint:016x}.{page}").into_boxed_str())
            .collect();

        let pages = chunks
            .iter()
            .enumerate()
            .map(|(page, chunk)| {
                let mut json = String::from("{\"tools\":[");
                for (index, tool) in chunk.iter().enumerate() {
                    if index > 0 {
                        json.push(',');
                    }
                    json.push_str(tool.listed());
                }
                json.push(']');
                if let Some(next) = cursors.get(page + 1) {
                    json.push_str(&format!(",\"nextCursor\":\"{next}\""));
                }
                json.push('}');
                json.into_boxed_str()
            })
            .collect();
        ToolPages { pages, cursors }
    }

    /// The page a cursor names; the first page without one.
    pub fn page(&self, cursor: Option<&str>) -> Result<&str, RpcError> {
        let index = match cursor {
            None => 0,
            Some(cursor) => self
                .cursors
                .iter()
                .skip(1)
                .position(|issued| **issued == *cursor)
                .map(|position| position + 1)
                .ok_or_else(|| {
                    RpcError::new(
                        error_code::INVALID_PARAMS,
                        "unknown cursor: pass a nextCursor of this server's tools/list",
                    )
                })?,
        };
        Ok(&self.pages[index])
    }
}
