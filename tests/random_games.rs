//! Thousands of seeded random games of every shipped rule file, variant and
//! option extreme: counters are conserved by every move, undo restores the
//! position exactly, and every game ends.

use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Move};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn config(variants: &[&str], settings: &[(&str, String)]) -> Config {
    Config {
        variants: variants.iter().map(|s| s.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
}

/// Plays `games` random games; returns the plies of the longest.
fn play_random(rules: &str, cfg: Config, games: u64, max_plies: usize) -> usize {
    let game = Arc::new(compile_file(rules, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))));
    let mut longest = 0;
    let mut total_plies = 0;
    let mut moves: Vec<Move> = Vec::new();
    for seed in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut e = Engine::new(game.clone()).unwrap();
        let total = e.total_counters();
        let mut plies = 0;
        loop {
            e.legal_moves(&mut moves).unwrap();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            let before = e.position().clone();
            e.apply(mv).unwrap();
            assert_eq!(
                e.total_counters(),
                total,
                "{rules} {cfg:?} seed {seed}: {} changed the number of counters",
                e.move_name(mv)
            );
            assert!(e.position().counts.iter().all(|&c| c >= 0), "negative count");
            if plies % 7 == 0 {
                assert!(e.undo());
                assert_eq!(e.position(), &before, "undo did not restore the position");
                e.apply(mv).unwrap();
            }
            plies += 1;
            assert!(plies < max_plies, "{rules} {cfg:?} seed {seed}: no end after {max_plies} plies");
        }
        let o = e.outcome().unwrap().expect("no legal moves means the game is over");
        assert!(!o.winners.is_empty());
        longest = longest.max(plies);
        total_plies += plies;
    }
    eprintln!("{rules} {cfg:?}: {games} games, {total_plies} plies, longest {longest}");
    // A random game that ended at once would mean the moves are not being made.
    assert!(total_plies >= games as usize, "{rules} {cfg:?}: games too short to be real");
    longest
}

#[test]
fn kalah_every_variant_and_option_extreme() {
    for variant in [&[][..], &["standard"], &["empty-capture"]] {
        for (pits, stones) in [(6, 4), (1, 1), (1, 6), (8, 1), (8, 6), (3, 3)] {
            let cfg = config(variant, &[("pits", pits.to_string()), ("stones", stones.to_string())]);
            play_random("rules/kalah.mancala", cfg, 120, 5_000);
        }
    }
}

#[test]
fn cups_every_size() {
    for cups in 3..=10 {
        let cfg = config(&[], &[("cups", cups.to_string())]);
        play_random("rules/cups.mancala", cfg, 100, 20_000);
    }
}

#[test]
fn same_seed_same_game() {
    let run = |seed: u64| {
        let game = Arc::new(compile_file("rules/kalah.mancala", &Config::default()).unwrap());
        let mut e = Engine::new(game).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = Vec::new();
        let mut names = Vec::new();
        loop {
            e.legal_moves(&mut moves).unwrap();
            if moves.is_empty() {
                break names;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            names.push(e.move_name(mv));
            e.apply(mv).unwrap();
        }
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42), run(43));
}

/// Spectral Reapers' moves come in orders of colours too many to list: games
/// are played by sampling, and checked the same way.
#[test]
fn spectral_reapers_every_player_count() {
    for seats in 2..=6 {
        let cfg = config(&[], &[("seats", seats.to_string())]);
        let game = Arc::new(compile_file("rules/spectral-reapers.mancala", &cfg).unwrap());
        let mut total_plies = 0;
        for seed in 0..40 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut e = Engine::new(game.clone()).unwrap();
            let total = e.total_counters();
            let mut plies = 0;
            while let Some(mv) = e.sample_move(&mut rng).unwrap() {
                let before = e.position().clone();
                e.apply(mv).unwrap();
                assert_eq!(e.total_counters(), total, "seats {seats} seed {seed}: beads not conserved");
                if plies % 5 == 0 {
                    assert!(e.undo());
                    assert_eq!(e.position(), &before);
                    e.apply(mv).unwrap();
                }
                plies += 1;
                assert!(plies < 20_000, "seats {seats} seed {seed}: no end");
            }
            // It ended the moment a player had one bead in play.
            let g = e.game.clone();
            let pits: Vec<u16> = (0..g.sites.len() as u16)
                .filter(|&s| g.sites[s as usize].kind == mancala::engine::game::SiteKind::Pit)
                .collect();
            let ones =
                (0..seats as u8).filter(|&p| pits.iter().map(|&s| e.colour_count(s, p)).sum::<i32>() == 1).count();
            assert!(ones >= 1, "seats {seats} seed {seed}: ended with no player down to one bead");
            total_plies += plies;
        }
        assert!(total_plies > 40 * seats * 10, "games too short to be real");
    }
}
