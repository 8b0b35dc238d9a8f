//! Comparisons specialised by the shapes of their operands. A comparison
//! of two [`Opnd`]s matches on each operand's shape every time it runs:
//! two jumps through a table per operand, a third of a comparison's work.
//! Lowered here, the commonest shapes (a constant, a local variable, the
//! mover, its opponent, `next`, `last`, how many counters a site, the site
//! a relation gives for it, or a player's sites hold, a site's owner or its
//! value of a per-site state variable, a player's store) are types, so
//! each comparison is a closure made for its pair of shapes: the operands
//! are read in place with no match at all. Any other shape is the [`Opnd`]
//! itself, evaluated as before; what is evaluated, in which order, and
//! every error are the same.
//!
//! Conditions are lowered here too (`Lower::cond`): a comparison, a chain of
//! `and`s (whose terms an `if` reads in its own closure, a comparison among
//! the first two by its shape), or any other
//! value; and finished by what uses them ([`Finish`]). Chains of `and`s and
//! `or`s of two to four terms are unrolled ([`chain`]); one of two or three
//! terms whose first or second is a comparison reads that comparison by its
//! shape in the chain's own closure ([`Around`]).

use super::expr::{Leaf, Opnd, last, related};
use super::state::StateRead;
use super::sums::Sites;
use super::{Fx, Lower, Program};
use crate::engine::game::{BinOp, Expr, SiteId, Type};
use crate::engine::vm::{NONE, Res, Vm, none_here};

/// A value of a known shape.
pub(crate) trait Ev: Send + Sync + 'static {
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64>;
}

impl Ev for Opnd {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        self.get(p, vm)
    }
}

/// A constant.
pub(crate) struct K(pub(crate) i64);
impl Ev for K {
    #[inline(always)]
    fn ev(&self, _: &Program, _: &mut Vm) -> Res<i64> {
        Ok(self.0)
    }
}

/// A local variable.
pub(crate) struct Local(pub(crate) usize);
impl Ev for Local {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(vm.locals[self.0])
    }
}

/// The mover.
pub(crate) struct Mover;
impl Ev for Mover {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(vm.f.mover as i64)
    }
}

/// The mover's opponent (a game of two players).
pub(crate) struct Opp;
impl Ev for Opp {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(1 - vm.f.mover as i64)
    }
}

/// `next`.
pub(crate) struct Next;
impl Ev for Next {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(vm.f.next as i64)
    }
}

/// `last`.
pub(crate) struct Last;
impl Ev for Last {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        last(vm)
    }
}

/// The mover's site of a table by player (`store(mover)`); none if the
/// mover has no such site.
pub(crate) struct MoverSite(Box<[i64]>);
impl Ev for MoverSite {
    #[inline(always)]
    fn ev(&self, _: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(self.0.get(vm.f.mover as usize).copied().unwrap_or(NONE))
    }
}

/// A value that names a site or a player: "none" refused.
pub(crate) trait Index: Ev {
    #[inline(always)]
    fn index(&self, p: &Program, vm: &mut Vm, want: &str) -> Res<usize> {
        let v = self.ev(p, vm)?;
        if v < 0 {
            return Err(none_here(want));
        }
        Ok(v as usize)
    }
}
impl Index for Local {}
impl Index for Mover {}
impl Index for Opp {}
impl Index for Next {}
impl Index for Last {}
impl Index for MoverSite {}
impl Index for K {}
impl Index for Opnd {}

/// `r(x)` of a site relation `r` (its table of sites, and its number).
pub(crate) struct Rel<S>(Box<[i64]>, u16, S);
impl<S: Index> Ev for Rel<S> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let s = self.2.index(p, vm, "a site")?;
        related(p, &self.0, self.1, s as SiteId).map(|t| t as i64)
    }
}
impl<S: Index> Index for Rel<S> {}

/// `count(x)` of a site, in a game of one colour.
pub(crate) struct CountAt<S>(S);
impl<S: Index> Ev for CountAt<S> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let s = self.0.index(p, vm, "a site")?;
        vm.read(s as SiteId);
        Ok(vm.pos.counts[s] as i64)
    }
}

