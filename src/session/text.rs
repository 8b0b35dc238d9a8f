//! What the session says: the board and whose turn, the legal moves, why
//! a line was refused, the rule file's options and variants.

use std::fmt::Write as _;

use super::Session;
use super::command::COMMANDS;
use crate::diagnostics::{did_you_mean, escape_controls};
use crate::engine::Halt;
use crate::render;

impl Session {
    /// The text shown when the session starts.
    pub fn banner(&mut self) -> String {
        let name = if self.game.name.is_empty() { "mancala" } else { &self.game.name };
        let mut s = format!("{name} ({})", escape_controls(&self.setup.rules));
        if !self.game.variants_applied.is_empty() {
            let _ = write!(s, ", variant {}", self.game.variants_applied.join(" + "));
        }
        if !self.setup.settings.is_empty() {
            let _ = write!(
                s,
                ", {}",
                self.setup.settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
            );
        }
        s.push_str("\nType a move, `moves` to list them, or `help`.\n");
        s.push_str(&self.show());
        s
    }

    /// The legal moves as text (those starting with `prefix`): every name,
    /// one a line when names have spaces in them; for more than 60, how many
    /// and one line per group, at most 40.
    pub(super) fn moves_text(&mut self, prefix: &str) -> Result<String, String> {
        let rule_error = |s: &Self, h| format!("{}\n", s.rule_error(&h));
        let n = self.engine.count_moves().map_err(|h| rule_error(self, h))?;
        if n == 0 {
            return Ok("no legal moves: the game is over\n".to_string());
        }
        let summary = self.engine.move_summary().map_err(|h| rule_error(self, h))?;
        let total: u128 = summary.iter().filter(|(name, _)| name.starts_with(prefix)).map(|(_, k)| k).sum();
        if total == 0 {
            return Err(format!("no legal move starts with `{prefix}` ({n} legal moves)\n"));
        }
        if n <= 60 {
            let names: Vec<String> = self.legal_names().into_iter().filter(|m| m.starts_with(prefix)).collect();
            return Ok(names_text(&names));
        }
        let groups: Vec<(String, u128)> = summary.into_iter().filter(|(name, _)| name.starts_with(prefix)).collect();
        let head = if prefix.is_empty() {
            format!("{n} legal moves")
        } else {
            format!("{total} of {n} legal moves start with `{prefix}`")
        };
        let mut text = format!("{head}\n{}", summary_text(&groups, &self.game.colour_letters, true));
        if groups.len() > 40 {
            text.push_str("  (`moves PREFIX` lists those whose name starts with PREFIX)\n");
        }
        Ok(text)
    }

    /// The board and whose turn it is (or how the game ended).
    pub fn show(&mut self) -> String {
        let mut s = render::board(&mut self.engine, self.color);
        s.push_str(&self.status());
        s.push('\n');
        s
    }

    pub(super) fn status(&mut self) -> String {
        let n = match self.engine.count_moves() {
            Ok(n) => n,
            Err(h) => return self.rule_error(&h),
        };
        if n == 0 {
            return match self.engine.outcome() {
                Ok(Some(o)) => render::outcome(&self.game, &o),
                Ok(None) => "game over".into(),
                Err(h) => self.rule_error(&h),
            };
        }
        let t = self.engine.position().turn;
        let mut s = format!("{} to move", self.game.players[t.to_move as usize]);
        if let Some(spec) = self.ai.get(t.to_move as usize).copied().flatten() {
            let _ = write!(s, " ({spec})");
            if self.agents_wait {
                s.push_str(", waiting until you move or give it the seat again");
            }
        }
        if self.game.phases.len() > 1 {
            let _ = write!(s, " ({})", self.game.phases[t.phase as usize].name);
            // A phase of a few moves is a decision to make: name them.
            if n <= 6 {
                let _ = write!(s, ": {}", self.legal_names().join(" | "));
            }
        }
        s
    }

    /// A rule error as text; one at a place in the rule file (a hook's) is a
    /// diagnostic showing that place.
    /// "rule error: ..." for a rule that went wrong.
    pub(super) fn rule_error(&self, h: &Halt) -> String {
        match h {
            Halt::At(..) => format!("rule error:{}", self.halt(h)),
            other => format!("rule error: {}", self.halt(other)),
        }
    }

    pub(super) fn halt(&self, h: &Halt) -> String {
        match h {
            Halt::At(message, span) => {
                let d = crate::diagnostics::Diagnostic::error(*span, message.clone()).label("here");
                format!("\n{}", crate::diagnostics::render(&[d], &self.game.sources, self.color).trim_end())
            }
            other => other.to_string(),
        }
    }

