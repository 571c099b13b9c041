//! Rules written as text, compiled at run time into the tables the code of
//! `#[mcp_tool]` reads, and evaluated by the same [`Outcome`]: for a tool
//! this program did not declare (a gateway's upstream tool, a rule in a
//! configuration file). Feature `rule-text`.
//!
//! The language is the macro's (see the `mcp_tool` documentation), read by
//! the same parser and checked by the same checks (the `annot-rules`
//! crate), against the fields of the tool's `inputSchema` instead of Rust
//! types. A rule in error is reported at its line and column, with the
//! macro's message:
//!
//! ```
//! # use annot_runtime as annot;
//! use annot::Annotations;
//! use annot::rules::text::ToolSpec;
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"path": {"type": "string"}, "recursive": {"type": "boolean"}},
//!     "required": ["path"],
//! });
//! let rules = ToolSpec::new("delete_file", &schema)
//!     .defaults(Annotations::new().read_only(false).destructive(true))
//!     .rules(r#"when(path path_matches r"^/tmp/") => (destructive = false)"#)
//!     .compile()
//!     .unwrap();
//! let scratch = rules.evaluate(&json!({"path": "/tmp/a.txt"})).unwrap();
//! assert_eq!(scratch.annotations().destructive, Some(false));
//! let home = rules.evaluate(&json!({"path": "/home/me/a.txt"})).unwrap();
//! assert_eq!(home.annotations().destructive, Some(true));
//!
//! let error = ToolSpec::new("delete_file", &schema)
//!     .rules("when(path mathces \"^/tmp/\") => (destructive = false)")
//!     .compile()
//!     .unwrap_err();
//! let message = error.to_string();
//! assert!(message.contains("unknown operator `mathces`; did you mean `matches`?"));
//! assert!(message.contains("line 1, column 11"));
//! ```
//!
//! A compiled tool's tables live as long as the program (they are
//! `'static`, as the macro's are): compile a configuration once, not per
//! call.

mod evaluate;
mod schema;

use std::collections::HashMap;

use serde_json::Value;

use annot_rules::Kind;
use annot_rules::text::{ActionBase, Condition, Owner, Program, RuleSource, ToolFields};

use super::patterns::PatternSet;
use super::table::{ActionRow, Outcome, RuleTable};
use super::{Rule, Tri};
use crate::{Action, Annotations, ArgumentError};

pub use annot_rules::text::{Location, RuleError, RuleErrors};

/// A tool whose rules are text: its `inputSchema`, its defaults, its rules
/// and, for a tool with a discriminator, its actions with theirs. Built up,
/// then [`compile`](Self::compile)d.
#[derive(Clone, Debug)]
pub struct ToolSpec<'a> {
    name: String,
    input_schema: &'a Value,
    defaults: Annotations,
    rules: Vec<&'a str>,
    discriminator: Option<String>,
    actions: Vec<ActionSpec<'a>>,
}

#[derive(Clone, Debug)]
struct ActionSpec<'a> {
    name: String,
    annotations: Annotations,
    rules: &'a str,
}

/// Why a [`ToolSpec`] does not compile.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The tool's description: its schema, its discriminator or actions.
    #[error("tool `{tool}`: {message}")]
    Tool {
        /// The tool's name.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The rules: every error, each at its place in its text.
    #[error("{0}")]
    Rules(RuleErrors),
}

impl<'a> ToolSpec<'a> {
    /// The tool `name`, whose arguments `input_schema` describes.
    pub fn new(name: &str, input_schema: &'a Value) -> Self {
        ToolSpec {
            name: name.to_owned(),
            input_schema,
            defaults: Annotations::new(),
            rules: Vec::new(),
            discriminator: None,
            actions: Vec::new(),
        }
    }

    /// What every call starts from where its action says nothing (the
    /// macro's `#[mcp_tool(read_only = ...)]`).
    pub fn defaults(mut self, defaults: Annotations) -> Self {
        self.defaults = defaults;
        self
    }

    /// Rules of the whole tool (added to any given before). On a tool with
    /// actions they may test the discriminator: `when(action == "delete")`.
    pub fn rules(mut self, text: &'a str) -> Self {
        self.rules.push(text);
        self
    }

