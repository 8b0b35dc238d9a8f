//! Sets of sites, and the loops over them: walking a set or a track, a
//! set's members, sets lowered from expressions, and quantifiers (`sum`,
//! `any`, `all`) over players, numbers, sets and walks.

use super::expr::{Leaf, Opnd, SetOpnd, too_large};
use super::narrow::Narrowed;
use super::shapes::{Cond, Ev, Finish, compared, count_test, swapped};
use super::sums::{Sites, WINDOW, window_sum};
use super::tables::fixed_int;
use super::{Fset, Fx, Lower, Program};
use crate::diagnostics::Span;
use crate::engine::game::{BinOp, Domain, Expr, SiteId, Type, Value};
use crate::engine::vm::{Fault, Res, SetV, Vm, check_range, none_here};
use crate::syntax::ast::Quant;

/// Calls `each` on every site of a set, in order, until it says stop (true).
#[inline]
pub(crate) fn for_each_site(
    p: &Program,
    vm: &mut Vm,
    set: SetV,
    mut each: impl FnMut(&Program, &mut Vm, SiteId) -> Res<bool>,
) -> Res<()> {
    for s in set_sites(p, set) {
        if each(p, vm, s)? {
            break;
        }
    }
    Ok(())
}

/// Walks a track from a site on (against its direction when `backwards`),
/// one lap at most, calling `each` on every site until it says stop (true).
/// A linear track's walk stops at its end.
pub(crate) fn walk(
    p: &Program,
    vm: &mut Vm,
    (track, from, backwards): (u16, SiteId, bool),
    mut each: impl FnMut(&Program, &mut Vm, SiteId) -> Res<bool>,
) -> Res<()> {
    let t = &p.game.tracks[track as usize];
    let Some(start) = t.position[from as usize] else {
        return Err(Fault::error(format!(
            "`{}` is not on track `{}`: a walk starts from a site of its track",
            p.game.sites[from as usize].name, t.name
        )));
    };
    let len = t.sites.len();
    let mut at = start as usize;
    for _ in 0..len {
        vm.tick()?;
        if each(p, vm, t.sites[at])? {
            break;
        }
        at = match (backwards, at) {
            (false, a) if a + 1 < len => a + 1,
            (false, _) if t.cyclic => 0,
            (true, 0) if t.cyclic => len - 1,
            (true, a) if a > 0 => a - 1,
            _ => break,
        };
    }
    Ok(())
}

/// A walk along a track, as a domain: its parts, and its `while`.
pub(crate) struct WalkOpnd {
    pub track: Opnd,
    pub from: Opnd,
    pub backwards: bool,
    pub cond: Option<Opnd>,
}

impl WalkOpnd {
    /// Calls `each` on the sites of the walk while its condition holds
    /// (the site is put in `slot` first), until `each` says stop.
    pub(crate) fn run(
        &self,
        p: &Program,
        vm: &mut Vm,
        slot: usize,
        mut each: impl FnMut(&Program, &mut Vm) -> Res<bool>,
    ) -> Res<()> {
        let t = self.track.track(p, vm)?;
        let from = self.from.site(p, vm)?;
        walk(p, vm, (t, from, self.backwards), |p, vm, s| {
            vm.locals[slot] = s as i64;
            if let Some(c) = &self.cond
                && c.get(p, vm)? == 0
            {
                return Ok(true);
            }
            each(p, vm)
        })
    }
}

impl Lower<'_> {
    /// A walk's parts; its variable (in `slot`) is typed before its `while`.
    pub(crate) fn walk(&mut self, d: &Domain, slot: usize) -> WalkOpnd {
        let Domain::Walk { track, from, backwards, cond } = d else { unreachable!("a walk") };
        let (track, from) = (self.opnd(track), self.opnd(from));
        self.slots[slot] = Type::Site;
        let cond = cond.as_ref().map(|c| self.opnd(c));
        WalkOpnd { track, from, backwards: *backwards, cond }
    }
}

/// How many sites a set has.
pub(crate) fn set_len(p: &Program, set: SetV) -> usize {
    match set {
        SetV::One(_) => 1,
        SetV::Fixed(id) => p.game.sets[id as usize].len(),
        SetV::Mask(m) => m.count_ones() as usize,
    }
}

