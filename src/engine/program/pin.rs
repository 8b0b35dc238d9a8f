//! Choices whose `where` names the only values that can pass. An exchange
//! `choose b in every pit where b > a and placed(b) and (b == across(a) or
//! b == stacked(a))` asks a long `where` of every pit, although only the
//! two sites it names can pass; a direction `choose t in tracks where t ==
//! ahead[mover] or (t == back[mover] and ...)` asks it of every track. Such
//! a `where` is *pinned*: one of its `and` terms holds only if the value is
//! one of those it names (`x == E`, in `or`s of them, each perhaps the
//! first term of an `and`), each `E` read without the choice. Before the
//! values are tried, the `E`s are worked out once; a value that is none of
//! them is asked only the terms before the pinning one, for what they may
//! do (go wrong: see [`Pin::prefix`]), and fails. At such a value, the
//! `where` as written would ask those terms, then find every `x == E` of
//! the pinning term false (its `E` worked out without going wrong, as the
//! one look-up did) and so the term false, and fail: the same values pass,
//! in the same order, and the same errors come at the same values. It
//! takes fewer steps of the work budget (the terms not asked), as
//! `narrow.rs`'s loops do.
//!
//! Only the general loop of a move's choices (`movegen::enumerate`) reads
//! the pin; the loops of a move's only site (`movegen/sites.rs`) ask the
//! `where` as before.
//!
//! A pinned choice after another is pinned again at each value of the one
//! before (Omweso's and Bao's direction, at each hole). When no `E` reads a
//! local variable (`acw[mover]`, not `stacked(a)`), the `E`s are the same
//! at every one: the position does not change during a search for moves
//! (see `memo.rs`), nor does the mover. Their values are then kept in
//! memos for the search and worked out once in it.
//!
//! And a value equal to one `E` alone is asked only what is left of the
//! `where` once that `x == E` is true and the others false (Omweso's
//! `t == acw[mover] or (t == cw[mover] and R)`: nothing at `acw[mover]`,
//! `R` at `cw[mover]`), the terms before and after it as written: the
//! `where` as written would find just that, each `E` worked out without
//! going wrong (as the look-up did) and, when none holds a loop, without
//! a step of work. Not when the `where` keeps closed parts (`memo.rs`):
//! what is left is lowered on its own, and would work them out again.
//! Where the choice's values are a run of numbers (a range, the players,
//! the tracks) and those named come in increasing order, each once, with
//! no term before the naming one that can go wrong, only they are
//! visited; the values between them take their steps of work in one
//! (`movegen::try_values`).
//!
//! An `E` that draws a number or calls a hook, or reads the choice or a
//! part the `where` keeps (`cse.rs`), is not pinned (it would be asked once
//! more, or read what the look-up cannot know); one that goes wrong when
//! looked up leaves the `where` to be asked whole at every value, which
//! then goes wrong where it did.

use super::expr::Opnd;
use super::memo::{cannot_fail, join, terms};
use super::{Lower, Program};
use crate::engine::game::{BinOp, Domain, Expr, SiteId, Value};
use crate::engine::vm::Vm;

/// Values named a `where` at most: a pinned term of more is asked as
/// written.
pub(crate) const MOST_PINNED: usize = 8;

/// A choice's pinned `where` (see the top of this file).
pub(crate) struct Pin {
    /// The values its pinning term names, in its order.
    values: Box<[Opnd]>,
    /// The `and` terms before the pinning one, when one of them can go
    /// wrong: asked of a value that is none of those named, for the error
    /// they may meet, their value ignored (the `where` fails either way).
    prefix: Option<Opnd>,
    /// The first of the memos the values are kept in during a search for
    /// moves, [`MOST_PINNED`] of them (copied whole, a copy of known
    /// size), when none reads a local variable (see the top of this file).
    kept: Option<usize>,
    /// For each value named, what is left of the `where` at a value equal
    /// to it and to no other named (its `x == E` true, the others false):
    /// `None` when nothing is (the value passes). Only when no `E` holds a
    /// loop and the `where` keeps no closed part (see [`Pinned::residual`]
    /// and the top of this file).
    residuals: Option<Box<[Option<Opnd>]>>,
}

