//! The work of a ply, counted rather than timed: `tools/instructions-a-ply`
//! runs this program under callgrind twice, with fewer and more playouts,
//! and divides the instructions between the two runs by the plies between
//! them (the start-up, compiling the rule file, cancels out). Counted
//! instructions hardly move from run to run or machine to machine, where
//! times move by a tenth and more: they show a change of a percent, and
//! where its work went (`callgrind_annotate` on the files it keeps).
//!
//! `cargo bench --bench ply_cost -- PLAYOUTS FILE [VARIANT | NAME=VALUE]...`
//! plays PLAYOUTS seeded random games of the rule file (each drawn with
//! `sample_move`, made, then undone, as `benches/playout.rs` times them)
//! and prints their plies. With `LIST=1` in the environment each move is
//! drawn from the list of legal moves instead, as the Kalah pair of
//! `benches/playout.rs` does. Without arguments (`cargo bench` runs every
//! bench) it says how to use it and does nothing.

use std::process::ExitCode;
use std::sync::Arc;

use mancala::compile::{Config, compile_file};
use mancala::engine::Engine;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const USAGE: &str = "usage: cargo bench --bench ply_cost -- PLAYOUTS FILE [VARIANT | NAME=VALUE]...";

fn main() -> ExitCode {
    // `cargo bench` hands every bench `--bench`.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [n, file, rest @ ..] = &args[..] else {
        eprintln!("{USAGE}");
        return ExitCode::SUCCESS;
    };
    let Ok(n) = n.parse::<u64>() else {
        eprintln!("not a number of playouts: {n}\n{USAGE}");
        return ExitCode::from(2);
    };
    let mut cfg = Config { variants: vec![], settings: vec![] };
    for x in rest {
        match x.split_once('=') {
            Some((k, v)) => cfg.settings.push((k.to_string(), v.to_string())),
            None => cfg.variants.push(x.clone()),
        }
    }
    let game = match compile_file(file, &cfg) {
        Ok(g) => Arc::new(g),
        Err(f) => {
            eprintln!("{}", f.render(false));
            return ExitCode::from(1);
        }
    };
    let list = std::env::var_os("LIST").is_some();
    match playouts(game, n, list) {
        Ok(plies) => {
            println!("{plies}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// The plies of `n` seeded random games, each undone after its end.
fn playouts(game: Arc<mancala::engine::game::Game>, n: u64, list: bool) -> Result<u64, String> {
    let mut e = Engine::with_seed(game, 7).map_err(|h| h.to_string())?;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut moves = Vec::new();
    let mut total = 0;
    for _ in 0..n {
        let mut plies = 0;
        loop {
            let mv = if list {
                e.legal_moves(&mut moves).map_err(|h| h.to_string())?;
                match moves.len() {
                    0 => None,
                    k => Some(moves[rng.gen_range(0..k as u64) as usize]),
                }
            } else {
                e.sample_move(&mut rng).map_err(|h| h.to_string())?
            };
            let Some(mv) = mv else { break };
            e.apply(mv).map_err(|h| h.to_string())?;
            plies += 1;
        }
        for _ in 0..plies {
            e.undo();
        }
        total += plies;
    }
    Ok(total)
}
