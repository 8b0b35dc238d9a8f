//! A choice's `where` lowered for each case of the closed conditions it
//! branches on first.
//!
//! Rules with a state of play write their `where`s by cases: Omweso's
//! `(not paused and h is pit and count(h) > 1) or (paused and h ==
//! pending)`, Bao's `(paused and h == pending) or (not paused and (if
//! count(hand[mover]) > 0 then ... else ...))`, Katro's `(resume == none
//! and ...) or hole == resume`. The conditions the cases turn on are
//! *closed* (they read nothing of the choice, nor of any choice before it,
//! and draw no number and call no hook: see `memo.rs`), so they have one
//! value for every value of the choice. A *decision* is the closed
//! condition a `where` asks before anything else (past the terms its guard
//! asks, [`Lower::guard`]): its first term, or in the left of an `and` or
//! `or`, under a `not`, in the condition of an `if`, and so on down. Each
//! value would ask it first; it is asked once instead, and the `where` is
//! lowered for each of its cases, the decision put as its value wherever
//! the `where` asks it as a condition and the `and`s, `or`s, `not`s and
//! `if`s it decides taken away; each case is split again by its own
//! decision, if it has one, up to [`MOST_DECISIONS`] deep. Omweso's
//! `where` becomes `h is pit and count(h) > 1` while play is not paused
//! and `h == pending` while it is, which the loops over sites read as they
//! read any `where` of that shape (a site's kind narrowed, a value pinned;
//! see `narrow.rs`, `pin.rs`).
//!
//! While the moves are found, the decisions are asked in turn, once, and
//! the `where` of the case they lead to is asked of each value
//! ([`Cases::pick`]). It asks what the whole `where` would have asked, in
//! the same order, but for the decisions, whose values are known: a value
//! passes exactly when it would have, and an error comes where it came.
//! Only what cannot change an answer is taken away: the other operand of
//! an `and` with a false decision to its left, or of an `or` with a true
//! one, and a decision that an `and` or an `or` asks after its other
//! operand and that leaves that operand's truth the answer; a branch not
//! taken. (`a and false` keeps `a` if it may fail.) A decision that fails
//! to evaluate decides nothing: the whole `where` is then asked, and meets
//! the same failure where it always did (or none, if no value is tested).
//! A condition asked first is a decision; so is a closed one that only
//! terms that cannot go wrong come before (see `memo.rs`'s `cannot_fail`:
//! the counts of the choice compared), as in Hawalis's `count(h) > 1 or
//! (count(h) == 1 and not any-more(mover) and ...)`, where the values
//! that hold one counter ask whether any holds more. Such a *later*
//! decision may be one that no value would have asked (none holds one
//! counter), so it is asked free of work: the steps it takes are given
//! back, and the `where`s of its cases, which do not ask it, take no more
//! steps than the whole `where` would. In its cases a term that cannot go
//! wrong is taken away with what it no longer decides (`count(h) == 1 and
//! false` is false), so that Hawalis's `where` is `count(h) > 1` while
//! some hole holds two counters, which the loops over sites read in place.

use crate::engine::game::{BinOp, Domain, Expr, Type, Value};
use crate::engine::vm::Vm;

use super::expr::Opnd;
use super::memo::cannot_fail;
use super::{Choice, Lower, Program};

/// The most decisions asked one after another: sixteen cases at most.
const MOST_DECISIONS: usize = 4;

/// The choice by cases: a decision and the cases of its being false and
/// true, or the choice as it is once the decisions asked so far are known.
pub(crate) enum Cases {
    /// The decision, whether it is asked free of work (a later one: see
    /// the top of this file), and its two cases.
    Test(Opnd, bool, Box<[Cases; 2]>),
    Case(Box<Choice>),
}

