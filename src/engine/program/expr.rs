//! Expressions lowered to closures. Each node becomes one closure whose
//! operands of the commonest shapes (constants, local variables, the mover,
//! its opponent, `next`, `last`) are read in place ([`Opnd`]) rather than
//! called; everything the compiler resolved to an index is looked up in a
//! table made here, once.

use super::fold::leads_with_none;
use super::shapes::{Cond, Pick, ToFx, chain};
use super::{Fset, Fx, Lower, Program};
use crate::diagnostics::Span;
use crate::engine::game::{BinOp, Builtin, Expr, SiteId, TOO_LARGE, Type, Value};
use crate::engine::movegen;
use crate::engine::vm::{Fault, NO_COLOUR, NO_SITE, NONE, Res, SetV, Vm, none_here};

use super::sets::{member, read_set, set_item, set_len};
use crate::syntax::ast::Quant;

/// A value read in place: a constant, a local variable, the mover,
/// `opponent(mover)` (a game of two players: the checker allows
/// `opponent` in no other), `next`, `last`, `origin`.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Leaf {
    Const(i64),
    Local(usize),
    Mover,
    Opponent,
    Next,
    Last,
    Origin,
}

impl Leaf {
    #[inline(always)]
    pub(crate) fn get(self, vm: &Vm) -> Res<i64> {
        match self {
            Leaf::Const(c) => Ok(c),
            Leaf::Local(s) => Ok(vm.locals[s]),
            Leaf::Mover => Ok(vm.f.mover as i64),
            Leaf::Opponent => Ok(1 - vm.f.mover as i64),
            Leaf::Next => Ok(vm.f.next as i64),
            Leaf::Last => last(vm),
            Leaf::Origin => origin(vm),
        }
    }

    #[inline(always)]
    fn site(self, vm: &Vm) -> Res<SiteId> {
        let v = self.get(vm)?;
        if v < 0 {
            return Err(none_here("a site"));
        }
        Ok(v as SiteId)
    }
}

/// An operand: read in place when it is a [`Leaf`], or one of the commonest
/// shapes around one (how many counters a site holds, or a player's sites
/// of a kind hold; a site's owner or kind); otherwise a closure.
pub(crate) enum Opnd {
    Leaf(Leaf),
    /// `count(x)`.
    Count(Leaf),
    /// `count(every KIND of p)`: the set of each player, by index.
    CountOf(Box<[u16]>, Leaf),
    /// `count(SET)` of a fixed set.
    CountFixed(u16),
    /// `count(s(mover))` of the site of a kind each player owns
    /// (`count(store(mover))`), by player.
    CountByMover(Box<[i64]>),
    /// `count(s(p))` of the site of a kind each player owns, by player.
    CountByPlayer(Box<[i64]>, Leaf),
    /// `owner(x)`.
    Owner(Leaf),
    /// `x is KIND`.
    IsKind(Leaf, u8),
    /// A value by player: `store(p)`, `reserve(p)` (the site of a kind
    /// each player owns), or `f[p]` of a family with a member for each.
    ByPlayer(Box<[i64]>, Leaf),
    /// `v(x)` of a per-site state variable `v`.
    SiteState(super::state::StateRead, Leaf),
    Dyn(Fx),
}

impl Opnd {
    #[inline(always)]
    pub(crate) fn get(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        match self {
            Opnd::Leaf(l) => l.get(vm),
            Opnd::Count(l) => {
                let s = l.site(vm)?;
                vm.read(s);
                Ok(vm.count(s) as i64)
            }
            Opnd::CountOf(ids, pl) => {
                let pl = pl.get(vm)?;
                if pl < 0 {
                    return Err(none_here("a player"));
                }
                Ok(count_fixed(p, vm, ids[pl as usize]))
            }
            Opnd::CountFixed(id) => Ok(count_fixed(p, vm, *id)),
            Opnd::CountByMover(table) => count_owned(table, vm.f.mover as usize, vm),
            Opnd::CountByPlayer(table, pl) => count_owned(table, index(pl.get(vm)?, "a player")? as usize, vm),
            Opnd::Owner(l) => {
                let s = l.site(vm)?;
                Ok(p.owners[s as usize])
            }
            Opnd::IsKind(l, k) => {
                let s = l.site(vm)?;
                Ok((p.kinds[s as usize] == *k) as i64)
            }
            Opnd::ByPlayer(table, pl) => {
                let pl = pl.get(vm)?;
                if pl < 0 {
                    return Err(none_here("a player"));
                }
                Ok(table.get(pl as usize).copied().unwrap_or(NONE))
            }
            Opnd::SiteState(r, l) => {
                let s = l.site(vm)?;
                r.at(p, vm, s)
            }
            Opnd::Dyn(f) => f(p, vm),
        }
    }

