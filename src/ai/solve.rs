//! Exact solving of two-player games without chance: the game-theoretic value
//! of a position, as the final margin (the first player's score less the
//! second's) under perfect play by both, with a best move and the principal
//! variation. MTD(f) over a fail-soft alpha-beta with no depth limit, and a
//! transposition table of bounds keyed by the position's hash; moves are
//! ordered by the table's best move, then by the margin one move ahead, then
//! by how often each has cut a search off (see [`Cutoffs`]).
//!
//! Stores are banks when the score is a sum of counts (see
//! [`Game::is_linear_in_counts`]): the table leaves out what they hold and
//! keeps values relative to the margin so far, so positions that differ only
//! in their stores share an entry. That holds only if the play never looks at
//! a store's count, which the engine watches (see [`Engine::set_banks`]): if
//! the rules do, the solve starts again with the stores in the key.
//!
//! With more than one thread ([`Limits::threads`]), every pass of MTD(f) is
//! searched by all of them through one shared table (see
//! [`parallel`](super::parallel)); the value is the same, the positions
//! searched vary from run to run.

use std::collections::HashMap;
use std::time::{Duration, Instant};

mod passes;

use super::cutoffs::Cutoffs;
use super::parallel::Shared;
use super::reach::Reach;
use super::table::Bounds;
use crate::engine::game::{Game, SiteId, SiteKind};
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

/// How far a solve may go: the memory of its table, and optionally a time
/// and a number of positions to search, after which it stops without a value.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub memory: usize,
    pub time: Option<Duration>,
    pub max_positions: Option<u64>,
    /// Threads to search with (at least one).
    pub threads: usize,
}

/// Why a solve gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsolved {
    /// Exact solving does not apply to these rules (the reason says why).
    Refused(String),
    /// The time or positions allowed ran out, or the search was interrupted.
    Stopped(String),
    /// A rule went wrong during the search.
    Failed(String),
}

impl std::fmt::Display for Unsolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsolved::Refused(m) | Unsolved::Stopped(m) | Unsolved::Failed(m) => f.write_str(m),
        }
    }
}

const UNKNOWN: Bounds = Bounds { lower: -INF, upper: INF, best: u8::MAX };

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

struct Solver<'p> {
    /// The table and what the threads of the solve share.
    sh: &'p Shared,
    /// 0 for the main search, else the helper's number.
    id: usize,
    /// Entries this thread added to the table and has not counted yet.
    uncounted: usize,
    /// How often each move has cut a search off (the history heuristic).
    cutoffs: Cutoffs,
    /// The positions on the line being searched: one met again below
    /// itself means the game has gone round in a cycle, which exact solving
    /// cannot value.
    path: Table<()>,
    nodes: u64,
    bufs: Vec<Vec<Move>>,
    /// The order moves are searched in, one buffer a ply: a key (what the
    /// move gains, then its cutoffs), the move's place, and its position's
    /// hash.
    orders: Vec<Vec<(i64, u8, u64)>>,
    /// Moves left for later because another thread is searching them.
    later: Vec<Vec<(u8, u64)>>,
    /// Whether the table leaves the banks out, and so keeps values relative
    /// to the margin of the position they belong to.
    relative: bool,
    /// Each child's place, whether the mover moves again, its hash, and its
    /// margin and the move's cutoffs, while moves are ordered (reused).
    probes: Vec<Probe>,
    /// Told how the search goes, every [`PROGRESS_EVERY`] positions.
    progress: &'p mut dyn FnMut(&str),
    /// The bound being tried, and when the solve began, for the progress lines.
    beta: i32,
    start: Instant,
    /// How far the margin can still move from a position (see [`Reach`]).
    reach: Option<Reach>,
    limits: Limits,
    /// Why the search gave up, when it was not a rule that went wrong: the
    /// game cannot be solved (a cycle), or a limit was reached.
    gave_up: Option<Unsolved>,
}

/// A child looked at while moves are ordered: its move's place, whether the
/// mover moves again, its hash, and its margin and the move's cutoffs.
type Probe = (u8, bool, u64, Result<(i32, u32), Halt>);

