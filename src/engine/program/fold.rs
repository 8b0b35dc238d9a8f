//! Constant folding: what the rules work out from fixed values alone is
//! worked out once, before lowering. A `define` written for any row and
//! called with a fixed one (Katro's `at(p, 3, c)`, `if r == 1 then ...
//! else if r == 2 then ... else ...`), or arithmetic on options (`2 *
//! holes + 1`), leaves a value or one branch, not a closure for each node
//! run at every use.
//!
//! A part is folded only where its value is the one the executor would
//! give, and nothing it does is lost: an `if` whose condition is fixed
//! keeps the branch it takes (the other is never run); `x and true` is `x`,
//! but `x and false` keeps `x`, which may go wrong; arithmetic that goes
//! wrong (a number too large, a division by zero) and a family member that
//! is not there are left as written, to go wrong where they did, with their
//! messages. Only the executor's program is folded: the game keeps its
//! rules as written, for the reference executor (`engine::reference`) to
//! judge the folding by, and for the program without memos or tables.
//! While lowering, a function of the mover alone is folded again, once
//! with each player in its place (`tables.rs`).

use crate::engine::game::{BinOp, Expr, Game, Relay, Stmt, StmtKind, Value};
use crate::engine::precheck::dead;

use super::expr::enc;

/// The game with every expression of its rules folded, and a relay whose
/// condition is then fixed false dropped.
pub(super) fn game(g: &Game) -> Game {
    let mut f = g.clone();
    let folder = Folder { g };
    each_expr(&mut f, true, &mut |e| folder.expr(e));
    for m in &mut f.moves {
        drop_dead_relays(&mut m.body);
    }
    f
}

/// `e`, an expression of `g`'s rules, folded as [`game`] folds them.
pub(super) fn expr(g: &Game, e: &mut Expr) {
    Folder { g }.expr(e);
}

/// A relay whose condition is fixed false never relays (Moruba's `relay
/// while relay and count(last) > 1` with the option off): the sowing is
/// one lap, as without it (see [`dead`]). Its move is tried as the rules as
/// written say: the compiler spares the trial when it sees the relay dead
/// as written, and a relay the folding alone kills (`relay while holes >
/// 20`) keeps it, for a trial runs the move's rules, which may go wrong, and
/// must where the reference executor's does.
fn drop_dead_relays(block: &mut [Stmt]) {
    for s in block {
        match &mut s.kind {
            StmtKind::Sow { relay, each, lap, .. } => {
                if relay.as_ref().is_some_and(|r| dead(r)) {
                    *relay = None;
                }
                drop_dead_relays(each);
                drop_dead_relays(lap);
            }
            StmtKind::If { branches, otherwise } => {
                for (_, body) in branches {
                    drop_dead_relays(body);
                }
                drop_dead_relays(otherwise);
            }
            StmtKind::For { body, .. } => drop_dead_relays(body),
            _ => {}
        }
    }
}

/// As [`each_expr`], leaving out the sowing statements (their clauses and
/// their `each` and lap blocks): the expressions worked out whole, each
/// on its own (see `cse.rs`).
pub(super) fn each_root(g: &mut Game, visit: &mut impl FnMut(&mut Expr)) {
    each_expr(g, false, visit)
}

/// Calls `visit` on each expression the rules of `g` hold, outermost: the
/// setup, a move's choices and body, `avoid`s, `end`s, rounds, phases, the
/// score and the glyphs; the sowings' only with `sows`.
fn each_expr(g: &mut Game, sows: bool, visit: &mut impl FnMut(&mut Expr)) {
    block(&mut g.setup, sows, visit);
    for m in &mut g.moves {
        for p in &mut m.params {
            p.domain.each_expr_mut(visit);
            p.filter.iter_mut().for_each(&mut *visit);
        }
        block(&mut m.body, sows, visit);
    }
    g.avoids.iter_mut().for_each(|(_, c, _)| visit(c));
    for e in g.ends.iter_mut().chain(&mut g.rounds) {
        visit(&mut e.cond);
        e.verdict.iter_mut().for_each(|(_, x)| visit(x));
        block(&mut e.body, sows, visit);
    }
    block(&mut g.stuck_body, sows, visit);
    g.phases.iter_mut().flat_map(|ph| &mut ph.transitions).for_each(|(_, c, _)| visit(c));
    visit(&mut g.score.1);
    g.glyphs.iter_mut().for_each(|(_, c)| visit(c));
}

