//! The command line: the subcommands and their flags (clap), run to an
//! exit code. `repl` plays (interactive or from a pipe), `search` runs the
//! analyses (solve, solitaire, perft, match), `show` describes a rule file.

/// Prints to standard output; a reader that has gone (`| head -1`) ends the
/// program quietly, with exit code 0, as it ends `cat`.
macro_rules! say {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!($($t)*)) };
}
/// [`say!`] with a newline.
macro_rules! sayln {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*))) };
}
/// Prints to standard error, for messages and progress; a closed standard
/// error is ignored.
macro_rules! note {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = std::io::stderr().lock().write_fmt(format_args!($($t)*));
    }};
}
/// [`note!`] with a newline.
macro_rules! noteln {
    ($($t:tt)*) => { note!("{}\n", format_args!($($t)*)) };
}

mod repl;
mod search;
mod show;

/// The exit codes, the same for every command (the README lists them).
pub mod exit {
    /// Done: the files check, the game was played, the answer is printed
    /// (a goal proved unreachable is an answer).
    pub const OK: i32 = 0;
    /// The input was wrong: a rule file with mistakes, a file that cannot
    /// be read, a record that does not fit, a command refused in a piped
    /// `play`, or a rule that went wrong while playing.
    pub const FAILED: i32 = 1;
    /// The command line was wrong: an unknown flag, a bad value, a missing
    /// argument, or flags that do not go together.
    pub const USAGE: i32 = 2;
    /// No answer: `solve` cannot solve these rules or ran out of its budget;
    /// `solitaire` stopped at its limits before finding the goal.
    pub const NO_ANSWER: i32 = 3;
    /// Stopped by Ctrl-C (what was finished is reported first).
    pub const INTERRUPTED: i32 = 130;
}

/// Writes to standard output and flushes; see [`say!`].
pub(crate) fn write_out(args: std::fmt::Arguments) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        std::process::exit(if e.kind() == std::io::ErrorKind::BrokenPipe { exit::OK } else { exit::FAILED });
    }
}

pub use repl::scripted;
pub use show::describe;

