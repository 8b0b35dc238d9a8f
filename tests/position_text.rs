//! Position text round-trips: printing a position and parsing the text back
//! onto any other position gives the same counts, turn, phase and state
//! (hidden state is left out of the text, and so out of the comparison).

use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Position};
use mancala::position_text::{parse, print};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A rule file, its variants and its option settings.
type Choice = (&'static str, &'static [&'static str], &'static [(&'static str, &'static str)]);

/// Every shipped game, with variants.
const GAMES: &[Choice] = &[
    ("rules/kalah.mancala", &[], &[]),
    ("rules/kalah.mancala", &["standard"], &[("pits", "3")]),
    ("rules/cups.mancala", &[], &[("cups", "10")]),
    ("rules/spectral-reapers.mancala", &[], &[("seats", "4")]),
    ("rules/tea-party.mancala", &[], &[]),
    ("rules/tea-party.mancala", &["tea-for-two-couples", "spotted-sugar-cubes"], &[]),
    // Played in rounds: the rounds finished and who began this one.
    ("rules/pallanguli.mancala", &["hanson"], &[]),
    ("rules/congkak.mancala", &["skeat"], &[]),
];

/// The parts of a position the text carries: counts, visible state, turn,
/// phase, rounds finished and who began this one.
fn visible(g: &mancala::engine::game::Game, p: &Position) -> String {
    let vars: Vec<String> = g
        .state
        .iter()
        .filter(|v| !v.hidden)
        .flat_map(|v| {
            let n = if v.per_site { g.sites.len() } else { 1 };
            (0..n).map(move |i| format!("{}:{:?}", v.name, p.vars[v.offset + i]))
        })
        .collect();
    format!("{:?} {vars:?} {} {} {} {}", p.counts, p.turn.to_move, p.turn.phase, p.turn.round, p.turn.starter)
}

#[test]
fn printing_and_parsing_give_back_the_position() {
    for (file, variants, settings) in GAMES {
        let config = Config {
            variants: variants.iter().map(|s| s.to_string()).collect(),
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let game = Arc::new(compile_file(file, &config).unwrap_or_else(|f| panic!("{}", f.render(false))));
        let start = Engine::new(game.clone()).unwrap().position().clone();
        let mut checked = 0;
        let mut rounds_met = 0;
        for seed in 0..8 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut e = Engine::with_seed(game.clone(), seed).unwrap();
            while let Some(mv) = e.sample_move(&mut rng).unwrap() {
                let text = print(&game, e.position());
                let back = parse(&game, start.clone(), &text).unwrap_or_else(|m| panic!("{file}: `{text}`: {m}"));
                assert_eq!(visible(&game, &back), visible(&game, e.position()), "{file}: `{text}`");
                // And the text of what was parsed is the same text.
                assert_eq!(print(&game, &back), text);
                checked += 1;
                rounds_met += (e.position().turn.round > 0) as usize;
                e.apply(mv).unwrap();
            }
        }
        assert!(checked > 50, "{file}: only {checked} positions");
        if !game.rounds.is_empty() {
            assert!(rounds_met > 0, "{file}: no game of the test finished a round");
        }
    }
}

/// A game played in rounds prints the rounds finished and who began this
/// one (which `rounds`, `starter` and a round's `start` read), and takes
/// them back; a game not played in rounds refuses them, and a value that
/// is not a number of rounds or a player is refused, nothing changed.
#[test]
fn rounds_and_their_starter_are_part_of_a_position() {
    let game = Arc::new(compile_file("rules/pallanguli.mancala", &Config::default()).unwrap());
    let start = Engine::new(game.clone()).unwrap().position().clone();
    assert!(print(&game, &start).ends_with("turn=south rounds=0 starter=south"), "{}", print(&game, &start));
    let set = parse(&game, start.clone(), "rounds=7 starter=north").unwrap();
    assert_eq!((set.turn.round, set.turn.starter), (7, 1));
    assert!(print(&game, &set).ends_with("rounds=7 starter=north"), "{}", print(&game, &set));
    for (text, says) in [
        ("rounds=-1", "`rounds` is how many rounds are finished, 0 to 65535, not `-1`"),
        ("rounds=seven", "not `seven`"),
        ("starter=nort", "no player `nort` (did you mean `north`?)"),
    ] {
        let err = parse(&game, set.clone(), text).unwrap_err();
        assert!(err.contains(says), "`{text}`: {err}");
    }
    let kalah = Arc::new(compile_file("rules/kalah.mancala", &Config::default()).unwrap());
    let start = Engine::new(kalah.clone()).unwrap().position().clone();
    assert!(!print(&kalah, &start).contains("rounds"), "{}", print(&kalah, &start));
    let err = parse(&kalah, start, "rounds=1").unwrap_err();
    assert_eq!(err, "`rounds` is kept by games played in rounds, and this one is not");
}

#[test]
fn a_dash_takes_a_state_value_away() {
    // Pallanguli keeps `resume`, one site, and `rubbish`, a condition per pit.
    let game = Arc::new(compile_file("rules/pallanguli.mancala", &Config::default()).unwrap());
    let start = Engine::new(game.clone()).unwrap().position().clone();
    let set = parse(&game, start.clone(), "resume=s3 rubbish(s1)=t").unwrap();
    assert!(print(&game, &set).contains("resume=s3"), "{}", print(&game, &set));
    let unset = parse(&game, set, "resume=- rubbish(s1)=-").unwrap();
    // As printed when never set: `resume` left out, `rubbish` of s1 a dash.
    assert_eq!(print(&game, &unset), print(&game, &start));
}
