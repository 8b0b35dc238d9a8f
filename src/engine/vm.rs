//! The executor's changing part: the position, the move being made, local
//! variables, the undo stack and the work budget. The compiled program
//! ([`super::program::Program`]) never changes and is shared; every closure
//! of it runs on a `Vm` passed to it as `&mut`.

use super::game::{PlayerId, SiteId, Value};
use super::hook_results::HookResults;
use super::{Halt, Move, Position, Turn};

/// A halt inside the engine: one word, `Illegal` without allocating and the
/// others boxed, so that a `Res<i64>` is returned in two registers. The
/// public functions give back a [`Halt`].
pub(crate) struct Fault(Option<Box<Halt>>);

impl Fault {
    pub(crate) const ILLEGAL: Fault = Fault(None);
    #[cold]
    pub(crate) fn error(m: String) -> Fault {
        Fault(Some(Box::new(Halt::Error(m))))
    }
    #[cold]
    pub(crate) fn at(m: String, span: crate::diagnostics::Span) -> Fault {
        Fault(Some(Box::new(Halt::At(m, span))))
    }
    pub(crate) fn is_illegal(&self) -> bool {
        self.0.is_none()
    }
    pub(crate) fn halt(self) -> Halt {
        match self.0 {
            None => Halt::Illegal,
            Some(h) => *h,
        }
    }
}

pub(crate) type Res<T> = Result<T, Fault>;

/// A scalar value during play is an `i64`: a number itself, a condition 0
/// or 1, a player, site or track by its index, and "none" (a player owning
/// no such site, a site with no owner) as [`NONE`]. The compiler has checked
/// every type, so the program knows which each value is.
pub(crate) const NONE: i64 = -1;
/// `last` before any sowing.
pub(crate) const NO_SITE: SiteId = SiteId::MAX;
/// `last-colour` before any sowing.
pub(crate) const NO_COLOUR: u8 = u8::MAX;

/// A set of sites during play: a fixed set of the game's tables, one site,
/// or a set computed during play (`(every pit where ...)`: bit `s` for site `s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetV {
    Fixed(u16),
    One(SiteId),
    Mask(u64),
}

impl SetV {
    pub(crate) fn value(self) -> Value {
        match self {
            SetV::Fixed(s) => Value::Set(s),
            SetV::One(s) => Value::Site(s),
            SetV::Mask(m) => Value::Mask(m),
        }
    }
}

/// What a move did, as its statements run.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub mover: PlayerId,
    pub next: PlayerId,
    /// Where the last counter of the latest sowing fell ([`NO_SITE`]: none yet).
    pub last: SiteId,
    pub last_colour: u8,
    pub again: bool,
    pub end: bool,
    pub enter: Option<u8>,
    /// The move's order of colours.
    pub order: u128,
    /// The site the latest lap of sowing was lifted from ([`NO_SITE`]: none yet).
    pub origin: SiteId,
    /// Whether a move is being made (so `before` has a position to read).
    pub moving: bool,
    /// `start P`: who begins the game or the next round.
    pub start: Option<PlayerId>,
}

impl Frame {
    pub(crate) fn new(mover: PlayerId) -> Frame {
        Frame {
            mover,
            next: mover,
            last: NO_SITE,
            last_colour: NO_COLOUR,
            again: false,
            end: false,
            enter: None,
            order: 0,
            origin: NO_SITE,
            moving: false,
            start: None,
        }
    }
}

