//! The `--exposure resolvable|per-action|auto` flag every example server
//! takes: how a tool of several actions is listed (`annot::server::Exposure`).

use std::ffi::OsString;

use annot::server::Exposure;

/// `[--exposure resolvable|per-action|auto]`, for a usage line.
pub const USAGE: &str = "[--exposure resolvable|per-action|auto]";

/// Takes `--exposure MODE` (or `--exposure=MODE`) out of `arguments`: the
/// mode it names (the last one given), [`Exposure::Resolvable`] without one,
/// and the other arguments in order. `Err` says what is wrong with the flag.
pub fn take_exposure(
    arguments: impl IntoIterator<Item = OsString>,
) -> Result<(Exposure, Vec<OsString>), String> {
    let mut exposure = Exposure::Resolvable;
    let mut rest = Vec::new();
    let mut arguments = arguments.into_iter();
    while let Some(argument) = arguments.next() {
        let value = match argument.to_str() {
            Some("--exposure") => arguments
                .next()
                .ok_or_else(|| format!("`--exposure` needs a mode: {}", modes()))?,
            Some(text) if text.starts_with("--exposure=") => {
                OsString::from(&text["--exposure=".len()..])
            }
            _ => {
                rest.push(argument);
                continue;
            }
        };
        let name = value.to_string_lossy();
        exposure = Exposure::named(&name)
            .ok_or_else(|| format!("unknown exposure `{name}`: expected {}", modes()))?;
    }
    Ok((exposure, rest))
}

fn modes() -> String {
    Exposure::NAMES.join(", ")
}
