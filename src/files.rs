//! Reading the files a person hands the program (rule files, game records)
//! with a limit on their size: a rule file is a few kilobytes, so a path to
//! something endless (`/dev/zero`) or huge is refused once the limit is
//! passed, instead of read until memory runs out.

use std::io::Read;
use std::path::Path;

/// The most a rule file may hold (each file of an `extends` chain).
pub const MAX_RULE_FILE: u64 = 4 << 20;
/// The most a saved game may hold.
pub const MAX_RECORD: u64 = 16 << 20;

/// Reads a text file of at most `max` bytes; `what` names it in the error.
/// A UTF-8 byte-order mark at the start is dropped.
pub fn read_text(path: impl AsRef<Path>, max: u64, what: &str) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        return Err(format!("more than {} MiB, the most a {what} may hold", max >> 20));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (the bytes at offset {} are not)", e.utf8_error().valid_up_to()))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}
