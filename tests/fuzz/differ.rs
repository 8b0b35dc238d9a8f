//! The two executors side by side on a case that checks: the compiled one
//! (`Engine`) and the tree-walking reference (`RefEngine`) play the same
//! seeded game, and every answer of one must be the other's. The compiled
//! executor's shortcuts (kept sowing tables, fused relays, pinned choices,
//! parts of `where`s kept while the moves are looked for) are each a way
//! to give a wrong answer silently; mutated rule files reach them in
//! shapes the shipped ones never take.
//!
//! What may differ, and why:
//! - The words of two errors: on a pathological file the two may meet
//!   different faults first (the order of an error in `starting at` off a
//!   track whose every place is skipped, or of a `take` from no site by an
//!   amount that fails). An error against an error agrees, but the same
//!   words in two places do not (the same fault must be shown at the
//!   same place in the rule file); an error against an answer, or
//!   `Illegal` against an error, does not.
//! - The work budget: the reference counts a step a counter where the
//!   compiled executor counts one a lap, so one may run out where the
//!   other does not. A case where either runs out stops being compared.
//! - A loop or quantifier over tracks or orders of colours, which neither
//!   executor runs (the checker refuses them: no case that checks has
//!   one; kept should that change): the case stops being compared.

use std::sync::Arc;

use mancala::engine::game::{Domain, Game};
use mancala::engine::reference::RefEngine;
use mancala::engine::{Engine, Halt, Move};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Plies compared at most.
const PLIES: usize = 200;
/// How long a case is compared at most. A file whose moves take millions
/// of steps to list (the work budget's own tests, mutated) takes the
/// tree-walking reference seconds a ply: compared for 200 plies, it would
/// be taken for a hang. A difference is found at its ply whatever the
/// machine; only how far a slow case is compared depends on its speed.
const TIME: std::time::Duration = std::time::Duration::from_secs(3);

/// How an answer of the two ends the comparison, if it does.
enum Verdict {
    /// Both gave an answer, the same one: go on.
    Same,
    /// Both halted alike, or one ran into what the comparison leaves aside:
    /// the case ends here.
    Stop,
}

/// Whether a halt is one the comparison leaves aside (see the module's
/// comment).
fn aside(h: &Halt) -> bool {
    let text = h.to_string();
    text.contains("steps in one call") || text.contains("over arrangements or tracks")
}

/// Whether two errors are placed alike: the same words (the same fault)
/// at the same place in the rule file, or told without one alike; two
/// faults, whatever their places.
fn placed_alike(a: &Halt, b: &Halt) -> bool {
    let place = |h: &Halt| match h {
        Halt::At(_, span) => Some(*span),
        _ => None,
    };
    a.to_string() != b.to_string() || place(a) == place(b)
}

/// A move of any declaration with values of its choices' kinds, not
/// asked whether it is legal: a site, track or player that exists, a
/// small number. (A value of no kind, a site past the board, is outside
/// what `apply` takes: a move must be one the engine listed or named.)
fn made_up(game: &Game, rng: &mut ChaCha8Rng) -> Move {
    let def = rng.gen_range(0..game.moves.len());
    let mut args = [0; 4];
    let mut order = 0;
    for (arg, param) in args.iter_mut().zip(&game.moves[def].params) {
        *arg = match param.domain {
            Domain::Players => rng.gen_range(0..game.players.len() as i32),
            Domain::Range(..) => rng.gen_range(-2..6),
            Domain::Set(_) | Domain::Walk { .. } => rng.gen_range(0..game.sites.len() as i32),
            Domain::Tracks => rng.gen_range(0..game.tracks.len().max(1) as i32),
            Domain::Arrangements(_) => {
                order = rng.gen_range(0..3);
                0
            }
        };
    }
    Move { def: def as u16, args, order }
}

