//! Perft: how many positions each depth of the game tree holds, counted by
//! making every legal move of every ply (a move that earns another turn is
//! one ply; a pass is one move). Chess engines count these to prove their
//! move generation right and fast; rule authors do the same for a rule file.
//!
//! Counts are of lines of play, not of distinct positions: two orders of the
//! same moves are counted twice. The last ply is counted without making its
//! moves (the number of legal moves is enough), as chess engines' "bulk
//! counting" does. In rules with chance the counts depend on the seed.

use std::time::Instant;

use crate::engine::{Engine, Halt, Move};

/// The count at one depth.
#[derive(Debug, Clone, PartialEq)]
pub struct Depth {
    pub depth: usize,
    pub positions: u64,
    /// Time taken to count this depth alone.
    pub seconds: f64,
}

/// The positions at `depth` plies from the engine's position. Works on a
/// copy: `e` is as it was whatever happens.
pub fn perft(e: &Engine, depth: usize) -> Result<u64, Halt> {
    let mut e = e.clone();
    let mut bufs = Vec::new();
    count(&mut e, depth, &mut bufs)
}

/// Each depth from 1 to `depth` in turn, each told to `each` as it is
/// counted (a deeper count takes longer; the shallow ones come first).
pub fn perft_each(e: &Engine, depth: usize, each: &mut dyn FnMut(&Depth)) -> Result<Vec<Depth>, Halt> {
    let mut e = e.clone();
    let mut bufs = Vec::new();
    let mut out = Vec::new();
    for d in 1..=depth {
        let start = Instant::now();
        let positions = count(&mut e, d, &mut bufs)?;
        let row = Depth { depth: d, positions, seconds: start.elapsed().as_secs_f64() };
        each(&row);
        out.push(row);
    }
    Ok(out)
}

/// The count at `depth` below each legal move ("divide"): where two
/// engines' totals differ, it shows under which move.
pub fn divide(e: &Engine, depth: usize) -> Result<Vec<(String, u64)>, Halt> {
    let mut e = e.clone();
    let mut moves = Vec::new();
    e.legal_moves(&mut moves)?;
    let mut bufs = Vec::new();
    let mut out = Vec::with_capacity(moves.len());
    for mv in moves {
        let name = e.move_name(mv);
        e.apply(mv)?;
        let n = count(&mut e, depth.saturating_sub(1), &mut bufs);
        e.undo();
        out.push((name, n?));
    }
    Ok(out)
}

/// Positions `depth` plies below; `bufs` holds a move list per ply, reused.
fn count(e: &mut Engine, depth: usize, bufs: &mut Vec<Vec<Move>>) -> Result<u64, Halt> {
    match depth {
        0 => Ok(1),
        1 => Ok(u64::try_from(e.count_moves()?).unwrap_or(u64::MAX)),
        _ => {
            let mut moves = bufs.pop().unwrap_or_default();
            let r = count_below(e, depth, &mut moves, bufs);
            bufs.push(moves);
            r
        }
    }
}

fn count_below(e: &mut Engine, depth: usize, moves: &mut Vec<Move>, bufs: &mut Vec<Vec<Move>>) -> Result<u64, Halt> {
    e.legal_moves(moves)?;
    let mut total: u64 = 0;
    for &mv in moves.iter() {
        e.apply(mv)?;
        let n = count(e, depth - 1, bufs);
        e.undo();
        total = total.saturating_add(n?);
    }
    Ok(total)
}
