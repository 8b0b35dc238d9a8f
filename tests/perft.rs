//! Perft counts: positions at each depth of the game tree of every shipped
//! game and variant, pinned as a snapshot, so that any change to move
//! generation or to a rule's effects shows. The first plies are checked by
//! hand below, and Kalah(6,4) `standard` against a hand-written engine.

use std::fmt::Write;
use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::Engine;
use mancala::perft::{divide, perft, perft_each};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[path = "../benches/native/kalah.rs"]
mod native;

fn engine(file: &str, variants: &[&str], settings: &[(&str, &str)]) -> Engine {
    let cfg = Config {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Engine::new(Arc::new(compile_file(file, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))).unwrap()
}

#[test]
fn first_plies_by_hand() {
    // Kalah(6,4): six pits to sow from. Of them only s3 (4 stones: s4, s5,
    // s6, S) ends in the store and moves again, from the five pits left;
    // after the other five North has six: 5 * 6 + 5.
    let k = engine("rules/kalah.mancala", &["standard"], &[]);
    assert_eq!((perft(&k, 1).unwrap(), perft(&k, 2).unwrap()), (6, 35));
    let split = divide(&k, 2).unwrap();
    assert_eq!(split.iter().find(|(m, _)| m == "s3"), Some(&("s3".to_string(), 5)));
    // Cups: the cups start empty, so only the reserve moves r1..r4; the same
    // for North. After r4 (one in each of s1..s4), each of North's r1..r4
    // ends alone in n1..n4 and captures s4, s3, s2 or s1: South then has r1..r4,
    // and s4 (which sows into the store) unless s4 was the one captured.
    let c = engine("rules/cups.mancala", &[], &[]);
    assert_eq!((perft(&c, 1).unwrap(), perft(&c, 2).unwrap()), (4, 16));
    assert_eq!(divide(&c, 3).unwrap().last(), Some(&("r4".to_string(), 4 + 5 + 5 + 5)));
    // Spectral Reapers, 3 seats: a placement is a pit for the three and an
    // unordered pair of the other five for the fours: 6 * C(5,2) = 60; the
    // next player has as many. With 6 seats: 12 * C(11,2) = 660.
    let s = engine("rules/spectral-reapers.mancala", &[], &[]);
    assert_eq!((perft(&s, 1).unwrap(), perft(&s, 2).unwrap()), (60, 3600));
    assert_eq!(perft(&engine("rules/spectral-reapers.mancala", &[], &[("seats", "6")]), 1).unwrap(), 660);
    // Tea Party: Cream sets a cup or a saucer on one of the four low places
    // (8); Sugar drops 1, 2 or 3 cubes into the one open container (x3);
    // Cream then has the three other low places, cup or saucer, and the one
    // piece that fits on what was set (a saucer on a cup, a cup on a saucer): 7.
    let t = engine("rules/tea-party.mancala", &[], &[]);
    assert_eq!((perft(&t, 1).unwrap(), perft(&t, 2).unwrap(), perft(&t, 3).unwrap()), (8, 24, 8 * 3 * 7));
}

#[test]
fn kalah_agrees_with_a_hand_written_engine() {
    let k = engine("rules/kalah.mancala", &["standard"], &[]);
    let native = native::Native::new();
    for depth in 1..=7 {
        assert_eq!(perft(&k, depth).unwrap(), native.perft(depth), "depth {depth}");
    }
}

/// A rule file, its variants, its settings and the depth to count to.
type Case = (&'static str, &'static [&'static str], &'static [(&'static str, &'static str)], usize);

#[test]
fn perft_of_every_shipped_game() {
    // Each game from its start, and from the position after a seeded random
    // opening of 16 plies (past Tea Party's setting of the table, and
    // Spectral Reapers' placement), to the depth given.
    let games: &[Case] = &[
        ("rules/kalah.mancala", &[], &[], 5),
        ("rules/kalah.mancala", &["standard"], &[], 6),
        ("rules/kalah.mancala", &["empty-capture"], &[], 6),
        ("rules/kalah.mancala", &["standard"], &[("pits", "4"), ("stones", "3")], 7),
        ("rules/cups.mancala", &[], &[], 7),
        ("rules/cups.mancala", &[], &[("cups", "10")], 5),
        ("rules/spectral-reapers.mancala", &[], &[], 2),
        ("rules/spectral-reapers.mancala", &[], &[("seats", "2")], 3),
        ("rules/spectral-reapers.mancala", &[], &[("seats", "6")], 1),
        ("rules/tea-party.mancala", &[], &[], 5),
        ("rules/tea-party.mancala", &["whistle-stop"], &[], 5),
        ("rules/tea-party.mancala", &["pinky-extension"], &[], 5),
        ("rules/tea-party.mancala", &["tea-for-two-couples"], &[], 5),
        ("rules/tea-party.mancala", &["spotted-sugar-cubes"], &[], 5),
    ];
    let mut out = String::new();
    for &(file, variants, settings, depth) in games {
        let mut e = engine(file, variants, settings);
        let counts = |e: &Engine, depth| -> String {
            let c: Vec<String> =
                perft_each(e, depth, &mut |_| {}).unwrap().iter().map(|d| d.positions.to_string()).collect();
            c.join(" ")
        };
        let from_start = counts(&e, depth);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..16 {
            match e.sample_move(&mut rng).unwrap() {
                Some(mv) => e.apply(mv).unwrap(),
                None => break,
            }
        }
        let later = counts(&e, depth.min(4));
        let mut name = file.trim_start_matches("rules/").trim_end_matches(".mancala").to_string();
        for v in variants {
            let _ = write!(name, " --variant {v}");
        }
        for (k, v) in settings {
            let _ = write!(name, " --set {k}={v}");
        }
        let _ = writeln!(out, "{name}\n  from the start: {from_start}\n  after 16 plies: {later}");
    }
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("perft_every_shipped_game", out);
    });
}

#[test]
fn the_command_line_refuses_a_depth_of_zero() {
    use clap::Parser;
    use mancala::cli::Cli;
    let parse = |d: &str| Cli::try_parse_from(["mancala", "perft", "rules/kalah.mancala", "--depth", d]);
    assert!(parse("0").is_err());
    assert!(parse("-1").is_err());
    assert!(parse("3").is_ok());
}
