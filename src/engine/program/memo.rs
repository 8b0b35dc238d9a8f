//! The parts of a choice's `where` that do not depend on the choice: worked
//! out once while the moves of a position are found, not once per candidate.
//!
//! Katro's `row(hole) == outermost(mover)` sums the counts of a row for each
//! of eighteen holes; `outermost(mover)` is the same for all of them. Such a
//! part is *closed* (it reads no local variable bound outside it, and draws
//! no `random` number and calls no hook, whose results are not only the
//! position's; nor asks `can-move` in rules with chance or hooks) and worth keeping (it holds a quantifier, a filter, a
//! `can-move` or a count of a set, or is large). It is lowered behind a
//! memo: the first evaluation during a search for moves (`movegen::raw`)
//! keeps its value, the others read it. The position does not change during
//! that search (a tried move is undone before the next candidate), and a
//! search nested inside it (a `can-move`) has memos of its own, so the kept
//! value is always the one evaluation would give. It is still evaluated
//! first where it was written, so `and`, `or` and `if` skip it as before,
//! and an error comes where it came; and each read spends the work the
//! value took (see [`kept`]), so the work budget runs out where it would.
//!
//! A part that reads one site variable alone is a function of that site
//! while the position stands: where it is asked again for the same site
//! (in a quantifier's body, or at each value of a later choice), it is
//! kept for each site (see [`Lower::keyed_parts`]).

use std::collections::HashMap;

use crate::engine::game::{BinOp, Domain, Expr, Type};
use crate::engine::vm::{Res, Vm};

use super::{Fx, Lower, Program};

/// Locals as bits (slots are below 256).
#[derive(Clone, Copy, Default, PartialEq)]
pub(super) struct Slots([u64; 4]);

impl Slots {
    pub(super) fn one(s: u8) -> Slots {
        let mut b = Slots::default();
        b.0[(s / 64) as usize] |= 1 << (s % 64);
        b
    }
    pub(super) fn with(mut self, o: Slots) -> Slots {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        self
    }
    fn without(mut self, s: u8) -> Slots {
        self.0[(s / 64) as usize] &= !(1 << (s % 64));
        self
    }
    fn minus(mut self, o: Slots) -> Slots {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a &= !b;
        }
        self
    }
    pub(super) fn empty(self) -> bool {
        self == Slots::default()
    }
    pub(super) fn has(self, s: u8) -> bool {
        self.0[(s / 64) as usize] & (1 << (s % 64)) != 0
    }
    /// The slot, when there is exactly one.
    fn single(self) -> Option<u8> {
        let mut it = self.0.iter().enumerate().filter(|(_, w)| **w != 0);
        match (it.next(), it.next()) {
            (Some((i, w)), None) if w.count_ones() == 1 => Some(i as u8 * 64 + w.trailing_zeros() as u8),
            _ => None,
        }
    }
}

/// What a part of an expression reads and costs.
#[derive(Clone, Copy)]
struct Info {
    free: Slots,
    pure: bool,
    /// Holds a loop (quantifier, filter, `can-move`, count of a set).
    heavy: bool,
    size: u32,
    /// The slots of the parts kept inside (`Expr::Keep`, see `cse.rs`):
    /// the places inside that read them read nothing from outside.
    keeps: Slots,
}

impl Info {
    fn closed(&self) -> bool {
        self.pure && self.free.empty()
    }
}

/// Nodes of this size or more are kept even without a loop.
const LARGE: u32 = 16;

