//! Every game of the library (`rules/`), found by reading the folder, so a
//! new rule file is tested by being there:
//! - perft counts of its defaults and each variant, from the start and
//!   after a seeded opening, as a snapshot of its own (`library@NAME.snap`);
//! - a soak of seeded random games of each: counters on the board and
//!   removed stay as many as the setup put, no rule error, every game ends,
//!   undo restores each position, and each game has an outcome;
//! - its metadata: a family, a region and at least one source.
//!
//! (The four games the project began with keep their older, hand-listed
//! perft snapshot in tests/perft.rs.)

mod common;
use common::library;

use std::fmt::Write;
use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Move};
use mancala::perft::perft_each;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const SEEDS: &[&str] = &["kalah", "cups", "spectral-reapers", "tea-party"];

fn stem(file: &str) -> String {
    file.trim_start_matches("rules/").trim_end_matches(".mancala").to_string()
}

fn compile(file: &str, variants: &[String]) -> Arc<mancala::engine::game::Game> {
    let cfg = Config { variants: variants.to_vec(), settings: vec![] };
    Arc::new(compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

/// The defaults, then each variant alone.
fn configurations(file: &str) -> Vec<Vec<String>> {
    let g = compile(file, &[]);
    std::iter::once(vec![]).chain(g.variants.iter().map(|v| vec![v.name.clone()])).collect()
}

/// Depths counted until a depth has more than this many positions.
const PERFT_POSITIONS: u64 = 200_000;

#[test]
fn perft_of_every_game_of_the_library() {
    for file in library().iter().filter(|f| !SEEDS.contains(&stem(f).as_str())) {
        let mut out = String::new();
        for variants in configurations(file) {
            let mut e = Engine::with_seed(compile(file, &variants), 1).unwrap();
            let counts = |e: &Engine| -> String {
                let mut c = Vec::new();
                for depth in 1..=8 {
                    let row = perft_each(e, depth, &mut |_| {}).unwrap().pop().unwrap();
                    c.push(row.positions.to_string());
                    if row.positions > PERFT_POSITIONS || row.positions == 0 {
                        break;
                    }
                }
                c.join(" ")
            };
            let from_start = counts(&e);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            for _ in 0..16 {
                match e.sample_move(&mut rng).unwrap() {
                    Some(mv) => e.apply(mv).unwrap(),
                    None => break,
                }
            }
            let later = counts(&e);
            let name = match variants.first() {
                Some(v) => format!("--variant {v}"),
                None => "defaults".to_string(),
            };
            let _ = writeln!(out, "{name}\n  from the start: {from_start}\n  after 16 plies: {later}");
        }
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("library@{}", stem(file)), out);
        });
    }
}

/// Random games of every game and variant of the library, seeded, the moves
/// drawn then made, or drawn and made in one call: every counter kept, no
/// count below zero, a drawn move among those listed, an undo back to the
/// position before, an end to every game. CI runs this slice; a long
/// campaign is
/// `SOAK_GAMES=100000 cargo test --release --test library soak -- --nocapture`
/// (the games and variants side by side on every core; `SOAK_FILES=oware,wari`
/// soaks only those files).
#[test]
fn soak_every_game_of_the_library() {
    use rayon::prelude::*;
    let games: u64 = std::env::var("SOAK_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let only: Option<Vec<String>> = std::env::var("SOAK_FILES").ok().map(|v| v.split(',').map(String::from).collect());
    let runs: Vec<(String, Vec<String>)> = library()
        .into_iter()
        .filter(|f| only.as_ref().is_none_or(|o| o.contains(&stem(f))))
        .flat_map(|f| configurations(&f).into_iter().map(move |v| (f.clone(), v)))
        .collect();
    let mut report: Vec<String> = runs.par_iter().map(|(file, variants)| soak(file, variants, games)).collect();
    report.sort();
    eprintln!("{}", report.join("\n"));
}

fn soak(file: &str, variants: &[String], games: u64) -> String {
    let started = std::time::Instant::now();
    let game = compile(file, variants);
    let what = format!("{file} {variants:?}");
    let mut moves: Vec<Move> = Vec::new();
    let mut plies_total = 0u64;
    for seed in 0..games {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let total = e.total_counters() + e.removed();
        let mut plies = 0u64;
        // Odd seeds draw and make each move in one call (`play_random`, as
        // MCTS playouts and the random agent do), even ones draw it and then
        // make it.
        let in_one_call = seed % 2 == 1;
        loop {
            // Drawn as the random agent and MCTS draw (a move set too large
            // to list, such as Spectral Reapers' orders of colours, sampled);
            // now and then listed too when the list is short, and the draw
            // must be in it (listing tries every candidate: at every ply it
            // would be most of the soak's work).
            let listed = plies.is_multiple_of(11)
                && e.count_moves().unwrap_or_else(|h| panic!("{what} seed {seed} ply {plies}: {h}")) <= 64;
            if listed {
                e.legal_moves(&mut moves).unwrap_or_else(|h| panic!("{what} seed {seed} ply {plies}: {h}"));
            }
            let before = e.position().clone();
            let drawn = match in_one_call {
                true => e.play_random(&mut rng),
                false => e.sample_move(&mut rng),
            }
            .unwrap_or_else(|h| panic!("{what} seed {seed} ply {plies}: {h}"));
            if listed {
                assert_eq!(
                    moves.is_empty(),
                    drawn.is_none(),
                    "{what} seed {seed} ply {plies}: no move drawn from {moves:?}"
                );
                assert!(
                    drawn.is_none_or(|m| moves.contains(&m)),
                    "{what} seed {seed} ply {plies}: {drawn:?} not legal"
                );
            }
            let Some(mv) = drawn else { break };
            if !in_one_call {
                e.apply(mv).unwrap_or_else(|h| panic!("{what} seed {seed} ply {plies}: {h}"));
            }
            assert_eq!(e.total_counters() + e.removed(), total, "{what} seed {seed} ply {plies}: counters");
            assert!(e.position().counts.iter().all(|&c| c >= 0), "{what} seed {seed}: a negative count");
            if plies.is_multiple_of(11) {
                assert!(e.undo());
                assert_eq!(e.position(), &before, "{what} seed {seed} ply {plies}: undo");
                e.apply(mv).unwrap();
            }
            plies += 1;
            assert!(plies < 20_000, "{what} seed {seed}: no end after {plies} plies");
        }
        let o = e.outcome().unwrap().expect("no legal move means the game is over");
        // Nobody wins only a game of one player, lost.
        assert!(!o.winners.is_empty() || game.players.len() == 1, "{what} seed {seed}: nobody wins and nobody draws");
        plies_total += plies;
    }
    assert!(plies_total > 0, "{what}: no move was ever made");
    let line = format!("{what}: {games} games, {plies_total} plies, {:.1?}", started.elapsed());
    if games > 1000 {
        // A long campaign says what it has done as it goes.
        eprintln!("{line}");
    }
    line
}

#[test]
fn every_game_says_what_it_is_and_where_it_comes_from() {
    for file in library() {
        let g = compile(&file, &[]);
        assert!(g.about.family.is_some(), "{file} has no `family`");
        assert!(g.about.region.is_some(), "{file} has no `region`");
        assert!(!g.about.sources.is_empty(), "{file} names no `source`");
    }
}