    /// The operand as a site, refusing "none".
    #[inline(always)]
    pub(crate) fn site(&self, p: &Program, vm: &mut Vm) -> Res<SiteId> {
        index(self.get(p, vm)?, "a site").map(|v| v as SiteId)
    }

    #[inline(always)]
    pub(crate) fn player(&self, p: &Program, vm: &mut Vm) -> Res<u8> {
        index(self.get(p, vm)?, "a player").map(|v| v as u8)
    }

    #[inline(always)]
    pub(crate) fn track(&self, p: &Program, vm: &mut Vm) -> Res<u16> {
        index(self.get(p, vm)?, "a track").map(|v| v as u16)
    }
}

/// A set of sites: a fixed one and a player's sites of a kind read in
/// place, others computed.
pub(crate) enum SetOpnd {
    Fixed(u16),
    OfPlayer(Box<[u16]>, Leaf),
    Dyn(Fset),
}

impl SetOpnd {
    #[inline(always)]
    pub(crate) fn get(&self, p: &Program, vm: &mut Vm) -> Res<SetV> {
        match self {
            SetOpnd::Fixed(id) => Ok(SetV::Fixed(*id)),
            SetOpnd::OfPlayer(ids, pl) => {
                let pl = pl.get(vm)?;
                if pl < 0 {
                    return Err(none_here("a player"));
                }
                Ok(SetV::Fixed(ids[pl as usize]))
            }
            SetOpnd::Dyn(f) => f(p, vm),
        }
    }
}

/// The count of player `pl`'s site in `table` (none: an error). Out of
/// line: [`Opnd::get`] is inlined wherever an operand is read, and grew
/// slower for games that never read this one when it was in place.
#[inline(never)]
fn count_owned(table: &[i64], pl: usize, vm: &mut Vm) -> Res<i64> {
    let s = index(table.get(pl).copied().unwrap_or(NONE), "a site")? as SiteId;
    vm.read(s);
    Ok(vm.count(s) as i64)
}

/// A player, site or track by its index, refusing "none".
#[inline(always)]
fn index(v: i64, want: &str) -> Res<i64> {
    if v < 0 {
        return Err(none_here(want));
    }
    Ok(v)
}

/// The site relation `r` (its `table`) gives for `s`: an error if none.
#[inline(always)]
pub(crate) fn related(p: &Program, table: &[i64], r: u16, s: SiteId) -> Res<SiteId> {
    match table[s as usize] {
        NONE => Err(no_relation(p, r, s)),
        t => Ok(t as SiteId),
    }
}

#[cold]
#[inline(never)]
fn no_relation(p: &Program, r: u16, s: SiteId) -> Fault {
    Fault::error(format!(
        "relation `{}` names no site for `{}`",
        p.game.relations[r as usize].0, p.game.sites[s as usize].name
    ))
}

/// The counters in every site of a fixed set.
#[inline(always)]
fn count_fixed(p: &Program, vm: &mut Vm, id: u16) -> i64 {
    if !vm.banks.is_empty() {
        read_set(p, vm, SetV::Fixed(id));
    }
    let mut total = 0i64;
    for &s in &p.game.sets[id as usize] {
        total += vm.count(s) as i64;
    }
    total
}