/// Positions searched between two progress lines.
const PROGRESS_EVERY: u64 = 1 << 22;

/// Deepest line searched; a longer one is taken for a game that need not end.
const MAX_PLIES: usize = 2_000;

pub(crate) const INF: i32 = i32::MAX / 2;
/// Moves are kept by their place in the list, in a byte (255 means none).
const MAX_MOVES: usize = 254;

/// Why rules that read `ply` or `repetitions` are not solved.
pub(crate) const HISTORY: &str = "these rules read `ply` or `repetitions`: a position's future depends on how it was reached, which a table of positions cannot see";

const CYCLE: &str = "a position can come round again: exact solving is for games that always end";

/// Solves the position of `e`. `progress` is told of each step of MTD(f).
/// The search works on a copy, so `e` is as it was whatever happens.
pub fn solve(e: &Engine, progress: &mut dyn FnMut(&str)) -> Result<Solution, String> {
    solve_within(e, super::table::default_budget(), progress)
}

/// [`solve`], its table of positions kept within `memory` bytes (a smaller
/// table costs time: positions it could not keep are searched again).
pub fn solve_within(e: &Engine, memory: usize, progress: &mut dyn FnMut(&str)) -> Result<Solution, String> {
    let limits = Limits { memory, time: None, max_positions: None, threads: 1 };
    solve_limited(e, limits, progress).map_err(|u| u.to_string())
}

/// [`solve`] within `limits`, saying why when there is no value.
pub fn solve_limited(e: &Engine, limits: Limits, progress: &mut dyn FnMut(&str)) -> Result<Solution, Unsolved> {
    if let Some(why) = refusal(&e.game) {
        return Err(Unsolved::Refused(why));
    }
    solve_copy(&mut e.clone(), limits, progress)
}

/// Why exact solving does not apply to a game's rules, if it does not.
pub fn refusal(game: &Game) -> Option<String> {
    if game.players.len() != 2 {
        return Some(format!("exact solving is for two players; this game has {}", game.players.len()));
    }
    if game.chance {
        return Some("exact solving is for games without chance; these rules draw random numbers".into());
    }
    game.history.then(|| HISTORY.into())
}

fn solve_copy(e: &mut Engine, limits: Limits, progress: &mut dyn FnMut(&str)) -> Result<Solution, Unsolved> {
    let start = Instant::now();
    let guess = first_guess(e);
    progress(&format!("first guess {guess}, from a short alpha-beta search"));
    let banks = banks(&e.game);
    if !banks.is_empty() {
        e.set_banks(&banks);
        let (r, read) = solve_from(e, (guess, limits), true, start, progress);
        e.set_banks(&[]);
        match r {
            Ok(sol) if !read => return Ok(sol),
            Err(stop @ Unsolved::Stopped(_)) => return Err(stop),
            // A failure that may have come from keying without the banks.
            Err(_) if read => {}
            Ok(_) => {}
            Err(m) => return Err(m),
        }
        progress("the rules read what a store holds: solving again with the stores in the table's key");
    }
    solve_from(e, (guess, limits), false, start, progress).0
}

/// The sites the table may leave out: the stores, if the score is a sum of
/// counts (so adding counters to a store adds the same to the score in any
/// position).
fn banks(game: &Game) -> Vec<SiteId> {
    if !game.is_linear_in_counts(&game.score.1) {
        return Vec::new();
    }
    (0..game.sites.len()).filter(|&s| game.sites[s].kind == SiteKind::Store).map(|s| s as SiteId).collect()
}

/// MTD(f) from a first guess, then the principal variation; and whether
/// the play of any thread read a bank.
fn solve_from(
    e: &mut Engine,
    guess: (i32, Limits),
    relative: bool,
    start: Instant,
    progress: &mut dyn FnMut(&str),
) -> (Result<Solution, Unsolved>, bool) {
    let shared = Shared::new(guess.1.memory, guess.1.threads.max(1));
    let r = mtd(e, guess, relative, (&shared, start), progress);
    (r, e.bank_read() || shared.bank_read())
}

