//! A round's or a phase change's condition that an `end` asks first.
//! Games played in rounds often end the game on the condition that ends a
//! round and something more (`end ruined when count(every pit of next) ==
//! 0 and (...)` beside `round refill when count(every pit of next) == 0`),
//! both asked after every move, the `end`s first. Such an `end` is asked
//! in two parts, its first `and` term and the rest; when the first is
//! false the `end` is not taken, and the round's condition, the same term
//! asked of the same position, is false without being asked again (see
//! `play.rs`). When it is all there is to ask after a move and of the
//! commonest shape (`count(every pit of next) == 0`), it is read in place
//! ([`LeadTest`]).
//!
//! Only a term that changes nothing, spends no work and cannot answer
//! differently when asked again: it reads no local variable, draws no
//! number, calls no hook, asks no `can-move`, walks no quantifier or
//! filter (which spend work) and no earlier position. Nothing runs
//! between the `end`s and the rounds but another `end`'s condition (which
//! changes nothing) or one that is taken (the game is then over), and a
//! look at whether the player to move is stuck, which gives back what it
//! changes.
//!
//! Games played in phases may leave one on the condition an `end` asks
//! first (Gabata's `then dividing when round-over()` beside `end ruined
//! when round-over() and (...)`): the phase's changes are asked after a
//! move, just before the `end`s, of the same position. When none is taken
//! (the phase stays) and the one that is an `end`'s first term was found
//! false, that `end` is not taken either, without its term asked again
//! (`vm::PhaseLead`). Such a term may walk a quantifier or a filter: the
//! `end` then spends the work the change's condition took, as asking it
//! again would, so the work budget runs out where it would.

use super::expr::{Leaf, Opnd};
use super::memo::{join, terms};
use super::shapes::{compared, holds, swapped};
use super::sums::Sites;
use super::{EndProg, Lower, Program};
use crate::engine::game::{BinOp, Expr, Game, Value};
use crate::engine::vm::Vm;

/// An `end`'s condition as its first `and` term and the rest.
pub(super) type Split = Option<(Expr, Expr)>;

/// What [`shared`] finds: for each `end` of a game, its condition as its
/// first `and` terms and the rest, when some round's or phase change's
/// condition is those terms; for each round, the `end` whose first term it
/// is (the first such); and for each phase's changes, likewise (see
/// `vm::PhaseLead`).
pub(super) struct Shared {
    pub ends: Vec<Split>,
    pub rounds: Vec<Option<u16>>,
    pub phases: Vec<Vec<Option<u16>>>,
}

impl Shared {
    /// Nothing shared: every condition asked as written.
    pub(super) fn none(g: &Game) -> Shared {
        Shared {
            ends: vec![None; g.ends.len()],
            rounds: vec![None; g.rounds.len()],
            phases: g.phases.iter().map(|ph| vec![None; ph.transitions.len()]).collect(),
        }
    }
}

/// The conditions of `g`'s rounds and phase changes that its `end`s ask
/// first (see [`Shared`]).
pub(super) fn shared(l: &Lower, g: &Game) -> Shared {
    let mut ends: Vec<Split> = vec![None; g.ends.len()];
    let mut rounds = vec![None; g.rounds.len()];
    for (r, round) in g.rounds.iter().enumerate() {
        if plain(&round.cond) {
            rounds[r] = led(g, &round.cond, &mut ends);
        }
    }
    let phases = g
        .phases
        .iter()
        .map(|ph| {
            ph.transitions.iter().map(|(_, c, _)| if steady(l, c) { led(g, c, &mut ends) } else { None }).collect()
        })
        .collect();
    Shared { ends, rounds, phases }
}

/// The first `end` of `g` whose condition is `cond` and more (`cond and
/// ...`, the `and` terms of `cond` first), split into those terms and the
/// rest in `ends` (unless it is split already, elsewhere: it is then not
/// led by `cond`).
fn led(g: &Game, cond: &Expr, ends: &mut [Split]) -> Option<u16> {
    let mut c = Vec::new();
    terms(BinOp::And, cond, &mut c);
    for (k, end) in g.ends.iter().enumerate() {
        let mut t = Vec::new();
        terms(BinOp::And, &end.cond, &mut t);
        if t.len() <= c.len() || t[..c.len()] != c[..] {
            continue;
        }
        let (Some(first), Some(rest)) = (join(BinOp::And, &t[..c.len()]), join(BinOp::And, &t[c.len()..])) else {
            continue;
        };
        match &ends[k] {
            Some((f, _)) if *f != first => continue,
            Some(_) => {}
            None => ends[k] = Some((first, rest)),
        }
        return Some(k as u16);
    }
    None
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
    asks_only_the_position(e, false)
}