impl Lower<'_> {
    /// Whether `e` holds no loop (no quantifier, filter, `can-move` or count
    /// of a set): it takes no step of the work budget.
    pub(super) fn loopless(&self, e: &Expr) -> bool {
        !self.scan(e, &mut Vec::new()).heavy
    }

    /// Whether [`Lower::filter`] keeps closed parts of the `where` `e`
    /// behind memos (or `e` whole).
    pub(super) fn keeps_closed_parts(&self, e: &Expr) -> bool {
        let mut found = Vec::new();
        let info = self.scan(e, &mut found);
        !found.is_empty() || (info.closed() && self.worth(e, &info))
    }

    /// Lowers a choice's `where`, its closed parts behind memos.
    pub(crate) fn filter(&mut self, e: &Expr) -> super::expr::Opnd {
        self.filter_kept(e, true)
    }

    /// What `lower` makes of the parts of a choice's `where` `e`, with
    /// `e`'s closed parts behind memos, as [`Lower::filter`] puts them.
    pub(super) fn with_memos<T>(&mut self, e: &Expr, lower: impl FnOnce(&mut Self) -> T) -> T {
        let mut found = Vec::new();
        let info = self.scan(e, &mut found);
        if info.closed() {
            found.clear();
        }
        let found = found.into_iter().map(|at| (at, None)).collect();
        let before = std::mem::replace(&mut self.memo_targets, found);
        let t = lower(self);
        self.memo_targets = before;
        t
    }

    /// As [`Lower::filter`]; kept for each count (when it may be) only if
    /// `counted`.
    pub(super) fn filter_kept(&mut self, e: &Expr, counted: bool) -> super::expr::Opnd {
        let mut found = Vec::new();
        let info = self.scan(e, &mut found);
        if info.closed() {
            found.clear();
            if self.worth(e, &info) {
                found.push(e as *const Expr as usize);
            }
        }
        let mut found: Vec<_> = found.into_iter().map(|at| (at, None)).collect();
        self.keyed_parts(e, e, &mut Vec::new(), &mut found);
        let before = std::mem::replace(&mut self.memo_targets, found);
        let o = self.opnd(e);
        self.memo_targets = before;
        match self.kept_by_count(e, &info).filter(|_| counted) {
            Some(slot) => {
                let base = self.memos;
                self.memos += COUNTS_KEPT;
                super::expr::Opnd::Dyn(by_count(o, slot as usize, base))
            }
            None => o,
        }
    }

    /// Whether `e` reads the site in `slot` only by its count, and nothing
    /// else that may change while the position stands (see
    /// [`super::Choice::counted`]).
    pub(crate) fn counted(&self, e: &Expr, slot: u8) -> bool {
        let info = self.scan(e, &mut Vec::new());
        info.pure && info.free.single() == Some(slot) && only_counted(e, slot)
    }

    /// The choice whose site alone `e` reads, by its count, when `e` is
    /// kept for each count ([`by_count`]).
    fn kept_by_count(&self, e: &Expr, info: &Info) -> Option<u8> {
        let slot = info.free.single()?;
        let kept =
            info.pure && info.size >= BY_COUNT && self.slots[slot as usize] == Type::Site && only_counted(e, slot);
        kept.then_some(slot)
    }

    /// What lets a choice's `where` pass with some of its terms unasked: the
    /// `where` is an `and` of terms of which some are chains of `or`s that
    /// begin with closed terms (as above: they read nothing of the choice).
    /// While those closed terms hold, each such chain is true of every value
    /// (an `or` stops at its first true term), so the `where` is true of a
    /// value exactly when its other terms are, asked in their order (an
    /// `and` stops at its first false one): no error is missed, and none is
    /// made. The waiver (the closed terms, lowered) and the `where` without
    /// those chains; without anything, when what is left is the test that
    /// the chosen site holds counters (`count(h) > 0`) and the move requires
    /// it anyway (`nonempty`). A rule that a player must feed an opponent
    /// left empty waives all of it: `count(h) > 0 and (count(every pit of
    /// opponent(mover)) > 0 or ...)`, its moves then found as if there were
    /// no `where` (see `movegen/sites.rs`'s `one_site`); a rule of the
    /// opening, part of it: `count(h) > 1 and (ply >= 10 or ...)`. With
    /// them, whether the waiver binds local variables of its own (see
    /// [`super::Waiver::binds`]). `None` when no term is of this form.
    pub(crate) fn waiver(&mut self, e: &Expr, nonempty: Option<u8>) -> Option<(super::expr::Opnd, Option<Expr>, bool)> {
        let mut conjuncts = Vec::new();
        terms(BinOp::And, e, &mut conjuncts);
        let (mut parts, mut rest) = (Vec::new(), Vec::new());
        for c in conjuncts {
            let mut alternatives = Vec::new();
            terms(BinOp::Or, c, &mut alternatives);
            let closed = alternatives.iter().take_while(|t| self.scan(t, &mut Vec::new()).closed()).count();
            match join(BinOp::Or, &alternatives[..closed]) {
                Some(part) => parts.push(part),
                None => rest.push(c),
            }
        }
        let waiver = join(BinOp::And, &parts.iter().collect::<Vec<_>>())?;
        let needed = |t: &&Expr| !nonempty.is_some_and(|slot| t.is_nonempty_test(slot));
        let rest = if rest.iter().any(needed) { join(BinOp::And, &rest) } else { None };
        Some((self.filter(&waiver), rest, waiver.binds()))
    }

    /// A choice's `where` split into its closed `and` terms (they read
    /// nothing of the choice, nor of any choice before it) and the rest, in
    /// order (`None` when the closed terms are all of it). The closed terms
    /// are taken from its beginning, and past open terms that cannot go
    /// wrong (`count(h) > 0`: see [`cannot_fail`]), up to the first open
    /// term that can: asked first, they answer as they would have where
    /// they stand. A rule that offers a move only in some state is one:
    /// `choosing and count(x) > 0`, `count(h) > 0 and not capture-exists(mover)`.
    /// `None` when there is no such term.
    pub(crate) fn guard(&mut self, e: &Expr) -> Option<(super::expr::Opnd, Option<super::expr::Opnd>)> {
        let (closed, rest) = self.guarded_terms(e);
        let guard = join(BinOp::And, &closed)?;
        let rest = join(BinOp::And, &rest);
        Some((self.filter(&guard), rest.map(|r| self.filter(&r))))
    }

    /// The `and` terms of a choice's `where` its guard asks (see
    /// [`Lower::guard`]), and the others, each in order.
    pub(super) fn guarded_terms<'e>(&self, e: &'e Expr) -> (Vec<&'e Expr>, Vec<&'e Expr>) {
        let mut conjuncts = Vec::new();
        terms(BinOp::And, e, &mut conjuncts);
        let (mut closed, mut rest) = (Vec::new(), Vec::new());
        let mut open_failing = false;
        for t in conjuncts {
            if !open_failing && self.is_closed(t) {
                closed.push(t);
            } else {
                open_failing |= !cannot_fail(t);
                rest.push(t);
            }
        }
        (closed, rest)
    }

    /// Whether `e` reads no local variable bound outside it, draws no
    /// number and calls no hook (see the top of this file).
    pub(super) fn is_closed(&self, e: &Expr) -> bool {
        self.scan(e, &mut Vec::new()).closed()
    }

    /// A choice's `where` that begins with a least count of its site, in
    /// a chain of `and`s (`count(h) > 0 and ...`) or of `or`s (`count(h) >
    /// 1 or ...`), or that is that count alone (or several comparisons of
    /// it that amount to one: [`super::count_threshold`]): whether it is `and`s, that
    /// count, and the rest of the chain if any, lowered as the `where` is
    /// (with kept parts when `memos`, never kept by count). The loops over
    /// the sites read the count in place and ask the rest only of the
    /// sites the count does not decide, as the chain would. `None` for any
    /// other `where`, and for one that goes on but is kept whole for each
    /// count.
    pub(crate) fn lead(&mut self, e: &Expr, slot: u8, memos: bool) -> Option<super::Lead> {
        // A least count written as several comparisons of the count.
        if let Some(least) = super::count_threshold(e, slot) {
            return Some(super::Lead { all: true, least, rest: None });
        }
        let mut chain = Vec::new();
        let mut op = BinOp::And;
        terms(op, e, &mut chain);
        if chain.len() == 1 {
            chain.clear();
            op = BinOp::Or;
            terms(op, e, &mut chain);
        }
        let (first, rest) = chain.split_first()?;
        let least = super::count_at_least(first, slot)?;
        let Some(rest) = join(op, rest) else { return Some(super::Lead { all: true, least, rest: None }) };
        // A `where` kept whole for each count is one look-up a site already.
        if memos && self.kept_by_count(e, &self.scan(e, &mut Vec::new())).is_some() {
            return None;
        }
        // The rest is not kept for each count: it may read an earlier
        // choice's site alone (`count(t) > 0 and ... count(h) ...`), which
        // the whole `where` would have asked at every value.
        Some(super::Lead { all: op == BinOp::And, least, rest: Some(self.lead_rest(&rest, slot, memos)) })
    }

    /// Whether `e` draws no number and calls no hook (see [`Lower::scan`]).
    pub(super) fn pure(&self, e: &Expr) -> bool {
        self.scan(e, &mut Vec::new()).pure
    }

    fn worth(&self, e: &Expr, i: &Info) -> bool {
        (i.heavy || i.size >= LARGE) && !matches!(self.ty(e), Type::Set | Type::Order)
    }

    /// What `e` reads and costs. The largest closed parts worth keeping
    /// inside it are added to `found` when `e` itself is not closed (when it
    /// is, its caller may keep it whole instead).
    fn scan(&self, e: &Expr, found: &mut Vec<usize>) -> Info {
        self.scan_into(e, found, None)
    }

    /// [`Lower::scan`], noting the `Info` of every part it meets in
    /// `infos` (by the part's address) if given.
    fn scan_into(&self, e: &Expr, found: &mut Vec<usize>, mut infos: Option<&mut HashMap<usize, Info>>) -> Info {
        let mut info = Info {
            free: Slots::default(),
            // `can-move` runs every `where` of the phase: with chance or
            // hooks in the rules, one of them may draw a number or call one.
            pure: match e {
                Expr::Random(..) | Expr::Hook(..) => false,
                Expr::CanMove(_) => !self.g.chance && self.g.hooks.is_none(),
                _ => true,
            },
            heavy: matches!(e, Expr::Quant(..) | Expr::Filter(..) | Expr::CanMove(_))
                || matches!(e, Expr::Count(x, _) if self.ty(x) == Type::Set),
            size: 1,
            keeps: Slots::default(),
        };
        let mut kept = Vec::new();
        let mut child = |c: &Expr, bound: Option<u8>, info: &mut Info| {
            let ci = self.scan_into(c, found, infos.as_deref_mut());
            if ci.closed() && self.worth(c, &ci) {
                kept.push(c as *const Expr as usize);
            }
            info.free = info.free.with(match bound {
                Some(s) => ci.free.without(s),
                None => ci.free,
            });
            info.pure &= ci.pure;
            info.heavy |= ci.heavy;
            info.size = info.size.saturating_add(ci.size);
            info.keeps = info.keeps.with(ci.keeps);
        };
        match e {
            Expr::Local(s) | Expr::Kept(s, _) => info.free = Slots::one(*s),
            Expr::Keep(s, x) => {
                child(x, None, &mut info);
                info.keeps = info.keeps.with(Slots::one(*s));
            }
            Expr::Quant(_, slot, dom, body) => {
                match &**dom {
                    Domain::Players | Domain::Tracks => {}
                    Domain::Range(a, b) => {
                        child(a, None, &mut info);
                        child(b, None, &mut info);
                    }
                    Domain::Set(s) | Domain::Arrangements(s) => child(s, None, &mut info),
                    Domain::Walk { track, from, cond, .. } => {
                        child(track, None, &mut info);
                        child(from, None, &mut info);
                        if let Some(c) = cond {
                            child(c, Some(*slot), &mut info);
                        }
                    }
                }
                child(body, Some(*slot), &mut info);
            }
            Expr::Filter(set, slot, cond) => {
                child(set, None, &mut info);
                child(cond, Some(*slot), &mut info);
            }
            _ => e.each_child(&mut |c| child(c, None, &mut info)),
        }
        info.free = info.free.minus(info.keeps);
        if !info.closed() {
            found.extend(kept);
        }
        if let Some(infos) = infos {
            infos.insert(e as *const Expr as usize, info);
        }
        info
    }

    /// The memo around the lowering of `e`, if `e` is a part kept; `None`
    /// otherwise.
    pub(crate) fn memo(&mut self, e: &Expr) -> Option<Fx> {
        let at = e as *const Expr as usize;
        let i = self.memo_targets.iter().position(|&(t, _)| t == at)?;
        let (_, key) = self.memo_targets.swap_remove(i);
        if let Some(slot) = key {
            return Some(self.keyed(e, slot));
        }
        let inner = self.x(e);
        let slot = self.memos;
        self.memos += 1;
        Some(Box::new(move |p: &Program, vm: &mut Vm| -> Res<i64> {
            match vm.memo.search {
                0 => inner(p, vm),
                search => kept(vm, slot, search, |vm| inner(p, vm)),
            }
        }))
    }
}

