//! The functions a read may call, per dialect: built-in functions whose only
//! effect is their result (aggregates, window functions, string, number,
//! date and JSON functions). Anything else (`nextval`, `set_config`,
//! `pg_terminate_backend`, `lo_unlink`, `dblink_exec`, `load_file`,
//! `sleep`, `get_lock`, `load_extension`, a user's function) makes a text
//! of the riskiest class.
//!
//! A name is matched unqualified and unquoted only: `pg_catalog.lower` or
//! `"lower"` may be a user's function and count as unknown. The lists trust
//! that an unqualified name is the built-in one; a `search_path` that puts
//! a user's schema before `pg_catalog` is beyond what a parser sees.

use super::SqlDialect;

/// In every dialect (also what [`SqlDialect::Generic`] allows).
const COMMON: &[&str] = &[
    "abs",
    "avg",
    "coalesce",
    "count",
    "current_date",
    "current_time",
    "current_timestamp",
    "length",
    "lower",
    "ltrim",
    "max",
    "min",
    "nullif",
    "replace",
    "round",
    "rtrim",
    "substr",
    "substring",
    "sum",
    "trim",
    "upper",
];

const POSTGRES: &[&str] = &[
    "age",
    "array_agg",
    "array_length",
    "array_position",
    "array_to_string",
    "bit_length",
    "bool_and",
    "bool_or",
    "btrim",
    "cardinality",
    "ceil",
    "ceiling",
    "char_length",
    "character_length",
    "clock_timestamp",
    "concat",
    "concat_ws",
    "cume_dist",
    "date_part",
    "date_trunc",
    "dense_rank",
    "every",
    "exp",
    "first_value",
    "floor",
    "format",
    "generate_series",
    "greatest",
    "initcap",
    "json_agg",
    "json_array_length",
    "json_build_array",
    "json_build_object",
    "json_object_agg",
    "jsonb_agg",
    "jsonb_array_length",
    "jsonb_build_array",
    "jsonb_build_object",
    "jsonb_object_agg",
    "jsonb_typeof",
    "lag",
    "last_value",
    "lead",
    "least",
    "left",
    "ln",
    "localtime",
    "localtimestamp",
    "log",
    "lpad",
    "md5",
    "mod",
    "now",
    "nth_value",
    "ntile",
    "octet_length",
    "percent_rank",
    "power",
    "rank",
    "regexp_match",
    "regexp_replace",
    "repeat",
    "reverse",
    "right",
    "row_number",
    "rpad",
    "sign",
    "split_part",
    "sqrt",
    "starts_with",
    "statement_timestamp",
    "stddev",
    "string_agg",
    "strpos",
    "to_char",
    "to_date",
    "to_json",
    "to_jsonb",
    "to_number",
    "to_timestamp",
    "transaction_timestamp",
    "translate",
    "trunc",
    "unnest",
    "variance",
];

const MYSQL: &[&str] = &[
    "ceil",
    "ceiling",
    "char_length",
    "character_length",
    "concat",
    "concat_ws",
    "curdate",
    "curtime",
    "date_add",
    "date_format",
    "date_sub",
    "datediff",
    "day",
    "dayofweek",
    "dense_rank",
    "first_value",
    "floor",
    "greatest",
    "group_concat",
    "hex",
    "hour",
    "if",
    "ifnull",
    "instr",
    "json_array",
    "json_extract",
    "json_length",
    "json_object",
    "json_unquote",
    "lag",
    "last_value",
    "lcase",
    "lead",
    "least",
    "left",
    "locate",
    "lpad",
    "md5",
    "minute",
    "mod",
    "month",
    "now",
    "ntile",
    "pow",
    "power",
    "rank",
    "repeat",
    "reverse",
    "right",
    "row_number",
    "rpad",
    "second",
    "sha1",
    "sha2",
    "sign",
    "sqrt",
    "str_to_date",
    "substring_index",
    "ucase",
    "unix_timestamp",
    "year",
];

const SQLITE: &[&str] = &[
    "char",
    "concat",
    "concat_ws",
    "cume_dist",
    "date",
    "datetime",
    "dense_rank",
    "first_value",
    "format",
    "glob",
    "group_concat",
    "hex",
    "ifnull",
    "iif",
    "instr",
    "json",
    "json_array",
    "json_array_length",
    "json_extract",
    "json_object",
    "json_type",
    "json_valid",
    "julianday",
    "lag",
    "last_value",
    "lead",
    "like",
    "nth_value",
    "ntile",
    "percent_rank",
    "printf",
    "quote",
    "random",
    "rank",
    "row_number",
    "sign",
    "strftime",
    "string_agg",
    "time",
    "total",
    "typeof",
    "unicode",
    "unixepoch",
];

/// The allowlist of `dialect`, beyond the functions common to all: sorted,
/// lowercase. [`SqlDialect::Generic`] has none beyond the common ones.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rules::sql::{SqlDialect, pure_functions};
///
/// assert!(pure_functions(SqlDialect::Generic).contains(&"lower"));
/// assert!(pure_functions(SqlDialect::Postgres).contains(&"date_trunc"));
/// assert!(!pure_functions(SqlDialect::Postgres).contains(&"nextval"));
/// ```
pub fn pure_functions(dialect: SqlDialect) -> Vec<&'static str> {
    let own: &[&str] = match dialect {
        SqlDialect::Generic => &[],
        SqlDialect::Postgres => POSTGRES,
        SqlDialect::MySql => MYSQL,
        SqlDialect::Sqlite => SQLITE,
    };
    let mut all: Vec<&'static str> = COMMON.iter().chain(own).copied().collect();
    all.sort_unstable();
    all
}

/// Whether the lowercase `name` is on `dialect`'s allowlist.
pub(super) fn is_pure(name: &str, dialect: SqlDialect) -> bool {
    let own: &[&str] = match dialect {
        SqlDialect::Generic => &[],
        SqlDialect::Postgres => POSTGRES,
        SqlDialect::MySql => MYSQL,
        SqlDialect::Sqlite => SQLITE,
    };
    COMMON.binary_search(&name).is_ok() || own.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_lowercase_and_disjoint_from_the_common_one() {
        for list in [COMMON, POSTGRES, MYSQL, SQLITE] {
            assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{list:?}");
            assert!(list.iter().all(|name| *name == name.to_ascii_lowercase()));
        }
        for list in [POSTGRES, MYSQL, SQLITE] {
            assert!(list.iter().all(|name| !COMMON.contains(name)), "{list:?}");
        }
    }

    #[test]
    fn side_effecting_functions_are_not_pure_anywhere() {
        let side_effecting = [
            "nextval",
            "setval",
            "set_config",
            "pg_terminate_backend",
            "pg_cancel_backend",
            "pg_sleep",
            "pg_read_file",
            "lo_unlink",
            "lo_import",
            "dblink_exec",
            "load_file",
            "sleep",
            "benchmark",
            "get_lock",
            "load_extension",
            "writefile",
        ];
        for dialect in SqlDialect::ALL {
            for name in side_effecting {
                assert!(!is_pure(name, dialect), "{name} in {dialect}");
            }
        }
    }
}
