//! Alpha-beta for two sides, with iterative deepening, a transposition table
//! over the position's hash, and move ordering (the table's best move first,
//! then the moves that most improve the mover's margin). A side that moves
//! again (an extra turn) stays the maximising or minimising side: who
//! maximises is decided by whose turn it is, not by depth. Very large move
//! sets are searched through a uniform sample.

use std::collections::HashMap;

use rand_chacha::ChaCha8Rng;

use super::{Budget, Choice, Clock, candidate_moves, margin};
use crate::engine::{Engine, Halt, Move};

/// A win is worth more than any margin of score.
pub const WIN: i64 = 1_000_000;
/// Moves searched at most in one node (a sample beyond that).
const WIDTH: usize = 64;

#[derive(Clone, Copy)]
struct Entry {
    depth: u32,
    value: i64,
    bound: Bound,
    best: Option<Move>,
    /// Whether every line below was searched to the end of the game.
    complete: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

struct Search<'a> {
    root: usize,
    /// Whether the node being searched met the depth limit somewhere below.
    cut: bool,
    tt: HashMap<u64, Entry>,
    clock: Clock,
    rng: &'a mut ChaCha8Rng,
}

/// The value of a finished game for `root`: a win or loss outweighs any
/// margin; a shared win or draw is worth its margin.
pub fn terminal_value(e: &mut Engine, root: usize) -> Result<i64, Halt> {
    let o = e.outcome()?.ok_or_else(|| Halt::Error("not over".into()))?;
    let m = margin(&o.scores, root);
    let won = o.winners.contains(&(root as u8));
    Ok(match (won, o.winners.len()) {
        (true, 1) => WIN + m,
        (true, _) => m,
        (false, _) => -WIN + m,
    })
}

pub fn search(e: &mut Engine, budget: Budget, rng: &mut ChaCha8Rng) -> Result<Option<Choice>, Halt> {
    let root = e.to_move() as usize;
    let mut s =
        Search { root, cut: false, tt: HashMap::with_capacity(1 << 16), clock: Clock::new(budget, 200_000), rng };
    let mut best: Option<(Move, i64, u32)> = None;
    for depth in 1..=512u32 {
        s.cut = false;
        match s.node(e, depth, -2 * WIN, 2 * WIN)? {
            None => break,
            Some(v) => {
                let mv = s.tt.get(&e.hash()).and_then(|t| t.best);
                if let Some(mv) = mv {
                    best = Some((mv, v, depth));
                }
                // Every line searched to the end: deeper looks change nothing.
                if !s.cut {
                    break;
                }
            }
        }
        if s.clock.spent() {
            break;
        }
    }
    // Nothing finished (a tiny budget): any legal move.
    if best.is_none() {
        return Ok(e.sample_move(s.rng)?.map(|mv| Choice { mv, value: None, info: "no search".into() }));
    }
    let (mv, v, depth) = best.unwrap();
    Ok(Some(Choice { mv, value: Some(v as f64), info: format!("depth {depth}, {} nodes", s.clock.used) }))
}

impl Search<'_> {
    /// The value of the position for the root player, or `None` when the
    /// budget ran out during the search.
    fn node(&mut self, e: &mut Engine, depth: u32, mut alpha: i64, mut beta: i64) -> Result<Option<i64>, Halt> {
        self.clock.used += 1;
        if self.clock.over() {
            return Ok(None);
        }
        let hash = e.hash();
        let entry = self.tt.get(&hash).copied();
        if let Some(t) = entry
            && (t.depth >= depth || t.complete)
        {
            self.cut |= !t.complete;
            match t.bound {
                Bound::Exact => return Ok(Some(t.value)),
                Bound::Lower => alpha = alpha.max(t.value),
                Bound::Upper => beta = beta.min(t.value),
            }
            if alpha >= beta {
                return Ok(Some(t.value));
            }
        }
        let mut moves = candidate_moves(e, self.rng, WIDTH)?;
        if moves.is_empty() {
            return Ok(Some(terminal_value(e, self.root)?));
        }
        if depth == 0 {
            self.cut = true;
            return Ok(Some(margin(&e.scores()?, self.root)));
        }
        let cut_above = std::mem::take(&mut self.cut);
        let maximising = e.to_move() as usize == self.root;
        // Ordering: the table's best move, then by the margin one move ahead.
        if depth >= 2 {
            let mut keyed = Vec::with_capacity(moves.len());
            for mv in moves {
                // Each position made counts against the budget, ordering's too.
                self.clock.used += 1;
                e.apply(mv)?;
                let scores = e.scores();
                e.undo();
                let m = margin(&scores?, self.root);
                keyed.push((if maximising { -m } else { m }, mv));
            }
            keyed.sort_by_key(|k| k.0);
            moves = keyed.into_iter().map(|k| k.1).collect();
        }
        if let Some(b) = entry.and_then(|t| t.best)
            && let Some(i) = moves.iter().position(|m| *m == b)
        {
            moves[..=i].rotate_right(1);
        }
        let (a0, b0) = (alpha, beta);
        let mut best_value = if maximising { -3 * WIN } else { 3 * WIN };
        let mut best_move = None;
        for mv in moves {
            e.apply(mv)?;
            let v = self.node(e, depth - 1, alpha, beta);
            e.undo();
            let Some(v) = v? else { return Ok(None) };
            if (maximising && v > best_value) || (!maximising && v < best_value) {
                best_value = v;
                best_move = Some(mv);
            }
            if maximising {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best_value <= a0 {
            Bound::Upper
        } else if best_value >= b0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let complete = !self.cut;
        self.cut |= cut_above;
        self.tt.insert(hash, Entry { depth, value: best_value, bound, best: best_move, complete });
        Ok(Some(best_value))
    }
}
