//! The command line: `check`, `play` (the REPL, interactive or from a pipe)
//! and `show` (what a rule file compiles to).

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::rc::Rc;

use clap::{Args, Parser, Subcommand};
use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::compile::{Config, check_file, compile_file};
use crate::engine::game::{Game, value_text};
use crate::record::Record;
use crate::session::{COMMANDS, Session, Setup};

#[derive(Parser, Debug)]
#[command(name = "mancala", version, about = "A rules language for mancala games, and its interpreter")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check rule files, with their defaults and every variant, and explain every mistake.
    Check {
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Play a rule file in a REPL; reads a script of commands when stdin is not a terminal.
    Play {
        /// The rule file (not needed with --load).
        file: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Seed for everything random (the `random` command, chance in the rules).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Continue a game saved with `save`.
        #[arg(long, value_name = "RECORD")]
        load: Option<String>,
    },
    /// Solve a two-player game without chance exactly: its value, best move and principal variation.
    Solve {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Solve this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// Most memory for the table of positions (512M, 2G; default: half the machine's).
        /// A smaller table costs time, never exactness.
        #[arg(long, value_name = "SIZE", value_parser = crate::ai::table::parse_bytes)]
        memory: Option<usize>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Solitaire: the fewest moves from a position to a goal, every move the
    /// solver's choice (forced passes are not counted), or a proof that the
    /// goal cannot be reached.
    Solitaire {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Start from this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// The counts to reach, as assignments (`s=3,1,0 s-reserve=0`); sites not named are free.
        #[arg(long, value_name = "ASSIGNMENTS")]
        goal: String,
        /// Give up after reaching this many distinct positions.
        #[arg(long, default_value_t = 50_000_000)]
        max_positions: usize,
        /// Give up after looking this many moves ahead.
        #[arg(long, default_value_t = 1_000)]
        max_moves: usize,
        #[arg(long)]
        json: bool,
    },
    /// Play many seeded games between agents and report how each seat fares.
    Match {
        file: String,
        /// One agent per seat, or one for all: random, greedy, alphabeta[:BUDGET], mcts[:BUDGET]
        /// (a budget is a time, 50ms, or a number of nodes or playouts).
        #[arg(long, value_delimiter = ',', required = true)]
        agents: Vec<crate::ai::AgentSpec>,
        #[arg(long, default_value_t = 100)]
        games: usize,
        #[command(flatten)]
        choice: Choice,
        /// Game i is played from seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games longer than this are cut and counted unfinished.
        #[arg(long, default_value_t = 10_000)]
        max_plies: usize,
        /// Play the first N plies of each game at random (from the game's seed),
        /// so that agents that search without chance vary their games.
        #[arg(long, default_value_t = 0)]
        opening: usize,
        #[arg(long)]
        json: bool,
    },
    /// Count the positions at each depth of the game tree (every legal move of every
    /// ply; a move that earns another turn is one ply), with positions per second.
    Perft {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Count to this many plies from the position (1 or more).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
        depth: u16,
        /// Start from this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// Seed for chance in the rules (the counts of rules with chance depend on it).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Also give the count at the full depth below each legal move.
        #[arg(long)]
        divide: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show what a rule file compiles to: board, tracks, relations, phases, moves, options.
    Show {
        file: String,
        #[command(flatten)]
        choice: Choice,
    },
}

#[derive(Args, Debug, Clone, Default)]
pub struct Choice {
    /// A named variant of the rule file (may be given more than once).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Set an option: --set NAME=VALUE (may be given more than once).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let color = std::io::stderr().is_terminal();
    match cli.command {
        Command::Check { files } => {
            let mut code = 0;
            for f in &files {
                match check_file(f) {
                    Ok(g) => {
                        let variants = if g.variants.is_empty() {
                            String::new()
                        } else {
                            format!(
                                ", variants {}",
                                g.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
                            )
                        };
                        println!(
                            "{f}: ok ({}: {} players, {} sites{variants})",
                            g.name,
                            g.players.len(),
                            g.sites.len()
                        );
                    }
                    Err(fail) => {
                        eprint!("{}", fail.render(color));
                        let n = fail.diagnostics.len();
                        eprintln!("{f}: {n} error{}", if n == 1 { "" } else { "s" });
                        code = 1;
                    }
                }
            }
            code
        }
        Command::Solve { file, choice, position, memory, json } => solve(file, choice, position, (memory, json), color),
        Command::Perft { file, choice, depth, position, seed, divide, json } => {
            perft(file, choice, (position, seed), depth as usize, (divide, json), color)
        }
        Command::Solitaire { file, choice, position, goal, max_positions, max_moves, json } => {
            solitaire(file, choice, position, &goal, (max_positions, max_moves), json, color)
        }
        Command::Match { file, agents, games, choice, seed, max_plies, opening, json } => {
            let game = match compile_file(&file, &Config { variants: choice.variants, settings: choice.settings }) {
                Ok(g) => std::sync::Arc::new(g),
                Err(fail) => {
                    eprint!("{}", fail.render(color));
                    return 1;
                }
            };
            let bar = indicatif::ProgressBar::new(games as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (about {eta} left)")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            let r = crate::analysis::play_match(
                game,
                &agents,
                games,
                seed,
                crate::analysis::Play { max_plies, opening },
                &|| bar.inc(1),
            );
            bar.finish_and_clear();
            match r {
                Ok(report) if json => {
                    println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
                    0
                }
                Ok(report) => {
                    print!("{}", report.table());
                    0
                }
                Err(e) => {
                    eprintln!("{e}");
                    1
                }
            }
        }
        Command::Show { file, choice } => {
            match compile_file(&file, &Config { variants: choice.variants, settings: choice.settings }) {
                Ok(g) => {
                    print!("{}", describe(&g));
                    0
                }
                Err(fail) => {
                    eprint!("{}", fail.render(color));
                    1
                }
            }
        }
        Command::Play { file, choice, seed, load } => {
            let session = match (load, file) {
                (Some(path), _) => match std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {path}: {e}"))
                    .and_then(|t| Record::from_json(&t))
                    .map(|r| r.rules_beside(&path))
                    .and_then(|r| Session::from_record(&r))
                {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("{e}");
                        return 1;
                    }
                },
                (None, Some(rules)) => {
                    match Session::new(Setup { rules, variants: choice.variants, settings: choice.settings, seed }) {
                        Ok(s) => s,
                        Err(fail) => {
                            eprint!("{}", fail.render(color));
                            return 1;
                        }
                    }
                }
                (None, None) => {
                    eprintln!("`play` needs a rule file, or --load RECORD");
                    return 2;
                }
            };
            if std::io::stdin().is_terminal() {
                interactive(session)
            } else {
                scripted(session, std::io::stdin().lock(), &mut std::io::stdout())
            }
        }
    }
}

/// Plays commands read line by line, printing a plain transcript: each
/// command after `> `, then what it answered. Lines starting with `#` are
/// comments, copied as they are.
pub fn scripted(mut s: Session, input: impl BufRead, out: &mut impl Write) -> i32 {
    let _ = write!(out, "{}", s.banner());
    // Lines that are not UTF-8 are read with replacement characters, so a
    // stray byte costs one refused command, not the rest of the script.
    for line in input.split(b'\n') {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('#') {
            let _ = writeln!(out, "{trimmed}");
            continue;
        }
        let _ = writeln!(out, "> {trimmed}");
        let reply = s.command(trimmed);
        let _ = write!(out, "{}", reply.text);
        if reply.quit {
            break;
        }
    }
    0
}

struct Completion {
    moves: Rc<RefCell<Vec<String>>>,
}

impl Completer for Completion {
    type Candidate = String;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map(|i| i + 1).unwrap_or(0);
        let word = &head[start..];
        let first = start == 0 || head[..start].trim() == "move";
        let mut out: Vec<String> = Vec::new();
        if first {
            out.extend(self.moves.borrow().iter().filter(|m| m.starts_with(word)).cloned());
            if start == 0 {
                out.extend(COMMANDS.iter().filter(|c| c.starts_with(word)).map(|c| c.to_string()));
            }
        }
        Ok((start, out))
    }
}
impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