/// The sites of a set, in order, as an iterator: a declared set's slice
/// looked up once, a computed one's bits taken lowest first (asking for
/// the `k`-th site at each `k` counted the bits before it again).
#[inline]
pub(crate) fn set_sites(p: &Program, set: SetV) -> SetSites<'_> {
    match set {
        SetV::One(s) => SetSites::One(Some(s)),
        SetV::Fixed(id) => SetSites::Fixed(p.game.sets[id as usize].iter()),
        SetV::Mask(m) => SetSites::Mask(m),
    }
}

/// See [`set_sites`].
pub(crate) enum SetSites<'p> {
    One(Option<SiteId>),
    Fixed(std::slice::Iter<'p, SiteId>),
    Mask(u64),
}

impl Iterator for SetSites<'_> {
    type Item = SiteId;
    #[inline(always)]
    fn next(&mut self) -> Option<SiteId> {
        match self {
            SetSites::One(s) => s.take(),
            SetSites::Fixed(it) => it.next().copied(),
            SetSites::Mask(m) => {
                if *m == 0 {
                    return None;
                }
                let s = m.trailing_zeros() as SiteId;
                *m &= *m - 1;
                Some(s)
            }
        }
    }
}

/// The `k`-th site of a set.
pub(crate) fn set_item(p: &Program, set: SetV, k: usize) -> SiteId {
    match set {
        SetV::One(s) => s,
        SetV::Fixed(id) => p.game.sets[id as usize][k],
        SetV::Mask(mut m) => {
            for _ in 0..k {
                m &= m - 1;
            }
            m.trailing_zeros() as SiteId
        }
    }
}

/// Whether a site is in a set.
#[inline]
pub(crate) fn member(p: &Program, set: SetV, s: SiteId) -> bool {
    match set {
        SetV::One(x) => x == s,
        SetV::Fixed(id) => p.members[id as usize].get(s as usize / 64).is_some_and(|w| w & (1 << (s % 64)) != 0),
        SetV::Mask(m) => s < 64 && m & (1 << s) != 0,
    }
}

/// Notes that the rules read the counts of a set of sites.
pub(super) fn read_set(p: &Program, vm: &mut Vm, set: SetV) {
    if vm.banks.is_empty() {
        return;
    }
    let banks = &vm.banks;
    let read = match set {
        SetV::One(s) => banks.get(s as usize) == Some(&true),
        SetV::Fixed(id) => p.game.sets[id as usize].iter().any(|&s| banks[s as usize]),
        SetV::Mask(m) => (0..64).any(|b| m & (1 << b) != 0 && banks.get(b) == Some(&true)),
    };
    vm.bank_read |= read;
}

