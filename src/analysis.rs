//! Self-play statistics: many seeded games between agents, played across
//! the machine's cores, summarised per seat with 95% confidence intervals.

use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::ai::{AgentSpec, choose};
use crate::engine::Engine;
use crate::engine::game::Game;

/// How one game ended.
#[derive(Debug, Clone)]
pub struct GameResult {
    pub winners: Vec<u8>,
    pub scores: Vec<i64>,
    pub plies: usize,
    /// False when the game hit the limit of plies before it ended.
    pub finished: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SeatStats {
    pub seat: String,
    pub agent: String,
    pub wins: usize,
    /// Draws and shared wins.
    pub shared: usize,
    pub losses: usize,
    pub win_rate: f64,
    /// 95% Wilson interval of the win rate.
    pub win_rate_low: f64,
    pub win_rate_high: f64,
    pub mean_score: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub game: String,
    pub games: usize,
    pub seed: u64,
    /// Plies played at random at the start of each game.
    pub opening: usize,
    pub seats: Vec<SeatStats>,
    pub mean_plies: f64,
    pub unfinished: usize,
    /// Stopped by Ctrl-C: `games` of `games_asked` were played.
    pub interrupted: bool,
    pub games_asked: usize,
}

/// The stack of each thread that plays a match's games.
const MATCH_STACK: usize = 64 << 20;

/// How games are played: a limit of plies, and how many plies open the
/// game at random (drawn from the seed), so that agents that search
/// without chance do not play the same game every time.
#[derive(Debug, Clone, Copy)]
pub struct Play {
    pub max_plies: usize,
    pub opening: usize,
}

/// Plays one game from `seed` between `agents` (one per seat).
pub fn play_one(game: &Arc<Game>, agents: &[AgentSpec], seed: u64, play: Play) -> Result<GameResult, String> {
    let e = Engine::with_seed(game.clone(), seed).map_err(|h| h.to_string())?;
    play_game(e, agents, seed, play)
}

/// Mixed into a game's seed for its agents' generator.
const AGENTS_SEED: u64 = 0x5eed_0fa9_e475;

/// Plays the game `e` begins (from `seed`) between `agents`.
fn play_game(mut e: Engine, agents: &[AgentSpec], seed: u64, play: Play) -> Result<GameResult, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ AGENTS_SEED);
    let mut plies = 0;
    while plies < play.max_plies {
        let seat = e.to_move() as usize;
        let mut spec = agents[seat % agents.len()];
        if plies < play.opening {
            spec = AgentSpec { kind: crate::ai::Kind::Random, budget: Default::default() };
        }
        if crate::ai::interrupted() {
            return Err("interrupted".into());
        }
        // A random move where the rules draw no numbers is the move `choose`
        // would draw, drawn and made in one call (a move that must be tried
        // is made by its trial).
        if matches!(spec.kind, crate::ai::Kind::Random) && !e.game.chance {
            match e.play_random(&mut rng).map_err(|h| h.to_string())? {
                Some(_) => plies += 1,
                None => break,
            }
            continue;
        }
        match choose(spec, &mut e, &mut rng).map_err(|h| h.to_string())? {
            Some(c) => e.apply(c.mv).map_err(|h| h.to_string())?,
            None => break,
        }
        plies += 1;
    }
    let outcome = e.outcome().map_err(|h| h.to_string())?;
    let finished = outcome.is_some();
    let (scores, winners) = match outcome {
        Some(o) => (o.scores, o.winners),
        None => (e.scores().map_err(|h| h.to_string())?, vec![]),
    };
    Ok(GameResult { winners, scores, plies, finished })
}

