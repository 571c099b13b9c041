//! serde's `rename_all` conventions, with serde's exact rules, so the names the
//! macro puts on the wire are the names a `#[derive(Deserialize)]` would use.

/// One `rename_all` convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// Every convention under the name serde gives it.
pub const RENAME_RULES: [(&str, RenameRule); 8] = [
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

/// The tool name of a type without `name = "..."`: the snake_case of its name.
pub fn derived_tool_name(ident: &syn::Ident) -> String {
    use syn::ext::IdentExt;
    RenameRule::Snake.apply_to_variant(&ident.unraw().to_string())
}

impl RenameRule {
    pub fn from_name(name: &str) -> Option<RenameRule> {
        RENAME_RULES
            .iter()
            .find(|(rule_name, _)| *rule_name == name)
            .map(|(_, rule)| *rule)
    }

    /// Renames a variant, written in PascalCase.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// Renames a field, written in snake_case.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => lower_first(&RenameRule::Pascal.apply_to_field(field)),
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

fn lower_first(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_follow_serde() {
        let expected = [
            ("lowercase", "verytasty"),
            ("UPPERCASE", "VERYTASTY"),
            ("PascalCase", "VeryTasty"),
            ("camelCase", "veryTasty"),
            ("snake_case", "very_tasty"),
            ("SCREAMING_SNAKE_CASE", "VERY_TASTY"),
            ("kebab-case", "very-tasty"),
            ("SCREAMING-KEBAB-CASE", "VERY-TASTY"),
        ];
        for (name, renamed) in expected {
            let rule = RenameRule::from_name(name).unwrap();
            assert_eq!(rule.apply_to_variant("VeryTasty"), renamed, "{name}");
        }
        assert_eq!(RenameRule::Snake.apply_to_variant("Z42"), "z42");
        assert_eq!(RenameRule::Camel.apply_to_variant("A"), "a");
    }

    #[test]
    fn fields_follow_serde() {
        let expected = [
            ("lowercase", "very_tasty"),
            ("UPPERCASE", "VERY_TASTY"),
            ("PascalCase", "VeryTasty"),
            ("camelCase", "veryTasty"),
            ("snake_case", "very_tasty"),
            ("SCREAMING_SNAKE_CASE", "VERY_TASTY"),
            ("kebab-case", "very-tasty"),
            ("SCREAMING-KEBAB-CASE", "VERY-TASTY"),
        ];
        for (name, renamed) in expected {
            let rule = RenameRule::from_name(name).unwrap();
            assert_eq!(rule.apply_to_field("very_tasty"), renamed, "{name}");
        }
        assert_eq!(RenameRule::from_name("Snake_Case"), None);
    }
}
