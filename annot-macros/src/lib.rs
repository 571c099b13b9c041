//! The attribute macros of annot: `#[mcp_tool]` and `#[mcp_actions]`. Use them
//! through the `annot` crate, which documents them.
//!
//! Each call goes through three phases, in one `run` for both macros, as
//! serde_derive's: `internals` parses the item into one typed model, `check`
//! runs every check of the model and completes it (the checked rules), and
//! `expand` generates the code from that model alone. `rules` is the macro's
//! front end of the rule language, read in the first phase and turned into
//! code in the third. Errors of all phases are collected and reported
//! together; the user's item is still emitted, stripped of the helper
//! attributes, so that one mistake gives one error.

// The three phases, in order (each its own group, so that rustfmt keeps the order).
mod internals;

mod check;

mod expand;

// The rule language's front end, used by the first phase and the third.
mod rules;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::DeriveInput;

use crate::internals::ast::{self, Model};
use crate::internals::attr::{OptionsOf, parse_options, strip_helper_attributes};
use crate::internals::ctxt::Errors;

/// Generates `annot::AnnotatedTool` for a struct of arguments (a tool with a
/// single action), for an enum whose variants are a tool's actions, or for a
/// struct whose action field has an `#[mcp_actions]` type.
///
/// # The common shape: a struct of arguments
///
/// A struct with no discriminator (no `discriminator = "..."`, no
/// `#[serde(tag)]`, no field named `action`) is a tool with one action: the
/// hints and rules of `#[mcp_tool(...)]` are its own, its `inputSchema` is an
/// object of exactly its fields, `DISCRIMINATOR` is `None`, and its one
/// action is named after the tool. A unit struct is a tool without arguments.
/// A struct of arguments one of which happens to be named `action` says
/// `#[mcp_tool(single)]`: the field stays an ordinary argument instead of
/// being taken for the discriminator.
///
/// A `matches` rule belongs on a field where a match proves what the rule
/// claims: an identifier, a branch name, a file extension. SQL is judged by a
/// parser, never by a regex (`SELECT 1; DROP TABLE t` starts with `SELECT`):
/// `when(sql is sql(postgres, read)) => (read_only)`, with annot's `sql`
/// feature (see "Rules on argument values" below, and docs/sql.md).
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// /// Push the current work to a branch of the remote.
/// #[mcp_tool(
///     open_world = false,
///     destructive,
///     // The agent's own scratch branches hold no one else's work to overwrite.
///     when(branch matches r"^agent/[a-z0-9-]+$") => (destructive = false),
/// )]
/// struct PushBranch {
///     /// The branch to push to.
///     branch: String,
/// }
///
/// let scratch = PushBranch::from_arguments_str(r#"{"branch":"agent/fix-42"}"#).unwrap();
/// assert_eq!(scratch.resolve().destructive, Some(false));
/// let main = PushBranch::from_arguments_str(r#"{"branch":"main"}"#).unwrap();
/// assert_eq!(main.resolve().destructive, Some(true));
/// assert_eq!(PushBranch::STATIC_ANNOTATIONS.destructive, Some(true)); // the worst case
/// assert_eq!(PushBranch::DISCRIMINATOR, None);
/// assert_eq!(
///     PushBranch::input_schema(),
///     r#"{"type":"object","properties":{"branch":{"description":"The branch to push to.","type":"string"}},"required":["branch"],"additionalProperties":false}"#
/// );
///
/// /// Record what a user did: `action` is an argument, not a discriminator.
/// #[mcp_tool(single, read_only = false, destructive = false, open_world = false)]
/// struct Audit {
///     action: String,
///     user: String,
/// }
///
/// assert_eq!(Audit::DISCRIMINATOR, None);
/// let entry = Audit::from_arguments_str(r#"{"action":"login","user":"ann"}"#).unwrap();
/// assert_eq!(entry.action, "login");
/// ```
///
/// # Shape (a): an enum of actions
///
/// The arguments are one JSON object; its discriminator field (`action` by
/// default) names the variant, the variant's named fields are the other
/// arguments. Unit and named-field variants are accepted.
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// /// Read, append, replace, or delete file contents.
/// #[mcp_tool(open_world = false)]
/// #[serde(rename_all = "snake_case")]
/// enum ManageFiles {
///     /// Return the file's contents.
///     #[annotate(read_only, title = "Read a file")]
///     Read { path: String },
///     #[annotate(destructive = false)]
///     Append { path: String, content: String },
///     #[annotate(destructive, idempotent)]
///     Delete { path: String },
/// }
///
/// assert_eq!(ManageFiles::NAME, "manage_files");
/// assert_eq!(
///     ManageFiles::STATIC_ANNOTATIONS.to_string(),
///     r#"{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}"#
/// );
/// let read = ManageFiles::from_arguments_str(r#"{"action":"read","path":"a.txt"}"#).unwrap();
/// assert_eq!(
///     read.resolve().to_string(),
///     r#"{"title":"Read a file","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}"#
/// );
/// assert!(ManageFiles::from_arguments_str(r#"{"action":"read"}"#).is_err());
/// ```
///
/// # Shape (b): a struct with an action field
///
/// One field, named by `discriminator`, has an [`macro@mcp_actions`] enum as
/// its type; the other fields are ordinary arguments.
///
/// ```
/// use annot::{AnnotatedTool, mcp_actions, mcp_tool};
///
/// #[mcp_actions]
/// #[serde(rename_all = "UPPERCASE")]
/// enum Method {
///     #[annotate(read_only)]
///     Get,
///     #[annotate(destructive, idempotent)]
///     Delete,
/// }
///
/// #[mcp_tool(discriminator = "method", open_world = true)]
/// struct Api {
///     method: Method,
///     path: String,
/// }
///
/// let get = Api::from_arguments_str(r#"{"method":"GET","path":"/"}"#).unwrap();
/// assert!(get.resolve().is_read_only());
/// assert_eq!(Api::STATIC_ANNOTATIONS.destructive, Some(true));
/// ```
///
/// # Options: `#[mcp_tool(...)]`
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | `"..."`, MCP tool name (letters, digits, `_`, `-`, `.`; 1-128) | snake_case of the type name |
/// | `title` | `"..."` | none |
/// | `description` | `"..."` | the doc comment |
/// | `discriminator` | `"..."`, the wire name of the field naming the action | `#[serde(tag)]` if any, else `"action"` |
/// | `single` | `single` or `single = bool`: a struct is one action's arguments even with a field named `action`; an error with `discriminator`, `#[serde(tag)]` or on an enum | off |
/// | `display` | `"..."`, the call preview listed on the tool, such as `"{action} {path}"` (see below) | derived |
/// | `results(...)` | `sensitive`, `untrusted` or both: what the results of every action claim (see below) | none |
/// | `crate` | `"path"` to the `annot` facade | `::annot` |
/// | `schema` | `"portable"` (one flat object, per-action fields in the discriminator's description) or `"exact"` (plus an `if`/`then`/`else` chain giving each action its fields) | `"portable"` |
/// | any hint key below | `key` or `key = bool` | a default for every action that leaves the hint unset |
/// | `when(...) => (...)` | a rule of the whole tool, see below | none |
/// | `scopes = [...]`, `no_auth` | the authorization of every action that declares none | none |
///
/// # Hints: `#[annotate(...)]` on each variant
///
/// `read_only`, `destructive`, `idempotent`, `open_world` (the MCP core hints) and
/// `ai_processing`, `slow_execution`, `resource_intensive`, `sensitive_data`,
/// `privileged_access`, `reversible` (SEP-1984), each written `key` (true) or
/// `key = true|false`; `title = "..."`; `display = "..."`; and `results(...)`. A bare `#[annotate]` takes the
/// tool's defaults explicitly. A variant with no `#[annotate]` is an error,
/// even when the tool gives defaults: nothing is left to the specification's
/// worst case silently. Tool-level defaults of `destructive`, `idempotent`
/// and `reversible` apply to the actions that are not read-only.
///
/// # Call previews: `display`
///
/// `display = "delete {path}"` in an action's `#[annotate(...)]` is the line a
/// host shows before a call of it (the `io.modelcontextprotocol/display-templates`
/// extension): each `{name}` is the call's argument `name` as it is on the wire,
/// `{{` and `}}` are literal braces. A placeholder that names no argument of
/// the action, an empty `{}` and an unbalanced brace are compile errors. An
/// action without one gets its title (else its name) and its fields:
/// `Delete a file {path}`, `copy: from={from}, to={to}`. `AnnotatedTool::DISPLAY_TEMPLATES`
/// holds each action's; `DISPLAY_TEMPLATE`, which `tools/list` carries, is the
/// action's for a tool of one action, and for several the tool's
/// `#[mcp_tool(display = "...")]` (its placeholders: the discriminator and
/// the actions' arguments), else `{action}` and the arguments every action
/// takes.
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// #[mcp_tool(open_world = false, display = "{action} {path}")]
/// #[serde(rename_all = "snake_case")]
/// enum Files {
///     #[annotate(read_only, display = "read {path}")]
///     Read { path: String },
///     #[annotate(destructive, title = "Copy a file")]
///     Copy { path: String, to: String },
/// }
///
/// assert_eq!(Files::DISPLAY_TEMPLATES, ["read {path}", "Copy a file: path={path}, to={to}"]);
/// assert_eq!(Files::DISPLAY_TEMPLATE, Some("{action} {path}"));
/// ```
///
/// # serde attributes
///
/// Read without needing `#[derive(Deserialize)]`, and kept for serde when the
/// type derives it: container `rename_all`, `rename_all_fields`, `tag`; variant
/// `rename`, `rename_all`; field `rename`, `default`, `default = "path"`, `skip`,
/// `skip_deserializing`. Serialization-only keys are ignored; keys the schema
/// could not follow (`flatten`, `alias`, `untagged`, `with`, ...) are errors.
///
/// # Field types
///
/// Mapped at compile time: `bool`, integers (with their range; integral floats
/// such as `3.0` are accepted, as JSON Schema's `"integer"` does), `f32`, `f64`,
/// `char`, `String`, `Option<T>` (may be absent or null), `Vec<T>`, `VecDeque<T>`,
/// `HashSet<T>`, `BTreeSet<T>`, `HashMap<String, T>`, `BTreeMap<String, T>`,
/// `Box<T>`, `serde_json::Value`. Other types need `serde::Deserialize` and,
/// with annot's `schemars` feature, `schemars::JsonSchema`. Generic tools are
/// not supported.
///
/// # Rules on argument values
///
/// An action's risk may depend on more than the action: a delete under
/// `/etc` is not a delete under a scratch folder. A rule refines the hints of
/// the calls whose arguments match it:
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// #[mcp_tool(
///     open_world = false,
///     // Any action with a `path` field, whatever the spelling of the path.
///     when(path path_matches "^/(etc|root|sys)(/|$)") => (privileged_access, sensitive_data),
/// )]
/// #[serde(rename_all = "snake_case")]
/// enum Files {
///     #[annotate(read_only)]
///     Read { path: String },
///     #[annotate(
///         destructive,
///         idempotent,
///         // This action only.
///         when(some(backup)) => (destructive = false, reversible),
///     )]
///     Delete { path: String, backup: Option<String> },
/// }
///
/// let etc = Files::from_arguments_str(r#"{"action":"read","path":"/etc/passwd"}"#).unwrap();
/// assert_eq!(etc.resolve().privileged_access, Some(true));
/// let dotted = Files::from_arguments_str(r#"{"action":"read","path":"/tmp/..//etc/passwd"}"#)
///     .unwrap();
/// assert_eq!(dotted.resolve(), etc.resolve());
/// let kept = Files::from_arguments_str(
///     r#"{"action":"delete","path":"a","backup":"a.bak"}"#,
/// ).unwrap();
/// assert_eq!(kept.resolve().destructive, Some(false));
/// // The static worst case covers every rule that can fire.
/// assert_eq!(Files::STATIC_ANNOTATIONS.privileged_access, Some(true));
/// assert_eq!(Files::STATIC_ANNOTATIONS.destructive, Some(true));
/// ```
///
/// A rule is written `when(<predicate>) => (<hints>)` among the keys of
/// `#[annotate(...)]` (it applies to that action) or of `#[mcp_tool(...)]` (it
/// applies to every action that has all the fields it tests; an error if none
/// has). The grammar:
///
/// ```text
/// rule      := "when" "(" predicate ")" "=>" "(" setting ("," setting)* ")"
/// predicate := "all" "(" predicate ("," predicate)* ")"
///            | "any" "(" predicate ("," predicate)* ")"
///            | "not" "(" predicate ")"
///            | "some" "(" field ")"              -- an Option field is present, not null
///            | field "matches" string            -- regex search of the raw string
///            | field "path_matches" string       -- regex search of the normalised file path
///            | field "matches_template" string   -- template of the normalised URL path
///            | field "is" "sql" "(" dialect "," class ")"  -- SQL classified by a parser
///            | field ("==" | "!=") literal
///            | field "in" "[" literal ("," literal)* "]"
///            | field ("<" | "<=" | ">" | ">=") number
/// literal   := string | integer | float | "true" | "false"   (numbers may have a leading "-")
/// dialect   := "generic" | "postgres" | "mysql" | "sqlite"
/// class     := "read" | "insert" | "destructive"
/// setting   := hint | hint "=" bool | "scopes" "=" "[" string,* "]" | "no_auth"
///            | "results" "(" claim ("," claim)* ")"
/// claim     := "sensitive" | "untrusted"
/// ```
///
/// `field` is the Rust name of a field of the action (of the struct, in shape
/// (b), where the action field itself is compared with action names:
/// `method == "DELETE"`, `method in ["POST", "PUT"]`). Strings (`String`,
/// `Box<str>`, `Cow<str>`, ...) take `matches`, `path_matches`, `matches_template`, `==`,
/// `!=`, `in` with strings; integers and floats take numbers and comparisons;
/// `bool` takes `true`/`false`. A test of an absent `Option` field is false
/// (so `not(mode == "a")` holds when `mode` is absent); `some` tests presence.
/// `matches` is an unanchored search: anchor with `^`/`$`; `(?i)` ignores
/// case. A path template such as `/repos/:owner/:repo` (also `{owner}`)
/// matches a path whose segments match, a `:param` standing for one non-empty
/// segment and a final `*` (or `*name`) for any rest; one trailing `/` and a
/// query string or fragment are ignored.
///
/// **Paths.** `matches` sees the raw string: `//etc/shadow` does not match
/// `^/etc/`. `path_matches` and `matches_template` see the lexical normal
/// form of the path (`annot::rules::normalize_path`): empty and `.`
/// segments removed, `..` resolved, a trailing `/` dropped, a relative path
/// read from the root, and for `matches_template` (an HTTP path) the query
/// and fragment cut off and `%XX` escapes decoded first. A template's
/// parameters therefore never match a dot or an empty segment. A path with
/// no safe normal form (`..` above the root, a backslash or NUL, an escaped
/// `/`, `\` or `%`, escapes that are not UTF-8) leaves the test
/// *undecided*; predicates follow Kleene's three-valued logic, and a rule
/// whose predicate is undecided joins its hints with the call's (the riskier
/// wins) instead of replacing them: it can raise risk, never lower it.
/// Operators, not a field attribute, choose the reading, because one field
/// may be tested both ways and the rule shows which reading it relies on.
///
/// **SQL.** `statement is sql(postgres, read)` (annot's `sql` feature; a
/// clear compile error names it when it is off) parses a string field with
/// the `sqlparser` crate in the named dialect and holds when the text's class
/// is the one named: `read` (every statement a query that calls only the
/// dialect's pure functions, with no `INTO`, no locking clause, no
/// data-modifying CTE; `EXPLAIN` without `ANALYZE`; `SHOW`), `insert` (plain
/// inserts), `destructive` (`UPDATE`, `DELETE`, `MERGE`, upserts, `REPLACE`).
/// A batch has the class of its riskiest statement. Everything else (DDL,
/// `COPY`, `ATTACH`, `PRAGMA`, a function outside the allowlist, text that
/// does not parse, MySQL's `/*! */`) is the *riskiest* class, on which every
/// `is sql` test is undecided: no rule can lower its risk, so the call keeps
/// the action's own hints. Declare the action with the hints of the worst it
/// may do, and one rule per class:
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// #[mcp_tool(
///     open_world = false,
///     destructive,
///     when(sql is sql(postgres, read)) => (read_only),
///     when(sql is sql(postgres, insert)) => (destructive = false),
/// )]
/// struct RunQuery {
///     sql: String,
/// }
///
/// let query = |sql: &str| RunQuery { sql: sql.into() }.resolve();
/// assert_eq!(query("SELECT count(*) FROM users").read_only, Some(true));
/// assert_eq!(query("INSERT INTO t VALUES (1)").destructive, Some(false));
/// assert_eq!(query("SELECT 1; DROP TABLE t").read_only, Some(false));
/// assert_eq!(query("SELECT pg_terminate_backend(42)").read_only, Some(false));
/// ```
///
/// `generic` classifies the text in every dialect and takes the riskiest
/// answer. See `annot::rules::sql` and the `docs/sql.md` chapter.
///
/// Checked at compile time: every field exists (with a suggestion when
/// misspelt) and has a type its test fits; every regex and template
/// compiles, and the patterns of one field compile together; every action
/// name compared with the action field is an action of its type; a rule sets
/// at least one hint, never a contradictory pair (`read_only, destructive`);
/// a rule that sets `destructive`, `idempotent` or `reversible` where the
/// action is read-only (where they mean nothing) also sets `read_only =
/// false` (for a struct with an action field, checked in const evaluation
/// against every action the rule can fire on).
///
/// **Semantics.** A call's annotations are its action's (the action's hints,
/// then the tool's defaults for the hints it leaves unset) with, for each
/// hint that at least one *firing* rule names, that hint set to the join of
/// the firing rules' values (the riskier value wins: `destructive` over
/// `destructive = false`), then the specification's defaults and read-only
/// normalisation (`annot::Annotations::effective`). The order of rules never
/// matters. When a rule turns a read-only action's `read_only` off, the
/// hints `destructive`, `idempotent`, `reversible` that no firing rule sets
/// take what an action declared `read_only = false` would have: the tool's
/// defaults, then the specification's. This precedence is defined once, in
/// `annot-model`, which the macro and the runtime share. The static annotations of an action (`ACTIONS`) join its own
/// hints with every rule that can fire on it, so every resolution stays
/// within them by construction; a rule certain to fire on an action (it only
/// tests the action field) replaces that action's value instead. Overriding
/// one HTTP method of `annot::HttpMethod` is such a rule:
/// `when(method == "DELETE") => (destructive = false)`.
///
/// At run time the patterns of one field form one `regex::RegexSet`, built
/// once, so one pass over the value answers them all; an action that no rule
/// applies to resolves to a constant, without allocating.
/// `annot::AnnotatedTool::explain` tells, for each hint, whether the action, a
/// tool default, the specification or which rules decided it.
///
/// # Authorization scopes
///
/// `scopes = ["repo"]` (OAuth 2 with these scopes) or `no_auth` (no
/// credentials), in `#[mcp_tool(...)]` (a default), in an action's
/// `#[annotate(...)]` and in a rule's settings, declare what a call needs:
/// firing rules' requirements join (scopes unite; `no_auth` yields to any
/// scope). Once any is declared, every action needs one (its own or the
/// default). `annot::AnnotatedTool::resolve_authorization` gives a call's; the
/// union of all is `STATIC_AUTHORIZATION`, the `securitySchemes` of
/// `tools/list`, and the built-in server returns each call's in dialect B's
/// resolved Tool (see `annot::Authorization`).
///
/// # Claims on results: `results(...)`
///
/// `results(sensitive)`, `results(untrusted)` or both declare what the
/// results claim under the `io.modelcontextprotocol/trust-annotations`
/// extension, beyond what the resolution implies: in `#[mcp_tool(...)]` for
/// every action, in an action's `#[annotate(...)]` (an `#[mcp_actions]`
/// variant's included) for that action, and in a rule's settings for the
/// calls it fires on, which counts a rule whose predicate is undecided (a
/// path with `..` above its root) as fired. A call claims their union,
/// `annot::AnnotatedTool::result_claims`, and a server joins it with what the
/// resolution implies: a claim never lowers a hint, nor another claim.
///
/// ```
/// use annot::{AnnotatedTool, mcp_tool};
///
/// /// Read a shared document: its authors are anyone in the company.
/// #[mcp_tool(
///     read_only,
///     open_world = false,
///     results(untrusted),
///     when(path path_matches "^/hr(/|$)") => (results(sensitive)),
/// )]
/// struct ReadDocument {
///     path: String,
/// }
///
/// let claims = |path: &str| {
///     let arguments = format!(r#"{{"path": "{path}"}}"#);
///     let claims = ReadDocument::from_arguments_str(&arguments)
///         .unwrap()
///         .result_claims();
///     (claims.sensitive, claims.untrusted)
/// };
/// assert_eq!(claims("/hr/reviews.txt"), (true, true));
/// assert_eq!(claims("/wiki/setup.txt"), (false, true));
/// // Undecided: the rule counts as fired.
/// assert_eq!(claims("/../hr/reviews.txt"), (true, true));
/// ```
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    run(OptionsOf::Tool, args.into(), input.into()).into()
}