    /// The field whose value names the call's action. Its actions are
    /// those given by [`action`](Self::action), else the values its `enum`
    /// lists, with the defaults.
    pub fn discriminator(mut self, field: &str) -> Self {
        self.discriminator = Some(field.to_owned());
        self
    }

    /// One action of the discriminator: its own annotations and its own
    /// rules (which cannot test the discriminator: they apply to it alone).
    pub fn action(mut self, name: &str, annotations: Annotations, rules: &'a str) -> Self {
        self.actions.push(ActionSpec {
            name: name.to_owned(),
            annotations,
            rules,
        });
        self
    }

    /// Checks and compiles the rules into tables.
    pub fn compile(&self) -> Result<TextRules, CompileError> {
        let tool_error = |message: String| CompileError::Tool {
            tool: self.name.clone(),
            message,
        };
        let discriminator = self.discriminator.as_deref();
        let kinds = schema::field_kinds(self.input_schema, discriminator).map_err(tool_error)?;
        let actions = self.actions(discriminator).map_err(tool_error)?;
        let bases: Vec<ActionBase> = actions
            .iter()
            .map(|action| ActionBase {
                name: action.name.clone(),
                described: match discriminator {
                    Some(_) => format!("action `{}`", action.name),
                    None => format!("tool `{}`", self.name),
                },
                base: annot_model::action_base(action.annotations, self.defaults),
            })
            .collect();
        let mut sources: Vec<RuleSource> = self
            .rules
            .iter()
            .map(|text| RuleSource {
                owner: Owner::Tool,
                origin: format!("rules of tool `{}`", self.name),
                text,
            })
            .collect();
        sources.extend(
            actions
                .iter()
                .enumerate()
                .map(|(position, action)| RuleSource {
                    owner: Owner::Action(position),
                    origin: format!("rules of action `{}`", action.name),
                    text: action.rules,
                }),
        );
        let fields = ToolFields {
            fields: &kinds,
            discriminator,
            actions: &bases,
            sql: cfg!(feature = "sql"),
        };
        let program = annot_rules::text::compile(&fields, &sources).map_err(CompileError::Rules)?;
        let mut rules = TextRules::build(program, &actions, self.defaults, kinds, discriminator);
        rules.defaults = schema::defaults(self.input_schema);
        Ok(rules)
    }

    fn actions(&self, discriminator: Option<&str>) -> Result<Vec<ActionSpec<'a>>, String> {
        let Some(field) = discriminator else {
            if !self.actions.is_empty() {
                return Err("actions need a discriminator, the field naming them".to_owned());
            }
            return Ok(vec![ActionSpec {
                name: self.name.clone(),
                annotations: Annotations::new(),
                rules: "",
            }]);
        };
        let mut actions = self.actions.clone();
        if actions.is_empty() {
            actions = schema::enum_names(self.input_schema, field)
                .into_iter()
                .map(|name| ActionSpec {
                    name,
                    annotations: Annotations::new(),
                    rules: "",
                })
                .collect();
        }
        if actions.is_empty() {
            return Err(format!(
                "no actions: name them, or list them in the `enum` of `{field}`"
            ));
        }
        for (index, action) in actions.iter().enumerate() {
            if actions[..index]
                .iter()
                .any(|other| other.name == action.name)
            {
                return Err(format!("duplicate action `{}`", action.name));
            }
        }
        Ok(actions)
    }
}

/// A tool's rules, compiled from text: evaluated per call into the
/// [`Outcome`] the macro's tools give.
#[derive(Debug)]
pub struct TextRules {
    table: &'static RuleTable,
    conditions: Vec<Condition>,
    sets: Vec<&'static PatternSet>,
    fields: HashMap<String, Kind>,
    /// The `default` of the properties that have one.
    defaults: HashMap<String, Value>,
    discriminator: Option<&'static str>,
    action_names: &'static [&'static str],
    actions: Vec<Action>,
}

/// `text` for as long as the program runs.
fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

