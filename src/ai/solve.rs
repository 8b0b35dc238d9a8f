//! Exact solving of two-player games without chance: the game-theoretic value
//! of a position, as the final margin (the first player's score less the
//! second's) under perfect play by both, with a best move and the principal
//! variation. MTD(f) over a fail-soft alpha-beta with no depth limit, and a
//! transposition table of bounds keyed by the position's hash; moves are
//! ordered by the table's best move, then by the margin one move ahead.

use std::collections::HashMap;
use std::time::Instant;

use crate::engine::{Engine, Halt, Move};

#[derive(Debug, Clone)]
pub struct Solution {
    /// The first player's final score less the second's, under perfect play.
    pub value: i64,
    pub best: Option<Move>,
    /// The principal variation, as move names, from the position solved.
    pub pv: Vec<String>,
    /// Positions searched (nodes visited) and distinct positions stored.
    pub nodes: u64,
    pub positions: usize,
    pub seconds: f64,
}

#[derive(Clone, Copy)]
struct Bounds {
    lower: i32,
    upper: i32,
    /// The best move's place in the position's list of legal moves.
    best: u8,
}

/// The table's keys are already well-mixed hashes: they are used as they are.
#[derive(Default, Clone, Copy)]
pub(crate) struct Identity(u64);

impl std::hash::Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(crate) type Table<V> = HashMap<u64, V, std::hash::BuildHasherDefault<Identity>>;

struct Solver {
    tt: Table<Bounds>,
    nodes: u64,
    bufs: Vec<Vec<Move>>,
    /// The positions on the path searched: one met again means the game can
    /// go round in a cycle, which exact solving cannot value.
    path: Table<()>,
}

/// Deepest line searched; a longer one is taken for a game that need not end.
const MAX_PLIES: usize = 2_000;

const INF: i32 = i32::MAX / 2;
/// How deep moves are ordered by what they gain at once (it costs a move
/// made and unmade each; near the root it pays for itself).
const ORDER_PLIES: usize = 1000;

