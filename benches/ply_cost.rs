//! The work of a ply, counted rather than timed: `tools/instructions-a-ply`
//! runs this program under callgrind twice, with fewer and more playouts,
//! and divides the instructions between the two runs by the plies between
//! them (the start-up, compiling the rule file, cancels out). Counted
//! instructions hardly move from run to run or machine to machine, where
//! times move by a tenth and more: they show a change of a percent, and
//! where its work went (`callgrind_annotate` on the files it keeps).
//!
//! `cargo bench --bench ply_cost -- PLAYOUTS FILE [VARIANT | NAME=VALUE]...`
//! plays PLAYOUTS seeded random games of the rule file (each move drawn
//! with `sample_move`, then made; the games undone) and prints their
//! plies. With `PLAY=1` in the environment each move is drawn and made by
//! one call of `play_random`, as MCTS playouts make them and
//! `benches/playout.rs` times them (the same games); with `LIST=1` each
//! is drawn from the list of legal moves, as the Kalah pair of
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
    let how = match (std::env::var_os("LIST").is_some(), std::env::var_os("PLAY").is_some()) {
        (true, _) => How::List,
        (false, true) => How::Play,
        (false, false) => How::Sample,
    };
    match playouts(game, n, how) {
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

/// How a random game's moves are drawn and made.
#[derive(Clone, Copy)]
enum How {
    /// From the list of legal moves, then `apply`.
    List,
    /// By `sample_move`, then `apply`.
    Sample,
    /// By `play_random`.
    Play,
}

/// The plies of `n` seeded random games, each undone after its end.
fn playouts(game: Arc<mancala::engine::game::Game>, n: u64, how: How) -> Result<u64, String> {
    let mut e = Engine::with_seed(game, 7).map_err(|h| h.to_string())?;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut moves = Vec::new();
    let mut total = 0;
    for _ in 0..n {
        // A loop of each kind: the harness's own instructions, counted in
        // each ply's, are those of one way alone.
        let plies: u64 = match how {
            How::List => {
                let mut plies = 0;
                loop {
                    e.legal_moves(&mut moves).map_err(|h| h.to_string())?;
                    let mv = match moves.len() {
                        0 => break,
                        k => moves[rng.gen_range(0..k as u64) as usize],
                    };
                    e.apply(mv).map_err(|h| h.to_string())?;
                    plies += 1;
                }
                plies
            }
            How::Sample => {
                let mut plies = 0;
                while let Some(mv) = e.sample_move(&mut rng).map_err(|h| h.to_string())? {
                    e.apply(mv).map_err(|h| h.to_string())?;
                    plies += 1;
                }
                plies
            }
            How::Play => {
                let mut plies = 0;
                while e.play_random(&mut rng).map_err(|h| h.to_string())?.is_some() {
                    plies += 1;
                }
                plies
            }
        };
        for _ in 0..plies {
            e.undo();
        }
        total += plies;
    }
    Ok(total)
}
