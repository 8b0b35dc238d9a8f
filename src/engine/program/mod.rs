//! The compiled program: a [`Game`]'s rules lowered once, when an engine is
//! made, to closures over a [`Vm`], with the tables they read. It never
//! changes during play and is shared by every copy of the engine, so the hot
//! path (legal moves, apply, undo) walks no syntax tree and allocates nothing.
//!
//! Lowering, in order, once what is fixed is folded (`fold.rs`): the setup;
//! each move's choices (domain, then `where`) and body (its own statements,
//! then its rules'); the `avoid`s; the `end`s; the phase changes; the
//! score; the glyphs. Local variables are typed as they are bound, in that
//! order, so every closure knows the type of what it reads (see
//! [`crate::engine::vm::NONE`] for how values are held).

mod cases;
mod cse;
pub(crate) mod expr;
mod fold;
mod hook;
mod leads;
mod loops;
mod memo;
pub(crate) mod narrow;
pub(crate) mod pin;
pub(crate) mod sets;
pub(crate) mod shapes;
mod sow;
pub(crate) mod state;
pub(crate) mod stmt;
mod sums;
mod tables;

use std::sync::{Arc, OnceLock};

use expr::{Opnd, SetOpnd};
pub(crate) use loops::{Asked, Listed};

use super::game::{BinOp, Domain, Expr, Game, SiteId, Type};
use super::vm::{Fault, Res, SetV, Vm};
use crate::diagnostics::Span;

pub(crate) type Fx = Box<dyn Fn(&Program, &mut Vm) -> Res<i64> + Send + Sync>;
pub(crate) type Fset = Box<dyn Fn(&Program, &mut Vm) -> Res<SetV> + Send + Sync>;
pub(crate) type Fst = Box<dyn Fn(&Program, &mut Vm) -> Res<()> + Send + Sync>;

/// A block of statements, lowered, with the place of each in the rule
/// file: an error a statement meets is told at the innermost statement
/// that met it (see [`run`]).
#[derive(Default)]
pub(crate) struct Block {
    stmts: Vec<Fst>,
    spans: Vec<Span>,
}

impl Block {
    pub(crate) fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }

    pub(crate) fn push(&mut self, s: Fst, span: Span) {
        self.stmts.push(s);
        self.spans.push(span);
    }

    /// `e`, met by the statement `s` of this block, given its place. Out of
    /// line, and `s` found by its address: the loop of [`run`] is the loop
    /// it was without places, with no count of statements (a refusal in a
    /// trial comes here too, and goes back as it was).
    #[inline(never)]
    fn placed(&self, e: Fault, s: &Fst) -> Fault {
        e.within(self.spans[index_in(&self.stmts, s)])
    }

    /// The statements of `other` after these, each with its own place.
    pub(crate) fn append(&mut self, other: Block) {
        self.stmts.extend(other.stmts);
        self.spans.extend(other.spans);
    }
}

/// The index of `x`, an element of `all`, found by its address: what an
/// error met in a loop over `all` is placed by, out of the loop (which
/// counts nothing for it).
pub(crate) fn index_in<T>(all: &[T], x: &T) -> usize {
    (x as *const T as usize - all.as_ptr() as usize) / std::mem::size_of::<T>().max(1)
}

/// Runs a block of statements. An error (not a refusal, which is no
/// mistake of the rules) gets the place of the statement that met it,
/// unless a statement inside it, or a hook, gave it one already: the
/// session shows that statement in the rule file.
#[inline]
pub(crate) fn run(block: &Block, p: &Program, vm: &mut Vm) -> Res<()> {
    for s in &block.stmts {
        if let Err(e) = s(p, vm) {
            return Err(block.placed(e, s));
        }
    }
    Ok(())
}

/// Where the values of a choice come from.
pub(crate) enum ChoiceDomain {
    Range(Opnd, Opnd),
    Set(SetOpnd),
    Players,
    Tracks,
    /// Every order of the colours in a site: the move's `order`.
    Arrangements(Opnd),
}