use std::io::IsTerminal;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "mancala",
    version,
    about = "A rules language for mancala games, and its interpreter",
    after_help = "Exit codes: 0 done; 1 the input was wrong (rule file, record, a refused command, a rule error); \
                  2 the command line was wrong; 3 no answer (cannot be solved, or a limit was reached); \
                  130 stopped by Ctrl-C."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check rule files and explain every mistake: with their defaults and every
    /// variant, or as --variant and --set choose.
    Check {
        /// The rule files to check (a folder: its `.mancala` files).
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        choice: Choice,
        /// Print the result as JSON: one object a file, with its mistakes.
        #[arg(long)]
        json: bool,
    },
    /// Play a rule file in a REPL; reads a script of commands when stdin is not a terminal.
    Play {
        /// The rule file (not with --load: a record names its own).
        file: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Seed for everything random (the `random` command, chance in the rules).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Continue a game saved with `save`: its rules, variants, options and seed are the
        /// record's, so FILE, --variant, --set and --seed cannot be given with it.
        #[arg(long, value_name = "RECORD", conflicts_with_all = ["file", "variants", "settings", "seed"])]
        load: Option<String>,
        /// With commands from a pipe: run every line, even after one is refused
        /// (the exit code is still 1 if any was). Without it the script stops there.
        #[arg(long)]
        keep_going: bool,
    },
    /// List the games of a folder of rule files: name, board, players, variants, region, sources.
    List {
        /// The folder (its `.mancala` files; those that `extends` another are left out).
        #[arg(default_value = "rules")]
        dir: String,
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show what a rule file compiles to: board, tracks, relations, phases, moves, options.
    Show {
        /// The rule file.
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Solve a two-player game without chance exactly: its value, best move and principal variation.
    Solve {
        /// The rule file.
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
        /// Give up (exit code 3) after this long: 90s, 500ms, 10m.
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        time: Option<std::time::Duration>,
        /// Give up (exit code 3) after searching this many positions.
        #[arg(long, value_name = "N", value_parser = at_least_one)]
        max_positions: Option<u64>,
        /// Threads to search with (default: one for each core). The value is
        /// the same with any number; the positions searched vary with more than one.
        #[arg(long, value_name = "N", value_parser = at_most_256)]
        threads: Option<u64>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Solitaire: the fewest moves from a position to a goal, every move the
    /// solver's choice (forced passes are not counted), or a proof that the
    /// goal cannot be reached.
    Solitaire {
        /// The rule file.
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// Start from this position instead of the start (the assignments of a REPL `set`).
        #[arg(long, value_name = "ASSIGNMENTS")]
        position: Option<String>,
        /// The counts to reach, as assignments (`s=3,1,0 s-reserve=0`); sites not named are free.
        #[arg(long, value_name = "ASSIGNMENTS")]
        goal: String,
        /// Give up (exit code 3) after reaching this many distinct positions.
        #[arg(long, value_name = "N", default_value_t = 50_000_000)]
        max_positions: usize,
        /// Give up (exit code 3) after looking this many moves ahead.
        #[arg(long, value_name = "N", default_value_t = 1_000)]
        max_moves: usize,
        /// Give up (exit code 3) before the positions kept take more memory than this
        /// (512M, 2G; default: half the machine's).
        #[arg(long, value_name = "SIZE", value_parser = crate::ai::table::parse_bytes)]
        memory: Option<usize>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play many seeded games between agents and report how each seat fares.
    Match {
        /// The rule file.
        file: String,
        #[command(flatten)]
        choice: Choice,
        /// One agent per seat, or one for all: random, greedy, alphabeta[:BUDGET], mcts[:BUDGET]
        /// (a budget is a time, 50ms, or a number of nodes or playouts).
        #[arg(long, value_delimiter = ',', required = true)]
        agents: Vec<crate::ai::AgentSpec>,
        /// How many games to play (1 or more).
        #[arg(long, default_value_t = 100, value_parser = at_least_one)]
        games: u64,
        /// Game i is played from seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Games longer than this are cut and counted unfinished.
        #[arg(long, value_name = "N", default_value_t = 10_000)]
        max_plies: usize,
        /// Play the first N plies of each game at random (from the game's seed),
        /// so that agents that search without chance vary their games.
        #[arg(long, value_name = "N", default_value_t = 0)]
        opening: usize,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Count the positions at each depth of the game tree (every legal move of every
    /// ply; a move that earns another turn is one ply), with positions per second.
    Perft {
        /// The rule file.
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
}

/// The game a rule file describes: which variants, which option settings.
#[derive(Args, Debug, Clone, Default)]
pub struct Choice {
    /// A named variant of the rule file (may be given more than once).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Set an option: --set NAME=VALUE (may be given more than once); a condition
    /// takes true/false, 1/0 or yes/no.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_setting)]
    pub settings: Vec<(String, String)>,
}

impl Choice {
    fn config(&self) -> crate::compile::Config {
        crate::compile::Config { variants: self.variants.clone(), settings: self.settings.clone() }
    }
}

fn parse_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}

/// A count of 1 or more.
fn at_least_one(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number of 1 or more")),
    }
}

fn at_most_256(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(format!("`{s}` is not a whole number from 1 to 256")),
    }
}

/// A time as agents' budgets write it: `90s`, `500ms`, `10m`.
fn parse_time(s: &str) -> Result<std::time::Duration, String> {
    let (n, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600.0)
    } else {
        return Err(format!("`{s}` is not a time: a number and a unit, as in 90s, 500ms, 10m, 2h"));
    };
    match n.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v * scale <= 1e9 => Ok(std::time::Duration::from_secs_f64(v * scale)),
        _ => Err(format!("`{s}` is not a time: a number above 0 and a unit, as in 90s, 500ms, 10m")),
    }
}

/// From here on, Ctrl-C asks the searches to stop (agents, solve, solitaire,
/// a match's games) instead of ending the program; a second Ctrl-C before
/// the first is seen ends it as usual. For the commands whose work looks at
/// [`crate::ai::interrupted`].
fn catch_ctrl_c() {
    extern "C" fn on_interrupt(_: libc::c_int) {
        if crate::ai::interrupted() {
            // Only async-signal-safe calls here.
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::raise(libc::SIGINT);
            }
        }
        crate::ai::interrupt();
    }
    let handler: extern "C" fn(libc::c_int) = on_interrupt;
    // SAFETY: the handler only stores to an atomic, or restores the default
    // action and raises the signal again.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
}

/// Runs the command line; returns the process exit code (see [`exit`]).
pub fn run(cli: Cli) -> i32 {
    let color = std::io::stderr().is_terminal();
    if matches!(
        cli.command,
        Command::Play { .. } | Command::Match { .. } | Command::Solve { .. } | Command::Solitaire { .. }
    ) {
        catch_ctrl_c();
    }
    match cli.command {
        Command::Check { files, choice, json } => show::check(&files, &choice, json, color),
        Command::Show { file, choice, json } => show::show(&file, &choice, json, color),
        Command::List { dir, json } => show::list(&dir, json, color),
        Command::Play { file, choice, seed, load, keep_going } => {
            repl::play(file, choice, seed, load, keep_going, color)
        }
        Command::Solve { file, choice, position, memory, time, max_positions, threads, json } => {
            let budget = search::SolveBudget { memory, time, max_positions, threads };
            search::solve(file, choice, position, budget, json, color)
        }
        Command::Perft { file, choice, depth, position, seed, divide, json } => {
            search::perft(file, choice, (position, seed), depth as usize, (divide, json), color)
        }
        Command::Solitaire { file, choice, position, goal, max_positions, max_moves, memory, json } => {
            search::solitaire(file, choice, position, &goal, (max_positions, max_moves, memory), json, color)
        }
        Command::Match { file, choice, agents, games, seed, max_plies, opening, json } => {
            let play = crate::analysis::Play { max_plies, opening };
            search::play_match(&file, &choice, (&agents, games as usize, seed), play, json, color)
        }
    }
}
