//! The program as a player: hints, and seats given to agents.

use std::fmt::Write as _;

use super::Session;

impl Session {
    /// The agent to use for a hint: the one named, or alpha-beta for two
    /// players and MCTS for more, with a second to think.
    pub(super) fn agent_or_default(&self, text: &str) -> Result<crate::ai::AgentSpec, String> {
        if !text.trim().is_empty() {
            return text.parse();
        }
        let kind = if self.game.players.len() == 2 { crate::ai::Kind::AlphaBeta } else { crate::ai::Kind::Mcts };
        Ok(crate::ai::AgentSpec {
            kind,
            budget: crate::ai::Budget { time: Some(std::time::Duration::from_secs(1)), nodes: None },
        })
    }

    pub(super) fn hint(&mut self, text: &str) -> Result<String, String> {
        let spec = self.agent_or_default(text).map_err(|e| format!("{e}\n"))?;
        let pick = crate::ai::choose(spec, &mut self.engine, &mut self.rng);
        if crate::ai::interrupted() {
            return Err("the hint's search was stopped (Ctrl-C); the game is as it was\n".into());
        }
        match pick {
            Err(h) => Err(format!("{}\n", self.rule_error(&h))),
            Ok(None) => Err("no legal moves: the game is over\n".into()),
            Ok(Some(c)) => {
                // Alpha-beta is for two sides: with more, MCTS searched.
                let (kind, label) = if spec.kind == crate::ai::Kind::AlphaBeta && self.game.players.len() > 2 {
                    (crate::ai::Kind::Mcts, format!("{spec}, played by MCTS for more than two players"))
                } else {
                    (spec.kind, spec.to_string())
                };
                let mover = &self.game.players[self.engine.to_move() as usize];
                let value =
                    c.value.map(|v| format!(", evaluation for {mover}: {}", eval_text(kind, v))).unwrap_or_default();
                Ok(format!("hint: {} ({label}{value}; {})\n", self.engine.move_name(c.mv), c.info))
            }
        }
    }

    pub(super) fn ai_command(&mut self, text: &str) -> Result<String, String> {
        let np = self.game.players.len();
        self.ai.resize(np, None);
        let Some((seat, agent)) = text.trim().split_once(char::is_whitespace) else {
            if !text.trim().is_empty() {
                return Err(format!(
                    "`ai {}` needs an agent, or `off`: e.g. `ai {} alphabeta 2s`\n",
                    text.trim(),
                    text.trim()
                ));
            }
            let seats: Vec<String> = (0..np)
                .map(|p| {
                    format!(
                        "{}: {}",
                        self.game.players[p],
                        self.ai[p].map_or("a person".to_string(), |a| a.to_string())
                    )
                })
                .collect();
            return Ok(format!("{}\n", seats.join(", ")));
        };
        let Some(p) = self.game.player_by_name(seat) else {
            return Err(format!("no seat `{seat}`; seats: {}\n", self.game.players.join(", ")));
        };
        // Given a seat, an agent plays it from now on (also after an undo).
        if agent.trim() == "off" {
            self.ai[p as usize] = None;
            return Ok(format!("{seat} is played by a person\n"));
        }
        match agent.trim().parse::<crate::ai::AgentSpec>() {
            Ok(spec) => {
                self.ai[p as usize] = Some(spec);
                Ok(format!("{seat} is played by {spec}\n"))
            }
            Err(e) => Err(format!("{e}\n")),
        }
    }

    /// While the player to move is played by the program, it moves.
    pub(super) fn autoplay(&mut self) -> String {
        let mut out = String::new();
        for _ in 0..10_000 {
            let me = self.engine.to_move() as usize;
            let Some(spec) = self.ai.get(me).copied().flatten() else { break };
            let pick = crate::ai::choose(spec, &mut self.engine, &mut self.rng);
            if crate::ai::interrupted() {
                // Its search was stopped: no half-thought move is made.
                self.agents_wait = true;
                let _ = writeln!(
                    out,
                    "{}'s agent was stopped (Ctrl-C) before it moved; it waits until you move (`ai {} {spec}` lets it go on)",
                    self.game.players[me], self.game.players[me]
                );
                break;
            }
            match pick {
                Ok(Some(c)) => match self.make(c.mv) {
                    Ok(text) => out.push_str(&text.replacen(" plays ", &format!(" ({spec}) plays "), 1)),
                    Err(e) => {
                        out.push_str(&format!("{e}\n"));
                        break;
                    }
                },
                Ok(None) => break,
                Err(h) => {
                    out.push_str(&format!("{}\n", self.rule_error(&h)));
                    break;
                }
            }
        }
        out
    }
}

/// An agent's evaluation in words.
pub(super) fn eval_text(kind: crate::ai::Kind, v: f64) -> String {
    use crate::ai::{Kind, alphabeta::WIN};
    match kind {
        Kind::Mcts => format!("{:.0}% wins", v * 100.0),
        Kind::AlphaBeta if v >= (WIN / 2) as f64 => format!("a win by {}", v as i64 - WIN),
        Kind::AlphaBeta if v <= -(WIN / 2) as f64 => format!("a loss by {}", -(v as i64 + WIN)),
        _ => format!("margin {v:+}"),
    }
}