pub(crate) struct Choice {
    pub slot: usize,
    pub domain: ChoiceDomain,
    pub filter: Option<Opnd>,
    /// The closed `or` terms that begin some of the `where`'s `and` terms,
    /// and the choice as it is while they hold: its `where` is then the
    /// other terms alone, or nothing (see `memo.rs`, [`Lower::waiver`], and
    /// [`Choice::now`]). Only that choice's tests are read: its domain is
    /// this one's, lowered again, and its own waiver is none.
    pub waiver: Option<Waiver>,
    /// The closed conditions the `where` branches on, and the choice in
    /// each case of them (see `cases.rs` and [`Choice::now`]).
    pub cases: Option<cases::Cases>,
    /// The closed `and` terms of the `where` that can be asked first, and
    /// the `where` without them (`None`: nothing is left): while the first
    /// fail, no value passes; while they hold, the rest decides (see
    /// [`Lower::guard`]).
    pub guard: Option<(Opnd, Option<Opnd>)>,
    /// When the `where` begins with `count(x) >= m` (`count(h) > 1`, `2 <=
    /// count(h)`), alone or going on (`count(h) > 0 and tuzdik(h) == none`,
    /// `count(h) > 1 or ...`): see [`Lead`].
    pub lead: Option<Lead>,
    /// The `where` reads the chosen site only by its count and is otherwise
    /// closed (no other local, no chance, no hook): while the position
    /// stands, its value for a site is its value for any site of the same
    /// count, so a loop over sites asks it once for each count met
    /// (`movegen/sites.rs`'s `one_site`).
    pub counted: bool,
    /// A `where` that begins with what the site is (`x is pit and index(x)
    /// > 7 and ...`), perhaps after terms that cannot go wrong (a [`Lead`]'s
    /// count): the sets it narrows, and the rest of it (see `narrow.rs`;
    /// not when `counted`).
    pub narrow: Option<(narrow::Narrowed, Opnd)>,
    /// A `where` that names the only values that can pass (`b ==
    /// stacked(a) or ...`): see `pin.rs`.
    pub pin: Option<pin::Pin>,
}

/// A choice's waiver (see [`Choice::waiver`]): the closed terms, lowered,
/// and the choice while they hold.
pub(crate) struct Waiver {
    pub test: Opnd,
    pub waived: Box<Choice>,
    /// Whether asking `test` binds local variables of its own (a
    /// quantifier's): the callers' are kept aside around it.
    pub binds: bool,
}

/// A `where` that begins with a least count of the chosen site, in a chain
/// of `and`s (`all`) or of `or`s: the count `least` and the rest of the
/// chain, if any (see [`Lower::lead`], [`Choice::passes`]); a rest that
/// compares a per-site state of the site with a fixed value, also in place.
pub(crate) struct Lead {
    pub all: bool,
    pub least: i32,
    pub rest: Option<Rest>,
}

/// The rest of a [`Lead`]'s chain.
pub(crate) enum Rest {
    Opnd(Opnd),
    State(state::StateTest),
}

/// What a choice's `where` makes of its values now (see [`Choice::gate`]).
pub(crate) enum Gate<'a> {
    /// No value passes.
    Shut,
    /// The values that pass this test (every value: `None`).
    Open(Option<&'a Opnd>),
}

impl Choice {
    /// Whether the `where` is asked of each value as written, with nothing
    /// to decide first: no guard, waiver or cases.
    #[inline]
    pub(crate) fn as_written(&self) -> bool {
        self.guard.is_none() && self.waiver.is_none() && self.cases.is_none()
    }

    /// Whether this choice is an order of colours (bound to no value).
    #[inline]
    pub(crate) fn is_order(&self) -> bool {
        matches!(self.domain, ChoiceDomain::Arrangements(_))
    }

    /// The choice as its values are to be tested now: the one its waiver
    /// makes while the waiver holds (a `where` without the terms it waives:
    /// those terms are true of every value, and each of them is asked
    /// before the terms that can go wrong after it), else this one. A
    /// waiver that fails to evaluate waives nothing: the `where` then meets
    /// the same failure where it always did (or none, if no value is
    /// tested).
    /// Then, if the `where` it has is lowered by cases, the choice of the
    /// case the position is in (see `cases.rs`).
    #[inline(always)]
    pub(crate) fn now(&self, p: &Program, vm: &mut Vm) -> &Choice {
        // One match on the waiver, not `waives` then `now_after`: this is
        // asked at every search for moves.
        let c = match &self.waiver {
            None => self,
            Some(w) => match w.test.get(p, vm) {
                Ok(v) if v != 0 => &w.waived,
                _ => self,
            },
        };
        c.in_case(p, vm)
    }

