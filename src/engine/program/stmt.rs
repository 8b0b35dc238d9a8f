//! Statements lowered to closures: taking, putting, state, control, and
//! `if`s whose conditions are finished in place (see `shapes.rs`). Sowing
//! has a file of its own (`sow.rs`).

use super::expr::{Leaf, Opnd, dec, too_large};
use super::sets::for_each_site;
use super::shapes::{AroundOf, Board, Cond, Ev, Finish, ToOpnd};
use super::sow::SowDef;
use super::tables::fixed_int;
use super::{Block, Fst, Lower, Program, run};
use crate::diagnostics::Span;
use crate::engine::game::{BinOp, Domain, Expr, SiteId, Stmt, StmtKind, Type, Value};
use crate::engine::vm::{Fault, Res, Vm, check_range, none_here};

/// Most counters a game may have; `put` refuses to go beyond it, and no
/// move can, since moves conserve counters.
pub(crate) const MAX_COUNT: i32 = 100_000_000;

/// Most branches of an `if` (with its `else if`s) asked as `if`s nested
/// in each other's `else` (see [`IfElse`]).
const MAX_NESTED_BRANCHES: usize = 8;

impl Lower<'_> {
    pub(crate) fn block(&mut self, stmts: &[Stmt]) -> Block {
        let mut out = Block::default();
        for s in stmts {
            match &s.kind {
                // An `if` whose conditions the options decided, leaving the
                // block of the one that holds: that block, in place.
                StmtKind::If { branches, otherwise } if branches.is_empty() => out.append(self.block(otherwise)),
                _ => {
                    let f = self.stmt(s);
                    out.push(f, s.span);
                }
            }
        }
        out
    }

    fn stmt(&mut self, s: &Stmt) -> Fst {
        match &s.kind {
            StmtKind::Sow { amount, source, track, it, ordered, fixed_skips, skips, start, relay, each, lap } => self
                .sow(&SowDef {
                    amount: amount.as_ref(),
                    source,
                    track,
                    start: start.as_ref(),
                    it: *it,
                    ordered: *ordered,
                    fixed_skips,
                    skips,
                    relay: relay.as_deref(),
                    each,
                    lap,
                }),
            StmtKind::Take { amount, colour, from, to } => {
                let to = to.as_ref().map(|t| self.opnd(t));
                let colour = colour.as_ref().map(|c| self.opnd(c));
                // Where the counters go: a site, or out of the game (`remove`).
                let dest = move |p: &Program, vm: &mut Vm| -> Res<Option<SiteId>> {
                    match &to {
                        Some(t) => t.site(p, vm).map(Some),
                        None => Ok(None),
                    }
                };
                let give = |vm: &mut Vm, dst: Option<SiteId>, c: usize, n: i32| match dst {
                    Some(d) => vm.add(d, c, n),
                    None => vm.pos.turn.removed += n as u32,
                };
                match amount {
                    Some(a) => {
                        let from = self.opnd(from);
                        let a = self.opnd(a);
                        Box::new(move |p, vm| {
                            let dst = dest(p, vm)?;
                            let s = from.site(p, vm)?;
                            let c = colour_of(&colour, p, vm)?;
                            let n = a.get(p, vm)?;
                            vm.read(s);
                            let have = match c {
                                Some(c) => vm.colour_count(s, c as u8),
                                None => vm.count(s),
                            };
                            if n < 0 || n > have as i64 {
                                return Err(Fault::ILLEGAL);
                            }
                            let c = c.unwrap_or(0);
                            vm.add(s, c, -(n as i32));
                            give(vm, dst, c, n as i32);
                            Ok(())
                        })
                    }
                    // One site (a capture's `take opposite(last) to
                    // store(mover)`): read in place, no set made of it.
                    None if self.ty(from) != Type::Set => {
                        let from = self.opnd(from);
                        Box::new(move |p, vm| {
                            let dst = dest(p, vm)?;
                            let s = from.get(p, vm)?;
                            if s < 0 {
                                return Err(none_here("a set of sites"));
                            }
                            let colour = colour_of(&colour, p, vm)?;
                            take_all(vm, s as SiteId, dst, colour, give);
                            Ok(())
                        })
                    }
                    None => {
                        let from = self.set(from);
                        Box::new(move |p, vm| {
                            let dst = dest(p, vm)?;
                            let src = from.get(p, vm)?;
                            let colour = colour_of(&colour, p, vm)?;
                            for_each_site(p, vm, src, |_, vm, s| {
                                take_all(vm, s, dst, colour, give);
                                Ok(false)
                            })
                        })
                    }
                }
            }
            StmtKind::Put { amount, colour, target } => {
                let amount = self.opnd(amount);
                let colour = colour.as_ref().map(|c| self.opnd(c));
                let target = self.set(target);
                Box::new(move |p, vm| {
                    let n = amount.get(p, vm)?;
                    if !(0..=1_000_000).contains(&n) {
                        return Err(Fault::error(format!("`put` of {n} counters: must be 0 to 1000000")));
                    }
                    let colour = match &colour {
                        Some(c) => c.player(p, vm)? as usize,
                        None => 0,
                    };
                    let t = target.get(p, vm)?;
                    // The limit on all counters reads every count, banks too.
                    vm.bank_read |= !vm.banks.is_empty();
                    for_each_site(p, vm, t, |_, vm, s| {
                        if vm.total_counters() + n > MAX_COUNT as i64 {
                            return Err(Fault::error(format!(
                                "`put` would make more than {MAX_COUNT} counters in all"
                            )));
                        }
                        vm.add(s, colour, n as i32);
                        Ok(false)
                    })
                })
            }
            StmtKind::If { branches, otherwise } => {
                let branches: Vec<(Cond, Block)> =
                    branches.iter().map(|(c, then)| (self.cond(c), self.block(then))).collect();
                let otherwise = self.block(otherwise);
                if branches.len() == 1 && otherwise.is_empty() {
                    let (c, then) = branches.into_iter().next().expect("one branch");
                    return self.finish(c, IfThen(then));
                }
                // More branches than are nested below: a loop over them,
                // each condition a closure of its own, so that the calls
                // nested at play stay as few as the brackets let them be.
                if branches.len() > MAX_NESTED_BRANCHES {
                    let branches: Vec<(Opnd, Block)> =
                        branches.into_iter().map(|(c, then)| (self.finish(c, ToOpnd), then)).collect();
                    return Box::new(move |p, vm| {
                        for (c, then) in &branches {
                            if c.get(p, vm)? != 0 {
                                return run(then, p, vm);
                            }
                        }
                        run(&otherwise, p, vm)
                    });
                }
                // `if a {..} else if b {..} else {..}`: an `if` with an
                // `else` each, the next in the `else`, each condition read in
                // its own `if`'s closure (not a closure of its own). An error
                // of a later condition is told at the whole `if`, as the
                // first's is: the `else` block holds it at that place.
                let mut branches = branches.into_iter().rev();
                let (c, then) = branches.next().expect("an `if` has a branch");
                let mut f = self.finish(c, IfElse(then, otherwise));
                for (c, then) in branches {
                    let mut rest = Block::default();
                    rest.push(f, s.span);
                    f = self.finish(c, IfElse(then, rest));
                }
                f
            }
            StmtKind::For { var, domain, body } => {
                let var = *var as usize;
                match domain {
                    Domain::Players => {
                        self.slots[var] = Type::Player;
                        let body = self.block(body);
                        let np = self.g.players.len() as i64;
                        Box::new(move |p, vm| {
                            for pl in 0..np {
                                vm.locals[var] = pl;
                                run(&body, p, vm)?;
                            }
                            Ok(())
                        })
                    }
                    Domain::Range(a, b) => {
                        let (a, b) = (self.opnd(a), self.opnd(b));
                        self.slots[var] = Type::Int;
                        let body = self.block(body);
                        Box::new(move |p, vm| {
                            let (lo, hi) = (a.get(p, vm)?, b.get(p, vm)?);
                            check_range(lo, hi)?;
                            for v in lo..=hi {
                                vm.tick()?;
                                vm.locals[var] = v;
                                run(&body, p, vm)?;
                            }
                            Ok(())
                        })
                    }
                    Domain::Set(s) => {
                        let set = self.set(s);
                        self.slots[var] = Type::Site;
                        let body = self.block(body);
                        Box::new(move |p, vm| {
                            let set = set.get(p, vm)?;
                            for_each_site(p, vm, set, |p, vm, s| {
                                vm.locals[var] = s as i64;
                                run(&body, p, vm).map(|_| false)
                            })
                        })
                    }
                    Domain::Walk { .. } => {
                        let w = self.walk(domain, var);
                        let body = self.block(body);
                        Box::new(move |p, vm| w.run(p, vm, var, |p, vm| run(&body, p, vm).map(|_| false)))
                    }
                    Domain::Arrangements(_) | Domain::Tracks => {
                        Box::new(|_, _| Err(Fault::error("a loop over arrangements or tracks".into())))
                    }
                }
            }
            StmtKind::Let { var, value } => {
                let var = *var as usize;
                let ty = self.ty(value);
                if ty == Type::Set {
                    let value = self.set(value);
                    self.slots[var] = ty;
                    return Box::new(move |p, vm| {
                        vm.sets[var] = value.get(p, vm)?;
                        Ok(())
                    });
                }
                let value = self.x(value);
                self.slots[var] = ty;
                Box::new(move |p, vm| {
                    vm.locals[var] = value(p, vm)?;
                    Ok(())
                })
            }
            StmtKind::Set { var, site, value } => {
                let v = &self.g.state[*var as usize];
                let (offset, ty) = (v.offset, v.ty);
                if site.is_none()
                    && ty == Type::Int
                    && let Some((k, span)) = step_of(*var, value)
                {
                    return Box::new(move |p, vm| step_number(p, vm, offset, k, span));
                }
                let value = self.opnd(value);
                // A value fixed by the rules (`set passed = false`, after
                // every move of some games), worked out once.
                let fixed = match value {
                    Opnd::Leaf(Leaf::Const(k)) => Some(dec(ty, k)),
                    _ => None,
                };
                match (site, fixed) {
                    (None, Some(v)) => Box::new(move |_, vm| {
                        if vm.pos.vars[offset] != v {
                            vm.pos.vars[offset] = v;
                            vm.vars_changed();
                        }
                        Ok(())
                    }),
                    // A value set to what it holds changes nothing: the
                    // state keeps its version (and the tables made for it).
                    (None, None) => Box::new(move |p, vm| {
                        let v = dec(ty, value.get(p, vm)?);
                        if vm.pos.vars[offset] != v {
                            vm.pos.vars[offset] = v;
                            vm.vars_changed();
                        }
                        Ok(())
                    }),
                    (Some(x), _) => {
                        let x = self.opnd(x);
                        let check = self.kind_check(*var);
                        Box::new(move |p, vm| {
                            let s = x.site(p, vm)?;
                            check(p, s)?;
                            let v = dec(ty, value.get(p, vm)?);
                            if vm.pos.vars[offset + s as usize] != v {
                                vm.pos.vars[offset + s as usize] = v;
                                vm.site_vars_changed();
                            }
                            Ok(())
                        })
                    }
                }
            }
            StmtKind::Swap(a, b) => {
                let (a, b) = (self.opnd(a), self.opnd(b));
                let per_site: Vec<usize> = self.g.state.iter().filter(|v| v.per_site).map(|v| v.offset).collect();
                Box::new(move |p, vm| {
                    let (a, b) = (a.site(p, vm)? as usize, b.site(p, vm)? as usize);
                    vm.read(a as SiteId);
                    vm.read(b as SiteId);
                    let k = vm.colours;
                    for c in 0..k {
                        vm.pos.counts.swap(a * k + c, b * k + c);
                    }
                    for &offset in &per_site {
                        vm.pos.vars.swap(offset + a, offset + b);
                    }
                    if !per_site.is_empty() {
                        vm.site_vars_changed();
                    }
                    Ok(())
                })
            }
            StmtKind::Enter(ph) => {
                let ph = *ph;
                Box::new(move |_, vm| {
                    vm.f.enter = Some(ph);
                    Ok(())
                })
            }
            StmtKind::Require(c) => {
                let c = self.opnd(c);
                Box::new(move |p, vm| if c.get(p, vm)? != 0 { Ok(()) } else { Err(Fault::ILLEGAL) })
            }
            StmtKind::Again => Box::new(|_, vm| {
                vm.f.again = true;
                Ok(())
            }),
            StmtKind::Start(x) => {
                let x = self.opnd(x);
                Box::new(move |p, vm| {
                    vm.f.start = Some(x.player(p, vm)?);
                    Ok(())
                })
            }
            StmtKind::EndGame => Box::new(|_, vm| {
                vm.f.end = true;
                Ok(())
            }),
        }
    }
}

