//! Loops over a fixed set whose test begins with what the site is.
//! Kisolo's `any(x in every pit of p: x is pit and index(x) > 7 and
//! count(x) > 0 and count(opposite(x)) > 0)` asks of each of a player's
//! fourteen holes whether it is one of the seven inner ones, at every
//! ply. The first terms of the chain are functions of the site alone (see
//! `tables.rs`): their value at each site never changes, so the sites they
//! stop the chain at are left out of the set once, on first use, and the
//! loop asks the rest of the chain of the sites kept, in the set's order.
//! A site left out is one where the chain would have stopped on those
//! terms, so what the loop finds and every error it meets are the same; it
//! takes fewer steps of the work budget (one a site looked at).

use std::sync::OnceLock;

use super::expr::{Leaf, Opnd};
use super::{Fx, Lower, Program};
use crate::engine::game::{BinOp, Expr, SiteId};
use crate::engine::vm::Vm;

/// A set's sites, narrowed by the leading terms of a chain (`prefix`, the
/// run of them that are functions of the site in `slot` alone).
pub(crate) struct Narrowed {
    pub slot: usize,
    pub prefix: Fx,
    /// The value of the prefix that lets the chain go on: true for a chain
    /// of `and`s, false for one of `or`s.
    pub go_on: bool,
    /// For each fixed set, the sites where the chain goes on past the
    /// prefix (`None`: the prefix goes wrong at one of its sites, which is
    /// then looped over whole).
    lists: Box<[OnceLock<Option<Sites>>]>,
}

/// The sites of a set kept, in its order.
type Sites = Box<[SiteId]>;

impl Narrowed {
    /// The sites of the fixed set `id` where the chain goes on past the
    /// prefix, in the set's order.
    #[inline(always)]
    pub(crate) fn sites(&self, p: &Program, vm: &mut Vm, id: u16) -> Option<&[SiteId]> {
        self.lists.get(id as usize)?.get_or_init(|| self.make(p, vm, id)).as_deref()
    }

    fn make(&self, p: &Program, vm: &mut Vm, id: u16) -> Option<Sites> {
        let kept = vm.locals[self.slot];
        let mut out = Some(Vec::new());
        for &s in &p.game.sets[id as usize] {
            vm.locals[self.slot] = s as i64;
            match (self.prefix)(p, vm) {
                Ok(v) if (v != 0) == self.go_on => out.as_mut().expect("not gone wrong").push(s),
                Ok(_) => {}
                Err(_) => {
                    out = None;
                    break;
                }
            }
        }
        vm.locals[self.slot] = kept;
        out.map(Vec::into_boxed_slice)
    }

    /// The chain's value at the site bound in `slot`, asked in full: the
    /// prefix, and the rest unless the prefix decides.
    #[inline(always)]
    pub(crate) fn whole(&self, rest: &Opnd, p: &Program, vm: &mut Vm) -> crate::engine::vm::Res<bool> {
        let v = (self.prefix)(p, vm)? != 0;
        if v != self.go_on {
            return Ok(v);
        }
        Ok(rest.get(p, vm)? != 0)
    }
}

impl Lower<'_> {
    /// A chain of `op`s over the site in `slot` that begins with functions
    /// of that site alone, split into those (narrowing the set looped over)
    /// and the rest of the chain, lowered; `None` for any other expression,
    /// and when functions are not tabulated.
    pub(super) fn narrowing(&mut self, op: BinOp, slot: u8, e: &Expr) -> Option<(Narrowed, Opnd)> {
        if !self.tables {
            return None;
        }
        let mut terms = Vec::new();
        super::memo::terms(op, e, &mut terms);
        let joined = self.joined_terms(op, &terms);
        if joined.len() < 2 || !matches!(self.site_function(&joined[0]), Some(Leaf::Local(s)) if s == slot as usize) {
            return None;
        }
        let prefix = self.x(&joined[0]);
        let mut rest: Vec<Opnd> = joined[1..].iter().map(|t| self.opnd(t)).collect();
        let rest = match rest.len() {
            1 => rest.pop().expect("one term"),
            _ => Opnd::Dyn(super::shapes::chain(op == BinOp::And, rest)),
        };
        let lists = (0..self.g.sets.len()).map(|_| OnceLock::new()).collect();
        Some((Narrowed { slot: slot as usize, prefix, go_on: op == BinOp::And, lists }, rest))
    }
}
