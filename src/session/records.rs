//! Saved games: a record of the rules and steps, saved, loaded and replayed.

use super::text::{plural, summary_text};
use super::{Session, Setup};
use crate::record::Record;

impl Session {
    /// Starts a session from a saved record, replaying its steps.
    pub fn from_record(rec: &Record) -> Result<Session, String> {
        let setup = Setup {
            rules: rec.rules.clone(),
            variants: rec.variants.clone(),
            settings: rec.settings.clone(),
            seed: rec.seed,
        };
        let mut s = Session::new(setup).map_err(|f| f.render(false))?;
        for (i, step) in rec.moves.iter().enumerate() {
            s.replay_step(step).map_err(|e| format!("step {} `{step}` of the record does not fit: {e}", i + 1))?;
        }
        // The random numbers go on where the saved game left them.
        s.rng.set_word_pos(rec.random_position);
        Ok(s)
    }

    /// Starts a session from a record file.
    pub fn from_record_file(path: &str) -> Result<Session, String> {
        let text = crate::files::read_text(path, crate::files::MAX_RECORD, "game record")
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        Session::from_record(&Record::from_json(&text)?.rules_beside(path))
    }

    pub fn record(&self) -> Record {
        Record {
            rules: self.setup.rules.clone(),
            variants: self.setup.variants.clone(),
            settings: self.setup.settings.clone(),
            seed: self.setup.seed,
            random_position: self.rng.get_word_pos(),
            moves: self.history.iter().map(|s| self.step_text(s)).collect(),
        }
    }

    pub(super) fn save(&self, path: &str) -> Result<String, String> {
        match std::fs::write(path, self.record().to_json() + "\n") {
            Ok(()) => Ok(format!("saved {} step{} to {path}\n", self.history.len(), plural(self.history.len()))),
            Err(e) => Err(format!("cannot save to {path}: {e}\n")),
        }
    }

    pub(super) fn load(&mut self, path: &str) -> Result<String, String> {
        match Session::from_record_file(path) {
            Ok(s) => {
                let color = self.color;
                *self = s;
                self.color = color;
                Ok(format!("loaded {path}\n{}", self.show()))
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
                    summary_text(&summary, &self.game.colour_letters).trim_end()
                )
            });
        };
        self.make(mv).map(|_| ())
    }
}
