//! Random playouts: the interpreter against a hand-written Kalah, and every
//! shipped game and variant.
//!
//! `cargo bench --bench playout` runs it all; `cargo bench --bench playout -- kalah_6_4`
//! only the side-by-side pair. Each playout plays a seeded random game from the
//! start to its end; criterion's `thrpt` line is playouts per second on one core.
//!
//! The native engine (`benches/native/kalah.rs`) is Kalah(6,4) under `rules/kalah.mancala
//! --variant standard`, written plainly (a byte per hole, no allocation). It
//! lives here, never in `src/`: it is the yardstick, not part of the engine.
//! Before anything is timed, both play the same seeded games and must agree
//! on every game's final stores and length. Then the two are timed in turns
//! side by side (the line `kalah_6_4 in turns`: the ratio of native to
//! interpreted, the median of 400 turns), and by criterion one after the other.
//! Before each game is timed, its length is printed (`playout/NAME: N plies a
//! playout`, the mean of 200 seeded games): a playout's time over it is the
//! time of a ply, which compares long games with short ones.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mancala::compile::{Config, compile_file};
use mancala::engine::game::Game;
use mancala::engine::{Engine, Move};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "native/kalah.rs"]
mod native;
use native::Native;

fn compile(file: &str, variants: &[&str], settings: &[(&str, &str)]) -> Arc<Game> {
    let cfg = Config {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Arc::new(compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

/// One random game of the interpreted Kalah to its end, through the public
/// API (list the legal moves, pick one as the native engine does), then
/// every move undone: the stores and the plies.
fn interpreted_playout(e: &mut Engine, moves: &mut Vec<Move>, rng: &mut ChaCha8Rng) -> ([i32; 2], u32) {
    let mut plies = 0;
    loop {
        e.legal_moves(moves).unwrap();
        if moves.is_empty() {
            break;
        }
        e.apply(moves[rng.gen_range(0..moves.len() as u64) as usize]).unwrap();
        plies += 1;
    }
    let banks = [e.position().counts[6], e.position().counts[13]];
    for _ in 0..plies {
        e.undo();
    }
    (banks, plies)
}

fn kalah_side_by_side(c: &mut Criterion) {
    let game = compile("rules/kalah.mancala", &["standard"], &[("pits", "6"), ("stones", "4")]);
    let mut e = Engine::new(game).unwrap();
    let mut moves = Vec::new();
    // The two must play the same games before either is timed.
    for seed in 0..2_000 {
        let native = Native::playout(&mut ChaCha8Rng::seed_from_u64(seed));
        let (banks, plies) = interpreted_playout(&mut e, &mut moves, &mut ChaCha8Rng::seed_from_u64(seed));
        assert_eq!(
            ([banks[0] as u8, banks[1] as u8], plies),
            native,
            "seed {seed}: the interpreter and the native engine disagree"
        );
    }
    interleaved(&mut e, &mut moves);
    let mut group = c.benchmark_group("kalah_6_4");
    group.throughput(Throughput::Elements(1));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    group.bench_function("native", |b| b.iter(|| black_box(Native::playout(&mut rng))));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    group.bench_function("interpreted", |b| b.iter(|| black_box(interpreted_playout(&mut e, &mut moves, &mut rng))));
    group.finish();
}

/// The ratio measured in turns: native and interpreted playouts of the same
/// seeded games alternate in turns of 500, and each turn's native time is
/// divided by the interpreted time of the turn beside it; the median of 400
/// turns is printed, with its quartiles. Criterion times the two one after
/// the other, some seconds apart: on a shared machine whose speed drifts by
/// more than that from minute to minute, their ratio can move by as much as
/// a change being measured; turns side by side see the same machine.
fn interleaved(e: &mut Engine, moves: &mut Vec<Move>) {
    const TURNS: usize = 400;
    const PLAYOUTS: u64 = 500;
    let (mut native_rng, mut rng) = (ChaCha8Rng::seed_from_u64(1), ChaCha8Rng::seed_from_u64(1));
    let (mut native_time, mut time) = (Duration::ZERO, Duration::ZERO);
    let mut ratios = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        let start = Instant::now();
        for _ in 0..PLAYOUTS {
            black_box(Native::playout(&mut native_rng));
        }
        let native = start.elapsed();
        let start = Instant::now();
        for _ in 0..PLAYOUTS {
            black_box(interpreted_playout(e, moves, &mut rng));
        }
        let interpreted = start.elapsed();
        ratios.push(native.as_secs_f64() / interpreted.as_secs_f64());
        native_time += native;
        time += interpreted;
    }
    ratios.sort_by(f64::total_cmp);
    let per = |d: Duration| d.as_secs_f64() * 1e6 / (TURNS as u64 * PLAYOUTS) as f64;
    println!(
        "kalah_6_4 in turns: native {:.3} µs, interpreted {:.3} µs a playout; native / interpreted {:.3} \
         (median of {TURNS} turns of {PLAYOUTS} playouts each; quartiles {:.3} and {:.3})",
        per(native_time),
        per(time),
        ratios[TURNS / 2],
        ratios[TURNS / 4],
        ratios[3 * TURNS / 4]
    );
}

/// Every shipped game and variant: a random game from the start to its end
/// (moves drawn and made by `play_random`, as MCTS playouts make them: the
/// games `sample_move` then `apply` play), then undone. Every rule file of
/// `rules/` is found by reading the folder, with its defaults and each of
/// its variants (a variant that needs another is benchmarked with it, as
/// `check` does); the seed games also at the sizes the README quotes.
fn every_game(c: &mut Criterion) {
    let mut games: Vec<(String, Arc<Game>)> = vec![
        ("cups_4".into(), compile("rules/cups.mancala", &[], &[("cups", "4")])),
        ("cups_10".into(), compile("rules/cups.mancala", &[], &[("cups", "10")])),
        ("spectral-reapers_3".into(), compile("rules/spectral-reapers.mancala", &[], &[("seats", "3")])),
        ("spectral-reapers_6".into(), compile("rules/spectral-reapers.mancala", &[], &[("seats", "6")])),
    ];
    let mut files: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".mancala"))
        .collect();
    files.sort();
    for file in files {
        let stem = file.trim_start_matches("rules/").trim_end_matches(".mancala").to_string();
        let game = compile(&file, &[], &[]);
        for v in &game.variants {
            games.push((format!("{stem}_{}", v.name), compile(&file, &[&v.name], &[])));
        }
        games.push((stem, game));
    }
    games.sort_by(|a, b| a.0.cmp(&b.0));
    // The filter of `cargo bench --bench playout -- FILTER`, if any (the
    // value of a criterion option such as `--sample-size 10` is taken for
    // one too: the lengths of the games it does not match are then left out,
    // nothing else changes).
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut group = c.benchmark_group("playout");
    group.throughput(Throughput::Elements(1));
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for (name, game) in games {
        let mut e = Engine::with_seed(game, 7).unwrap();
        // How long the game's random games are, from seeds that never
        // change (criterion plays as many as time allows): a playout's
        // time over this is the time of a ply. Not for games filtered out.
        let id = format!("playout/{name}");
        if filter.as_ref().is_none_or(|f| id.contains(f.as_str())) {
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let plies: u64 = (0..LENGTH_GAMES).map(|_| random_game(&mut e, &mut rng)).sum();
            println!(
                "{id}: {:.1} plies a playout (mean of {LENGTH_GAMES} seeded games)",
                plies as f64 / LENGTH_GAMES as f64
            );
        }
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        group.bench_function(&name, |b| b.iter(|| black_box(random_game(&mut e, &mut rng))));
    }
    group.finish();
}

/// Seeded games a game's length is the mean of.
const LENGTH_GAMES: u64 = 200;

/// A random game from the start to its end, then undone: its plies.
fn random_game(e: &mut Engine, rng: &mut ChaCha8Rng) -> u64 {
    let mut plies = 0;
    while e.play_random(rng).unwrap().is_some() {
        plies += 1;
    }
    for _ in 0..plies {
        e.undo();
    }
    plies
}

criterion_group!(benches, kalah_side_by_side, every_game);
criterion_main!(benches);