    /// Whether the choice has a waiver and it holds (see [`Choice::now`]).
    #[inline(always)]
    pub(crate) fn waives(&self, p: &Program, vm: &mut Vm) -> bool {
        self.waiver.as_ref().is_some_and(|w| matches!(w.test.get(p, vm), Ok(v) if v != 0))
    }

    /// [`Choice::now`] once its waiver is asked: `waives`, whether it held.
    #[inline(always)]
    pub(crate) fn now_after(&self, waives: bool, p: &Program, vm: &mut Vm) -> &Choice {
        match &self.waiver {
            Some(w) if waives => w.waived.in_case(p, vm),
            _ => self.in_case(p, vm),
        }
    }

    /// The choice of the case the position is in, if its `where` is
    /// lowered by cases (see `cases.rs`), else this one.
    #[inline(always)]
    fn in_case(&self, p: &Program, vm: &mut Vm) -> &Choice {
        match &self.cases {
            None => self,
            Some(cases) => cases.pick(p, vm).unwrap_or(self),
        }
    }

    /// The `where` to test each value by (of a choice [`Choice::now`] gave),
    /// and shut while its guard fails:
    /// for the values of a choice that is not an order of colours, worked
    /// out once before they are tried. The guard reads no local variable,
    /// so it is the same for every value; and the `where` asks it before
    /// any term that can go wrong, so each value would fail on it (or pass
    /// to the rest) in the same way. A guard that fails to evaluate decides
    /// nothing (and costs no work): the whole `where` then meets the same
    /// failure where it always did, or none if no value is tested.
    #[inline(always)]
    pub(crate) fn gate(&self, p: &Program, vm: &mut Vm) -> Gate<'_> {
        match &self.guard {
            None => Gate::Open(self.filter.as_ref()),
            Some((g, rest)) => self.guarded(g, rest.as_ref(), p, vm),
        }
    }

    /// The choice its values are tested as now ([`Choice::now`]) and the
    /// `where` to test them by ([`Choice::gate`]); `None` when none passes.
    #[inline(always)]
    pub(crate) fn tested(&self, p: &Program, vm: &mut Vm) -> Option<(&Choice, Option<&Opnd>)> {
        let c = self.now(p, vm);
        match c.gate(p, vm) {
            Gate::Open(filter) => Some((c, filter)),
            Gate::Shut => None,
        }
    }

    /// Whether the value bound in the choice's slot passes `filter`, the
    /// `where` now ([`Choice::gate`]). The whole `where` with a [`Lead`]
    /// reads the site's count in place, and asks the rest only when the
    /// count does not decide (it holds, for `and`s; it fails, for `or`s):
    /// what the chain reads, in its order.
    #[inline(always)]
    pub(crate) fn passes(&self, filter: &Opnd, p: &Program, vm: &mut Vm) -> Res<bool> {
        if let Some(lead) = &self.lead
            && self.filter.as_ref().is_some_and(|f| std::ptr::eq(f, filter))
        {
            let s = vm.locals[self.slot] as SiteId;
            vm.read(s);
            if (vm.count(s) >= lead.least) != lead.all {
                return Ok(!lead.all);
            }
            return match &lead.rest {
                Some(Rest::Opnd(rest)) => Ok(rest.get(p, vm)? != 0),
                Some(Rest::State(t)) => t.holds_at(p, vm, s),
                None => Ok(lead.all),
            };
        }
        Ok(filter.get(p, vm)? != 0)
    }

    /// `Some(m)` when the `where` is `count(x) >= m` and nothing else: the
    /// loops over a fixed set compare each site's count in place
    /// (`movegen/sites.rs`'s `one_site`).
    #[inline(always)]
    pub(crate) fn at_least(&self) -> Option<i32> {
        self.lead.as_ref().filter(|l| l.rest.is_none()).map(|l| l.least)
    }

    fn guarded<'a>(&'a self, g: &Opnd, rest: Option<&'a Opnd>, p: &Program, vm: &mut Vm) -> Gate<'a> {
        let fuel = vm.fuel;
        match g.get(p, vm) {
            Ok(0) => Gate::Shut,
            Ok(_) => Gate::Open(rest),
            Err(_) => {
                vm.fuel = fuel;
                Gate::Open(self.filter.as_ref())
            }
        }
    }
}