impl Lower<'_> {
    /// How many counters every site of the set `x` holds (of colour
    /// `colour`, if given), read by a closure (`expr.rs`'s `count` for a
    /// set that is not read in place).
    pub(super) fn set_count(&mut self, x: &Expr, colour: Option<Opnd>) -> Fx {
        let set = self.set(x);
        Box::new(move |p, vm| {
            let set = set.get(p, vm)?;
            let c = match &colour {
                Some(c) => Some(c.player(p, vm)?),
                None => None,
            };
            read_set(p, vm, set);
            let mut total = 0i64;
            let one = |vm: &Vm, s: SiteId| match c {
                Some(c) => vm.colour_count(s, c) as i64,
                None => vm.count(s) as i64,
            };
            match set {
                SetV::One(s) => total = one(vm, s),
                SetV::Fixed(id) => {
                    for &s in &p.game.sets[id as usize] {
                        total += one(vm, s);
                    }
                }
                SetV::Mask(mut m) => {
                    while m != 0 {
                        total += one(vm, m.trailing_zeros() as SiteId);
                        m &= m - 1;
                    }
                }
            }
            Ok(total)
        })
    }

    pub(super) fn quant(&mut self, q: Quant, slot: u8, dom: &Domain, body: &Expr, span: Option<Span>) -> Fx {
        let slot = slot as usize;
        let domain = match dom {
            Domain::Players => QDomain::Players,
            Domain::Range(a, b) => QDomain::Range(self.opnd(a), self.opnd(b)),
            Domain::Set(s) => QDomain::Set(self.set(s)),
            Domain::Walk { .. } => QDomain::Walk(self.walk(dom, slot)),
            Domain::Arrangements(_) | Domain::Tracks => {
                return Box::new(|_, _| Err(Fault::error("a quantifier over arrangements or tracks".into())));
            }
        };
        self.slots[slot] = match dom {
            Domain::Players => Type::Player,
            Domain::Range(..) => Type::Int,
            _ => Type::Site,
        };
        let np = self.g.players.len() as i64;
        // `sum(c in 0..holes - 1: count(at(p, r, c)))`: the range's sites
        // from a table (see `tables.rs`), else summed as written.
        if q == Quant::Sum
            && let Domain::Range(a, b) = dom
            && let (Some(lo), Some(hi)) = (fixed_int(a), fixed_int(b))
            && let Expr::Count(x, None) = body.unspanned()
            && let Some(rows) = self.counted_range(slot, (lo, hi), x)
        {
            let body = self.opnd(body);
            let general = self.quant_any(q, slot, domain, body, np, span);
            return Box::new(move |p, vm| match rows.sum(p, vm) {
                Some(sum) => sum,
                None => general(p, vm),
            });
        }
        if let (QDomain::Players, Quant::Any | Quant::All) = (&domain, q) {
            let body = self.cond(body);
            if let Some(f) = self.players_count(q, slot, &body) {
                return f;
            }
            return match q {
                Quant::All => self.finish(body, AnyPlayer::<true> { np, slot }),
                _ => self.finish(body, AnyPlayer::<false> { np, slot }),
            };
        }
        if let (QDomain::Set(_), Quant::Any | Quant::All) = (&domain, q)
            && let Some((holds, k)) = count_test(body, slot as u8)
        {
            let QDomain::Set(set) = domain else { unreachable!("a set") };
            return match q {
                Quant::All => site_counts::<true>(set, holds, k),
                _ => site_counts::<false>(set, holds, k),
            };
        }
        // A body that begins with what the site is: the set narrowed by it.
        if let (QDomain::Set(_), Quant::Any | Quant::All) = (&domain, q) {
            let op = if q == Quant::Any { BinOp::And } else { BinOp::Or };
            if let Some((narrowed, rest)) = self.narrowing(op, slot as u8, body) {
                let QDomain::Set(set) = domain else { unreachable!("a set") };
                return match q {
                    Quant::All => any_narrowed::<true>(set, narrowed, rest),
                    _ => any_narrowed::<false>(set, narrowed, rest),
                };
            }
        }
        let body = self.opnd(body);
        match (domain, q) {
            (QDomain::Set(s), Quant::Any) => any_site::<false>(s, slot, body),
            (QDomain::Set(s), Quant::All) => any_site::<true>(s, slot, body),
            (domain, q) => self.quant_any(q, slot, domain, body, np, span),
        }
    }

    /// `any(p in players: count(every KIND of p) OP k)`, or `all`, `k` a
    /// constant, in a game of one colour (the commonest end condition: a
    /// side is empty): each player's sites summed in turn, the quantifier's
    /// variable left unwritten (the comparison is its only reader).
    fn players_count(&self, q: Quant, slot: usize, body: &Cond) -> Option<Fx> {
        use super::expr::Leaf;
        let Cond::Cmp(holds, a, b) = body else { return None };
        // `k OP count(...)` is `count(...) OP' k`, less and greater swapped.
        let (ids, k, holds) = match (a, b) {
            (Opnd::CountOf(ids, Leaf::Local(s)), Opnd::Leaf(Leaf::Const(k))) if *s == slot => (ids, *k, *holds),
            (Opnd::Leaf(Leaf::Const(k)), Opnd::CountOf(ids, Leaf::Local(s))) if *s == slot => {
                (ids, *k, swapped(*holds))
            }
            _ => return None,
        };
        let np = self.g.players.len();
        if self.g.colours != 1 || ids.len() < np {
            return None;
        }
        let each: Box<[Sites]> =
            ids[..np].iter().map(|&id| Sites::new(id, &self.g.sets[id as usize], self.g.sites.len())).collect();
        // Every player's sites a window: no match on their shape.
        let windows: Option<Box<[Window]>> = each
            .iter()
            .map(|s| match s {
                Sites::Window(id, w, mask) => Some((*id, *w, *mask)),
                _ => None,
            })
            .collect();
        if let Some(windows) = windows {
            return Some(match q {
                Quant::All => players_windows::<true>(windows, holds, k),
                _ => players_windows::<false>(windows, holds, k),
            });
        }
        Some(match q {
            Quant::All => players_count::<true, _>(each, holds, k),
            _ => players_count::<false, _>(each, holds, k),
        })
    }

    /// A quantifier of any domain: `sum`, and what `AnyPlayer` and
    /// `any_site` do not make.
    fn quant_any(&mut self, q: Quant, slot: usize, domain: QDomain, body: Opnd, np: i64, span: Option<Span>) -> Fx {
        match domain {
            QDomain::Players => Box::new(move |p, vm| {
                let (mut acc, mut stopped) = (0, false);
                for v in 0..np {
                    vm.tick()?;
                    vm.locals[slot] = v;
                    if quant_step(q, body.get(p, vm)?, &mut acc).map_err(|_| too_large(p, span))? {
                        stopped = true;
                        break;
                    }
                }
                Ok(quant_result(q, acc, stopped))
            }),
            QDomain::Range(a, b) => Box::new(move |p, vm| {
                let (lo, hi) = (a.get(p, vm)?, b.get(p, vm)?);
                check_range(lo, hi)?;
                let (mut acc, mut stopped) = (0, false);
                for v in lo..=hi {
                    vm.tick()?;
                    vm.locals[slot] = v;
                    if quant_step(q, body.get(p, vm)?, &mut acc).map_err(|_| too_large(p, span))? {
                        stopped = true;
                        break;
                    }
                }
                Ok(quant_result(q, acc, stopped))
            }),
            QDomain::Walk(w) => Box::new(move |p, vm| {
                let (mut acc, mut stopped) = (0, false);
                w.run(p, vm, slot, |p, vm| {
                    stopped = quant_step(q, body.get(p, vm)?, &mut acc).map_err(|_| too_large(p, span))?;
                    Ok(stopped)
                })?;
                Ok(quant_result(q, acc, stopped))
            }),
            QDomain::Set(s) => Box::new(move |p, vm| {
                let set = s.get(p, vm)?;
                let (mut acc, mut stopped) = (0, false);
                for_each_site(p, vm, set, |p, vm, s| {
                    vm.tick()?;
                    vm.locals[slot] = s as i64;
                    stopped = quant_step(q, body.get(p, vm)?, &mut acc).map_err(|_| too_large(p, span))?;
                    Ok(stopped)
                })?;
                Ok(quant_result(q, acc, stopped))
            }),
        }
    }

    /// An expression whose value is a set of sites, read in place when it is
    /// a fixed set or a player's sites of a kind.
    pub(crate) fn set(&mut self, e: &Expr) -> SetOpnd {
        match e {
            Expr::Const(Value::Set(id)) => SetOpnd::Fixed(*id),
            Expr::KindSet(kind, pl) if self.leaf(pl).is_some() && !self.territory(*kind) => {
                SetOpnd::OfPlayer(self.g.kind_sets[kind.index()].clone().into(), self.leaf(pl).expect("a leaf"))
            }
            _ => match self.sets_by_mover(e) {
                Some(ids) => SetOpnd::OfPlayer(ids, Leaf::Mover),
                None => SetOpnd::Dyn(self.set_fn(e)),
            },
        }
    }

    /// An expression whose value is a set of sites (a single site is a set of one).
    pub(super) fn set_fn(&mut self, e: &Expr) -> Fset {
        match e {
            Expr::Const(Value::Set(id)) => {
                let id = *id;
                Box::new(move |_, _| Ok(SetV::Fixed(id)))
            }
            Expr::Const(Value::Mask(m)) => {
                let m = *m;
                Box::new(move |_, _| Ok(SetV::Mask(m)))
            }
            Expr::Local(s) if self.slots[*s as usize] == Type::Set => {
                let s = *s as usize;
                Box::new(move |_, vm| Ok(vm.sets[s]))
            }
            Expr::KindSet(kind, pl) if self.territory(*kind) => {
                // Territory: the sites of the kind whose owner (kept as
                // state) is the player, now.
                let pl = self.opnd(pl);
                let (var, _) = self.g.territory.expect("territory");
                let offset = self.g.state[var as usize].offset;
                let all = self.g.kind_sets[kind.index()][self.g.players.len()];
                Box::new(move |p, vm| {
                    let who = pl.player(p, vm)?;
                    let mut mask = 0u64;
                    for &s in &p.game.sets[all as usize] {
                        if vm.pos.vars[offset + s as usize] == Value::Player(who) {
                            if s >= 64 {
                                return Err(Fault::error(
                                    "a player's sites, when their owners change, can be only among the first 64".into(),
                                ));
                            }
                            mask |= 1 << s;
                        }
                    }
                    Ok(SetV::Mask(mask))
                })
            }
            Expr::KindSet(kind, pl) => {
                let pl = self.opnd(pl);
                let ids: Vec<u16> = self.g.kind_sets[kind.index()].clone();
                Box::new(move |p, vm| Ok(SetV::Fixed(ids[pl.player(p, vm)? as usize])))
            }
            Expr::Filter(set, slot, cond) => {
                let set = self.set(set);
                let slot = *slot as usize;
                self.slots[slot] = Type::Site;
                let cond = self.opnd(cond);
                Box::new(move |p, vm| {
                    let set = set.get(p, vm)?;
                    let mut mask = 0u64;
                    for_each_site(p, vm, set, |p, vm, s| {
                        if s >= 64 {
                            return Err(Fault::error(
                                "a set filtered during play can hold only the first 64 sites".into(),
                            ));
                        }
                        vm.locals[slot] = s as i64;
                        if cond.get(p, vm)? != 0 {
                            mask |= 1 << s;
                        }
                        Ok(false)
                    })?;
                    Ok(SetV::Mask(mask))
                })
            }
            // Sets are not kept in the locals (`cse.rs`): worked out here.
            Expr::Keep(_, x) | Expr::Kept(_, x) if self.ty(x) == Type::Set => self.set_fn(x),
            Expr::Cond(c, a, b) if self.ty(a) == Type::Set => {
                let c = self.opnd(c);
                let (a, b) = (self.set(a), self.set(b));
                Box::new(move |p, vm| if c.get(p, vm)? != 0 { a.get(p, vm) } else { b.get(p, vm) })
            }
            _ if self.ty(e) == Type::Set => {
                Box::new(|_, _| Err(Fault::error("this set of sites cannot be computed during play".into())))
            }
            // One site.
            _ => {
                let x = self.opnd(e);
                Box::new(move |p, vm| {
                    let v = x.get(p, vm)?;
                    if v < 0 {
                        return Err(none_here("a set of sites"));
                    }
                    Ok(SetV::One(v as SiteId))
                })
            }
        }
    }
}

