//! The executor's changing part: the position, the move being made, local
//! variables, the undo stack (`vm/undo.rs`) and the work budget. The compiled program
//! ([`super::program::Program`]) never changes and is shared; every closure
//! of it runs on a `Vm` passed to it as `&mut`.

use super::game::{PlayerId, SiteId, Value};
use super::hook_results::HookResults;
use super::{Halt, Move, Position, Turn};

mod tables;
mod undo;
pub(crate) use tables::{KeptTable, SowTable, SpareTables};
pub(crate) use undo::Tried;

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
    /// The error told at `span` (a statement's) if it has no place yet; a
    /// refusal as it is.
    #[inline]
    pub(crate) fn within(self, span: crate::diagnostics::Span) -> Fault {
        match self.0 {
            None => self,
            Some(h) => Fault(Some(placed(h, span))),
        }
    }
    pub(crate) fn halt(self) -> Halt {
        match self.0 {
            None => Halt::Illegal,
            Some(h) => *h,
        }
    }
}

/// An error without a place given `span`'s (see [`Fault::within`]).
#[cold]
fn placed(mut h: Box<Halt>, span: crate::diagnostics::Span) -> Box<Halt> {
    if let Halt::Error(m) = &mut *h {
        *h = Halt::At(std::mem::take(m), span);
    }
    h
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

/// Loop and sowing steps one call of the engine may take.
pub(crate) const FUEL: u64 = 20_000_000;

/// The steps a trial of a move takes besides its statements' own: one for
/// every 64 counts (sites times colours) of the position it saves and
/// gives back. A move tried on a board of thousands of sites copies its
/// counts twice, so a listing that tries millions of candidates would
/// otherwise run for minutes within the budget.
pub(crate) fn trial_work(counts: usize) -> u64 {
    (counts / 64) as u64
}

pub(crate) struct Vm {
    pub pos: Position,
    /// Colours of counters (1, or one per player), copied from the game.
    pub colours: usize,
    /// Local variables: scalars here, sets in `sets`, by the same slot.
    pub locals: Vec<i64>,
    pub sets: Vec<SetV>,
    pub f: Frame,
    undo_counts: Vec<i32>,
    /// Each saved position's turn, and the version of the state variables
    /// (see [`vars_changed`](Self::vars_changed)) when it was saved: one
    /// stack, one push a move.
    undo_turns: Vec<(Turn, u64)>,
    /// Where `site_vars` is not 0: where each saved position's values are,
    /// the offset of its copy of the values of one value in `undo_scalars`
    /// and the number of its copy of the per-site ones.
    undo_at: Vec<(u32, u32)>,
    /// Copies of the state's per-site values (the first `site_vars`), each
    /// `site_vars` long, and the version of the values each holds
    /// ([`site_vars_changed`](Self::site_vars_changed)): saved positions
    /// share a copy where they hold the same values (per-site state is the
    /// most of a position to copy, and most moves leave it as it is).
    undo_vars: Vec<Value>,
    copy_versions: Vec<u64>,
    /// Copies of the values of one value (the rest of `pos.vars`, all of
    /// it in a game without per-site state). With per-site state, shared
    /// the same way by the positions saved one after the other with the
    /// same version (a flag set once a game is not copied at every move);
    /// without, one a position (those games change theirs at most moves:
    /// counters in hand, where to resume).
    undo_scalars: Vec<Value>,
    /// How many of the state's values (the first) are of per-site state,
    /// saved in copies the saved positions share; 0 in a game without it,
    /// whose state is copied whole at every push.
    pub site_vars: usize,
    /// Which values the state variables hold: a number handed out anew at
    /// each change, and given back by an undo, so that equal versions mean
    /// equal values (what a sowing table made for the state's values asks).
    pub vars_version: u64,
    /// The same for the per-site values alone: a change of a value of one
    /// value keeps it, so that positions apart by one share a copy.
    pub sites_version: u64,
    versions: u64,
    /// Whether anything may hold `vars_version` (the undo stack, a table
    /// made for the state), or `sites_version` (a copy): only then must a
    /// change hand out a new one, so that the many changes of one move
    /// (`each` sets a hand's count at every counter) cost one.
    pub vars_claimed: bool,
    sites_claimed: bool,
    /// A fingerprint of each saved position, made when `repetitions` first
    /// compares it, so that most comparisons are one number (only the rules
    /// that read `repetitions` pay for it). The prints fall in slots (a
    /// power of two of them, more as the prints fill them): `seen` holds,
    /// for each slot, the newest saved position whose print falls in it
    /// (its index + 1; 0 for none, and empty until `repetitions` is read),
    /// and `undo_chain` the one before it in the same slot, so that
    /// `repetitions` compares only the positions of the slot (a long
    /// game's history was scanned whole at every move).
    undo_prints: Vec<u64>,
    undo_chain: Vec<u32>,
    seen: Vec<u32>,
    /// The last position `repetitions` asked about (counts, then the
    /// print with whose turn and phase): mostly the one saved before the
    /// next move, whose print it gives without being made again.
    last_counts: Vec<i32>,
    last_print: Option<(u64, PlayerId, u8)>,
    /// Reused buffers of moves (nothing is allocated once warm).
    pub scratch: Vec<Vec<Move>>,
    /// The candidates a random move is drawn from (reused buffers).
    pub candidates: super::draw::Candidates,
    /// Which of the moves being listed an `avoid` names (reused buffer).
    pub avoided: Vec<bool>,
    /// The sites a random move is drawn among (reused buffer).
    pub picked: Vec<SiteId>,
    /// The `end` whose first `and` term, a round's condition, was found
    /// false by the `end`s asked after this move (see `program/leads.rs`).
    pub lead_false: Option<u16>,
    /// What the phase's changes asked after this move found of an `end`'s
    /// first term, for the `end`s asked next (see [`PhaseLead`]).
    pub phase_lead: Option<PhaseLead>,
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
    /// Beside each of `kept`, tables made for other values of the state,
    /// for when those values come back.
    pub spare: Vec<SpareTables>,
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
            undo_at: self.undo_at.clone(),
            copy_versions: self.copy_versions.clone(),
            undo_scalars: self.undo_scalars.clone(),
            site_vars: self.site_vars,
            vars_version: self.vars_version,
            sites_version: self.sites_version,
            versions: self.versions,
            vars_claimed: true,
            sites_claimed: true,
            undo_prints: self.undo_prints.clone(),
            undo_chain: self.undo_chain.clone(),
            seen: self.seen.clone(),
            last_counts: self.last_counts.clone(),
            last_print: self.last_print,
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            picked: vec![],
            lead_false: None,
            phase_lead: None,
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
            spare: Vec::new(),
            history: self.history,
            tried: Tried::default(),
            hook_results: HookResults::default(),
        }
    }
}

