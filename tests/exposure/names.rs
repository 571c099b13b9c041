//! Tool names against MCP's rules (the 2025-11-25 specification's "Tool
//! Names", from SEP-986: 1 to 128 ASCII letters, digits, `_`, `-`, `.`):
//! a per-action name a naming scheme gives and a registered name outside
//! them are build errors naming the tool and the name, in the built-in server
//! and in the rmcp adapter; names inside them, up to 128 characters, build.

use crate::rmcp_support;
use annot::rmcp::{AnnotatedTools, HandleTool, ToolConversionError};
use annot::server::{BuildError, Exposure, Server, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError, ToolNameError};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use rmcp_support::fixtures::Server as RmcpServer;
use rmcp_support::manage_files::ManageFiles;

/// A hand-written tool whose name has a space: the macro refuses such a
/// name at compile time, a hand-written `AnnotatedTool` reaches the builder.
struct Spaced;

impl AnnotatedTool for Spaced {
    const NAME: &'static str = "list files";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = None;
    const ACTIONS: &'static [Action] = &[];
    const STATIC_ANNOTATIONS: Annotations = Annotations::new();
    fn input_schema() -> &'static str {
        r#"{"type":"object"}"#
    }
    fn resolve(&self) -> Annotations {
        Annotations::new()
    }
    fn from_arguments(_: &serde_json::Value) -> Result<Self, ArgumentError> {
        Ok(Spaced)
    }
}

/// An rmcp server with a handler for [`Spaced`].
struct SpacedServer;

impl HandleTool<Spaced> for SpacedServer {
    async fn handle(
        &self,
        _tool: Spaced,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("ran")]))
    }
}

/// `manage_files` on the built-in server, per action, named by `scheme`.
fn built_in(exposure: Exposure, scheme: fn(&str, &str) -> String) -> Result<Server, BuildError> {
    Server::builder("annot-test", "1.2.3")
        .exposure(exposure)
        .action_names(scheme)
        .tool(|_: ManageFiles| Ok(ToolOutput::text("ran")))
        .build()
}

/// The same through the rmcp adapter.
fn adapter(exposure: Exposure, scheme: Scheme) -> Result<(), BuildError> {
    match AnnotatedTools::<RmcpServer>::builder()
        .exposure(exposure)
        .action_names(scheme)
        .tool::<ManageFiles>()
        .build()
    {
        Ok(_) => Ok(()),
        Err(ToolConversionError::Invalid(error)) => Err(error),
        Err(other) => panic!("not a build error: {other}"),
    }
}

/// A naming scheme of per-action tools.
type Scheme = fn(&str, &str) -> String;

/// A scheme, the name it gives `read` of `manage_files` (written by hand),
/// and the rule that name breaks.
fn bad_schemes() -> Vec<(Scheme, String, ToolNameError)> {
    vec![
        (
            |tool, action| format!("{tool}/{action}"),
            "manage_files/read".into(),
            ToolNameError::Character('/'),
        ),
        (
            |tool, action| format!("{tool} {action}"),
            "manage_files read".into(),
            ToolNameError::Character(' '),
        ),
        (
            |tool, action| format!("{tool}_{action}\u{e9}"),
            "manage_files_read\u{e9}".into(),
            ToolNameError::Character('\u{e9}'),
        ),
        (
            // `manage_files_read` is 17 characters: 129 in all.
            |tool, action| format!("{tool}_{action}{}", "x".repeat(112)),
            format!("manage_files_read{}", "x".repeat(112)),
            ToolNameError::Length(129),
        ),
    ]
}

#[test]
fn a_per_action_name_outside_the_rules_is_a_build_error() {
    for (scheme, name, problem) in bad_schemes() {
        let expected = BuildError::InvalidActionName {
            name: name.clone(),
            tool: "manage_files".into(),
            action: "read".into(),
            problem,
        };
        for exposure in [Exposure::PerAction, Exposure::Auto] {
            let error = built_in(exposure, scheme).unwrap_err();
            assert_eq!(error, expected, "{exposure}");
            let message = error.to_string();
            assert!(message.contains(&format!("`{name}`")), "{message}");
            assert!(message.contains("`manage_files`"), "{message}");
            assert_eq!(
                adapter(exposure, scheme).unwrap_err(),
                expected,
                "{exposure}"
            );
        }
        // Listed resolvable only, the scheme names nothing.
        assert!(built_in(Exposure::Resolvable, scheme).is_ok());
        assert!(adapter(Exposure::Resolvable, scheme).is_ok());
    }
}

#[test]
fn names_inside_the_rules_build_up_to_128_characters() {
    let schemes: [Scheme; 3] = [
        |tool, action| format!("{tool}.{action}-v2"),
        |_, action| action.to_uppercase(),
        // 128 characters for every action: `manage_files_` is 13.
        |tool, action| format!("{tool}_{action}{}", "x".repeat(128 - 13 - action.len())),
    ];
    for scheme in schemes {
        for exposure in [Exposure::PerAction, Exposure::Auto] {
            if let Err(error) = built_in(exposure, scheme) {
                panic!("{exposure}: {error}");
            }
            if let Err(error) = adapter(exposure, scheme) {
                panic!("{exposure}: {error}");
            }
        }
    }
}
#[test]
fn a_registered_name_outside_the_rules_is_a_build_error() {
    let expected = BuildError::InvalidToolName {
        name: "list files".into(),
        problem: ToolNameError::Character(' '),
    };
    for exposure in [Exposure::Resolvable, Exposure::PerAction, Exposure::Auto] {
        let error = Server::builder("annot-test", "1.2.3")
            .exposure(exposure)
            .tool(|_: Spaced| Ok(ToolOutput::text("ran")))
            .build()
            .unwrap_err();
        assert_eq!(error, expected, "{exposure}");
        assert!(error.to_string().contains("`list files`"), "{error}");
        match AnnotatedTools::<SpacedServer>::builder()
            .exposure(exposure)
            .tool::<Spaced>()
            .build()
        {
            Err(ToolConversionError::Invalid(error)) => assert_eq!(error, expected, "{exposure}"),
            Err(other) => panic!("{exposure}: not a build error: {other}"),
            Ok(_) => panic!("{exposure}: `list files` was accepted"),
        }
    }
}