/// `v + k`, `v - k` or `k + v` of the number state variable `v` and a
/// number `k` the rules fix (a hand counted down as it is sown, a tally
/// counted up): `k`, signed, and the span an overflow is told at.
fn step_of(var: u16, value: &Expr) -> Option<(i64, Option<Span>)> {
    let (span, e) = match value {
        Expr::Spanned(span, e) => (Some(*span), &**e),
        e => (None, e),
    };
    let is_var = |e: &Expr| matches!(e.unspanned(), Expr::State(v) if *v == var);
    match e {
        Expr::Bin(BinOp::Add, a, b) if is_var(a) => Some((fixed_int(b)?, span)),
        Expr::Bin(BinOp::Add, a, b) if is_var(b) => Some((fixed_int(a)?, span)),
        // `v - k` as `v + (-k)`, which overflows where it does; a `k`
        // whose negation overflows is left to the general `set`.
        Expr::Bin(BinOp::Sub, a, b) if is_var(a) => Some((fixed_int(b)?.checked_neg()?, span)),
        _ => None,
    }
}

/// `set v = v + k` of a number state variable at `offset`, in one step:
/// read (never set: 0), added to, checked, written if it changed, as the
/// general `set` of the sum's value does.
#[inline(always)]
fn step_number(p: &Program, vm: &mut Vm, offset: usize, k: i64, span: Option<Span>) -> Res<()> {
    let x = match vm.pos.vars[offset] {
        Value::Int(x) => x,
        _ => 0,
    };
    let v = Value::Int(x.checked_add(k).ok_or_else(|| too_large(p, span))?);
    if vm.pos.vars[offset] != v {
        vm.pos.vars[offset] = v;
        vm.vars_changed();
    }
    Ok(())
}

