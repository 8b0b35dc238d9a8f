//! The command line as scripts use it: exit codes, flags that mean the same
//! in every subcommand, piped scripts that stop at the first refusal, and
//! output to a reader that has gone.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use clap::CommandFactory;

/// `mancala ARGS`, started with its three streams piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn mancala(args: &[&str], stdin: &str) -> Output {
    let mut child = spawn(args);
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn code(args: &[&str]) -> i32 {
    let out = mancala(args, "");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args:?} panicked");
    out.status.code().unwrap_or(-1)
}

#[test]
fn every_command_ends_with_a_documented_exit_code() {
    let cases: &[(&[&str], i32)] = &[
        (&["check", "rules/kalah.mancala", "rules/cups.mancala"], 0),
        (&["check", "tests/bad/unknown-names.mancala"], 1),
        (&["check", "no/such/file.mancala"], 1),
        (&["check"], 2),
        (&["check", "rules/kalah.mancala", "--frobnicate"], 2),
        (&["show", "rules/kalah.mancala", "--json"], 0),
        (&["show", "rules/kalah.mancala", "--variant", "nope"], 1),
        (&["solve", "rules/kalah.mancala", "--set", "pits=3", "--set", "stones=2"], 0),
        (&["solve", "rules/kalah.mancala", "--position", "s1=x"], 2),
        (&["solve", "rules/spectral-reapers.mancala"], 3),
        (&["solve", "rules/kalah.mancala", "--max-positions", "1000"], 3),
        (&["solve", "rules/kalah.mancala", "--time", "soon"], 2),
        (&["solve", "rules/kalah.mancala", "--set", "pits=3", "--set", "stones=3", "--threads", "3"], 0),
        (&["solve", "rules/kalah.mancala", "--threads", "0"], 2),
        (&["solve", "rules/kalah.mancala", "--threads", "many"], 2),
        (&["solve", "rules/kalah.mancala", "--max-positions", "20000", "--threads", "2"], 3),
        (&["solitaire", "rules/cups.mancala", "--goal", "s=4,0,0,9", "--max-moves", "2"], 3),
        // Memory for 300-odd positions: the search gives up at once, not the machine.
        (
            &[
                "solitaire",
                "rules/cups.mancala",
                "--set",
                "cups=10",
                "--goal",
                "s=10,8,6,4,2,0,2,1,1,0",
                "--memory",
                "64K",
            ],
            3,
        ),
        (&["solitaire", "rules/cups.mancala", "--goal", "turn=north"], 2),
        (&["match", "rules/kalah.mancala", "--agents", "random", "--games", "0"], 2),
        (&["match", "rules/kalah.mancala", "--agents", "random,random,random", "--games", "1"], 2),
        (&["match", "rules/kalah.mancala", "--agents", "random", "--games", "2"], 0),
        (&["perft", "rules/kalah.mancala", "--depth", "2"], 0),
        (&["play", "rules/kalah.mancala", "--load", "game.json"], 2),
        (&["play", "--load", "game.json", "--seed", "3"], 2),
        (&["play", "--load", "no/such/record.json"], 1),
        (&["play"], 2),
    ];
    for (args, expect) in cases {
        assert_eq!(code(args), *expect, "mancala {}", args.join(" "));
    }
}