/// `count(every KIND of p)`, in a game of one colour: each player's sites
/// of the kind.
pub(crate) struct CountOf<P>(Box<[Sites]>, P);
impl<P: Index> Ev for CountOf<P> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let pl = self.1.index(p, vm, "a player")?;
        Ok(self.0[pl].count(p, vm))
    }
}

/// `count(SET)` of a fixed set, in a game of one colour.
pub(crate) struct CountSet(Sites);
impl Ev for CountSet {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        Ok(self.0.count(p, vm))
    }
}

/// `owner(x)` (owners not kept as state).
pub(crate) struct OwnerAt<S>(S);
impl<S: Index> Ev for OwnerAt<S> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let s = self.0.index(p, vm, "a site")?;
        Ok(p.owners[s])
    }
}

/// `v(x)` of a per-site state variable.
pub(crate) struct StateAt<S>(StateRead, S);
impl<S: Index> Ev for StateAt<S> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let s = self.1.index(p, vm, "a site")?;
        self.0.at(p, vm, s as SiteId)
    }
}

/// A value by player ([`Opnd::ByPlayer`]): `store(p)`, `loop[p]`.
pub(crate) struct ByPlayer<P>(Box<[i64]>, P);
impl<P: Index> Ev for ByPlayer<P> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let pl = self.1.index(p, vm, "a player")?;
        Ok(self.0.get(pl).copied().unwrap_or(NONE))
    }
}
impl<P: Index> Index for ByPlayer<P> {}

/// A comparison of two values of known shapes, `a` first. Its operator
/// is a mask of the outcomes it holds for (bit 0: less, 1: equal, 2:
/// greater), so one closure serves the six operators without a branch.
pub(crate) struct Cmp<A, B> {
    a: A,
    b: B,
    holds: u8,
}

impl<A: Ev, B: Ev> Ev for Cmp<A, B> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let x = self.a.ev(p, vm)?;
        let y = self.b.ev(p, vm)?;
        let outcome = (x >= y) as u8 + (x > y) as u8;
        Ok((self.holds >> outcome & 1) as i64)
    }
}

/// The outcomes (bit 0: less, 1: equal, 2: greater) an operator holds for.
pub(crate) fn holds(op: BinOp) -> Option<u8> {
    Some(match op {
        BinOp::Lt => 0b001,
        BinOp::Le => 0b011,
        BinOp::Eq => 0b010,
        BinOp::Ne => 0b101,
        BinOp::Gt => 0b100,
        BinOp::Ge => 0b110,
        _ => return None,
    })
}

/// Whether `x OP y` holds, `holds` the outcomes `OP` holds for.
#[inline(always)]
pub(crate) fn compared(holds: u8, x: i64, y: i64) -> bool {
    let outcome = (x >= y) as u8 + (x > y) as u8;
    (holds >> outcome) & 1 != 0
}

/// The outcomes of `b OP a` for those `holds` of `a OP b`: less and
/// greater swapped.
pub(crate) fn swapped(holds: u8) -> u8 {
    (holds & 0b010) | (holds & 1) << 2 | holds >> 2
}

/// `count(x) OP k` of the site in local `slot`, `k` a number, either way
/// round: the outcomes of `count(x) OP' k` (as [`Cmp`]'s) and `k`.
pub(crate) fn count_test(e: &crate::engine::game::Expr, slot: u8) -> Option<(u8, i64)> {
    count_test_of(e, |x| x.is_count_of(slot))
}

/// As [`count_test`], for the count `is_count` says is the one meant.
pub(crate) fn count_test_of(
    e: &crate::engine::game::Expr,
    is_count: impl Fn(&crate::engine::game::Expr) -> bool,
) -> Option<(u8, i64)> {
    use crate::engine::game::{Expr, Value};
    let Expr::Bin(op, a, b) = e else { return None };
    match (&**a, &**b) {
        (x, Expr::Const(Value::Int(k))) if is_count(x) => Some((holds(*op)?, *k)),
        (Expr::Const(Value::Int(k)), x) if is_count(x) => Some((swapped(holds(*op)?), *k)),
        _ => None,
    }
}

