use annot::{AnnotatedTool, HttpMethod, mcp_tool};

/// Every form of predicate, hint list and authorization in one tool.
#[mcp_tool(
    open_world = false,
    scopes = ["files"],
    when(path matches "^/etc") => (privileged_access, scopes = ["admin"]),
    when(r#type == "link") => (sensitive_data = false),
)]
#[serde(rename_all = "snake_case")]
enum Files {
    #[annotate(read_only, no_auth, when(some(offset)) => (slow_execution))]
    Read {
        path: String,
        r#type: String,
        offset: Option<u64>,
    },
    #[annotate(
        destructive = false,
        when(any(size >= 10, ratio > 0.5, not(append == true))) => (destructive),
        when(all(mode in ["a", "b"], mode != "c", size < 3, size <= 2, ratio < -1)) => (idempotent),
        when(label matches_template "/x/{id}/*rest") => (ai_processing = false),
    )]
    Write {
        path: String,
        r#type: String,
        size: i32,
        ratio: f32,
        append: bool,
        mode: String,
        label: Option<String>,
    },
    #[annotate(read_only)]
    Stat,
}

#[mcp_tool(
    discriminator = "method",
    open_world = true,
    no_auth,
    when(any(method == "GET", method in ["HEAD"])) => (sensitive_data = false),
    when(not(method != "DELETE")) => (reversible = false, scopes = ["delete"]),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

#[test]
fn every_predicate_form_compiles_into_the_rule_tables() {
    assert_eq!(Files::RULES.len(), 6);
    assert_eq!(Api::RULES.len(), 2);
}