/// Solves the position of `e` (which is left as it was). `progress` is told
/// of each step of MTD(f).
pub fn solve(e: &mut Engine, progress: &mut dyn FnMut(&str)) -> Result<Solution, String> {
    if e.game.players.len() != 2 {
        return Err(format!("exact solving is for two players; this game has {}", e.game.players.len()));
    }
    if e.game.chance {
        return Err("exact solving is for games without chance; these rules draw random numbers".into());
    }
    let start = Instant::now();
    let mut s = Solver {
        tt: Table::with_capacity_and_hasher(1 << 20, Default::default()),
        nodes: 0,
        bufs: Vec::new(),
        path: Table::default(),
    };
    let halt = |h: Halt| crate::session::halt_text(&h);
    let (mut lower, mut upper) = (-INF, INF);
    let mut g = 0;
    while lower < upper {
        let beta = if g == lower { g + 1 } else { g };
        g = s.node(e, beta - 1, beta, 0).map_err(halt)?;
        if g < beta {
            upper = g;
        } else {
            lower = g;
        }
        let show = |v: i32| if v.abs() >= INF { "?".to_string() } else { v.to_string() };
        progress(&format!(
            "value in {}..{}: {} positions searched, {} stored, {:.1} s",
            show(lower),
            show(upper),
            s.nodes,
            s.tt.len(),
            start.elapsed().as_secs_f64()
        ));
    }
    let (best, pv) = s.principal_variation(e).map_err(halt)?;
    Ok(Solution {
        value: g as i64,
        best,
        pv,
        nodes: s.nodes,
        positions: s.tt.len(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

impl Solver {
    /// The first player's margin under perfect play, within the window
    /// (fail-soft: outside it, a bound on the side it fell).
    fn node(&mut self, e: &mut Engine, mut alpha: i32, mut beta: i32, ply: usize) -> Result<i32, Halt> {
        self.nodes += 1;
        let hash = e.hash();
        let entry = self.tt.get(&hash).copied();
        if let Some(t) = entry {
            if t.lower >= beta {
                return Ok(t.lower);
            }
            if t.upper <= alpha {
                return Ok(t.upper);
            }
            alpha = alpha.max(t.lower);
            beta = beta.min(t.upper);
        }
        if ply >= MAX_PLIES {
            return Err(Halt::Error(format!(
                "a line of more than {MAX_PLIES} plies: exact solving is for games that always end"
            )));
        }
        if self.bufs.len() <= ply {
            self.bufs.push(Vec::with_capacity(16));
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        if let Err(h) = e.legal_moves(&mut moves) {
            self.bufs[ply] = moves;
            return Err(h);
        }
        if moves.is_empty() {
            self.bufs[ply] = moves;
            let s = e.scores()?;
            let v = (s[0] - s[1]) as i32;
            self.tt.insert(hash, Bounds { lower: v, upper: v, best: 0 });
            return Ok(v);
        }
        if self.path.insert(hash, ()).is_some() {
            self.bufs[ply] = moves;
            return Err(Halt::Error(
                "a position can come round again: exact solving is for games that always end".into(),
            ));
        }
        let r = self.search_moves(e, &mut moves, entry, alpha, beta, ply);
        self.path.remove(&hash);
        self.bufs[ply] = moves;
        let (g, best) = r?;
        let (a0, b0) = (alpha, beta);
        let mut t = entry.unwrap_or(Bounds { lower: -INF, upper: INF, best: 0 });
        if g <= a0 {
            t.upper = g;
        } else if g >= b0 {
            t.lower = g;
        } else {
            t.lower = g;
            t.upper = g;
        }
        t.best = best;
        self.tt.insert(hash, t);
        Ok(g)
    }

    fn search_moves(
        &mut self,
        e: &mut Engine,
        moves: &mut [Move],
        entry: Option<Bounds>,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> Result<(i32, u8), Halt> {
        let maximising = e.to_move() == 0;
        // Ordering: the best move found before first; near the root, then the
        // moves that gain most at once.
        let mut order: Vec<(i32, u8)> = Vec::with_capacity(moves.len());
        for (i, &mv) in moves.iter().enumerate() {
            let key = if entry.is_some_and(|t| t.best as usize == i) {
                i32::MIN
            } else if ply < ORDER_PLIES {
                e.apply(mv)?;
                let s = e.scores()?;
                e.undo();
                let gain = (s[0] - s[1]) as i32;
                if maximising { -gain } else { gain }
            } else {
                i as i32
            };
            order.push((key, i as u8));
        }
        order.sort_unstable();
        let mut g = if maximising { -INF } else { INF };
        let mut best = order[0].1;
        for &(_, i) in &order {
            e.apply(moves[i as usize])?;
            let v = self.node(e, alpha, beta, ply + 1);
            e.undo();
            let v = v?;
            if (maximising && v > g) || (!maximising && v < g) {
                g = v;
                best = i;
            }
            if maximising {
                alpha = alpha.max(g);
            } else {
                beta = beta.min(g);
            }
            if alpha >= beta {
                break;
            }
        }
        Ok((g, best))
    }

    /// The best move and the principal variation, read from the table.
    fn principal_variation(&mut self, e: &mut Engine) -> Result<(Option<Move>, Vec<String>), Halt> {
        let mut pv = Vec::new();
        let mut first = None;
        let mut made = 0;
        let mut moves = Vec::new();
        while made < 500 {
            let Some(t) = self.tt.get(&e.hash()).copied() else { break };
            e.legal_moves(&mut moves)?;
            let Some(&mv) = moves.get(t.best as usize) else { break };
            if first.is_none() {
                first = Some(mv);
            }
            pv.push(e.move_name(mv));
            e.apply(mv)?;
            made += 1;
        }
        for _ in 0..made {
            e.undo();
        }
        Ok((first, pv))
    }
}