/// What the shapes depend on of the board.
pub(crate) struct Board<'g> {
    /// The game has one colour of counters: a count is one number a site.
    pub one_colour: bool,
    /// The sites of each fixed set.
    pub sets: &'g [Vec<SiteId>],
    /// How many sites there are.
    pub sites: usize,
}

/// A condition, lowered: a comparison whose operands are to be shaped, or
/// any other value.
pub(crate) enum Cond {
    Cmp(u8, Opnd, Opnd),
    /// A comparison whose left operand is `count(r(x))` of a site relation
    /// `r` (its table and number) and `x` a choice or `last`, in a game of
    /// one colour (`count(opposite(last)) > 0`).
    CmpRel(u8, Box<[i64]>, u16, Leaf, Opnd),
    /// A comparison whose left operand is `count(s(p))` of the site of a
    /// kind each player owns (its table by player), `p` a local, the
    /// opponent or `next`, in a game of one colour (`count(store(p)) >=
    /// holes` of a round's refill; the mover's has an operand of its own).
    CmpOwned(u8, Box<[i64]>, Leaf, Opnd),
    /// A chain of `and`s: its terms, in order.
    All(Vec<Opnd>),
    /// A chain of two to four `and`s whose first or second term is a
    /// comparison (the second when the first is not one): the term before
    /// it, if any, the comparison, and the terms after it, in order.
    AllAround(Option<Opnd>, Box<Cond>, Vec<Opnd>),
    Other(Opnd),
}

impl Cond {
    /// A comparison `op` of `a` and `b` (not an order of sites, which
    /// refuses "none"); any other operator gives its operands back.
    pub(crate) fn comparison(op: BinOp, a: Opnd, b: Opnd) -> Result<Cond, (Opnd, Opnd)> {
        match holds(op) {
            Some(h) => Ok(Cond::Cmp(h, a, b)),
            None => Err((a, b)),
        }
    }

    /// What `f` makes of the condition, its operands of the commonest
    /// shapes read as types.
    pub(crate) fn finish<F: Finish>(self, board: &Board, f: F) -> F::Out {
        match self {
            Cond::Cmp(holds, a, b) => left(a, board, Right { holds, b, f }),
            Cond::CmpRel(holds, table, r, x, b) => match x {
                Leaf::Local(s) => Right { holds, b, f }.then(CountAt(Rel(table, r, Local(s)))),
                _ => Right { holds, b, f }.then(CountAt(Rel(table, r, Last))),
            },
            Cond::CmpOwned(holds, table, pl, b) => match pl {
                Leaf::Local(s) => Right { holds, b, f }.then(CountAt(ByPlayer(table, Local(s)))),
                Leaf::Opponent => Right { holds, b, f }.then(CountAt(ByPlayer(table, Opp))),
                // `Leaf::Next`: `owned_count` makes no other.
                _ => Right { holds, b, f }.then(CountAt(ByPlayer(table, Next))),
            },
            Cond::All(terms) => f.all(terms),
            Cond::AllAround(before, c, after) => f.all_around(board, before, *c, after),
            Cond::Other(c) => f.other(c),
        }
    }
}

/// What is made of a condition once its shape is known.
pub(crate) trait Finish {
    type Out;
    fn finish<C: Ev>(self, c: C) -> Self::Out;
    /// What is made of a condition that is not a comparison.
    fn other(self, c: Opnd) -> Self::Out
    where
        Self: Sized,
    {
        self.finish(c)
    }
    /// What is made of a chain of `and`s.
    fn all(self, terms: Vec<Opnd>) -> Self::Out
    where
        Self: Sized,
    {
        self.other(Opnd::Dyn(chain(true, terms)))
    }
    /// What is made of a chain of `and`s with a comparison among its
    /// first two terms ([`Cond::AllAround`]): by default, the comparison
    /// as an operand among the others.
    fn all_around(self, board: &Board, before: Option<Opnd>, c: Cond, after: Vec<Opnd>) -> Self::Out
    where
        Self: Sized,
    {
        let c = c.finish(board, ToOpnd);
        self.all(before.into_iter().chain(std::iter::once(c)).chain(after).collect())
    }
}

