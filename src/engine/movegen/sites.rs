//! The loops over a fixed set of sites that most sowing games' moves are:
//! one choice of a site, offered, counted, drawn or listed without the
//! general enumeration of choices ([`super::enumerate`]). A `where` is asked
//! as the choice's shape allows: narrowed by what the site is, once for
//! each count met, or not at all when a least count says it all.

use super::{Sink, trial};
use crate::engine::game::SiteId;
use crate::engine::program::expr::{Opnd, SetOpnd};
use crate::engine::program::sets::for_each_site;
use crate::engine::program::{Choice, ChoiceDomain, Gate, MoveProg, Program};
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
    // Only a set known to be fixed (a declared one, or a player's sites of a
    // kind): another is not worked out twice when the shape is not this one.
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
pub(super) fn one_site(p: &Program, vm: &mut Vm, def: &MoveProg, mv: Move, sink: &mut Sink) -> Res<()> {
    let ChoiceDomain::Set(set) = &def.choices[0].domain else { unreachable!("one_site is a choice of a set") };
    let set = set.get(p, vm)?;
    let c = def.choices[0].now(p, vm);
    let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
    if def.needs_trial && !matches!(sink, Sink::Candidates(_)) {
        return tried_sites(p, vm, (def, mv.def, c, filter), set, sink);
    }
    let least = def.least_count(c, filter);
    // The commonest case of all: a fixed set, no `where` (or a least
    // count), the moves listed.
    if let (SetV::Fixed(id), Some(least), Sink::List(out)) = (set, least, &mut *sink)
        && list_sites(p, vm, least, mv.def, id, out)?
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
                offer_holding(vm, sites, least, mv.def, out);
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
        return by_counts(p, vm, (def, mv.def, c, f), &p.game.sets[id as usize], sink);
    }
    // A `where` that begins with what the site is, over a fixed set: the
    // sites it does not stop at, asked the rest (see `program/narrow.rs`).
    if let (SetV::Fixed(id), Some(f), Some(_)) = (set, filter, &c.narrow)
        && c.filter.as_ref().is_some_and(|w| std::ptr::eq(w, f))
        && narrowed_sites(p, vm, (def, mv.def, c), id, sink)?
    {
        return Ok(());
    }
    let mut each = |p: &Program, vm: &mut Vm, s: SiteId| -> Res<bool> {
        if !site_passes(p, vm, (def, c, filter), s)? {
            return Ok(false);
        }
        sink.offer_site(mv.def, s)?;
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
fn site_passes(
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
fn first_holding(vm: &mut Vm, sites: &[SiteId], least: Option<i32>) -> (bool, usize) {
    // A loop, not `position`: its closure is then always inlined.
    for (k, &s) in sites.iter().enumerate() {
        if holds(vm, s, least) {
            return (true, k + 1);
        }
    }
    (false, sites.len())
}

/// Whether `pl` has a move ([`super::can_move`]) when the phase's only
/// move is listed by a plain loop ([`crate::engine::program::Listed`]): the
/// loop `one_site` runs for that shape when any move will do (the same
/// sites read in the same order, up to the first that holds, and the same
/// steps of work), without the search around it (the caller's locals kept
/// aside, a frame, the memos' search), which that loop reads nothing of.
/// `None` when the phase's move is not of that shape, or the work left may
/// not cover the set: the search then stops where it would.
#[inline(always)]
pub(super) fn any_listed(p: &Program, vm: &mut Vm, pl: u8) -> Res<Option<bool>> {
    let Some(Some(l)) = p.listed.get(vm.pos.turn.phase as usize) else { return Ok(None) };
    let Some(&id) = l.sets.get(pl as usize) else { return Ok(None) };
    let sites = &p.game.sets[id as usize];
    if vm.fuel < sites.len() as u64 {
        return Ok(None);
    }
    let (any, looked) = first_holding(vm, sites, l.least);
    vm.spend(looked as u64)?;
    Ok(Some(any))
}

/// Whether `pl` has a move ([`super::can_move`]) when the phase's only move
/// chooses one site and needs no trial ([`Program::asked`]): its loop
/// ([`one_site`]) alone, or, when its `where` is asked at each site of a
/// fixed set with nothing to decide first, that loop itself, to the first
/// site that passes; with what the search for moves ([`super::raw`]) does
/// around it (the player to move and the frame set as it sets them, the
/// caller's locals kept aside, a search of the memos, one level deeper),
/// but not its general steps. `None` when the phase's move is not of that
/// shape, or the search would go no deeper (it says so).
#[inline(always)]
pub(super) fn any_asked(p: &Program, vm: &mut Vm, pl: u8) -> Option<Res<bool>> {
    let Some(Some(a)) = p.asked.get(vm.pos.turn.phase as usize) else { return None };
    if vm.depth >= super::MAX_DEPTH {
        return None;
    }
    let set = a.sets.as_ref().and_then(|s| s.get(pl as usize).copied());
    Some(asked(p, vm, pl, a.def, set))
}

#[inline(never)]
fn asked(p: &Program, vm: &mut Vm, pl: u8, d: u16, set: Option<u16>) -> Res<bool> {
    let def = &p.moves[d as usize];
    let saved = vm.pos.turn.to_move;
    vm.pos.turn.to_move = pl;
    // No statement runs (the move needs no trial): only the values can change.
    let mark = vm.save_values();
    let frame = vm.f;
    vm.depth += 1;
    let outer = vm.memo.begin();
    vm.f = Frame::new(pl);
    let r = match set {
        Some(id) => first_passing(p, vm, def, &p.game.sets[id as usize]),
        None => {
            let mut sink = Sink::Any(false);
            one_site(p, vm, def, Move { def: d, args: [0; 4], order: 0 }, &mut sink).map(|()| sink.done())
        }
    };
    vm.memo.end(outer);
    vm.depth -= 1;
    vm.f = frame;
    vm.restore_values(mark);
    vm.pos.turn.to_move = saved;
    r.map_err(|e| super::choice_error(p, d as usize, 0, e))
}

/// Whether a site of `sites` passes ([`site_passes`]) the `where` of
/// `def`'s choice as written, asked in order up to the first that does.
#[inline(always)]
fn first_passing(p: &Program, vm: &mut Vm, def: &MoveProg, sites: &[SiteId]) -> Res<bool> {
    let c = &def.choices[0];
    for &s in sites {
        if site_passes(p, vm, (def, c, c.filter.as_ref()), s)? {
            return Ok(true);
        }
    }
    Ok(false)
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

#[cfg(test)]
mod tests {
    use super::super::{Sink, can_move, raw};
    use crate::compile::{Config, compile_file};
    use crate::engine::Engine;
    use crate::engine::vm::Fault;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;

    /// `can-move` of a phase whose only move chooses one site and needs no
    /// trial (`Program::asked`) answers as the search for moves does: for
    /// either player, at every position of seeded games of
    /// tests/engine/asked.mancala (a `where` asked whole at each site; one
    /// with a guard and a quantifier's variable; one asked by count), with
    /// banks and without, and in the same positions with `faulty` (a rest
    /// that goes wrong): the same answer or error, the same steps of work
    /// and bank reads as the search's (`movegen::raw`), and the caller's
    /// locals and frame as they were.
    #[test]
    fn can_move_of_an_asked_move_answers_as_the_search_does() {
        let compile = |least: &str, faulty: &str| {
            let settings = vec![("least".into(), least.into()), ("faulty".into(), faulty.into())];
            let cfg = Config { variants: vec![], settings };
            let game =
                compile_file("tests/engine/asked.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            Arc::new(game)
        };
        // Answers no, yes, and errors.
        let mut seen = [0; 3];
        for least in ["0", "1", "2"] {
            let (game, faulty) = (compile(least, "false"), compile(least, "true"));
            for seed in 0..8 {
                let mut e = Engine::with_seed(game.clone(), seed).unwrap();
                let mut f = Engine::with_seed(faulty.clone(), seed).unwrap();
                let loops: Vec<Option<bool>> =
                    e.prog.asked.iter().map(|a| a.as_ref().map(|a| a.sets.is_some())).collect();
                assert_eq!(loops, [Some(true), Some(false), Some(false)], "the loop itself, then `one_site`'s");
                let banks: &[u16] = if seed % 2 == 0 { &[] } else { &[0, 4, 9] };
                e.set_banks(banks);
                f.set_banks(banks);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                loop {
                    f.vm.pos = e.vm.pos.clone();
                    for x in [&mut e, &mut f] {
                        for pl in 0..2 {
                            let at = format!("least {least}, seed {seed}, ply {}, player {pl}", x.vm.pos.turn.ply);
                            seen[agree(x, pl, &at).0] += 1;
                        }
                    }
                    match e.sample_move(&mut rng) {
                        Ok(Some(mv)) => e.apply(mv).unwrap(),
                        _ => break,
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 20), "answers (no, yes, errors): {seen:?}");
    }

    /// `can-move` of a phase whose only move is listed by a plain loop
    /// (`Program::listed`) answers as the search does: for either player,
    /// at every position of seeded games of tests/engine/least.mancala (its
    /// sowing is listed, with least counts 0 to 3, also written as several
    /// comparisons; its other phases' moves take a counter and are tried),
    /// with banks and without (see `agree`).
    #[test]
    fn can_move_of_a_listed_move_answers_as_the_search_does() {
        let (mut answers, mut bank_reads) = ([0; 2], 0);
        for (least, written) in (0..4).flat_map(|l| [(l, "1"), (l, "2")]) {
            let settings = vec![("least".into(), least.to_string()), ("written".into(), written.into())];
            let cfg = Config { variants: vec![], settings };
            let game =
                compile_file("tests/engine/least.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            let game = Arc::new(game);
            for seed in 0..6 {
                let mut e = Engine::with_seed(game.clone(), seed).unwrap();
                assert!(e.prog.listed[0].is_some(), "the sowing is listed by a plain loop");
                // A pit of each side and a store as banks, every other game.
                e.set_banks(if seed % 2 == 0 { &[] } else { &[0, 4, 8] });
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                loop {
                    let ply = e.vm.pos.turn.ply;
                    for pl in 0..2 {
                        let at = format!("least {least}, written {written}, seed {seed}, ply {ply}, player {pl}");
                        let (answer, read) = agree(&mut e, pl, &at);
                        assert!(answer < 2, "{at}: no fault");
                        // The phases whose moves must be tried are searched either way.
                        if ply.is_multiple_of(3) {
                            answers[answer] += 1;
                            bank_reads += read as u32;
                        }
                    }
                    let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
                    e.apply(mv).unwrap();
                }
            }
        }
        assert!(answers[0] > 20 && answers[1] > 100, "answers (no, yes): {answers:?}");
        assert!(bank_reads > 20, "only {bank_reads} answers read a bank");
    }

    /// Asks `can_move` of `pl` and the search, and compares them: the same
    /// answer or error, steps of work and bank reads, and the caller's
    /// locals, frame, depth and player to move as they were. Gives 0 for
    /// no move, 1 for a move, 2 for an error, and whether a bank was read.
    fn agree(e: &mut Engine, pl: u8, at: &str) -> (usize, bool) {
        let (prog, vm) = (&*e.prog, &mut *e.vm);
        // Locals and a frame as a caller holds them.
        for (k, l) in vm.locals.iter_mut().enumerate() {
            *l = 1000 + k as i64;
        }
        let (locals, frame) = (vm.locals.clone(), vm.f);
        let (fuel, to_move) = (vm.fuel, vm.pos.turn.to_move);
        vm.bank_read = false;
        let fast = can_move(prog, vm, pl).map_err(Fault::halt);
        let fast = (fast, fuel - vm.fuel, vm.bank_read);
        assert_eq!(vm.locals, locals, "{at}: the caller's locals");
        assert_eq!((vm.f.mover, vm.f.next, vm.f.last), (frame.mover, frame.next, frame.last), "{at}");
        assert_eq!((vm.depth, vm.pos.turn.to_move), (0, to_move), "{at}");
        (vm.fuel, vm.bank_read) = (fuel, false);
        vm.pos.turn.to_move = pl;
        let mut sink = Sink::Any(false);
        let searched = raw(prog, vm, pl, &mut sink).map(|()| sink.done()).map_err(Fault::halt);
        vm.pos.turn.to_move = to_move;
        let searched = (searched, fuel - vm.fuel, vm.bank_read);
        vm.fuel = fuel;
        assert_eq!(fast, searched, "{at}");
        let answer = match fast.0 {
            Ok(any) => any as usize,
            Err(_) => 2,
        };
        (answer, fast.2)
    }
}
