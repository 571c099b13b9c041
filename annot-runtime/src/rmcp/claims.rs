//! The trust-annotations extension through rmcp: which calls get claims, the
//! helpers a handler marks its `CallToolResult` with, and the settling of a
//! handler's result, joined with the call's floor for a client that
//! negotiated the extension and stripped of every claim for one that did not.

use ::rmcp::model::{CallToolResult, ContentBlock, MetaObject};

use super::client::Client;

use crate::protocol::TRUST_ANNOTATIONS_EXTENSION;
use crate::server::Server;
use crate::trust::TrustClaims;

/// Whether a call gets claims: `server` offers the extension and the
/// client's capabilities (the request's own, or else the session's, as
/// rmcp's `RequestContext::client_capabilities` gives them, read in place)
/// take it up with empty settings. The built-in server's rule.
pub(super) fn negotiated(server: &Server, client: &Client<'_>) -> bool {
    server.offers_trust_annotations()
        && client
            .capabilities()
            .and_then(|capabilities| capabilities.extensions.as_ref())
            .is_some_and(|extensions| {
                extensions
                    .get(TRUST_ANNOTATIONS_EXTENSION)
                    .is_some_and(|settings| settings.is_empty())
            })
}

/// Adds `claims` to the whole result, under
/// `_meta["io.modelcontextprotocol/trust-annotations"]`, joined with any
/// claims already there: a later claim never weakens an earlier one. The
/// adapter then joins the call's floor with them, and sends them only to a
/// client that negotiated the extension.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rmcp::claim_result;
/// use annot::trust::TrustClaims;
/// use rmcp::model::{CallToolResult, ContentBlock};
///
/// let mut result = CallToolResult::success(vec![ContentBlock::text("roster")]);
/// claim_result(&mut result, &TrustClaims::NONE.sensitive());
/// claim_result(&mut result, &TrustClaims::NONE.untrusted());
/// let claims = &result.meta.unwrap().0["io.modelcontextprotocol/trust-annotations"];
/// assert_eq!(claims, &serde_json::json!({"sensitive": true, "untrusted": true}));
/// ```
pub fn claim_result(result: &mut CallToolResult, claims: &TrustClaims) {
    write(&mut result.meta, claims);
}

/// Adds `claims` to one content block's `_meta`, as [`claim_result`] does
/// for the whole result: a block's claim may raise the result's, never lower
/// it. A block kind without `_meta` in rmcp's model (none today) is left as
/// it is, and its claims go nowhere: claim the result instead.
pub fn claim_content(block: &mut ContentBlock, claims: &TrustClaims) {
    if let Some(meta) = block_meta(block) {
        write(meta, claims);
    }
}

/// Settles a handler's result: with `floor` (the client negotiated the
/// extension), the result's claims become the floor joined with the claims
/// the handler wrote, each block's are rewritten as the extension reads them
/// (a claim that is not `true` is no claim); without, every claim is taken
/// out, so a client that did not negotiate the extension sees none.
pub(crate) fn settle(result: &mut CallToolResult, floor: Option<&TrustClaims>) {
    match floor {
        Some(floor) => {
            let own = read(&result.meta);
            let joined = floor.clone().union(&own.unwrap_or_default());
            remove(&mut result.meta);
            write(&mut result.meta, &joined);
            for block in &mut result.content {
                if let Some(meta) = block_meta(block)
                    && let Some(claims) = read(meta)
                {
                    remove(meta);
                    write(meta, &claims);
                }
            }
        }
        None => {
            remove(&mut result.meta);
            for block in &mut result.content {
                if let Some(meta) = block_meta(block) {
                    remove(meta);
                }
            }
        }
    }
}

/// The `_meta` of a content block.
fn block_meta(block: &mut ContentBlock) -> Option<&mut Option<MetaObject>> {
    match block {
        ContentBlock::Text(text) => Some(&mut text.meta),
        ContentBlock::Image(image) => Some(&mut image.meta),
        ContentBlock::Audio(audio) => Some(&mut audio.meta),
        ContentBlock::Resource(resource) => Some(&mut resource.meta),
        ContentBlock::ResourceLink(link) => Some(&mut link.meta),
        _ => None,
    }
}

fn read(meta: &Option<MetaObject>) -> Option<TrustClaims> {
    meta.as_ref()
        .and_then(|meta| TrustClaims::from_meta(&meta.0))
}

fn write(meta: &mut Option<MetaObject>, claims: &TrustClaims) {
    if claims.is_empty() {
        return;
    }
    claims.write_meta(&mut meta.get_or_insert_with(MetaObject::new).0);
}

/// Takes the extension's key out of `meta`, and `meta` itself when nothing
/// else is left in it.
fn remove(meta: &mut Option<MetaObject>) {
    if let Some(object) = meta {
        if object.0.remove(TRUST_ANNOTATIONS_EXTENSION).is_none() {
            return;
        }
        if object.0.is_empty() {
            *meta = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn wire(result: &CallToolResult) -> Value {
        serde_json::to_value(result).unwrap()
    }

    #[test]
    fn settling_joins_the_floor_and_never_weakens() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("a")]);
        let mut meta = MetaObject::new();
        meta.0.insert(
            TRUST_ANNOTATIONS_EXTENSION.to_owned(),
            json!({"sensitive": false, "untrusted": "yes"}),
        );
        meta.0.insert("other".to_owned(), json!(1));
        result.meta = Some(meta);
        claim_content(&mut result.content[0], &TrustClaims::NONE.sensitive());
        let mut quiet = result.clone();

        settle(&mut result, Some(&TrustClaims::NONE.untrusted()));
        let wire = wire(&result);
        assert_eq!(
            wire["_meta"],
            json!({"other": 1, TRUST_ANNOTATIONS_EXTENSION: {"untrusted": true}})
        );
        assert_eq!(
            wire["content"][0]["_meta"],
            json!({TRUST_ANNOTATIONS_EXTENSION: {"sensitive": true}})
        );

        settle(&mut quiet, None);
        let wire = super::tests::wire(&quiet);
        assert_eq!(wire["_meta"], json!({"other": 1}));
        assert!(wire["content"][0].get("_meta").is_none(), "{wire}");
    }
}
