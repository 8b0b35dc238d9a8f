//! A game being played: the commands of the REPL, the history with undo and
//! redo, positions set from text, JSON output, and saved records. It speaks
//! in text and knows nothing of terminals, so the REPL, piped scripts and the
//! transcript tests all drive the same code.

use std::fmt::Write as _;
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::compile::{Config, compile_file};
use crate::diagnostics::{Failure, did_you_mean};
use crate::engine::game::{Game, Type, Value};
use crate::engine::{Engine, Halt, Move, Position};
use crate::position_text::{self, state_sites, value_name};
use crate::record::Record;
use crate::render;

/// What a session is started with: the command line's choices.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    pub rules: String,
    pub variants: Vec<String>,
    pub settings: Vec<(String, String)>,
    pub seed: u64,
}

/// One step of the history: a move, or a position set from text.
#[derive(Debug, Clone)]
enum Step {
    /// A move, with its name as it was when made (an order of colours is
    /// named by the counters of its site at the time).
    Move(Move, String),
    Set(String, Position),
}

pub struct Reply {
    pub text: String,
    pub quit: bool,
}

impl Reply {
    fn text(text: impl Into<String>) -> Self {
        Reply { text: text.into(), quit: false }
    }
}

pub struct Session {
    pub setup: Setup,
    game: Arc<Game>,
    engine: Engine,
    history: Vec<Step>,
    redo: Vec<Step>,
    rng: ChaCha8Rng,
    buf: Vec<Move>,
    /// Paint coloured counters with terminal colours.
    pub color: bool,
    /// Seats the program plays, and with which agent.
    ai: Vec<Option<crate::ai::AgentSpec>>,
}

pub const COMMANDS: &[&str] = &[
    "help", "moves", "board", "undo", "redo", "new", "set", "position", "json", "save", "load", "history", "info",
    "random", "hint", "ai", "quit", "exit",
];

const HELP: &str = "\
Commands (a move is typed by its name, as `moves` lists them; `move NAME` works too):
  moves            list the legal moves
  board            draw the board again
  undo [N]         take back the last N steps (default 1); redo [N] makes them again
  new              start a new game with the same rules
  set ASSIGNMENTS  set the position: SITE=N, FAMILY=N,N,... (in index order),
                   coloured counts as a letter and count per colour (r2b1),
                   turn=PLAYER, phase=NAME, STATE=VALUE; `clear` first empties
                   every site. `position` prints the current one in this form.
  position         print the position as a `set` command
  json             print the state as JSON
  save FILE        save the game as a JSON record; load FILE loads one
  history          list the steps so far
  info             the rule file, its options and variants
  random [N]       play N random legal moves (seeded by --seed)
  help             this text
  quit             leave (also `exit`, or end of input)";

