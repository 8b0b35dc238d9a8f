//! Moving the game on: a typed move (or two on a line), a position set
//! from text, random moves.

use std::fmt::Write as _;

use super::{Session, Step};
use crate::engine::{Move, Position};
use crate::position_text;

impl Session {
    /// Plays a typed move; a line that is no legal move is refused, saying
    /// what is legal.
    pub(super) fn play(&mut self, text: &str) -> Result<String, String> {
        let found = self.engine.find_move(text).map_err(|h| format!("{}\n", self.rule_error(&h)))?;
        // Or the same words in another order (`exchange B2H B2L`), when that
        // names one move only.
        if let Some(mv) = found.or_else(|| self.permuted(text)) {
            return self.make(mv).map_err(|e| format!("{e}\nthe game is unchanged\n"));
        }
        // A move and the move that follows it on one line (a sowing and the
        // capture it earns, say): the longest first part that is a move.
        let words: Vec<&str> = text.split_whitespace().collect();
        for k in (1..words.len()).rev() {
            let (first, rest) = (words[..k].join(" "), words[k..].join(" "));
            let Ok(Some(m1)) = self.engine.find_move(&first) else {
                continue;
            };
            let name1 = self.engine.move_name(m1);
            let mover = self.engine.to_move();
            if self.engine.apply(m1).is_err() {
                continue;
            }
            let again1 = self.again(mover);
            match self.engine.find_move(&rest) {
                Ok(Some(m2)) => {
                    let who = self.game.players[mover as usize].clone();
                    return match self.make(m2) {
                        Ok(second) => {
                            self.history.insert(self.history.len() - 1, Step::Move(m1, name1.clone(), mover));
                            Ok(format!("{who} plays {name1}{again1}\n{second}"))
                        }
                        // Both moves or neither.
                        Err(e) => {
                            self.engine.undo();
                            Err(format!("{e}\nthe game is unchanged\n"))
                        }
                    };
                }
                _ => {
                    self.engine.undo();
                }
            }
        }
        Err(self.refusal(text))
    }

    /// The one legal move whose name has the typed words in another order.
    pub(super) fn permuted(&mut self, text: &str) -> Option<Move> {
        let mut words: Vec<&str> = text.split_whitespace().collect();
        if words.len() < 2 || self.engine.count_moves().ok()? > 5000 {
            return None;
        }
        words.sort_unstable();
        let mut buf = std::mem::take(&mut self.buf);
        let found = self.engine.legal_moves(&mut buf).ok().and_then(|_| {
            let same: Vec<Move> = buf
                .iter()
                .copied()
                .filter(|m| {
                    let name = self.engine.move_name(*m);
                    let mut w: Vec<&str> = name.split_whitespace().collect();
                    w.sort_unstable();
                    w == words
                })
                .collect();
            (same.len() == 1).then(|| same[0])
        });
        self.buf = buf;
        found
    }

    /// Makes a legal move and records it; the board and status after it.
    pub(super) fn make(&mut self, mv: Move) -> Result<String, String> {
        let name = self.engine.move_name(mv);
        let mover = self.engine.to_move();
        self.engine.apply(mv).map_err(|h| self.rule_error(&h))?;
        self.history.push(Step::Move(mv, name.clone(), mover));
        self.redo.clear();
        let who = self.game.players[mover as usize].clone();
        Ok(format!("{who} plays {name}{}\n{}", self.again(mover), self.show()))
    }

    pub(super) fn set(&mut self, text: &str) -> Result<(), String> {
        let pos = self.parse_position(text)?;
        self.engine.set_position(pos)?;
        // A position that meets an `end` condition is over, as after a move.
        if let Err(h) = self.engine.settle() {
            self.engine.undo();
            return Err(self.rule_error(&h));
        }
        let pos = self.engine.position().clone();
        self.history.push(Step::Set(text.to_string(), pos));
        self.redo.clear();
        Ok(())
    }

    /// Plays up to `n` random moves: a line for each, then the board. A rule
    /// that goes wrong stops them (the moves made before it stay made).
    pub(super) fn random(&mut self, n: usize) -> Result<String, String> {
        let mut out = String::new();
        let mut played = 0;
        let mut failed = false;
        for _ in 0..n {
            let pick = match self.engine.sample_move(&mut self.rng) {
                Ok(p) => p,
                Err(h) => {
                    let _ = writeln!(out, "{}", self.rule_error(&h));
                    failed = true;
                    break;
                }
            };
            let Some(mv) = pick else { break };
            let name = self.engine.move_name(mv);
            let mover = self.engine.to_move();
            if let Err(h) = self.engine.apply(mv) {
                let _ = writeln!(out, "{}", self.rule_error(&h));
                failed = true;
                break;
            }
            self.history.push(Step::Move(mv, name.clone(), mover));
            self.redo.clear();
            played += 1;
            let again = self.again(mover);
            let _ = writeln!(out, "{} plays {name}{again}", self.game.players[mover as usize]);
        }
        if played == 0 && out.is_empty() {
            return Err("no legal moves: the game is over\n".into());
        }
        out.push_str(&self.show());
        if failed { Err(out) } else { Ok(out) }
    }

    /// `, and moves again` when the player who just moved is to move again
    /// (an extra turn), the game going on.
    pub(super) fn again(&mut self, mover: crate::engine::game::PlayerId) -> &'static str {
        let going_on = self.engine.count_moves().is_ok_and(|n| n > 0);
        if going_on && self.engine.to_move() == mover { ", and moves again" } else { "" }
    }

    /// Parses `set` assignments into a new position, changing nothing on error.
    pub fn parse_position(&self, text: &str) -> Result<Position, String> {
        position_text::parse(&self.game, self.engine.position().clone(), text)
    }

    /// Parses assignments as a goal for solitaire: the counts they name,
    /// whatever the rest of the position.
    pub fn parse_goal(&self, text: &str) -> Result<crate::ai::solitaire::Goal, String> {
        let counts = position_text::named_counts(&self.game, self.engine.position(), text)?;
        Ok(crate::ai::solitaire::Goal { counts })
    }

    /// The position as the assignments of a `set` command.
    pub fn position_text(&self) -> String {
        position_text::print(&self.game, self.engine.position())
    }
}
