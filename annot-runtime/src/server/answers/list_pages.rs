//! `tools/list`: its pages, rendered once, their cursors, and the answer.

use std::hash::Hasher;

use crate::protocol::{RpcError, error_code};
use crate::read::Json;
use crate::server::answers::annotation_json::FxHasher;
use crate::server::answers::tool_forms::Listing;
use crate::server::registry::exposure::Exposed;
use crate::server::registry::tool_entry::ToolEntry;
use crate::server::transport::jsonrpc;
use crate::server::transport::request_params::{self, Params};

/// `tools/list`: a pre-rendered page of `pages` in `form`.
pub(crate) fn answer(
    out: &mut Vec<u8>,
    pages: &ToolPages,
    id: Json<'_>,
    params: &Params<'_>,
    form: PageForm,
) -> Result<(), RpcError> {
    let cursor = request_params::raw_optional_string(params.fields.cursor, "cursor")?;
    let page = pages.page(cursor.as_deref(), form)?;
    jsonrpc::result(out, id, page);
    Ok(())
}

/// Which `tools/list` results a request gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageForm {
    /// A handshake session without the extension.
    Legacy,
    /// A handshake session that negotiated the extension.
    LegacyExtension,
    /// A 2026-07-28 request without the extension.
    Modern,
    /// A 2026-07-28 request with the extension.
    ModernExtension,
}

impl PageForm {
    const ALL: [PageForm; 4] = [
        PageForm::Legacy,
        PageForm::LegacyExtension,
        PageForm::Modern,
        PageForm::ModernExtension,
    ];

    /// The form for a request: 2026-07-28 or not, extension or not.
    pub fn of(modern: bool, extension: bool) -> Self {
        match (modern, extension) {
            (false, false) => PageForm::Legacy,
            (false, true) => PageForm::LegacyExtension,
            (true, false) => PageForm::Modern,
            (true, true) => PageForm::ModernExtension,
        }
    }

    fn listing(self) -> Listing {
        match self {
            PageForm::Legacy => Listing::Legacy,
            PageForm::Modern => Listing::Modern,
            PageForm::LegacyExtension | PageForm::ModernExtension => Listing::Extension,
        }
    }

    fn modern(self) -> bool {
        matches!(self, PageForm::Modern | PageForm::ModernExtension)
    }

    fn extension(self) -> bool {
        matches!(self, PageForm::LegacyExtension | PageForm::ModernExtension)
    }
}

/// Every `tools/list` result, one per page and [`PageForm`].
#[derive(Debug)]
pub(crate) struct ToolPages {
    /// `forms[form as usize][page]`.
    forms: [Vec<Box<str>>; 4],
    /// `cursors[form as usize][i]` is the cursor that fetches page `i`
    /// (`[0]` is never issued: the first page is asked for without one). A
    /// form's cursors name its own tool set, so a cursor of a listing of
    /// another [`Exposure`](crate::server::Exposure) form is refused.
    cursors: [Vec<Box<str>>; 4],
}

impl ToolPages {
    /// Splits the tools each form lists (`exposed`, indices into `tools`),
    /// in order, into pages of `page_size` (at least 1). `modern_tail` closes
    /// a 2026-07-28 result: its `resultType`, caching hints and `_meta`, each
    /// after a comma. A tool a profile left nothing of is not listed.
    pub fn render(
        tools: &[ToolEntry],
        exposed: &Exposed,
        page_size: usize,
        modern_tail: &str,
    ) -> Self {
        let rendered = PageForm::ALL.map(|form| {
            let listed: Vec<&ToolEntry> = exposed
                .listed_to(form.extension())
                .iter()
                .map(|&index| &tools[index])
                .filter(|tool| tool.is_listed())
                .collect();
            render_form(&listed, form, page_size, modern_tail)
        });
        let [legacy, legacy_extension, modern, modern_extension] = rendered;
        ToolPages {
            forms: [legacy.0, legacy_extension.0, modern.0, modern_extension.0],
            cursors: [legacy.1, legacy_extension.1, modern.1, modern_extension.1],
        }
    }

    /// The page a cursor names, in `form`; the first page without one.
    // Inlined into `tools/list`, as it was before the server's modules moved.
    #[inline]
    pub fn page(&self, cursor: Option<&str>, form: PageForm) -> Result<&str, RpcError> {
        let index = match cursor {
            None => 0,
            Some(cursor) => self.cursors[form as usize]
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
        Ok(&self.forms[form as usize][index])
    }
}

/// The pages of one form, and their cursors.
fn render_form(
    tools: &[&ToolEntry],
    form: PageForm,
    page_size: usize,
    modern_tail: &str,
) -> (Vec<Box<str>>, Vec<Box<str>>) {
    let chunks: Vec<&[&ToolEntry]> = if tools.is_empty() {
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
                json.push_str(tool.listed(form.listing()));
            }
            json.push(']');
            if let Some(next) = cursors.get(page + 1) {
                json.push_str(&format!(",\"nextCursor\":\"{next}\""));
            }
            if form.modern() {
                json.push_str(modern_tail);
            }
            json.push('}');
            json.into_boxed_str()
        })
        .collect();
    (pages, cursors)
}
