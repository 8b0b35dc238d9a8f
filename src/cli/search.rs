//! The analyses: `solve`, `solitaire` and `perft`, from a session set up as
//! the command line says.

use super::Choice;
use crate::session::{Session, Setup};

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

pub(super) fn solitaire(
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

pub(super) fn solve(
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

pub(super) fn perft(
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