impl Cases {
    /// The choice of the case the position is in; `None` when a decision
    /// fails to evaluate (the work it spent given back, as the guard's).
    #[inline(never)]
    pub(crate) fn pick(&self, p: &Program, vm: &mut Vm) -> Option<&Choice> {
        let fuel = vm.fuel;
        let mut node = self;
        loop {
            match node {
                Cases::Case(c) => return Some(c),
                Cases::Test(t, free, cases) => match (vm.fuel, t.get(p, vm)) {
                    (before, Ok(v)) => {
                        if *free {
                            vm.fuel = before;
                        }
                        node = &cases[(v != 0) as usize]
                    }
                    (_, Err(_)) => {
                        vm.fuel = fuel;
                        return None;
                    }
                },
            }
        }
    }
}

impl Lower<'_> {
    /// The choice `p` by the cases of the decisions of its `where`
    /// `filter`; `None` when it has none. The cases' own `where`s are not
    /// cased again.
    pub(super) fn cases(
        &mut self,
        p: &crate::engine::game::Param,
        filter: &Expr,
        nonempty: Option<u8>,
        key: (u16, &[u8]),
    ) -> Option<Cases> {
        if self.casing {
            return None;
        }
        let decision = self.decision(filter)?;
        self.casing = true;
        let cases = self.case_split(p, filter, decision, nonempty, key, 1);
        self.casing = false;
        Some(cases)
    }

    /// The cases of `decision` in `e`, each split again by its own next
    /// decision, `depth` decisions deep.
    fn case_split(
        &mut self,
        p: &crate::engine::game::Param,
        e: &Expr,
        (decision, free): (Expr, bool),
        nonempty: Option<u8>,
        key: (u16, &[u8]),
        depth: usize,
    ) -> Cases {
        let test = self.filter(&decision);
        let never_none = matches!(p.domain, Domain::Set(_) | Domain::Players);
        let case = |l: &mut Self, holds: bool| {
            let none = if holds && never_none { none_read(&decision) } else { None };
            let e = specialise(e, &|x| known_in_case(x, (&decision, holds), none, p.slot));
            match l.decision(&e).filter(|_| depth < MOST_DECISIONS) {
                Some(d) => l.case_split(p, &e, d, nonempty, key, depth + 1),
                None => Cases::Case(Box::new(l.choice(p, Some(&e), nonempty, true, key))),
            }
        };
        let (no, yes) = (case(self, false), case(self, true));
        Cases::Test(test, free, Box::new([no, yes]))
    }

    /// The decision of the `where` `e` (see the top of this file), and
    /// whether it is a later one: on the way its first term not asked by
    /// the guard is worked out, the first closed condition met; or past
    /// terms that cannot go wrong, the first in the next.
    fn decision(&self, e: &Expr) -> Option<(Expr, bool)> {
        let (_, rest) = self.guarded_terms(e);
        for (i, t) in rest.iter().enumerate() {
            if let Some((d, later)) = self.first_closed(t) {
                return Some((d.clone(), later || i > 0));
            }
            if !cannot_fail(t) {
                return None;
            }
        }
        None
    }

    /// The closed condition `e` asks before anything else, if any: `e`
    /// itself, or in the left of an `and` or `or`, under a `not`, in the
    /// condition of an `if`; or in the right of an `and` or `or` whose
    /// left cannot go wrong and asks none (a later one: `true`).
    fn first_closed<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, bool)> {
        match e {
            Expr::Const(_) => None,
            Expr::Not(x) => self.first_closed(x),
            _ if self.ty(e) == Type::Bool && self.is_closed(e) => Some((e, false)),
            Expr::Bin(BinOp::And | BinOp::Or, a, b) => match self.first_closed(a) {
                None if cannot_fail(a) => self.first_closed(b).map(|(d, _)| (d, true)),
                found => found,
            },
            Expr::Cond(c, _, _) => self.first_closed(c),
            _ => None,
        }
    }
}