fn mtd(
    e: &mut Engine,
    (mut g, limits): (i32, Limits),
    relative: bool,
    (shared, start): (&Shared, Instant),
    progress: &mut dyn FnMut(&str),
) -> Result<Solution, Unsolved> {
    let fixed = if relative { banks(&e.game) } else { Vec::new() };
    let reach = Reach::new(e, &fixed);
    let mut s = Solver::new(shared, 0, reach, relative, (start, limits), progress);
    let (mut lower, mut upper) = (-INF, INF);
    while lower < upper {
        let beta = if g == lower { g + 1 } else { g };
        s.beta = beta;
        g = s.pass(e, beta)?;
        if g < beta {
            upper = g;
        } else {
            lower = g;
        }
        let show = |v: i32| if v.abs() >= INF { "?".to_string() } else { v.to_string() };
        let line = format!(
            "value in {}..{}: {} positions searched, {} stored ({} MB), {:.1} s",
            show(lower),
            show(upper),
            s.all_nodes(),
            s.sh.tt.len(),
            s.sh.tt.bytes() >> 20,
            start.elapsed().as_secs_f64()
        );
        (s.progress)(&line);
        if relative && (e.bank_read() || shared.bank_read()) {
            return Err(Unsolved::Failed("the rules read a bank".into()));
        }
    }
    let (best, pv) = s.principal_variation(e, g).map_err(|h| s.halt(h))?;
    Ok(Solution {
        value: g as i64,
        best,
        pv,
        nodes: s.all_nodes(),
        positions: s.sh.tt.len(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The first player's score less the second's, now.
fn margin(e: &mut Engine) -> Result<i32, Halt> {
    Ok((e.score_of(0)? - e.score_of(1)?) as i32)
}

/// MTD(f) takes a pass for each bound it tries on the way to the value:
/// a short heuristic search guesses where to start (any guess is exact in
/// the end; a good one saves passes).
fn first_guess(e: &mut Engine) -> i32 {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let budget = super::Budget { time: None, nodes: Some(20_000) };
    let Ok(Some(choice)) = super::alphabeta::search(e, budget, &mut rng) else { return 0 };
    let Some(v) = choice.value else { return 0 };
    let v = v.round() as i64;
    // A proven result carries the margin beside its win or loss.
    let win = super::alphabeta::WIN;
    let margin = if v.abs() >= win / 2 { v - v.signum() * win } else { v };
    let margin = if e.to_move() == 0 { margin } else { -margin };
    margin.clamp(-(INF as i64) / 2, INF as i64 / 2) as i32
}

impl<'p> Solver<'p> {
    fn new(
        sh: &'p Shared,
        id: usize,
        reach: Option<Reach>,
        relative: bool,
        (start, limits): (Instant, Limits),
        progress: &'p mut dyn FnMut(&str),
    ) -> Solver<'p> {
        Solver {
            sh,
            id,
            uncounted: 0,
            cutoffs: Cutoffs::new(),
            reach,
            path: Table::default(),
            nodes: 0,
            bufs: Vec::new(),
            orders: Vec::new(),
            later: Vec::new(),
            relative,
            probes: Vec::new(),
            progress,
            beta: 0,
            start,
            limits,
            gave_up: None,
        }
    }

    /// The solver's own reason to give up, else the rule that went wrong.
    fn halt(&mut self, h: Halt) -> Unsolved {
        self.gave_up.take().unwrap_or_else(|| Unsolved::Failed(h.to_string()))
    }

    /// The first player's margin under perfect play, within the window
    /// (fail-soft: outside it, a bound on the side it fell).
    fn node(&mut self, e: &mut Engine, alpha: i32, beta: i32, ply: usize) -> Result<i32, Halt> {
        let m = if self.relative { margin(e)? } else { 0 };
        Ok(self.relative_node(e, alpha - m, beta - m, ply, m)? + m)
    }

    /// [`node`](Self::node) less `m`, the margin now (0 unless the table is
    /// relative): all values and bounds here are relative to it.
    fn relative_node(
        &mut self,
        e: &mut Engine,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        m: i32,
    ) -> Result<i32, Halt> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(PROGRESS_EVERY) {
            let line = format!(
                "  is the value at least {}? {} positions searched, {} stored ({} MB), {:.0} s",
                self.beta,
                self.all_nodes(),
                self.sh.tt.len(),
                self.sh.tt.bytes() >> 20,
                self.start.elapsed().as_secs_f64()
            );
            (self.progress)(&line);
        }
        if let Some(stop) = self.stop() {
            return Err(stop);
        }
        let hash = e.hash();
        // A position on the line searched, met again: a cycle. Else the
        // bounds the table knows.
        if self.path.contains_key(&hash) {
            return Err(self.give_up(Unsolved::Refused(CYCLE.into())));
        }
        // What the margin can still become: outside the window, that settles it.
        if let Some(reach) = &self.reach {
            let (lo, hi) = reach.bounds(e.position(), self.relative);
            if hi <= alpha {
                return Ok(hi);
            }
            if lo >= beta {
                return Ok(lo);
            }
        }
        let entry = self.sh.tt.get(hash).unwrap_or(UNKNOWN);
        if entry.lower >= beta {
            return Ok(entry.lower);
        }
        if entry.upper <= alpha {
            return Ok(entry.upper);
        }
        let work_before = self.nodes;
        self.path.insert(hash, ());
        self.sh.enter(hash);
        alpha = alpha.max(entry.lower);
        beta = beta.min(entry.upper);
        if ply >= MAX_PLIES {
            self.mark_off(hash);
            return Err(self.give_up(Unsolved::Refused(format!(
                "a line of more than {MAX_PLIES} plies: exact solving is for games that always end"
            ))));
        }
        if self.bufs.len() <= ply {
            self.bufs.push(Vec::with_capacity(16));
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        if let Err(h) = e.legal_moves(&mut moves) {
            self.bufs[ply] = moves;
            self.mark_off(hash);
            return Err(h);
        }
        if moves.len() > MAX_MOVES {
            self.bufs[ply] = moves;
            self.mark_off(hash);
            return Err(self.give_up(Unsolved::Refused(format!(
                "a position with more than {MAX_MOVES} legal moves: exact solving is for smaller games"
            ))));
        }
        if moves.is_empty() {
            self.bufs[ply] = moves;
            let s = match e.scores() {
                Ok(s) => s,
                Err(h) => {
                    self.mark_off(hash);
                    return Err(h);
                }
            };
            let v = (s[0] - s[1]) as i32 - m;
            self.mark_off(hash);
            self.keep(hash, Bounds { lower: v, upper: v, best: 0 }, self.nodes - work_before);
            return Ok(v);
        }
        let r = self.search_moves(e, &moves, entry, (alpha, beta), ply, m);
        self.bufs[ply] = moves;
        let (g, best) = match r {
            Ok(r) => r,
            Err(h) => {
                self.mark_off(hash);
                return Err(h);
            }
        };
        let (a0, b0) = (alpha, beta);
        let mut t = entry;
        if g <= a0 {
            t.upper = g;
        } else if g >= b0 {
            t.lower = g;
        } else {
            t.lower = g;
            t.upper = g;
        }
        t.best = best;
        self.mark_off(hash);
        self.keep(hash, t, self.nodes - work_before);
        Ok(g)
    }

    /// Takes a position off the line searched, when its search is over.
    fn mark_off(&mut self, hash: u64) {
        self.path.remove(&hash);
        self.sh.leave(hash);
    }

    /// Keeps a position's bounds in the table. Alone, counts the entry and
    /// grows the table when due; with other threads, both wait for the next
    /// look at the limits (see [`stop`](Self::stop)).
    fn keep(&mut self, hash: u64, bounds: Bounds, work: u64) {
        let new = self.sh.tt.insert(hash, bounds, work);
        if self.sh.threads() == 1 {
            self.sh.tt.count(new as usize);
            self.sh.grow_if_wanted();
        } else {
            self.uncounted += new as usize;
        }
    }

    fn search_moves(
        &mut self,
        e: &mut Engine,
        moves: &[Move],
        entry: Bounds,
        (mut alpha, mut beta): (i32, i32),
        ply: usize,
        m: i32,
    ) -> Result<(i32, u8), Halt> {
        let maximising = e.to_move() == 0;
        let mut g = if maximising { -INF } else { INF };
        let mut best = 0;
        // The best move of an earlier search goes first, before the others
        // are looked at: often it settles the position alone.
        let known = entry.best as usize;
        let known = (known < moves.len()).then_some(known);
        if let Some(i) = known {
            g = self.child(e, moves[i], alpha + m, beta + m, ply)? - m;
            best = i as u8;
            if maximising {
                alpha = alpha.max(g);
            } else {
                beta = beta.min(g);
            }
            if alpha >= beta {
                return Ok((g, best));
            }
        }
        // The others, those that gain most at once first.
        if self.orders.len() <= ply {
            self.orders.resize_with(ply + 1, || Vec::with_capacity(16));
        }
        let mut order = std::mem::take(&mut self.orders[ply]);
        order.clear();
        let r = self.order(e, moves, known, maximising, (alpha, beta), m, &mut order);
        let mut result = match r {
            Ok(None) => Ok((g, best)),
            // A move whose known bounds settle the position already.
            Ok(Some(settled)) => {
                order.clear();
                Ok(settled)
            }
            Err(h) => Err(h),
        };
        if self.later.len() <= ply {
            self.later.resize_with(ply + 1, Vec::new);
        }
        let mut later = std::mem::take(&mut self.later[ply]);
        later.clear();
        // Once one move is searched, a move whose position another thread
        // is searching now waits until the others are done (with one
        // thread, none does).
        let mut searched = known.is_some();
        let mut next = order.iter().map(|&(_, i, h)| (i, h, true));
        let mut k = 0;
        loop {
            let (i, hash, first_round) = match next.next() {
                Some(x) => x,
                None if k < later.len() => {
                    k += 1;
                    (later[k - 1].0, later[k - 1].1, false)
                }
                None => break,
            };
            if result.is_err() {
                break;
            }
            if first_round && searched && self.sh.is_busy(hash) {
                later.push((i, hash));
                continue;
            }
            searched = true;
            let v = match self.child(e, moves[i as usize], alpha + m, beta + m, ply) {
                Ok(v) => v - m,
                Err(h) => {
                    result = Err(h);
                    break;
                }
            };
            if (maximising && v > g) || (!maximising && v < g) {
                g = v;
                best = i;
            }
            if maximising {
                alpha = alpha.max(g);
            } else {
                beta = beta.min(g);
            }
            result = Ok((g, best));
            if alpha >= beta {
                self.cutoffs.cut(e.to_move(), moves[i as usize]);
                break;
            }
        }
        self.later[ply] = later;
        self.orders[ply] = order;
        result
    }

    /// The value of the position after `mv`.
    fn child(&mut self, e: &mut Engine, mv: Move, alpha: i32, beta: i32, ply: usize) -> Result<i32, Halt> {
        e.apply(mv)?;
        let v = self.node(e, alpha, beta, ply + 1);
        e.undo();
        v
    }

    /// The moves but `skip`, ordered by the margin each makes at once, best
    /// for the mover first. On the way, a move whose position the table
    /// already bounds outside the window settles the search: its value and
    /// place are returned (an enhanced transposition cutoff). Window and
    /// values are relative to `m`, the margin before the move.
    #[allow(clippy::too_many_arguments)]
    fn order(
        &mut self,
        e: &mut Engine,
        moves: &[Move],
        skip: Option<usize>,
        maximising: bool,
        (alpha, beta): (i32, i32),
        m: i32,
        out: &mut Vec<(i64, u8, u64)>,
    ) -> Result<Option<(i32, u8)>, Halt> {
        // First each child's margin and hash, its bucket of the table asked
        // for as soon as it is known; then the table, whose buckets by then
        // are on their way from memory rather than waited for one by one.
        let mut probes = std::mem::take(&mut self.probes);
        probes.clear();
        for (i, &mv) in moves.iter().enumerate() {
            if skip == Some(i) {
                continue;
            }
            let mover = e.to_move();
            e.apply(mv)?;
            let margin = margin(e);
            let again = e.to_move() == mover;
            let child = e.hash();
            self.sh.tt.prefetch(child);
            e.undo();
            let cut = self.cutoffs.of(mover, mv);
            probes.push((i as u8, again, child, margin.map(|m| (m, cut))));
        }
        let r = self.settle_by_table(&mut probes, maximising, (alpha, beta), m, out);
        self.probes = probes;
        if r.is_some() {
            return Ok(r.transpose()?.flatten());
        }
        out.sort_unstable();
        Ok(None)
    }

    /// The second half of [`order`](Self::order): each child's entry in the
    /// table, an enhanced transposition cutoff if one settles the position
    /// (`Some`, as is an error), else the moves to search, into `out`.
    fn settle_by_table(
        &mut self,
        probes: &mut Vec<Probe>,
        maximising: bool,
        (alpha, beta): (i32, i32),
        m: i32,
        out: &mut Vec<(i64, u8, u64)>,
    ) -> Option<Result<Option<(i32, u8)>, Halt>> {
        for (i, again, child, margin) in probes.drain(..) {
            let known = self.sh.tt.get(child);
            if self.path.contains_key(&child) {
                return Some(Err(self.give_up(Unsolved::Refused(CYCLE.into()))));
            }
            let (margin, cut) = match margin {
                Ok(v) => v,
                Err(h) => return Some(Err(h)),
            };
            // The child's entry is relative to its own margin.
            let shift = if self.relative { margin - m } else { 0 };
            if let Some(mut t) = known {
                t.lower += shift;
                t.upper += shift;
                if maximising && t.lower >= beta {
                    return Some(Ok(Some((t.lower, i))));
                }
                if !maximising && t.upper <= alpha {
                    return Some(Ok(Some((t.upper, i))));
                }
            }
            // The mover's gain first; of equal gains, a move that earns
            // another turn (on a 2x6 board with 3 a pit, 37% fewer positions
            // searched); then the move that has cut off most often (see
            // `Cutoffs`: on the same board, 9 times fewer again).
            let gain = if maximising { margin } else { -margin };
            out.push((-((gain * 2 + again as i32) as i64) * (1 << 32) - cut as i64, i, child));
        }
        None
    }

    /// The best move and the principal variation: at each step a move whose
    /// value is proved to be the position's (the table's best move tried
    /// first), so the line keeps the value to the end.
    fn principal_variation(&mut self, e: &mut Engine, value: i32) -> Result<(Option<Move>, Vec<String>), Halt> {
        let mut line = Vec::new();
        let r = self.pv_steps(e, value, &mut line);
        for _ in 0..line.len() {
            e.undo();
        }
        r?;
        let names = line.iter().map(|(_, n)| n.clone()).collect();
        Ok((line.first().map(|l| l.0), names))
    }

    /// Makes the moves of the principal variation, into `line`.
    fn pv_steps(&mut self, e: &mut Engine, value: i32, line: &mut Vec<(Move, String)>) -> Result<(), Halt> {
        let mut moves = Vec::new();
        while line.len() < MAX_PLIES {
            e.legal_moves(&mut moves)?;
            if moves.is_empty() {
                return Ok(());
            }
            let maximising = e.to_move() == 0;
            let mut order: Vec<usize> = (0..moves.len()).collect();
            if let Some(t) = self.sh.tt.get(e.hash())
                && (t.best as usize) < moves.len()
            {
                order.swap(0, t.best as usize);
            }
            let mut found = None;
            for i in order {
                // A maximiser's moves are worth at most the value, a
                // minimiser's at least: one bound proves a move keeps it.
                let (a, b) = if maximising { (value - 1, value) } else { (value, value + 1) };
                e.apply(moves[i])?;
                let v = self.node(e, a, b, line.len() + 1);
                e.undo();
                let v = v?;
                if (maximising && v >= value) || (!maximising && v <= value) {
                    found = Some(moves[i]);
                    break;
                }
            }
            let Some(mv) = found else { return Ok(()) };
            let name = e.move_name(mv);
            e.apply(mv)?;
            line.push((mv, name));
        }
        Ok(())
    }
}
