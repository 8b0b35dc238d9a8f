//! Exact solving of small Kalah boards, and the interpreter's hot path.
//!
//! `cargo bench --bench solve` runs them all; `cargo bench --bench solve -- kalah_4_4`
//! one. The larger boards of the issue (Kalah(5,4), Kalah(6,3)) take minutes
//! a solve; they are timed by `mancala solve`, which reports its own time.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mancala::compile::{Config, compile_file};
use mancala::engine::game::Game;
use mancala::engine::{Engine, Move};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn kalah(pits: u32, stones: u32) -> Arc<Game> {
    let cfg = Config {
        variants: vec!["standard".into()],
        settings: vec![("pits".into(), pits.to_string()), ("stones".into(), stones.to_string())],
    };
    Arc::new(compile_file("rules/kalah.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

fn solving(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10).measurement_time(Duration::from_secs(40)).warm_up_time(Duration::from_secs(1));
    for (pits, stones, value) in [(4, 4, 2), (5, 3, 6)] {
        let g = kalah(pits, stones);
        group.bench_function(format!("kalah_{pits}_{stones}_standard"), |b| {
            b.iter(|| {
                let e = Engine::new(g.clone()).unwrap();
                let sol = mancala::ai::solve::solve(&e, &mut |_| {}).unwrap();
                assert_eq!(sol.value, value);
                black_box(sol.nodes)
            })
        });
    }
    group.finish();
}

/// Random Kalah(6,4) games to the end: legal moves, apply, and all undone.
fn playouts(c: &mut Criterion) {
    let g = kalah(6, 4);
    let mut e = Engine::new(g).unwrap();
    let mut moves: Vec<Move> = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    c.bench_function("kalah_6_4_random_game_and_undo", |b| {
        b.iter(|| {
            let mut plies = 0;
            loop {
                e.legal_moves(&mut moves).unwrap();
                if moves.is_empty() {
                    break;
                }
                e.apply(moves[rng.gen_range(0..moves.len())]).unwrap();
                plies += 1;
            }
            for _ in 0..plies {
                e.undo();
            }
            black_box(plies)
        })
    });
}

criterion_group!(benches, solving, playouts);
criterion_main!(benches);