/// Takes one value of a quantifier's body; true when the answer is known.
#[inline(always)]
fn quant_step(q: Quant, r: i64, acc: &mut i64) -> Result<bool, ()> {
    Ok(match q {
        Quant::Sum => {
            *acc = acc.checked_add(r).ok_or(())?;
            false
        }
        Quant::Any => r != 0,
        Quant::All => r == 0,
    })
}

/// `any(v in players: body)`, or `all` with `ALL`: stops at the first
/// player for whom the body holds (fails), as [`quant_step`] does. The
/// body is a condition of a known shape.
struct AnyPlayer<const ALL: bool> {
    np: i64,
    slot: usize,
}

impl<const ALL: bool> Finish for AnyPlayer<ALL> {
    type Out = Fx;
    fn finish<C: Ev>(self, body: C) -> Fx {
        let AnyPlayer { np, slot } = self;
        Box::new(move |p, vm| {
            for v in 0..np {
                vm.tick()?;
                vm.locals[slot] = v;
                if (body.ev(p, vm)? != 0) != ALL {
                    return Ok(!ALL as i64);
                }
            }
            Ok(ALL as i64)
        })
    }
}

/// A player's sites as a window of counts: the set, where the window
/// begins, and which of its counts are the player's.
type Window = (u16, usize, [i32; WINDOW]);