/// Plays `games` games (game `i` from seed `seed + i`) across the cores;
/// `tick` is called as each ends.
pub fn play_match(
    game: Arc<Game>,
    agents: &[AgentSpec],
    games: usize,
    seed: u64,
    play: Play,
    tick: &(dyn Fn() + Sync),
) -> Result<Report, String> {
    let np = game.players.len();
    if agents.is_empty() || (agents.len() != 1 && agents.len() != np) {
        return Err(format!("give one agent for every seat ({np}), or one for all"));
    }
    // The rules compiled once (with the first game's seed, whose error,
    // if its setup meets one, is the match's): each game is a new game of
    // this engine's. Compiling a large rule file can cost a hundred times a
    // random game of it (98% of a match of random agents, made each time).
    let rules = Engine::with_seed(game.clone(), seed).map_err(|h| h.to_string())?;
    // After Ctrl-C no game starts, and one that was being played when it
    // came is left out (its agents stopped thinking): the report is of the
    // games finished before.
    let run = || -> Vec<Option<Result<GameResult, String>>> {
        (0..games as u64)
            .into_par_iter()
            .map(|i| {
                if crate::ai::interrupted() {
                    return None;
                }
                let seed = seed.wrapping_add(i);
                let r = rules.new_game(seed).map_err(|h| h.to_string()).and_then(|e| play_game(e, agents, seed, play));
                tick();
                (!crate::ai::interrupted()).then_some(r)
            })
            .collect()
    };
    // Threads with room for what hooks do (values nested deep are dropped
    // by recursion); the stack is only touched as far as it is used.
    let results = match rayon::ThreadPoolBuilder::new().stack_size(MATCH_STACK).build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    };
    let interrupted = results.iter().any(|r| r.is_none());
    let results: Vec<GameResult> = results.into_iter().flatten().collect::<Result<_, _>>()?;
    let n = results.len().max(1) as f64;
    let seats = (0..np)
        .map(|p| {
            let wins = results.iter().filter(|r| r.winners == [p as u8]).count();
            let shared = results.iter().filter(|r| r.winners.len() > 1 && r.winners.contains(&(p as u8))).count();
            // A game cut at the limit of plies is no seat's loss.
            let losses = results.iter().filter(|r| r.finished && !r.winners.contains(&(p as u8))).count();
            let (low, high) = wilson(wins, results.len());
            SeatStats {
                seat: game.players[p].clone(),
                agent: agents[p % agents.len()].to_string(),
                wins,
                shared,
                losses,
                win_rate: wins as f64 / n,
                win_rate_low: low,
                win_rate_high: high,
                mean_score: results.iter().map(|r| r.scores[p] as f64).sum::<f64>() / n,
            }
        })
        .collect();
    Ok(Report {
        game: game.name.clone(),
        games: results.len(),
        seed,
        opening: play.opening,
        seats,
        mean_plies: results.iter().map(|r| r.plies as f64).sum::<f64>() / n,
        unfinished: results.iter().filter(|r| !r.finished).count(),
        interrupted,
        games_asked: games,
    })
}

/// The 95% Wilson score interval of a proportion `k` of `n`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

impl Report {
    /// The report as a table.
    pub fn table(&self) -> String {
        let mut s = format!("{}: {} games from seed {}", self.game, self.games, self.seed);
        if self.interrupted {
            s.push_str(&format!(" (stopped by Ctrl-C: {} of {} played)", self.games, self.games_asked));
        }
        if self.opening > 0 {
            s.push_str(&format!(", the first {} plies at random", self.opening));
        }
        s.push('\n');
        s.push_str(&format!(
            "{:<10} {:<16} {:>6} {:>7} {:>7}  {:<24} {:>10}\n",
            "seat", "agent", "wins", "shared", "losses", "win rate (95% CI)", "mean score"
        ));
        for seat in &self.seats {
            s.push_str(&format!(
                "{:<10} {:<16} {:>6} {:>7} {:>7}  {:<24} {:>10.2}\n",
                seat.seat,
                seat.agent,
                seat.wins,
                seat.shared,
                seat.losses,
                format!(
                    "{:.1}% ({:.1}-{:.1}%)",
                    100.0 * seat.win_rate,
                    100.0 * seat.win_rate_low,
                    100.0 * seat.win_rate_high
                ),
                seat.mean_score
            ));
        }
        s.push_str(&format!("mean length: {:.1} plies", self.mean_plies));
        if self.unfinished > 0 {
            s.push_str(&format!("; {} games cut at the limit of plies", self.unfinished));
        }
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::Kind;
    use crate::compile::{Config, compile_file};

    /// A random agent's move in rules that draw no numbers is drawn and made
    /// in one call (`Engine::play_random`): the game `choose` then `apply`
    /// play, move for move, in rules whose moves must be tried and whose
    /// draws are often refused by the trial; games played to their end, and
    /// stopped at a most of plies.
    #[test]
    fn a_random_agent_plays_as_chosen_then_made() {
        let cfg = Config { variants: vec![], settings: vec![("k".into(), "4".into())] };
        let g = Arc::new(compile_file("tests/engine/where-then-trial.mancala", &cfg).unwrap());
        assert!(!g.chance);
        let spec = AgentSpec { kind: Kind::Random, budget: Default::default() };
        let mut lengths = Vec::new();
        for (seed, most) in (0..20).flat_map(|seed| [(seed, 300), (seed, 7)]) {
            let play = Play { max_plies: most, opening: 0 };
            let played = play_one(&g, &[spec], seed, play).unwrap();
            let mut e = Engine::with_seed(g.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ AGENTS_SEED);
            let mut plies = 0;
            while plies < play.max_plies {
                let Some(c) = choose(spec, &mut e, &mut rng).unwrap() else { break };
                e.apply(c.mv).unwrap();
                plies += 1;
            }
            assert_eq!(played.plies, plies, "seed {seed}, at most {most}: plies");
            assert_eq!(played.scores, e.scores().unwrap(), "seed {seed}, at most {most}: scores");
            assert_eq!(played.finished, e.outcome().unwrap().is_some(), "seed {seed}, at most {most}: ended");
            lengths.push(plies);
        }
        assert!(lengths.iter().any(|&n| n != lengths[0]), "the seeds play one game: {lengths:?}");
    }
}
