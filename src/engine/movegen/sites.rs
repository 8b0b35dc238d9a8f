//! The loops over a fixed set of sites that most sowing games' moves are:
//! one choice of a site, offered, counted, drawn or listed without the
//! general enumeration of choices ([`super::enumerate`]). A `where` is asked
//! as the choice's shape allows: narrowed by what the site is, once for
//! each count met, or not at all when a least count says it all.

use super::{Sink, trial};
use crate::engine::game::{SiteId, Value};
use crate::engine::program::expr::{Opnd, SetOpnd};
use crate::engine::program::sets::for_each_site;
use crate::engine::program::state::UnsetTest;
use crate::engine::program::{Choice, ChoiceDomain, Gate, MoveProg, Program, Rest};
use crate::engine::vm::{Frame, Res, SetV, Vm, held};
use crate::engine::{MAX_LISTED, Move};

/// What [`draw_one_site`] found.
pub(super) enum OneSite {
    /// The move drawn (declaration `def`, choosing `site`) and its number
    /// `k` among the `n` candidates a list would give, which are the first
    /// `n` sites of [`Vm::picked`] in the list's order when the move must
    /// be tried (a move without a `where` that need not be tried leaves it
    /// as it was). Small, to be returned in registers (a whole [`Move`] is
    /// not).
    Drawn { def: u16, site: SiteId, k: u32, n: u32 },
    /// No site passes its `where`: the player has no candidate.
    None,
    /// Not a shape drawn without listing (or no site holds counters): the
    /// general path decides.
    List,
}

/// The commonest shape of all, drawn without listing: the phase has one
/// kind of move, which chooses a site of a fixed set. With no `where` but a
/// least count of counters (`where count(h) > 1`, or one waived), the
/// sites that hold them are gathered without asking anything; with a
/// `where` of another shape (`count(h) > 0 and tuzdik(h) == none`), it is
/// asked at each site in the set's order, as the general loop asks it (see
/// [`asked_sites`]). The k-th site that passes is the candidate a list of
/// them would give for the same number drawn: the move and k (a move that
/// must be tried is tried by the caller).
pub(super) fn draw_one_site(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, me: u8) -> Res<OneSite> {
    let phase = vm.pos.turn.phase as usize;
    // No `where` but a least count, and a set fixed for each player: its
    // sites and the count, known since the rules were compiled.
    if let Some(Some(l)) = p.drawn.get(phase)
        && let Some(&id) = l.sets.get(me as usize)
    {
        vm.f = Frame::new(me);
        return draw_of_set(p, vm, rng, l.def, l.least, id);
    }
    let Some(&Some(d)) = p.only_move.get(phase) else { return Ok(OneSite::List) };
    let (d, def) = (d as usize, &p.moves[d as usize]);
    if !def.one_site {
        return Ok(OneSite::List);
    }
    // A `where` of another shape than a least count (a waived one's, once
    // the waiver is asked) that has a loop of its own in the general path:
    // narrowed by what the site is (see [`asked_sites`]). One kept by
    // count is drawn here, asked once for each count met.
    let banks = !vm.banks.is_empty();
    let own_loop = |c: &Choice| {
        c.filter.is_some() && c.guard.is_none() && c.at_least().is_none() && c.narrow.is_some() && (!c.counted || banks)
    };
    let c = &def.choices[0];
    let fixed = c.waiver.is_none() && c.cases.is_none();
    if fixed && own_loop(c) {
        return Ok(OneSite::List);
    }
    // Only a set known to be fixed (a declared one, a player's sites of a
    // kind, a function of the mover alone): another is not worked out twice
    // when the shape is not this one.
    let ChoiceDomain::Set(set @ (SetOpnd::Fixed(_) | SetOpnd::OfPlayer(..))) = &c.domain else {
        return Ok(OneSite::List);
    };
    vm.f = Frame::new(me);
    let c = match fixed {
        true => c,
        false => match c.now(p, vm) {
            c if own_loop(c) => return Ok(OneSite::List),
            c => c,
        },
    };
    // Shut: no site passes; the general path finds none as well.
    let Gate::Open(filter) = c.gate(p, vm) else { return Ok(OneSite::List) };
    let Some(least) = def.least_count(c, filter) else {
        return asked_sites(p, vm, rng, (def, d as u16, c, filter), set);
    };
    let SetV::Fixed(id) = set.get(p, vm)? else { return Ok(OneSite::List) };
    draw_of_set(p, vm, rng, d as u16, least, id)
}