/// What [`players_count`] sums of each player: their sites in any shape,
/// or as a window (no match on the shape).
trait PlayerSum: Send + Sync + 'static {
    fn sum(&self, p: &Program, vm: &mut Vm) -> i64;
}

impl PlayerSum for Sites {
    #[inline(always)]
    fn sum(&self, p: &Program, vm: &mut Vm) -> i64 {
        self.count(p, vm)
    }
}

impl PlayerSum for Window {
    #[inline(always)]
    fn sum(&self, p: &Program, vm: &mut Vm) -> i64 {
        let (id, w, mask) = self;
        if !vm.banks.is_empty() {
            read_set(p, vm, SetV::Fixed(*id));
        }
        window_sum(&vm.pos.counts, *w, mask)
    }
}

/// [`Lower::players_count`]'s closure: `holds`, the comparison's outcomes
/// (as [`super::shapes::Cmp`]'s), for each player's sum `each` against `k`.
fn players_count<const ALL: bool, S: PlayerSum>(each: Box<[S]>, holds: u8, k: i64) -> Fx {
    Box::new(move |p, vm| {
        for sites in &each {
            vm.tick()?;
            let x = sites.sum(p, vm);
            if compared(holds, x, k) != ALL {
                return Ok(!ALL as i64);
            }
        }
        Ok(ALL as i64)
    })
}