impl Session {
    pub fn new(setup: Setup) -> Result<Session, Failure> {
        let config = Config { variants: setup.variants.clone(), settings: setup.settings.clone() };
        let game = Arc::new(compile_file(&setup.rules, &config)?);
        let engine = Engine::with_seed(game.clone(), setup.seed).map_err(|h| Failure {
            diagnostics: vec![crate::diagnostics::Diagnostic::global(format!("the setup failed: {h}"))],
            sources: game.sources.clone(),
        })?;
        let rng = ChaCha8Rng::seed_from_u64(setup.seed);
        Ok(Session { setup, game, engine, history: vec![], redo: vec![], rng, buf: vec![], color: false, ai: vec![] })
    }

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

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The text shown when the session starts.
    pub fn banner(&mut self) -> String {
        let mut s =
            format!("{} ({})", if self.game.name.is_empty() { "mancala" } else { &self.game.name }, self.setup.rules);
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

    /// The legal moves' names.
    /// The legal moves' names; where moves come in many orders of colours,
    /// the name of each group (which plays its default order).
    pub fn legal_names(&mut self) -> Vec<String> {
        match self.engine.count_moves() {
            Ok(n) if n <= 500 => {
                let mut buf = std::mem::take(&mut self.buf);
                let names = match self.engine.legal_moves(&mut buf) {
                    Ok(()) => buf.iter().map(|m| self.engine.move_name(*m)).collect(),
                    Err(_) => vec![],
                };
                self.buf = buf;
                names
            }
            Ok(_) => self.engine.move_summary().map(|s| s.into_iter().map(|(n, _)| n).collect()).unwrap_or_default(),
            Err(_) => vec![],
        }
    }

    /// The legal moves as text: every name, or for many moves, each group
    /// with how many moves it holds.
    fn moves_text(&mut self) -> String {
        match self.engine.count_moves() {
            Err(h) => format!("{}\n", self.rule_error(&h)),
            Ok(0) => "no legal moves: the game is over\n".to_string(),
            Ok(n) if n <= 60 => format!("{}\n", self.legal_names().join(" ")),
            Ok(n) => match self.engine.move_summary() {
                Err(h) => format!("{}\n", self.rule_error(&h)),
                Ok(summary) => format!("{n} legal moves\n{}", summary_text(&summary, &self.game.colour_letters)),
            },
        }
    }

    /// The board and whose turn it is (or how the game ended).
    pub fn show(&mut self) -> String {
        let mut s = render::board(&mut self.engine, self.color);
        s.push_str(&self.status());
        s.push('\n');
        s
    }

    fn status(&mut self) -> String {
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
    fn rule_error(&self, h: &Halt) -> String {
        match h {
            Halt::At(..) => format!("rule error:{}", self.halt(h)),
            other => format!("rule error: {}", self.halt(other)),
        }
    }

    fn halt(&self, h: &Halt) -> String {
        match h {
            Halt::At(message, span) => {
                let d = crate::diagnostics::Diagnostic::error(*span, message.clone()).label("here");
                format!("\n{}", crate::diagnostics::render(&[d], &self.game.sources, self.color).trim_end())
            }
            other => other.to_string(),
        }
    }

    /// Runs one command line.
    pub fn command(&mut self, line: &str) -> Reply {
        let mut reply = self.command_inner(line);
        // After a step is taken back, the person decides what comes next: an
        // agent to move would only make its move again at once.
        let word = line.split_whitespace().next().unwrap_or("");
        if !reply.quit && !matches!(word, "undo" | "redo") {
            reply.text.push_str(&self.autoplay());
        }
        reply
    }

    fn command_inner(&mut self, line: &str) -> Reply {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        match word {
            "" => Reply::text(""),
            "help" | "?" => Reply::text(format!("{HELP}\n")),
            "quit" | "exit" => Reply { text: String::new(), quit: true },
            "moves" => Reply::text(self.moves_text()),
            "board" => Reply::text(self.show()),
            "undo" | "redo" => match count_arg(rest) {
                Ok(n) => Reply::text(if word == "undo" { self.undo(n) } else { self.redo(n) }),
                Err(e) => Reply::text(format!("{e}\n")),
            },
            "new" => {
                match Engine::with_seed(self.game.clone(), self.setup.seed) {
                    Ok(e) => {
                        self.engine = e;
                        self.history.clear();
                        self.redo.clear();
                    }
                    Err(h) => return Reply::text(format!("{}\n", self.rule_error(&h))),
                }
                Reply::text(format!("new game\n{}", self.show()))
            }
            "set" => match self.set(rest) {
                Ok(()) => Reply::text(self.show()),
                Err(e) => Reply::text(format!("{e}\nthe position is unchanged\n")),
            },
            "position" => Reply::text(format!("set {}\n", self.position_text())),
            "json" => Reply::text(format!("{}\n", self.json())),
            "history" => Reply::text(self.history_text()),
            "info" => Reply::text(self.info()),
            "save" => Reply::text(self.save(rest)),
            "load" => Reply::text(self.load(rest)),
            "random" => match count_arg(rest) {
                Ok(n) => Reply::text(self.random(n)),
                Err(e) => Reply::text(format!("{e}\n")),
            },
            "hint" => Reply::text(self.hint(rest)),
            "ai" => Reply::text(self.ai_command(rest)),
            "move" if rest.is_empty() => Reply::text("`move` needs a move name, e.g. `move s3`; `moves` lists them\n"),
            "move" => Reply::text(self.play(rest)),
            _ => Reply::text(self.play(line)),
        }
    }

    fn play(&mut self, text: &str) -> String {
        let found = match self.engine.find_move(text) {
            Ok(found) => found,
            Err(h) => return format!("{}\n", self.rule_error(&h)),
        };
        if let Some(mv) = found {
            return self.make(mv).unwrap_or_else(|e| format!("{e}\nthe game is unchanged\n"));
        }
        // The same words in another order (`exchange B2H B2L`), when that
        // names one move only.
        if let Some(mv) = self.permuted(text) {
            return self.make(mv).unwrap_or_else(|e| format!("{e}\nthe game is unchanged\n"));
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
            match self.engine.find_move(&rest) {
                Ok(Some(m2)) => {
                    self.history.push(Step::Move(m1, name1.clone()));
                    self.redo.clear();
                    let who = self.game.players[mover as usize].clone();
                    let second = self.make(m2).unwrap_or_else(|e| format!("{e}\n"));
                    return format!("{who} plays {name1}\n{second}");
                }
                _ => {
                    self.engine.undo();
                }
            }
        }
        self.refusal(text)
    }

    /// The one legal move whose name has the typed words in another order.
    fn permuted(&mut self, text: &str) -> Option<Move> {
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
    fn make(&mut self, mv: Move) -> Result<String, String> {
        let name = self.engine.move_name(mv);
        let mover = self.engine.to_move();
        self.engine.apply(mv).map_err(|h| self.rule_error(&h))?;
        self.history.push(Step::Move(mv, name.clone()));
        self.redo.clear();
        let who = self.game.players[mover as usize].clone();
        Ok(format!("{who} plays {name}\n{}", self.show()))
    }

    /// Why a typed line is not a legal move, and what is.
    fn refusal(&mut self, name: &str) -> String {
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
        let names: Vec<&str> = summary.iter().map(|(n, _)| n.as_str()).collect();
        if let Some(h) =
            did_you_mean(name, names.iter().copied().chain(COMMANDS.iter().copied())).filter(|_| !known_move)
        {
            let _ = write!(msg, "; {h}");
        }
        let listing = summary_text(&summary, &self.game.colour_letters);
        let sep = if listing.starts_with("  ") { "\n" } else { " " };
        let _ = write!(msg, "\nlegal moves:{sep}{listing}(type `help` for commands)\n");
        msg
    }

    /// Whether a name looks like a move's (a site name, say) though not legal now.
    fn could_be_move(&self, name: &str) -> bool {
        self.game.site_by_name(name).is_some() || name == "pass"
    }

    fn undo(&mut self, n: usize) -> String {
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
            return "nothing to undo\n".into();
        }
        format!("undid {done} step{}\n{}", plural(done), self.show())
    }

    fn redo(&mut self, n: usize) -> String {
        let mut done = 0;
        while done < n {
            let Some(step) = self.redo.pop() else { break };
            let ok = match &step {
                Step::Move(m, _) => self.engine.apply(*m).is_ok(),
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
            return "nothing to redo\n".into();
        }
        format!("redid {done} step{}\n{}", plural(done), self.show())
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

    fn set(&mut self, text: &str) -> Result<(), String> {
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

    /// The state as JSON, for scripts and tools.
    pub fn json(&mut self) -> String {
        let g = self.game.clone();
        let pos = self.engine.position().clone();
        let legal = self.legal_names();
        let outcome = self.engine.outcome().ok().flatten();
        let sites: Vec<_> = g
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut site = json!({
                    "name": s.name,
                    "kind": s.kind.word(),
                    "owner": s.owner.map(|o| g.players[o as usize].clone()),
                    "count": self.engine.site_count(i as u16),
                });
                if g.colours > 1 {
                    let colours: serde_json::Map<String, serde_json::Value> = (0..g.colours)
                        .map(|c| (g.players[c].clone(), json!(self.engine.colour_count(i as u16, c as u8))))
                        .collect();
                    site["colours"] = serde_json::Value::Object(colours);
                }
                site
            })
            .collect();
        let options: serde_json::Map<String, serde_json::Value> =
            g.options.iter().map(|o| (o.name.clone(), value_json(&g, o.value))).collect();
        // State variables, hidden ones left out: per-site ones as an object
        // by site name; `null` for no value.
        let state: serde_json::Map<String, serde_json::Value> = g
            .state
            .iter()
            .filter(|v| !v.hidden)
            .map(|v| {
                let value = if v.per_site {
                    // A site never set reads as false or 0 in the rules.
                    let unset = match v.ty {
                        Type::Bool => Value::Bool(false),
                        Type::Int => Value::Int(0),
                        _ => Value::None,
                    };
                    let by_site: serde_json::Map<String, serde_json::Value> = state_sites(&g, v)
                        .map(|s| {
                            let x = match pos.vars[v.offset + s] {
                                Value::None => unset,
                                x => x,
                            };
                            (g.sites[s].name.clone(), value_json(&g, x))
                        })
                        .collect();
                    serde_json::Value::Object(by_site)
                } else {
                    value_json(&g, pos.vars[v.offset])
                };
                (v.name.clone(), value)
            })
            .collect();
        let scores = self.engine.scores().unwrap_or_default();
        let v = json!({
            "game": g.name,
            "rules": self.setup.rules,
            "variants": g.variants_applied,
            "options": options,
            "players": g.players,
            "to_move": g.players[pos.turn.to_move as usize],
            "phase": g.phases.get(pos.turn.phase as usize).map(|p| p.name.clone()),
            "ply": pos.turn.ply,
            "sites": sites,
            "state": state,
            "scores": scores,
            "legal_moves": legal,
            "over": outcome.is_some(),
            "winners": outcome.map(|o| o.winners.iter().map(|&p| g.players[p as usize].clone()).collect::<Vec<_>>()).unwrap_or_default(),
        });
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    fn step_text(&self, s: &Step) -> String {
        match s {
            Step::Move(_, name) => name.clone(),
            Step::Set(t, _) => format!("set {t}"),
        }
    }

    fn history_text(&self) -> String {
        if self.history.is_empty() {
            return "no steps yet\n".into();
        }
        // Move names are rendered against the game only, so the history can be
        // listed without replaying.
        let mut s = String::new();
        for (i, step) in self.history.iter().enumerate() {
            let _ = writeln!(s, "{:>3}. {}", i + 1, self.step_text(step));
        }
        s
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

    fn save(&self, path: &str) -> String {
        if path.is_empty() {
            return "`save` needs a file name\n".into();
        }
        match std::fs::write(path, self.record().to_json() + "\n") {
            Ok(()) => format!("saved {} step{} to {path}\n", self.history.len(), plural(self.history.len())),
            Err(e) => format!("cannot save to {path}: {e}\n"),
        }
    }

    fn load(&mut self, path: &str) -> String {
        if path.is_empty() {
            return "`load` needs a file name\n".into();
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return format!("cannot read {path}: {e}\nthe game is unchanged\n"),
        };
        let loaded = Record::from_json(&text).map(|r| r.rules_beside(path)).and_then(|r| Session::from_record(&r));
        match loaded {
            Ok(s) => {
                let color = self.color;
                *self = s;
                self.color = color;
                format!("loaded {path}\n{}", self.show())
            }
            Err(e) => format!("{e}\nthe game is unchanged\n"),
        }
    }

    fn replay_step(&mut self, step: &str) -> Result<(), String> {
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

    fn info(&self) -> String {
        let g = &self.game;
        let mut s = format!("{} from {}\nplayers: {}\n", g.name, self.setup.rules, g.players.join(", "));
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

    /// The agent to use for a hint: the one named, or alpha-beta for two
    /// players and MCTS for more, with a second to think.
    fn agent_or_default(&self, text: &str) -> Result<crate::ai::AgentSpec, String> {
        if !text.trim().is_empty() {
            return text.parse();
        }
        let kind = if self.game.players.len() == 2 { crate::ai::Kind::AlphaBeta } else { crate::ai::Kind::Mcts };
        Ok(crate::ai::AgentSpec {
            kind,
            budget: crate::ai::Budget { time: Some(std::time::Duration::from_secs(1)), nodes: None },
        })
    }

    fn hint(&mut self, text: &str) -> String {
        let spec = match self.agent_or_default(text) {
            Ok(s) => s,
            Err(e) => return format!("{e}\n"),
        };
        match crate::ai::choose(spec, &self.engine, &mut self.rng) {
            Err(h) => format!("{}\n", self.rule_error(&h)),
            Ok(None) => "no legal moves: the game is over\n".into(),
            Ok(Some(c)) => {
                // Alpha-beta is for two sides: with more, MCTS searched.
                let (kind, label) = if spec.kind == crate::ai::Kind::AlphaBeta && self.game.players.len() > 2 {
                    (crate::ai::Kind::Mcts, format!("{spec}, played by MCTS for more than two players"))
                } else {
                    (spec.kind, spec.to_string())
                };
                let value = c.value.map(|v| format!(", evaluation {}", eval_text(kind, v))).unwrap_or_default();
                format!("hint: {} ({label}{value}; {})\n", self.engine.move_name(c.mv), c.info)
            }
        }
    }

    fn ai_command(&mut self, text: &str) -> String {
        let np = self.game.players.len();
        self.ai.resize(np, None);
        let Some((seat, agent)) = text.trim().split_once(char::is_whitespace) else {
            if !text.trim().is_empty() {
                return format!(
                    "`ai {}` needs an agent, or `off`: e.g. `ai {} alphabeta 2s`\n",
                    text.trim(),
                    text.trim()
                );
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
            return format!("{}\n", seats.join(", "));
        };
        let Some(p) = self.game.player_by_name(seat) else {
            return format!("no seat `{seat}`; seats: {}\n", self.game.players.join(", "));
        };
        if agent.trim() == "off" {
            self.ai[p as usize] = None;
            return format!("{seat} is played by a person\n");
        }
        match agent.trim().parse::<crate::ai::AgentSpec>() {
            Ok(spec) => {
                self.ai[p as usize] = Some(spec);
                format!("{seat} is played by {spec}\n")
            }
            Err(e) => format!("{e}\n"),
        }
    }

    /// While the player to move is played by the program, it moves.
    fn autoplay(&mut self) -> String {
        let mut out = String::new();
        for _ in 0..10_000 {
            let me = self.engine.to_move() as usize;
            let Some(spec) = self.ai.get(me).copied().flatten() else { break };
            let pick = crate::ai::choose(spec, &self.engine, &mut self.rng);
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

    /// Plays up to `n` random moves: a line for each, then the board.
    fn random(&mut self, n: usize) -> String {
        let mut out = String::new();
        let mut played = 0;
        for _ in 0..n {
            let pick = match self.engine.sample_move(&mut self.rng) {
                Ok(p) => p,
                Err(h) => {
                    let _ = writeln!(out, "{}", self.rule_error(&h));
                    break;
                }
            };
            let Some(mv) = pick else { break };
            let name = self.engine.move_name(mv);
            let mover = self.engine.to_move();
            if let Err(h) = self.engine.apply(mv) {
                let _ = writeln!(out, "{}", self.rule_error(&h));
                break;
            }
            self.history.push(Step::Move(mv, name.clone()));
            self.redo.clear();
            played += 1;
            let _ = writeln!(out, "{} plays {name}", self.game.players[mover as usize]);
        }
        if played == 0 && out.is_empty() {
            return "no legal moves: the game is over\n".into();
        }
        out.push_str(&self.show());
        out
    }
}

fn count_arg(rest: &str) -> Result<usize, String> {
    if rest.is_empty() {
        return Ok(1);
    }
    rest.parse::<usize>()
        .ok()
        .filter(|n| *n >= 1 && *n <= 100_000)
        .ok_or_else(|| format!("`{rest}` is not a count from 1 to 100000"))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Groups of moves as text: the names, and for a group of many orders of
/// colours, the name followed by how many there are.
fn summary_text(summary: &[(String, u128)], letters: &[char]) -> String {
    let simple = summary.iter().all(|(_, n)| *n == 1);
    if simple && summary.len() <= 20 {
        return format!("{}\n", summary.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" "));
    }
    if simple {
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

/// A value as JSON: numbers and conditions as such, sites and players by
/// name, `null` for no value.
fn value_json(g: &Game, v: Value) -> serde_json::Value {
    match v {
        Value::Int(i) => json!(i),
        Value::Bool(b) => json!(b),
        other => value_name(g, other).map_or(serde_json::Value::Null, |t| json!(t)),
    }
}

/// An agent's evaluation in words.
fn eval_text(kind: crate::ai::Kind, v: f64) -> String {
    use crate::ai::{Kind, alphabeta::WIN};
    match kind {
        Kind::Mcts => format!("{:.0}% wins", v * 100.0),
        Kind::AlphaBeta if v >= (WIN / 2) as f64 => format!("a win by {}", v as i64 - WIN),
        Kind::AlphaBeta if v <= -(WIN / 2) as f64 => format!("a loss by {}", -(v as i64 + WIN)),
        _ => format!("margin {v:+}"),
    }
}