/// [`draw_one_site`]'s draw among the sites of the fixed set `id` for
/// declaration `d`, a site holding `least` counters or more, if given.
#[inline(always)]
fn draw_of_set(
    p: &Program,
    vm: &mut Vm,
    rng: &mut impl rand::Rng,
    d: u16,
    least: Option<i32>,
    id: u16,
) -> Res<OneSite> {
    let sites = &p.game.sets[id as usize];
    vm.spend(sites.len() as u64)?;
    let Some(least) = least else {
        if sites.is_empty() {
            return Ok(OneSite::List);
        }
        if p.moves[d as usize].needs_trial {
            // The candidates to draw from again, should this one be refused.
            vm.picked.clear();
            vm.picked.extend_from_slice(sites);
        }
        let k = rng.gen_range(0..sites.len() as u64) as usize;
        return Ok(OneSite::Drawn { def: d, site: sites[k], k: k as u32, n: sites.len() as u32 });
    };
    if !vm.banks.is_empty() {
        for &s in sites {
            vm.read(s);
        }
    }
    // The sites that hold counters, gathered without a branch on the
    // counts (which a random game cannot predict), then the k-th of them.
    if vm.picked.len() < sites.len() {
        vm.picked.resize(sites.len(), 0);
    }
    // Slices, not the vectors: read through the vectors, the loop loaded
    // the counts' address again after each site it wrote.
    let (picked, counts, colours) = (&mut vm.picked[..sites.len()], vm.pos.counts.as_slice(), vm.colours);
    let n = gather_holding(sites, picked, (counts, colours), least);
    if n == 0 {
        return Ok(OneSite::List);
    }
    let k = rng.gen_range(0..n as u64) as usize;
    Ok(OneSite::Drawn { def: d, site: picked[k], k: k as u32, n: n as u32 })
}

/// [`draw_one_site`] for a `where` of another shape: each site of the
/// fixed set takes its step and is asked the `where` (bound to the
/// choice), and for counters when the move requires them, in the set's
/// order, as [`one_site`]'s general loop asks them for a list of
/// candidates: the same reads, steps and failures, in a search for moves
/// of its own (the `where`s' kept parts, `program/memo.rs`), without the
/// list. A `where` that reads the site only by its count is asked once for
/// each count met, as the loop of [`by_counts`] asks it; one narrowed by
/// what the site is has a loop of its own there (which asks it less): left
/// to it.
#[inline(never)]
fn asked_sites(
    p: &Program,
    vm: &mut Vm,
    rng: &mut impl rand::Rng,
    (def, d, c, filter): (&MoveProg, u16, &Choice, Option<&Opnd>),
    set: &SetOpnd,
) -> Res<OneSite> {
    let whole = c.filter.as_ref().zip(filter).is_some_and(|(w, f)| std::ptr::eq(w, f));
    let by_count = whole && c.counted && vm.banks.is_empty();
    if whole && !by_count && c.narrow.is_some() {
        return Ok(OneSite::List);
    }
    let SetV::Fixed(id) = set.get(p, vm)? else { return Ok(OneSite::List) };
    let sites = &p.game.sets[id as usize];
    let mut picked = std::mem::take(&mut vm.picked);
    if picked.len() < sites.len() {
        picked.resize(sites.len(), 0);
    }
    let r = if let Some(t) = filter.and_then(|f| state_pass(p, vm, (def, c, f), id)) {
        t.gather(vm, c.slot, sites, &mut picked)
    } else {
        // As the search for moves around the general loop (`movegen::raw`).
        vm.depth += 1;
        let outer = vm.memo.begin();
        let r = match (by_count, filter) {
            (true, Some(f)) => {
                let mut n = 0;
                counted_sites(p, vm, (def, c, f), sites, |s| {
                    picked[n] = s;
                    n += 1;
                    Ok(false)
                })
                .map(|_| n)
            }
            _ => passing(p, vm, (def, c, filter), sites, &mut picked),
        };
        vm.memo.end(outer);
        vm.depth -= 1;
        r
    };
    let drawn = match r {
        Ok(0) => Ok(OneSite::None),
        Ok(n) => {
            let k = rng.gen_range(0..n as u64) as usize;
            Ok(OneSite::Drawn { def: d, site: picked[k], k: k as u32, n: n as u32 })
        }
        Err(e) => Err(e),
    };
    vm.picked = picked;
    drawn
}