/// `count(x) >= m` of the choice in `slot`, `m` a number that fits a
/// count (`count(x) > k` is `>= k + 1`), either way round: `m`.
pub(super) fn count_at_least(e: &Expr, slot: u8) -> Option<i32> {
    least_count_of(e, |x| x.is_count_of(slot))
}

/// A `where` made only of comparisons of the chosen site's count with
/// fixed numbers, joined by `and`, `or` and `not` (Moruba's `count(h) > 1
/// or (count(h) == 1 and ...)` once an option folds the rest away), that
/// fails below some count and holds from it up: that count. Such a
/// `where` neither goes wrong nor takes a step of work, so it is that
/// least count wherever it is asked.
pub(super) fn count_threshold(e: &Expr, slot: u8) -> Option<i32> {
    // Past the largest number compared with, every comparison reads as
    // it reads at one more than that number.
    fn largest(e: &Expr, slot: u8) -> Option<i64> {
        match e.unspanned() {
            Expr::Not(x) => largest(x, slot),
            Expr::Bin(BinOp::And | BinOp::Or, a, b) => Some(largest(a, slot)?.max(largest(b, slot)?)),
            x => shapes::count_test(x, slot).map(|(_, k)| k),
        }
    }
    fn holds(e: &Expr, slot: u8, c: i64) -> bool {
        match e.unspanned() {
            Expr::Not(x) => !holds(x, slot, c),
            Expr::Bin(BinOp::And, a, b) => holds(a, slot, c) && holds(b, slot, c),
            Expr::Bin(BinOp::Or, a, b) => holds(a, slot, c) || holds(b, slot, c),
            x => shapes::count_test(x, slot).is_some_and(|(h, k)| shapes::compared(h, c, k)),
        }
    }
    let top = largest(e, slot)?.max(0).checked_add(1)?;
    if top > 1 << 16 {
        return None;
    }
    let least = (0..=top).find(|&c| holds(e, slot, c))?;
    if !(least..=top).all(|c| holds(e, slot, c)) {
        return None;
    }
    i32::try_from(least).ok()
}

/// As [`count_at_least`], for the count `is_count` says is the one meant
/// (`count(last)`, in a relay's condition).
pub(super) fn least_count_of(e: &Expr, is_count: impl Fn(&Expr) -> bool) -> Option<i32> {
    let least = match shapes::count_test_of(e, is_count)? {
        (0b100, k) => k.checked_add(1)?,
        (0b110, k) => k,
        _ => return None,
    };
    i32::try_from(least).ok()
}

pub(crate) struct MoveProg {
    pub phase: u8,
    pub choices: Vec<Choice>,
    pub body: Block,
    /// See [`crate::engine::game::MoveDef::needs_trial`].
    pub needs_trial: bool,
    pub nonempty: Option<usize>,
    /// One choice, of a site from a set: its moves are found by a plain
    /// loop over the sites (`movegen/sites.rs`'s `one_site`), a move that
    /// must be tried tried there, a candidate to draw from only when drawn.
    pub one_site: bool,
}