/// The colour a `take` names, if it names one.
#[inline(always)]
fn colour_of(colour: &Option<Opnd>, p: &Program, vm: &mut Vm) -> Res<Option<usize>> {
    match colour {
        Some(c) => Ok(Some(c.player(p, vm)? as usize)),
        None => Ok(None),
    }
}

/// `take` of every counter of the site `s` (of one colour, if given) to
/// `dst` (out of the game if none), by `give`; a site taken to itself
/// keeps its counters.
#[inline(always)]
fn take_all(
    vm: &mut Vm,
    s: SiteId,
    dst: Option<SiteId>,
    colour: Option<usize>,
    give: impl Fn(&mut Vm, Option<SiteId>, usize, i32),
) {
    if Some(s) == dst {
        return;
    }
    vm.read(s);
    let k = vm.colours;
    for c in 0..k {
        if colour.is_some_and(|x| x != c) {
            continue;
        }
        let m = std::mem::take(&mut vm.pos.counts[s as usize * k + c]);
        give(vm, dst, c, m);
    }
}

/// `if c { then } else { otherwise }`, its condition of a known shape
/// (an `else if` is the `if` its `else` block holds).
struct IfElse(Block, Block);
impl Finish for IfElse {
    type Out = Fst;
    fn finish<C: Ev>(self, c: C) -> Fst {
        let IfElse(then, otherwise) = self;
        Box::new(move |p, vm| if c.ev(p, vm)? != 0 { run(&then, p, vm) } else { run(&otherwise, p, vm) })
    }