/// The sites that pass ([`site_passes`]) written to the front of `picked`,
/// in order: how many.
#[inline(always)]
fn passing(
    p: &Program,
    vm: &mut Vm,
    test: (&MoveProg, &Choice, Option<&Opnd>),
    sites: &[SiteId],
    picked: &mut [SiteId],
) -> Res<usize> {
    let mut n = 0;
    for &s in sites {
        let pass = site_passes(p, vm, test, s)?;
        picked[n] = s;
        n += pass as usize;
    }
    Ok(n)
}

/// [`gather`] by the counts (`counts`, of `colours` colours a site).
#[inline(always)]
fn gather_holding(sites: &[SiteId], picked: &mut [SiteId], (counts, colours): (&[i32], usize), least: i32) -> usize {
    // One colour, a count a site: the loop's own copy, read straight.
    match colours {
        1 => gather(sites, picked, least, |s| counts[s as usize]),
        _ => gather(sites, picked, least, |s| held(counts, colours, s)),
    }
}

/// Writes `sites` to `picked` in order, each over the last unless it holds
/// `least` counters or more (by `held`): how many do, at the front.
#[inline(always)]
fn gather(sites: &[SiteId], picked: &mut [SiteId], least: i32, held: impl Fn(SiteId) -> i32) -> usize {
    assert!(picked.len() >= sites.len(), "a place for each site");
    let mut n = 0;
    for &s in sites {
        // SAFETY: `n` counts some of the sites before `s`, so it is below
        // `sites.len()`, which `picked.len()` is not below (asserted). The
        // check the compiler cannot drop was a quarter of this loop.
        unsafe { *picked.get_unchecked_mut(n) = s };
        n += (held(s) >= least) as usize;
    }
    n
}

/// The moves of a declaration that chooses one site (most sowing games): the
/// sites of the set, each tested, offered in one loop; a move that must be
/// tried, tried there (but for candidates, which are tried when drawn).
pub(super) fn one_site(p: &Program, vm: &mut Vm, def: &MoveProg, d: u16, sink: &mut Sink) -> Res<()> {
    let ChoiceDomain::Set(set) = &def.choices[0].domain else { unreachable!("one_site is a choice of a set") };
    let set = set.get(p, vm)?;
    let c = def.choices[0].now(p, vm);
    one_site_as(p, vm, (def, c), set, d, sink)
}

