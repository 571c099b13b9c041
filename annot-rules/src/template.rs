//! HTTP path templates (`/repos/:owner/:repo`), compiled to the regex that
//! joins the field's pattern set.
//!
//! A template starts with `/`; its segments are literal text, a parameter
//! (`:name` or `{name}`) matching one non-empty segment, or, last only, `*`
//! (or `*name`) matching whatever follows, possibly nothing. A path matches
//! when every segment does; one trailing `/`, and a query string or fragment
//! (`?...`, `#...`), are ignored.

/// The regex of a template, or what is wrong with it.
pub fn template_regex(template: &str) -> Result<String, String> {
    let Some(rest) = template.strip_prefix('/') else {
        return Err(format!(
            "a path template starts with `/`: write \"/{template}\""
        ));
    };
    if template.contains(['?', '#']) {
        return Err("a path template matches the path only: leave out `?` and `#`".to_owned());
    }
    let mut regex = String::from("^");
    let segments: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('/').collect()
    };
    let mut rest_of_path = false;
    for (index, segment) in segments.iter().enumerate() {
        let last = index + 1 == segments.len();
        if segment.is_empty() {
            return Err(if last {
                "a path template does not end with `/` (a trailing `/` of the path is ignored anyway)"
                    .to_owned()
            } else {
                "a path template has no empty segment (`//`)".to_owned()
            });
        }
        if let Some(name) = segment.strip_prefix('*') {
            if !last {
                return Err(format!(
                    "`{segment}` matches the rest of the path, so it must be the last segment"
                ));
            }
            if !name.is_empty() {
                parameter_name(name)?;
            }
            rest_of_path = true;
            regex.push_str("(?:/[^?#]*)?");
        } else if let Some(name) = segment.strip_prefix(':') {
            parameter_name(name)?;
            regex.push_str("/[^/?#]+");
        } else if let Some(name) = segment.strip_prefix('{') {
            let Some(name) = name.strip_suffix('}') else {
                return Err(format!("`{segment}` is missing its closing `}}`"));
            };
            parameter_name(name)?;
            regex.push_str("/[^/?#]+");
        } else {
            if segment.contains([':', '{', '}', '*']) {
                return Err(format!(
                    "`{segment}`: a parameter is a whole segment, `:name` or `{{name}}`"
                ));
            }
            regex.push('/');
            regex.push_str(&regex::escape(segment));
        }
    }
    if !rest_of_path {
        regex.push_str("/?");
    }
    // `(?s)`: a query or fragment may hold a newline, which must not stop the
    // template from matching (and its rule from firing).
    regex.push_str("(?s:[?#].*)?$");
    Ok(regex)
}

fn parameter_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a parameter name: letters, digits and `_`, not starting with a digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(template: &str, path: &str) -> bool {
        let regex = regex::Regex::new(&template_regex(template).unwrap()).unwrap();
        regex.is_match(path)
    }

    #[test]
    fn parameters_match_one_segment() {
        let repo = "/repos/:owner/:repo";
        assert!(matches(repo, "/repos/rust-lang/rust"));
        assert!(matches(repo, "/repos/rust-lang/rust/"));
        assert!(matches(repo, "/repos/rust-lang/rust?per_page=5"));
        assert!(!matches(repo, "/repos/rust-lang"));
        assert!(!matches(repo, "/repos/rust-lang/rust/issues"));
        assert!(!matches(repo, "/repos//rust"));
        assert!(!matches(repo, "repos/rust-lang/rust"));
        assert!(!matches(repo, "/Repos/rust-lang/rust"));
        assert!(matches("/repos/{owner}/{repo}", "/repos/a/b"));
    }

    #[test]
    fn a_star_matches_the_rest() {
        let contents = "/repos/:owner/:repo/contents/*path";
        assert!(matches(contents, "/repos/a/b/contents"));
        assert!(matches(contents, "/repos/a/b/contents/src/lib.rs"));
        assert!(!matches(contents, "/repos/a/b/issues"));
        assert!(matches("/", "/"));
        assert!(matches("/", "/?q=1"));
        assert!(!matches("/", "/a"));
    }

    #[test]
    fn literal_text_is_escaped() {
        assert!(matches("/v1.0/items", "/v1.0/items"));
        assert!(!matches("/v1.0/items", "/v1x0/items"));
    }

    #[test]
    fn bad_templates_say_why() {
        for (template, expected) in [
            ("repos/:owner", "starts with `/`"),
            ("/repos//x", "empty segment"),
            ("/repos/", "does not end with `/`"),
            ("/repos/*/x", "must be the last"),
            ("/repos/:1st", "not a parameter name"),
            ("/repos/{owner", "closing"),
            ("/repos/a:b", "whole segment"),
            ("/search?q", "leave out"),
        ] {
            let error = template_regex(template).unwrap_err();
            assert!(error.contains(expected), "{template}: {error}");
        }
    }
}