/// The condition as an operand.
pub(crate) struct ToOpnd;
impl Finish for ToOpnd {
    type Out = Opnd;
    fn finish<C: Ev>(self, c: C) -> Opnd {
        Opnd::Dyn(Box::new(move |p, vm| c.ev(p, vm)))
    }
    fn other(self, c: Opnd) -> Opnd {
        c
    }
}

/// The condition as a closure of its own.
pub(crate) struct ToFx;
impl Finish for ToFx {
    type Out = Fx;
    fn finish<C: Ev>(self, c: C) -> Fx {
        Box::new(move |p, vm| c.ev(p, vm))
    }
    fn other(self, c: Opnd) -> Fx {
        match c {
            Opnd::Dyn(f) => f,
            c => Box::new(move |p, vm| c.get(p, vm)),
        }
    }
}

/// `if c then a else b`: the value of `a` or `b` as the condition holds.
pub(crate) struct Pick(pub Opnd, pub Opnd);
impl Finish for Pick {
    type Out = Fx;
    fn finish<C: Ev>(self, c: C) -> Fx {
        let Pick(a, b) = self;
        Box::new(move |p, vm| if c.ev(p, vm)? != 0 { a.get(p, vm) } else { b.get(p, vm) })
    }
}

/// Whether a term of a chain decides it: false for `and` (`all`), true for `or`.
macro_rules! decides {
    ($t:expr, $all:expr, $p:expr, $vm:expr) => {
        if ($t.get($p, $vm)? != 0) != $all {
            return Ok(!$all as i64);
        }
    };
}

/// A chain of `and`s (`all`) or `or`s around a comparison `c` read by its
/// shape: the term before it (if any) and those after it (at most three),
/// each read at a place of its own. A chain is the commonest `where` and
/// quantifier body (`owner(h) == mover and count(h) > 0 and ...`,
/// `count(h) == 0 or wegue(h) != none`), relay condition (`last is pit and
/// count(last) > 1`) and `if` (`last is pit and owner(last) == mover and
/// count(last) == 1`), asked at every site, lap or move; the comparison in
/// a closure of its own was a second call through a pointer for each.
/// `ALL` is known when the closure is made: an `if`'s chain asks each
/// term only whether it is 0.
pub(crate) struct Around<C, const ALL: bool> {
    before: Option<Opnd>,
    c: C,
    after: [Option<Opnd>; 3],
}

impl<C: Ev, const ALL: bool> Ev for Around<C, ALL> {
    #[inline(always)]
    fn ev(&self, p: &Program, vm: &mut Vm) -> Res<i64> {
        let all = ALL;
        if let Some(t) = &self.before {
            decides!(t, all, p, vm);
        }
        if (self.c.ev(p, vm)? != 0) != all {
            return Ok(!all as i64);
        }
        let [x, y, z] = &self.after;
        if let Some(t) = x {
            decides!(t, all, p, vm);
        }
        if let Some(t) = y {
            decides!(t, all, p, vm);
        }
        if let Some(t) = z {
            decides!(t, all, p, vm);
        }
        Ok(all as i64)
    }
}

/// What `f` makes of a chain around a comparison ([`Around`]) once the
/// comparison's shape is known; a comparison `cond` did not shape is read
/// as a term of the plain chain.
pub(crate) struct AroundOf<F> {
    pub all: bool,
    pub before: Option<Opnd>,
    pub after: Vec<Opnd>,
    pub f: F,
}