/// [`one_site`] once its set is worked out and its choice is `c`, as
/// [`Choice::now`] gave it.
#[inline(always)]
pub(super) fn one_site_as(
    p: &Program,
    vm: &mut Vm,
    (def, c): (&MoveProg, &Choice),
    set: SetV,
    d: u16,
    sink: &mut Sink,
) -> Res<()> {
    let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
    if def.needs_trial && !matches!(sink, Sink::Candidates(_)) {
        return tried_sites(p, vm, (def, d, c, filter), set, sink);
    }
    let least = def.least_count(c, filter);
    // The commonest case of all: a fixed set, no `where` (or a least
    // count), the moves listed.
    if let (SetV::Fixed(id), Some(least), Sink::List(out)) = (set, least, &mut *sink)
        && list_sites(p, vm, least, d, id, out)?
    {
        return Ok(());
    }
    // The other sinks, for a fixed set and no `where` (or a least count),
    // with the work for every site at hand: the same sites, reads and
    // steps as the loop below, without a closure called at each site.
    if let (SetV::Fixed(id), Some(least)) = (set, least)
        && vm.fuel >= p.game.sets[id as usize].len() as u64
    {
        let sites = &p.game.sets[id as usize];
        let holds = |vm: &mut Vm, s: SiteId| holds(vm, s, least);
        match sink {
            Sink::Any(found) => {
                let (any, looked) = first_holding(vm, sites, least);
                *found |= any;
                return vm.spend(looked as u64);
            }
            Sink::Count(total) => {
                let n = sites.iter().filter(|&&s| holds(vm, s)).count();
                *total = total.saturating_add(n as u128);
                return vm.spend(sites.len() as u64);
            }
            Sink::Candidates(out) | Sink::Groups(out) => {
                offer_holding(vm, sites, least, d, out);
                return vm.spend(sites.len() as u64);
            }
            Sink::List(_) => {}
        }
    }
    // A `where` that reads the site only by its count, over a fixed set:
    // asked once for each count met, in the loop's order (so it goes wrong
    // at the site it would have); the same offers, fewer steps of work
    // (the `where`'s own, at the sites whose count was answered).
    if let (SetV::Fixed(id), Some(f)) = (set, filter)
        && c.counted
        && vm.banks.is_empty()
        && c.filter.as_ref().is_some_and(|w| std::ptr::eq(w, f))
    {
        return by_counts(p, vm, (def, d, c, f), &p.game.sets[id as usize], sink);
    }
    // A `where` that begins with what the site is, over a fixed set: the
    // sites it does not stop at, asked the rest (see `program/narrow.rs`).
    if let (SetV::Fixed(id), Some(f), Some(_)) = (set, filter, &c.narrow)
        && c.filter.as_ref().is_some_and(|w| std::ptr::eq(w, f))
        && narrowed_sites(p, vm, (def, d, c), id, sink)?
    {
        return Ok(());
    }
    // A `where` led by a least count whose rest is a test for none, the
    // moves listed: each site worked out in place (see [`state_pass`]).
    if let (SetV::Fixed(id), Some(f), Sink::List(out)) = (set, filter, &mut *sink)
        && ((out.len() + p.game.sets[id as usize].len()) as u128) <= MAX_LISTED
        && let Some(t) = state_pass(p, vm, (def, c, f), id)
    {
        return t.list(vm, (c.slot, d), &p.game.sets[id as usize], out);
    }
    let mut each = |p: &Program, vm: &mut Vm, s: SiteId| -> Res<bool> {
        if !site_passes(p, vm, (def, c, filter), s)? {
            return Ok(false);
        }
        sink.offer_site(d, s)?;
        Ok(sink.done())
    };
    for_each_site(p, vm, set, &mut each)
}

/// Offers (as candidates or groups) the moves of declaration `d` that
/// choose one of `sites` holding `least` counters or more (each, if `least`
/// is `None`), in order, each site read as [`holds`] reads it. Out of
/// line: its buffer on the stack grew the frame of every search for moves.
#[inline(never)]
fn offer_holding(vm: &mut Vm, sites: &[SiteId], least: Option<i32>, d: u16, out: &mut Vec<(Move, u128)>) {
    let offered = |&s: &SiteId| (Move { def: d, args: [s as i32, 0, 0, 0], order: 0 }, 1);
    let Some(least) = least else {
        out.extend(sites.iter().map(offered));
        return;
    };
    if !vm.banks.is_empty() {
        for &s in sites {
            vm.read(s);
        }
    }
    // The sites that hold, gathered without a branch on the counts (which
    // a random game cannot predict), a stretch at a time; then their
    // candidates pushed (a candidate is 64 bytes, a site two).
    let counts = (vm.pos.counts.as_slice(), vm.colours);
    let mut picked = [0; 64];
    for stretch in sites.chunks(picked.len()) {
        let n = gather_holding(stretch, &mut picked, counts, least);
        out.extend(picked[..n].iter().map(offered));
    }
}