impl Lower<'_> {
    /// The parts of a choice's `where` `e` to keep for each site (see
    /// [`Lower::keyed`]), added to `out` with the slot of their site: the
    /// largest parts worth keeping that read one site variable alone and
    /// are worked out more than once for the same site in a search: a
    /// part inside a quantifier or filter (not closed: those are kept
    /// whole), each time that is asked; outside them, one that holds a
    /// loop and reads an earlier choice's site (asked again at each value
    /// of this one) or a later choice's own (at each value of the
    /// earlier). Not a part that holds no loop outside them: asked again
    /// or not, it may be asked at one value only (Omweso asks whether
    /// the hole chosen can capture clockwise for the clockwise track
    /// alone), and a memo costs more than a few nodes. Nor one reading
    /// the first choice's own site outside them: asked once a site
    /// anyway. `binders` holds the variables the quantifiers and filters
    /// around `e` bind, and their types. Closed parts are left to the
    /// memos above.
    pub(super) fn keyed_parts(
        &self,
        root: &Expr,
        e: &Expr,
        binders: &mut Vec<(u8, Type)>,
        out: &mut Vec<(usize, Option<u8>)>,
    ) {
        // What each part reads, found in one pass (asked of each part
        // on the way down, it was found again for every part above it).
        let mut infos = HashMap::new();
        self.scan_into(e, &mut Vec::new(), Some(&mut infos));
        self.keyed_in(root, e, binders, out, &infos);
    }

    /// [`Lower::keyed_parts`] of `e`, what its parts read in `infos`.
    fn keyed_in(
        &self,
        root: &Expr,
        e: &Expr,
        binders: &mut Vec<(u8, Type)>,
        out: &mut Vec<(usize, Option<u8>)>,
        infos: &HashMap<usize, Info>,
    ) {
        let at = e as *const Expr as usize;
        let info = infos.get(&at).copied().unwrap_or_else(|| self.scan(e, &mut Vec::new()));
        if info.closed() {
            return;
        }
        if let Some(s) = self.key_of(root, e, &info, binders) {
            let (own, first) = self.choosing;
            if !binders.is_empty() || (info.heavy && (s != own || !first)) {
                out.push((e as *const Expr as usize, Some(s)));
                return;
            }
        }
        let bound = |c: &Expr, b: (u8, Type), binders: &mut Vec<(u8, Type)>, out: &mut Vec<_>| {
            binders.push(b);
            self.keyed_in(root, c, binders, out, infos);
            binders.pop();
        };
        match e {
            Expr::Quant(_, slot, dom, body) => {
                let ty = match &**dom {
                    Domain::Players => Type::Player,
                    Domain::Tracks => Type::Track,
                    Domain::Range(a, b) => {
                        self.keyed_in(root, a, binders, out, infos);
                        self.keyed_in(root, b, binders, out, infos);
                        Type::Int
                    }
                    Domain::Set(x) => {
                        self.keyed_in(root, x, binders, out, infos);
                        Type::Site
                    }
                    Domain::Arrangements(x) => {
                        self.keyed_in(root, x, binders, out, infos);
                        Type::Order
                    }
                    Domain::Walk { track, from, cond, .. } => {
                        self.keyed_in(root, track, binders, out, infos);
                        self.keyed_in(root, from, binders, out, infos);
                        if let Some(c) = cond {
                            bound(c, (*slot, Type::Site), binders, out);
                        }
                        Type::Site
                    }
                };
                bound(body, (*slot, ty), binders, out);
            }
            Expr::Filter(set, slot, cond) => {
                self.keyed_in(root, set, binders, out, infos);
                bound(cond, (*slot, Type::Site), binders, out);
            }
            _ => e.each_child(&mut |c| self.keyed_in(root, c, binders, out, infos)),
        }
    }

    /// The slot of the site variable `e` (a part of the `where` `root`)
    /// reads alone, when `e` may be kept for each site: it draws nothing,
    /// calls nothing, is worth keeping, and what it keeps for a later place
    /// (`Keep`, see `cse.rs`) is read only inside it (a value read from the
    /// memo runs none of it); the variable holds a site (a part is a
    /// function of the value in its slot, whoever wrote it there).
    fn key_of(&self, root: &Expr, e: &Expr, info: &Info, binders: &[(u8, Type)]) -> Option<u8> {
        if !info.pure || !self.worth(e, info) {
            return None;
        }
        for k in 0..=u8::MAX {
            if info.keeps.has(k) && readers(root, k) != readers(e, k) {
                return None;
            }
        }
        let s = info.free.single()?;
        let ty = match binders.iter().rev().find(|(b, _)| *b == s) {
            Some(&(_, ty)) => ty,
            None => *self.slots.get(s as usize)?,
        };
        (ty == Type::Site).then_some(s)
    }

    /// `e`, a part that reads the site in `slot` alone, behind a memo for
    /// each site: during a search for moves its value at a site is worked
    /// out once, where it is first asked of that site, and read after (as
    /// the memos above; the position does not change). Its memos are
    /// shared with every part written the same, whatever the variable's
    /// name. A value that is no site (none), and any while banks
    /// are set (whose reads the solver asks after), are worked out each
    /// time.
    fn keyed(&mut self, e: &Expr, slot: u8) -> Fx {
        let sites = self.g.sites.len();
        let renamed = renamed(e, slot);
        let found = renamed.as_ref().and_then(|r| self.keyed.iter().find(|(k, _)| k == r).map(|&(_, b)| b));
        let base = match found {
            Some(b) => b,
            None => {
                let b = self.memos;
                self.memos += sites;
                if let Some(r) = renamed {
                    self.keyed.push((r, b));
                }
                b
            }
        };
        let inner = self.x(e);
        let slot = slot as usize;
        Box::new(move |p: &Program, vm: &mut Vm| -> Res<i64> {
            let search = vm.memo.search;
            let s = vm.locals[slot];
            if search == 0 || !vm.banks.is_empty() || !(0..sites as i64).contains(&s) {
                return inner(p, vm);
            }
            kept(vm, base + s as usize, search, |vm| inner(p, vm))
        })
    }
}