#[inline(always)]
pub(crate) fn last(vm: &Vm) -> Res<i64> {
    if vm.f.last == NO_SITE {
        return Err(Fault::error("`last` is used before any sowing of this move".into()));
    }
    Ok(vm.f.last as i64)
}

#[inline(always)]
pub(crate) fn origin(vm: &Vm) -> Res<i64> {
    if vm.f.origin == NO_SITE {
        return Err(Fault::error("`origin` is used before any sowing of this move".into()));
    }
    Ok(vm.f.origin as i64)
}

/// A value as the program holds it (see [`crate::engine::vm::NONE`]).
pub(crate) fn enc(v: Value) -> i64 {
    match v {
        Value::None => NONE,
        Value::Int(i) => i,
        Value::Bool(b) => b as i64,
        Value::Player(p) => p as i64,
        Value::Site(s) => s as i64,
        Value::Track(t) => t as i64,
        Value::Set(s) => s as i64,
        Value::Mask(m) => m as i64,
    }
}

/// A value of a type as the program holds it, back as a [`Value`].
pub(crate) fn dec(ty: Type, x: i64) -> Value {
    match ty {
        Type::Int => Value::Int(x),
        Type::Bool => Value::Bool(x != 0),
        _ if x < 0 => Value::None,
        Type::Player => Value::Player(x as u8),
        Type::Site => Value::Site(x as SiteId),
        Type::Track => Value::Track(x as u16),
        Type::Set => Value::Set(x as u16),
        Type::Order => Value::None,
    }
}

macro_rules! bin {
    ($a:ident, $b:ident, |$p:ident, $x:ident, $y:ident| $body:expr) => {
        Box::new(move |$p: &Program, vm: &mut Vm| {
            let $x = $a.get($p, vm)?;
            let $y = $b.get($p, vm)?;
            $body
        })
    };
    ($a:ident, $b:ident, |$x:ident, $y:ident| $body:expr) => {
        Box::new(move |p: &Program, vm: &mut Vm| {
            let $x = $a.get(p, vm)?;
            let $y = $b.get(p, vm)?;
            $body
        })
    };
}