/// The values a pinned `where` names, worked out for the values of a choice
/// about to be tried.
pub(crate) struct Pinned<'a> {
    n: usize,
    values: [i64; MOST_PINNED],
    pub prefix: Option<&'a Opnd>,
    residuals: Option<&'a [Option<Opnd>]>,
}

impl Pinned<'_> {
    /// Whether `x` is one of the values named (and so may pass).
    #[inline(always)]
    pub(crate) fn admits(&self, x: i64) -> bool {
        self.values[..self.n].contains(&x)
    }

    /// The values named and what is left of the `where` at each (see
    /// [`Pinned::residual`]), when the values are in increasing order, no
    /// two equal; `None` when they are not, or the `where` is to be asked
    /// whole.
    #[inline(always)]
    pub(crate) fn in_order(&self) -> Option<(&[i64], &[Option<Opnd>])> {
        let residuals = self.residuals?;
        let values = &self.values[..self.n];
        values.windows(2).all(|w| w[0] < w[1]).then_some((values, residuals))
    }

    /// What is left of the `where` to ask at `x`, a value named, when it
    /// is equal to one value named alone (see [`Pin::residuals`]): `Some`
    /// of the rest to ask (`None`: nothing, it passes); `None` when the
    /// `where` is to be asked whole. At such a value the `where` as written
    /// would find that value's `x == E` true and the others false, each `E`
    /// worked out without going wrong (as the look-up did) and without a
    /// step of work (it holds no loop): the rest decides, in its order.
    #[inline(always)]
    pub(crate) fn residual(&self, x: i64) -> Option<Option<&Opnd>> {
        let residuals = self.residuals?;
        let values = &self.values[..self.n];
        let j = values.iter().position(|&v| v == x)?;
        if values[j + 1..].contains(&x) {
            return None;
        }
        Some(residuals[j].as_ref())
    }
}

impl Pin {
    /// The values named, now: `None` when one of them goes wrong (the
    /// `where` is then asked whole at every value). The look-up takes no
    /// step of the work budget: it is not asked as written. Nor is it made
    /// in a machine that watches banks: the rules must note each count of
    /// a bank they read where and when they read it.
    #[inline(always)]
    pub(crate) fn values(&self, p: &Program, vm: &mut Vm) -> Option<Pinned<'_>> {
        if !vm.banks.is_empty() {
            return None;
        }
        let (n, prefix, residuals) = (self.values.len(), self.prefix.as_ref(), self.residuals.as_deref());
        let search = vm.memo.search;
        let kept = self.kept.filter(|_| search != 0);
        if let Some(m) = kept
            && vm.memo.stamp[m] == search
            && let Ok(&values) = <&[i64; MOST_PINNED]>::try_from(&vm.memo.val[m..m + MOST_PINNED])
        {
            return Some(Pinned { n, values, prefix, residuals });
        }
        let mut out = Pinned { n, values: [0; MOST_PINNED], prefix, residuals };
        let fuel = vm.fuel;
        for (v, e) in out.values.iter_mut().zip(self.values.iter()) {
            match e.get(p, vm) {
                Ok(x) => *v = x,
                Err(_) => {
                    vm.fuel = fuel;
                    return None;
                }
            }
        }
        vm.fuel = fuel;
        // Only values are kept: one that went wrong is looked up again,
        // and goes wrong again, the position being the same.
        if let Some(m) = kept {
            vm.memo.stamp[m] = search;
            vm.memo.val[m..m + MOST_PINNED].copy_from_slice(&out.values);
        }
        Some(out)
    }
}

