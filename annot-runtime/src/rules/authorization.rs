//! Authorization requirements of a call: no credentials, or OAuth 2 with a set
//! of scopes.

use core::fmt;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// What a call needs to be authorized: the `securitySchemes` of SEP-1488, as
/// tool resolution refines them per argument set (SEP-1862, "Future
/// Extensibility").
///
/// Written `no_auth` or `scopes = ["repo"]` in `#[mcp_tool(...)]` (a default for
/// every action), in an action's `#[annotate(...)]`, or in a rule's hints. It
/// serializes as the `securitySchemes` array:
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Authorization;
///
/// assert_eq!(
///     serde_json::to_string(&Authorization::NoAuth).unwrap(),
///     r#"[{"type":"noauth"}]"#
/// );
/// ```
///
/// Requirements are ordered: no credentials is less than OAuth 2 with any set of
/// scopes, and a set of scopes is less than a superset. The static declaration
/// of a tool is the join (union) of everything its calls can require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Authorization {
    /// No credentials are needed (`{"type": "noauth"}`).
    NoAuth,
    /// OAuth 2 with these scopes (`{"type": "oauth2", "scopes": [...]}`); an
    /// empty set still needs an authenticated user.
    OAuth2(Scopes),
}

/// A set of OAuth 2 scopes out of one tool's table of scope names.
///
/// `Copy` and allocation-free: a bit set over the static table of every scope
/// the tool names (at most 64), so resolving a call never allocates for it.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Scopes;
///
/// const TABLE: &[&str] = &["repo", "delete_repo", "read:org"];
/// let scopes = Scopes::new(TABLE, 0b101);
/// assert_eq!(scopes.iter().collect::<Vec<_>>(), ["repo", "read:org"]);
/// assert!(scopes.contains("repo") && !scopes.contains("delete_repo"));
/// ```
#[derive(Clone, Copy)]
pub struct Scopes {
    table: &'static [&'static str],
    bits: u64,
}

impl Scopes {
    /// The scopes of `table` whose bit is set in `bits` (bit `i` is `table[i]`;
    /// bits past the table's end are ignored).
    pub const fn new(table: &'static [&'static str], bits: u64) -> Self {
        let mask = if table.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << table.len()) - 1
        };
        Scopes {
            table,
            bits: bits & mask,
        }
    }

    /// The scope names, in the table's order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        let bits = self.bits;
        self.table
            .iter()
            .enumerate()
            .filter(move |(index, _)| bits & (1 << index) != 0)
            .map(|(_, name)| *name)
    }

    /// The bits of the set over its table (bit `i` is `table[i]`).
    pub const fn bits(&self) -> u64 {
        self.bits
    }

    /// How many scopes the set holds.
    pub const fn len(&self) -> usize {
        self.bits.count_ones() as usize
    }

    /// Whether the set holds no scope.
    pub const fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Whether the set holds `scope`.
    pub fn contains(&self, scope: &str) -> bool {
        self.iter().any(|name| name == scope)
    }

    /// Whether every scope of `self` is in `other` (compared by name, so sets
    /// of different tables compare too).
    pub fn is_subset(&self, other: &Scopes) -> bool {
        self.iter().all(|name| other.contains(name))
    }

    /// The union of two sets of one table.
    pub(crate) const fn union(self, other: Scopes) -> Scopes {
        Scopes {
            table: self.table,
            bits: self.bits | other.bits,
        }
    }
}

impl PartialEq for Scopes {
    /// Equal when they hold the same scope names.
    fn eq(&self, other: &Scopes) -> bool {
        self.len() == other.len() && self.is_subset(other)
    }
}

impl Eq for Scopes {}

impl core::hash::Hash for Scopes {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        let mut names: Vec<&str> = self.iter().collect();
        names.sort_unstable();
        names.hash(state);
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Authorization {
    /// The riskier of two requirements: OAuth 2 with the union of the scopes,
    /// or no credentials when neither needs any. Both must come from one tool.
    pub(crate) const fn join(self, other: Authorization) -> Authorization {
        match (self, other) {
            (Authorization::NoAuth, other) | (other, Authorization::NoAuth) => other,
            (Authorization::OAuth2(a), Authorization::OAuth2(b)) => {
                Authorization::OAuth2(a.union(b))
            }
        }
    }

    /// `a` joined with `b` where either may be absent.
    pub(crate) const fn join_optional(
        a: Option<Authorization>,
        b: Option<Authorization>,
    ) -> Option<Authorization> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.join(b)),
            (Some(one), None) | (None, Some(one)) => Some(one),
            (None, None) => None,
        }
    }

    /// Whether a call needing `self` needs no more than `declared` allows: the
    /// conservative bound of tool resolution, applied to authorization.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::{Authorization, Scopes};
    ///
    /// const TABLE: &[&str] = &["repo", "delete_repo"];
    /// let repo = Authorization::OAuth2(Scopes::new(TABLE, 0b01));
    /// let both = Authorization::OAuth2(Scopes::new(TABLE, 0b11));
    /// assert!(Authorization::NoAuth.is_within(&repo));
    /// assert!(repo.is_within(&both));
    /// assert!(!both.is_within(&repo));
    /// assert!(!repo.is_within(&Authorization::NoAuth));
    /// ```
    pub fn is_within(&self, declared: &Authorization) -> bool {
        match (self, declared) {
            (Authorization::NoAuth, _) => true,
            (Authorization::OAuth2(_), Authorization::NoAuth) => false,
            (Authorization::OAuth2(needed), Authorization::OAuth2(allowed)) => {
                needed.is_subset(allowed)
            }
        }
    }

    /// The scopes needed; empty for [`Authorization::NoAuth`].
    pub fn scopes(&self) -> impl Iterator<Item = &'static str> + '_ {
        let scopes = match self {
            Authorization::NoAuth => None,
            Authorization::OAuth2(scopes) => Some(scopes.iter()),
        };
        scopes.into_iter().flatten()
    }

    /// The `securitySchemes` array, as a JSON value.
    pub fn security_schemes(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an authorization always serializes")
    }
}

