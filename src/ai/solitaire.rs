//! Solitaire: the fewest moves from a position to a goal, or a proof that
//! the goal cannot be reached. Every move is the solver's to choose; a pass
//! forced on a player with nothing to do is made at once and not counted, so
//! with the opponent out of play (one side's endgame puzzles) the count is
//! one side's moves.
//!
//! Breadth-first over the positions reached, each kept once (by its hash),
//! so the first line found to the goal is a shortest one, and a search that
//! runs out of positions has proved the goal unreachable.

use std::collections::hash_map::Entry;
use std::time::Instant;

use super::solve::Table;
use crate::engine::{Engine, Halt, Move, Position};

/// What the goal asks of a position: counts at given places of
/// [`Position::counts`]; the rest is free.
#[derive(Debug, Clone, Default)]
pub struct Goal {
    pub counts: Vec<(usize, i32)>,
}

impl Goal {
    pub fn met(&self, pos: &Position) -> bool {
        self.counts.iter().all(|&(i, c)| pos.counts[i] == c)
    }
}

#[derive(Debug, Clone)]
pub enum Outcome {
    /// The goal, reached in the fewest moves possible, by this line.
    Reached { line: Vec<String> },
    /// Every position reachable was searched; none meets the goal.
    Unreachable,
    /// The search stopped at its limit of positions, or of moves, first.
    GaveUp { moves: usize },
}

#[derive(Debug, Clone)]
pub struct Report {
    pub outcome: Outcome,
    /// Distinct positions reached.
    pub positions: usize,
    pub seconds: f64,
}

/// How far a solitaire search may go: positions kept, moves looked ahead,
/// and the memory its positions may take (about: see [`position_bytes`]).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_positions: usize,
    pub max_moves: usize,
    pub memory: usize,
}

/// Searches from the position of `e` (left as it was) for `goal`, within
/// `limits`. `progress` hears of each depth finished.
pub fn fewest_moves(e: &Engine, goal: &Goal, limits: Limits, progress: &mut dyn FnMut(&str)) -> Result<Report, Halt> {
    // The search works on a copy, so `e` is as it was whatever happens.
    search(&mut e.clone(), goal, limits, progress)
}

/// About how many bytes a position kept by the search takes: in the table
/// of positions reached, and while it waits in a layer to be searched.
fn position_bytes(e: &Engine) -> usize {
    let pos = e.position();
    // The table's entry (key, parent, move, and the table's own overhead),
    // and the position itself: its two vectors and their allocations.
    48 + std::mem::size_of::<Position>() + pos.counts.len() * 4 + pos.vars.len() * 16 + 32
}

fn search(e: &mut Engine, goal: &Goal, limits: Limits, progress: &mut dyn FnMut(&str)) -> Result<Report, Halt> {
    let Limits { max_positions, max_moves, memory } = limits;
    // Positions beyond what the memory holds are given up on, as beyond
    // `max_positions`: the search ends rather than the machine running out.
    let max_positions = max_positions.min(memory / position_bytes(e)).max(1);
    if e.game.history {
        return Err(Halt::Error(super::solve::HISTORY.into()));
    }
    if e.game.chance {
        return Err(Halt::Error("solitaire is for games without chance; these rules draw random numbers".into()));
    }
    let start = Instant::now();
    let report = |outcome, positions| Report { outcome, positions, seconds: start.elapsed().as_secs_f64() };
    let root = e.position().clone();
    if goal.met(&root) {
        return Ok(report(Outcome::Reached { line: vec![] }, 1));
    }
    // Each position reached, by hash: the position it was reached from and
    // the move (its place among that position's legal moves).
    let mut seen: Table<(u64, u32)> = Table::default();
    let root_hash = e.hash();
    seen.insert(root_hash, (root_hash, u32::MAX));
    let mut layer = vec![root];
    let mut next: Vec<Position> = Vec::new();
    let mut moves: Vec<Move> = Vec::new();
    let mut passes: Vec<Move> = Vec::new();
    for depth in 1..=max_moves {
        for pos in layer.drain(..) {
            e.set_position(pos).map_err(Halt::Error)?;
            let from = e.hash();
            e.legal_moves(&mut moves)?;
            for (i, &mv) in moves.iter().enumerate() {
                e.apply(mv)?;
                let made = 1 + pass_on(e, &mut passes)?;
                let hash = e.hash();
                if let Entry::Vacant(v) = seen.entry(hash) {
                    v.insert((from, i as u32));
                    if goal.met(e.position()) {
                        for _ in 0..made {
                            e.undo();
                        }
                        e.undo();
                        let line = line_to(e, &seen, hash, root_hash)?;
                        return Ok(report(Outcome::Reached { line }, seen.len()));
                    }
                    next.push(e.position().clone());
                }
                for _ in 0..made {
                    e.undo();
                }
            }
            e.undo();
            if seen.len() > max_positions || super::interrupted() {
                return Ok(report(Outcome::GaveUp { moves: depth - 1 }, seen.len()));
            }
        }
        progress(&format!(
            "{depth} moves: {} positions reached, {} new, {:.1} s",
            seen.len(),
            next.len(),
            start.elapsed().as_secs_f64()
        ));
        if next.is_empty() {
            return Ok(report(Outcome::Unreachable, seen.len()));
        }
        std::mem::swap(&mut layer, &mut next);
    }
    Ok(report(Outcome::GaveUp { moves: max_moves }, seen.len()))
}

/// Makes the passes forced on players with nothing to do; how many.
fn pass_on(e: &mut Engine, moves: &mut Vec<Move>) -> Result<usize, Halt> {
    let mut made = 0;
    loop {
        e.legal_moves(moves)?;
        if moves.len() != 1 || moves[0] != Move::PASS {
            return Ok(made);
        }
        e.apply(Move::PASS)?;
        made += 1;
    }
}

/// The names of the moves from the root to the position `hash`, replayed
/// from the root (where `e` stands) through the table of how each was reached.
fn line_to(e: &mut Engine, seen: &Table<(u64, u32)>, mut hash: u64, root: u64) -> Result<Vec<String>, Halt> {
    let mut steps = Vec::new();
    while hash != root {
        let (from, i) = seen[&hash];
        steps.push(i);
        hash = from;
    }
    steps.reverse();
    let mut line = Vec::new();
    let mut moves = Vec::new();
    let mut passes = Vec::new();
    let mut made = 0;
    for i in steps {
        e.legal_moves(&mut moves)?;
        let mv = moves[i as usize];
        line.push(e.move_name(mv));
        e.apply(mv)?;
        made += 1 + pass_on(e, &mut passes)?;
    }
    for _ in 0..made {
        e.undo();
    }
    Ok(line)
}