impl Lower<'_> {
    /// The pin of a choice's `where` `e` for the choice in `slot`, if one
    /// of its `and` terms names the only values that pass.
    /// `domain` is the choice's: a term before the naming one that reads
    /// the choice's per-site state cannot go wrong when every site of a
    /// fixed domain keeps that state.
    pub(super) fn pin(&mut self, e: &Expr, slot: u8, domain: &Domain) -> Option<Pin> {
        let mut chain = Vec::new();
        terms(BinOp::And, e, &mut chain);
        let mut named = Vec::new();
        let at = chain.iter().position(|t| {
            named.clear();
            names(self, t, slot, &mut named) && named.len() <= MOST_PINNED
        })?;
        let before = &chain[..at];
        let sites = match domain {
            Domain::Set(d) => match d.unspanned() {
                Expr::Const(Value::Set(id)) => self.g.sets.get(*id as usize).map(Vec::as_slice),
                _ => None,
            },
            _ => None,
        };
        let prefix = match before.iter().all(|t| safe(self, t, slot, sites)) {
            true => None,
            false => Some(self.filter(&join(BinOp::And, before)?)),
        };
        let values = named.iter().map(|v| self.opnd(v)).collect();
        let kept = named.iter().all(|v| self.is_closed(v)).then(|| {
            let m = self.memos;
            self.memos += MOST_PINNED;
            m
        });
        // Not when the `where` keeps closed parts: lowered again in what is
        // left, they would be worked out again in each search.
        let residuals = (named.iter().all(|v| self.loopless(v)) && !self.keeps_closed_parts(e)).then(|| {
            (0..named.len())
                .map(|j| {
                    let mut k = 0;
                    let mut parts: Vec<Expr> = before.iter().map(|&t| t.clone()).collect();
                    match residual(chain[at], j, &mut k) {
                        Expr::Const(Value::Bool(true)) => {}
                        r => parts.push(r),
                    }
                    parts.extend(chain[at + 1..].iter().map(|&t| t.clone()));
                    let refs: Vec<&Expr> = parts.iter().collect();
                    join(BinOp::And, &refs).map(|w| self.filter(&w))
                })
                .collect()
        });
        Some(Pin { values, prefix, kept, residuals })
    }
}

/// The pinning term `e` (of [`names`]' shape) at a value equal to the
/// `j`-th value it names and to none of the others, the `k`-th being the
/// next met: each `x == E` true or false, and what that decides folded
/// away (`t == A or (t == B and R)` at `B`: `R`; at `A`: true).
fn residual(e: &Expr, j: usize, k: &mut usize) -> Expr {
    let b = |v: bool| Expr::Const(Value::Bool(v));
    match e.unspanned() {
        Expr::Bin(BinOp::And, a, rest) => match residual(a, j, k) {
            Expr::Const(Value::Bool(false)) => b(false),
            Expr::Const(Value::Bool(true)) => (**rest).clone(),
            a => Expr::Bin(BinOp::And, Box::new(a), rest.clone()),
        },
        Expr::Bin(BinOp::Or, a, c) => {
            let a = residual(a, j, k);
            let c = residual(c, j, k);
            match (a, c) {
                (Expr::Const(Value::Bool(true)), _) => b(true),
                (Expr::Const(Value::Bool(false)), c) => c,
                (a, Expr::Const(Value::Bool(false))) => a,
                (a, c) => Expr::Bin(BinOp::Or, Box::new(a), Box::new(c)),
            }
        }
        // `x == E` (or `E == x`), the only other shape `names` accepts.
        _ => {
            let hit = *k == j;
            *k += 1;
            b(hit)
        }
    }
}

/// Whether `e` holds only when the choice in `slot` is one of the values it
/// names, each put in `out` (see the top of this file): `x == E` or `E ==
/// x`; an `and` whose first term does; an `or` whose terms all do.
fn names<'e>(l: &Lower, e: &'e Expr, slot: u8, out: &mut Vec<&'e Expr>) -> bool {
    match e.unspanned() {
        Expr::Bin(BinOp::Eq, a, b) => {
            let v = match (a.unspanned(), b.unspanned()) {
                (Expr::Local(s), v) | (v, Expr::Local(s)) if *s == slot => v,
                _ => return false,
            };
            let fixed = l.pure(v) && !reads(v, slot) && !keeps(v);
            if fixed {
                out.push(v);
            }
            fixed
        }
        Expr::Bin(BinOp::And, a, _) => names(l, a, slot, out),
        Expr::Bin(BinOp::Or, a, b) => names(l, a, slot, out) && names(l, b, slot, out),
        _ => false,
    }
}

