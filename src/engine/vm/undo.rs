//! The undo stack: the positions saved before the moves being made, a move
//! taken back, a trial's result kept for making the move next, the state's
//! versions, the position before a move (`before`) and how often a
//! position occurred (`repetitions`).

use super::super::game::Value;
use super::super::{Move, Position, Turn};
use super::{Frame, SetV, Vm};

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
/// At first 2^MIN_SEEN_BITS of them (a kilobyte, which stays in the
/// nearest cache: a table of 2^14 slots, 64 kilobytes, missed it on most
/// looks, a third of the time `repetitions` took in a game of two rows of
/// six), four times as many whenever the prints fill half of them.
const MIN_SEEN_BITS: u32 = 8;

/// The slot of `print` among `slots` (a power of two, at most 2^32): the
/// low bits of the high half of its product with a constant. A shift by
/// a fixed amount: one by the table's size took a register of its own,
/// and every undo saved two more (four instructions of a short game's
/// ply, in games that read no `repetitions` too).
#[inline(always)]
fn seen_slot(print: u64, slots: usize) -> usize {
    (print.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32) as usize & (slots - 1)
}

/// A move drawn at random that had to be tried first (a `require`, a lap
/// limit, a sowing off a linear track), and the position, frame and local
/// variables its statements left: making that move next, from the same
/// position with the same moves behind it and the same seed, takes them
/// instead of running the statements again (`play::apply_frame`). What the
/// statements make depends on nothing else (the work budget only stops a
/// move, and the tried one was not stopped; a hook answers by its arguments
/// alone). A move drawn that an `avoid` looked at was made whole, what
/// follows its statements too (`whole`): making it takes all of that.
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
    /// version, see [`Vm::vars_changed`]), and a per-site one.
    pub vars_changed: bool,
    pub sites_changed: bool,
    pub frame: Option<Frame>,
    pub locals: Vec<i64>,
    pub sets: Vec<SetV>,
    pub bank_read: bool,
    /// The draws made by then (see [`Vm::random`]).
    pub draws: u64,
    /// Made whole: what follows a move's statements (the turn, `end`s,
    /// rounds) was made too.
    pub whole: bool,
}

impl Vm {
    #[inline(always)]
    pub(crate) fn push_undo(&mut self) {
        self.history += 1;
        self.undo_counts.extend_from_slice(&self.pos.counts);
        // Most games keep no state: nothing to copy or share.
        if !self.pos.vars.is_empty() {
            if self.site_vars > 0 {
                self.save_vars();
            } else {
                // All of it at every push: the games without per-site state
                // change theirs at most moves (asking whether to share a
                // copy cost them more than it saved).
                self.undo_scalars.extend_from_slice(&self.pos.vars);
            }
        }
        self.undo_turns.push((self.pos.turn, self.vars_version));
        self.vars_claimed = true;
    }

    /// Saves the state's values for a position pushed now, in a game with
    /// per-site state: in the copies saved last if they hold its values
    /// (the same version), else in new ones; and where they are.
    #[inline(always)]
    fn save_vars(&mut self) {
        let ps = self.site_vars;
        // The copy saved last is the one of the position on top.
        if self.copy_versions.last() != Some(&self.sites_version) {
            self.copy_sites();
        }
        let sites = (self.copy_versions.len() - 1) as u32;
        self.sites_claimed = true;
        let mut scalars = 0;
        if ps < self.pos.vars.len() {
            scalars = match (self.undo_turns.last(), self.undo_at.last()) {
                (Some(t), Some(at)) if t.1 == self.vars_version => at.0,
                _ => self.copy_scalars(),
            };
        }
        self.undo_at.push((scalars, sites));
    }

    #[inline(never)]
    fn copy_sites(&mut self) {
        self.undo_vars.extend_from_slice(&self.pos.vars[..self.site_vars]);
        self.copy_versions.push(self.sites_version);
    }