impl Lower<'_> {
    /// A move's choice `p`, its `where` being `filter`; with the memos, the
    /// choice it becomes while the closed terms its waiver asks hold, and
    /// in each case of its decisions (see [`Choice::now`]). `key`: its declaration and the slots of the
    /// choices up to it, this one's last, for the parts that draw (its
    /// `where`, and its domain's from the slots before its own).
    fn choice(
        &mut self,
        p: &crate::engine::game::Param,
        filter: Option<&Expr>,
        nonempty: Option<u8>,
        memos: bool,
        key: (u16, &[u8]),
    ) -> Choice {
        // The values a choice ranges over, each part that draws numbers in
        // a stream of its own (see [`Lower::drawing`]).
        let (def, slots) = key;
        let earlier = &slots[..slots.len() - 1];
        let part = |l: &mut Self, e: &Expr, k: i64| match e.draws() {
            true => l.drawing(e, def, earlier, Some(crate::engine::DOMAIN_PART + k)),
            false => l.opnd(e),
        };
        let (domain, ty) = match &p.domain {
            Domain::Range(a, b) => (ChoiceDomain::Range(part(self, a, 0), part(self, b, 1)), Type::Int),
            Domain::Set(s) if s.draws() => {
                let (inner, stream) = (self.set(s), stream(def, earlier, Some(crate::engine::DOMAIN_PART)));
                (
                    ChoiceDomain::Set(SetOpnd::Dyn(Box::new(move |p, vm| {
                        in_stream(vm, &stream, |vm| inner.get(p, vm))
                    }))),
                    Type::Site,
                )
            }
            Domain::Set(s) => (ChoiceDomain::Set(self.set(s)), Type::Site),
            Domain::Players => (ChoiceDomain::Players, Type::Player),
            Domain::Tracks => (ChoiceDomain::Tracks, Type::Track),
            Domain::Arrangements(s) => (ChoiceDomain::Arrangements(part(self, s, 0)), Type::Order),
            // The grammar has no walk among a move's choices.
            Domain::Walk { .. } => unreachable!("a walk is no choice"),
        };
        self.slots[p.slot as usize] = ty;
        if let Some(f) = filter.filter(|f| f.draws()) {
            // Asked of each value as it is, whole: no part of it worked
            // out once for all of them.
            let filter = Some(self.drawing(f, def, slots, None));
            let (waiver, cases, guard, lead, narrow, pin) = (None, None, None, None, None, None);
            let counted = false;
            return Choice { slot: p.slot as usize, domain, filter, waiver, cases, guard, lead, counted, narrow, pin };
        }
        let lowered = filter.map(|f| if memos { self.filter(f) } else { self.opnd(f) });
        let waiver = filter.filter(|_| memos).and_then(|f| self.waiver(f, nonempty)).map(|(test, rest, binds)| {
            let waived = Box::new(self.choice(p, rest.as_ref(), nonempty, memos, key));
            Waiver { test, waived, binds }
        });
        let cases = filter.filter(|_| memos).and_then(|f| self.cases(p, f, nonempty, key));
        let guard = filter.filter(|_| memos).and_then(|f| self.guard(f));
        let lead = match (filter, ty) {
            (Some(f), Type::Site) => self.lead(f, p.slot, memos),
            _ => None,
        };
        let counted = memos && ty == Type::Site && filter.is_some_and(|f| self.counted(f, p.slot));
        let narrow = match filter {
            Some(f) if ty == Type::Site && !counted => self.with_memos(f, |l| l.narrowing(BinOp::And, p.slot, f)),
            _ => None,
        };
        let pin = filter.filter(|_| memos).and_then(|f| self.pin(f, p.slot, &p.domain));
        Choice { slot: p.slot as usize, domain, filter: lowered, waiver, cases, guard, lead, counted, narrow, pin }
    }

    /// A part of a move's listing that draws numbers (a `where`, a bound
    /// of a range, an arrangement's site): worked out in its own stream of draws, which
    /// the draws around it do not see (see [`stream`]).
    fn drawing(&mut self, e: &Expr, def: u16, slots: &[u8], marker: Option<i64>) -> Opnd {
        let (inner, stream) = (self.opnd(e), stream(def, slots, marker));
        Opnd::Dyn(Box::new(move |p, vm| in_stream(vm, &stream, |vm| inner.get(p, vm))))
    }
}

/// The stream of draws of a part of a move's listing (see
/// [`crate::engine::where_draws`]): the declaration `def`, the values of the
/// choices in `slots` (a `where`'s: up to its own; a domain's: those before
/// it) and `marker` after them (a domain's part).
fn stream(def: u16, slots: &[u8], marker: Option<i64>) -> impl Fn(&Vm) -> u64 + Send + Sync + 'static {
    let slots: Box<[usize]> = slots.iter().map(|&s| s as usize).collect();
    move |vm| crate::engine::where_draws(def, slots.iter().map(|&s| vm.locals[s]).chain(marker))
}

/// `work` done in the stream `stream` gives; the draws around it go on as
/// they were.
#[inline]
fn in_stream<T>(vm: &mut Vm, stream: &impl Fn(&Vm) -> u64, work: impl FnOnce(&mut Vm) -> Res<T>) -> Res<T> {
    let draws = vm.draws;
    vm.draws = stream(vm);
    let r = work(vm);
    vm.draws = draws;
    r
}

