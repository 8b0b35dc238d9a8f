//! The steps taken so far, and taking them back and making them again.

use std::fmt::Write as _;

use super::text::plural;
use super::{Session, Step};

impl Session {
    pub(super) fn undo(&mut self, n: usize) -> Result<String, String> {
        let mut done = 0;
        while done < n {
            let Some(step) = self.history.pop() else {
                break;
            };
            self.engine.undo();
            self.redo.push(step);
            done += 1;
        }
        if done == 0 {
            return Err("nothing to undo\n".into());
        }
        Ok(format!("undid {done} step{}\n{}", plural(done), self.show()))
    }

    pub(super) fn redo(&mut self, n: usize) -> Result<String, String> {
        let mut done = 0;
        while done < n {
            let Some(step) = self.redo.pop() else { break };
            let ok = match &step {
                Step::Move(m, ..) => self.engine.apply(*m).is_ok(),
                Step::Set(_, p) => self.engine.set_position(p.clone()).is_ok(),
            };
            if !ok {
                self.redo.push(step);
                break;
            }
            self.history.push(step);
            done += 1;
        }
        if done == 0 {
            return Err("nothing to redo\n".into());
        }
        Ok(format!("redid {done} step{}\n{}", plural(done), self.show()))
    }

    pub(super) fn step_text(&self, s: &Step) -> String {
        match s {
            Step::Move(_, name, _) => name.clone(),
            Step::Set(t, _) => format!("set {t}"),
        }
    }

    pub(super) fn history_text(&self) -> String {
        if self.history.is_empty() {
            return "no steps yet\n".into();
        }
        // Move names are rendered against the game only, so the history can be
        // listed without replaying.
        let mut s = String::new();
        for (i, step) in self.history.iter().enumerate() {
            match step {
                Step::Move(_, name, who) => {
                    let _ = writeln!(s, "{:>3}. {} plays {name}", i + 1, self.game.players[*who as usize]);
                }
                Step::Set(..) => {
                    let _ = writeln!(s, "{:>3}. {}", i + 1, self.step_text(step));
                }
            }
        }
        s
    }
}