impl Vm {
    /// A machine for a board of `sites` and `colours`, `state_slots` values
    /// of state of which the first `site_vars` are kept per site, and
    /// `locals` slots. The undo stacks start with room for 256 plies.
    pub(crate) fn new(
        sites: usize,
        colours: usize,
        state_slots: usize,
        site_vars: usize,
        locals: usize,
        seed: u64,
    ) -> Vm {
        let n = sites * colours;
        Vm {
            pos: Position { counts: vec![0; n], vars: vec![Value::None; state_slots], turn: Turn::default() },
            colours,
            locals: vec![0; locals],
            sets: vec![SetV::Mask(0); locals],
            f: Frame::new(0),
            undo_counts: Vec::with_capacity(n * 256),
            undo_vars: Vec::with_capacity(site_vars * 256),
            undo_turns: Vec::with_capacity(256),
            undo_at: Vec::with_capacity(256),
            copy_versions: Vec::with_capacity(256),
            undo_scalars: Vec::with_capacity((state_slots - site_vars) * 256),
            site_vars,
            vars_version: 0,
            sites_version: 0,
            versions: 0,
            vars_claimed: true,
            sites_claimed: true,
            undo_prints: Vec::new(),
            undo_chain: Vec::new(),
            seen: Vec::new(),
            last_counts: Vec::new(),
            last_print: None,
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            picked: vec![],
            lead_false: None,
            phase_lead: None,
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
            spare: Vec::new(),
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

    /// The next number drawn from the game's seed. It depends only on the
    /// seed, the ply and how many draws this move made before, so a move that
    /// is tried and then made draws the same numbers both times.
    pub(crate) fn random(&mut self) -> u64 {
        self.draws = self.draws.wrapping_add(1);
        let mut z = self.seed
            ^ (self.pos.turn.ply as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self.draws.wrapping_mul(0xD1B5_4A32_D192_ED03);
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
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
        self.saved_sets.extend_from_slice(&self.sets);
        self.save_values()
    }
    pub(crate) fn restore_locals(&mut self, mark: usize) {
        let m = self.saved_sets.len() - self.sets.len();
        self.sets.copy_from_slice(&self.saved_sets[m..]);
        self.saved_sets.truncate(m);
        self.restore_values(mark);
    }

    /// [`save_locals`](Self::save_locals) without the sets, which only a
    /// statement (`let`) changes: for a loop that runs none, only a
    /// `where`. [`restore_values`](Self::restore_values) brings them back.
    #[inline(always)]
    pub(crate) fn save_values(&mut self) -> usize {
        let mark = self.saved_locals.len();
        self.saved_locals.extend_from_slice(&self.locals);
        mark
    }
    #[inline(always)]
    pub(crate) fn restore_values(&mut self, mark: usize) {
        let n = self.locals.len();
        self.locals.copy_from_slice(&self.saved_locals[mark..mark + n]);
        self.saved_locals.truncate(mark);
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

/// The phase's changes asked after a move (`play.rs`'s `change_phase`)
/// found none that holds, and the one that is the first `and` terms of
/// `end` (see `program/leads.rs`) false, having spent `work` steps on it:
/// those terms are false of the same position, and asking them again would
/// spend as much.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct PhaseLead {
    pub end: u16,
    pub work: u64,
}

#[cold]
pub(crate) fn out_of_fuel() -> Fault {
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

/// The range a choice picks a number from (`names`: its move's name and
/// its own, for the error): as
/// [`check_range`], and every value one a move can hold (a move keeps its
/// choices in 32 bits).
#[inline(always)]
pub(crate) fn check_choice_range<'a>(lo: i64, hi: i64, names: impl FnOnce() -> (&'a str, &'a str)) -> Res<()> {
    check_range(lo, hi)?;
    if lo <= hi && (lo < i32::MIN as i64 || hi > i32::MAX as i64) {
        return Err(past_a_move(lo, hi, names));
    }
    Ok(())
}

/// The error of [`check_choice_range`], out of line: the names are looked
/// up only here, and the listing loop that inlines the check stays small.
#[cold]
#[inline(never)]
fn past_a_move<'a>(lo: i64, hi: i64, names: impl FnOnce() -> (&'a str, &'a str)) -> Fault {
    let (def, choice) = names();
    Fault::error(format!(
        "move `{def}`: the numbers {lo}..{hi} to choose `{choice}` from go past what a move can hold ({}..{})",
        i32::MIN,
        i32::MAX
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Vm after a trial of `mv` that emptied site 0 into site 1 (the
    /// position pushed, changed, kept, and undone, as `movegen` tries).
    fn tried() -> (Vm, Move) {
        let mut vm = Vm::new(3, 1, 1, 0, 2, 7);
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

    /// A move kept whole (drawn past an `avoid`) says so when made from,
    /// and gives back the draws it had made; a trial's is not whole.
    #[test]
    fn a_move_kept_whole_says_nothing_is_left_to_make() {
        let (mut vm, mv) = tried();
        assert!(vm.take_tried(mv));
        assert!(!vm.replay_tried(), "a trial's statements alone");
        let mut vm = Vm::new(3, 1, 1, 0, 2, 7);
        vm.push_undo();
        vm.pos.counts[0] = 5;
        vm.pos.turn.ply += 1;
        vm.draws = 9;
        vm.keep_frame();
        vm.draws = 12;
        vm.keep_made_and_undo(mv, true);
        assert_eq!((vm.pos.counts[0], vm.pos.turn.ply), (0, 0));
        assert!(vm.take_tried(mv));
        assert!(vm.replay_tried(), "made whole");
        assert_eq!((vm.pos.counts[0], vm.pos.turn.ply, vm.draws), (5, 1, 9));
    }

    /// Positions saved one after the other with the same values of one
    /// value share their copy (a copy a change) in games with per-site
    /// state; without, each has its own. Each undo gives back the values
    /// its position had, and looking at the position before the move
    /// (`before`) swaps a shared copy without changing the one below.
    #[test]
    fn saved_positions_share_the_copies_of_values_they_did_not_change() {
        let v = |x: [i64; 4]| x.map(|i| if i < 0 { Value::None } else { Value::Int(i) });
        for site_vars in [0, 2] {
            let mut vm = Vm::new(3, 1, 4, site_vars, 2, 7);
            let mut seen = vec![vm.pos.vars.clone()];
            // Ply 1 changes a value, 2 nothing, 3 another value, 4 a per-site one.
            for (slot, value) in [(Some(2), 1), (None, 0), (Some(3), 5), (Some(0), 8)] {
                vm.push_undo();
                if let Some(slot) = slot {
                    vm.pos.vars[slot] = Value::Int(value);
                    if slot < site_vars { vm.site_vars_changed() } else { vm.vars_changed() }
                }
                seen.push(vm.pos.vars.clone());
            }
            let m = 4 - site_vars;
            // Where each position's values of one value are.
            let at: Vec<usize> = match site_vars {
                0 => (0..4).map(|k| k * m).collect(),
                _ => vm.undo_at.iter().map(|a| a.0 as usize).collect(),
            };
            if site_vars > 0 {
                assert_ne!(at[1], at[0], "ply 1 changed a value: ply 2 copies anew");
                assert_eq!(at[2], at[1], "ply 2 changed nothing: ply 3 shares its copy");
                assert_eq!(vm.undo_scalars.len(), 3 * m, "four positions, three copies");
            } else {
                assert_eq!(vm.undo_scalars.len(), 4 * m, "without per-site state, a copy a position");
            }
            assert_eq!(seen[4], v([8, -1, 1, 5]));
            // Before ply 4 and back; before ply 3, whose copy ply 2 shares.
            assert!(vm.swap_with_saved());
            assert_eq!(vm.pos.vars, seen[3]);
            assert!(vm.swap_with_saved());
            assert_eq!(vm.pos.vars, seen[4]);
            assert!(vm.undo());
            assert!(vm.swap_with_saved());
            assert_eq!(vm.pos.vars, seen[2]);
            // What is read meanwhile (`repetitions`) finds ply 2's values in its copy.
            assert_eq!(vm.undo_scalars[at[1]..at[1] + m], seen[1][site_vars..], "the copy below kept");
            assert!(vm.swap_with_saved());
            assert_eq!(vm.pos.vars, seen[3]);
            for k in (0..3).rev() {
                assert!(vm.undo());
                assert_eq!(vm.pos.vars, seen[k], "undone to before ply {}", k + 1);
            }
            assert!(vm.undo_scalars.is_empty() && vm.undo_vars.is_empty(), "every copy dropped");
        }
    }

    /// A trial that changed a value of one value but no per-site one keeps
    /// that value alone, and making the move from it puts it in place
    /// beside the per-site values, which stay; one that changed a per-site
    /// value keeps them all.
    #[test]
    fn a_kept_trial_keeps_the_values_that_changed() {
        let mv = Move { def: 0, args: [0; 4], order: 0 };
        for per_site in [false, true] {
            let mut vm = Vm::new(3, 1, 4, 3, 2, 7);
            vm.pos.vars[1] = Value::Bool(true);
            vm.push_undo();
            vm.pos.vars[3] = Value::Int(4);
            vm.vars_changed();
            if per_site {
                vm.pos.vars[2] = Value::Player(1);
                vm.site_vars_changed();
            }
            vm.keep_tried_and_undo(mv);
            let before = [Value::None, Value::Bool(true), Value::None, Value::None];
            assert_eq!(vm.pos.vars, before);
            assert_eq!(vm.tried.after.vars.len(), if per_site { 4 } else { 1 });
            assert!(vm.take_tried(mv));
            vm.replay_tried();
            let site = if per_site { Value::Player(1) } else { Value::None };
            assert_eq!(vm.pos.vars, [Value::None, Value::Bool(true), site, Value::Int(4)]);
            assert!(vm.undo());
            assert_eq!(vm.pos.vars, before);
        }
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
        let mut vm = Vm::new(3, 1, 1, 0, 2, 7);
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