fn interactive(mut s: Session) -> i32 {
    s.color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    print!("{}", s.banner());
    let moves = Rc::new(RefCell::new(s.legal_names()));
    let config =
        rustyline::Config::builder().completion_type(rustyline::CompletionType::List).auto_add_history(false).build();
    let mut rl: Editor<Completion, rustyline::history::DefaultHistory> = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("cannot start the line editor ({e}); reading commands plainly");
            return scripted(s, std::io::stdin().lock(), &mut std::io::stdout());
        }
    };
    rl.set_helper(Some(Completion { moves: moves.clone() }));
    loop {
        let prompt = format!("{}> ", s.game().players[s.engine().to_move() as usize]);
        match rl.readline(&prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                let reply = s.command(&line);
                print!("{}", reply.text);
                if reply.quit {
                    return 0;
                }
                *moves.borrow_mut() = s.legal_names();
            }
            Err(rustyline::error::ReadlineError::Interrupted) => println!("(type `quit` to leave)"),
            Err(_) => return 0,
        }
    }
}

/// What a rule file compiles to, for `mancala show`.
pub fn describe(g: &Game) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let name = |i: u16| g.sites[i as usize].name.clone();
    let _ = writeln!(s, "game: {} ({})", g.name, g.path);
    if !g.variants_applied.is_empty() {
        let _ = writeln!(s, "variant: {}", g.variants_applied.join(" + "));
    }
    let _ = writeln!(s, "players, in turn order: {}", g.players.join(", "));
    if !g.options.is_empty() {
        let _ = writeln!(s, "options:");
        for o in &g.options {
            let range = o.range.map(|(a, b)| format!(" in {a}..{b}")).unwrap_or_default();
            let changed =
                if o.value != o.default { format!(" (default {})", value_text(o.default)) } else { String::new() };
            let _ = writeln!(s, "  {} = {}{range}{changed}  {}", o.name, value_text(o.value), o.doc);
        }
    }
    if !g.variants.is_empty() {
        let _ = writeln!(s, "variants: {}", g.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(s, "sites ({}):", g.sites.len());
    for site in &g.sites {
        let owner = site.owner.map(|o| format!(" of {}", g.players[o as usize])).unwrap_or_default();
        let _ = writeln!(s, "  {:<10} {}{owner}", site.name, site.kind.word());
    }
    let _ = writeln!(s, "tracks:");
    for t in &g.tracks {
        let _ = writeln!(
            s,
            "  {} ({}): {}",
            t.name,
            if t.cyclic { "cyclic" } else { "linear" },
            t.sites.iter().map(|&i| name(i)).collect::<Vec<_>>().join(" ")
        );
    }
    for (rname, map) in &g.relations {
        let pairs: Vec<String> =
            map.iter().enumerate().filter_map(|(i, t)| t.map(|t| format!("{}->{}", name(i as u16), name(t)))).collect();
        let _ = writeln!(s, "relation {rname}: {}", pairs.join(" "));
    }
    let _ = writeln!(s, "phases: {}", g.phases.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "));
    let _ = writeln!(s, "moves:");
    for m in &g.moves {
        let params: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let phase =
            if g.phases.len() > 1 { format!(" in phase {}", g.phases[m.phase as usize].name) } else { String::new() };
        let choosing = if params.is_empty() { String::new() } else { format!(", choosing {}", params.join(", ")) };
        let _ = writeln!(s, "  {}{phase}{choosing}: {} statements with its rules", m.name, m.body.len());
    }
    if !g.avoids.is_empty() {
        let _ = writeln!(s, "avoid: {}", g.avoids.iter().map(|a| a.0.as_str()).collect::<Vec<_>>().join(", "));
    }
    if !g.ends.is_empty() {
        let _ =
            writeln!(s, "end conditions: {}", g.ends.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(
        s,
        "when stuck: {}",
        if g.stuck == crate::engine::game::StuckAction::Pass { "pass" } else { "the game ends" }
    );
    s
}

/// A session at the start, or at the position given as `set` assignments.
fn session_at(file: String, choice: Choice, position: Option<String>, color: bool) -> Option<Session> {
    session_seeded(file, choice, (position, 0), color)
}

/// [`session_at`], with chance in the rules drawn from `seed`.
fn session_seeded(
    file: String,
    choice: Choice,
    (position, seed): (Option<String>, u64),
    color: bool,
) -> Option<Session> {
    let mut s = match Session::new(Setup { rules: file, variants: choice.variants, settings: choice.settings, seed }) {
        Ok(s) => s,
        Err(fail) => {
            eprint!("{}", fail.render(color));
            return None;
        }
    };
    if let Some(p) = position {
        let reply = s.command(&format!("set {p}"));
        if reply.text.contains("unchanged") {
            eprint!("{}", reply.text);
            return None;
        }
    }
    Some(s)
}

fn solitaire(
    file: String,
    choice: Choice,
    position: Option<String>,
    goal: &str,
    (max_positions, max_moves): (usize, usize),
    json: bool,
    color: bool,
) -> i32 {
    use crate::ai::solitaire::{Outcome, fewest_moves};
    let Some(s) = session_at(file, choice, position, color) else { return 1 };
    let goal = match s.parse_goal(goal) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: --goal: {e}");
            return 1;
        }
    };
    let report = match fewest_moves(s.engine(), &goal, max_positions, max_moves, &mut |line| eprintln!("{line}")) {
        Ok(r) => r,
        Err(h) => {
            eprintln!("{h}");
            return 1;
        }
    };
    if json {
        let (result, line) = match &report.outcome {
            Outcome::Reached { line } => ("reached", Some(line)),
            Outcome::Unreachable => ("unreachable", None),
            Outcome::GaveUp { .. } => ("gave up", None),
        };
        let v = serde_json::json!({
            "result": result,
            "moves": line.map(|l| l.len()),
            "line": line,
            "positions": report.positions,
            "seconds": report.seconds,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        match &report.outcome {
            Outcome::Reached { line } => {
                println!("reached in {} moves (no line is shorter): {}", line.len(), line.join(" "))
            }
            Outcome::Unreachable => println!("unreachable: none of the positions that can be reached meets the goal"),
            Outcome::GaveUp { moves } => {
                println!(
                    "not found within {moves} moves (the search stopped there; raise --max-positions or --max-moves)"
                )
            }
        }
        println!("{} positions reached, {:.2} s", report.positions, report.seconds);
    }
    match report.outcome {
        Outcome::Reached { .. } => 0,
        Outcome::Unreachable => 0,
        Outcome::GaveUp { .. } => 2,
    }
}

fn solve(
    file: String,
    choice: Choice,
    position: Option<String>,
    (memory, json): (Option<usize>, bool),
    color: bool,
) -> i32 {
    let Some(s) = session_at(file, choice, position, color) else { return 1 };
    let players = s.game().players.clone();
    // A copy to name the moves with (naming may run the rules).
    let mut engine = s.engine().clone();
    let memory = memory.unwrap_or_else(crate::ai::table::default_budget);
    let result = crate::ai::solve::solve_within(&engine, memory, &mut |line| eprintln!("{line}"));
    match result {
        Err(e) => {
            eprintln!("{e}");
            1
        }
        Ok(sol) => {
            if json {
                let v = serde_json::json!({
                    "value": sol.value,
                    "best": sol.best.map(|m| engine.move_name(m)),
                    "pv": sol.pv,
                    "positions_searched": sol.nodes,
                    "positions_stored": sol.positions,
                    "seconds": sol.seconds,
                });
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                let who = match sol.value {
                    v if v > 0 => format!("{} wins by {v}", players[0]),
                    v if v < 0 => format!("{} wins by {}", players[1], -v),
                    _ => "a draw".to_string(),
                };
                println!("value: {} ({who}, with perfect play)", sol.value);
                if let Some(b) = sol.best {
                    println!("best move: {}", engine.move_name(b));
                }
                println!("principal variation: {}", sol.pv.join(" "));
                println!("{} positions searched, {} stored, {:.2} s", sol.nodes, sol.positions, sol.seconds);
            }
            0
        }
    }
}

fn perft(
    file: String,
    choice: Choice,
    at: (Option<String>, u64),
    depth: usize,
    (divide, json): (bool, bool),
    color: bool,
) -> i32 {
    let Some(s) = session_seeded(file, choice, at, color) else { return 1 };
    let per_second = |n: u64, secs: f64| if secs > 0.0 { (n as f64 / secs).round() as u64 } else { 0 };
    let rows = crate::perft::perft_each(s.engine(), depth, &mut |d| {
        if !json {
            println!(
                "depth {:>2}: {:>14} positions  {:>9.3} s  {:>12} positions/s",
                d.depth,
                d.positions,
                d.seconds,
                per_second(d.positions, d.seconds)
            );
        }
    });
    let rows = match rows {
        Ok(r) => r,
        Err(h) => {
            eprintln!("{h}");
            return 1;
        }
    };
    let split = if divide {
        match crate::perft::divide(s.engine(), depth) {
            Ok(d) => d,
            Err(h) => {
                eprintln!("{h}");
                return 1;
            }
        }
    } else {
        Vec::new()
    };
    if json {
        let depths: Vec<_> = rows
            .iter()
            .map(|d| {
                serde_json::json!({
                    "depth": d.depth,
                    "positions": d.positions,
                    "seconds": d.seconds,
                    "positions_per_second": per_second(d.positions, d.seconds),
                })
            })
            .collect();
        let mut v = serde_json::json!({ "depths": depths });
        if divide {
            v["divide"] = split.iter().map(|(m, n)| serde_json::json!({ "move": m, "positions": n })).collect();
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else if divide {
        println!("below each move, at depth {depth}:");
        for (m, n) in &split {
            println!("  {m}: {n}");
        }
    }
    0
}