/// [`players_count`] of windows, asked at every move in most games (a
/// side is empty): with no banks to watch and fuel for every player, the
/// sums are read straight from the counts and the fuel of the players
/// looked at spent at once (as much, and short exactly when ticking each
/// would have been).
fn players_windows<const ALL: bool>(each: Box<[Window]>, holds: u8, k: i64) -> Fx {
    let slow = players_count::<ALL, Window>(each.clone(), holds, k);
    Box::new(move |p, vm| {
        if !vm.banks.is_empty() || vm.fuel < each.len() as u64 {
            return slow(p, vm);
        }
        let counts = &vm.pos.counts;
        for (i, (_, w, mask)) in each.iter().enumerate() {
            if compared(holds, window_sum(counts, *w, mask), k) != ALL {
                vm.fuel -= i as u64 + 1;
                return Ok(!ALL as i64);
            }
        }
        vm.fuel -= each.len() as u64;
        Ok(ALL as i64)
    })
}

/// `any(v in SET: count(v) OP k)`, or `all` with `ALL` (a player has a
/// hole of more than one, all of theirs hold one at most): each site's
/// count compared in place, as [`any_site`] would its body, without a
/// closure a site; the quantifier's variable is left unwritten (the
/// comparison is its only reader).
fn site_counts<const ALL: bool>(set: SetOpnd, holds: u8, k: i64) -> Fx {
    Box::new(move |p, vm| {
        let set = set.get(p, vm)?;
        let mut stopped = false;
        if let SetV::Fixed(id) = set
            && vm.banks.is_empty()
            && vm.colours == 1
        {
            // The commonest case, read straight from the counts: the fuel
            // of the sites looked at spent at once (as much, and short
            // exactly when ticking each would have been).
            let counts = &vm.pos.counts;
            let mut seen = 0;
            for &s in &p.game.sets[id as usize] {
                seen += 1;
                let x = counts[s as usize] as i64;
                stopped = compared(holds, x, k) != ALL;
                if stopped {
                    break;
                }
            }
            vm.spend(seen)?;
            return Ok((stopped != ALL) as i64);
        }
        for_each_site(p, vm, set, |_, vm, s| {
            vm.tick()?;
            vm.read(s);
            let x = vm.count(s) as i64;
            stopped = compared(holds, x, k) != ALL;
            Ok(stopped)
        })?;
        Ok((stopped != ALL) as i64)
    })
}