/// Serializes as the `securitySchemes` array of one scheme.
impl Serialize for Authorization {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Scheme<'a>(&'a Authorization);
        impl Serialize for Scheme<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                match self.0 {
                    Authorization::NoAuth => map.serialize_entry("type", "noauth")?,
                    Authorization::OAuth2(scopes) => {
                        map.serialize_entry("type", "oauth2")?;
                        map.serialize_entry("scopes", &scopes.iter().collect::<Vec<_>>())?;
                    }
                }
                map.end()
            }
        }
        let mut seq = serializer.serialize_seq(Some(1))?;
        seq.serialize_element(&Scheme(self))?;
        seq.end()
    }
}

impl fmt::Display for Authorization {
    /// `no_auth`, or `scopes = ["a", "b"]`, as written in the attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Authorization::NoAuth => f.write_str("no_auth"),
            Authorization::OAuth2(scopes) => {
                f.write_str("scopes = [")?;
                for (index, scope) in scopes.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{scope:?}")?;
                }
                f.write_str("]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[&str] = &["repo", "delete_repo", "read:org"];

    fn oauth(bits: u64) -> Authorization {
        Authorization::OAuth2(Scopes::new(TABLE, bits))
    }

    #[test]
    fn join_is_the_union_and_no_auth_is_the_bottom() {
        assert_eq!(oauth(0b001).join(oauth(0b100)), oauth(0b101));
        assert_eq!(Authorization::NoAuth.join(oauth(0b010)), oauth(0b010));
        assert_eq!(
            Authorization::NoAuth.join(Authorization::NoAuth),
            Authorization::NoAuth
        );
        assert_eq!(oauth(0).join(Authorization::NoAuth), oauth(0));
        // Sets that share a scope: still the union.
        assert_eq!(oauth(0b011).join(oauth(0b110)), oauth(0b111));
        assert_eq!(
            Authorization::join_optional(None, Some(oauth(1))),
            Some(oauth(1))
        );
        assert_eq!(Authorization::join_optional(None, None), None);
    }

    #[test]
    fn serializes_as_security_schemes() {
        assert_eq!(
            oauth(0b011).security_schemes(),
            serde_json::json!([{"type": "oauth2", "scopes": ["repo", "delete_repo"]}])
        );
        assert_eq!(
            oauth(0).security_schemes(),
            serde_json::json!([{"type": "oauth2", "scopes": []}])
        );
        assert_eq!(oauth(0b101).to_string(), r#"scopes = ["repo", "read:org"]"#);
    }

    #[test]
    fn sets_compare_by_name_across_tables() {
        const OTHER: &[&str] = &["read:org", "repo"];
        let here = Scopes::new(TABLE, 0b101);
        let there = Scopes::new(OTHER, 0b11);
        assert_eq!(here, there);
        assert!(oauth(0b001).is_within(&Authorization::OAuth2(there)));
        assert!(Scopes::new(TABLE, u64::MAX).len() == 3);
    }

    /// What a host compares a resolved requirement with: a scope more than
    /// declared, or any scope where none was declared, is outside.
    #[test]
    fn within_means_no_scope_more() {
        let none = Authorization::NoAuth;
        assert!(none.is_within(&none));
        assert!(none.is_within(&oauth(0)));
        assert!(oauth(0).is_within(&oauth(0b001)));
        assert!(oauth(0b101).is_within(&oauth(0b111)));
        assert!(!oauth(0b101).is_within(&oauth(0b001)));
        assert!(!oauth(0b010).is_within(&oauth(0b101)));
        assert!(!oauth(0).is_within(&none), "OAuth 2 needs credentials");
        assert!(!oauth(0b001).is_within(&none));
    }

    #[test]
    fn sets_by_their_names() {
        let repo_org = Scopes::new(TABLE, 0b101);
        assert!(!repo_org.is_empty() && Scopes::new(TABLE, 0).is_empty());
        assert!(repo_org.contains("repo") && repo_org.contains("read:org"));
        assert!(!repo_org.contains("delete_repo") && !repo_org.contains("rep"));
        assert!(Scopes::new(TABLE, 0b001).is_subset(&repo_org));
        assert!(!Scopes::new(TABLE, 0b011).is_subset(&repo_org));
        // Equal names, whatever the table; a subset or a superset is not equal.
        const OTHER: &[&str] = &["read:org", "repo", "delete_repo"];
        assert_eq!(repo_org, Scopes::new(OTHER, 0b011));
        assert_ne!(repo_org, Scopes::new(OTHER, 0b001));
        assert_ne!(repo_org, Scopes::new(OTHER, 0b111));
        assert_ne!(repo_org, Scopes::new(TABLE, 0b110));
        let hash = |scopes: Scopes| {
            use core::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
                .hash_one(scopes)
        };
        assert_eq!(hash(repo_org), hash(Scopes::new(OTHER, 0b011)));
        assert_ne!(hash(repo_org), hash(Scopes::new(TABLE, 0b001)));
        assert_eq!(format!("{repo_org:?}"), r#"{"repo", "read:org"}"#);
        assert_eq!(
            oauth(0b110).scopes().collect::<Vec<_>>(),
            ["delete_repo", "read:org"]
        );
        assert_eq!(Authorization::NoAuth.scopes().count(), 0);
    }
}