impl MoveProg {
    /// What the site of a one-site move must hold to be chosen, when that
    /// is all there is to ask of it, `filter` the `where` left to ask now
    /// (see [`Choice::gate`]): `Some(None)`, nothing (every site passes);
    /// `Some(Some(m))`, `m` counters or more (its `where` or `nonempty`
    /// reads its count); `None`, a `where` of another form.
    #[inline(always)]
    pub(crate) fn least_count(&self, c: &Choice, filter: Option<&Opnd>) -> Option<Option<i32>> {
        let nonempty = self.nonempty.is_some();
        match filter {
            None => Some(nonempty.then_some(1)),
            Some(f) if c.filter.as_ref().is_some_and(|g| std::ptr::eq(f, g)) => {
                c.at_least().map(|m| Some(if nonempty { m.max(1) } else { m }))
            }
            Some(_) => None,
        }
    }
}

/// An `end` (or a round): its condition, who wins or loses (`winner P`:
/// true), its statements.
pub(crate) struct EndProg {
    /// The condition; of an `end` with a `rest`, its first `and` term.
    pub cond: Opnd,
    /// The rest of an `end`'s condition after its first `and` term, when a
    /// round's condition is that term (see `leads.rs`).
    pub rest: Option<Opnd>,
    /// A round's condition that is the first term of this `end`'s: false
    /// when that `end` found its first term false after this move.
    pub lead_of: Option<u16>,
    pub verdict: Option<(bool, Opnd)>,
    pub body: Block,
}

/// A phase's change: the phase to enter and when.
pub(crate) struct PhaseChange {
    pub to: u8,
    pub cond: Opnd,
    /// The `end` whose first `and` terms are `cond`'s (see `leads.rs`).
    pub lead_of: Option<u16>,
}

pub struct Program {
    pub(crate) game: Arc<Game>,
    pub(crate) setup: Block,
    pub(crate) moves: Vec<MoveProg>,
    /// Each phase's move declaration, when it is the phase's only one.
    pub(crate) only_move: Vec<Option<u16>>,
    /// Each phase's only move, when it is listed by a plain loop over a set
    /// (it needs no trial).
    pub(crate) listed: Vec<Option<Listed>>,
    /// Each phase's only move, when it is drawn from a set's sites by a
    /// plain loop (tried when drawn, if it must be).
    pub(crate) drawn: Vec<Option<Listed>>,
    /// Each phase's only move, when it chooses one site and needs no
    /// trial: whether a player can move is found by its loop over the
    /// sites alone (`movegen/any.rs`'s `any_asked`), without the
    /// general search around it.
    pub(crate) asked: Vec<Option<Asked>>,
    pub(crate) avoids: Vec<Opnd>,
    pub(crate) ends: Vec<EndProg>,
    /// Whether an `end` asks a round's condition first (see `leads.rs`).
    pub(crate) led_ends: bool,
    /// That condition, asked in place, when it is the only thing to ask.
    pub(crate) lead_test: Option<leads::LeadTest>,
    pub(crate) rounds: Vec<EndProg>,
    /// The `end` whose first term is the condition of the game's only
    /// round, if it has one round and such an `end` (see `leads.rs`).
    pub(crate) round_lead: Option<u16>,
    /// `when stuck: end { ... }`: run when the player to move has no move.
    pub(crate) stuck_body: Block,
    /// Each phase's changes.
    pub(crate) phases: Vec<Vec<PhaseChange>>,
    /// Whether any phase has changes (most games have none to look at).
    pub(crate) phase_changes: bool,
    /// How many players there are (read at every move: here, not behind
    /// the game's pointer).
    pub(crate) players: u8,
    pub(crate) score_slot: usize,
    pub(crate) score: Opnd,
    pub(crate) glyphs: Vec<Opnd>,
    /// Each fixed set of sites as bits, for membership tests.
    pub(crate) members: Vec<Vec<u64>>,
    /// Each site's owner ([`crate::engine::vm::NONE`]: none) and kind.
    pub(crate) owners: Vec<i64>,
    pub(crate) kinds: Vec<u8>,
    /// The kind of every site of each fixed set, if they share one (none:
    /// an empty set, or one of two kinds or more).
    pub(crate) set_kinds: Vec<Option<u8>>,
    /// The sowing tables (see [`crate::engine::vm::SowTable`]), made on first use.
    pub(crate) sow_tables: Vec<OnceLock<crate::engine::vm::SowTable>>,
    /// How many local variable slots the closures use.
    pub(crate) locals: usize,
    /// How many memos the choices' `where`s keep (see `memo.rs`).
    pub(crate) memos: usize,
    /// The multipliers of the position's hash (see [`super::position_hash`]).
    pub(crate) hash_keys: Vec<u64>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program").field("game", &self.game.name).field("moves", &self.moves.len()).finish()
    }
}