/// The state variable a decision `v == none` (or `none == v`) reads.
fn none_read(decision: &Expr) -> Option<&Expr> {
    let Expr::Bin(BinOp::Eq, a, b) = decision.unspanned() else { return None };
    let state = |x: &Expr| matches!(x.unspanned(), Expr::State(_));
    match (a.unspanned(), b.unspanned()) {
        (Expr::Const(Value::None), x) | (x, Expr::Const(Value::None)) if state(x) => Some(x),
        _ => None,
    }
}

/// The truth of the condition `x` in the case that `decision` holds or
/// not, if the case tells it: the decision itself; and in the case that a
/// decision `v == none` holds (`none`: `v`, a state variable), a
/// comparison of the choice in `slot`, whose values (sites, players) are
/// never none, with `v` (`(resume == none and ...) or hole == resume`
/// is the `and` alone while nothing is to be resumed). Such a
/// comparison reads two values and cannot go wrong, so nothing is lost
/// but its answer.
fn known_in_case(x: &Expr, (decision, holds): (&Expr, bool), none: Option<&Expr>, slot: u8) -> Option<bool> {
    if x == decision {
        return Some(holds);
    }
    let v = none?;
    let Expr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) = x.unspanned() else { return None };
    let choice = |y: &Expr| matches!(y.unspanned(), Expr::Local(s) if *s == slot);
    let read = |y: &Expr| y.unspanned() == v.unspanned();
    ((choice(a) && read(b)) || (read(a) && choice(b))).then_some(*op == BinOp::Ne)
}

/// `e` in the case that `known_here` tells the truth of some of the
/// conditions it asks: each put as its value wherever `e` asks it as a
/// condition, and what that decides taken away (see the top of this file).
fn specialise(e: &Expr, known_here: &dyn Fn(&Expr) -> Option<bool>) -> Expr {
    if let Some(v) = known_here(e) {
        return truth(v);
    }
    let spec = |x: &Expr| specialise(x, known_here);
    match e {
        Expr::Bin(op @ (BinOp::And | BinOp::Or), a, b) => {
            let and = *op == BinOp::And;
            match (known(&spec(a)), spec(b)) {
                // `false and _`, `true or _`: the left decides.
                (Ok(v), _) if v != and => truth(v),
                // `true and b`, `false or b`: b decides.
                (Ok(_), b) => b,
                // `a and true`, `a or false`: a decides.
                (Err(a), b) if known(&b) == Ok(and) => a,
                // `a and false`, `a or true`: the answer is known, and a
                // is still asked if it may fail.
                (Err(a), b) if known(&b).is_ok() && cannot_fail(&a) => b,
                (Err(a), b) => Expr::Bin(*op, Box::new(a), Box::new(b)),
            }
        }
        Expr::Not(x) => match known(&spec(x)) {
            Ok(v) => truth(!v),
            Err(x) => Expr::Not(Box::new(x)),
        },
        Expr::Cond(c, a, b) => match known(&spec(c)) {
            Ok(true) => spec(a),
            Ok(false) => spec(b),
            Err(c) => Expr::Cond(Box::new(c), Box::new(spec(a)), Box::new(spec(b))),
        },
        _ => e.clone(),
    }
}

fn truth(v: bool) -> Expr {
    Expr::Const(Value::Bool(v))
}

