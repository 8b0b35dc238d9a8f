//! The analyses: `solve`, `solitaire` and `perft`, from a session set up as
//! the command line says.

use super::{Choice, exit};
use crate::session::{Session, Setup};

/// A session at the start, or at the position given as `set` assignments;
/// else the exit code, the reason printed.
fn session_at(file: String, choice: Choice, position: Option<String>, color: bool) -> Result<Session, i32> {
    session_seeded(file, choice, (position, 0), color)
}

/// [`session_at`], with chance in the rules drawn from `seed`.
fn session_seeded(
    file: String,
    choice: Choice,
    (position, seed): (Option<String>, u64),
    color: bool,
) -> Result<Session, i32> {
    let mut s = match Session::new(Setup { rules: file, variants: choice.variants, settings: choice.settings, seed }) {
        Ok(s) => s,
        Err(fail) => {
            note!("{}", fail.render(color));
            return Err(exit::FAILED);
        }
    };
    if let Some(p) = position {
        let reply = s.command(&format!("set {p}"));
        if reply.refused {
            note!("error: --position: {}", reply.text);
            return Err(exit::USAGE);
        }
    }
    Ok(s)
}

pub(super) fn solitaire(
    file: String,
    choice: Choice,
    position: Option<String>,
    goal: &str,
    (max_positions, max_moves, memory): (usize, usize, Option<usize>),
    json: bool,
    color: bool,
) -> i32 {
    use crate::ai::solitaire::{Limits, Outcome, fewest_moves};
    let s = match session_at(file, choice, position, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let goal = match s.parse_goal(goal) {
        Ok(g) => g,
        Err(e) => {
            noteln!("error: --goal: {e}");
            return exit::USAGE;
        }
    };
    let memory = memory.unwrap_or_else(crate::ai::table::default_budget);
    let limits = Limits { max_positions, max_moves, memory };
    let report = match fewest_moves(s.engine(), &goal, limits, &mut |line| noteln!("{line}")) {
        Ok(r) => r,
        Err(h) => {
            noteln!("{h}");
            return exit::FAILED;
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
        sayln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        match &report.outcome {
            Outcome::Reached { line } => {
                sayln!("reached in {} moves (no line is shorter): {}", line.len(), line.join(" "))
            }
            Outcome::Unreachable => sayln!("unreachable: none of the positions that can be reached meets the goal"),
            Outcome::GaveUp { moves } => {
                sayln!(
                    "not found within {moves} moves (the search stopped there; raise --max-positions, --max-moves or --memory)"
                )
            }
        }
        sayln!("{} positions reached, {:.2} s", report.positions, report.seconds);
    }
    match report.outcome {
        Outcome::Reached { .. } | Outcome::Unreachable => exit::OK,
        Outcome::GaveUp { .. } if crate::ai::interrupted() => exit::INTERRUPTED,
        Outcome::GaveUp { .. } => exit::NO_ANSWER,
    }
}

/// What `solve` may spend: memory, time and positions searched.
pub(super) struct SolveBudget {
    pub memory: Option<usize>,
    pub time: Option<std::time::Duration>,
    pub max_positions: Option<u64>,
    pub threads: Option<u64>,
}

pub(super) fn solve(
    file: String,
    choice: Choice,
    position: Option<String>,
    budget: SolveBudget,
    json: bool,
    color: bool,
) -> i32 {
    use crate::ai::solve::{Limits, Unsolved, solve_limited};
    let s = match session_at(file, choice, position, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let players = s.game().players.clone();
    // A copy to name the moves with (naming may run the rules).
    let mut engine = s.engine().clone();
    let limits = Limits {
        memory: budget.memory.unwrap_or_else(crate::ai::table::default_budget),
        time: budget.time,
        max_positions: budget.max_positions,
        threads: budget
            .threads
            .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |n| n as usize),
    };
    let sol = match solve_limited(&engine, limits, &mut |line| noteln!("{line}")) {
        Ok(sol) => sol,
        Err(why) => {
            noteln!("not solved: {why}");
            return match why {
                Unsolved::Refused(_) => exit::NO_ANSWER,
                Unsolved::Stopped(_) if crate::ai::interrupted() => exit::INTERRUPTED,
                Unsolved::Stopped(_) => exit::NO_ANSWER,
                Unsolved::Failed(_) => exit::FAILED,
            };
        }
    };
    if json {
        let v = serde_json::json!({
            "value": sol.value,
            "best": sol.best.map(|m| engine.move_name(m)),
            "pv": sol.pv,
            "positions_searched": sol.nodes,
            "positions_stored": sol.positions,
            "seconds": sol.seconds,
        });
        sayln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        let who = match sol.value {
            v if v > 0 => format!("{} wins by {v}", players[0]),
            v if v < 0 => format!("{} wins by {}", players[1], -v),
            _ => "a draw".to_string(),
        };
        sayln!("value: {} ({who}, with perfect play)", sol.value);
        if let Some(b) = sol.best {
            sayln!("best move: {}", engine.move_name(b));
        }
        sayln!("principal variation: {}", sol.pv.join(" "));
        sayln!("{} positions searched, {} stored, {:.2} s", sol.nodes, sol.positions, sol.seconds);
    }
    exit::OK
}

pub(super) fn perft(
    file: String,
    choice: Choice,
    at: (Option<String>, u64),
    depth: usize,
    (divide, json): (bool, bool),
    color: bool,
) -> i32 {
    let s = match session_seeded(file, choice, at, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let per_second = |n: u64, secs: f64| if secs > 0.0 { (n as f64 / secs).round() as u64 } else { 0 };
    let rows = crate::perft::perft_each(s.engine(), depth, &mut |d| {
        if !json {
            sayln!(
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
            noteln!("{h}");
            return exit::FAILED;
        }
    };
    let split = if divide {
        match crate::perft::divide(s.engine(), depth) {
            Ok(d) => d,
            Err(h) => {
                noteln!("{h}");
                return exit::FAILED;
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
        sayln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else if divide {
        sayln!("below each move, at depth {depth}:");
        for (m, n) in &split {
            sayln!("  {m}: {n}");
        }
    }
    exit::OK
}

/// `mancala match`: seeded games between agents, the report as a table or JSON.
pub(super) fn play_match(
    file: &str,
    choice: &Choice,
    (agents, games, seed): (&[crate::ai::AgentSpec], usize, u64),
    play: crate::analysis::Play,
    json: bool,
    color: bool,
) -> i32 {
    let game = match crate::compile::compile_file(file, &choice.config()) {
        Ok(g) => std::sync::Arc::new(g),
        Err(fail) => {
            note!("{}", fail.render(color));
            return exit::FAILED;
        }
    };
    let np = game.players.len();
    if agents.len() != 1 && agents.len() != np {
        noteln!("error: --agents: give one agent for every seat ({np}), or one for all");
        return exit::USAGE;
    }
    let bar = indicatif::ProgressBar::new(games as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (about {eta} left)")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let r = crate::analysis::play_match(game, agents, games, seed, play, &|| bar.inc(1));
    bar.finish_and_clear();
    let done = |report: &crate::analysis::Report| if report.interrupted { exit::INTERRUPTED } else { exit::OK };
    match r {
        Ok(report) if json => {
            sayln!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
            done(&report)
        }
        Ok(report) => {
            say!("{}", report.table());
            done(&report)
        }
        Err(e) => {
            noteln!("{e}");
            exit::FAILED
        }
    }
}
