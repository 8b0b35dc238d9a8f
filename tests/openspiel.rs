//! Games recorded from OpenSpiel's own implementations (open_spiel 2.0.2,
//! `tools/openspiel/record.py`; the recordings and the rules each follows are
//! described in `tests/data/openspiel/README.md`) replayed move by move
//! through the rule files: at every ply the same legal moves, the same
//! board and stores after the move, the same player to move, the same end.

use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Move};
use serde_json::Value;

fn engine(rules: &str, variants: &[&str]) -> Engine {
    let cfg = Config { variants: variants.iter().map(|v| v.to_string()).collect(), settings: vec![] };
    Engine::new(Arc::new(compile_file(rules, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))).unwrap()
}

const PITS: [&str; 12] = ["s1", "s2", "s3", "s4", "s5", "s6", "n1", "n2", "n3", "n4", "n5", "n6"];

fn counts(e: &Engine, names: &[&str]) -> Vec<i64> {
    names.iter().map(|n| e.site_count(e.game.site_by_name(n).unwrap()) as i64).collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn legal_names(e: &mut Engine) -> Vec<String> {
    let mut moves: Vec<Move> = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    let mut names: Vec<String> = moves.iter().map(|&m| e.move_name(m)).collect();
    names.sort();
    names
}

/// Replays every recorded game. `last_board` says what the board after the
/// last move is compared with: OpenSpiel's, or (for Kalah) the stores with
/// OpenSpiel's scores and every pit empty, the rule file banking what is left.
fn replay(rules: &str, variants: &[&str], data: &str, sweeps_at_the_end: bool) -> usize {
    let text = std::fs::read_to_string(data).unwrap();
    let record: Value = serde_json::from_str(&text).unwrap();
    let games = record["games"].as_array().unwrap();
    let mut plies_total = 0;
    for g in games {
        let seed = g["seed"].as_i64().unwrap();
        let mut e = engine(rules, variants);
        let plies = g["plies"].as_array().unwrap();
        for (k, ply) in plies.iter().enumerate() {
            let at = format!("{data} seed {seed} ply {k}");
            let ply = ply.as_array().unwrap();
            let (player, name, legal) = (ply[0].as_i64().unwrap(), ply[2].as_str().unwrap(), &ply[3]);
            assert_eq!(e.to_move() as i64, player, "{at}: who moves");
            let mut want: Vec<String> = legal.as_array().unwrap().iter().map(|m| m.as_str().unwrap().into()).collect();
            want.sort();
            assert_eq!(legal_names(&mut e), want, "{at}: legal moves");
            let mv = e.find_move(name).unwrap().unwrap_or_else(|| panic!("{at}: `{name}` not found"));
            e.apply(mv).unwrap();
            let last = k + 1 == plies.len();
            if last && sweeps_at_the_end {
                assert_eq!(counts(&e, &["S", "N"]), ints(&g["scores"]), "{at}: final stores");
                assert!(counts(&e, &PITS).iter().all(|&c| c == 0), "{at}: pits left");
            } else {
                assert_eq!(counts(&e, &PITS), ints(&ply[4]), "{at}: board after `{name}`");
                assert_eq!(counts(&e, &["S", "N"]), ints(&ply[5]), "{at}: stores after `{name}`");
            }
            match ply[6].as_i64() {
                Some(next) => assert_eq!(e.to_move() as i64, next, "{at}: who moves next"),
                None => assert!(legal_names(&mut e).is_empty(), "{at}: the game should be over"),
            }
        }
        assert!(legal_names(&mut e).is_empty(), "{data} seed {seed}: the game should be over");
        // The winner: OpenSpiel's returns, +1 for a win, 0 for a draw.
        let o = e.outcome().unwrap().expect("over");
        let returns = ints(&g["returns"]);
        let winners: Vec<i64> = (0..2).filter(|&p| returns[p] >= returns[1 - p]).map(|p| p as i64).collect();
        assert_eq!(o.winners.iter().map(|&w| w as i64).collect::<Vec<_>>(), winners, "{data} seed {seed}: winner");
        plies_total += plies.len();
    }
    assert_eq!(games.len(), 200);
    plies_total
}

#[test]
fn openspiel_oware_games_replay_identically() {
    // OpenSpiel's Oware is the abapa of rules/oware.mancala as it is:
    // grand slams capture nothing, a repeated position ends the game, and
    // every ending gives each row's seeds to its owner.
    let plies = replay("rules/oware.mancala", &[], "tests/data/openspiel/oware.json", false);
    assert_eq!(plies, 20_775);
}

#[test]
fn openspiel_kalah_games_replay_identically() {
    // OpenSpiel's Kalah (its game `mancala`) is `standard`, but for the end:
    // it leaves each side's seeds where they are and counts them with the
    // store, where `standard` banks them; every move before the last matches
    // as it is, and the stores after the last match OpenSpiel's scores.
    let plies = replay("rules/kalah.mancala", &["standard"], "tests/data/openspiel/kalah.json", true);
    assert_eq!(plies, 8_768);
}
