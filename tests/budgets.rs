//! Agents keep their budgets: a count of positions is the most positions
//! the search makes, and a time is kept within a playout too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mancala::ai::{AgentSpec, choose};
use mancala::compile::{Config, compile_file};
use mancala::engine::Engine;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn engine(file: &str, variants: &[&str], settings: &[(&str, &str)]) -> Engine {
    let cfg = Config {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Engine::new(Arc::new(compile_file(file, &cfg).unwrap())).unwrap()
}

/// The positions an alpha-beta choice says it searched.
fn nodes(info: &str) -> u64 {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| w.starts_with("nodes")).expect("a count of nodes");
    words[at - 1].parse().unwrap()
}

#[test]
fn an_alpha_beta_budget_of_positions_is_kept() {
    // Spectral Reapers, three seats: many moves a position. Past the
    // placing phase, so that there is something to search.
    let mut e = engine("rules/spectral-reapers.mancala", &[], &[("seats", "2")]);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..4 {
        let mv = e.sample_move(&mut rng).unwrap().unwrap();
        e.apply(mv).unwrap();
    }
    for budget in [300u64, 1000] {
        let spec: AgentSpec = format!("alphabeta:{budget}").parse().unwrap();
        let c = choose(spec, &mut e, &mut rng).unwrap().unwrap();
        // The count is checked at every position; one node's ordering (64
        // moves at most) may finish past it.
        assert!(nodes(&c.info) <= budget + 65, "alphabeta:{budget} searched {}", c.info);
    }
}

#[test]
fn an_mcts_time_budget_is_kept_when_a_playout_is_long() {
    // Kalah by the text's rules with four million stones a pit: each
    // sowing laps the board hundreds of thousands of times, so a single
    // playout once outlasted the budget many times over.
    let mut e = engine("rules/kalah.mancala", &[], &[]);
    let mut pos = e.position().clone();
    for (i, c) in pos.counts.iter_mut().enumerate() {
        if !e.game.sites[i].name.chars().all(|c| c.is_ascii_uppercase()) {
            *c = 4_000_000;
        }
    }
    e.set_position(pos).unwrap();
    let spec: AgentSpec = "mcts:300ms".parse().unwrap();
    let start = Instant::now();
    let c = choose(spec, &mut e, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    assert!(c.is_some());
    // A generous bound (this machine may be busy): the budget and a few plies.
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}