/// Generates `annot::AnnotatedActions` for an enum of unit variants, each an
/// action with its `#[annotate(...)]`, used as the action field of an
/// [`macro@mcp_tool`] struct (see its shape (b)).
///
/// Options, `#[mcp_actions(...)]`: `crate = "path"` and hint defaults, as for
/// `#[mcp_tool]`. A variant's `results(...)` is its
/// `annot::AnnotatedActions::result_claims`, which the struct's
/// `result_claims` joins. Each value's annotations and name are its row of
/// `ACTIONS`, found by `index()` (see `annot::AnnotatedActions`). serde's `rename_all` on the enum and `rename` on variants are
/// honoured. `Clone`, `Copy` and serde's `Deserialize` (one of the wire names,
/// so that a struct whose action field has this type can derive `Deserialize`
/// too) are implemented unless derived below the attribute; derived above it,
/// where the macro cannot see the derive, each is a conflicting implementation
/// (E0119), which names the trait.
///
/// ```
/// use annot::{AnnotatedActions, mcp_actions};
///
/// /// What to do with the cache.
/// #[mcp_actions(open_world = false)]
/// #[serde(rename_all = "snake_case")]
/// enum CacheOp {
///     /// Look an entry up.
///     #[annotate(read_only)]
///     Get,
///     #[annotate(destructive, idempotent)]
///     Evict,
/// }
///
/// assert_eq!(CacheOp::NAMES, ["get", "evict"]);
/// assert_eq!(CacheOp::from_name("evict").map(|op| op.action().name), Some("evict"));
/// assert_eq!(CacheOp::Get.action().annotations.open_world, Some(false));
/// assert_eq!(CacheOp::Evict.index(), 1);
/// ```
#[proc_macro_attribute]
pub fn mcp_actions(args: TokenStream, input: TokenStream) -> TokenStream {
    run(OptionsOf::Actions, args.into(), input.into()).into()
}

/// Either macro, start to end: the options and the item are parsed into one
/// model, the checks complete it, and the code is generated from it alone.
/// With errors, the item is emitted with them and a fallback impl, so that
/// code naming the trait's items reports nothing more.
fn run(of: OptionsOf, args: TokenStream2, input: TokenStream2) -> TokenStream2 {
    let errors = Errors::new();
    let options = parse_options(args, of, &errors);
    let mut item: DeriveInput = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = error.into_compile_error();
            return quote!(#input #error);
        }
    };
    let krate = options.krate.clone();
    let model = ast::model(&item, options, of, &errors).map(|model| check::model(model, &errors));
    strip_helper_attributes(&mut item);
    let generated = match (errors.finish(), model) {
        (Ok(()), Some(Model::Tool(tool))) => expand::tool(&tool),
        (Ok(()), Some(Model::Actions(actions))) => expand::actions(&actions),
        (Err(error), _) => {
            let fallback = expand::fallback(of, &item, krate.as_ref());
            let error = error.into_compile_error();
            quote!(#fallback #error)
        }
        (Ok(()), None) => unreachable!("an unusable item always records an error"),
    };
    quote!(#item #generated)
}