impl Lower<'_> {
    /// The type of an expression's value.
    pub(crate) fn ty(&self, e: &Expr) -> Type {
        match e {
            Expr::Const(v) => match v {
                Value::Int(_) => Type::Int,
                Value::Bool(_) => Type::Bool,
                Value::Player(_) => Type::Player,
                Value::Site(_) | Value::None => Type::Site,
                Value::Track(_) => Type::Track,
                Value::Set(_) | Value::Mask(_) => Type::Set,
            },
            Expr::Local(s) => self.slots[*s as usize],
            Expr::Builtin(b) => match b {
                Builtin::Mover | Builtin::Next | Builtin::LastColour => Type::Player,
                Builtin::Last => Type::Site,
                Builtin::Ply | Builtin::Repetitions => Type::Int,
                Builtin::Origin => Type::Site,
                Builtin::Rounds => Type::Int,
                Builtin::Starter => Type::Player,
            },
            Expr::Count(..) | Expr::Random(..) | Expr::Index(_) | Expr::Neg(_) | Expr::Min(..) | Expr::Max(..) => {
                Type::Int
            }
            Expr::State(v) | Expr::SiteState(v, _) => self.g.state[*v as usize].ty,
            Expr::Member(..) | Expr::OnTrack(..) | Expr::IsKind(..) | Expr::Not(_) | Expr::CanMove(_) => Type::Bool,
            Expr::Side(_) | Expr::Owner(_) | Expr::Opponent(_) => Type::Player,
            Expr::Step(..) | Expr::First(_) => Type::Site,
            Expr::Before(x) | Expr::Spanned(_, x) | Expr::Keep(_, x) | Expr::Kept(_, x) => self.ty(x),
            Expr::Hook(h, _) => self.g.hooks.as_ref().map_or(Type::Int, |hk| hk.defs[*h as usize].returns),
            Expr::Filter(..) | Expr::KindSet(..) => Type::Set,
            // As checked: a first branch leading with `none` takes the other's type.
            Expr::Cond(_, a, b) if leads_with_none(a) => self.ty(b),
            Expr::Cond(_, a, _) => self.ty(a),
            Expr::OwnedSite(..) | Expr::Relation(..) => Type::Site,
            Expr::Family(f, _) => match self.g.families[*f as usize].members.values().next() {
                Some(Value::Track(_)) => Type::Track,
                Some(Value::Set(_) | Value::Mask(_)) => Type::Set,
                Some(Value::Player(_)) => Type::Player,
                Some(Value::Int(_)) => Type::Int,
                Some(Value::Bool(_)) => Type::Bool,
                _ => Type::Site,
            },
            Expr::Bin(op, ..) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => Type::Int,
                _ => Type::Bool,
            },
            Expr::Quant(Quant::Sum, ..) => Type::Int,
            Expr::Quant(..) => Type::Bool,
        }
    }

    /// Each player's site of `kind` (`store(p)`), by player, as the
    /// program holds it (none: the player has none).
    pub(super) fn owned_sites(&self, kind: crate::engine::game::SiteKind) -> Box<[i64]> {
        self.g.owned[kind.index()].iter().map(|o| o.map_or(NONE, |s| s as i64)).collect()
    }

    /// Whether the owners of this kind of site are kept as state (territory).
    pub(super) fn territory(&self, kind: crate::engine::game::SiteKind) -> bool {
        self.g.territory.is_some_and(|(_, k)| k == kind)
    }

    /// A value read in place, if the expression is one.
    pub(super) fn leaf(&self, e: &Expr) -> Option<Leaf> {
        match e {
            Expr::Const(v) => Some(Leaf::Const(enc(*v))),
            Expr::Local(s) if self.slots[*s as usize] != Type::Set => Some(Leaf::Local(*s as usize)),
            Expr::Builtin(Builtin::Mover) => Some(Leaf::Mover),
            Expr::Builtin(Builtin::Next) => Some(Leaf::Next),
            Expr::Builtin(Builtin::Last) => Some(Leaf::Last),
            Expr::Builtin(Builtin::Origin) => Some(Leaf::Origin),
            // As its closure (`Expr::Opponent` below) reads it.
            Expr::Opponent(x) if matches!(x.unspanned(), Expr::Builtin(Builtin::Mover)) => Some(Leaf::Opponent),
            Expr::Kept(s, x) if !matches!(self.ty(x), Type::Set | Type::Order) => Some(Leaf::Local(*s as usize)),
            _ => None,
        }
    }

    /// The site relation `r` gives for each site ([`NONE`]: none).
    pub(crate) fn relation(&self, r: u16) -> Box<[i64]> {
        self.g.relations[r as usize].1.iter().map(|t| t.map_or(NONE, |s| s as i64)).collect()
    }

    /// An operand: in place where it can be, else a closure.
    pub(crate) fn opnd(&mut self, e: &Expr) -> Opnd {
        if !self.memo_targets.is_empty()
            && let Some(f) = self.memo(e)
        {
            return Opnd::Dyn(f);
        }
        if let Some(l) = self.leaf(e) {
            return Opnd::Leaf(l);
        }
        if let Some(f) = self.site_table(e) {
            return Opnd::Dyn(f);
        }
        if let Some(o) = self.mover_opnd(e) {
            return o;
        }
        match e {
            Expr::Count(x, None) => match &**x {
                Expr::KindSet(kind, pl) if self.leaf(pl).is_some() && !self.territory(*kind) => {
                    let ids = self.g.kind_sets[kind.index()].clone().into_boxed_slice();
                    Opnd::CountOf(ids, self.leaf(pl).expect("a leaf"))
                }
                Expr::Const(Value::Set(id)) => Opnd::CountFixed(*id),
                // Its comparisons have a shape of their own (`shapes.rs`).
                Expr::OwnedSite(kind, pl) if self.leaf(pl) == Some(Leaf::Mover) => {
                    Opnd::CountByMover(self.owned_sites(*kind))
                }
                Expr::OwnedSite(kind, pl) if self.leaf(pl).is_some() => {
                    Opnd::CountByPlayer(self.owned_sites(*kind), self.leaf(pl).expect("a leaf"))
                }
                x if self.ty(x) == Type::Site && self.leaf(x).is_some() => Opnd::Count(self.leaf(x).expect("a leaf")),
                _ => Opnd::Dyn(self.x(e)),
            },
            Expr::Owner(x) if self.leaf(x).is_some() => {
                let l = self.leaf(x).expect("a leaf");
                match self.territory_read() {
                    None => Opnd::Owner(l),
                    Some(r) => Opnd::SiteState(r, l),
                }
            }
            Expr::OwnedSite(kind, pl) if self.leaf(pl).is_some() => {
                Opnd::ByPlayer(self.owned_sites(*kind), self.leaf(pl).expect("a leaf"))
            }
            Expr::Family(f, x) => match self.family_by_player(*f, x) {
                Some(o) => o,
                None => Opnd::Dyn(self.x(e)),
            },
            Expr::IsKind(x, k) if self.leaf(x).is_some() => {
                Opnd::IsKind(self.leaf(x).expect("a leaf"), k.index() as u8)
            }
            Expr::SiteState(v, x) if self.leaf(x).is_some() => {
                Opnd::SiteState(self.state_read(*v), self.leaf(x).expect("a leaf"))
            }
            _ => Opnd::Dyn(self.x(e)),
        }
    }

    /// A scalar expression (a number, condition, player, site or track).
    pub(crate) fn x(&mut self, e: &Expr) -> Fx {
        if !self.memo_targets.is_empty()
            && let Some(f) = self.memo(e)
        {
            return f;
        }
        if let Some(f) = self.site_table(e) {
            return f;
        }
        if let Some(table) = self.mover_table(e) {
            return Box::new(move |_, vm| Ok(table.get(vm.f.mover as usize).copied().unwrap_or(NONE)));
        }
        match e {
            Expr::Const(v) => {
                let c = enc(*v);
                Box::new(move |_, _| Ok(c))
            }
            Expr::Local(s) => {
                let s = *s as usize;
                Box::new(move |_, vm| Ok(vm.locals[s]))
            }
            Expr::Bin(op @ (BinOp::And | BinOp::Or), ..) => {
                if let Some(f) = self.shaped_chain(*op, e) {
                    return f;
                }
                let mut terms = Vec::new();
                self.chain(*op, e, &mut terms);
                chain(*op == BinOp::And, terms)
            }
            Expr::Builtin(b) => match b {
                Builtin::Mover => Box::new(|_, vm| Ok(vm.f.mover as i64)),
                Builtin::Next => Box::new(|_, vm| Ok(vm.f.next as i64)),
                Builtin::Last => Box::new(|_, vm| last(vm)),
                Builtin::Ply => Box::new(|_, vm| Ok(vm.pos.turn.ply as i64)),
                Builtin::Repetitions => Box::new(|p, vm| Ok(vm.repetitions(&p.hash_keys) as i64)),
                Builtin::Rounds => Box::new(|_, vm| Ok(vm.pos.turn.round as i64)),
                Builtin::Starter => Box::new(|_, vm| Ok(vm.pos.turn.starter as i64)),
                Builtin::Origin => Box::new(|_, vm| origin(vm)),
                Builtin::LastColour => Box::new(|_, vm| {
                    if vm.f.last_colour == NO_COLOUR {
                        return Err(Fault::error("`last-colour` is used before any sowing of this move".into()));
                    }
                    Ok(vm.f.last_colour as i64)
                }),
            },
            Expr::Count(x, colour) => self.count(x, colour.as_deref()),
            Expr::State(v) => {
                let var = &self.g.state[*v as usize];
                // A value never set is false, 0 or none, as a per-site one.
                let (offset, unset) = (var.offset, if matches!(var.ty, Type::Bool | Type::Int) { 0 } else { NONE });
                Box::new(move |_, vm| match vm.pos.vars[offset] {
                    Value::None => Ok(unset),
                    v => Ok(enc(v)),
                })
            }
            Expr::SiteState(v, x) => {
                let x = self.opnd(x);
                let r = self.state_read(*v);
                Box::new(move |p, vm| {
                    let s = x.site(p, vm)?;
                    r.at(p, vm, s)
                })
            }
            Expr::Member(x, set) => {
                let x = self.opnd(x);
                let set = self.set(set);
                Box::new(move |p, vm| {
                    let s = x.site(p, vm)?;
                    let set = set.get(p, vm)?;
                    Ok(member(p, set, s) as i64)
                })
            }
            Expr::OnTrack(x, t) => {
                let x = self.opnd(x);
                let t = self.opnd(t);
                Box::new(move |p, vm| {
                    let s = x.site(p, vm)?;
                    let t = t.track(p, vm)?;
                    Ok(p.game.tracks[t as usize].position[s as usize].is_some() as i64)
                })
            }
            Expr::Random(a, b) => {
                let (a, b) = (self.opnd(a), self.opnd(b));
                Box::new(move |p, vm| {
                    let (lo, hi) = (a.get(p, vm)?, b.get(p, vm)?);
                    if hi < lo {
                        return Err(Fault::error(format!("random({lo}, {hi}): the range is empty")));
                    }
                    let span = (hi.wrapping_sub(lo) as u64).wrapping_add(1);
                    let r = vm.random();
                    Ok(lo.wrapping_add(if span == 0 { r } else { r % span } as i64))
                })
            }
            Expr::Step(x, t, n) => {
                let (x, t, n) = (self.opnd(x), self.opnd(t), self.opnd(n));
                Box::new(move |p, vm| {
                    let s = x.site(p, vm)?;
                    let t = t.track(p, vm)?;
                    let n = n.get(p, vm)?;
                    let track = &p.game.tracks[t as usize];
                    let Some(at) = track.position[s as usize] else {
                        return Err(Fault::error(format!(
                            "`{}` is not on track `{}`",
                            p.game.sites[s as usize].name, track.name
                        )));
                    };
                    // Any `n`, however large: round a cyclic track, off a
                    // linear one to none (a sum that overflows is off it).
                    let len = track.sites.len() as i64;
                    Ok(match (track.cyclic, (at as i64).checked_add(n)) {
                        (true, _) => {
                            let to = at as i64 + n.rem_euclid(len);
                            track.sites[(if to >= len { to - len } else { to }) as usize] as i64
                        }
                        (false, Some(to)) if (0..len).contains(&to) => track.sites[to as usize] as i64,
                        (false, _) => NONE,
                    })
                })
            }
            Expr::First(x) => {
                let set = self.set(x);
                Box::new(move |p, vm| {
                    let set = set.get(p, vm)?;
                    Ok(if set_len(p, set) == 0 { NONE } else { set_item(p, set, 0) as i64 })
                })
            }
            Expr::Before(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| {
                    if !vm.f.moving || !vm.swap_with_saved() {
                        return Err(Fault::error("`before` is used where no move is being made".into()));
                    }
                    let r = x.get(p, vm);
                    vm.swap_with_saved();
                    r
                })
            }
            Expr::Opponent(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| Ok(1 - x.player(p, vm)? as i64))
            }
            Expr::Side(x) => {
                let x = self.opnd(x);
                let side: Vec<i64> = (0..self.g.players.len() as u8)
                    .map(|p| self.g.partners.iter().find(|g| g.contains(&p)).map_or(p, |g| g[0]) as i64)
                    .collect();
                Box::new(move |p, vm| Ok(side[x.player(p, vm)? as usize]))
            }
            Expr::Hook(h, args) => self.hook(*h, args),
            Expr::Cond(c, a, b) => {
                // The condition of its shape, read in the `if`'s own closure.
                let c = self.cond(c);
                let (a, b) = (self.opnd(a), self.opnd(b));
                self.finish(c, Pick(a, b))
            }
            Expr::Index(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| {
                    let s = x.site(p, vm)?;
                    match &p.game.sites[s as usize].family {
                        Some((_, i)) => Ok(*i),
                        None => Err(Fault::error(format!(
                            "`{}` belongs to no family, so it has no index",
                            p.game.sites[s as usize].name
                        ))),
                    }
                })
            }
            Expr::Owner(x) => {
                let x = self.opnd(x);
                match self.territory_read() {
                    // Territory: the owner kept as state, for its kind of site.
                    Some(r) => Box::new(move |p, vm| {
                        let s = x.site(p, vm)?;
                        r.at(p, vm, s)
                    }),
                    None => Box::new(move |p, vm| Ok(p.owners[x.site(p, vm)? as usize])),
                }
            }
            Expr::OwnedSite(kind, pl) => {
                let pl = self.opnd(pl);
                let owned = self.owned_sites(*kind);
                Box::new(move |p, vm| Ok(owned.get(pl.player(p, vm)? as usize).copied().unwrap_or(NONE)))
            }
            Expr::Relation(r, x) => {
                let x = self.opnd(x);
                let (table, r) = (self.relation(*r), *r);
                Box::new(move |p, vm| related(p, &table, r, x.site(p, vm)?).map(|t| t as i64))
            }
            Expr::IsKind(x, k) => {
                let x = self.opnd(x);
                let is: Vec<bool> = self.g.sites.iter().map(|s| s.kind == *k).collect();
                Box::new(move |p, vm| Ok(is[x.site(p, vm)? as usize] as i64))
            }
            Expr::Family(f, x) => self.family(*f, x),
            Expr::Not(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| Ok((x.get(p, vm)? == 0) as i64))
            }
            Expr::Neg(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| x.get(p, vm)?.checked_neg().ok_or_else(|| too_large(p, None)))
            }
            Expr::Min(a, b) => {
                let (a, b) = (self.opnd(a), self.opnd(b));
                bin!(a, b, |x, y| Ok(x.min(y)))
            }
            Expr::Max(a, b) => {
                let (a, b) = (self.opnd(a), self.opnd(b));
                bin!(a, b, |x, y| Ok(x.max(y)))
            }
            Expr::Bin(op, a, b) => self.binary(*op, a, b, None),
            Expr::Quant(q, slot, dom, body) => self.quant(*q, *slot, dom, body, None),
            Expr::Spanned(span, inner) => match &**inner {
                Expr::Bin(op, a, b) => self.binary(*op, a, b, Some(*span)),
                Expr::Quant(q, slot, dom, body) => self.quant(*q, *slot, dom, body, Some(*span)),
                Expr::Neg(x) => {
                    let x = self.opnd(x);
                    let span = *span;
                    Box::new(move |p, vm| x.get(p, vm)?.checked_neg().ok_or_else(|| too_large(p, Some(span))))
                }
                other => self.x(other),
            },
            Expr::CanMove(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| {
                    let pl = x.player(p, vm)?;
                    Ok(movegen::can_move(p, vm, pl)? as i64)
                })
            }
            // A part kept for later places (`cse.rs`); sets are not kept in
            // the locals, so a set is worked out at each place as written.
            Expr::Keep(_, x) | Expr::Kept(_, x) if matches!(self.ty(x), Type::Set | Type::Order) => self.x(x),
            Expr::Keep(slot, x) => {
                let x = self.opnd(x);
                let slot = *slot as usize;
                Box::new(move |p, vm| {
                    let v = x.get(p, vm)?;
                    vm.locals[slot] = v;
                    Ok(v)
                })
            }
            Expr::Kept(slot, _) => {
                let slot = *slot as usize;
                Box::new(move |_, vm| Ok(vm.locals[slot]))
            }
            Expr::Filter(..) | Expr::KindSet(..) => {
                // A set where one value is wanted: the compiler never asks.
                Box::new(|_, _| Err(Fault::error("a set of sites where one value was expected".into())))
            }
        }
    }

    /// How many counters a site, or every site of a set, holds.
    fn count(&mut self, x: &Expr, colour: Option<&Expr>) -> Fx {
        let colour = colour.map(|c| self.opnd(c));
        if self.ty(x) == Type::Set {
            return self.set_count(x, colour);
        }
        let x = self.opnd(x);
        match colour {
            None => Box::new(move |p, vm| {
                let s = x.site(p, vm)?;
                vm.read(s);
                Ok(vm.count(s) as i64)
            }),
            Some(c) => Box::new(move |p, vm| {
                let s = x.site(p, vm)?;
                let c = c.player(p, vm)?;
                vm.read(s);
                Ok(vm.colour_count(s, c) as i64)
            }),
        }
    }

    /// The terms of a chain of one operator (`a and b and c`), in order.
    pub(super) fn chain(&mut self, op: BinOp, e: &Expr, out: &mut Vec<Opnd>) {
        let mut terms = Vec::new();
        self.kept_terms(op, e, &mut terms);
        // Terms not joined are lowered where they are (memos know a part
        // by its address).
        for t in self.joined_terms(op, &terms) {
            out.push(self.opnd(&t));
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Option<Span>) -> Fx {
        if matches!(op, BinOp::Eq | BinOp::Ne) && self.ty(a) == Type::Set {
            let (x, y) = (self.set(a), self.set(b));
            let eq = op == BinOp::Eq;
            return Box::new(move |p, vm| {
                let (x, y) = (x.get(p, vm)?, y.get(p, vm)?);
                Ok(((x == y) == eq) as i64)
            });
        }
        let sites = self.ty(a) == Type::Site;
        if let Some(c) = self.relation_count(op, a, b) {
            return self.finish(c, ToFx);
        }
        let (a, b) = (self.opnd(a), self.opnd(b));
        // Equality of anything, and orders of numbers: by operand shapes
        // (`shapes.rs`); only orders of sites, which refuse "none", and
        // arithmetic are made here.
        let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
        let (a, b) = if sites && ordered {
            (a, b)
        } else {
            match Cond::comparison(op, a, b) {
                Ok(c) => return self.finish(c, ToFx),
                Err(ab) => ab,
            }
        };
        match op {
            BinOp::And | BinOp::Or => unreachable!("chains of `and` and `or` are lowered in `x`"),
            BinOp::Eq | BinOp::Ne => unreachable!("equalities are lowered by their shapes"),
            // Sites compare by the order they are declared in.
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let cmp =
                    move |p: &Program, vm: &mut Vm| -> Res<(SiteId, SiteId)> { Ok((a.site(p, vm)?, b.site(p, vm)?)) };
                match op {
                    BinOp::Lt => Box::new(move |p, vm| cmp(p, vm).map(|(x, y)| (x < y) as i64)),
                    BinOp::Le => Box::new(move |p, vm| cmp(p, vm).map(|(x, y)| (x <= y) as i64)),
                    BinOp::Gt => Box::new(move |p, vm| cmp(p, vm).map(|(x, y)| (x > y) as i64)),
                    _ => Box::new(move |p, vm| cmp(p, vm).map(|(x, y)| (x >= y) as i64)),
                }
            }
            BinOp::Add => bin!(a, b, |p, x, y| x.checked_add(y).ok_or_else(|| too_large(p, span))),
            BinOp::Sub => bin!(a, b, |p, x, y| x.checked_sub(y).ok_or_else(|| too_large(p, span))),
            BinOp::Mul => bin!(a, b, |p, x, y| x.checked_mul(y).ok_or_else(|| too_large(p, span))),
            BinOp::Div => bin!(a, b, |p, x, y| {
                if y == 0 {
                    return Err(Fault::error("division by zero".into()));
                }
                x.checked_div_euclid(y).ok_or_else(|| too_large(p, span))
            }),
            BinOp::Mod => bin!(a, b, |p, x, y| {
                if y == 0 {
                    return Err(Fault::error("division by zero".into()));
                }
                x.checked_rem_euclid(y).ok_or_else(|| too_large(p, span))
            }),
        }
    }
}

/// A number beyond what the rules can hold, reported where it is written.
#[cold]
pub(super) fn too_large(p: &Program, span: Option<Span>) -> Fault {
    match span {
        Some(span) => Fault::at(p.game.too_large(span), span),
        None => Fault::error(TOO_LARGE.into()),
    }
}
