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
//! takes fewer steps of the work budget (one a site looked at). Terms that
//! cannot go wrong (the site's count compared) may come first: Alemungula's
//! `count(hole) > 0 and index(hole) < 3 and hole != banned` asks of each of
//! a player's five holes whether it is one of the two on the left, which
//! stops the chain there whatever the count.

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
    /// of that site alone (perhaps after terms that cannot go wrong), split
    /// into those (narrowing the set looped over) and the rest of the
    /// chain, lowered; `None` for any other expression, and when functions
    /// are not tabulated.
    pub(super) fn narrowing(&mut self, op: BinOp, slot: u8, e: &Expr) -> Option<(Narrowed, Opnd)> {
        if !self.tables {
            return None;
        }
        let mut terms = Vec::new();
        super::memo::terms(op, e, &mut terms);
        let mut joined = self.joined_terms(op, &terms);
        // The prefix: the first term, or one that only terms that cannot
        // go wrong come before (`count(hole) > 0 and index(hole) < 3`):
        // those neither fail nor change anything, so the prefix decides
        // first as well, and they are asked after it.
        let of_slot = |l: &Self, t: &Expr| matches!(l.site_function(t), Some(Leaf::Local(s)) if s == slot as usize);
        let at = joined.iter().position(|t| of_slot(self, t) || !super::memo::cannot_fail(t))?;
        if joined.len() < 2 || !of_slot(self, &joined[at]) {
            return None;
        }
        let first = joined.remove(at);
        let prefix = self.x(&first);
        let mut rest: Vec<Opnd> = joined.iter().map(|t| self.opnd(t)).collect();
        let rest = match rest.len() {
            1 => rest.pop().expect("one term"),
            _ => Opnd::Dyn(super::shapes::chain(op == BinOp::And, rest)),
        };
        let lists = (0..self.g.sets.len()).map(|_| OnceLock::new()).collect();
        Some((Narrowed { slot: slot as usize, prefix, go_on: op == BinOp::And, lists }, rest))
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{Config, compile_file};
    use crate::engine::program::Program;
    use std::sync::Arc;

    /// Whether each move's first choice is narrowed, and led by a count.
    fn narrowed(file: &str, settings: &[(&str, &str)]) -> Vec<(bool, bool)> {
        let cfg = Config {
            variants: vec![],
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let g = compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let p = Program::new(Arc::new(g));
        p.moves.iter().map(|m| (m.choices[0].narrow.is_some(), m.choices[0].lead.is_some())).collect()
    }

    /// A `where` that asks the chosen site's count before what the site
    /// is is narrowed by what it is: Alemungula's four moves, Qelat's two,
    /// tests/engine/narrow.mancala's `lean`; not when a term that can go
    /// wrong comes between (`lean` with `edge`).
    #[test]
    fn a_count_asked_first_leaves_the_where_narrowed() {
        assert_eq!(narrowed("rules/alemungula.mancala", &[]), [(true, true); 4]);
        assert_eq!(narrowed("rules/qelat.mancala", &[])[..2], [(true, true); 2]);
        let file = "tests/engine/narrow.mancala";
        // sow, hop, grab, lean.
        let (plain, edge) = (narrowed(file, &[]), narrowed(file, &[("edge", "true")]));
        assert_eq!(plain, [(false, false), (true, false), (true, false), (true, true)]);
        assert_eq!(edge[3], (false, true));
    }
}