/// Whether a term cannot go wrong ([`cannot_fail`]), reading as well the
/// per-site state of the choice in `slot` when each of its `sites` (a
/// fixed domain) keeps it.
fn safe(l: &Lower, e: &Expr, slot: u8, sites: Option<&[SiteId]>) -> bool {
    use BinOp::{And, Eq, Ne, Or};
    match e.unspanned() {
        Expr::SiteState(var, x) if matches!(x.unspanned(), Expr::Local(s) if *s == slot) => {
            match l.g.state.get(*var as usize).map(|v| v.kind) {
                Some(None) => true,
                Some(Some(k)) => sites.is_some_and(|ss| ss.iter().all(|&s| l.g.sites[s as usize].kind == k)),
                None => false,
            }
        }
        Expr::Not(x) => safe(l, x, slot, sites),
        // Not orders: a site kept as state may be none, which they refuse.
        Expr::Bin(Eq | Ne | And | Or, a, b) => safe(l, a, slot, sites) && safe(l, b, slot, sites),
        e => cannot_fail(e),
    }
}

/// Whether `e` reads the local in `slot`.
fn reads(e: &Expr, slot: u8) -> bool {
    matches!(e, Expr::Local(s) if *s == slot) || !e.all_children(|c| !reads(c, slot))
}

/// Whether `e` keeps or reads a part kept by `cse.rs`.
fn keeps(e: &Expr) -> bool {
    matches!(e, Expr::Keep(..) | Expr::Kept(..)) || !e.all_children(|c| !keeps(c))
}

#[cfg(test)]
mod tests {
    use crate::compile::{Config, compile_file};
    use crate::engine::program::Program;
    use std::sync::Arc;

    /// A pin's values named, and whether it has a prefix, keeps its values
    /// and has what is left of the `where` at each.
    type Shape = (usize, bool, bool, bool);

    /// The choices of tests/engine/pins.mancala that are pinned: how many
    /// values each names, whether the terms before the naming one are
    /// asked of the others (only when one of them can go wrong: `risky`),
    /// whether the values are kept for the search (none reads a local), and
    /// whether what is left of the `where` at each is lowered (no `E`
    /// holds a loop, and the `where` keeps no closed part).
    fn pins(settings: &[(&str, &str)]) -> Vec<Vec<Option<Shape>>> {
        pins_of("tests/engine/pins.mancala", settings)
    }

