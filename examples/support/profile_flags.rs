//! The profile flags the example servers accept: `--read-only`,
//! `--no-destructive`, `--closed-world`, `--no-privileged`, combinable.

use std::ffi::OsString;

use annot::server::Profile;

/// The flags, their profile, and what they mean, for `--help`-style usage.
pub const FLAGS: [(&str, fn() -> Profile); 4] = [
    ("--read-only", Profile::read_only),
    ("--no-destructive", Profile::no_destructive),
    ("--closed-world", Profile::closed_world),
    ("--no-privileged", Profile::no_privileged),
];

/// `[--read-only] [--no-destructive] [--closed-world] [--no-privileged]`.
pub fn usage() -> String {
    FLAGS
        .iter()
        .map(|(flag, _)| format!("[{flag}]"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits `arguments` into the profile their flags make and the other
/// arguments, in order; `Err` names an argument that looks like a flag but
/// is none of these.
pub fn parse(
    arguments: impl IntoIterator<Item = OsString>,
) -> Result<(Profile, Vec<OsString>), String> {
    let mut profile = Profile::any();
    let mut rest = Vec::new();
    for argument in arguments {
        let text = argument.to_string_lossy();
        if let Some((_, make)) = FLAGS.iter().find(|(flag, _)| *flag == text) {
            profile = profile.and(make());
        } else if text.starts_with("--") {
            return Err(format!("unknown flag `{text}`"));
        } else {
            rest.push(argument);
        }
    }
    Ok((profile, rest))
}