/// How many places in `e` read the part kept in `slot` (see `cse.rs`).
fn readers(e: &Expr, slot: u8) -> usize {
    let mut n = usize::from(matches!(e, Expr::Kept(s, _) if *s == slot));
    e.each_child(&mut |c| n += readers(c, slot));
    n
}

/// The slot no part's variable is renamed from (see [`renamed`]).
const RENAMED: u8 = u8::MAX;

/// `e` with its variable in `slot` renamed to one slot, the places it is
/// written left out: what the parts that compute the same function of a
/// site have in common. `None` when `e` already names that slot.
fn renamed(e: &Expr, slot: u8) -> Option<Expr> {
    let mut clash = false;
    let mut out = e.clone();
    rename(&mut out, slot, &mut clash);
    (!clash).then_some(out)
}

fn rename(e: &mut Expr, slot: u8, clash: &mut bool) {
    match e {
        Expr::Local(s) | Expr::Kept(s, _) | Expr::Keep(s, _) | Expr::Filter(_, s, _) | Expr::Quant(_, s, _, _)
            if *s == RENAMED =>
        {
            *clash = true
        }
        _ => {}
    }
    if let Expr::Spanned(_, x) = e {
        *e = std::mem::replace(&mut **x, Expr::Const(crate::engine::game::Value::Int(0)));
        return rename(e, slot, clash);
    }
    if let Expr::Local(s) = e
        && *s == slot
    {
        *s = RENAMED;
    }
    e.each_child_mut(&mut |c| rename(c, slot, clash));
}