/// Whether `e` changes nothing and answers the same when asked again of
/// the same position, though it may spend work: as [`plain`], but it may
/// walk a quantifier or a filter over local variables of its own (it
/// reads none bound outside it).
fn steady(l: &Lower, e: &Expr) -> bool {
    l.is_closed(e) && asks_only_the_position(e, true)
}

/// Whether `e` draws no number, calls no hook, asks no `can-move`, reads
/// no earlier position and keeps or reads no kept part; and, unless
/// `walks`, walks no quantifier or filter and reads no local variable.
fn asks_only_the_position(e: &Expr, walks: bool) -> bool {
    let here = match e {
        Expr::Random(..) | Expr::Hook(..) | Expr::CanMove(_) | Expr::Before(_) | Expr::Keep(..) | Expr::Kept(..) => {
            false
        }
        Expr::Local(_) | Expr::Quant(..) | Expr::Filter(..) => walks,
        _ => true,
    };
    let mut children = true;
    e.each_child(&mut |c| children &= asks_only_the_position(c, walks));
    here && children
}

#[cfg(test)]
mod tests {
    use super::super::Program;
    use crate::compile::{Config, compile_source};
    use std::sync::Arc;

    /// A game of three pits a side sown along a loop, `rest` after its
    /// board, as a program.
    fn lowered(rest: &str) -> Program {
        let text = format!(
            "game \"Leads\"
players south, north
pit a[1..3] owner south
store A owner south
pit b[1..3] owner north
store B owner north
track loop cyclic: a[1..3], A, b[1..3], B
{rest}
score p: count(store(p))
"
        );
        let g =
            compile_source("t.mancala", &text, &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
        Program::lower(Arc::new(g), true)
    }

    /// The rounds' conditions and the `end`s around them, as a program.
    fn program(round: &str, ends: &str) -> Program {
        lowered(&format!(
            "setup {{
  put 2 in every pit
}}
move sow \"{{h}}\" {{
  choose h in every pit of mover where count(h) > 0
  sow h along loop
}}
{ends}
round refill when {round} {{
  for p in players {{ take every pit of p to store(p) }}
}}"
        ))
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

    /// A phase's change whose condition an `end` asks first (its `and`
    /// terms, the first of the `end`'s) is shared with the first such
    /// `end`, even when it walks a quantifier over its own variable (its
    /// work is spent again, see `vm::PhaseLead`); one asked later in an `end`,
    /// or by an `end` of no more terms, is not; nor one that draws a
    /// number, asks `can-move`, or reads the position before the move.
    #[test]
    fn a_phase_change_shares_the_first_term_of_an_end() {
        let shared = |change: &str, ends: &str| {
            let p = lowered(&format!(
                "state counted: number
setup {{
  put 2 in every pit
}}
phase sow {{
  move sow \"{{h}}\" {{
    choose h in every pit of mover where count(h) > 0
    sow h along loop
  }}
  then tally when count(A) > 20
  then tally when {change}
}}
phase tally {{
  move tally {{
    set counted = counted + 1
    enter sow
  }}
}}
{ends}"
            ));
            let leads: Vec<bool> = p.ends.iter().map(|e| e.rest.is_some()).collect();
            let changes: Vec<Vec<Option<u16>>> =
                p.phases.iter().map(|ph| ph.iter().map(|c| c.lead_of).collect()).collect();
            (leads, changes, p.led_ends)
        };
        let walks = "all(h in every pit of next: count(h) < 2)";
        let ends = format!(
            "end one when count(every pit) > 20\n\
             end calm when {walks} and counted >= 3\n\
             end again when {walks} and counted >= 5"
        );
        let want = (vec![false, true, false], vec![vec![None, Some(1)], vec![]], true);
        assert_eq!(shared(walks, &ends), want);
        let ends = format!("end later when counted >= 3 and {walks}\nend alone when {walks}");
        assert_eq!(shared(walks, &ends), (vec![false, false], vec![vec![None, None], vec![]], false));
        // A change's `and`s, the first terms of the `end`'s.
        let both = format!("count(A) < 9 and {walks}");
        let ends = format!("end alone when {both}\nend calm when {both} and counted >= 3");
        assert_eq!(shared(&both, &ends), (vec![false, true], vec![vec![None, Some(1)], vec![]], true));
        let ends = format!("end calm when count(A) < 9 and counted >= 3 and {walks}");
        assert_eq!(shared(&both, &ends), (vec![false], vec![vec![None, None], vec![]], false));
        for other in ["random(1, 2) == 1", "can-move(next)", "before(count(A)) > 2"] {
            let ends = format!("end calm when {other} and counted >= 3");
            assert_eq!(shared(other, &ends), (vec![false], vec![vec![None, None], vec![]], false), "{other}");
        }
    }
}
