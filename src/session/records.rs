//! Saved games: a record of the rules and steps, saved, loaded and replayed.

use super::text::{plural, summary_text};
use super::{Session, Setup};
use crate::diagnostics::escape_controls;
use crate::record::{Record, rules_hash};

impl Session {
    /// Starts a session from a saved record, replaying its steps (its rule
    /// file as the record names it, from here).
    pub fn from_record(rec: &Record) -> Result<Session, String> {
        Session::replay(rec, &rec.rules).map(|(s, _)| s)
    }

    /// Starts a session from a record file: its rule file found beside it.
    /// A rule file changed since the game was saved is said to have changed:
    /// in the error if the steps no longer fit, else in a note (the second
    /// value) to show with the game.
    pub fn from_record_file(path: &str) -> Result<(Session, Option<String>), String> {
        let text = crate::files::read_text(path, crate::files::MAX_RECORD, "game record")
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let rec = Record::from_json(&text)?;
        Session::replay(&rec, &rec.rules_path(path))
    }

    fn replay(rec: &Record, rules: &str) -> Result<(Session, Option<String>), String> {
        let setup = Setup {
            rules: rules.to_string(),
            variants: rec.variants.clone(),
            settings: rec.settings.clone(),
            seed: rec.seed,
        };
        let mut s = Session::new(setup).map_err(|f| f.render(false))?;
        let changed = rec
            .rules_hash
            .as_ref()
            .filter(|h| **h != rules_hash(&s.game.sources))
            .map(|_| format!("the rule file {} has changed since this game was saved", escape_controls(rules)));
        for (i, step) in rec.steps.iter().enumerate() {
            s.replay_step(step).map_err(|e| {
                let why = changed.as_ref().map(|c| format!("\n({c}, which may be why)")).unwrap_or_default();
                format!("step {} `{step}` of the record does not fit: {e}{why}", i + 1)
            })?;
        }
        // The random numbers go on where the saved game left them.
        s.rng.set_word_pos(rec.random_position);
        Ok((s, changed.map(|c| format!("note: {c}; its steps still fit the rules as they are now\n"))))
    }

    /// The game as a record; its rule file named as given.
    pub fn record(&self) -> Record {
        Record {
            rules: self.setup.rules.clone(),
            rules_hash: Some(rules_hash(&self.game.sources)),
            variants: self.setup.variants.clone(),
            settings: self.setup.settings.clone(),
            seed: self.setup.seed,
            random_position: self.rng.get_word_pos(),
            steps: self.history.iter().map(|s| self.step_text(s)).collect(),
        }
    }

    pub(super) fn save(&self, path: &str) -> Result<String, String> {
        // The rule file named from the record's folder, so that the record
        // loads from anywhere as long as the two keep their places.
        let rec = Record { rules: Record::rules_from(&self.setup.rules, path), ..self.record() };
        match std::fs::write(path, rec.to_json() + "\n") {
            Ok(()) => Ok(format!("saved {} step{} to {path}\n", self.history.len(), plural(self.history.len()))),
            Err(e) => Err(format!("cannot save to {path}: {e}\n")),
        }
    }

    pub(super) fn load(&mut self, path: &str) -> Result<String, String> {
        match Session::from_record_file(path) {
            Ok((s, note)) => {
                let color = self.color;
                *self = s;
                self.color = color;
                Ok(format!("loaded {path}\n{}{}", note.unwrap_or_default(), self.show()))
            }
            Err(e) => Err(format!("{e}\nthe game is unchanged\n")),
        }
    }

    pub(super) fn replay_step(&mut self, step: &str) -> Result<(), String> {
        if let Some(rest) = step.strip_prefix("set ") {
            return self.set(rest);
        }
        let found = self.engine.find_move(step).map_err(|h| self.halt(&h))?;
        let Some(mv) = found else {
            let summary = self.engine.move_summary().map_err(|h| self.halt(&h))?;
            return Err(if summary.is_empty() {
                "the game is already over".to_string()
            } else {
                format!(
                    "not a legal move here (legal: {})",
                    summary_text(&summary, &self.game.colour_letters, false).trim_end()
                )
            });
        };
        self.make(mv).map(|_| ())
    }
}