/// A `where` of this size or more that reads its site only by its count
/// is kept by count (see [`by_count`]); a smaller one costs less than the
/// keeping (`count(h) > 1` is four nodes).
const BY_COUNT: u32 = 8;

/// Counts 0 to this less one have a value kept for them.
const COUNTS_KEPT: usize = 16;

/// Whether `e` reads the site in `slot` only by its count (`count(h)`).
fn only_counted(e: &Expr, slot: u8) -> bool {
    match e {
        Expr::Local(s) => *s != slot,
        _ if e.is_count_of(slot) => true,
        _ => {
            let mut ok = true;
            e.each_child(&mut |c| ok &= only_counted(c, slot));
            ok
        }
    }
}

/// A choice's `where` that reads its site only by the site's count, and
/// is otherwise closed: during a search for moves its value for a site is
/// its value for any other site of the same count, so it is worked out
/// once for each count met, the others read (as memos are: see the top of
/// this file; `base` is the first of its [`COUNTS_KEPT`] memos). Moruba's
/// `count(h) > 1 or (count(h) == 1 and all(x in every pit of mover: count(x)
/// <= 1))` is asked of sixteen holes that hold a few different counts.
/// Sites whose count is read from a bank (which the rules must note), or
/// of larger counts, are asked as before.
fn by_count(inner: super::expr::Opnd, slot: usize, base: usize) -> Fx {
    Box::new(move |p: &Program, vm: &mut Vm| -> Res<i64> {
        let search = vm.memo.search;
        let s = vm.locals[slot];
        if search == 0 || !vm.banks.is_empty() || s < 0 || s as usize >= p.game.sites.len() {
            return inner.get(p, vm);
        }
        let c = vm.count(s as crate::engine::game::SiteId);
        if !(0..COUNTS_KEPT as i32).contains(&c) {
            return inner.get(p, vm);
        }
        kept(vm, base + c as usize, search, |vm| inner.get(p, vm))
    })
}

