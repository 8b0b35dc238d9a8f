//! A round's condition that an `end` asks first. Games played in rounds
//! often end the game on the condition that ends a round and something
//! more (`end ruined when count(every pit of next) == 0 and (...)` beside
//! `round refill when count(every pit of next) == 0`), both asked after
//! every move, the `end`s first. Such an `end` is asked in two parts, its
//! first `and` term and the rest; when the first is false the `end` is
//! not taken, and the round's condition, the same term asked of the same
//! position, is false without being asked again (see `play.rs`).
//!
//! Only a term that changes nothing, spends no work and cannot answer
//! differently when asked again: it reads no local variable, draws no
//! number, calls no hook, asks no `can-move`, walks no quantifier or
//! filter (which spend work) and no earlier position. Nothing runs
//! between the `end`s and the rounds but another `end`'s condition (which
//! changes nothing) or one that is taken (the game is then over), and a
//! look at whether the player to move is stuck, which gives back what it
//! changes.

use super::memo::{join, terms};
use crate::engine::game::{BinOp, Expr, Game};

/// An `end`'s condition as its first `and` term and the rest.
pub(super) type Split = Option<(Expr, Expr)>;

/// For each `end` of `g`, its condition as its first `and` term and the
/// rest, when some round's condition is that term; for each round, the
/// `end` whose first term it is (the first such).
pub(super) fn shared(g: &Game) -> (Vec<Split>, Vec<Option<u16>>) {
    let mut ends: Vec<Split> = vec![None; g.ends.len()];
    let mut rounds = vec![None; g.rounds.len()];
    for (r, round) in g.rounds.iter().enumerate() {
        if !plain(&round.cond) {
            continue;
        }
        for (k, end) in g.ends.iter().enumerate() {
            let mut t = Vec::new();
            terms(BinOp::And, &end.cond, &mut t);
            if t.len() < 2 || *t[0] != round.cond {
                continue;
            }
            if ends[k].is_none() {
                ends[k] = join(BinOp::And, &t[1..]).map(|rest| (t[0].clone(), rest));
            }
            rounds[r] = Some(k as u16);
            break;
        }
    }
    (ends, rounds)
}

/// Whether `e` changes nothing, spends no work and answers the same when
/// asked again of the same position (see the top of this file).
fn plain(e: &Expr) -> bool {
    let here = !matches!(
        e,
        Expr::Local(_)
            | Expr::Random(..)
            | Expr::Hook(..)
            | Expr::CanMove(_)
            | Expr::Quant(..)
            | Expr::Filter(..)
            | Expr::Before(_)
            | Expr::Keep(..)
            | Expr::Kept(..)
    );
    let mut children = true;
    e.each_child(&mut |c| children &= plain(c));
    here && children
}

#[cfg(test)]
mod tests {
    use super::super::Program;
    use crate::compile::{Config, compile_source};
    use std::sync::Arc;

    /// The rounds' conditions and the `end`s around them, as a program.
    fn program(round: &str, ends: &str) -> Program {
        let text = format!(
            "game \"Leads\"
players south, north
pit a[1..3] owner south
store A owner south
pit b[1..3] owner north
store B owner north
track loop cyclic: a[1..3], A, b[1..3], B
setup {{
  put 2 in every pit
}}
move sow \"{{h}}\" {{
  choose h in every pit of mover where count(h) > 0
  sow h along loop
}}
{ends}
round refill when {round} {{
  for p in players {{ take every pit of p to store(p) }}
}}
score p: count(store(p))
"
        );
        let g =
            compile_source("t.mancala", &text, &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
        Program::lower(Arc::new(g), true)
    }

    /// A round's condition that an `end` asks first is shared with the
    /// first such `end`; one asked later in an `end`, or by an `end` of
    /// one term, is not; nor is one that walks a quantifier (it spends
    /// work) or draws a number.
    #[test]
    fn a_round_shares_the_first_term_of_an_end() {
        let shared = |round: &str, ends: &str| {
            let p = program(round, ends);
            let leads: Vec<bool> = p.ends.iter().map(|e| e.rest.is_some()).collect();
            // The game's one round: passed over after a move by its lead.
            assert_eq!(p.round_lead, p.rounds[0].lead_of);
            (leads, p.rounds[0].lead_of, p.led_ends)
        };
        let empty = "count(every pit of next) == 0";
        let ends = "end one when count(every pit) > 20\n\
                    end ruined when count(every pit of next) == 0 and rounds >= 3\n\
                    end again when count(every pit of next) == 0 and rounds >= 5";
        assert_eq!(shared(empty, ends), (vec![false, true, false], Some(1), true));
        let ends = "end later when rounds >= 3 and count(every pit of next) == 0\n\
                    end alone when count(every pit of next) == 0";
        assert_eq!(shared(empty, ends), (vec![false, false], None, false));
        let walks = "any(p in players: count(every pit of p) == 0)";
        let ends = format!("end ruined when {walks} and rounds >= 3");
        assert_eq!(shared(walks, &ends), (vec![false], None, false));
        let draws = "random(1, 2) == 1";
        let ends = format!("end ruined when {draws} and rounds >= 3");
        assert_eq!(shared(draws, &ends), (vec![false], None, false));
    }
}
