//! Players for any rule file, through the engine's interface only: random,
//! greedy (best immediate score), alpha-beta for two sides, and MCTS (UCT)
//! for any number of players, chance and very large move sets. Each takes a
//! budget (time, or nodes/playouts) and is deterministic under its seed.

pub mod alphabeta;
mod cutoffs;
pub mod mcts;
mod parallel;
mod reach;
pub mod solitaire;
pub mod solve;
pub mod table;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::engine::{Engine, Halt, Move};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Random,
    Greedy,
    AlphaBeta,
    Mcts,
}

/// How much an agent may think: a time, or a number of nodes (alpha-beta)
/// or playouts (MCTS). With neither, a default number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
}

/// An agent and its budget, as written on the command line: `random`,
/// `greedy`, `alphabeta:2s`, `mcts:5000` (playouts), `alphabeta:200000`
/// (nodes), `mcts:500ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentSpec {
    pub kind: Kind,
    pub budget: Budget,
}

impl FromStr for AgentSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, budget) = match s.split_once([':', ' ']) {
            Some((n, b)) => (n.trim(), Some(b.trim())),
            None => (s.trim(), None),
        };
        let kind = match name {
            "random" => Kind::Random,
            "greedy" => Kind::Greedy,
            "alphabeta" | "alpha-beta" | "ab" => Kind::AlphaBeta,
            "mcts" | "uct" => Kind::Mcts,
            other => return Err(format!("unknown agent `{other}`: one of random, greedy, alphabeta, mcts")),
        };
        let budget = match budget {
            None | Some("") => Budget::default(),
            Some(b) => parse_budget(b)?,
        };
        Ok(AgentSpec { kind, budget })
    }
}

fn parse_budget(b: &str) -> Result<Budget, String> {
    let bad = || format!("`{b}` is not a budget: a time (2s, 500ms) or a number of nodes or playouts (10000)");
    let time = |n: &str, scale: f64| -> Result<Budget, String> {
        let v: f64 = n.parse().map_err(|_| bad())?;
        if !(v > 0.0 && v <= 86_400.0 * scale) {
            return Err(bad());
        }
        Ok(Budget { time: Some(Duration::from_secs_f64(v / scale)), nodes: None })
    };
    if let Some(n) = b.strip_suffix("ms") {
        time(n, 1000.0)
    } else if let Some(n) = b.strip_suffix('s') {
        time(n, 1.0)
    } else {
        let n: u64 = b.parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        Ok(Budget { time: None, nodes: Some(n) })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            Kind::Random => "random",
            Kind::Greedy => "greedy",
            Kind::AlphaBeta => "alphabeta",
            Kind::Mcts => "mcts",
        };
        match (self.budget.time, self.budget.nodes) {
            (Some(t), _) => write!(f, "{name}:{}ms", t.as_millis()),
            (None, Some(n)) => write!(f, "{name}:{n}"),
            _ => write!(f, "{name}"),
        }
    }
}

/// What an agent decided: the move, and its evaluation for the mover where
/// the agent has one (score difference for alpha-beta; share of wins for MCTS).
#[derive(Debug, Clone)]
pub struct Choice {
    pub mv: Move,
    pub value: Option<f64>,
    /// How far the agent looked (depth reached, nodes, playouts).
    pub info: String,
}