/// The lowering: the game, and the type each local slot holds as lowering
/// goes through the program in order.
pub(crate) struct Lower<'g> {
    pub g: &'g Game,
    pub slots: Vec<Type>,
    /// Sowing tables handed out so far.
    pub sow_cells: usize,
    /// The parts of the `where` being lowered to keep behind memos (their
    /// addresses, and the slot of the site a part is kept for each value
    /// of; see `memo.rs`), and how many memos there are so far.
    pub memo_targets: Vec<(usize, Option<u8>)>,
    pub memos: usize,
    /// The choice whose `where` is being lowered: its slot, and whether it
    /// is its move's first (see [`Lower::keyed_parts`]).
    pub choosing: (u8, bool),
    /// The parts kept for each site so far, renamed to one slot, and their
    /// first memos: one part written in several places shares them.
    pub keyed: Vec<(Expr, usize)>,
    /// Whether functions of one site are tabulated (see `tables.rs`); off
    /// while the function itself is lowered, and in the plain program.
    pub tables: bool,
    /// Each family's members in an array by key, made once for a type of
    /// key (see `tables.rs`).
    pub members: Vec<Option<(Type, tables::Members)>>,
    /// Whether the `where` being lowered is one case of another (see
    /// `cases.rs`): not cased again.
    pub casing: bool,
}

impl<'g> Lower<'g> {
    /// The lowering of `g` from its start; functions of a site tabulated
    /// if `tables`.
    pub(crate) fn new(g: &'g Game, tables: bool) -> Lower<'g> {
        Lower {
            g,
            slots: vec![Type::Int; g.locals.max(1) + 4],
            sow_cells: 0,
            memo_targets: vec![],
            memos: 0,
            choosing: (0, true),
            keyed: vec![],
            tables,
            members: vec![None; g.families.len()],
            casing: false,
        }
    }
}

impl Program {
    pub fn new(game: Arc<Game>) -> Program {
        Program::lower(game, true)
    }

