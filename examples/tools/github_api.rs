//! A GitHub REST tool: one tool, any method on any path, whose hints and
//! OAuth scopes follow the method (seed 002's table, through
//! [`HttpMethod`]), the path (path templates) and whether the repository is
//! public (seed 003's dynamic security schemes).
//!
//! | call | hints | authorization |
//! |---|---|---|
//! | `GET` of a public repository | read-only, nothing sensitive | no credentials |
//! | `GET` of a private repository | read-only, sensitive | `repo` |
//! | `POST .../issues` (public) | additive | `public_repo` |
//! | `PATCH .../issues/:number` | destructive, reversible | `repo` |
//! | `DELETE .../labels/:name` | not destructive, reversible | `repo` |
//! | `DELETE /repos/:owner/:repo` | destructive, irreversible | `delete_repo` |
//! | anything under `/orgs/:org/` | privileged | `admin:org` |

use annot::{HttpMethod, mcp_tool};

/// Call the GitHub REST API.
#[mcp_tool(
    name = "github_api",
    title = "GitHub API",
    discriminator = "method",
    display = "{method} {path}",
    open_world = true,
    sensitive_data,
    // Only organisation settings need privileges (the last rule).
    privileged_access = false,
    scopes = ["repo"],
    // Anyone may read a public repository: no credentials, nothing private.
    when(all(public == true, method in ["GET", "HEAD", "OPTIONS"]))
        => (no_auth, sensitive_data = false),
    // Writing to a public repository needs only the narrower scope.
    when(all(public == true, not(method in ["GET", "HEAD", "OPTIONS"])))
        => (scopes = ["public_repo"], sensitive_data = false),
    // A deleted repository is gone for good, and deleting needs its own scope.
    when(all(method == "DELETE", path matches_template "/repos/:owner/:repo"))
        => (reversible = false, scopes = ["delete_repo"]),
    // A label taken off an issue is put back by adding it again.
    when(all(method == "DELETE", path matches_template "/repos/:owner/:repo/issues/:number/labels/:name"))
        => (destructive = false, reversible),
    // Editing an issue overwrites its fields, which its history keeps.
    when(all(method == "PATCH", path matches_template "/repos/:owner/:repo/issues/:number"))
        => (destructive, reversible),
    // Organisation settings need an administrator.
    when(path matches_template "/orgs/:org/*") => (privileged_access, scopes = ["admin:org"]),
)]
#[derive(Clone, Debug, PartialEq)]
pub struct GithubApi {
    pub method: HttpMethod,
    /// Path below the API's root, such as `/repos/octo/hello/issues`.
    pub path: String,
    /// Whether the call concerns a public repository. It is then made
    /// without credentials, so a private repository answers 404, as to anyone.
    #[serde(default)]
    pub public: bool,
    /// JSON body of a `POST`, `PUT` or `PATCH`.
    pub body: Option<serde_json::Value>,
}
