//! The command line: the subcommands and their flags (clap), run to an
//! exit code. `repl` plays (interactive or from a pipe), `search` runs the
//! analyses (solve, solitaire, perft, match), `show` describes a rule file.

mod repl;
mod search;
mod show;

pub use repl::scripted;
pub use show::describe;

use repl::interactive;
use search::{perft, solitaire, solve};

use std::io::IsTerminal;

use clap::{Args, Parser, Subcommand};

use crate::compile::{Config, check_file, compile_file};
use crate::record::Record;
use crate::session::{Session, Setup};

#[derive(Parser, Debug)]
#[command(name = "mancala", version, about = "A rules language for mancala games, and its interpreter")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check rule files, with their defaults and every variant, and explain every mistake.
    Check {
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Play a rule file in a REPL; reads a script of commands when stdin is not a terminal.
    Play {
        /// The rule file (not needed with --load).
        file: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Seed for everything random (the `random` command, chance in the rules).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Continue a game saved with `save`.
        #[arg(long, value_name = "RECORD")]
        load: Option<String>,
    },
    /// Solve a two-player game without chance exactly: its value, best move and principal variation.
    Solve {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Solve this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// Most memory for the table of positions (512M, 2G; default: half the machine's).
        /// A smaller table costs time, never exactness.
        #[arg(long, value_name = "SIZE", value_parser = crate::ai::table::parse_bytes)]
        memory: Option<usize>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Solitaire: the fewest moves from a position to a goal, every move the
    /// solver's choice (forced passes are not counted), or a proof that the
    /// goal cannot be reached.
    Solitaire {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Start from this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// The counts to reach, as assignments (`s=3,1,0 s-reserve=0`); sites not named are free.
        #[arg(long, value_name = "ASSIGNMENTS")]
        goal: String,
        /// Give up after reaching this many distinct positions.
        #[arg(long, default_value_t = 50_000_000)]
        max_positions: usize,
        /// Give up after looking this many moves ahead.
        #[arg(long, default_value_t = 1_000)]
        max_moves: usize,
        #[arg(long)]
        json: bool,
    },
    /// Play many seeded games between agents and report how each seat fares.
    Match {
        file: String,
        /// One agent per seat, or one for all: random, greedy, alphabeta[:BUDGET], mcts[:BUDGET]
        /// (a budget is a time, 50ms, or a number of nodes or playouts).
        #[arg(long, value_delimiter = ',', required = true)]
        agents: Vec<crate::ai::AgentSpec>,
        #[arg(long, default_value_t = 100)]
        games: usize,
        #[command(flatten)]
        choice: Choice,
        /// Game i is played from seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games longer than this are cut and counted unfinished.
        #[arg(long, default_value_t = 10_000)]
        max_plies: usize,
        /// Play the first N plies of each game at random (from the game's seed),
        /// so that agents that search without chance vary their games.
        #[arg(long, default_value_t = 0)]
        opening: usize,
        #[arg(long)]
        json: bool,
    },
    /// Count the positions at each depth of the game tree (every legal move of every
    /// ply; a move that earns another turn is one ply), with positions per second.
    Perft {
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Count to this many plies from the position (1 or more).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
        depth: u16,
        /// Start from this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// Seed for chance in the rules (the counts of rules with chance depend on it).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Also give the count at the full depth below each legal move.
        #[arg(long)]
        divide: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show what a rule file compiles to: board, tracks, relations, phases, moves, options.
    Show {
        file: String,
        #[command(flatten)]
        choice: Choice,
    },
}

#[derive(Args, Debug, Clone, Default)]
pub struct Choice {
    /// A named variant of the rule file (may be given more than once).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Set an option: --set NAME=VALUE (may be given more than once).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let color = std::io::stderr().is_terminal();
    match cli.command {
        Command::Check { files } => {
            let mut code = 0;
            for f in &files {
                match check_file(f) {
                    Ok(g) => {
                        let variants = if g.variants.is_empty() {
                            String::new()
                        } else {
                            format!(
                                ", variants {}",
                                g.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
                            )
                        };
                        println!(
                            "{f}: ok ({}: {} players, {} sites{variants})",
                            g.name,
                            g.players.len(),
                            g.sites.len()
                        );
                    }
                    Err(fail) => {
                        eprint!("{}", fail.render(color));
                        let n = fail.diagnostics.len();
                        eprintln!("{f}: {n} error{}", if n == 1 { "" } else { "s" });
                        code = 1;
                    }
                }
            }
            code
        }
        Command::Solve { file, choice, position, memory, json } => solve(file, choice, position, (memory, json), color),
        Command::Perft { file, choice, depth, position, seed, divide, json } => {
            perft(file, choice, (position, seed), depth as usize, (divide, json), color)
        }
        Command::Solitaire { file, choice, position, goal, max_positions, max_moves, json } => {
            solitaire(file, choice, position, &goal, (max_positions, max_moves), json, color)
        }
        Command::Match { file, agents, games, choice, seed, max_plies, opening, json } => {
            let game = match compile_file(&file, &Config { variants: choice.variants, settings: choice.settings }) {
                Ok(g) => std::sync::Arc::new(g),
                Err(fail) => {
                    eprint!("{}", fail.render(color));
                    return 1;
                }
            };
            let bar = indicatif::ProgressBar::new(games as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (about {eta} left)")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            let r = crate::analysis::play_match(
                game,
                &agents,
                games,
                seed,
                crate::analysis::Play { max_plies, opening },
                &|| bar.inc(1),
            );
            bar.finish_and_clear();
            match r {
                Ok(report) if json => {
                    println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
                    0
                }
                Ok(report) => {
                    print!("{}", report.table());
                    0
                }
                Err(e) => {
                    eprintln!("{e}");
                    1
                }
            }
        }
        Command::Show { file, choice } => {
            match compile_file(&file, &Config { variants: choice.variants, settings: choice.settings }) {
                Ok(g) => {
                    print!("{}", describe(&g));
                    0
                }
                Err(fail) => {
                    eprint!("{}", fail.render(color));
                    1
                }
            }
        }
        Command::Play { file, choice, seed, load } => {
            let session = match (load, file) {
                (Some(path), _) => match std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {path}: {e}"))
                    .and_then(|t| Record::from_json(&t))
                    .map(|r| r.rules_beside(&path))
                    .and_then(|r| Session::from_record(&r))
                {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("{e}");
                        return 1;
                    }
                },
                (None, Some(rules)) => {
                    match Session::new(Setup { rules, variants: choice.variants, settings: choice.settings, seed }) {
                        Ok(s) => s,
                        Err(fail) => {
                            eprint!("{}", fail.render(color));
                            return 1;
                        }
                    }
                }
                (None, None) => {
                    eprintln!("`play` needs a rule file, or --load RECORD");
                    return 2;
                }
            };
            if std::io::stdin().is_terminal() {
                interactive(session)
            } else {
                scripted(session, std::io::stdin().lock(), &mut std::io::stdout())
            }
        }
    }
}