/// The value kept in memo `m` during the search `search` (not 0), or
/// `work`'s, kept there. A read spends the steps of work the value took,
/// as working it out again would: a part asked often enough to run past
/// the work budget as written still does, and goes wrong alike, whichever
/// memo keeps it.
#[inline(always)]
fn kept(vm: &mut Vm, m: usize, search: u64, work: impl FnOnce(&mut Vm) -> Res<i64>) -> Res<i64> {
    if vm.memo.stamp[m] == search {
        vm.spend(vm.memo.steps[m])?;
        return Ok(vm.memo.val[m]);
    }
    let fuel = vm.fuel;
    let v = work(vm)?;
    vm.memo.stamp[m] = search;
    vm.memo.val[m] = v;
    vm.memo.steps[m] = fuel - vm.fuel;
    Ok(v)
}

/// Whether a term of a `where` can neither go wrong nor draw nor call
/// anything: comparisons of constants, local variables (the values chosen,
/// each a site, number, player or track) and the counts of sites in them.
pub(super) fn cannot_fail(e: &Expr) -> bool {
    use BinOp::*;
    match e {
        Expr::Const(_) | Expr::Local(_) => true,
        Expr::Count(x, None) => matches!(**x, Expr::Local(_)),
        Expr::Not(x) => cannot_fail(x),
        Expr::Bin(Eq | Ne | Lt | Le | Gt | Ge | And | Or, a, b) => cannot_fail(a) && cannot_fail(b),
        _ => false,
    }
}