impl TextRules {
    fn build(
        program: Program,
        actions: &[ActionSpec],
        defaults: Annotations,
        kinds: annot_rules::check::FieldKinds,
        discriminator: Option<&str>,
    ) -> Self {
        let rules: Vec<Rule> = program
            .rules
            .iter()
            .enumerate()
            .map(|(index, rule)| Rule {
                index,
                source: leak(&rule.source),
                hints: rule.hints,
                authorization: None,
            })
            .collect();
        let rules: &'static [Rule] = Box::leak(rules.into_boxed_slice());
        let names: Vec<&'static str> = actions.iter().map(|action| leak(&action.name)).collect();
        let mut rows = Vec::new();
        let mut bounds = Vec::new();
        for (position, action) in actions.iter().enumerate() {
            let fires: Vec<Tri> = program
                .rules
                .iter()
                .map(|rule| match rule.fires[position] {
                    Some(true) => Tri::Always,
                    Some(false) => Tri::Never,
                    None => Tri::Maybe,
                })
                .collect();
            let row = ActionRow::new(
                names[position],
                action.annotations,
                None,
                defaults,
                None,
                &fires,
            );
            bounds.push(Action {
                name: names[position],
                annotations: super::bound::bound_annotations(row.base, rules, &fires),
            });
            rows.push(row);
        }
        let rows: &'static [ActionRow] = Box::leak(rows.into_boxed_slice());
        let table = Box::leak(Box::new(RuleTable::new(rules, defaults, None, rows)));
        let sets = program
            .patterns
            .iter()
            .map(|set| {
                let patterns: Vec<&'static str> =
                    set.regexes.iter().map(|regex| leak(regex)).collect();
                let patterns: &'static [&'static str] = Box::leak(patterns.into_boxed_slice());
                &*Box::leak(Box::new(PatternSet::new(patterns)))
            })
            .collect();
        TextRules {
            table,
            conditions: program
                .rules
                .into_iter()
                .map(|rule| rule.condition)
                .collect(),
            sets,
            fields: kinds
                .into_iter()
                .map(|(name, (kind, _))| (name, kind))
                .collect(),
            defaults: HashMap::new(),
            discriminator: discriminator.map(leak),
            action_names: Box::leak(names.into_boxed_slice()),
            actions: bounds,
        }
    }

    /// The outcome of a call with these arguments: its annotations, its
    /// explanation and the rules in play, as the evaluation `#[mcp_tool]`
    /// generates gives them. Only the fields the rules read are checked (and the
    /// discriminator): a field of the wrong type, a required one missing or
    /// an unknown action is an error.
    pub fn evaluate(&self, arguments: &Value) -> Result<Outcome, ArgumentError> {
        let object = arguments.as_object().ok_or(ArgumentError::NotAnObject {
            found: crate::argument_error::json_type(arguments),
        })?;
        let (position, action) = match self.discriminator {
            None => (0, self.action_names[0]),
            Some(field) => {
                let name = crate::private::discriminator(object, field, self.action_names)?;
                let position = self
                    .action_names
                    .iter()
                    .position(|known| *known == name)
                    .ok_or_else(|| ArgumentError::UnknownAction {
                        field: field.to_owned(),
                        found: name.to_owned(),
                        expected: self.action_names,
                    })?;
                (position, self.action_names[position])
            }
        };
        let applicable = self.table.actions[position].applicable;
        let mut call = evaluate::Call {
            sets: &self.sets,
            fields: &self.fields,
            defaults: &self.defaults,
            object,
            action,
            found: vec![None; self.sets.len()],
        };
        let mut fired = 0;
        let mut undecided = 0;
        for (index, condition) in self.conditions.iter().enumerate() {
            if applicable & 1 << index == 0 {
                continue;
            }
            match call.condition(condition)? {
                Tri::Always => fired |= 1 << index,
                Tri::Maybe => undecided |= 1 << index,
                Tri::Never => {}
            }
        }
        Ok(Outcome::compiled(self.table, position, fired, undecided))
    }

    /// Each action with the worst annotations any call of it can resolve
    /// to (what `tools/list` would show); one, named after the tool, for a
    /// tool without a discriminator.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The worst case of every call of the tool: its static annotations.
    pub fn static_annotations(&self) -> Annotations {
        let all: Vec<Annotations> = self
            .actions
            .iter()
            .map(|action| action.annotations)
            .collect();
        Annotations::join_all(&all)
    }

    /// The rules, in order, each with its normal form.
    pub fn rules(&self) -> &'static [Rule] {
        self.table.rules
    }
}