    /// A new copy of the values of one value: its offset.
    #[inline(always)]
    fn copy_scalars(&mut self) -> u32 {
        let at = self.undo_scalars.len() as u32;
        self.undo_scalars.extend_from_slice(&self.pos.vars[self.site_vars..]);
        at
    }

    /// Keeps what the statements of `mv`, just run by a trial from the
    /// position on the undo stack's top, made of it (see [`Tried`]),
    /// and undoes the trial.
    pub(crate) fn keep_tried_and_undo(&mut self, mv: Move) {
        self.keep_frame();
        self.keep_made_and_undo(mv, false);
    }

    /// Keeps the frame, locals, sets and draws of the move just made or
    /// tried, before anything else is asked of the position it made: the
    /// first half of keeping it ([`keep_made_and_undo`](Self::keep_made_and_undo)
    /// is the second).
    pub(crate) fn keep_frame(&mut self) {
        let t = &mut self.tried;
        t.frame = Some(self.f);
        // Field by field: the buffers kept from the last trial are reused.
        t.locals.clone_from(&self.locals);
        t.sets.clone_from(&self.sets);
        t.bank_read = self.bank_read;
        t.draws = self.draws;
    }

    /// Keeps the position `mv` made from the one on the undo stack's top
    /// (made `whole` or by its statements alone), its frame kept already
    /// ([`keep_frame`](Self::keep_frame)), and undoes it. The position made
    /// is moved into the keeping, not copied: the undo writes the one
    /// before over the buffer it swaps out.
    pub(crate) fn keep_made_and_undo(&mut self, mv: Move, whole: bool) {
        let t = &mut self.tried;
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        t.vars_changed = self.vars_version != self.undo_turns.last().expect("a trial pushes the position").1;
        t.sites_changed = self.site_vars > 0
            && self.sites_version != *self.copy_versions.last().expect("a trial pushes the position");
        // Buffers of the position's lengths, for `undo` to copy into (the
        // state only if it changed: else it already holds the values the
        // undo gives back, and a shared copy is not copied back at all).
        t.after.counts.resize(n, 0);
        std::mem::swap(&mut t.after.counts, &mut self.pos.counts);
        if t.vars_changed && (self.site_vars == 0 || t.sites_changed) {
            t.after.vars.resize(v, Value::None);
            std::mem::swap(&mut t.after.vars, &mut self.pos.vars);
        } else if t.vars_changed {
            // Only values of one value changed: the undo copies those
            // back, not the per-site ones, so they stay in place; they
            // alone are kept (the per-site ones may be thousands).
            t.after.vars.clear();
            t.after.vars.extend_from_slice(&self.pos.vars[self.site_vars..]);
        }
        t.after.turn = self.pos.turn;
        t.whole = whole;
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
    /// `take_tried` has forgotten it). Whether the move was kept whole
    /// (nothing of it is left to make).
    pub(crate) fn replay_tried(&mut self) -> bool {
        self.push_undo();
        let t = &mut self.tried;
        std::mem::swap(&mut self.pos.counts, &mut t.after.counts);
        let (changed, sites_changed) = (t.vars_changed, t.sites_changed);
        if changed && (self.site_vars == 0 || sites_changed) {
            std::mem::swap(&mut self.pos.vars, &mut t.after.vars);
        } else if changed {
            // The values of one value alone were kept.
            self.pos.vars[self.site_vars..].copy_from_slice(&t.after.vars);
        }
        self.pos.turn = t.after.turn;
        self.f = t.frame.expect("kept with the move");
        self.locals.copy_from_slice(&t.locals);
        self.sets.copy_from_slice(&t.sets);
        self.bank_read |= t.bank_read;
        self.draws = t.draws;
        let whole = t.whole;
        if changed {
            self.vars_changed();
        }
        if sites_changed {
            self.new_sites_version();
        }
        whole
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

    /// To be called whenever a per-site state variable may have changed:
    /// both versions change.
    #[inline]
    pub(crate) fn site_vars_changed(&mut self) {
        self.vars_changed();
        self.new_sites_version();
    }

    /// Something (a sowing table) now holds the state's version, or the
    /// per-site values' version if `sites`: a change must hand out another.
    #[inline(always)]
    pub(crate) fn claim_versions(&mut self, sites: bool) {
        if sites {
            self.sites_claimed = true;
        } else {
            self.vars_claimed = true;
        }
    }

    #[inline]
    fn new_sites_version(&mut self) {
        if self.sites_claimed {
            self.versions += 1;
            self.sites_version = self.versions;
            self.sites_claimed = false;
        }
    }

    /// Unmakes the last move made. Returns false when there is none.
    #[inline]
    pub(crate) fn undo(&mut self) -> bool {
        let Some((turn, version)) = self.undo_turns.pop() else {
            return false;
        };
        self.history += 1;
        self.forget_prints(self.undo_turns.len());
        let n = self.pos.counts.len();
        let at = self.undo_counts.len() - n;
        self.pos.counts.copy_from_slice(&self.undo_counts[at..]);
        self.undo_counts.truncate(at);
        let v = self.pos.vars.len();
        if self.site_vars > 0 {
            self.restore_vars(version);
        } else if v > 0 {
            let at = self.undo_scalars.len() - v;
            self.pos.vars.copy_from_slice(&self.undo_scalars[at..]);
            self.undo_scalars.truncate(at);
        }
        self.vars_version = version;
        self.vars_claimed = true;
        self.pos.turn = turn;
        true
    }

    /// Sets the state's values to those of the position just popped (saved
    /// with `version`) from its copies, in a game with per-site state (the
    /// same version: the same values, nothing copied back), and drops the
    /// copies the position below does not share. Not inlined: the undo of
    /// games without per-site state stays as small as it was.
    #[inline(never)]
    fn restore_vars(&mut self, version: u64) {
        let (scalars, sites) = self.undo_at.pop().expect("one a saved position");
        let below = self.undo_at.last().copied();
        let (ps, v) = (self.site_vars, self.pos.vars.len());
        let copy = sites as usize;
        if self.copy_versions[copy] != self.sites_version {
            self.restore_sites(copy);
        }
        self.sites_claimed = true;
        if below.map(|b| b.1) != Some(sites) {
            self.copy_versions.truncate(copy);
            self.undo_vars.truncate(copy * ps);
        }
        if ps < v {
            let at = scalars as usize;
            if version != self.vars_version {
                self.pos.vars[ps..].copy_from_slice(&self.undo_scalars[at..at + v - ps]);
            }
            if below.map(|b| b.0) != Some(scalars) {
                self.undo_scalars.truncate(at);
            }
        }
    }

    #[inline(never)]
    fn restore_sites(&mut self, copy: usize) {
        let ps = self.site_vars;
        self.pos.vars[..ps].copy_from_slice(&self.undo_vars[copy * ps..(copy + 1) * ps]);
        self.sites_version = self.copy_versions[copy];
    }

    /// How many times the current position occurred before in this game
    /// (the same counters, state and player to move, in the same phase).
    /// `keys`: a key for each count (the program's hash keys).
    pub(crate) fn repetitions(&mut self, keys: &[u64]) -> usize {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        if self.seen.is_empty() {
            self.seen = vec![0; 1 << MIN_SEEN_BITS];
        }
        for k in self.undo_prints.len()..self.undo_turns.len() {
            if 2 * k >= self.seen.len() {
                self.grow_seen();
            }
            let (counts, t) = (&self.undo_counts[k * n..(k + 1) * n], &self.undo_turns[k].0);
            // The position asked about last, saved since: its print is
            // known (comparing the counts costs a fraction of a print).
            let print = match self.last_print {
                Some((print, to_move, phase))
                    if t.to_move == to_move && t.phase == phase && self.last_counts[..] == counts[..] =>
                {
                    print
                }
                _ => fingerprint(keys, counts, t),
            };
            let slots = self.seen.len();
            let slot = &mut self.seen[seen_slot(print, slots)];
            self.undo_chain.push(*slot);
            *slot = k as u32 + 1;
            self.undo_prints.push(print);
        }
        let here = fingerprint(keys, &self.pos.counts, &self.pos.turn);
        if self.last_counts.len() == n {
            self.last_counts.copy_from_slice(&self.pos.counts);
        } else {
            self.last_counts.clear();
            self.last_counts.extend_from_slice(&self.pos.counts);
        }
        self.last_print = Some((here, self.pos.turn.to_move, self.pos.turn.phase));
        let mut next = self.seen[seen_slot(here, self.seen.len())];
        let mut times = 0;
        while next != 0 {
            let k = next as usize - 1;
            let t = self.undo_turns[k].0;
            if self.undo_prints[k] == here
                && t.to_move == self.pos.turn.to_move
                && t.phase == self.pos.turn.phase
                && self.undo_counts[k * n..(k + 1) * n] == self.pos.counts[..]
                && self.saved_vars_equal(k, v)
            {
                times += 1;
            }
            next = self.undo_chain[k];
        }
        times
    }

    /// Four times as many slots, the prints made so far chained in them
    /// again, oldest first: each slot holds its newest, each chain goes
    /// from newer to older, as [`Self::repetitions`] leaves them.
    #[inline(never)]
    fn grow_seen(&mut self) {
        let slots = self.seen.len() * 4;
        self.seen.clear();
        self.seen.resize(slots, 0);
        for (k, &print) in self.undo_prints.iter().enumerate() {
            let slot = &mut self.seen[seen_slot(print, slots)];
            self.undo_chain[k] = *slot;
            *slot = k as u32 + 1;
        }
    }

    /// Whether the `k`-th saved position's state holds the current values
    /// (`v` of them).
    fn saved_vars_equal(&self, k: usize, v: usize) -> bool {
        let ps = self.site_vars;
        if ps == 0 {
            return self.undo_scalars[k * v..(k + 1) * v] == self.pos.vars[..];
        }
        let (at, copy) = (self.undo_at[k].0 as usize, self.undo_at[k].1 as usize);
        self.undo_vars[copy * ps..(copy + 1) * ps] == self.pos.vars[..ps]
            && self.undo_scalars[at..at + v - ps] == self.pos.vars[ps..]
    }

    /// Drops the prints of the saved positions from the `keep`-th on,
    /// newest first: each slot back to what it held before.
    #[inline]
    fn forget_prints(&mut self, keep: usize) {
        while self.undo_prints.len() > keep {
            let print = self.undo_prints.pop().expect("longer than keep");
            let before = self.undo_chain.pop().expect("as long as the prints");
            let slots = self.seen.len();
            self.seen[seen_slot(print, slots)] = before;
        }
    }

    /// Swaps the position with the one saved last on the undo stack (the
    /// position before the move being made); swapping again swaps back.
    pub(crate) fn swap_with_saved(&mut self) -> bool {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        let Some((t, version)) = self.undo_turns.last_mut() else { return false };
        // The same version: the same values, not swapped.
        let same = *version == self.vars_version;
        std::mem::swap(t, &mut self.pos.turn);
        std::mem::swap(version, &mut self.vars_version);
        self.history += 1;
        let top = self.undo_turns.len() - 1;
        // The saved position changes: its fingerprint is made again.
        self.forget_prints(top);
        let at = self.undo_counts.len() - n;
        self.undo_counts[at..].swap_with_slice(&mut self.pos.counts);
        let ps = self.site_vars;
        if ps == 0 {
            let at = self.undo_scalars.len() - v;
            self.undo_scalars[at..].swap_with_slice(&mut self.pos.vars);
            self.vars_claimed = true;
            return true;
        }
        // A copy shared with the position saved below is copied first: that
        // one must keep its values. The top position's copies are the last.
        let shared = |vm: &Vm, f: fn((u32, u32)) -> u32| top > 0 && f(vm.undo_at[top - 1]) == f(vm.undo_at[top]);
        let mut copy = self.undo_at[top].1 as usize;
        if self.copy_versions[copy] != self.sites_version {
            if shared(self, |a| a.1) {
                self.undo_vars.extend_from_within(copy * ps..(copy + 1) * ps);
                self.copy_versions.push(self.copy_versions[copy]);
                copy += 1;
                self.undo_at[top].1 = copy as u32;
            }
            self.undo_vars[copy * ps..(copy + 1) * ps].swap_with_slice(&mut self.pos.vars[..ps]);
            std::mem::swap(&mut self.copy_versions[copy], &mut self.sites_version);
        }
        self.sites_claimed = true;
        if ps < v && !same {
            let mut at = self.undo_at[top].0 as usize;
            if shared(self, |a| a.0) {
                self.undo_scalars.extend_from_within(at..at + v - ps);
                at += v - ps;
                self.undo_at[top].0 = at as u32;
            }
            self.undo_scalars[at..at + v - ps].swap_with_slice(&mut self.pos.vars[ps..]);
        }
        self.vars_claimed = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::Vm;
    use super::seen_slot;

    /// The count over the saved positions that `repetitions` stands for.
    fn scan(vm: &Vm, history: &[(Vec<i32>, u8)]) -> usize {
        history.iter().filter(|(c, m)| *c == vm.pos.counts && *m == vm.pos.turn.to_move).count()
    }

    /// Each slot's chain, from the slot on: prints of that slot alone,
    /// newest first, and all of them in one chain or another.
    fn assert_chained(vm: &Vm) {
        let mut chained = 0;
        for (s, &first) in vm.seen.iter().enumerate() {
            let mut next = first;
            while next != 0 {
                let k = next as usize - 1;
                assert_eq!(seen_slot(vm.undo_prints[k], vm.seen.len()), s, "print {k} chained from slot {s}");
                assert!(vm.undo_chain[k] < next, "print {k}: the chain goes to older prints");
                (next, chained) = (vm.undo_chain[k], chained + 1);
            }
        }
        assert_eq!(chained, vm.undo_prints.len(), "every print in a chain");
    }

    /// `repetitions` against a scan of the positions saved, through a
    /// history long enough for the slots to grow twice (past 128 and 512
    /// prints), asked at most plies, then undone move by move past both
    /// growths: the chains made again must be those made one print at a
    /// time, and be taken apart as those are.
    #[test]
    fn repetitions_agree_with_a_scan_as_the_slots_grow_and_moves_are_undone() {
        let mut vm = Vm::new(3, 1, 1, 0, 0, 7);
        let keys: Vec<u64> = (1..=3u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let mut history = vec![];
        let mut repeated = 0;
        for i in 0..1500i32 {
            history.push((vm.pos.counts.clone(), vm.pos.turn.to_move));
            vm.push_undo();
            vm.pos.counts.copy_from_slice(&[i % 7, i % 11, i / 3 % 2]);
            vm.pos.turn.to_move = (i / 5 % 2) as u8;
            // Not at every ply: several positions are printed at once then.
            if i % 4 != 3 {
                let told = vm.repetitions(&keys);
                assert_eq!(told, scan(&vm, &history), "ply {i}");
                repeated += (told > 0) as usize;
            }
            if i % 16 == 0 || (126..134).contains(&i) {
                assert_chained(&vm);
            }
        }
        assert_eq!(vm.seen.len(), 4096, "grown twice, from 256 slots");
        assert!(repeated > 800, "only {repeated} repetitions");
        while let Some((counts, to_move)) = history.pop() {
            assert!(vm.undo());
            assert_eq!((&vm.pos.counts, vm.pos.turn.to_move), (&counts, to_move));
            assert_eq!(vm.repetitions(&keys), scan(&vm, &history), "undone to ply {}", history.len());
            assert_chained(&vm);
        }
    }
}