/// A fingerprint of counts, the player to move and the phase: equal
/// positions, equal prints (different ones may share one; `repetitions`
/// then compares them in full). Each count times its own key, summed: the
/// products do not wait on each other (a print folded count by count, each
/// step waiting on the last, cost a tenth of a move in games that ask for
/// repetitions at every ply); then mixed with the turn. Counts and keys
/// are taken as 32-bit numbers whose products are summed in 64 bits: the
/// compiler multiplies two or four of them at once (a 64-bit product of
/// 64-bit keys is one at a time), and two prints still differ unless the
/// keys of the counts that differ cancel out exactly.
fn fingerprint(keys: &[u64], counts: &[i32], t: &Turn) -> u64 {
    let mut h = ((t.to_move as u64) << 8 | t.phase as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for (&c, &k) in counts.iter().zip(keys) {
        h = h.wrapping_add((c as u32 as u64).wrapping_mul(k as u32 as u64));
    }
    // SplitMix64's finaliser: the slot is taken from the high bits.
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// Slots of the prints of saved positions ([`Vm::repetitions`]): a
/// position whose slot holds none occurred nowhere before, without a scan.
const SEEN_BITS: u32 = 14;

#[inline(always)]
fn seen_slot(print: u64) -> usize {
    (print.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> (64 - SEEN_BITS)) as usize
}

/// Loop and sowing steps one call of the engine may take.
pub(crate) const FUEL: u64 = 20_000_000;

pub(crate) struct Vm {
    pub pos: Position,
    /// Colours of counters (1, or one per player), copied from the game.
    pub colours: usize,
    /// Local variables: scalars here, sets in `sets`, by the same slot.
    pub locals: Vec<i64>,
    pub sets: Vec<SetV>,
    pub f: Frame,
    undo_counts: Vec<i32>,
    undo_vars: Vec<Value>,
    /// Each saved position's turn, and the version of the state variables
    /// (see [`vars_changed`](Self::vars_changed)) when it was saved: one
    /// stack, one push a move.
    undo_turns: Vec<(Turn, u64)>,
    /// Which values the state variables hold: a number handed out anew at
    /// each change, and given back by an undo, so that equal versions mean
    /// equal values (what a sowing table made for the state's values asks).
    pub vars_version: u64,
    versions: u64,
    /// Whether anything may hold `vars_version` (the undo stack, a table
    /// made for the state): only then must a change hand out a new one, so
    /// that the many changes of one move (`each` sets a hand's count at
    /// every counter) cost one.
    pub vars_claimed: bool,
    /// A fingerprint of each saved position, made when `repetitions` first
    /// compares it, so that most comparisons are one number (only the rules
    /// that read `repetitions` pay for it). The prints fall in 2^SEEN_BITS
    /// slots: `seen` holds, for each slot, the newest saved position whose
    /// print falls in it (its index + 1; 0 for none, and empty until
    /// `repetitions` is read), and `undo_chain` the one before it in the
    /// same slot, so that `repetitions` compares only the positions of the
    /// slot (a long game's history was scanned whole at every move).
    undo_prints: Vec<u64>,
    undo_chain: Vec<u32>,
    seen: Vec<u32>,
    /// Reused buffers of moves (nothing is allocated once warm).
    pub scratch: Vec<Vec<Move>>,
    /// The candidates a random move is drawn from (reused buffers).
    pub candidates: super::draw::Candidates,
    /// Which of the moves being listed an `avoid` names (reused buffer).
    pub avoided: Vec<bool>,
    /// The sites a random move is drawn among (reused buffer).
    pub picked: Vec<SiteId>,
    /// Local variables and frames kept aside while `can-move` looks for moves.
    pub saved_locals: Vec<i64>,
    pub saved_sets: Vec<SetV>,
    pub depth: usize,
    /// Work left before the rules are stopped as running away: one unit per
    /// loop step and sowing step, refilled by every public call.
    pub fuel: u64,
    /// The game's seed, from which `random` draws.
    pub seed: u64,
    /// Draws made by `random` since the move (or scoring) began.
    pub draws: u64,
    /// Sites left out of the hash (empty: none), and whether the rules have
    /// read how many counters one of them holds since they were set.
    pub banks: Vec<bool>,
    pub bank_read: bool,
    /// The hash's keys with those of the banks' counts 0 (while there are banks).
    pub bank_keys: Vec<u64>,
    /// The values the choices' `where`s keep during a search for moves.
    pub memo: Memo,
    /// The sowing tables made for the state, by statement, track and mover
    /// (as `Program::sow_tables`; empty until one is made).
    pub kept: Vec<KeptTable>,
    /// Counts the changes of the position and of the moves behind it (each
    /// push and pop of the undo stack), so that a result kept for one
    /// position and history ([`Tried`]) is known to be stale.
    pub history: u64,
    /// The move last tried while drawing a random move, and what its
    /// statements made (see [`Tried`]).
    pub tried: Tried,
    /// The hooks' results, by their calls (a copy starts without them).
    pub hook_results: HookResults,
}

/// A move drawn at random that had to be tried first (a `require`, a lap
/// limit, a sowing off a linear track), and the position, frame and local
/// variables its statements left: making that move next, from the same
/// position with the same moves behind it and the same seed, takes them
/// instead of running the statements again (`play::apply_frame`). What the
/// statements make depends on nothing else (the work budget only stops a
/// move, and the tried one was not stopped; a hook answers by its arguments
/// alone).
/// The same position is known by the history alone, not by comparing
/// positions: whatever changes the position counts in the history, moves
/// and their undoing, and the statements `settle` runs in place
/// ([`Vm::changed_in_place`]).
#[derive(Clone, Default)]
pub(crate) struct Tried {
    pub mv: Option<Move>,
    pub history: u64,
    pub seed: u64,
    pub after: Position,
    /// Whether the statements changed a state variable (handed out a new
    /// version, see [`Vm::vars_changed`]).
    pub vars_changed: bool,
    pub frame: Option<Frame>,
    pub locals: Vec<i64>,
    pub sets: Vec<SetV>,
    pub bank_read: bool,
}

/// Where a sowing goes from each place on a track, its skip clauses
/// applied: `next[i]` is the place after place `i` (`next[len]`: the first,
/// for a source off the track), `program::sow::OFF` past the end of a
/// linear track; whether each place is skipped, and how many are not.
#[derive(Clone, Default)]
pub(crate) struct SowTable {
    pub next: Vec<u16>,
    pub skipped: Vec<bool>,
    pub live: usize,
    /// The same by site rather than by place, for a track that passes each
    /// site once (empty otherwise): the site after each site of the board
    /// (for a site off the track, the track's first live one).
    pub succ: Vec<u16>,
}

/// A sowing table whose skips read state (see `program/stmt.rs`): made for
/// the values `key` of the state they read, kept until those change.
/// `failed`: a skip went wrong for some site of the track, so the sowing
/// asks its skips site by site, as it reaches them, while the key holds.
#[derive(Clone, Default)]
pub(crate) struct KeptTable {
    pub key: Vec<Value>,
    /// The state's version when `key` was last found to be its values.
    pub version: u64,
    pub made: bool,
    pub failed: bool,
    pub tab: SowTable,
}

/// Kept values of the closed parts of the choices' `where`s (see
/// `program/memo.rs`): a value is good while its stamp is the search's
/// number `search`; 0 is no search (nothing kept).
#[derive(Clone, Default)]
pub(crate) struct Memo {
    pub search: u64,
    pub searches: u64,
    pub stamp: Vec<u64>,
    pub val: Vec<i64>,
    /// The steps of work each kept value took (see `program/memo.rs`'s
    /// `kept`), spent again at each read.
    pub steps: Vec<u64>,
}

impl Memo {
    pub(crate) fn new(n: usize) -> Memo {
        Memo { search: 0, searches: 0, stamp: vec![0; n], val: vec![0; n], steps: vec![0; n] }
    }

    /// Starts a search for moves with nothing kept; returns the number of
    /// the search around it, for [`Memo::end`].
    #[inline]
    pub(crate) fn begin(&mut self) -> u64 {
        let outer = self.search;
        self.searches += 1;
        self.search = self.searches;
        outer
    }

    #[inline]
    pub(crate) fn end(&mut self, outer: u64) {
        self.search = outer;
    }
}

impl Clone for Vm {
    fn clone(&self) -> Self {
        Vm {
            pos: self.pos.clone(),
            colours: self.colours,
            locals: self.locals.clone(),
            sets: self.sets.clone(),
            f: self.f,
            undo_counts: self.undo_counts.clone(),
            undo_vars: self.undo_vars.clone(),
            undo_turns: self.undo_turns.clone(),
            vars_version: self.vars_version,
            versions: self.versions,
            vars_claimed: true,
            undo_prints: self.undo_prints.clone(),
            undo_chain: self.undo_chain.clone(),
            seen: self.seen.clone(),
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            picked: vec![],
            saved_locals: vec![],
            saved_sets: vec![],
            depth: 0,
            fuel: FUEL,
            seed: self.seed,
            draws: 0,
            banks: self.banks.clone(),
            bank_read: self.bank_read,
            bank_keys: self.bank_keys.clone(),
            memo: Memo::new(self.memo.val.len()),
            kept: Vec::new(),
            history: self.history,
            tried: Tried::default(),
            hook_results: HookResults::default(),
        }
    }
}

impl Vm {
    pub(crate) fn new(sites: usize, colours: usize, state_slots: usize, locals: usize, seed: u64) -> Vm {
        let n = sites * colours;
        Vm {
            pos: Position { counts: vec![0; n], vars: vec![Value::None; state_slots], turn: Turn::default() },
            colours,
            locals: vec![0; locals],
            sets: vec![SetV::Mask(0); locals],
            f: Frame::new(0),
            undo_counts: Vec::with_capacity(n * 256),
            undo_vars: Vec::with_capacity(state_slots * 256),
            undo_turns: Vec::with_capacity(256),
            vars_version: 0,
            versions: 0,
            vars_claimed: true,
            undo_prints: Vec::new(),
            undo_chain: Vec::new(),
            seen: Vec::new(),
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            picked: vec![],
            saved_locals: vec![],
            saved_sets: vec![],
            depth: 0,
            fuel: FUEL,
            seed,
            draws: 0,
            banks: Vec::new(),
            bank_read: false,
            bank_keys: Vec::new(),
            memo: Memo::default(),
            kept: Vec::new(),
            history: 0,
            tried: Tried::default(),
            hook_results: HookResults::default(),
        }
    }

    /// Counters in a site, of every colour.
    #[inline(always)]
    pub(crate) fn count(&self, s: SiteId) -> i32 {
        held(&self.pos.counts, self.colours, s)
    }

    /// Counters of one colour (a player's) in a site.
    #[inline]
    pub(crate) fn colour_count(&self, s: SiteId, colour: PlayerId) -> i32 {
        let c = self.colours;
        if c == 1 {
            return self.pos.counts[s as usize];
        }
        self.pos.counts.get(s as usize * c + colour as usize).copied().unwrap_or(0)
    }

    #[inline(always)]
    pub(crate) fn add(&mut self, s: SiteId, colour: usize, n: i32) {
        let c = self.colours;
        self.pos.counts[s as usize * c + colour] += n;
    }

    /// Notes that the rules read how many counters `s` holds.
    #[inline(always)]
    pub(crate) fn read(&mut self, s: SiteId) {
        if !self.banks.is_empty() && self.banks.get(s as usize) == Some(&true) {
            self.bank_read = true;
        }
    }

    pub(crate) fn total_counters(&self) -> i64 {
        self.pos.counts.iter().map(|&c| c as i64).sum()
    }

    #[inline(always)]
    pub(crate) fn tick(&mut self) -> Res<()> {
        if self.fuel == 0 {
            return Err(out_of_fuel());
        }
        self.fuel -= 1;
        Ok(())
    }

    /// Takes `n` steps of work at once.
    #[inline(always)]
    pub(crate) fn spend(&mut self, n: u64) -> Res<()> {
        if self.fuel < n {
            self.fuel = 0;
            return Err(out_of_fuel());
        }
        self.fuel -= n;
        Ok(())
    }

    #[inline]
    pub(crate) fn push_undo(&mut self) {
        self.history += 1;
        self.undo_counts.extend_from_slice(&self.pos.counts);
        // Most games keep no state: no call to copy nothing.
        if !self.pos.vars.is_empty() {
            self.undo_vars.extend_from_slice(&self.pos.vars);
        }
        self.undo_turns.push((self.pos.turn, self.vars_version));
        self.vars_claimed = true;
    }

    /// Keeps what the statements of `mv`, just run by a trial from the
    /// position on the undo stack's top, made of it (see [`Tried`]),
    /// and undoes the trial. The position made is moved into the keeping,
    /// not copied: the undo writes the one before over the buffer it swaps
    /// out.
    pub(crate) fn keep_tried_and_undo(&mut self, mv: Move) {
        let t = &mut self.tried;
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        t.vars_changed = self.vars_version != self.undo_turns.last().expect("a trial pushes the position").1;
        // Buffers of the position's lengths, for `undo` to copy into.
        t.after.counts.resize(n, 0);
        t.after.vars.resize(v, Value::None);
        std::mem::swap(&mut t.after.counts, &mut self.pos.counts);
        std::mem::swap(&mut t.after.vars, &mut self.pos.vars);
        t.after.turn = self.pos.turn;
        t.frame = Some(self.f);
        // Field by field: the buffers kept from the last trial are reused.
        t.locals.clone_from(&self.locals);
        t.sets.clone_from(&self.sets);
        t.bank_read = self.bank_read;
        t.seed = self.seed;
        t.mv = Some(mv);
        self.undo();
        // The history the kept result is good for.
        self.tried.history = self.history;
    }

    /// Whether making `mv` now may take the kept result of its trial
    /// (forgotten either way: it is good for one move).
    #[inline(always)]
    pub(crate) fn take_tried(&mut self, mv: Move) -> bool {
        self.tried.mv.is_some() && self.take_kept(mv)
    }

    fn take_kept(&mut self, mv: Move) -> bool {
        let t = &mut self.tried;
        let kept = t.mv.take();
        kept == Some(mv) && t.history == self.history && t.seed == self.seed
    }

    /// To be called when statements change the position in place, not as
    /// a move (`settle`): a move kept from its trial is then stale.
    pub(crate) fn changed_in_place(&mut self) {
        self.history += 1;
    }

    /// Sets the position, frame and locals to those kept by the trial, the
    /// position before pushed on the undo stack. The kept position is
    /// swapped in, not copied (the keeping is good for one move, and
    /// `take_tried` has forgotten it).
    pub(crate) fn replay_tried(&mut self) {
        self.push_undo();
        let t = &mut self.tried;
        std::mem::swap(&mut self.pos.counts, &mut t.after.counts);
        let changed = t.vars_changed;
        if changed {
            std::mem::swap(&mut self.pos.vars, &mut t.after.vars);
        }
        self.pos.turn = t.after.turn;
        self.f = t.frame.expect("kept with the move");
        self.locals.copy_from_slice(&t.locals);
        self.sets.copy_from_slice(&t.sets);
        self.bank_read |= t.bank_read;
        if changed {
            self.vars_changed();
        }
    }

    /// To be called whenever a state variable may have changed: the state
    /// gets a version no other values have had, unless nothing holds the
    /// one it has.
    #[inline]
    pub(crate) fn vars_changed(&mut self) {
        if self.vars_claimed {
            self.versions += 1;
            self.vars_version = self.versions;
            self.vars_claimed = false;
        }
    }

    /// Unmakes the last move made. Returns false when there is none.
    #[inline]
    pub(crate) fn undo(&mut self) -> bool {
        let Some((t, version)) = self.undo_turns.pop() else {
            return false;
        };
        self.history += 1;
        self.forget_prints(self.undo_turns.len());
        let n = self.pos.counts.len();
        let at = self.undo_counts.len() - n;
        self.pos.counts.copy_from_slice(&self.undo_counts[at..]);
        self.undo_counts.truncate(at);
        let v = self.pos.vars.len();
        if v > 0 {
            let at = self.undo_vars.len() - v;
            self.pos.vars.copy_from_slice(&self.undo_vars[at..]);
            self.undo_vars.truncate(at);
        }
        self.vars_version = version;
        self.vars_claimed = true;
        self.pos.turn = t;
        true
    }

    /// The next number drawn from the game's seed. It depends only on the
    /// seed, the ply and how many draws this move made before, so a move that
    /// is tried and then made draws the same numbers both times.
    pub(crate) fn random(&mut self) -> u64 {
        self.draws += 1;
        let mut z = self.seed
            ^ (self.pos.turn.ply as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self.draws.wrapping_mul(0xD1B5_4A32_D192_ED03);
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// How many times the current position occurred before in this game
    /// (the same counters, state and player to move, in the same phase).
    /// `keys`: a key for each count (the program's hash keys).
    pub(crate) fn repetitions(&mut self, keys: &[u64]) -> usize {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        if self.seen.is_empty() {
            self.seen = vec![0; 1 << SEEN_BITS];
        }
        for k in self.undo_prints.len()..self.undo_turns.len() {
            let print = fingerprint(keys, &self.undo_counts[k * n..(k + 1) * n], &self.undo_turns[k].0);
            let slot = &mut self.seen[seen_slot(print)];
            self.undo_chain.push(*slot);
            *slot = k as u32 + 1;
            self.undo_prints.push(print);
        }
        let here = fingerprint(keys, &self.pos.counts, &self.pos.turn);
        let mut next = self.seen[seen_slot(here)];
        let mut times = 0;
        while next != 0 {
            let k = next as usize - 1;
            let t = self.undo_turns[k].0;
            if self.undo_prints[k] == here
                && t.to_move == self.pos.turn.to_move
                && t.phase == self.pos.turn.phase
                && self.undo_counts[k * n..(k + 1) * n] == self.pos.counts[..]
                && self.undo_vars[k * v..(k + 1) * v] == self.pos.vars[..]
            {
                times += 1;
            }
            next = self.undo_chain[k];
        }
        times
    }

    /// Drops the prints of the saved positions from the `keep`-th on.
    #[inline]
    fn forget_prints(&mut self, keep: usize) {
        while self.undo_prints.len() > keep {
            let print = self.undo_prints.pop().expect("longer than keep");
            let before = self.undo_chain.pop().expect("as long as the prints");
            self.seen[seen_slot(print)] = before;
        }
    }

    /// Swaps the position with the one saved last on the undo stack (the
    /// position before the move being made); swapping again swaps back.
    pub(crate) fn swap_with_saved(&mut self) -> bool {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        let Some((t, version)) = self.undo_turns.last_mut() else { return false };
        std::mem::swap(t, &mut self.pos.turn);
        std::mem::swap(version, &mut self.vars_version);
        self.history += 1;
        // The saved position changes: its fingerprint is made again.
        self.forget_prints(self.undo_turns.len() - 1);
        let at = self.undo_counts.len() - n;
        self.undo_counts[at..].swap_with_slice(&mut self.pos.counts);
        let at = self.undo_vars.len() - v;
        self.undo_vars[at..].swap_with_slice(&mut self.pos.vars);
        self.vars_claimed = true;
        true
    }

    /// An empty buffer from the pool.
    pub(crate) fn take_scratch(&mut self) -> Vec<Move> {
        let mut v = self.scratch.pop().unwrap_or_default();
        v.clear();
        v
    }
    pub(crate) fn give_scratch(&mut self, v: Vec<Move>) {
        self.scratch.push(v);
    }

    /// Keeps the local variables aside (for a search for moves inside an
    /// expression); [`restore_locals`](Self::restore_locals) brings them back.
    pub(crate) fn save_locals(&mut self) -> usize {
        let mark = self.saved_locals.len();
        self.saved_locals.extend_from_slice(&self.locals);
        self.saved_sets.extend_from_slice(&self.sets);
        mark
    }
    pub(crate) fn restore_locals(&mut self, mark: usize) {
        let n = self.locals.len();
        self.locals.copy_from_slice(&self.saved_locals[mark..mark + n]);
        self.saved_locals.truncate(mark);
        let m = self.saved_sets.len() - n;
        self.sets.copy_from_slice(&self.saved_sets[m..]);
        self.saved_sets.truncate(m);
    }
}

/// Counters in site `s`, of every colour, in `counts` of `colours` colours
/// (what [`Vm::count`] reads, for callers that hold another part of the Vm).
#[inline(always)]
pub(crate) fn held(counts: &[i32], colours: usize, s: SiteId) -> i32 {
    match colours {
        1 => counts[s as usize],
        c => counts[s as usize * c..(s as usize + 1) * c].iter().sum(),
    }
}

#[cold]
fn out_of_fuel() -> Fault {
    Fault::error(format!(
        "the rules ran for more than {FUEL} steps in one call: a loop that never ends, or loops nested too deep"
    ))
}

/// "Expected a site, but there is none here", and the like.
#[cold]
pub(crate) fn none_here(want: &str) -> Fault {
    Fault::error(format!(
        "expected {want}, but there is none here (a player owning no such site, or a site with no owner)"
    ))
}

/// Most values a range in a rule may run over during play.
pub(crate) const MAX_RANGE: i64 = 100_000;

pub(crate) fn check_range(lo: i64, hi: i64) -> Res<()> {
    if hi.saturating_sub(lo) >= MAX_RANGE {
        return Err(Fault::error(format!("the range {lo}..{hi} has more than {MAX_RANGE} values")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Vm after a trial of `mv` that emptied site 0 into site 1 (the
    /// position pushed, changed, kept, and undone, as `movegen` tries).
    fn tried() -> (Vm, Move) {
        let mut vm = Vm::new(3, 1, 1, 2, 7);
        vm.pos.counts.copy_from_slice(&[1, 2, 3]);
        let mv = Move { def: 0, args: [0; 4], order: 0 };
        vm.push_undo();
        vm.pos.counts[0] = 0;
        vm.pos.counts[1] = 3;
        vm.pos.vars[0] = Value::Int(4);
        vm.vars_changed();
        vm.f.last = 1;
        vm.keep_tried_and_undo(mv);
        (vm, mv)
    }

    #[test]
    fn a_kept_trial_is_made_from_once_and_taken_back_as_a_move() {
        let (mut vm, mv) = tried();
        assert!(vm.take_tried(mv));
        vm.replay_tried();
        assert_eq!((&vm.pos.counts[..], vm.pos.vars[0], vm.f.last), (&[0, 3, 3][..], Value::Int(4), 1));
        assert!(vm.undo());
        assert_eq!((&vm.pos.counts[..], vm.pos.vars[0]), (&[1, 2, 3][..], Value::None));
        // Good for one move only.
        assert!(!vm.take_tried(mv));
    }

    #[test]
    fn a_kept_trial_is_not_made_from_after_anything_changed() {
        let (mut vm, mv) = tried();
        assert!(!vm.take_tried(Move { def: 1, ..mv }), "another move");
        let (mut vm, mv) = tried();
        vm.push_undo();
        vm.undo();
        assert!(!vm.take_tried(mv), "the same position, other moves behind it");
        let (mut vm, mv) = tried();
        vm.seed = 8;
        assert!(!vm.take_tried(mv), "another seed");
        let (mut vm, mv) = tried();
        vm.pos.counts[2] = 0;
        vm.changed_in_place();
        assert!(!vm.take_tried(mv), "changed in place");
    }

    /// Whether a state variable changed is known from its version, not by
    /// comparing values: a trial that changes none keeps the version.
    #[test]
    fn a_kept_trial_that_changed_no_state_keeps_its_version() {
        let mut vm = Vm::new(3, 1, 1, 2, 7);
        let mv = Move { def: 0, args: [0; 4], order: 0 };
        vm.push_undo();
        vm.pos.counts[0] = 5;
        vm.keep_tried_and_undo(mv);
        let version = vm.vars_version;
        assert!(vm.take_tried(mv));
        vm.replay_tried();
        assert_eq!((vm.pos.counts[0], vm.vars_version), (5, version));
        let (mut vm, mv) = tried();
        let version = vm.vars_version;
        assert!(vm.take_tried(mv));
        vm.replay_tried();
        assert_ne!(vm.vars_version, version, "the state changed: a new version");
    }
}