impl<F: Finish> Finish for AroundOf<F> {
    type Out = F::Out;
    fn finish<C: Ev>(self, c: C) -> F::Out {
        let AroundOf { all, before, after, f } = self;
        let mut it = after.into_iter();
        let after = [it.next(), it.next(), it.next()];
        debug_assert!(it.next().is_none(), "at most three terms after the comparison");
        match all {
            true => f.finish(Around::<C, true> { before, c, after }),
            false => f.finish(Around::<C, false> { before, c, after }),
        }
    }

    fn other(self, c: Opnd) -> F::Out {
        let AroundOf { all, before, after, f } = self;
        let terms = before.into_iter().chain(std::iter::once(c)).chain(after).collect();
        match all {
            true => f.all(terms),
            false => f.other(Opnd::Dyn(chain(false, terms))),
        }
    }
}

/// What to make once the shape of an operand is known.
trait Then {
    type Out;
    fn then<A: Ev>(self, a: A) -> Self::Out;
}

/// The shape of the left operand: a type for the commonest ones.
fn left<T: Then>(a: Opnd, board: &Board, t: T) -> T::Out {
    let one_colour = board.one_colour;
    match a {
        Opnd::Leaf(Leaf::Local(s)) => t.then(Local(s)),
        Opnd::Leaf(Leaf::Last) => t.then(Last),
        Opnd::Count(Leaf::Local(s)) if one_colour => t.then(CountAt(Local(s))),
        Opnd::Count(Leaf::Last) if one_colour => t.then(CountAt(Last)),
        Opnd::CountByMover(table) if one_colour => t.then(CountAt(MoverSite(table))),
        Opnd::CountOf(ids, pl @ (Leaf::Local(_) | Leaf::Mover | Leaf::Opponent | Leaf::Next)) if one_colour => {
            let each = ids.iter().map(|&id| Sites::new(id, &board.sets[id as usize], board.sites)).collect();
            match pl {
                Leaf::Local(s) => t.then(CountOf(each, Local(s))),
                Leaf::Opponent => t.then(CountOf(each, Opp)),
                Leaf::Next => t.then(CountOf(each, Next)),
                _ => t.then(CountOf(each, Mover)),
            }
        }
        Opnd::CountFixed(id) if one_colour => t.then(CountSet(Sites::new(id, &board.sets[id as usize], board.sites))),
        Opnd::Owner(Leaf::Local(s)) => t.then(OwnerAt(Local(s))),
        Opnd::Owner(Leaf::Last) => t.then(OwnerAt(Last)),
        Opnd::SiteState(r, Leaf::Local(s)) => t.then(StateAt(r, Local(s))),
        Opnd::SiteState(r, Leaf::Last) => t.then(StateAt(r, Last)),
        a => t.then(a),
    }
}

/// The comparison of `a` (of a known shape) with a right operand to be
/// shaped, for `f` to finish.
struct Right<F> {
    holds: u8,
    b: Opnd,
    f: F,
}

impl<F: Finish> Then for Right<F> {
    type Out = F::Out;
    fn then<A: Ev>(self, a: A) -> F::Out {
        let Right { holds, b, f } = self;
        match b {
            Opnd::Leaf(Leaf::Const(c)) => f.finish(Cmp { a, b: K(c), holds }),
            Opnd::Leaf(Leaf::Local(s)) => f.finish(Cmp { a, b: Local(s), holds }),
            Opnd::Leaf(Leaf::Mover) => f.finish(Cmp { a, b: Mover, holds }),
            Opnd::Leaf(Leaf::Opponent) => f.finish(Cmp { a, b: Opp, holds }),
            Opnd::Leaf(Leaf::Next) => f.finish(Cmp { a, b: Next, holds }),
            Opnd::ByPlayer(table, Leaf::Mover) => f.finish(Cmp { a, b: ByPlayer(table, Mover), holds }),
            b => f.finish(Cmp { a, b, holds }),
        }
    }
}