/// Site `s` of a one-site move's loop takes its step and is tested: by
/// `filter` (bound to choice `c`), and for counters when the move requires
/// them.
#[inline(always)]
pub(super) fn site_passes(
    p: &Program,
    vm: &mut Vm,
    (def, c, filter): (&MoveProg, &Choice, Option<&Opnd>),
    s: SiteId,
) -> Res<bool> {
    vm.tick()?;
    if let Some(f) = filter {
        vm.locals[c.slot] = s as i64;
        if !c.passes(f, p, vm)? {
            return Ok(false);
        }
    }
    if def.nonempty.is_some() {
        vm.read(s);
        if vm.count(s) == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A whole `where` led by a least count whose rest is a test for none of a
/// per-site state variable (`count(h) > 0 and tuzdik(h) == none`), to be
/// asked of the fixed set `id` where nothing can go wrong: no banks (whose
/// reads are noted), the work of every site at hand (the general loop takes
/// it a site at a time) and every site of the kind the variable is kept
/// for. How each site passes then ([`StatePass`]); `None` elsewhere: the
/// general loop asks.
#[inline(always)]
pub(super) fn state_pass(
    p: &Program,
    vm: &Vm,
    (def, c, filter): (&MoveProg, &Choice, &Opnd),
    id: u16,
) -> Option<StatePass> {
    let lead = c.lead.as_ref()?;
    let Some(Rest::State(t)) = &lead.rest else { return None };
    let test = t.unset_test()?;
    let len = p.game.sets[id as usize].len() as u64;
    let whole = c.filter.as_ref().is_some_and(|w| std::ptr::eq(w, filter));
    let kinds = test.kind.is_none_or(|k| p.set_kinds[id as usize] == Some(k));
    if !whole || !kinds || !vm.banks.is_empty() || vm.fuel < len {
        return None;
    }
    Some(StatePass { all: lead.all, least: lead.least, nonempty: def.nonempty.is_some(), test })
}

/// How a site passes the `where` of [`state_pass`] and the move's need of
/// counters: the count decides when it fails an `and` chain's lead (or
/// holds an `or` chain's), else the test for none.
#[derive(Clone, Copy)]
pub(super) struct StatePass {
    all: bool,
    least: i32,
    nonempty: bool,
    test: UnsetTest,
}

impl StatePass {
    /// Whether site `s` passes, as [`Choice::passes`] and [`site_passes`]
    /// decide it: every term read whatever the others say (no `&&`), so
    /// that the answer can be a select rather than a branch on the counts
    /// or values, which a random game cannot predict.
    #[inline(always)]
    fn passes(self, counts: &[i32], colours: usize, vars: &[Value], s: SiteId) -> bool {
        let n = held(counts, colours, s);
        let unset = matches!(vars[self.test.offset + s as usize], Value::None);
        let by_count = (n >= self.least) != self.all;
        let pass = if by_count { !self.all } else { unset == self.test.holds_unset };
        pass & (!self.nonempty | (n > 0))
    }

    /// Writes `sites` to `picked`, each over the last unless it passes: how
    /// many do, at the front. Their work is spent, and the choice's `slot`
    /// left holding the last site, as the general loop leaves them.
    #[inline(always)]
    fn gather(self, vm: &mut Vm, slot: usize, sites: &[SiteId], picked: &mut [SiteId]) -> Res<usize> {
        let (counts, colours, vars) = (vm.pos.counts.as_slice(), vm.colours, vm.pos.vars.as_slice());
        let mut n = 0;
        for &s in sites {
            picked[n] = s;
            n += self.passes(counts, colours, vars, s) as usize;
        }
        self.looked(vm, slot, sites)?;
        Ok(n)
    }

    /// Whether a site of `sites` passes, looked for in order up to the
    /// first that does; the work and `slot` of the sites looked at, as
    /// [`Self::gather`] leaves them.
    #[inline(always)]
    pub(super) fn first(self, vm: &mut Vm, slot: usize, sites: &[SiteId]) -> Res<bool> {
        let (counts, colours, vars) = (vm.pos.counts.as_slice(), vm.colours, vm.pos.vars.as_slice());
        // A loop, not `position`: its closure is then always inlined.
        for (k, &s) in sites.iter().enumerate() {
            if self.passes(counts, colours, vars, s) {
                self.looked(vm, slot, &sites[..=k])?;
                return Ok(true);
            }
        }
        self.looked(vm, slot, sites)?;
        Ok(false)
    }

    /// The sites `looked` at: their steps of work spent (the caller has
    /// them, [`state_pass`]), the choice's `slot` holding the last.
    #[inline(always)]
    fn looked(self, vm: &mut Vm, slot: usize, looked: &[SiteId]) -> Res<()> {
        if let Some(&s) = looked.last() {
            vm.locals[slot] = s as i64;
        }
        vm.spend(looked.len() as u64)
    }

    /// Lists the moves of declaration `d` that choose a site of `sites`
    /// that passes, in order; the work and `slot` as [`Self::gather`]
    /// leaves them. `out` has room for every site (the caller asked).
    #[inline(always)]
    fn list(self, vm: &mut Vm, (slot, d): (usize, u16), sites: &[SiteId], out: &mut Vec<Move>) -> Res<()> {
        let (counts, colours, vars) = (vm.pos.counts.as_slice(), vm.colours, vm.pos.vars.as_slice());
        out.reserve(sites.len());
        let spare = out.spare_capacity_mut();
        let mut n = 0;
        for &s in sites {
            spare[n].write(Move { def: d, args: [s as i32, 0, 0, 0], order: 0 });
            n += self.passes(counts, colours, vars, s) as usize;
        }
        // SAFETY: the first `n` places past the length were written just above.
        unsafe { out.set_len(out.len() + n) };
        self.looked(vm, slot, sites)
    }
}

/// [`one_site`]'s loop for a move that must be tried: each site of `set`
/// takes its step and is tested (by `filter`, and for counters when the
/// move requires them), then tried, and offered if the trial succeeds; in
/// that order, site by site, as the general enumeration of choices does.
#[inline(never)]
fn tried_sites(
    p: &Program,
    vm: &mut Vm,
    (def, d, c, filter): (&MoveProg, u16, &Choice, Option<&Opnd>),
    set: SetV,
    sink: &mut Sink,
) -> Res<()> {
    let mover = vm.f.mover;
    for_each_site(p, vm, set, |p, vm, s| {
        if !site_passes(p, vm, (def, c, filter), s)? {
            return Ok(false);
        }
        let mv = Move { def: d, args: [s as i32, 0, 0, 0], order: 0 };
        if trial(p, vm, mv, mover)? {
            sink.offer(mv, 1)?;
        }
        Ok(sink.done())
    })
}

/// [`one_site`]'s loop over the fixed set `id` for choice `c`, whose
/// `where` begins with what the site is ([`Choice::narrow`]): the sites
/// the `where` does not stop at on that, asked the rest, each taking its
/// step, binding the choice and offered as in the general loop. False
/// (nothing done) when the set is not narrowed (its first terms go wrong
/// at one of its sites).
#[inline(never)]
fn narrowed_sites(
    p: &Program,
    vm: &mut Vm,
    (def, d, c): (&MoveProg, u16, &Choice),
    id: u16,
    sink: &mut Sink,
) -> Res<bool> {
    let Some((narrowed, rest)) = &c.narrow else { return Ok(false) };
    let Some(sites) = narrowed.sites(p, vm, id) else { return Ok(false) };
    for &s in sites {
        vm.tick()?;
        vm.locals[c.slot] = s as i64;
        if rest.get(p, vm)? == 0 {
            continue;
        }
        if def.nonempty.is_some() {
            vm.read(s);
            if vm.count(s) == 0 {
                continue;
            }
        }
        sink.offer_site(d, s)?;
        if sink.done() {
            break;
        }
    }
    Ok(true)
}

/// Counts below this have the answer of a counted `where` kept for them.
const COUNTS_ANSWERED: usize = 64;

/// [`one_site`]'s loop over a fixed set whose `where` `f` (the whole of
/// choice `c`'s) reads the site only by its count ([`Choice::counted`]):
/// the `where` is asked at the first site of each count below
/// [`COUNTS_ANSWERED`] and its answer read at the others (it would give the
/// same: the position stands while moves are found). Each site takes its
/// step, binds the choice and is offered as in the general loop; the
/// `where`'s own steps are spent only where it is asked.
#[inline(never)]
fn by_counts(
    p: &Program,
    vm: &mut Vm,
    (def, d, c, f): (&MoveProg, u16, &Choice, &Opnd),
    sites: &[SiteId],
    sink: &mut Sink,
) -> Res<()> {
    counted_sites(p, vm, (def, c, f), sites, |s| {
        sink.offer_site(d, s)?;
        Ok(sink.done())
    })
}

/// The loop of [`by_counts`], each site that passes given to `each` (which
/// says whether to stop): shared with the draw of one site
/// ([`asked_sites`]), which gathers them.
#[inline(always)]
fn counted_sites(
    p: &Program,
    vm: &mut Vm,
    (def, c, f): (&MoveProg, &Choice, &Opnd),
    sites: &[SiteId],
    mut each: impl FnMut(SiteId) -> Res<bool>,
) -> Res<()> {
    // 0: not asked yet; 1: refused; 2: passed.
    let mut answered = [0u8; COUNTS_ANSWERED];
    for &s in sites {
        vm.tick()?;
        vm.locals[c.slot] = s as i64;
        let n = vm.count(s);
        let pass = match answered.get_mut(n as usize) {
            Some(a) if *a != 0 => *a == 2,
            Some(a) => {
                let pass = c.passes(f, p, vm)?;
                *a = 1 + pass as u8;
                pass
            }
            None => c.passes(f, p, vm)?,
        };
        if !pass || (def.nonempty.is_some() && n == 0) {
            continue;
        }
        if each(s)? {
            break;
        }
    }
    Ok(())
}

/// Whether site `s` holds `least` counters (any site, for `None`), its
/// count read as the rules read it.
#[inline(always)]
fn holds(vm: &mut Vm, s: SiteId, least: Option<i32>) -> bool {
    match least {
        Some(m) => {
            vm.read(s);
            vm.count(s) >= m
        }
        None => true,
    }
}

/// The first of `sites` that [`holds`] `least`, looked for in order:
/// whether there is one, and how many sites were looked at (the work, for
/// the caller to spend).
#[inline(always)]
pub(super) fn first_holding(vm: &mut Vm, sites: &[SiteId], least: Option<i32>) -> (bool, usize) {
    // A loop, not `position`: its closure is then always inlined.
    for (k, &s) in sites.iter().enumerate() {
        if holds(vm, s, least) {
            return (true, k + 1);
        }
    }
    (false, sites.len())
}

/// Lists the moves of declaration `d`, which chooses a site of the fixed
/// set `id` with no `where` but a least count (those that hold `least`
/// counters or more, if given: see [`MoveProg::least_count`]); false if
/// they would be too many to list.
#[inline(always)]
fn list_sites(p: &Program, vm: &mut Vm, least: Option<i32>, d: u16, id: u16, out: &mut Vec<Move>) -> Res<bool> {
    let sites = &p.game.sets[id as usize];
    if ((out.len() + sites.len()) as u128) > MAX_LISTED {
        return Ok(false);
    }
    vm.spend(sites.len() as u64)?;
    let Some(least) = least else {
        out.extend(sites.iter().map(|&s| Move { def: d, args: [s as i32, 0, 0, 0], order: 0 }));
        return Ok(true);
    };
    if !vm.banks.is_empty() {
        for &s in sites {
            vm.read(s);
        }
    }
    // Every site written, and counted only if it holds counters: no
    // branch on the counts, which a random game cannot predict.
    let counts = &vm.pos.counts;
    let colours = vm.colours;
    out.reserve(sites.len());
    let spare = out.spare_capacity_mut();
    let mut n = 0;
    for &s in sites {
        spare[n].write(Move { def: d, args: [s as i32, 0, 0, 0], order: 0 });
        n += (held(counts, colours, s) >= least) as usize;
    }
    // SAFETY: the first `n` places past the length were written just above.
    unsafe { out.set_len(out.len() + n) };
    Ok(true)
}

/// The legal moves of the phase's only move declaration, when it is
/// listed by a plain loop ([`crate::engine::program::Listed`]): false when
/// the phase's moves are not of that shape.
#[inline(always)]
pub(super) fn list_only_move(p: &Program, vm: &mut Vm, me: u8, out: &mut Vec<Move>) -> Res<bool> {
    let Some(Some(l)) = p.listed.get(vm.pos.turn.phase as usize) else { return Ok(false) };
    let Some(&id) = l.sets.get(me as usize) else { return Ok(false) };
    list_sites(p, vm, l.least, l.def, id, out)
}
