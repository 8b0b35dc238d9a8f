//! Per-site state variables read in place: where a variable's values lie,
//! the kind of site it is kept for, and what a value never set reads as.

use super::expr::enc;
use super::shapes::{compared, holds, swapped};
use super::{Lower, Program, Rest};
use crate::engine::game::{BinOp, Expr, SiteId, Type, Value};
use crate::engine::vm::{Fault, NONE, Res, Vm};

/// How a per-site state variable is read in place: where its values
/// start, the kind of site it is kept for (if one), its number (for the
/// error), and whether a value never set reads as "none" (else 0). The
/// owners kept as state (territory) are read as one, whose sites of
/// another kind answer with their fixed owner (`owners`), not an error.
#[derive(Clone, Copy)]
pub(crate) struct StateRead {
    offset: u32,
    var: u16,
    kind: Option<u8>,
    unset_none: bool,
    owners: bool,
}

impl StateRead {
    /// Refuses a site of another kind than the variable is kept for (a
    /// read of a variable's values, not of owners kept as state).
    #[inline(always)]
    fn kind_ok(self, p: &Program, s: SiteId) -> Res<()> {
        match self.kind {
            Some(k) if p.kinds[s as usize] != k => Err(wrong_kind(p, self.var, s)),
            _ => Ok(()),
        }
    }

    /// The value at site `s`; for a site of another kind, refused (or its
    /// fixed owner, for owners kept as state).
    #[inline(always)]
    pub(crate) fn at(self, p: &Program, vm: &Vm, s: SiteId) -> Res<i64> {
        self.at_in(p, &vm.pos.vars, s)
    }

    /// [`StateRead::at`], of the values `vars` (a position's).
    #[inline(always)]
    fn at_in(self, p: &Program, vars: &[Value], s: SiteId) -> Res<i64> {
        if let Some(k) = self.kind
            && p.kinds[s as usize] != k
        {
            if self.owners {
                return Ok(p.owners[s as usize]);
            }
            return Err(wrong_kind(p, self.var, s));
        }
        Ok(match vars[self.offset as usize + s as usize] {
            Value::None if self.unset_none => NONE,
            Value::None => 0,
            v => enc(v),
        })
    }
}

/// `v(x) OP c`, `v` a per-site state variable, `x` a choice's site and `c`
/// a fixed value: the rest of a [`super::Lead`] (`count(h) > 0 and v(h)
/// == none`), asked in place at each site rather than by a closure, with
/// the same value, and the same error for a site of another kind.
/// `v(x) == none` and `v(x) != none` of a player, site or track (whose
/// values are never negative) ask only whether a value is held.
#[derive(Clone, Copy)]
pub(crate) struct StateTest {
    read: StateRead,
    holds: u8,
    value: i64,
    none: bool,
}

/// A test for none (`v(x) == none`, `v(x) != none`) as a loop over sites
/// asks it once it has checked their kinds itself: where the variable's
/// values start, whether the test holds of a value never set, and the kind
/// of site the variable is kept for (if one).
#[derive(Clone, Copy)]
pub(crate) struct UnsetTest {
    pub offset: usize,
    pub holds_unset: bool,
    pub kind: Option<u8>,
}

impl StateTest {
    /// Whether the comparison holds at site `s`.
    #[inline(always)]
    pub(crate) fn holds_at(self, p: &Program, vm: &Vm, s: SiteId) -> Res<bool> {
        self.holds_in(p, &vm.pos.vars, s)
    }

    /// [`StateTest::holds_at`], of the values `vars` (a position's).
    #[inline(always)]
    pub(crate) fn holds_in(self, p: &Program, vars: &[Value], s: SiteId) -> Res<bool> {
        if self.none {
            self.read.kind_ok(p, s)?;
            let unset = matches!(vars[self.read.offset as usize + s as usize], Value::None);
            // `==` holds for "equal" alone (0b010), `!=` for the others.
            return Ok(unset == (self.holds == 0b010));
        }
        self.compared_at(p, vars, s)
    }

    /// This test as a loop over sites asks it once it has checked their
    /// kinds itself, if it is a test for none.
    pub(crate) fn unset_test(self) -> Option<UnsetTest> {
        let test =
            UnsetTest { offset: self.read.offset as usize, holds_unset: self.holds == 0b010, kind: self.read.kind };
        self.none.then_some(test)
    }

    /// Any other comparison: out of line, so that the loops over sites
    /// that ask a [`super::Lead`] keep their code small enough for the
    /// compiler to inline the closure each site is asked by (a `where` of
    /// three terms cost 12% more instructions a ply when it did not).
    #[inline(never)]
    fn compared_at(self, p: &Program, vars: &[Value], s: SiteId) -> Res<bool> {
        Ok(compared(self.holds, self.read.at_in(p, vars, s)?, self.value))
    }
}