impl Lower<'_> {
    /// A condition, lowered (its operands now, in order): a comparison
    /// whose operands are shaped when it is finished, or any other value.
    pub(crate) fn cond(&mut self, e: &Expr) -> Cond {
        let inner = match e {
            Expr::Spanned(_, x) => &**x,
            x => x,
        };
        // A chain of `and`s: its terms, for the user to read in place.
        if let Expr::Bin(BinOp::And, ..) = inner
            && self.memo_targets.is_empty()
        {
            if let Some(f) = self.site_table(e) {
                return Cond::Other(Opnd::Dyn(f));
            }
            if let Some(c) = self.all_around(inner) {
                return c;
            }
            let mut terms = Vec::new();
            self.chain(BinOp::And, inner, &mut terms);
            return Cond::All(terms);
        }
        if let Expr::Bin(op, a, b) = inner
            && self.memo_targets.is_empty()
            && self.shaped_operator(*op, a)
        {
            if let Some(f) = self.site_table(e) {
                return Cond::Other(Opnd::Dyn(f));
            }
            if let Some(c) = self.relation_count(*op, a, b) {
                return c;
            }
            if let Some(c) = self.owned_count(*op, a, b) {
                return c;
            }
            let (x, y) = (self.opnd(a), self.opnd(b));
            if let Ok(c) = Cond::comparison(*op, x, y) {
                return c;
            }
        }
        Cond::Other(self.opnd(e))
    }

    /// A chain of two or three `and`s or `or`s (`op`) whose first or
    /// second term is a comparison, as one closure with the comparison read
    /// by its shape ([`Around`]); `None` (nothing lowered) for any other.
    pub(crate) fn shaped_chain(&mut self, op: BinOp, e: &Expr) -> Option<Fx> {
        if !self.memo_targets.is_empty() {
            return None;
        }
        let (before, c, after) = self.around(op, e, 3)?;
        Some(self.finish(c, AroundOf { all: op == BinOp::And, before, after, f: ToFx }))
    }

    /// A chain of two to four `and`s whose first or second term is a
    /// comparison, as [`Cond::AllAround`]; `None` (nothing lowered) for any
    /// other.
    fn all_around(&mut self, e: &Expr) -> Option<Cond> {
        let (before, c, after) = self.around(BinOp::And, e, 4)?;
        Some(Cond::AllAround(before, Box::new(c), after))
    }

    /// The terms of a chain of two to `most` `op`s whose first or second
    /// term is a comparison: the term before it (if any), lowered, the
    /// comparison as a condition, and the terms after it, lowered, in
    /// order (as [`Lower::chain`] lowers them); `None` (nothing lowered)
    /// for any other.
    fn around(&mut self, op: BinOp, e: &Expr, most: usize) -> Option<(Option<Opnd>, Cond, Vec<Opnd>)> {
        let mut terms = Vec::new();
        super::memo::terms(op, e, &mut terms);
        let joined = self.joined_terms(op, &terms);
        if !(2..=most).contains(&joined.len()) || !joined[..2].iter().any(|t| self.comparison(t)) {
            return None;
        }
        let mut before = None;
        let mut at = 0;
        if !self.comparison(&joined[0]) {
            before = Some(self.opnd(&joined[0]));
            at = 1;
        }
        let c = self.cond(&joined[at]);
        let after = joined[at + 1..].iter().map(|t| self.opnd(t)).collect();
        Some((before, c, after))
    }

    /// Whether [`Lower::cond`] would read `e` as a comparison by its
    /// operands' shapes (not as any other value).
    fn comparison(&self, e: &Expr) -> bool {
        let Expr::Bin(op, a, _) = e.unspanned() else { return false };
        self.shaped_operator(*op, a) && !self.is_site_table(e)
    }

    /// Whether `a OP b` is a comparison read by its operands' shapes: any
    /// of the six of numbers and players, equality of sites (their order
    /// refuses "none"), nothing of sets.
    fn shaped_operator(&self, op: BinOp, a: &Expr) -> bool {
        match self.ty(a) {
            Type::Set => false,
            Type::Site => matches!(op, BinOp::Eq | BinOp::Ne),
            _ => holds(op).is_some(),
        }
    }

    /// `count(r(x)) OP b` of a site relation `r`, `x` a site chosen or
    /// `last`, in a game of one colour, as a comparison read in place
    /// ([`Cond::CmpRel`]); `None` for any other.
    pub(crate) fn relation_count(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Cond> {
        let holds = holds(op)?;
        if self.g.colours != 1 || !self.memo_targets.is_empty() {
            return None;
        }
        let Expr::Count(x, None) = a.unspanned() else { return None };
        let Expr::Relation(r, y) = x.unspanned() else { return None };
        let leaf = match y.unspanned() {
            Expr::Local(s) if self.slots[*s as usize] == Type::Site => Leaf::Local(*s as usize),
            Expr::Builtin(crate::engine::game::Builtin::Last) => Leaf::Last,
            _ => return None,
        };
        let table = self.relation(*r);
        Some(Cond::CmpRel(holds, table, *r, leaf, self.opnd(b)))
    }

    /// `count(s(p)) OP b` of the site of a kind each player owns, `p` a
    /// local, the opponent or `next`, in a game of one colour, as a
    /// comparison read in place ([`Cond::CmpOwned`]); `None` for any other.
    /// Where a condition is lowered by [`Lower::cond`] (an `if`, a chain's
    /// comparison, `if ... then ... else`, a quantifier's body); a
    /// comparison standing alone as a value is lowered by `binary`.
    fn owned_count(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Cond> {
        let holds = holds(op)?;
        if self.g.colours != 1 || !self.memo_targets.is_empty() {
            return None;
        }
        let Expr::Count(x, None) = a.unspanned() else { return None };
        let Expr::OwnedSite(kind, pl) = x.unspanned() else { return None };
        let pl @ (Leaf::Local(_) | Leaf::Opponent | Leaf::Next) = self.leaf(pl)? else { return None };
        let table = self.owned_sites(*kind);
        Some(Cond::CmpOwned(holds, table, pl, self.opnd(b)))
    }

    /// What `f` makes of a lowered condition.
    pub(crate) fn finish<F: Finish>(&self, c: Cond, f: F) -> F::Out {
        let board = Board { one_colour: self.g.colours == 1, sets: &self.g.sets, sites: self.g.sites.len() };
        c.finish(&board, f)
    }
}

/// A chain of `and`s (`all`) or of `or`s, its terms in order. Two to four
/// terms are unrolled, each read at a place of its own: in a loop, one
/// jump through the table of operand shapes served every term, and was
/// mispredicted.
pub(crate) fn chain(all: bool, terms: Vec<Opnd>) -> Fx {
    let len = terms.len();
    if (2..=4).contains(&len) {
        let mut it = terms.into_iter();
        let mut t = || it.next().expect("a term");
        return match len {
            2 => chain2(all, t(), t()),
            3 => chain3(all, t(), t(), t()),
            _ => chain4(all, t(), t(), t(), t()),
        };
    }
    let terms: Box<[Opnd]> = terms.into();
    Box::new(move |p, vm| {
        for t in terms.iter() {
            if (t.get(p, vm)? != 0) != all {
                return Ok(!all as i64);
            }
        }
        Ok(all as i64)
    })
}

fn chain2(all: bool, a: Opnd, b: Opnd) -> Fx {
    Box::new(move |p, vm| {
        decides!(a, all, p, vm);
        decides!(b, all, p, vm);
        Ok(all as i64)
    })
}

fn chain3(all: bool, a: Opnd, b: Opnd, c: Opnd) -> Fx {
    Box::new(move |p, vm| {
        decides!(a, all, p, vm);
        decides!(b, all, p, vm);
        decides!(c, all, p, vm);
        Ok(all as i64)
    })
}

fn chain4(all: bool, a: Opnd, b: Opnd, c: Opnd, d: Opnd) -> Fx {
    Box::new(move |p, vm| {
        decides!(a, all, p, vm);
        decides!(b, all, p, vm);
        decides!(c, all, p, vm);
        decides!(d, all, p, vm);
        Ok(all as i64)
    })
}