/// `any(v in SET: body)`, or `all` with `ALL`, as [`AnyPlayer`].
fn any_site<const ALL: bool>(set: SetOpnd, slot: usize, body: Opnd) -> Fx {
    Box::new(move |p, vm| {
        let set = set.get(p, vm)?;
        let mut stopped = false;
        for_each_site(p, vm, set, |p, vm, s| {
            vm.tick()?;
            vm.locals[slot] = s as i64;
            stopped = (body.get(p, vm)? != 0) != ALL;
            Ok(stopped)
        })?;
        Ok((stopped != ALL) as i64)
    })
}

/// `any(v in SET: body)`, or `all` with `ALL`, whose body begins with
/// what the site is (see `narrow.rs`): a fixed set's sites where the body
/// goes on past that, asked the rest; any other set's asked the whole.
fn any_narrowed<const ALL: bool>(set: SetOpnd, n: Narrowed, rest: Opnd) -> Fx {
    Box::new(move |p, vm| {
        let set = set.get(p, vm)?;
        if let SetV::Fixed(id) = set
            && let Some(sites) = n.sites(p, vm, id)
        {
            for &s in sites {
                vm.tick()?;
                vm.locals[n.slot] = s as i64;
                if (rest.get(p, vm)? != 0) != ALL {
                    return Ok(!ALL as i64);
                }
            }
            return Ok(ALL as i64);
        }
        let mut stopped = false;
        for_each_site(p, vm, set, |p, vm, s| {
            vm.tick()?;
            vm.locals[n.slot] = s as i64;
            stopped = n.whole(&rest, p, vm)? != ALL;
            Ok(stopped)
        })?;
        Ok((stopped != ALL) as i64)
    })
}

/// A quantifier's value: the sum, or whether it stopped early (`any`: one
/// held; `all`: one failed).
#[inline(always)]
fn quant_result(q: Quant, acc: i64, stopped: bool) -> i64 {
    match q {
        Quant::Sum => acc,
        Quant::Any => stopped as i64,
        Quant::All => !stopped as i64,
    }
}

enum QDomain {
    Players,
    Range(Opnd, Opnd),
    Set(SetOpnd),
    Walk(WalkOpnd),
}

#[cfg(test)]
mod tests {
    use super::super::Program;
    use super::{set_item, set_len, set_sites};
    use crate::compile::{Config, compile_source};
    use crate::engine::vm::SetV;
    use std::sync::Arc;

    /// The sites of a set as an iterator are the sites by index, in the
    /// same order: a declared set, one site, computed sets of every size.
    #[test]
    fn the_sites_of_a_set_are_its_sites_by_index() {
        let text = "game \"Sets\"
players south, north
pit a[1..5] owner south
store A owner south
pit b[1..5] owner north
store B owner north
group middle: a[2..4], b[3]
track loop cyclic: a[1..5], A, b[1..5], B
setup {
  put 1 in every pit
}
move sow \"{h}\" {
  choose h in every pit of mover where count(h) > 0
  sow h along loop
}
score p: count(store(p))
";
        let g = compile_source("t.mancala", text, &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let p = Program::lower(Arc::new(g), true);
        let by_index = |set: SetV| (0..set_len(&p, set)).map(|k| set_item(&p, set, k)).collect::<Vec<_>>();
        let mut sets: Vec<SetV> = (0..p.game.sets.len() as u16).map(SetV::Fixed).collect();
        sets.extend((0..12).map(SetV::One));
        let mut m = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..64 {
            sets.push(SetV::Mask(m));
            m = m.rotate_left(7) ^ (m >> 3);
        }
        sets.extend([SetV::Mask(0), SetV::Mask(u64::MAX), SetV::Mask(1 << 63)]);
        for set in sets {
            let want = by_index(set);
            assert_eq!(set_sites(&p, set).collect::<Vec<_>>(), want, "{set:?}");
        }
        assert!(p.game.sets.iter().any(|s| s.len() == 4), "the group is among the sets");
    }
}
