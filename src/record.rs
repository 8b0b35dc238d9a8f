//! A saved game: the rule file, variants, options and seed it was played
//! with, and the steps of the game:
//! by name (or `set ...` where a position was set from text). Loading replays the moves, so a record that does not fit its rule
//! file is refused with the first move that does not fit.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The rule file, as it was given when the game started.
    pub rules: String,
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
    /// commands that made them.
    pub moves: Vec<String>,
}

impl Record {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The record with its rule file found: as written if it exists from
    /// here, else relative to the folder of the record file at `path`.
    pub fn rules_beside(mut self, path: &str) -> Record {
        let rules = std::path::Path::new(&self.rules);
        if !rules.exists()
            && rules.is_relative()
            && let Some(dir) = std::path::Path::new(path).parent()
            && dir.join(rules).exists()
        {
            self.rules = dir.join(rules).to_string_lossy().into_owned();
        }
        self
    }

    pub fn from_json(text: &str) -> Result<Record, String> {
        serde_json::from_str(text).map_err(|e| format!("not a game record: {e}"))
    }
}
