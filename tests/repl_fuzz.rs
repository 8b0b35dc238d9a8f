//! The REPL fuzzed: random sessions of commands, moves and nonsense against
//! every shipped game. After each refused command the position, the steps
//! taken and the steps to redo are as they were; no command panics.
//!
//! CI runs a seeded slice; a long campaign is
//! `MANCALA_REPL_FUZZ=20000 cargo test --release --test repl_fuzz -- --nocapture`
//! (lines per game and seed; seeds 0..MANCALA_REPL_FUZZ_SEEDS, default 1).

use mancala::session::{Session, Setup};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A rule file, its variants and its option settings.
type Choice = (&'static str, &'static [&'static str], &'static [(&'static str, &'static str)]);

const GAMES: &[Choice] = &[
    ("rules/kalah.mancala", &[], &[("pits", "4")]),
    ("rules/kalah.mancala", &["standard"], &[]),
    ("rules/cups.mancala", &[], &[]),
    ("rules/spectral-reapers.mancala", &[], &[]),
    ("rules/tea-party.mancala", &[], &[]),
    ("rules/tea-party.mancala", &["whistle-stop", "pinky-extension"], &[]),
];

/// A random command line: a legal move, a command with good or bad
/// arguments, or nonsense.
fn line(s: &mut Session, rng: &mut ChaCha8Rng, dir: &str) -> String {
    let legal = s.legal_names();
    let pick = |rng: &mut ChaCha8Rng, v: &[&str]| v.choose(rng).unwrap().to_string();
    match rng.gen_range(0..20) {
        0..=7 if !legal.is_empty() => legal.choose(rng).unwrap().clone(),
        8 => format!("undo {}", pick(rng, &["", "1", "3", "0", "x", "100001"])),
        9 => format!("redo {}", pick(rng, &["", "1", "2", "-1"])),
        10 => format!("random {}", pick(rng, &["", "2", "0", "many"])),
        11 => {
            let p = s.position_text();
            let mut parts: Vec<&str> = p.split(' ').collect();
            parts.shuffle(rng);
            let n = rng.gen_range(0..=parts.len().min(3));
            format!("set {} {}", parts[..n].join(" "), pick(rng, &["", "x=1", "turn=nobody", "clear", "s1=-1"]))
        }
        12 => pick(rng, &["moves", "board", "history", "info", "position", "json", "help", "moves x", "moves s1"]),
        13 => format!("hint {}", pick(rng, &["random", "greedy", "alphabeta:50", "mcts:10", "bogus", "alphabeta:0"])),
        14 => {
            let seat = s.game().players.choose(rng).unwrap().clone();
            format!(
                "ai {} {}",
                pick(rng, &[seat.as_str(), "nobody"]),
                pick(rng, &["random", "greedy:", "off", "mcts:5", "x"])
            )
        }
        15 => format!("save {dir}/fuzz.json"),
        16 => pick(rng, &["load /nonexistent/x.json", "load /dev/null", &format!("load {dir}/fuzz.json")]),
        17 => pick(rng, &["new", "move", "move s99", "\u{1b}[2J", "s1 s2 s3", "", "#", "quit"]),
        _ => {
            let junk: String = (0..rng.gen_range(1..12)).map(|_| rng.gen_range(b'!'..=b'~') as char).collect();
            junk
        }
    }
}

#[test]
fn refused_commands_leave_position_steps_and_redo_as_they_were() {
    let lines: usize = std::env::var("MANCALA_REPL_FUZZ").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let seeds: u64 = std::env::var("MANCALA_REPL_FUZZ_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("mancala-repl-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.to_str().unwrap().to_string();
    let (mut refused, mut total) = (0, 0);
    for seed in 0..seeds {
        for (file, variants, settings) in GAMES {
            let setup = Setup {
                rules: file.to_string(),
                variants: variants.iter().map(|v| v.to_string()).collect(),
                settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                seed,
            };
            let mut s = Session::new(setup).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xf022);
            for _ in 0..lines {
                let l = line(&mut s, &mut rng, &dir);
                let (before, steps) = (s.engine().position().clone(), s.steps());
                let reply = s.command(&l);
                total += 1;
                if reply.refused {
                    refused += 1;
                    assert_eq!(s.engine().position(), &before, "{file}: `{l}` was refused but moved:\n{}", reply.text);
                    assert_eq!(s.steps(), steps, "{file}: `{l}` was refused but changed the steps:\n{}", reply.text);
                }
            }
        }
    }
    eprintln!("{total} lines, {refused} refused");
    assert!(refused > total / 10 && refused < total * 9 / 10, "{refused} of {total} refused");
}
