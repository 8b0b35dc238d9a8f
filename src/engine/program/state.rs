//! Per-site state variables read in place: where a variable's values lie,
//! the kind of site it is kept for, and what a value never set reads as.

use super::expr::enc;
use super::{Lower, Program};
use crate::engine::game::{SiteId, Type, Value};
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
    /// The value at site `s`; for a site of another kind, refused (or its
    /// fixed owner, for owners kept as state).
    #[inline(always)]
    pub(crate) fn at(self, p: &Program, vm: &Vm, s: SiteId) -> Res<i64> {
        if let Some(k) = self.kind
            && p.kinds[s as usize] != k
        {
            if self.owners {
                return Ok(p.owners[s as usize]);
            }
            return Err(wrong_kind(p, self.var, s));
        }
        Ok(match vm.pos.vars[self.offset as usize + s as usize] {
            Value::None if self.unset_none => NONE,
            Value::None => 0,
            v => enc(v),
        })
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