#[test]
fn a_piped_script_stops_at_the_first_refused_command_unless_told_to_go_on() {
    let script = "s1\nfrobnicate\nn1\n";
    let out = mancala(&["play", "rules/kalah.mancala", "--variant", "standard"], script);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(text.contains("> frobnicate") && !text.contains("> n1"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped at line 2"));

    let out = mancala(&["play", "rules/kalah.mancala", "--variant", "standard", "--keep-going"], script);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a refused line still fails the script");
    assert!(text.contains("> n1\nnorth plays n1"), "{text}");

    // A rule error stops it too: a hook that loops for ever.
    let out = mancala(&["play", "tests/hooks/loops-forever.mancala"], "moves\ns1\nboard\n");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));

    let out = mancala(&["play", "rules/kalah.mancala"], "s1\nboard\nquit\ns2\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn writing_to_a_reader_that_has_gone_ends_quietly() {
    for args in [
        &["match", "rules/kalah.mancala", "--agents", "random", "--games", "3", "--json"][..],
        &["perft", "rules/kalah.mancala", "--depth", "3"],
        &["show", "rules/tea-party.mancala"],
        &["play", "rules/kalah.mancala"],
    ] {
        let mut child = spawn(args);
        // The reader goes before anything is written: the first write fails.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"s1\nboard\n");
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn the_same_flags_mean_the_same_in_every_command() {
    // A condition takes 1/0 as the REPL's `set` does.
    for value in ["1", "0", "true", "false", "yes", "no"] {
        let setting = format!("lap-skips-origin={value}");
        assert_eq!(code(&["check", "rules/kalah.mancala", "--set", &setting]), 0, "{setting}");
        assert_eq!(code(&["show", "rules/kalah.mancala", "--set", &setting]), 0, "{setting}");
    }
    assert_eq!(code(&["check", "rules/kalah.mancala", "--set", "lap-skips-origin=2"]), 1);
    // check with a variant and settings checks that game only.
    let out = mancala(&["check", "rules/kalah.mancala", "--set", "pits=9", "--json"], "");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["ok"], false);
    assert!(v[0]["errors"][0]["message"].as_str().unwrap().contains("pits"), "{v}");

    let out = mancala(&["check", "tests/bad/unknown-names.mancala", "--json"], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v[0]["errors"][0];
    assert_eq!(first["file"], "tests/bad/unknown-names.mancala");
    assert!(first["line"].as_u64().unwrap() > 0 && first["column"].as_u64().unwrap() > 0, "{first}");

    let out = mancala(&["show", "rules/kalah.mancala", "--set", "pits=4", "--json"], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sites"].as_array().unwrap().len(), 10);
    assert_eq!(v["players"], serde_json::json!(["south", "north"]));

    // Every subcommand's every argument says what it is for.
    let cli = mancala::cli::Cli::command();
    for sub in cli.get_subcommands() {
        assert!(sub.get_about().is_some(), "{} has no help", sub.get_name());
        for arg in sub.get_arguments() {
            assert!(arg.get_help().is_some(), "{} {} has no help", sub.get_name(), arg.get_id());
        }
    }
}

#[test]
fn a_match_of_no_games_is_refused_rather_than_reporting_nothing() {
    let out = mancala(&["match", "rules/kalah.mancala", "--agents", "random", "--games", "0"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`0` is not a whole number of 1 or more"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("-0.00"));
}

/// Sends Ctrl-C's signal to a child.
fn ctrl_c(child: &std::process::Child) {
    // SAFETY: kill with a child's pid and SIGINT has no memory effects here.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
}

#[test]
fn ctrl_c_in_a_match_reports_the_games_finished_so_far() {
    let child = spawn(&[
        "match",
        "rules/kalah.mancala",
        "--variant",
        "standard",
        "--agents",
        "alphabeta:3000",
        "--games",
        "5000",
        "--json",
    ]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    ctrl_c(&child);
    let start = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["interrupted"], true);
    let games = v["games"].as_u64().unwrap();
    assert!(games > 0 && games < 5000, "{games} games");
    let seats = v["seats"].as_array().unwrap();
    let decided: u64 = seats.iter().map(|s| s["wins"].as_u64().unwrap()).sum::<u64>();
    assert!(decided <= games);
}

#[test]
fn ctrl_c_during_a_piped_hint_stops_the_script_with_130() {
    let mut child = spawn(&["play", "rules/kalah.mancala", "--variant", "standard"]);
    child.stdin.take().unwrap().write_all(b"s2\nhint alphabeta 60s\nboard\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    ctrl_c(&child);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(text.contains("the hint's search was stopped (Ctrl-C)") && !text.contains("> board"), "{text}");
}

#[test]
fn solve_gives_the_real_reason_it_cannot_solve() {
    // Tea Party's default draws no random number (only its Whistle Stop and
    // Spotted Sugar Cubes variants do): it reads the ply and repetitions.
    let cases = [
        (&["solve", "rules/tea-party.mancala"][..], "these rules read `ply` or `repetitions`"),
        (&["solve", "rules/tea-party.mancala", "--variant", "whistle-stop"], "these rules draw random numbers"),
        (&["solve", "rules/tea-party.mancala", "--variant", "spotted-sugar-cubes"], "these rules draw random numbers"),
        (&["solve", "rules/spectral-reapers.mancala"], "exact solving is for two players; this game has 3"),
    ];
    for (args, reason) in cases {
        let out = mancala(args, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.starts_with("not solved: ") && err.contains(reason), "{args:?}: {err}");
    }
}

#[test]
fn list_shows_every_game_of_a_folder_with_what_its_file_says_of_it() {
    let out = mancala(&["list", "rules", "--json"], "");
    assert_eq!(out.status.code(), Some(0));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = list.as_array().unwrap();
    // Every rule file of the folder that is a game of its own (none extends another).
    let files = std::fs::read_dir("rules")
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "mancala"))
        .count();
    assert_eq!(games.len(), files);
    let oware = games.iter().find(|g| g["game"] == "Oware").expect("Oware is listed");
    assert_eq!(oware["board"], "2 x 6, 2 stores");
    assert_eq!(oware["players"], 2);
    assert_eq!(oware["region"], "Ghana, West Africa, the Caribbean");
    assert_eq!(oware["variants"], serde_json::json!(["grand-slam-forbidden", "grand-slam-captures"]));
    assert!(oware["sources"].as_array().unwrap().len() >= 3);
    // Every game names its sources.
    for g in games {
        assert!(!g["sources"].as_array().unwrap().is_empty(), "{} names no source", g["game"]);
    }
    // As a table: a line a game, and the count.
    let out = mancala(&["list"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("Oware ") && l.contains("2 x 6, 2 stores")), "{text}");
    assert!(text.contains(&format!("{files} games")), "{text}");
    // A folder that is not there.
    assert_eq!(code(&["list", "no/such/folder"]), 1);
    // `check` takes a folder too: every rule file of the library compiles.
    assert_eq!(code(&["check", "rules/"]), 0);
    assert_eq!(code(&["check", "tests/bad"]), 1);
    // A derived file is a variant, not a game: tests/variants lists none.
    let out = mancala(&["list", "tests/variants"], "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 games"));
}