/// The value of `e` if it is a truth value put by [`specialise`], else `e`.
fn known(e: &Expr) -> Result<bool, Expr> {
    match e {
        Expr::Const(Value::Bool(v)) => Ok(*v),
        _ => Err(e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Config, compile_file};
    use std::sync::Arc;

    /// A choice's cases as text: `case` for a case, `(no yes)` for a
    /// decision's two, `[no yes]` for a later decision's; `-` for a choice
    /// not lowered by cases.
    fn shape(c: &Choice) -> String {
        fn of(c: &Cases) -> String {
            match c {
                Cases::Case(_) => "case".into(),
                Cases::Test(_, false, cases) => format!("({} {})", of(&cases[0]), of(&cases[1])),
                Cases::Test(_, true, cases) => format!("[{} {}]", of(&cases[0]), of(&cases[1])),
            }
        }
        c.cases.as_ref().map_or("-".into(), of)
    }

    fn shapes(settings: &[(&str, &str)]) -> Vec<Vec<String>> {
        shapes_of("tests/engine/cases.mancala", settings)
    }

    fn program(file: &str, settings: &[(&str, &str)]) -> Program {
        let cfg = Config {
            variants: vec![],
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let g = compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        Program::new(Arc::new(g))
    }

    fn shapes_of(file: &str, settings: &[(&str, &str)]) -> Vec<Vec<String>> {
        let p = program(file, settings);
        p.moves.iter().map(|m| m.choices.iter().map(shape).collect()).collect()
    }

    /// The later decisions of tests/engine/later.mancala's `where`s (past
    /// the chosen pit's count compared), as the file's comments give them;
    /// and Hawalis's, whose `where` is the least count alone in the case
    /// that some hole holds more than one counter.
    #[test]
    fn a_closed_condition_past_terms_that_cannot_fail_is_a_later_decision() {
        let later = vec![vec!["[case case]"]; 3];
        assert_eq!(shapes_of("tests/engine/later.mancala", &[]), later);
        assert_eq!(shapes_of("tests/engine/later.mancala", &[("risky", "true")]), later);
        let p = program("rules/hawalis.mancala", &[]);
        let Some(Cases::Test(_, true, cases)) = &p.moves[0].choices[0].cases else { panic!("no later decision") };
        let least = |c: &Cases| match c {
            Cases::Case(c) => c.at_least(),
            Cases::Test(..) => panic!("a decision in a case"),
        };
        assert_eq!((least(&cases[0]), least(&cases[1])), (None, Some(2)));
    }

    /// The decisions of tests/engine/cases.mancala's `where`s, as the
    /// file's comments give them.
    #[test]
    fn the_decisions_are_the_closed_conditions_asked_first() {
        assert_eq!(
            shapes(&[]),
            [
                // `sow`: `paused`; while it fails, `sharp()` (while it
                // holds, the pin `h == pending` is all).
                vec!["((case case) case)"],
                // `steer`: `paused`; while it fails, `sharp()`, after
                // `count(h) > 0`, which cannot go wrong (a later
                // decision). The track's: `paused`.
                vec!["([case case] case)", "(case case)"],
                // `lift`: the pit's `where` is its guard's; the number's
                // has no closed condition.
                vec!["-", "-"],
                // `aim`: `target == none`, past the guard `not paused`.
                vec!["(case case)"],
                // `rest`: `ply % 5 == 2`, past the guard `not paused`;
                // while it fails, `ply % 5 == 4` is the case's guard, and
                // while it holds, `p == mover` comes first.
                vec!["(case case)"],
            ]
        );
        // `deep`: the number's `where` turns on five, of which four are
        // asked in turn (one case of each the next splits).
        let deep = &shapes(&[("deep", "true")])[2][1];
        assert_eq!(deep, "(case (case (case (case case))))");
    }

    /// The `where` `text` of a choice of a pit, as checked.
    fn parse(text: &str) -> Expr {
        let file = format!(
            "game \"T\"\nplayers a, b\npit p[1..2] owner a\npit q[1..2] owner b\nstate s: condition\nstate t: site\n\
             move m \"{{h}}\" {{\n  choose h in every pit where {text}\n  take h to p[1]\n}}\nscore x: 0\n"
        );
        let cfg = Config { variants: vec![], settings: vec![] };
        let g =
            crate::compile::compile_source("t.mancala", &file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        g.moves[0].params[0].filter.clone().expect("a where")
    }

    /// What each case of a decision keeps: what can still fail or decide,
    /// in its order.
    #[test]
    fn a_case_keeps_what_can_still_fail_or_decide() {
        let s = parse("s");
        let case = |text: &str, holds: bool| specialise(&parse(text), &|x| (*x == s).then_some(holds));
        let and_false = |a: &str| Expr::Bin(BinOp::And, Box::new(parse(a)), Box::new(truth(false)));
        let or_true = |a: &str| Expr::Bin(BinOp::Or, Box::new(parse(a)), Box::new(truth(true)));
        // A false decision at the left of an `and` decides it; at its
        // right, the answer is known, and the left is still asked if it
        // may fail (the count of `t`, which may be none), not if it cannot
        // (the count of the choice).
        assert_eq!(case("s and count(h) > 1", false), truth(false));
        assert_eq!(case("count(t) > 1 and s", false), and_false("count(t) > 1"));
        assert_eq!(case("count(h) > 1 and s", false), truth(false));
        assert_eq!(case("count(h) > 1 and s", true), parse("count(h) > 1"));
        assert_eq!(case("s or count(h) > 1", true), truth(true));
        assert_eq!(case("s or count(h) > 1", false), parse("count(h) > 1"));
        assert_eq!(case("count(h) > 1 or s", false), parse("count(h) > 1"));
        assert_eq!(case("count(t) > 1 or s", true), or_true("count(t) > 1"));
        assert_eq!(case("count(h) > 1 or s", true), truth(true));
        // Hawalis's shape: while the decision fails, the least count alone.
        let hawalis = "count(h) > 1 or (count(h) == 1 and not s and count(p[1]) == 0)";
        assert_eq!(case(hawalis, true), parse("count(h) > 1"));
        assert_eq!(case(hawalis, false), parse("count(h) > 1 or (count(h) == 1 and count(p[1]) == 0)"));
        assert_eq!(case("not s and count(h) > 1", false), parse("count(h) > 1"));
        assert_eq!(case("if s then count(h) > 1 else h == p[1]", false), parse("h == p[1]"));
        assert_eq!(case("if s then count(h) > 1 else h == p[1]", true), parse("count(h) > 1"));
        // Both places a decision is asked as a condition.
        assert_eq!(case("(s and h == p[1]) or (not s and count(h) > 0)", true), parse("h == p[1]"));
        assert_eq!(case("(s and h == p[1]) or (not s and count(h) > 0)", false), parse("count(h) > 0"));
        // Inside a number it is not asked as a condition: left as written.
        assert_eq!(case("count(h) > (if s then 1 else 2) and s", true), parse("count(h) > (if s then 1 else 2)"));
    }

    /// In the case that `t == none` holds, the choice compared with `t`
    /// (either way round) is known: a site is never none. Not in the
    /// other case, nor of a value that is not the choice, nor when the
    /// decision compares `t` with anything but none.
    #[test]
    fn a_choice_is_never_the_none_a_case_knows() {
        let slot = match parse("h == t") {
            Expr::Bin(_, h, _) => match *h {
                Expr::Local(s) => s,
                h => panic!("not the choice: {h:?}"),
            },
            e => panic!("not a comparison: {e:?}"),
        };
        let case = |decision: &str, text: &str, holds: bool| {
            let d = parse(decision);
            let none = if holds { none_read(&d) } else { None };
            specialise(&parse(text), &|x| known_in_case(x, (&d, holds), none, slot))
        };
        let resumed = "(t == none and count(h) > 1) or h == t";
        assert_eq!(case("t == none", resumed, true), parse("count(h) > 1"));
        assert_eq!(case("none == t", "(none == t and count(h) > 1) or t == h", true), parse("count(h) > 1"));
        assert_eq!(case("t == none", resumed, false), parse("h == t"));
        assert_eq!(case("t == none", "t == none and h != t", true), truth(true));
        assert_eq!(case("t == none", "t == none and p[1] == t", true), parse("p[1] == t"));
        assert_eq!(case("t == p[1]", "(t == p[1] and count(h) > 1) or h == t", true), parse("count(h) > 1 or h == t"));
    }
}
