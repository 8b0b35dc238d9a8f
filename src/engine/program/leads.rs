//! A round's condition that an `end` asks first. Games played in rounds
//! often end the game on the condition that ends a round and something
//! more (`end ruined when count(every pit of next) == 0 and (...)` beside
//! `round refill when count(every pit of next) == 0`), both asked after
//! every move, the `end`s first. Such an `end` is asked in two parts, its
//! first `and` term and the rest; when the first is false the `end` is
//! not taken, and the round's condition, the same term asked of the same
//! position, is false without being asked again (see `play.rs`). When
//! it is all there is to ask after a move and of the commonest shape
//! (`count(every pit of next) == 0`), it is read in place ([`LeadTest`]).
//!
//! Only a term that changes nothing, spends no work and cannot answer
//! differently when asked again: it reads no local variable, draws no
//! number, calls no hook, asks no `can-move`, walks no quantifier or
//! filter (which spend work) and no earlier position. Nothing runs
//! between the `end`s and the rounds but another `end`'s condition (which
//! changes nothing) or one that is taken (the game is then over), and a
//! look at whether the player to move is stuck, which gives back what it
//! changes.

use super::expr::{Leaf, Opnd};
use super::memo::{join, terms};
use super::shapes::{compared, holds, swapped};
use super::sums::Sites;
use super::{EndProg, Lower, Program};
use crate::engine::game::{BinOp, Expr, Game, Value};
use crate::engine::vm::Vm;

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

/// The lead of a game's one `end` that has one (the others' conditions
/// folded to false, and nothing to do when the player to move is stuck)
/// when it is of the commonest shape, `count(SET) OP k` of a fixed set or
/// a player's sites of a kind, in a game of one colour: asked in place
/// after every move, and when it is false nothing more is asked (the
/// `end` not taken, the round's condition false). Otherwise, and when it
/// holds, the `end`s are asked as they are without it.
pub(crate) struct LeadTest {
    /// Which `end` it leads.
    pub end: u16,
    /// The set's sites; of a kind, each player's.
    sets: Box<[Sites]>,
    /// Whose sites, for a kind's: never a local variable (a lead reads
    /// none, see [`plain`]), so nothing left from an earlier move.
    who: Option<Leaf>,
    /// The outcomes the comparison holds for (see `shapes::holds`), and
    /// the number the count is compared with.
    outcomes: u8,
    than: i64,
}

impl LeadTest {
    /// The lead's value now; none if it cannot be read here (a player who
    /// is none), for the `end`s to ask it as they would.
    #[inline(always)]
    pub(crate) fn holds(&self, p: &Program, vm: &mut Vm) -> Option<bool> {
        let set = match self.who {
            None => self.sets.first()?,
            Some(l) => self.sets.get(usize::try_from(l.get(vm).ok()?).ok()?)?,
        };
        Some(compared(self.outcomes, set.count(p, vm), self.than))
    }
}

/// The [`LeadTest`] of the game's `end`s (lowered, and split by
/// [`shared`]), if they have one.
pub(super) fn lead_test(
    l: &Lower,
    g: &Game,
    (ends, splits): (&[EndProg], &[Split]),
    stuck_body: bool,
) -> Option<LeadTest> {
    if g.colours != 1 || stuck_body {
        return None;
    }
    let mut led = splits.iter().enumerate().filter_map(|(k, s)| Some((k, &s.as_ref()?.0)));
    let (Some((k, first)), None) = (led.next(), led.next()) else { return None };
    let never = |e: &EndProg| matches!(e.cond, Opnd::Leaf(Leaf::Const(0)));
    if ends.iter().enumerate().any(|(j, e)| j != k && !never(e)) {
        return None;
    }
    let Expr::Bin(op, a, b) = first.unspanned() else { return None };
    let (outcomes, count, than) = match (a.unspanned(), b.unspanned()) {
        (Expr::Count(x, None), Expr::Const(Value::Int(n))) => (holds(*op)?, x, *n),
        (Expr::Const(Value::Int(n)), Expr::Count(x, None)) => (swapped(holds(*op)?), x, *n),
        _ => return None,
    };
    let sites = |id: u16| Sites::new(id, &g.sets[id as usize], g.sites.len());
    let (sets, who) = match count.unspanned() {
        Expr::Const(Value::Set(id)) => (vec![sites(*id)], None),
        Expr::KindSet(kind, pl) if !l.territory(*kind) => {
            (g.kind_sets[kind.index()].iter().map(|&id| sites(id)).collect(), Some(l.leaf(pl)?))
        }
        _ => return None,
    };
    Some(LeadTest { end: k as u16, sets: sets.into(), who, outcomes, than })
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

    /// The lead is asked in place ([`super::LeadTest`]) when it is the one
    /// thing to ask after a move: `count(SET) OP k` of a fixed set or a
    /// player's sites, either way round, leading the one `end` whose
    /// condition can hold. Not when another `end` may hold, with `when
    /// stuck: end { ... }`, or for a lead of another shape.
    #[test]
    fn a_lead_is_asked_in_place_when_it_is_all_there_is_to_ask() {
        let test = |round: &str, ends: &str| program(round, ends).lead_test.map(|t| t.end);
        let ends = |lead: &str| format!("end ruined when {lead} and rounds >= 3");
        for lead in ["count(every pit of next) == 0", "0 == count(every pit of next)", "count(every pit) < 1"] {
            assert_eq!(test(lead, &ends(lead)), Some(0), "{lead}");
        }
        let lead = "count(every pit of next) == 0";
        // Another `end` before it, whose condition folds to false.
        let folded = format!("end never when 1 > 2\n{}", ends(lead));
        assert_eq!(test(lead, &folded), Some(1));
        let another = format!("end full when count(every pit) > 20\n{}", ends(lead));
        assert_eq!(test(lead, &another), None, "another `end` before it may hold");
        let after = format!("{}\nend full when count(every pit) > 20", ends(lead));
        assert_eq!(test(lead, &after), None, "another `end` after it may hold");
        let stuck = format!("{}\nwhen stuck: end {{ take every pit to store(next) }}", ends(lead));
        assert_eq!(test(lead, &stuck), None, "something to do when stuck");
        for other in ["count(A) == 0", "count(every pit of next) == count(A)"] {
            let p = program(other, &ends(other));
            assert!(p.ends[0].rest.is_some() && p.lead_test.is_none(), "a lead of another shape: {other}");
        }
    }
}
