//! The executor: a position of a compiled [`Game`], its legal moves, making
//! and unmaking them, and the outcome. The game's rules are lowered once to
//! a [`Program`] of closures (`program/`), shared by every copy of an
//! engine; the changing part, the position with its undo stack and scratch
//! space, is a `Vm` (`vm.rs`). Move generation is `movegen.rs`, making moves
//! and scoring `play.rs`, move names `names.rs`. Making a move saves the
//! position on an undo stack that grows once and is reused, so the hot path
//! (legal moves, apply, undo) allocates nothing once warmed up.
//!
//! A move that chooses an order of colours (`arrangements`) may have
//! millions of siblings: [`Engine::count_moves`], [`Engine::sample_move`]
//! and [`Engine::find_move`] work on them without listing them.

pub mod arrange;
mod draw;
pub mod game;
mod hook_results;
mod movegen;
mod names;
mod play;
pub(crate) mod precheck;
pub mod program;
#[doc(hidden)]
pub mod reference;
mod vm;

use std::sync::Arc;

use game::*;
use program::Program;
use rand::Rng;
use vm::{FUEL, Fault, Vm};

/// A move: which move declaration, the values it chose, and the order of
/// colours it sows in (its rank among the arrangements, 0 if none). Small
/// and `Copy`. Laid out as written (`repr(C)`): in the order rustc chose,
/// a move drawn and passed on (`sample_move`'s `Result<Option<Move>,
/// Halt>`, unwrapped, then given to `apply`) was copied as 14 bytes by two
/// overlapping 8-byte moves, and each copy's loads stalled on the stores
/// of the copy before (README, "Speed").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Move {
    pub def: u16,
    pub args: [i32; 4],
    pub order: u128,
}

impl Move {
    /// The move a player makes when stuck and the rules say pass.
    pub const PASS: Move = Move { def: u16::MAX, args: [0; 4], order: 0 };
    pub fn is_pass(&self) -> bool {
        self.def == u16::MAX
    }
}

/// The scalar part of a position; the default is the first player's first
/// move, nothing ended or removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Turn {
    pub to_move: PlayerId,
    pub phase: u8,
    pub ply: u32,
    /// Set when an `end` condition or `end game` ended the game.
    pub ended: bool,
    /// Who won, when a rule decided it rather than the score.
    pub verdict: Verdict,
    /// Counters the rules have removed from the game (`remove`).
    pub removed: u32,
    /// Rounds finished, and who began this one.
    pub round: u16,
    pub starter: PlayerId,
}

/// How the winner of a finished game is found: by the score, or as a rule
/// named them (`end ... winner P`, `loser P`, `when stuck: lose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Verdict {
    #[default]
    Score,
    Wins(PlayerId),
    Loses(PlayerId),
}

/// A position: counters per site (per colour, `counts[site * colours +
/// colour]`), the state variables, and whose turn it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Position {
    pub counts: Vec<i32>,
    pub vars: Vec<Value>,
    pub turn: Turn,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub scores: Vec<i64>,
    /// The players with the highest score: one winner, or several sharing the
    /// win (all of them: a draw); or whom an `end ... winner`/`loser` names.
    /// Empty when nobody wins: the one player of a solitaire named the loser.
    pub winners: Vec<PlayerId>,
}

/// Why a move could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Halt {
    /// The move is not legal here (a `require` failed, a sowing ran off a
    /// linear track, a `take` asked for more than there is).
    Illegal,
    /// The rules went wrong at run time; the text says how.
    Error(String),
    /// The rules went wrong at a place in the rule file (a hook that failed).
    At(String, crate::diagnostics::Span),
}

/// The halt in words: why the move is refused, or what went wrong.
impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Halt::Illegal => f.write_str("the move is not legal here"),
            Halt::Error(e) | Halt::At(e, _) => f.write_str(e),
        }
    }
}

impl From<Fault> for Halt {
    fn from(f: Fault) -> Halt {
        f.halt()
    }
}