/// Set by Ctrl-C: every search stops at its next look at the clock (agents
/// return the best move found so far; solve and solitaire give up). The
/// front end that sets it clears it.
static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Asks every search to stop (safe to call from a signal handler).
pub fn interrupt() {
    INTERRUPT.store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for since the last [`clear_interrupt`].
pub fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

pub fn clear_interrupt() {
    INTERRUPT.store(false, Ordering::Relaxed);
}

/// Tells an agent when to stop.
pub(crate) struct Clock {
    start: Instant,
    time: Option<Duration>,
    nodes: Option<u64>,
    pub used: u64,
}

impl Clock {
    pub fn new(b: Budget, default_nodes: u64) -> Clock {
        Clock {
            start: Instant::now(),
            time: b.time,
            nodes: b.nodes.or(b.time.is_none().then_some(default_nodes)),
            used: 0,
        }
    }
    pub fn spent(&self) -> bool {
        self.nodes.is_some_and(|n| self.used >= n)
            || self.time.is_some_and(|t| self.start.elapsed() >= t)
            || interrupted()
    }

    /// [`spent`](Self::spent), cheaply enough to ask at every position: the
    /// count of positions every time, the clock every 64.
    #[inline]
    pub fn over(&self) -> bool {
        self.nodes.is_some_and(|n| self.used >= n) || (self.used.is_multiple_of(64) && self.spent())
    }

    /// Whether the time (not a count) is up, or a stop was asked for.
    pub fn time_up(&self) -> bool {
        self.time.is_some_and(|t| self.start.elapsed() >= t) || interrupted()
    }
}

/// Lets an agent choose a move for the player to move; `None` when the game
/// is over. The agent searches a copy, so `e` is as it was whatever happens
/// (a rule that fails deep in a search leaves the game in progress intact).
/// A random move in a game without chance is drawn from `e` itself, which
/// listing moves leaves as it was: a copy holds the game's whole history,
/// and copying it at every move made long random games quadratic.
pub fn choose(spec: AgentSpec, e: &mut Engine, rng: &mut ChaCha8Rng) -> Result<Option<Choice>, Halt> {
    if matches!(spec.kind, Kind::Random) && !e.game.chance {
        return Ok(e.sample_move(rng)?.map(|mv| Choice { mv, value: None, info: String::new() }));
    }
    let e = &mut e.clone();
    // The game's draws to come are its seed's: a search that kept the seed
    // would know them (when the kettle whistles, how the dice fall). The
    // copy draws from the agent's own generator instead.
    if e.game.chance {
        e.set_seed(rng.r#gen());
    }
    match spec.kind {
        Kind::Random => Ok(e.sample_move(rng)?.map(|mv| Choice { mv, value: None, info: String::new() })),
        Kind::Greedy => greedy(e, rng),
        Kind::AlphaBeta if e.game.players.len() == 2 => alphabeta::search(e, spec.budget, rng),
        // Alpha-beta is for two sides; with more, MCTS plays instead.
        Kind::AlphaBeta | Kind::Mcts => mcts::search(e, spec.budget, rng),
    }
}

/// A player's margin in a position: their score less the best of the others'.
pub(crate) fn margin(scores: &[i64], p: usize) -> i64 {
    let best_other = scores.iter().enumerate().filter(|(i, _)| *i != p).map(|(_, s)| *s).max().unwrap_or(0);
    scores[p] - best_other
}

/// The legal moves, or for a very large set a uniform sample of them.
pub(crate) fn candidate_moves(e: &mut Engine, rng: &mut ChaCha8Rng, most: usize) -> Result<Vec<Move>, Halt> {
    let n = e.count_moves()?;
    if n <= most as u128 {
        let mut out = Vec::new();
        e.legal_moves(&mut out)?;
        return Ok(out);
    }
    let mut out: Vec<Move> = Vec::with_capacity(most);
    for _ in 0..most * 4 {
        if out.len() >= most {
            break;
        }
        if let Some(m) = e.sample_move(rng)?
            && !out.contains(&m)
        {
            out.push(m);
        }
    }
    Ok(out)
}

/// The move that most improves the mover's margin at once; ties drawn at random.
fn greedy(e: &mut Engine, rng: &mut ChaCha8Rng) -> Result<Option<Choice>, Halt> {
    let me = e.to_move() as usize;
    let moves = candidate_moves(e, rng, 256)?;
    let mut best: Vec<(Move, i64)> = Vec::new();
    for mv in moves {
        e.apply(mv)?;
        let scores = e.scores();
        e.undo();
        let v = margin(&scores?, me);
        match best.first() {
            Some((_, b)) if v < *b => {}
            Some((_, b)) if v == *b => best.push((mv, v)),
            _ => best = vec![(mv, v)],
        }
    }
    if best.is_empty() {
        return Ok(None);
    }
    let (mv, v) = best[rng.gen_range(0..best.len())];
    Ok(Some(Choice { mv, value: Some(v as f64), info: "1 ply".into() }))
}