/// A per-site state variable read or set for a site of a kind it is not
/// kept for.
#[cold]
#[inline(never)]
fn wrong_kind(p: &Program, var: u16, s: SiteId) -> Fault {
    let v = &p.game.state[var as usize];
    let site = &p.game.sites[s as usize];
    Fault::error(format!(
        "`{}` is kept for every {}; `{}` is a {}",
        v.name,
        v.kind.map_or("site", |k| k.word()),
        site.name,
        site.kind.word()
    ))
}

impl Lower<'_> {
    /// The check that a per-site state variable kept for one kind of site is
    /// read or set only for a site of that kind.
    pub(crate) fn kind_check(&self, var: u16) -> impl Fn(&Program, SiteId) -> Res<()> + Send + Sync + use<> {
        let kind = self.g.state[var as usize].kind.map(|k| k.index() as u8);
        move |p: &Program, s: SiteId| match kind {
            Some(k) if p.kinds[s as usize] != k => Err(wrong_kind(p, var, s)),
            _ => Ok(()),
        }
    }

    /// The rest of a [`super::Lead`]'s chain: a [`StateTest`] when it is
    /// one, else lowered as the `where` is (with kept parts when `memos`).
    pub(crate) fn lead_rest(&mut self, rest: &Expr, slot: u8, memos: bool) -> Rest {
        match self.state_test(rest, slot) {
            Some(t) => Rest::State(t),
            None if memos => Rest::Opnd(self.filter_kept(rest, false)),
            None => Rest::Opnd(self.opnd(rest)),
        }
    }

    /// `e` as a [`StateTest`] of the choice in `slot`, when it is one: a
    /// comparison read by its operands' shapes (as [`Lower::cond`] reads
    /// it), either way round.
    fn state_test(&self, e: &Expr, slot: u8) -> Option<StateTest> {
        self.state_test_of(e, |at| matches!(at, Expr::Local(s) if *s == slot))
    }

    /// `e` as a [`StateTest`] of the site `at` accepts (a choice's, `last`),
    /// when it is one.
    pub(crate) fn state_test_of(&self, e: &Expr, at: impl Fn(&Expr) -> bool) -> Option<StateTest> {
        let Expr::Bin(op, a, b) = e.unspanned() else { return None };
        let (holds, x, c) = match (a.unspanned(), b.unspanned()) {
            (x @ Expr::SiteState(..), Expr::Const(c)) => (holds(*op)?, x, c),
            (Expr::Const(c), x @ Expr::SiteState(..)) => (swapped(holds(*op)?), x, c),
            _ => return None,
        };
        let Expr::SiteState(v, site) = x else { return None };
        let mine = at(site.unspanned());
        let ty = self.g.state[*v as usize].ty;
        let shaped = match ty {
            Type::Set => false,
            Type::Site => matches!(op, BinOp::Eq | BinOp::Ne),
            _ => true,
        };
        let value = enc(*c);
        let none = value == NONE && matches!(ty, Type::Player | Type::Site | Type::Track);
        (mine && shaped).then(|| StateTest { read: self.state_read(*v), holds, value, none })
    }

    /// How the per-site state variable `var` is read in place.
    pub(crate) fn state_read(&self, var: u16) -> StateRead {
        let v = &self.g.state[var as usize];
        StateRead {
            offset: v.offset as u32,
            var,
            kind: v.kind.map(|k| k.index() as u8),
            // A per-site value never set is false, 0 or no value.
            unset_none: !matches!(v.ty, Type::Bool | Type::Int),
            owners: false,
        }
    }

    /// How `owner(x)` is read in place when owners are kept as state
    /// (territory): that variable's value at a site of its kind (a player
    /// variable, so no value reads as "none"), the fixed owner at another.
    pub(crate) fn territory_read(&self) -> Option<StateRead> {
        let (var, _) = self.g.territory?;
        Some(StateRead { owners: true, ..self.state_read(var) })
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{Config, compile_file};
    use crate::engine::Engine;
    use std::sync::Arc;

    /// The rest of a least count's chain that compares a per-site state of
    /// the site with a fixed value is read in place (`Rest::State`): after
    /// `and` or `or`, either way round; a rest of more terms, or compared
    /// with what is not fixed, is not (tests/engine/lead.mancala).
    #[test]
    fn a_lead_s_rest_of_a_state_and_a_value_is_read_in_place() {
        let cfg = Config::default();
        let game = compile_file("tests/engine/lead.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let e = Engine::with_seed(Arc::new(game), 0).unwrap();
        // None: no lead; `Some(None)`: a rest of another shape; `Some(Some(none))`:
        // read in place, by whether a value is held (`== none`) or not.
        let in_place: Vec<Option<Option<bool>>> = e
            .prog
            .moves
            .iter()
            .map(|m| {
                m.choices[0].lead.as_ref().map(|l| match &l.rest {
                    Some(crate::engine::program::Rest::State(t)) => Some(t.none),
                    _ => None,
                })
            })
            .collect();
        // sow (two terms after the count), relay, lift (`== mover`), claim (`south !=`), probe.
        assert_eq!(in_place, [Some(None), Some(Some(true)), Some(None), Some(Some(false)), Some(Some(true))]);
    }
}