/// The multipliers of [`position_hash`]: one for each count of a position
/// of `n` counts and state slots together, then one for whose turn it is.
/// Odd, from SplitMix64, the same for every game of the same size.
pub(crate) fn hash_keys(n: usize) -> Vec<u64> {
    (0..=n as u64)
        .map(|i| {
            let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) | 1
        })
        .collect()
}

/// `keys` with the keys of the counts of the sites marked in `banks` made
/// 0, so that [`position_hash`] leaves those sites out.
pub(crate) fn keys_without(keys: &[u64], banks: &[bool], colours: usize) -> Vec<u64> {
    let n = banks.len() * colours;
    keys.iter().enumerate().map(|(i, &k)| if i < n && banks[i / colours] { 0 } else { k }).collect()
}

/// A hash of a position: each count and state value times its own
/// multiplier (0 for a site left out, see [`keys_without`]), summed, then
/// mixed. The products do not wait on each other (the hash of counts one
/// after another did), and a count that changes by `d` changes the sum by
/// `d` times its key.
pub(crate) fn position_hash(keys: &[u64], pos: &Position) -> u64 {
    let mut h: u64 = 0;
    for (&c, &k) in pos.counts.iter().zip(keys) {
        h = h.wrapping_add((c as i64 as u64).wrapping_mul(k));
    }
    let n = pos.counts.len();
    for (v, &k) in pos.vars.iter().zip(&keys[n..]) {
        let code = match *v {
            Value::None => 1 << 40,
            Value::Int(i) => i as u64 ^ (2 << 40),
            Value::Bool(b) => b as u64 ^ (3 << 40),
            Value::Player(p) => p as u64 ^ (4 << 40),
            Value::Site(s) => s as u64 ^ (5 << 40),
            Value::Set(s) => s as u64 ^ (6 << 40),
            Value::Track(t) => t as u64 ^ (7 << 40),
            Value::Mask(m) => m ^ (8 << 40),
        };
        h = h.wrapping_add(code.wrapping_mul(k));
    }
    let t = pos.turn;
    let verdict = match t.verdict {
        Verdict::Score => 0,
        Verdict::Wins(p) => 1 + p as u64,
        Verdict::Loses(p) => 257 + p as u64,
    };
    let turn = 1
        | (t.to_move as u64) << 1
        | (t.phase as u64) << 9
        | (t.ended as u64) << 17
        | verdict << 18
        | (t.starter as u64) << 28
        | (t.round as u64) << 36;
    h = h.wrapping_add(turn.wrapping_mul(keys[n + pos.vars.len()]));
    // A final avalanche, so that nearby positions spread over the table.
    h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h = (h ^ (h >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Where the draws of `random` start in setup, in scoring, in what is looked
/// at after a move (phase changes, `end`s) and after a position is set, so
/// that none repeats the numbers of a move made at the same ply.
const SETUP_DRAWS: u64 = 1 << 32;
const SCORE_DRAWS: u64 = 2 << 32;
const AFTER_DRAWS: u64 = 3 << 32;
const SETTLE_DRAWS: u64 = 4 << 32;

/// The first of the markers of a domain's parts (see [`where_draws`]).
pub(crate) const DOMAIN_PART: i64 = i64::MIN;

/// Where the draws of a `where` start when it is asked of a candidate: in a
/// stream of its own, given by the declaration `def` and the values chosen
/// so far, this one's last (as the move holds them), and by the ply (see
/// [`vm::Vm::random`]). A candidate's `where` so draws the same numbers
/// however often, and in whatever order, the moves are looked for. The
/// parts of a choice's domain draw likewise, from the values chosen before
/// it and [`DOMAIN_PART`]` + k` for part `k` (a range's bounds: 0 and 1).
/// The top bit keeps these streams apart from the others'.
pub(crate) fn where_draws(def: u16, values: impl Iterator<Item = i64>) -> u64 {
    // (The values of a domain's parts end in `DOMAIN_PART + k`: no value
    // chosen, which fits in 32 bits, is one.)
    let mut h = def as u64 ^ 0x5851_F42D_4C95_7F2D;
    for v in values {
        h = (h ^ v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h | 1 << 63
}

/// Most moves [`Engine::legal_moves`] lists; more must be counted, sampled or
/// found by name.
pub const MAX_LISTED: u128 = 1_000_000;

/// A game being played: the compiled rules (shared) and the position with
/// its history (owned). Cloning copies the position and shares the rules.
pub struct Engine {
    pub game: Arc<Game>,
    prog: Arc<Program>,
    /// On the heap wherever the engine is kept: the hot path stores to the
    /// frame and the budget while it reads the board, and a caller's stack
    /// placed at the wrong distance from the board (the same address bits
    /// below 4 KiB) made every such load wait for those stores (a playout
    /// ran a quarter of the time 30% slower, by where the stack fell).
    vm: Box<Vm>,
}

impl Clone for Engine {
    fn clone(&self) -> Self {
        Engine { game: self.game.clone(), prog: self.prog.clone(), vm: self.vm.clone() }
    }
}

impl Engine {
    /// A new game in its starting position (after `setup`), seed 0.
    pub fn new(game: Arc<Game>) -> Result<Self, Halt> {
        Engine::with_seed(game, 0)
    }

    /// A new game whose `random` draws come from `seed`.
    pub fn with_seed(game: Arc<Game>, seed: u64) -> Result<Self, Halt> {
        Engine::build(Arc::new(Program::new(game.clone())), game, seed)
    }

    /// A new game in its starting position whose `random` draws come from
    /// `seed`, of this engine's rules: what [`Engine::with_seed`] of its
    /// game makes, without compiling the rules again (the program is
    /// shared, as a clone shares it). Compiling a large rule file can cost a
    /// hundred times a random game of it (some 30 ms against a quarter of a
    /// millisecond): what plays many games makes each from one engine.
    pub fn new_game(&self, seed: u64) -> Result<Self, Halt> {
        Engine::build(self.prog.clone(), self.game.clone(), seed)
    }

    /// As [`Engine::with_seed`], but the closed parts of the choices'
    /// `where`s are worked out at every candidate, not once a search, and
    /// functions of a site at every use, not looked up in a table: for
    /// tests that the two agree.
    #[doc(hidden)]
    pub fn without_memos(game: Arc<Game>, seed: u64) -> Result<Self, Halt> {
        Engine::build(Arc::new(Program::lower(game.clone(), false)), game, seed)
    }

    /// How many memos the choices' `where`s keep their parts in once a
    /// search (slots: a part kept by count takes several, a pin's values
    /// eight).
    #[doc(hidden)]
    pub fn memos(&self) -> usize {
        self.prog.memos
    }

    /// The steps of work the last call took of its budget: the tests
    /// compare two ways of finding the same moves by it.
    #[doc(hidden)]
    pub fn work_spent(&self) -> u64 {
        FUEL - self.vm.fuel
    }

    fn build(prog: Arc<Program>, game: Arc<Game>, seed: u64) -> Result<Self, Halt> {
        let (slots, site_vars) = (game.state_slots(), game.site_state_slots());
        let mut vm = Vm::new(game.sites.len(), game.colours, slots, site_vars, prog.locals, seed);
        vm.memo = vm::Memo::new(prog.memos);
        let mut e = Engine { game, prog, vm: Box::new(vm) };
        // Setup draws from its own stream, apart from the first move's.
        e.vm.draws = SETUP_DRAWS;
        e.vm.f = vm::Frame::new(0);
        // Territory: each site's owner starts as its declaration says.
        if let Some((var, kind)) = e.game.territory {
            let offset = e.game.state[var as usize].offset;
            for (i, site) in e.game.sites.iter().enumerate() {
                if site.kind == kind {
                    e.vm.pos.vars[offset + i] = site.owner.map_or(Value::None, Value::Player);
                }
            }
            e.vm.site_vars_changed();
        }
        program::run(&e.prog.setup, &e.prog, &mut e.vm).map_err(Fault::halt)?;
        // `start P` in the setup: P begins.
        if let Some(p) = e.vm.f.start {
            e.vm.pos.turn.to_move = p;
        }
        e.vm.pos.turn.starter = e.vm.pos.turn.to_move;
        Ok(e)
    }

    pub fn position(&self) -> &Position {
        &self.vm.pos
    }

    /// Counters in a site, of every colour.
    pub fn site_count(&self, s: SiteId) -> i32 {
        self.vm.count(s)
    }

    /// Counters of one colour (a player's) in a site.
    pub fn colour_count(&self, s: SiteId, colour: PlayerId) -> i32 {
        self.vm.colour_count(s, colour)
    }

    /// Replaces the position (a position set from text). Like a move, the
    /// change is pushed on the undo stack, so [`undo`](Self::undo) reverts it.
    pub fn set_position(&mut self, pos: Position) -> Result<(), String> {
        let cur = &self.vm.pos;
        if pos.counts.len() != cur.counts.len() || pos.vars.len() != cur.vars.len() {
            return Err(format!("a position of {} counts, but this board has {}", pos.counts.len(), cur.counts.len()));
        }
        if pos.turn.to_move as usize >= self.game.players.len()
            || pos.turn.phase as usize >= self.game.phases.len().max(1)
        {
            return Err("no such player or phase".into());
        }
        if let Some(c) = pos.counts.iter().find(|&&c| c < 0) {
            return Err(format!("a count of {c}: counts cannot be negative"));
        }
        if pos.counts.iter().map(|&c| c as i64).sum::<i64>() > program::stmt::MAX_COUNT as i64 {
            return Err(format!("more than {} counters", program::stmt::MAX_COUNT));
        }
        self.vm.push_undo();
        self.vm.pos = pos;
        self.vm.site_vars_changed();
        Ok(())
    }

    /// After a position is set from text: if an `end` condition holds, its
    /// statements run and the game is over, as they would after a move.
    pub fn settle(&mut self) -> Result<(), Halt> {
        self.vm.fuel = FUEL;
        play::settle(&self.prog, &mut self.vm).map_err(Fault::halt)
    }

    pub fn to_move(&self) -> PlayerId {
        self.vm.pos.turn.to_move
    }

    /// A hash of the position (counters, state, whose turn, phase, whether
    /// ended; not the ply), for transposition tables.
    pub fn hash(&self) -> u64 {
        let keys = if self.vm.banks.is_empty() { &self.prog.hash_keys } else { &self.vm.bank_keys };
        position_hash(keys, &self.vm.pos)
    }

    /// Makes `sites` banks: sites that [`hash`](Self::hash) leaves out, for
    /// a table of positions that holds when what the banks hold makes no
    /// difference to the play. Whether it does is watched, not assumed:
    /// [`bank_read`](Self::bank_read) tells whether the rules have read a
    /// bank's count since (by `count`, or by sowing, taking or swapping
    /// from it; the score is not watched). An empty list ends it.
    pub fn set_banks(&mut self, sites: &[SiteId]) {
        self.vm.banks.clear();
        if !sites.is_empty() {
            self.vm.banks.resize(self.game.sites.len(), false);
            for &s in sites {
                self.vm.banks[s as usize] = true;
            }
        }
        self.vm.bank_keys = keys_without(&self.prog.hash_keys, &self.vm.banks, self.game.colours);
        self.vm.bank_read = false;
        // A move kept from its trial read the banks as they were then.
        self.vm.tried.mv = None;
    }

    /// Whether the rules have read a bank's count since
    /// [`set_banks`](Self::set_banks).
    pub fn bank_read(&self) -> bool {
        self.vm.bank_read
    }

    /// Counters on the board.
    pub fn total_counters(&self) -> i64 {
        self.vm.total_counters()
    }

    /// Counters the rules have removed from the game so far; with those on
    /// the board, as many as the setup put.
    pub fn removed(&self) -> i64 {
        self.vm.pos.turn.removed as i64
    }

    /// The legal moves of the player to move, into `out` (cleared first).
    /// Empty exactly when the game is over. Refuses (with an error) to list
    /// more than [`MAX_LISTED`].
    pub fn legal_moves(&mut self, out: &mut Vec<Move>) -> Result<(), Halt> {
        self.vm.fuel = FUEL;
        movegen::legal_moves(&self.prog, &mut self.vm, out).map_err(Fault::halt)
    }

    /// How many legal moves there are, without listing them when no `avoid`
    /// needs each one tried.
    pub fn count_moves(&mut self) -> Result<u128, Halt> {
        self.vm.fuel = FUEL;
        movegen::count_moves(&self.prog, &mut self.vm).map_err(Fault::halt)
    }

    /// A legal move drawn uniformly at random without listing them: a move
    /// that must be tried (or judged by an `avoid`) is tried only when drawn,
    /// and another drawn if it is refused (see `draw.rs`); `None` when the
    /// game is over. A rule error in a move is met only if that move is
    /// drawn: listing the moves tries them all and meets it at once.
    pub fn sample_move(&mut self, rng: &mut impl Rng) -> Result<Option<Move>, Halt> {
        self.vm.fuel = FUEL;
        movegen::sample_move(&self.prog, &mut self.vm, rng).map_err(Fault::halt)
    }

    /// Draws a move as [`sample_move`](Self::sample_move) does and makes it
    /// as [`apply`](Self::apply) does: the same move from the same draws,
    /// the same position after it, the same errors (on an error nothing is
    /// made); `None`, and nothing made, when the game is over. Faster for
    /// random playouts where a move must be tried to be drawn (a lap limit,
    /// a `require`): the trial that found the drawn move legal is the move
    /// made, not undone to be made again.
    pub fn play_random(&mut self, rng: &mut impl Rng) -> Result<Option<Move>, Halt> {
        self.vm.fuel = FUEL;
        let drawn = movegen::draw_move(&self.prog, &mut self.vm, rng, true).map_err(Fault::halt)?;
        let Some((mv, made)) = drawn else { return Ok(None) };
        // What follows has the work budget of a move made by `apply`.
        self.vm.fuel = FUEL;
        match made {
            movegen::Made::Whole => Ok(()),
            movegen::Made::Statements => play::finish_made(&self.prog, &mut self.vm),
            movegen::Made::No => play::apply_frame(&self.prog, &mut self.vm, mv),
        }
        .map_err(Fault::halt)?;
        Ok(Some(mv))
    }

    /// A summary of the legal moves: each group's name (the order of colours
    /// left out) and its number of orders.
    pub fn move_summary(&mut self) -> Result<Vec<(String, u128)>, Halt> {
        self.vm.fuel = FUEL;
        names::move_summary(&self.prog, &mut self.vm).map_err(Fault::halt)
    }

    /// The legal move that has this name; `None` if none has. A move with an
    /// order of colours matches its name with the order written out, or
    /// without it, meaning the default order (seat order).
    pub fn find_move(&mut self, name: &str) -> Result<Option<Move>, Halt> {
        self.vm.fuel = FUEL;
        names::find_move(&self.prog, &mut self.vm, name).map_err(Fault::halt)
    }

    /// The seed `random` draws from.
    pub fn seed(&self) -> u64 {
        self.vm.seed
    }

    /// Sets the seed `random` draws from (the game's `--seed`).
    pub fn set_seed(&mut self, seed: u64) {
        self.vm.seed = seed;
    }

    /// The glyph a site is drawn with: the first `glyph` whose condition holds.
    pub fn glyph(&mut self, s: SiteId) -> Option<String> {
        self.vm.fuel = FUEL;
        names::glyph(&self.prog, &mut self.vm, s)
    }

    /// Makes a move, which must be one of [`legal_moves`](Self::legal_moves).
    /// On an error the position is left as it was.
    pub fn apply(&mut self, mv: Move) -> Result<(), Halt> {
        self.vm.fuel = FUEL;
        play::apply_frame(&self.prog, &mut self.vm, mv).map_err(Fault::halt)
    }

    /// Unmakes the last move made. Returns false when there is none.
    pub fn undo(&mut self) -> bool {
        self.vm.undo()
    }

    /// The outcome, once the game is over (no legal moves).
    pub fn outcome(&mut self) -> Result<Option<Outcome>, Halt> {
        self.vm.fuel = FUEL;
        play::outcome(&self.prog, &mut self.vm).map_err(Fault::halt)
    }

    /// Each player's score in the current position.
    pub fn scores(&mut self) -> Result<Vec<i64>, Halt> {
        self.vm.fuel = FUEL;
        play::scores(&self.prog, &mut self.vm).map_err(Fault::halt)
    }

    /// One player's score now (partners share the first partner's), without
    /// allocating: the solver asks it at every node.
    pub fn score_of(&mut self, p: PlayerId) -> Result<i64, Halt> {
        self.vm.fuel = FUEL;
        play::score_of(&self.prog, &mut self.vm, p).map_err(Fault::halt)
    }

    /// The name a player types for a move: its declaration's template filled
    /// in, an order of colours written as the colours' letters.
    pub fn move_name(&mut self, mv: Move) -> String {
        names::move_name(&self.prog, &mut self.vm, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Config, compile_source};

    /// A new game made from an engine plays as a new engine of the same
    /// rules: the same position at every ply, the same moves drawn and the
    /// same outcome, with chance in the rules (tests/engine/mixed.mancala's
    /// `dice`), whatever the engine it is made from has played; and it
    /// shares that engine's program.
    #[test]
    fn a_new_game_of_an_engine_plays_as_a_new_engine() {
        use rand::SeedableRng;
        let cfg = Config { variants: vec!["dice".into()], settings: vec![] };
        let game = crate::compile::compile_file("tests/engine/mixed.mancala", &cfg);
        let game = Arc::new(game.unwrap_or_else(|f| panic!("{}", f.render(false))));
        let mut from = Engine::with_seed(game.clone(), 99).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
        for _ in 0..20 {
            let mv = from.sample_move(&mut rng).unwrap().expect("a move");
            from.apply(mv).unwrap();
        }
        let mut ends = Vec::new();
        for seed in 0..8 {
            let mut a = Engine::with_seed(game.clone(), seed).unwrap();
            let mut b = from.new_game(seed).unwrap();
            assert!(Arc::ptr_eq(&b.prog, &from.prog), "the program shared");
            let mut ra = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut rb = ra.clone();
            for ply in 0..2_000 {
                assert_eq!(a.position(), b.position(), "seed {seed} ply {ply}");
                let mv = a.sample_move(&mut ra).unwrap();
                assert_eq!(mv, b.sample_move(&mut rb).unwrap(), "seed {seed} ply {ply}");
                let Some(mv) = mv else { break };
                a.apply(mv).unwrap();
                b.apply(mv).unwrap();
            }
            assert_eq!(a.position(), b.position(), "seed {seed}");
            let outcome = format!("{:?}", a.outcome().unwrap());
            assert_eq!(outcome, format!("{:?}", b.outcome().unwrap()), "seed {seed}");
            ends.push((a.hash(), outcome));
        }
        ends.sort();
        ends.dedup();
        assert!(ends.len() > 1, "the seeds play different games: {ends:?}");
    }

    const FLAGS: &str = r#"game "Flags"
players south, north
pit a[1..2] owner south
store A owner south
pit b[1..2] owner north
store B owner north
track loop cyclic: a[1..2], A, b[1..2], B
state flag: condition
state mark of every pit: condition
setup {
  put 3 in every pit
  set flag = false
  set mark(a1) = false
  set mark(b1) = false
}
move sow "{h}" {
  choose h in every pit of mover where count(h) > 0 and h is pit and index(h) == 1
  sow h along loop
  set flag = false
  set mark(h) = false
}
move raise "raise {h}" {
  choose h in every pit of mover where count(h) > 0
  sow h along loop
  set mark(h) = true
}
score p: count(store(p))
"#;

    const KEPT: &str = r#"game "Kept"
players south, north
pit a[1..2] owner south
store A owner south
pit b[1..2] owner north
store B owner north
track loop cyclic: a[1..2], A, b[1..2], B
setup {
  put 2 in every pit
}
move sow "{h}" {
  choose h in every pit of mover where count(h) > 0
  sow h along loop relay while count(last) > 1 at most 50 laps
}
end bare when count(every pit of north) == 0 {
  take every pit of south to A
}
score p: count(store(p))
"#;

    /// A move drawn at random keeps what its trial made, for making it
    /// next; once `settle` has run an `end`'s statements on the position
    /// in place, that is stale and is not taken.
    #[test]
    fn a_kept_trial_is_stale_once_settle_changed_the_position() {
        let game = Arc::new(compile_source("kept", KEPT, &Config::default()).unwrap_or_else(|f| panic!("{f:?}")));
        let drawn = |settle: bool| {
            let mut e = Engine::with_seed(game.clone(), 1).unwrap();
            let mut pos = e.position().clone();
            pos.counts[3] = 0;
            pos.counts[4] = 0;
            e.set_position(pos).unwrap();
            let mv = e.sample_move(&mut rand::rngs::mock::StepRng::new(0, 1)).unwrap().expect("a move");
            if settle {
                e.settle().unwrap();
                assert_eq!(e.position().counts[..3], [0, 0, 4], "the end banked south's pits");
            }
            e.vm.take_tried(mv)
        };
        assert!(drawn(false), "kept for the move drawn");
        assert!(!drawn(true), "stale after settle");
    }

    /// A move tried on a board of thousands of sites spends work for the
    /// position its trial saves and gives back, in both executors: a
    /// listing that tries millions of such candidates (a fuzz campaign
    /// made one of 3,000 pits and three choices) stops at the budget in a
    /// second or so, not after minutes of copying.
    #[test]
    fn a_trial_on_a_wide_board_spends_work_for_its_position() {
        let text = r#"game "Wide"
players south, north
pit a[1..2000] owner south
store A owner south
pit b[1..2000] owner north
store B owner north
track loop cyclic: a[1..2000], A, b[1..2000], B
setup {
  put 1 in every pit
}
move sow "{h}" {
  choose h in every pit of mover where count(h) > 0
  sow h along loop relay while count(last) > 5 at most 5 laps
}
score p: count(store(p))
"#;
        let game = Arc::new(compile_source("wide", text, &Config::default()).unwrap_or_else(|f| panic!("{f:?}")));
        let mut new = Engine::with_seed(game.clone(), 1).unwrap();
        let mut old = reference::RefEngine::with_seed(game, 1).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        new.legal_moves(&mut a).unwrap();
        old.legal_moves(&mut b).unwrap();
        assert_eq!(a, b);
        // Each of south's 2,000 pits tried (a few steps each), and offered.
        assert_eq!(a.len(), 2000);
        let least = 2000 * vm::trial_work(new.position().counts.len());
        assert!(least >= 2000 * 60, "{least}");
        assert!(vm::FUEL - new.vm.fuel >= least, "compiled: {} spent", vm::FUEL - new.vm.fuel);
        assert!(vm::FUEL - old.fuel_left() >= least, "reference: {} spent", vm::FUEL - old.fuel_left());
    }

    /// A state variable set to the value it holds keeps the state's
    /// version (and so the sowing tables made for it); one set anew does not.
    #[test]
    fn a_value_set_to_what_it_holds_keeps_the_version() {
        let game = Arc::new(compile_source("flags", FLAGS, &Config::default()).unwrap_or_else(|f| panic!("{f:?}")));
        let mut e = Engine::with_seed(game, 1).unwrap();
        let mut moves = Vec::new();
        let mut first = |e: &mut Engine, def: u16| {
            e.legal_moves(&mut moves).unwrap();
            moves.iter().copied().find(|m| m.def == def).expect("a move of that declaration")
        };
        let sow = first(&mut e, 0);
        let before = e.vm.vars_version;
        e.apply(sow).unwrap();
        assert_eq!(e.vm.vars_version, before, "set to what they held");
        let raise = first(&mut e, 1);
        e.apply(raise).unwrap();
        assert_ne!(e.vm.vars_version, before, "set anew");
        let after = e.vm.vars_version;
        assert!(e.undo());
        assert_eq!(e.vm.vars_version, before, "given back by the undo");
        e.apply(raise).unwrap();
        assert_ne!(e.vm.vars_version, after, "a version is never handed out twice");
    }
}