/// Compares two answers: equal `Ok`s go on; two errors (or two `Illegal`s)
/// stop; a difference panics with `what` and both answers.
fn compare<T: PartialEq + std::fmt::Debug>(what: &str, new: &Result<T, Halt>, old: &Result<T, Halt>) -> Verdict {
    match (new, old) {
        (Ok(a), Ok(b)) if a == b => Verdict::Same,
        (Err(a), _) | (_, Err(a)) if aside(a) => Verdict::Stop,
        (Err(Halt::Illegal), Err(Halt::Illegal)) => Verdict::Stop,
        (Err(a), Err(b)) if !matches!(a, Halt::Illegal) && !matches!(b, Halt::Illegal) && placed_alike(a, b) => {
            Verdict::Stop
        }
        _ => panic!("the executors differ: {what}\n  compiled:  {new:?}\n  reference: {old:?}"),
    }
}

/// Plays case `i`'s game in both executors, from the same seed, comparing
/// at every ply the position, its hash, the moves (listed, or counted and
/// sampled when there are many), the outcome, and what making a move, a
/// move of no one's, a move drawn and made in one call and undoing give.
/// Panics at the first difference. Returns the plies compared.
pub fn agree(game: Arc<Game>, i: u64) -> u64 {
    let (mut new, mut old) = match (Engine::with_seed(game.clone(), i), RefEngine::with_seed(game.clone(), i)) {
        (Ok(new), Ok(old)) => (new, old),
        // Set up in one and not the other: the setup itself differs.
        (a, b) => {
            let (a, b) = (a.err(), b.err());
            assert!(
                a.is_some() && b.is_some() || a.as_ref().is_some_and(aside) || b.as_ref().is_some_and(aside),
                "the executors differ: setting up\n  compiled:  {a:?}\n  reference: {b:?}"
            );
            return 0;
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(i ^ 0xD1FF);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let started = std::time::Instant::now();
    for ply in 0..PLIES {
        if started.elapsed() > TIME {
            return ply as u64;
        }
        let at = |what: &str| format!("{what} at ply {ply}");
        assert_eq!(new.position(), old.position(), "the executors differ: {}", at("the position"));
        assert_eq!(new.hash(), old.hash(), "the executors differ: {}", at("the hash"));
        let outcome = (new.outcome(), old.outcome());
        if let Verdict::Stop = compare(&at("the outcome"), &outcome.0, &outcome.1) {
            return ply as u64;
        }
        // Asked again between the listings of a ply: a file whose `where`
        // takes millions of steps takes the reference seconds a listing in
        // a debug build, and a ply lists the moves four times.
        let late = || started.elapsed() > TIME;
        if late() {
            return ply as u64;
        }
        let counted = (new.count_moves(), old.count_moves());
        if let Verdict::Stop = compare(&at("counting the moves"), &counted.0, &counted.1) {
            return ply as u64;
        }
        if late() {
            return ply as u64;
        }
        let Ok(n) = counted.0 else { unreachable!("compared") };
        // A long list is sampled (as `cases::run` does); a short one listed.
        let (mut r1, mut r2) = (rng.clone(), rng.clone());
        let sampled = (new.sample_move(&mut r1), old.sample_move(&mut r2));
        if matches!(compare(&at("drawing a move"), &sampled.0, &sampled.1), Verdict::Stop) || late() {
            return ply as u64;
        }
        // The same draw made in one call (`play_random`, as MCTS playouts
        // and the random agent make their moves: a move found legal by its
        // trial is left made) on a copy, against the reference's drawn move
        // made; the reference then takes it back.
        if let Ok(Some(drawn)) = sampled.1 {
            let mut copy = new.clone();
            let played = copy.play_random(&mut rng.clone());
            let made = old.apply(drawn).map(|()| Some(drawn));
            let verdict = compare(&at("a move drawn and made in one call"), &played, &made);
            match (&played, &made) {
                (Ok(_), Ok(_)) => {
                    assert_eq!(copy.position(), old.position(), "the executors differ: {}", at("drawn and made"));
                    assert_eq!(copy.hash(), old.hash(), "the executors differ: {}", at("the hash drawn and made"));
                }
                // On an error nothing is made.
                (Err(_), _) => assert_eq!(copy.position(), new.position(), "{}", at("a move drawn and made in error")),
                (Ok(_), Err(_)) => {}
            }
            if made.is_ok() {
                assert!(old.undo(), "{}", at("undoing the move drawn and made"));
            }
            if matches!(verdict, Verdict::Stop) || late() {
                return ply as u64;
            }
        }
        let mv = if n > 1_000 {
            rng = r1;
            sampled.0.expect("compared")
        } else {
            let listed = (new.legal_moves(&mut a), old.legal_moves(&mut b));
            if let Verdict::Stop = compare(&at("listing the moves"), &listed.0, &listed.1) {
                return ply as u64;
            }
            assert_eq!(a, b, "the executors differ: {}", at("the moves listed"));
            a.choose(&mut rng).copied()
        };
        let Some(mv) = mv else { return ply as u64 };
        let name = new.move_name(mv);
        assert_eq!(name, old.move_name(mv), "the executors differ: {}", at("a move's name"));
        // Now and then a move of no one's, which both must make alike.
        if !game.moves.is_empty() && rng.gen_range(0..10) == 0 {
            let bogus = made_up(&game, &mut rng);
            let made = (new.apply(bogus), old.apply(bogus));
            if let Verdict::Stop = compare(&at(&format!("making {bogus:?}")), &made.0, &made.1) {
                return ply as u64;
            }
            if made.0.is_ok() {
                assert!(new.undo() && old.undo(), "{}", at("undoing"));
            }
        }
        let made = (new.apply(mv), old.apply(mv));
        if let Verdict::Stop = compare(&at(&format!("making `{name}`")), &made.0, &made.1) {
            return ply as u64;
        }
        let scores = (new.scores(), old.scores());
        if let Verdict::Stop = compare(&at("the scores"), &scores.0, &scores.1) {
            return ply as u64;
        }
    }
    PLIES as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(m: &str) -> Result<i32, Halt> {
        Err(Halt::Error(m.into()))
    }

    #[test]
    fn the_same_answers_go_on_and_two_halts_stop() {
        assert!(matches!(compare("x", &Ok(3), &Ok(3)), Verdict::Same));
        assert!(matches!(compare::<i32>("x", &Err(Halt::Illegal), &Err(Halt::Illegal)), Verdict::Stop));
        // Two errors agree whatever their words.
        assert!(matches!(compare("x", &err("one"), &err("another")), Verdict::Stop));
        // The work budget, or what the reference cannot run, on either side.
        let budget = err("the rules ran for more than 20000000 steps in one call: a loop");
        assert!(matches!(compare("x", &budget, &Ok(1)), Verdict::Stop));
        assert!(matches!(compare("x", &Ok(1), &budget), Verdict::Stop));
        let gap = err("a quantifier over arrangements or tracks");
        assert!(matches!(compare("x", &Ok(1), &gap), Verdict::Stop));
        let gap = err("a loop over arrangements or tracks");
        assert!(matches!(compare("x", &gap, &Ok(1)), Verdict::Stop));
    }

    #[test]
    #[should_panic(expected = "the executors differ: x")]
    fn two_answers_differ() {
        compare("x", &Ok(3), &Ok(4));
    }

    #[test]
    #[should_panic(expected = "the executors differ: x")]
    fn an_answer_and_an_error_differ() {
        compare("x", &Ok(3), &err("no"));
    }

    #[test]
    #[should_panic(expected = "the executors differ: x")]
    fn a_fault_placed_and_unplaced_differs() {
        let at = |start| Err::<i32, Halt>(Halt::At("no".into(), mancala::diagnostics::Span::new(0, start, start + 2)));
        // Two faults, each in its place, agree; one in two places does not.
        assert!(matches!(
            compare("x", &at(0), &Err(Halt::At("other".into(), mancala::diagnostics::Span::new(0, 4, 6)))),
            Verdict::Stop
        ));
        assert!(matches!(compare("x", &at(3), &at(3)), Verdict::Stop));
        compare("x", &at(0), &err("no"));
    }

    #[test]
    #[should_panic(expected = "the executors differ: x")]
    fn one_fault_at_two_places_differs() {
        let at = |start| Err::<i32, Halt>(Halt::At("no".into(), mancala::diagnostics::Span::new(0, start, start + 2)));
        compare("x", &at(0), &at(3));
    }

    #[test]
    #[should_panic(expected = "the executors differ: x")]
    fn illegal_and_an_error_differ() {
        compare("x", &Err(Halt::Illegal), &err("no"));
    }
}