    /// The program with every part of the `where`s evaluated each time
    /// (`memos` false), no function of a site tabulated, nothing folded and
    /// no part kept for a later place: what the memos, tables, folding and
    /// kept parts must agree with (see `memo.rs`, `tables.rs`, `fold.rs`,
    /// `cse.rs`).
    pub fn lower(game: Arc<Game>, memos: bool) -> Program {
        let folded = memos.then(|| {
            let mut f = fold::game(&game);
            cse::game(&game, &mut f);
            f
        });
        let g = folded.as_ref().unwrap_or(&game);
        let mut l = Lower::new(g, memos);
        let setup = l.block(&g.setup);
        let mut moves = Vec::with_capacity(g.moves.len());
        for (d, def) in g.moves.iter().enumerate() {
            let mut choices = Vec::with_capacity(def.params.len());
            let slots: Vec<u8> = def.params.iter().map(|p| p.slot).collect();
            for (i, p) in def.params.iter().enumerate() {
                // The move requires counters in this choice's site anyway.
                let nonempty = (def.nonempty == Some(i)).then_some(p.slot);
                l.choosing = (p.slot, i == 0);
                choices.push(l.choice(p, p.filter.as_ref(), nonempty, memos, (d as u16, &slots[..=i])));
            }
            let body = l.block(&def.body);
            let one_site = choices.len() == 1
                && matches!(choices[0].domain, ChoiceDomain::Set(_))
                && def.nonempty.is_none_or(|k| k == 0);
            moves.push(MoveProg {
                one_site,
                phase: def.phase,
                choices,
                body,
                needs_trial: def.needs_trial,
                nonempty: def.nonempty,
            });
        }
        let avoids = g.avoids.iter().map(|(_, c, _)| l.opnd(c)).collect();
        let leads::Shared { ends: leads, rounds: lead_of, phases: phase_leads } =
            if memos { leads::shared(&l, g) } else { leads::Shared::none(g) };
        let ends: Vec<EndProg> = g
            .ends
            .iter()
            .zip(&leads)
            .map(|(e, lead)| EndProg {
                cond: l.opnd(lead.as_ref().map_or(&e.cond, |(first, _)| first)),
                rest: lead.as_ref().map(|(_, rest)| l.opnd(rest)),
                lead_of: None,
                verdict: e.verdict.as_ref().map(|(w, x)| (*w, l.opnd(x))),
                body: l.block(&e.body),
            })
            .collect();
        let stuck_body = l.block(&g.stuck_body);
        let lead_test = leads::lead_test(&l, g, (&ends, &leads), !stuck_body.is_empty());
        let rounds: Vec<EndProg> = g
            .rounds
            .iter()
            .zip(lead_of)
            .map(|(e, lead_of)| EndProg {
                cond: l.opnd(&e.cond),
                rest: None,
                lead_of,
                verdict: None,
                body: l.block(&e.body),
            })
            .collect();
        let phases: Vec<Vec<PhaseChange>> = (g.phases.iter().zip(&phase_leads))
            .map(|(def, leads)| {
                let changes = def.transitions.iter().zip(leads);
                changes.map(|((to, c, _), &lead_of)| PhaseChange { to: *to, cond: l.opnd(c), lead_of }).collect()
            })
            .collect();
        let phase_changes = phases.iter().any(|ph| !ph.is_empty());
        l.slots[g.score.0 as usize] = Type::Player;
        let score = l.opnd(&g.score.1);
        l.slots[g.glyph_slot as usize] = Type::Site;
        let glyphs = g.glyphs.iter().map(|(_, c)| l.opnd(c)).collect();
        let members = g
            .sets
            .iter()
            .map(|set| {
                let mut bits = vec![0u64; g.sites.len().div_ceil(64)];
                for &s in set {
                    bits[s as usize / 64] |= 1 << (s % 64);
                }
                bits
            })
            .collect();
        let only_move: Vec<Option<u16>> = (0..g.phases.len().max(1))
            .map(|ph| {
                let mut defs = moves.iter().enumerate().filter(|(_, m)| m.phase as usize == ph);
                match (defs.next(), defs.next()) {
                    (Some((d, _)), None) => Some(d as u16),
                    _ => None,
                }
            })
            .collect();
        let drawn: Vec<Option<Listed>> =
            only_move.iter().map(|d| Listed::new(&moves, (*d)?, g.players.len())).collect();
        let listed = drawn.iter().map(|l| l.clone().filter(|l| !moves[l.def as usize].needs_trial)).collect();
        let asked = only_move.iter().map(|d| Listed::asked(&moves, (*d)?, g.players.len())).collect();
        let sow_tables = (0..l.sow_cells).map(|_| OnceLock::new()).collect();
        let owners = g.sites.iter().map(|s| s.owner.map_or(super::vm::NONE, |o| o as i64)).collect();
        let kinds: Vec<u8> = g.sites.iter().map(|s| s.kind.index() as u8).collect();
        let set_kinds = g
            .sets
            .iter()
            .map(|set| {
                let first = kinds[*set.first()? as usize];
                set.iter().all(|&s| kinds[s as usize] == first).then_some(first)
            })
            .collect();
        Program {
            setup,
            moves,
            only_move,
            listed,
            drawn,
            asked,
            avoids,
            led_ends: leads.iter().any(Option::is_some),
            lead_test,
            ends,
            round_lead: match &rounds[..] {
                [only] => only.lead_of,
                _ => None,
            },
            rounds,
            stuck_body,
            phases,
            phase_changes,
            players: g.players.len() as u8,
            score_slot: g.score.0 as usize,
            score,
            glyphs,
            members,
            owners,
            kinds,
            set_kinds,
            sow_tables,
            locals: l.slots.len(),
            memos: l.memos,
            hash_keys: super::hash_keys(g.sites.len() * g.colours + g.state_slots()),
            game,
        }
    }
}
