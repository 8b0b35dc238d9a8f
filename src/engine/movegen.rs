//! Move generation: each move declaration's choices run in turn, their
//! `where`s tested, and what they offer goes to a [`Sink`] (a list, a count,
//! whether there is any, or groups of moves that differ only in their order
//! of colours). A move whose legality depends on its effects is tried.

use super::draw::Candidates;
use super::game::SiteId;
use super::play::{apply_frame, bind_choices, try_statements};
use super::program::expr::Opnd;
use super::program::expr::SetOpnd;
use super::program::sets::{for_each_site, set_item, set_len};
use super::program::{Choice, ChoiceDomain, Gate, MoveProg, Program};
use super::vm::{Fault, Frame, Res, SetV, Vm, check_range, held};
use super::{MAX_LISTED, Move, arrange};

/// Where enumerated moves go. A group is the `n` moves that share a
/// declaration and choices and differ only in their order of colours.
pub(crate) enum Sink<'a> {
    List(&'a mut Vec<Move>),
    Any(bool),
    Count(u128),
    Groups(&'a mut Vec<(Move, u128)>),
    /// Groups as [`Sink::Groups`], but a move that must be tried is not:
    /// the caller tries the ones it draws.
    Candidates(&'a mut Vec<(Move, u128)>),
}

impl Sink<'_> {
    #[inline]
    pub(crate) fn done(&self) -> bool {
        matches!(self, Sink::Any(true))
    }

    /// Offers the move of declaration `def` that chooses one site.
    #[inline(always)]
    fn offer_site(&mut self, def: u16, site: SiteId) -> Res<()> {
        match self {
            // Written in place, field by field (a whole `Move` built first and
            // then copied was read back before its stores had landed).
            Sink::List(out) if (out.len() as u128) < MAX_LISTED => {
                out.push(Move { def, args: [site as i32, 0, 0, 0], order: 0 });
                Ok(())
            }
            Sink::Any(found) => {
                *found = true;
                Ok(())
            }
            Sink::Count(total) => {
                *total = total.saturating_add(1);
                Ok(())
            }
            Sink::Candidates(out) => {
                out.push((Move { def, args: [site as i32, 0, 0, 0], order: 0 }, 1));
                Ok(())
            }
            _ => self.offer(Move { def, args: [site as i32, 0, 0, 0], order: 0 }, 1),
        }
    }

    #[inline]
    fn offer(&mut self, mv: Move, n: u128) -> Res<()> {
        match self {
            Sink::List(out) => {
                if out.len() as u128 + n > MAX_LISTED {
                    return Err(Fault::error(format!(
                        "more than {MAX_LISTED} legal moves: too many to list (count or sample them instead)"
                    )));
                }
                // A group is the orders mv.order .. mv.order + n.
                for r in 0..n {
                    out.push(Move { order: mv.order + r, ..mv });
                }
            }
            Sink::Any(found) => *found |= n > 0,
            Sink::Count(total) => *total = total.saturating_add(n),
            Sink::Groups(out) | Sink::Candidates(out) => {
                if n > 0 {
                    out.push((mv, n));
                }
            }
        }
        Ok(())
    }
}

/// Moves for `pl` by the move declarations alone (no `avoid`, no pass).
/// The frame is left as the last declaration's (see [`can_move`], which
/// keeps its caller's).
pub(crate) fn raw(p: &Program, vm: &mut Vm, pl: u8, sink: &mut Sink) -> Res<()> {
    vm.depth += 1;
    if vm.depth > 64 {
        vm.depth -= 1;
        return Err(Fault::error("rules recurse too deeply while looking for legal moves".into()));
    }
    let phase = vm.pos.turn.phase;
    // The position stays as it is during the search: the closed parts of
    // the `where`s are worked out once (see `program/memo.rs`).
    let outer = vm.memo.begin();
    let mut r = Ok(());
    for (d, def) in p.moves.iter().enumerate() {
        if def.phase != phase {
            continue;
        }
        vm.f = Frame::new(pl);
        let mut mv = Move { def: d as u16, args: [0; 4], order: 0 };
        // Candidates are not tried as they are found: a move that must be
        // tried is found as one that need not.
        let single = def.one_site || (def.one_site_candidates && matches!(sink, Sink::Candidates(_)));
        r = if single { one_site(p, vm, def, mv, sink) } else { enumerate(p, vm, def, 0, &mut mv, sink) };
        if r.is_err() || sink.done() {
            break;
        }
    }
    vm.memo.end(outer);
    vm.depth -= 1;
    r
}

/// Whether `pl` would have any move if it were their turn now.
pub(crate) fn can_move(p: &Program, vm: &mut Vm, pl: u8) -> Res<bool> {
    let saved = vm.pos.turn.to_move;
    vm.pos.turn.to_move = pl;
    // Finding moves binds local variables; the caller's are kept aside.
    let mark = vm.save_locals();
    let frame = vm.f;
    let mut sink = Sink::Any(false);
    let r = raw(p, vm, pl, &mut sink);
    vm.f = frame;
    vm.restore_locals(mark);
    vm.pos.turn.to_move = saved;
    r.map(|_| matches!(sink, Sink::Any(true)))
}

/// Whether the player to move, having no move, passes (someone else can
/// move and the rules say pass).
pub(crate) fn must_pass(p: &Program, vm: &mut Vm, me: u8) -> Res<bool> {
    if p.game.stuck != super::game::StuckAction::Pass {
        return Ok(false);
    }
    let np = p.game.players.len() as u8;
    for k in 1..np {
        if can_move(p, vm, (me + k) % np)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The legal moves of the player to move, `avoid` applied.
pub(crate) fn legal_moves(p: &Program, vm: &mut Vm, out: &mut Vec<Move>) -> Res<()> {
    out.clear();
    if vm.pos.turn.ended {
        return Ok(());
    }
    let me = vm.pos.turn.to_move;
    if !list_only_move(p, vm, me, out)? {
        raw(p, vm, me, &mut Sink::List(out))?;
    }
    if out.is_empty() {
        if must_pass(p, vm, me)? {
            out.push(Move::PASS);
        }
        return Ok(());
    }
    if p.avoids.is_empty() {
        return Ok(());
    }
    // `avoid`: drop the moves whose result it names, unless all do.
    let mut bad = std::mem::take(&mut vm.avoided);
    bad.clear();
    for &mv in out.iter() {
        match violates_avoid(p, vm, mv) {
            Ok(b) => bad.push(b),
            Err(e) => {
                vm.avoided = bad;
                return Err(e);
            }
        }
    }
    if bad.iter().any(|b| !b) {
        let mut flag = bad.iter();
        out.retain(|_| flag.next().is_some_and(|b| !b));
    }
    vm.avoided = bad;
    Ok(())
}

fn violates_avoid(p: &Program, vm: &mut Vm, mv: Move) -> Res<bool> {
    apply_frame(p, vm, mv)?;
    let mut bad = false;
    for cond in &p.avoids {
        match cond.get(p, vm) {
            Ok(v) if v != 0 => {
                bad = true;
                break;
            }
            Ok(_) => {}
            Err(e) => {
                vm.undo();
                return Err(e);
            }
        }
    }
    vm.undo();
    Ok(bad)
}

/// How many legal moves there are, without listing them when no `avoid`
/// needs each one tried.
pub(crate) fn count_moves(p: &Program, vm: &mut Vm) -> Res<u128> {
    if vm.pos.turn.ended {
        return Ok(0);
    }
    if !p.avoids.is_empty() {
        let mut buf = vm.take_scratch();
        let r = legal_moves(p, vm, &mut buf).map(|_| buf.len() as u128);
        vm.give_scratch(buf);
        return r;
    }
    let me = vm.pos.turn.to_move;
    let mut sink = Sink::Count(0);
    raw(p, vm, me, &mut sink)?;
    let Sink::Count(n) = sink else { unreachable!() };
    if n == 0 && must_pass(p, vm, me)? {
        return Ok(1);
    }
    Ok(n)
}

/// The groups of legal moves: each a move and how many orders of colours
/// it comes in (1 for a move without an order). Not filtered by `avoid`.
pub(crate) fn groups(p: &Program, vm: &mut Vm, out: &mut Vec<(Move, u128)>) -> Res<()> {
    out.clear();
    if vm.pos.turn.ended {
        return Ok(());
    }
    let me = vm.pos.turn.to_move;
    raw(p, vm, me, &mut Sink::Groups(out))?;
    if out.is_empty() && must_pass(p, vm, me)? {
        out.push((Move::PASS, 1));
    }
    Ok(())
}

/// A legal move drawn uniformly at random, `avoid` applied, without listing
/// the moves; `None` when the game is over. A move that must be tried, or
/// whose result an `avoid` must look at, is tried only when drawn (see
/// [`super::draw`]).
pub(crate) fn sample_move(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng) -> Res<Option<Move>> {
    let mut c = std::mem::take(&mut vm.candidates);
    let r = draw_legal(p, vm, rng, &mut c);
    vm.candidates = c;
    r
}

fn draw_legal(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, c: &mut Candidates) -> Res<Option<Move>> {
    c.clear();
    if vm.pos.turn.ended {
        return Ok(None);
    }
    let me = vm.pos.turn.to_move;
    let mut first = None;
    if p.avoids.is_empty()
        && let Some((mv, number)) = draw_one_site(p, vm, rng, me)?
    {
        if !p.moves[mv.def as usize].needs_trial || trial_kept(p, vm, mv, me, true)? {
            return Ok(Some(mv));
        }
        first = Some((mv, number));
    }
    raw(p, vm, me, &mut Sink::Candidates(&mut c.groups))?;
    c.counted();
    // A first candidate drawn without the list and refused: the draws go
    // on from the list as if it had been drawn from it (the same number).
    if let Some((mv, number)) = first {
        debug_assert_eq!(c.groups.get(number), Some(&(mv, 1)), "the list's candidate of that number");
        c.refuse(number as u128);
    }
    while let Some((mv, number)) = c.draw(rng) {
        if c.mostly_refused() {
            return draw_listed(p, vm, rng, c);
        }
        if p.moves[mv.def as usize].needs_trial && !trial_kept(p, vm, mv, me, true)? {
            c.refuse(number);
            continue;
        }
        if p.avoids.is_empty() {
            return Ok(Some(mv));
        }
        // `avoid`: a move whose result it names is drawn only if all are.
        c.refuse(number);
        if !violates_avoid(p, vm, mv)? {
            return Ok(Some(mv));
        }
        c.avoided.push(mv);
    }
    if !c.avoided.is_empty() {
        return Ok(Some(c.avoided[rng.gen_range(0..c.avoided.len())]));
    }
    if must_pass(p, vm, me)? {
        return Ok(Some(Candidates::pass(rng)));
    }
    Ok(None)
}

/// A legal move drawn from the list of them (`avoid` applied), or from
/// the groups of legal moves: for rules that refuse most candidates.
fn draw_listed(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, c: &mut Candidates) -> Res<Option<Move>> {
    c.clear();
    if !p.avoids.is_empty() {
        let mut buf = vm.take_scratch();
        let r = legal_moves(p, vm, &mut buf).map(|_| (!buf.is_empty()).then(|| buf[rng.gen_range(0..buf.len())]));
        vm.give_scratch(buf);
        return r;
    }
    groups(p, vm, &mut c.groups)?;
    c.counted();
    Ok(c.draw(rng).map(|(mv, _)| mv))
}

/// The commonest shape of all, drawn without listing: the phase has one
/// kind of move, which chooses a site of a fixed set that holds counters
/// (no other test, or one waived), or a least count of them (`where
/// count(h) > 1`). The k-th such site is the candidate a
/// list of them would give for the same number drawn: the move and k (a
/// move that must be tried is tried by the caller). `None` when the shape
/// is not this one, or no site holds counters (the general path then
/// decides).
fn draw_one_site(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, me: u8) -> Res<Option<(Move, usize)>> {
    let Some(&Some(d)) = p.only_move.get(vm.pos.turn.phase as usize) else { return Ok(None) };
    let (d, def) = (d as usize, &p.moves[d as usize]);
    if !def.one_site_candidates {
        return Ok(None);
    }
    let c = &def.choices[0];
    if c.filter.is_some() && c.waiver.is_none() && c.guard.is_none() && c.at_least().is_none() {
        return Ok(None);
    }
    // Only a set known to be fixed (a declared one, or a player's sites of a
    // kind): another is not worked out twice when the shape is not this one.
    let ChoiceDomain::Set(set @ (SetOpnd::Fixed(_) | SetOpnd::OfPlayer(..))) = &def.choices[0].domain else {
        return Ok(None);
    };
    vm.f = Frame::new(me);
    // Shut: no site passes; the general path finds none as well.
    let Gate::Open(filter) = c.gate(p, vm) else { return Ok(None) };
    let Some(least) = def.least_count(filter) else { return Ok(None) };
    let SetV::Fixed(id) = set.get(p, vm)? else { return Ok(None) };
    let sites = &p.game.sets[id as usize];
    vm.spend(sites.len() as u64)?;
    let Some(least) = least else {
        if sites.is_empty() {
            return Ok(None);
        }
        let k = rng.gen_range(0..sites.len() as u64) as usize;
        return Ok(Some((Move { def: d as u16, args: [sites[k] as i32, 0, 0, 0], order: 0 }, k)));
    };
    if !vm.banks.is_empty() {
        for &s in sites {
            vm.read(s);
        }
    }
    // The sites that hold counters, gathered without a branch on the
    // counts (which a random game cannot predict), then the k-th of them.
    let picked = &mut vm.picked;
    if picked.len() < sites.len() {
        picked.resize(sites.len(), 0);
    }
    let (counts, colours) = (&vm.pos.counts, vm.colours);
    let mut n = 0;
    for &s in sites {
        picked[n] = s;
        n += (held(counts, colours, s) >= least) as usize;
    }
    if n == 0 {
        return Ok(None);
    }
    let k = rng.gen_range(0..n as u64) as usize;
    Ok(Some((Move { def: d as u16, args: [picked[k] as i32, 0, 0, 0], order: 0 }, k)))
}

/// The moves of a declaration that chooses one site and needs no trial (most
/// sowing games): the sites of the set, each tested, offered in one loop.
fn one_site(p: &Program, vm: &mut Vm, def: &MoveProg, mv: Move, sink: &mut Sink) -> Res<()> {
    let c = &def.choices[0];
    let ChoiceDomain::Set(set) = &c.domain else { unreachable!("one_site is a choice of a set") };
    let set = set.get(p, vm)?;
    let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
    let least = def.least_count(filter);
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
        let holds = |vm: &mut Vm, s: SiteId| match least {
            Some(m) => {
                vm.read(s);
                vm.count(s) >= m
            }
            None => true,
        };
        let offered = |s: SiteId| (Move { def: mv.def, args: [s as i32, 0, 0, 0], order: 0 }, 1);
        match sink {
            Sink::Any(found) => {
                let first = sites.iter().position(|&s| holds(vm, s));
                *found |= first.is_some();
                return vm.spend(first.map_or(sites.len(), |k| k + 1) as u64);
            }
            Sink::Count(total) => {
                let n = sites.iter().filter(|&&s| holds(vm, s)).count();
                *total = total.saturating_add(n as u128);
                return vm.spend(sites.len() as u64);
            }
            Sink::Candidates(out) | Sink::Groups(out) => {
                for &s in sites {
                    if holds(vm, s) {
                        out.push(offered(s));
                    }
                }
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
        sink.offer_site(mv.def, s)?;
        Ok(sink.done())
    };
    for_each_site(p, vm, set, &mut each)
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
        sink.offer_site(d, s)?;
        if sink.done() {
            break;
        }
    }
    Ok(())
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
fn list_only_move(p: &Program, vm: &mut Vm, me: u8, out: &mut Vec<Move>) -> Res<bool> {
    let Some(Some(l)) = p.listed.get(vm.pos.turn.phase as usize) else { return Ok(false) };
    let Some(&id) = l.sets.get(me as usize) else { return Ok(false) };
    list_sites(p, vm, l.least, l.def, id, out)
}

/// Offers the move `mv` (all choices made) if it is legal: checked by its
/// precheck, or by trying it when its legality depends on its effects.
fn leaf(p: &Program, vm: &mut Vm, def: &MoveProg, mv: Move, n: u128, sink: &mut Sink) -> Res<()> {
    if let Some(k) = def.nonempty {
        let s = mv.args[k] as SiteId;
        vm.read(s);
        if vm.count(s) == 0 {
            return Ok(());
        }
    }
    if !def.needs_trial || matches!(sink, Sink::Candidates(_)) {
        return sink.offer(mv, n);
    }
    // Try each order: legality may depend on where the colours fall.
    let mover = vm.f.mover;
    for r in 0..n {
        let m = Move { order: r, ..mv };
        if trial(p, vm, m, mover)? {
            sink.offer(m, 1)?;
            if sink.done() {
                break;
            }
        }
        if r >= MAX_LISTED {
            return Err(Fault::error(format!("more than {MAX_LISTED} orders of colours to try one by one")));
        }
    }
    Ok(())
}

/// Whether making `mv` as `mover` succeeds (the position is restored).
pub(crate) fn trial(p: &Program, vm: &mut Vm, mv: Move, mover: u8) -> Res<bool> {
    trial_kept(p, vm, mv, mover, false)
}

/// As [`trial`]; with `keep`, a move that succeeds keeps what its statements
/// made, for making it next (see [`crate::engine::vm::Tried`]; not with
/// hooks, which might answer differently the second time).
fn trial_kept(p: &Program, vm: &mut Vm, mv: Move, mover: u8, keep: bool) -> Res<bool> {
    let saved = vm.pos.turn.to_move;
    let frame = vm.f;
    vm.pos.turn.to_move = mover;
    let r = try_statements(p, vm, mv);
    let ok = match r {
        Ok(()) => {
            let keep = keep && p.game.hooks.is_none() && mover == saved;
            if keep {
                vm.keep_tried_and_undo(mv);
            } else {
                vm.undo();
            }
            true
        }
        Err(e) if e.is_illegal() => false,
        Err(e) => {
            vm.pos.turn.to_move = saved;
            vm.f = frame;
            return Err(e);
        }
    };
    vm.pos.turn.to_move = saved;
    vm.f = frame;
    Ok(ok)
}

/// Binds choice `i` to `v` (written `arg` in the move) and, if its `where`
/// holds, enumerates the choices after it. True when the sink wants no more.
#[inline]
#[allow(clippy::too_many_arguments)]
fn try_choice(
    p: &Program,
    vm: &mut Vm,
    def: &MoveProg,
    i: usize,
    mv: &mut Move,
    sink: &mut Sink,
    v: i64,
    arg: i32,
    filter: Option<&Opnd>,
) -> Res<bool> {
    vm.tick()?;
    bind_choices(def, i, mv, vm);
    let c = &def.choices[i];
    vm.locals[c.slot] = v;
    if let Some(f) = filter
        && !c.passes(f, p, vm)?
    {
        return Ok(false);
    }
    mv.args[i] = arg;
    enumerate(p, vm, def, i + 1, mv, sink)?;
    Ok(sink.done())
}

fn enumerate(p: &Program, vm: &mut Vm, def: &MoveProg, i: usize, mv: &mut Move, sink: &mut Sink) -> Res<()> {
    if i == def.choices.len() {
        return leaf(p, vm, def, *mv, 1, sink);
    }
    // Bind earlier choices again: evaluation of later domains may use them.
    bind_choices(def, i, mv, vm);
    let c = &def.choices[i];
    // The `where` for every value, once the domain is known.
    match &c.domain {
        ChoiceDomain::Range(a, b) => {
            let lo = a.get(p, vm)?;
            let hi = b.get(p, vm)?;
            check_range(lo, hi)?;
            let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
            for v in lo..=hi {
                if try_choice(p, vm, def, i, mv, sink, v, v as i32, filter)? {
                    return Ok(());
                }
            }
        }
        ChoiceDomain::Set(s) => {
            let set = s.get(p, vm)?;
            let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
            for k in 0..set_len(p, set) {
                let site = set_item(p, set, k);
                if try_choice(p, vm, def, i, mv, sink, site as i64, site as i32, filter)? {
                    return Ok(());
                }
            }
        }
        ChoiceDomain::Players => {
            let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
            for pl in 0..p.game.players.len() as i64 {
                if try_choice(p, vm, def, i, mv, sink, pl, pl as i32, filter)? {
                    return Ok(());
                }
            }
        }
        ChoiceDomain::Tracks => {
            let Gate::Open(filter) = c.gate(p, vm) else { return Ok(()) };
            for t in 0..p.game.tracks.len() as i64 {
                if try_choice(p, vm, def, i, mv, sink, t, t as i32, filter)? {
                    return Ok(());
                }
            }
        }
        ChoiceDomain::Arrangements(site) => {
            // The last choice: every order of the site's colours, as one group.
            let s = site.site(p, vm)?;
            vm.read(s);
            let (k, counts) = colours_of(vm, s);
            let n = arrange::multinomial(&counts[..k]).ok_or_else(|| {
                Fault::error(format!(
                    "`{}` holds too many counters to number their orders",
                    p.game.sites[s as usize].name
                ))
            })?;
            mv.args[i] = 0;
            mv.order = 0;
            return leaf(p, vm, def, *mv, n, sink);
        }
    }
    Ok(())
}

/// The counts of each colour in a site.
pub(crate) fn colours_of(vm: &Vm, s: SiteId) -> (usize, [u32; arrange::MAX_COLOURS]) {
    let c = vm.colours.min(arrange::MAX_COLOURS);
    let mut out = [0u32; arrange::MAX_COLOURS];
    for (k, o) in out.iter_mut().enumerate().take(c) {
        *o = vm.colour_count(s, k as u8).max(0) as u32;
    }
    (c, out)
}