impl Lower<'_> {
    /// As [`terms`], a part to keep behind a memo one term, whole.
    pub(super) fn kept_terms<'e>(&self, op: BinOp, e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Bin(o, a, b)
                if *o == op && !self.memo_targets.iter().any(|&(t, _)| t == e as *const Expr as usize) =>
            {
                self.kept_terms(op, a, out);
                self.kept_terms(op, b, out);
            }
            _ => out.push(e),
        }
    }
}

/// The terms of a chain of `op`s (`and`, `or`), in order.
pub(super) fn terms<'e>(op: BinOp, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Bin(o, a, b) if *o == op => {
            terms(op, a, out);
            terms(op, b, out);
        }
        _ => out.push(e),
    }
}

/// The terms joined again by `op`, in order (`None`: no term).
pub(super) fn join(op: BinOp, parts: &[&Expr]) -> Option<Expr> {
    parts.iter().map(|&t| t.clone()).reduce(|a, b| Expr::Bin(op, Box::new(a), Box::new(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Config, compile_file};
    use std::sync::Arc;

    /// A `where` made of several comparisons of the chosen site's count
    /// that amount to one least count is read as that count
    /// (tests/engine/least.mancala's `written` 2 and 3, Moruba `malesa`'s
    /// once its option is folded); one that does not amount to one (a
    /// count left out, a number that is not the count, another value read,
    /// a range with an end) is not.
    #[test]
    fn comparisons_of_a_count_that_amount_to_a_least_count() {
        let least_counts = |file: &str, variants: &[&str], settings: &[(&str, &str)]| -> Vec<Option<i32>> {
            let cfg = Config {
                variants: variants.iter().map(|v| v.to_string()).collect(),
                settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            };
            let g = compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            let p = super::super::Program::new(Arc::new(g));
            p.moves.iter().map(|m| m.choices[0].at_least()).collect()
        };
        for least in 0..=3 {
            for written in ["1", "2", "3"] {
                let settings = [("least", &*least.to_string()), ("written", written)];
                let found = least_counts("tests/engine/least.mancala", &[], &settings);
                assert_eq!(found[0], Some(least + 1), "{settings:?}");
            }
        }
        assert_eq!(least_counts("rules/moruba.mancala", &["malesa"], &[]), [Some(1)]);
        assert_eq!(least_counts("rules/moruba.mancala", &[], &[]), [None]);
        let text = "game \"Thresholds\"
players south, north
pit a[1..3] owner south
store A owner south
pit b[1..3] owner north
store B owner north
setup { put 2 in every pit }
move gap \"gap {h}\" {
  choose h in every pit of mover where count(h) > 1 and count(h) != 5
  take h to store(mover)
}
move odd \"odd {h}\" {
  choose h in every pit of mover where count(h) % 2 == 1 or count(h) > 3
  take h to store(mover)
}
move late \"late {h}\" {
  choose h in every pit of mover where count(h) > 1 or ply > 3
  take h to store(mover)
}
move band \"band {h}\" {
  choose h in every pit of mover where not (count(h) < 2 or count(h) > 8)
  take h to store(mover)
}
move any \"any {h}\" {
  choose h in every pit of mover where count(h) == 0 or count(h) > 0
  take h to store(mover)
}
move over \"over {h}\" {
  choose h in every pit of mover where count(h) >= 3 and (count(h) != 5 or count(h) > 4)
  take h to store(mover)
}
score p: count(store(p))
";
        let g = crate::compile::compile_source("t.mancala", text, &Config::default())
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
        let p = super::super::Program::new(Arc::new(g));
        let found: Vec<_> = p.moves.iter().map(|m| m.choices[0].at_least()).collect();
        assert_eq!(found, [None, None, None, None, Some(0), Some(3)]);
    }

    /// The parts of tests/engine/per-site.mancala's `where`s kept for each
    /// site, and the memos they take: where a part is asked again for the
    /// same site, and nowhere else (the file's comments say which is which).
    #[test]
    fn parts_kept_for_each_site_where_asked_again() {
        let g = compile_file("tests/engine/per-site.mancala", &Config::default())
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
        let mut f = super::super::fold::game(&g);
        super::super::cse::game(&g, &mut f);
        let mut l = Lower::new(&f, true);
        let mut found = Vec::new();
        for def in &f.moves {
            for (i, p) in def.params.iter().enumerate() {
                l.slots[p.slot as usize] = Type::Site;
                l.choosing = (p.slot, i == 0);
                let mut out = Vec::new();
                if let Some(w) = &p.filter {
                    l.keyed_parts(w, w, &mut Vec::new(), &mut out);
                }
                found.push(out.iter().map(|(_, s)| s.expect("a slot")).collect::<Vec<_>>());
            }
        }
        // The sowing's first choice: nothing (its `where` asks each site
        // once). Its second: `busy(h)` (slot 0), `busy(d)`, `ahead(d) >=
        // 0` and the sum in `spread(d)` (slot 1); not `spread(d) > 4 *
        // k`, which keeps a part read after it. `mark`: `busy(z)`.
        assert_eq!(found, [vec![], vec![0, 1, 1, 1], vec![1]]);
        // `busy` in three places shares one site's worth of memos: three
        // parts of ten sites each, nothing else kept.
        assert_eq!(Program::new(Arc::new(g)).memos, 30);
    }
}
