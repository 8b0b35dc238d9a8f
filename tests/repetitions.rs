//! `repetitions` counts how many times the position occurred before in the
//! game: the same counters, state, player to move and phase. The engine
//! keeps the positions' fingerprints in slots, each slot's positions chained
//! so that only they are compared; this checks it against the plain count
//! over the history, through seeded games with undos among the moves, and
//! with rounds that change the position after the `end`s asked about it.

use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn same(a: &Position, b: &Position) -> bool {
    a.counts == b.counts && a.vars == b.vars && a.turn.to_move == b.turn.to_move && a.turn.phase == b.turn.phase
}

#[test]
fn repetitions_agree_with_the_history_through_moves_and_undos() {
    // The score of `tests/engine/shuttle.mancala` is `repetitions`.
    let game = compile_file("tests/engine/shuttle.mancala", &Config::default())
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let game = Arc::new(game);
    let mut repeated = 0;
    for seed in 0..40 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut history: Vec<Position> = vec![e.position().clone()];
        for ply in 0..600 {
            // Asked at some plies only: the position the rules asked about
            // last is then changed by the round before it is saved.
            if rng.gen_bool(0.5) {
                let here = e.position().clone();
                let before = history[..history.len() - 1].iter().filter(|p| same(p, &here)).count();
                let told = e.scores().unwrap()[0];
                assert_eq!(told, before as i64, "seed {seed}, ply {ply}: repetitions");
                repeated += (before > 0) as u32;
            }
            // Now and then take back a few moves, which the count forgets.
            if history.len() > 4 && rng.gen_range(0..10) == 0 {
                for _ in 0..rng.gen_range(1..4) {
                    assert!(e.undo());
                    history.pop();
                }
                assert!(same(e.position(), history.last().unwrap()));
                continue;
            }
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            e.apply(mv).unwrap();
            history.push(e.position().clone());
        }
    }
    // The games must repeat positions often for this to test anything.
    assert!(repeated > 1000, "only {repeated} positions were repetitions");
}
