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
//! and an error comes where it came.

use crate::engine::game::{Domain, Expr, Type};
use crate::engine::vm::{Res, Vm};

use super::{Fx, Lower, Program};

/// Locals as bits (slots are below 256).
#[derive(Clone, Copy, Default, PartialEq)]
struct Slots([u64; 4]);

impl Slots {
    fn one(s: u8) -> Slots {
        let mut b = Slots::default();
        b.0[(s / 64) as usize] |= 1 << (s % 64);
        b
    }
    fn with(mut self, o: Slots) -> Slots {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        self
    }
    fn without(mut self, s: u8) -> Slots {
        self.0[(s / 64) as usize] &= !(1 << (s % 64));
        self
    }
    fn empty(self) -> bool {
        self == Slots::default()
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
}

impl Info {
    fn closed(&self) -> bool {
        self.pure && self.free.empty()
    }
}

/// Nodes of this size or more are kept even without a loop.
const LARGE: u32 = 16;

impl Lower<'_> {
    /// Lowers a choice's `where`, its closed parts behind memos.
    pub(crate) fn filter(&mut self, e: &Expr) -> super::expr::Opnd {
        let mut found = Vec::new();
        let info = self.scan(e, &mut found);
        if info.closed() {
            found.clear();
            if self.worth(e, &info) {
                found.push(e as *const Expr as usize);
            }
        }
        let before = std::mem::replace(&mut self.memo_targets, found);
        let o = self.opnd(e);
        self.memo_targets = before;
        o
    }

    fn worth(&self, e: &Expr, i: &Info) -> bool {
        (i.heavy || i.size >= LARGE) && !matches!(self.ty(e), Type::Set | Type::Order)
    }

    /// What `e` reads and costs. The largest closed parts worth keeping
    /// inside it are added to `found` when `e` itself is not closed (when it
    /// is, its caller may keep it whole instead).
    fn scan(&self, e: &Expr, found: &mut Vec<usize>) -> Info {
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
        };
        let mut kept = Vec::new();
        let mut child = |c: &Expr, bound: Option<u8>, info: &mut Info| {
            let ci = self.scan(c, found);
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
        };
        match e {
            Expr::Local(s) => info.free = Slots::one(*s),
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
        if !info.closed() {
            found.extend(kept);
        }
        info
    }

    /// The memo around the lowering of `e`, if `e` is a part kept; `None`
    /// otherwise.
    pub(crate) fn memo(&mut self, e: &Expr) -> Option<Fx> {
        let at = e as *const Expr as usize;
        let i = self.memo_targets.iter().position(|&t| t == at)?;
        self.memo_targets.swap_remove(i);
        let inner = self.x(e);
        let slot = self.memos;
        self.memos += 1;
        Some(Box::new(move |p: &Program, vm: &mut Vm| -> Res<i64> {
            let search = vm.memo.search;
            if search != 0 && vm.memo.stamp[slot] == search {
                return Ok(vm.memo.val[slot]);
            }
            let v = inner(p, vm)?;
            if search != 0 {
                vm.memo.stamp[slot] = search;
                vm.memo.val[slot] = v;
            }
            Ok(v)
        }))
    }
}