fn block(block: &mut [Stmt], sows: bool, visit: &mut impl FnMut(&mut Expr)) {
    for s in block {
        stmt(s, sows, visit);
    }
}

fn stmt(s: &mut Stmt, sows: bool, visit: &mut impl FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Sow { .. } if !sows => {}
        StmtKind::Sow { amount, source, track, fixed_skips, skips, start, relay, each, lap, .. } => {
            amount.iter_mut().for_each(&mut *visit);
            visit(source);
            visit(track);
            fixed_skips.iter_mut().chain(skips.iter_mut()).for_each(&mut *visit);
            start.iter_mut().for_each(&mut *visit);
            if let Some(r) = relay {
                let Relay { from, cond, max } = &mut **r;
                from.iter_mut().chain(std::iter::once(cond)).chain(max).for_each(&mut *visit);
            }
            block(each, sows, visit);
            block(lap, sows, visit);
        }
        StmtKind::Take { amount, colour, from, to } => {
            amount.iter_mut().chain(colour.iter_mut()).chain(std::iter::once(from)).chain(to).for_each(visit)
        }
        StmtKind::Put { amount, colour, target } => {
            std::iter::once(amount).chain(colour.iter_mut()).chain(std::iter::once(target)).for_each(visit)
        }
        StmtKind::Set { site, value, .. } => site.iter_mut().chain(std::iter::once(value)).for_each(visit),
        StmtKind::Swap(a, b) => {
            visit(a);
            visit(b);
        }
        StmtKind::If { branches, otherwise } => {
            for (c, body) in branches {
                visit(c);
                block(body, sows, visit);
            }
            block(otherwise, sows, visit);
        }
        StmtKind::For { domain, body, .. } => {
            domain.each_expr_mut(visit);
            block(body, sows, visit);
        }
        StmtKind::Let { value: x, .. } | StmtKind::Require(x) | StmtKind::Start(x) => visit(x),
        StmtKind::Enter(_) | StmtKind::Again | StmtKind::EndGame => {}
    }
}

struct Folder<'g> {
    g: &'g Game,
}