    /// As [`pins`], of any rule file.
    fn pins_of(file: &str, settings: &[(&str, &str)]) -> Vec<Vec<Option<Shape>>> {
        let cfg = Config {
            variants: Vec::new(),
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let g = compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let p = Program::new(Arc::new(g));
        let pinned = |c: &super::super::Choice| {
            c.pin.as_ref().map(|p| (p.values.len(), p.prefix.is_some(), p.kept.is_some(), p.residuals.is_some()))
        };
        p.moves.iter().map(|m| m.choices.iter().map(pinned).collect()).collect()
    }

    /// tests/engine/pins-in-order.mancala, in both orders: `give`'s number
    /// (two named, not kept: `count(h) + 2` reads the pit), `sow`'s track
    /// and `send`'s player (two each, kept), none with terms to ask before
    /// the naming one, each with what is left at each value: what the
    /// loop that visits only the values named needs (it visits them when
    /// they come in increasing order, `flip` false).
    #[test]
    fn values_named_in_order_are_pinned_with_what_is_left() {
        for flip in ["false", "true"] {
            let shapes = pins_of("tests/engine/pins-in-order.mancala", &[("flip", flip)]);
            let want = vec![
                vec![None, None, Some((2, false, false, true))],
                vec![None, Some((2, false, true, true))],
                vec![Some((2, false, true, true))],
            ];
            assert_eq!(shapes, want, "flip {flip}");
        }
    }

    #[test]
    fn wheres_that_name_their_values_are_pinned() {
        // `sow`: the track, two named, kept (`ahead`, `back`); `shift`: the
        // second site, three, not kept (`opposite(x)` reads the first);
        // `fetch`: the second choice, a store, one, not kept (`store(p)`),
        // asked first whether it is a store or an unmarked pit (that
        // would go wrong at a store, were it asked only whether the site
        // is marked); `give`: the number, two, and the player, two, kept
        // (`opponent(mover)`; with `wild`, `owner(target)` too).
        let fetch = vec![None, Some((1, true, false, true))];
        let give = vec![Some((2, false, true, true)), Some((2, false, true, true))];
        let sow = vec![None, Some((2, false, true, true))];
        let plain = vec![sow.clone(), vec![None, Some((3, false, false, true))], fetch.clone(), give.clone()];
        assert_eq!(pins(&[]), plain);
        assert_eq!(pins(&[("wild", "true")]), plain);
        // A term before the naming one that can go wrong is asked of every value.
        let risky = vec![sow.clone(), vec![None, Some((3, true, false, true))], fetch.clone(), give.clone()];
        assert_eq!(pins(&[("risky", "true")]), risky);
        // `broken`: `fetch` asks only whether the site is marked, which a
        // store does not keep: asked of every value still. Its value, `a[1]`,
        // reads no choice: kept.
        let broken = vec![sow.clone(), plain[1].clone(), vec![None, Some((1, true, true, true))], give.clone()];
        assert_eq!(pins(&[("broken", "true")]), broken);
        // `looped`: `sow`'s first track named by a value that holds a loop
        // (a step of work each time the `where` is asked), and `kept`:
        // `give`'s player's `where` keeping a part that reads no choice
        // behind a memo: no residuals.
        let looped = vec![vec![None, Some((2, false, false, false))], plain[1].clone(), fetch.clone(), give.clone()];
        assert_eq!(pins(&[("looped", "true")]), looped);
        let give_kept = vec![give[0], Some((2, false, true, false))];
        let kept = vec![sow.clone(), plain[1].clone(), fetch.clone(), give_kept];
        assert_eq!(pins(&[("kept", "true")]), kept);
        // The plain program, which the others must agree with, has none.
        let g = compile_file("tests/engine/pins.mancala", &Config::default()).unwrap();
        let p = Program::lower(Arc::new(g), false);
        assert!(p.moves.iter().all(|m| m.choices.iter().all(|c| c.pin.is_none())));
    }

    /// What is left of a pinning term at a value equal to one value named
    /// alone: that `x == E` true, the others false, and what they decide
    /// folded away.
    #[test]
    fn what_is_left_at_a_value_named_alone() {
        use crate::engine::game::{BinOp, Expr, Value};
        let bx = Box::new;
        let is = |k: i64| Expr::Bin(BinOp::Eq, bx(Expr::Local(0)), bx(Expr::Const(Value::Int(k))));
        let (r, c) = (Expr::Local(1), Expr::Local(2));
        let bin = |op, a: Expr, b: Expr| Expr::Bin(op, bx(a), bx(b));
        let left = |e: &Expr, j| super::residual(e, j, &mut 0);
        // `t == A or (t == B and R)`: true at A, R at B.
        let e = bin(BinOp::Or, is(1), bin(BinOp::And, is(2), r.clone()));
        assert_eq!(left(&e, 0), Expr::Const(Value::Bool(true)));
        assert_eq!(left(&e, 1), r);
        // `(y == A or y == B) and c or y == C`: c at A and at B, true at C.
        let e = bin(BinOp::Or, bin(BinOp::And, bin(BinOp::Or, is(1), is(2)), c.clone()), is(3));
        assert_eq!(left(&e, 0), c);
        assert_eq!(left(&e, 1), c);
        assert_eq!(left(&e, 2), Expr::Const(Value::Bool(true)));
        // `x == A and R`: R at A.
        assert_eq!(left(&bin(BinOp::And, is(1), r.clone()), 0), r);
    }
}