    /// `else if owner(last) == mover and count(opposite(last)) > 0`: the
    /// chain read around the comparison in the `if`'s own closure.
    fn all_around(self, board: &Board, before: Option<Opnd>, c: Cond, after: Vec<Opnd>) -> Fst {
        c.finish(board, AroundOf { all: true, before, after, f: self })
    }
}

/// `if c { then }`, its condition of a known shape.
struct IfThen(Block);
impl Finish for IfThen {
    type Out = Fst;
    fn finish<C: Ev>(self, c: C) -> Fst {
        let then = self.0;
        Box::new(move |p, vm| if c.ev(p, vm)? != 0 { run(&then, p, vm) } else { Ok(()) })
    }

    /// `if a and b ... { then }`: two to four terms read in the `if`'s own
    /// closure, each at a place of its own.
    fn all(self, terms: Vec<Opnd>) -> Fst {
        let then = self.0;
        macro_rules! holds {
            ($t:expr, $p:expr, $vm:expr) => {
                if $t.get($p, $vm)? == 0 {
                    return Ok(());
                }
            };
        }
        let mut it = terms.into_iter();
        match (it.next(), it.next(), it.next(), it.next(), it.len()) {
            (Some(a), Some(b), None, None, 0) => Box::new(move |p, vm| {
                holds!(a, p, vm);
                holds!(b, p, vm);
                run(&then, p, vm)
            }),
            (Some(a), Some(b), Some(c), None, 0) => Box::new(move |p, vm| {
                holds!(a, p, vm);
                holds!(b, p, vm);
                holds!(c, p, vm);
                run(&then, p, vm)
            }),
            (Some(a), Some(b), Some(c), Some(d), 0) => Box::new(move |p, vm| {
                holds!(a, p, vm);
                holds!(b, p, vm);
                holds!(c, p, vm);
                holds!(d, p, vm);
                run(&then, p, vm)
            }),
            (a, b, c, d, _) => {
                let terms = [a, b, c, d].into_iter().flatten().chain(it).collect();
                IfThen(then).other(Opnd::Dyn(super::shapes::chain(true, terms)))
            }
        }
    }

    /// `if a and b ... { then }` with a comparison among the first two
    /// terms (a capture's `last is pit and owner(last) == mover and
    /// count(last) == 1`): the chain read around the comparison's shape in
    /// the `if`'s own closure ([`AroundOf`]).
    fn all_around(self, board: &Board, before: Option<Opnd>, c: Cond, after: Vec<Opnd>) -> Fst {
        c.finish(board, AroundOf { all: true, before, after, f: self })
    }
}