impl Folder<'_> {
    /// Folds `e`, its parts first.
    fn expr(&self, e: &mut Expr) {
        e.each_child_mut(&mut |c| self.expr(c));
        if let Some(v) = self.folded(e) {
            *e = v;
        }
    }

    /// What `e`, its parts folded, folds to, if anything.
    fn folded(&self, e: &mut Expr) -> Option<Expr> {
        let take = |x: &mut Box<Expr>| std::mem::replace(&mut **x, Expr::Const(Value::None));
        let konst = |v| Some(Expr::Const(v));
        match e {
            Expr::Spanned(_, x) if matches!(**x, Expr::Const(_)) => Some(take(x)),
            // A fixed condition: the branch taken. The lowering types
            // `none` alone as a site, and an `if` by its first branch
            // unless that leads with `none`: where either branch leads with
            // `none` (itself, or an `if` whose first branch does), the type
            // could change; it is left as written.
            Expr::Cond(c, a, b) => {
                let c = *value(c)?;
                if leads_with_none(a) || leads_with_none(b) {
                    return None;
                }
                Some(if enc(c) != 0 { take(a) } else { take(b) })
            }
            Expr::Not(x) => konst(Value::Bool(enc(*value(x)?) == 0)),
            Expr::Neg(x) => konst(Value::Int(int(x)?.checked_neg()?)),
            Expr::Min(a, b) => konst(Value::Int(int(a)?.min(int(b)?))),
            Expr::Max(a, b) => konst(Value::Int(int(a)?.max(int(b)?))),
            Expr::Bin(op @ (BinOp::And | BinOp::Or), a, b) => {
                let and = *op == BinOp::And;
                match (value(a), value(b)) {
                    // `true and y` is `y`; `false and y` is false (`y` is never asked).
                    (Some(c), _) if (enc(*c) != 0) == and => Some(take(b)),
                    (Some(c), _) => konst(Value::Bool(enc(*c) != 0)),
                    // `x and true` is `x`; `x and false` still asks `x`.
                    (None, Some(c)) if (enc(*c) != 0) == and => Some(take(a)),
                    _ => None,
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (*value(a)?, *value(b)?);
                if matches!(x, Value::Set(_) | Value::Mask(_)) || matches!(y, Value::Set(_) | Value::Mask(_)) {
                    return None;
                }
                let cmp = |holds: fn(i64, i64) -> bool| konst(Value::Bool(holds(enc(x), enc(y))));
                match op {
                    BinOp::Eq => cmp(|x, y| x == y),
                    BinOp::Ne => cmp(|x, y| x != y),
                    _ => {
                        // Orders of sites refuse `none`: only numbers are ordered here.
                        let (Value::Int(x), Value::Int(y)) = (x, y) else { return None };
                        match op {
                            BinOp::Lt => konst(Value::Bool(x < y)),
                            BinOp::Le => konst(Value::Bool(x <= y)),
                            BinOp::Gt => konst(Value::Bool(x > y)),
                            BinOp::Ge => konst(Value::Bool(x >= y)),
                            BinOp::Add => konst(Value::Int(x.checked_add(y)?)),
                            BinOp::Sub => konst(Value::Int(x.checked_sub(y)?)),
                            BinOp::Mul => konst(Value::Int(x.checked_mul(y)?)),
                            BinOp::Div if y != 0 => konst(Value::Int(x.checked_div_euclid(y)?)),
                            BinOp::Mod if y != 0 => konst(Value::Int(x.checked_rem_euclid(y)?)),
                            _ => None,
                        }
                    }
                }
            }
            Expr::Opponent(x) => match *value(x)? {
                Value::Player(p @ (0 | 1)) => konst(Value::Player(1 - p)),
                _ => None,
            },
            Expr::Index(x) => match *value(x)? {
                Value::Site(s) => konst(Value::Int(self.g.sites.get(s as usize)?.family.as_ref()?.1)),
                _ => None,
            },
            Expr::IsKind(x, k) => match *value(x)? {
                Value::Site(s) => konst(Value::Bool(self.g.sites.get(s as usize)?.kind == *k)),
                _ => None,
            },
            Expr::Relation(r, x) => match *value(x)? {
                Value::Site(s) => {
                    konst(Value::Site(self.g.relations.get(*r as usize)?.1.get(s as usize).copied().flatten()?))
                }
                _ => None,
            },
            // A family's member by a fixed key, if it has one and it is a
            // single value (a member that is a set is left as written).
            Expr::Family(f, x) => match *value(x)? {
                key @ (Value::Int(_) | Value::Player(_) | Value::Site(_) | Value::Track(_)) => {
                    match *self.g.families.get(*f as usize)?.members.get(&key)? {
                        v @ (Value::Int(_) | Value::Bool(_) | Value::Player(_) | Value::Site(_) | Value::Track(_)) => {
                            konst(v)
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Whether `e` is `none`, or an `if` whose first branch leads with it (see
/// the `if` in [`Folder::folded`]).
pub(super) fn leads_with_none(e: &Expr) -> bool {
    match e.unspanned() {
        Expr::Const(Value::None) => true,
        Expr::Cond(_, a, _) => leads_with_none(a),
        _ => false,
    }
}

/// The value of `e`, if it is fixed.
fn value(e: &Expr) -> Option<&Value> {
    match e {
        Expr::Const(v) => Some(v),
        _ => None,
    }
}

/// The number `e` is, if it is a fixed one.
fn int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(Value::Int(i)) => Some(*i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Config, compile_file};

    /// The parts of `g`'s rules of the shapes folding is for: made of
    /// fixed values alone, or decided by one.
    fn fixed_parts(g: &Game) -> Vec<String> {
        fn walk(e: &Expr, out: &mut Vec<String>) {
            let fixed = |x: &Expr| matches!(x, Expr::Const(_));
            let shape = match e {
                Expr::Cond(c, ..) | Expr::Spanned(_, c) => fixed(c),
                Expr::Bin(BinOp::And | BinOp::Or, a, b) => fixed(a) || fixed(b),
                Expr::Not(_)
                | Expr::Neg(_)
                | Expr::Min(..)
                | Expr::Max(..)
                | Expr::Bin(..)
                | Expr::Opponent(_)
                | Expr::Index(_)
                | Expr::IsKind(..)
                | Expr::Relation(..)
                | Expr::Family(..) => e.all_children(fixed),
                _ => false,
            };
            if shape {
                out.push(format!("{e:?}"));
            }
            e.each_child(&mut |c| walk(c, out));
        }
        let mut g = g.clone();
        let mut out = Vec::new();
        each_expr(&mut g, true, &mut |e| walk(e, &mut out));
        out
    }

    fn compile(settings: &[(&str, &str)]) -> Game {
        let cfg = Config {
            variants: vec![],
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        compile_file("tests/engine/folds.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)))
    }

    /// A relay whose condition the options make false is dropped. Its move
    /// (a limit on the relay's laps makes the rules try it) is not tried
    /// but checked for counters when the relay is dead as written (`relay
    /// and ...`, the option off), in the game and the program alike; one
    /// only the folding kills (`holes > 20`) is dropped, the move still
    /// tried in both. A relay that can relay, or whose limit is not fixed
    /// (worked out before the first lap, it may go wrong), keeps both.
    #[test]
    fn a_relay_that_never_relays_is_dropped_and_its_move_not_tried() {
        let folded = |cond: &str, limit: &str, settings: &[(&str, &str)]| {
            let text = format!(
                "game \"Dead relay\"
option relay = false \"a last counter in an occupied pit sows on\"
option holes = 3 in 1..30 \"holes in a row\"
players south, north
pit a[1..3] owner south
pit b[1..3] owner north
track loop cyclic: a[1..3], b[1..3]
state most: number
setup {{
  put 2 in every pit
  set most = 5
}}
move sow \"{{h}}\" {{
  choose h in every pit of mover where count(h) > 0
  sow h along loop relay while {cond} and count(last) > 1 at most {limit} laps
}}
score p: 0
"
            );
            let cfg = Config {
                variants: vec![],
                settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            };
            let g = crate::compile::compile_source("t.mancala", &text, &cfg)
                .unwrap_or_else(|f| panic!("{}", f.render(false)));
            let f = game(&g);
            let relays = matches!(&f.moves[0].body[0].kind, StmtKind::Sow { relay: Some(_), .. });
            let (tried, checked) = (f.moves[0].needs_trial, f.moves[0].nonempty);
            assert_eq!((g.moves[0].needs_trial, g.moves[0].nonempty), (tried, checked), "as written, as folded");
            (relays, tried, checked)
        };
        assert_eq!(folded("relay", "6", &[]), (false, false, Some(0)));
        assert_eq!(folded("not (relay or true)", "6", &[]), (false, false, Some(0)));
        assert_eq!(folded("relay", "6", &[("relay", "true")]), (true, true, Some(0)));
        assert_eq!(folded("relay", "most", &[]), (true, true, Some(0)));
        assert_eq!(folded("holes > 20", "6", &[]), (false, true, Some(0)));
        assert_eq!(folded("holes > 20", "6", &[("holes", "21")]), (true, true, Some(0)));
    }

    /// Every part of tests/engine/folds.mancala made of fixed values is
    /// worked out, but those that go wrong (kept to go wrong when asked),
    /// `x or true` and `x and false`, which must still ask `x`, and an `if`
    /// whose type would change.
    #[test]
    fn fixed_parts_are_worked_out_but_those_that_go_wrong() {
        let asked = [
            "Bin(Or, Bin(Ge, State(0), Const(Int(0))), Const(Bool(true)))",
            "Bin(Or, Bin(And, Bin(Gt, Count(Builtin(Last), None), Const(Int(100))), Const(Bool(false))), \
             Const(Bool(true)))",
            "Bin(And, Bin(Gt, Count(Builtin(Last), None), Const(Int(100))), Const(Bool(false)))",
            // `who(2)`: kept, as its type would change (an `if` typed by a
            // player, its branch taken an `if` that leads with `none`).
            "Cond(Const(Bool(false)), Const(Player(1)), Cond(Bin(Gt, Count(Const(Site(0)), None), Const(Int(0))), \
             Const(None), Const(Player(0))))",
        ];
        let g = compile(&[("fault", "3")]);
        assert!(fixed_parts(&g).len() > 20, "{:#?}", fixed_parts(&g));
        // A family member that is not there, in `x and false`.
        let missing = [
            "Bin(And, Bin(Gt, Count(Family(0, Const(Int(5))), None), Const(Int(0))), Const(Bool(false)))",
            "Family(0, Const(Int(5)))",
        ];
        assert_eq!(fixed_parts(&game(&g)), [&asked[..], &missing].concat());
        // A number that grows too large (`big * big` is worked out).
        let large = "Bin(Mul, Const(Int(4000000000000000000)), Const(Int(2000000000)))";
        let g = compile(&[("fault", "1"), ("big", "2000000000")]);
        assert_eq!(fixed_parts(&game(&g)), [&asked[..], &[large]].concat());
        // A division by zero: `tally / (k - k)`, `k - k` worked out.
        assert_eq!(fixed_parts(&game(&compile(&[("fault", "2")]))), asked);
    }
}