    /// Why a typed line is not a legal move, and what is.
    pub(super) fn refusal(&mut self, name: &str) -> String {
        let summary = match self.engine.move_summary() {
            Ok(s) => s,
            Err(h) => return format!("{}\n", self.rule_error(&h)),
        };
        if summary.is_empty() {
            return format!("`{name}`: the game is over; `undo`, `new` or `quit`\n");
        }
        let first = name.split_whitespace().next().unwrap_or(name);
        // The move's kind (`exchange ...`), or a site a move names (`s3`).
        let known_move = self.game.moves.iter().any(|d| d.name == name || d.name == first)
            || self.could_be_move(first)
            || self.legal_names().iter().any(|n| n.split_whitespace().next() == Some(first));
        let mut msg = if known_move {
            format!("`{name}` is not a legal move now")
        } else {
            format!("unknown command or move `{name}`")
        };
        // A family's name with an index it does not have (`s7` of s1..s6):
        // say so, rather than suggest another member by its spelling.
        let stem = first.trim_end_matches(|c: char| c.is_ascii_digit());
        let family: Vec<&str> = self
            .game
            .sites
            .iter()
            .filter(|x| x.family.as_ref().is_some_and(|f| f.0 == stem))
            .map(|x| x.name.as_str())
            .collect();
        if !known_move && stem.len() < first.len() && !family.is_empty() {
            let _ =
                write!(msg, "; there is no site `{first}`: `{stem}` is {}..{}", family[0], family[family.len() - 1]);
        } else {
            let names: Vec<&str> = summary.iter().map(|(n, _)| n.as_str()).collect();
            if let Some(h) =
                did_you_mean(name, names.iter().copied().chain(COMMANDS.iter().copied())).filter(|_| !known_move)
            {
                let _ = write!(msg, "; {h}");
            }
        }
        let listing = summary_text(&summary, &self.game.colour_letters, false);
        let sep = if listing.starts_with("  ") { "\n" } else { " " };
        let _ = write!(msg, "\nlegal moves:{sep}{listing}(type `help` for commands)\n");
        msg
    }

    /// Whether a name looks like a move's (a site name, say) though not legal now.
    pub(super) fn could_be_move(&self, name: &str) -> bool {
        self.game.site_by_name(name).is_some() || name == "pass"
    }

    pub(super) fn info(&self) -> String {
        let g = &self.game;
        let rules = escape_controls(&self.setup.rules);
        let mut s = format!("{} from {rules}\nplayers: {}\n", g.name, g.players.join(", "));
        if !g.options.is_empty() {
            s.push_str("options:\n");
            for o in &g.options {
                let range = o.range.map(|(a, b)| format!(" in {a}..{b}")).unwrap_or_default();
                let _ = writeln!(s, "  {} = {}{range}  {}", o.name, crate::engine::game::value_text(o.value), o.doc);
            }
        }
        if !g.variants.is_empty() {
            s.push_str("variants:\n");
            for v in &g.variants {
                let on = if g.variants_applied.contains(&v.name) { " (in play)" } else { "" };
                let _ = writeln!(s, "  {}{on}  {}", v.name, v.doc);
            }
        }
        s
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Move names as text: on one line, or one a line when a name has a space
/// in it (`cup A1L`), so that where each ends is plain.
pub(super) fn names_text(names: &[String]) -> String {
    if names.iter().any(|n| n.contains(char::is_whitespace)) {
        names.iter().map(|n| format!("  {n}\n")).collect()
    } else {
        format!("{}\n", names.join(" "))
    }
}

/// Groups of moves as text: the names, and for a group of many orders of
/// colours, the name followed by how many there are. `listing` (for
/// `moves`): every group on a line of its own, at most 40.
pub(super) fn summary_text(summary: &[(String, u128)], letters: &[char], listing: bool) -> String {
    let simple = summary.iter().all(|(_, n)| *n == 1);
    let names: Vec<String> = summary.iter().map(|(n, _)| n.clone()).collect();
    if simple && summary.len() <= 20 && !listing {
        return names_text(&names);
    }
    if simple && !listing {
        let first: Vec<&str> = summary.iter().take(12).map(|(n, _)| n.as_str()).collect();
        return format!("{} ... ({} in all; `moves` lists them)\n", first.join(" "), summary.len());
    }
    let mut s = String::new();
    for (name, n) in summary.iter().take(40) {
        if *n > 1 {
            let _ = writeln!(
                s,
                "  {name} ORDER  ({n} orders of colours; ORDER is a letter per counter, from {})",
                letters.iter().collect::<String>()
            );
        } else {
            let _ = writeln!(s, "  {name}");
        }
    }
    if summary.len() > 40 {
        let _ = writeln!(s, "  ... and {} more", summary.len() - 40);
    }
    s
}
