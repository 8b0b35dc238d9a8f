//! A saved game: the rule file (a path from the record's own folder, and a
//! hash of the rule text it was played under), the variants, options and
//! seed, and the steps of the game: move names, or `set ...` where a
//! position was set from text. Loading replays the steps, so a record that
//! does not fit its rule file is refused with the first step that does not
//! fit; a rule file changed since the game was saved is said to have changed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostics::Sources;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The rule file: relative to the folder of the record file when saved
    /// (so the two can move together), else as it was given.
    pub rules: String,
    /// A hash of the rule text (the file and every file it extends) the
    /// game was played under, to tell when it has changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_hash: Option<String>,
    #[serde(default)]
    pub variants: Vec<String>,
    /// Option settings made with `--set`, as text.
    #[serde(default)]
    pub settings: Vec<(String, String)>,
    #[serde(default)]
    pub seed: u64,
    /// How far the game's random numbers had gone (for `random`), so that a
    /// loaded game goes on drawing the same numbers as the saved one would.
    #[serde(default)]
    pub random_position: u128,
    /// The steps: move names, and positions set from text as the `set`
    /// commands that made them. (Records saved before this name say `moves`.)
    #[serde(alias = "moves")]
    pub steps: Vec<String>,
}

impl Record {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    pub fn from_json(text: &str) -> Result<Record, String> {
        serde_json::from_str(text).map_err(|e| format!("not a game record: {e}"))
    }

    /// Where the rule file of a record read from `record_path` is: beside
    /// the record (as saved), else as written from here (a record written by
    /// hand, or saved before rules were kept relative to it).
    pub fn rules_path(&self, record_path: &str) -> String {
        let rules = Path::new(&self.rules);
        let dir = Path::new(record_path).parent().unwrap_or(Path::new(""));
        if rules.is_relative() && dir.join(rules).exists() {
            return dir.join(rules).to_string_lossy().into_owned();
        }
        self.rules.clone()
    }

    /// The rule file named from the folder of the record at `record_path`,
    /// when a relative path can say it.
    pub fn rules_from(rules: &str, record_path: &str) -> String {
        let dir = Path::new(record_path).parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        relative(Path::new(rules), dir).map_or_else(|| rules.to_string(), |p| p.to_string_lossy().into_owned())
    }
}

/// A hash of the texts of a rule file and what it extends (FNV-1a, 64 bits:
/// to notice a change, not to resist one made on purpose).
pub fn rules_hash(sources: &Sources) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &sources.files {
        for &b in f.text.as_bytes().iter().chain(&[0xff]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("fnv1a64:{h:016x}")
}

/// `target` as a path from `dir`, both as they are on disk.
fn relative(target: &Path, dir: &Path) -> Option<PathBuf> {
    let (t, d) = (target.canonicalize().ok()?, dir.canonicalize().ok()?);
    let common = t.components().zip(d.components()).take_while(|(a, b)| a == b).count();
    let mut p = PathBuf::new();
    for _ in d.components().skip(common) {
        p.push("..");
    }
    for c in t.components().skip(common) {
        p.push(c);
    }
    Some(p)
}
