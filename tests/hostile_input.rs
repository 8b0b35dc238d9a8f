//! Hostile input to the front ends: endless or huge files, a byte-order
//! mark, control characters in a shared rule file or a hook's error, endless
//! lines on standard input. Each is refused or made harmless quickly.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mancala::compile::{Config, compile_file, compile_source};

mod common;

/// Runs `mancala ARGS` with `stdin` (a file, or the text given) and fails if
/// it takes more than `secs`: (exit code, stdout, stderr).
fn run_within(secs: u64, args: &[&str], stdin: Result<&str, &str>) -> (i32, String, String) {
    let input = match stdin {
        Ok(_) => Stdio::piped(),
        Err(path) => Stdio::from(std::fs::File::open(path).unwrap()),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Ok(text) = stdin {
        // In a thread: the program may stop reading (and so the writing
        // fail) before it is all written.
        let (mut pipe, text) = (child.stdin.take().unwrap(), text.to_string());
        std::thread::spawn(move || pipe.write_all(text.as_bytes()));
    }
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            panic!("mancala {}: still running after {secs} s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn endless_and_huge_files_are_refused_at_a_size_limit() {
    let (code, _, err) = run_within(10, &["check", "/dev/zero"], Ok(""));
    assert_eq!(code, 1);
    assert!(err.contains("cannot read rule file `/dev/zero`: more than 4 MiB"), "{err}");
    let (code, _, err) = run_within(10, &["play", "/dev/zero"], Ok(""));
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = run_within(10, &["play", "--load", "/dev/zero"], Ok(""));
    assert_eq!(code, 1);
    assert!(err.contains("cannot read /dev/zero: more than 16 MiB"), "{err}");

    // The REPL's `load`: refused, the game kept.
    let mut s = common::session("rules/kalah.mancala", &[], &[]);
    common::play(&mut s, "s1");
    let before = s.engine().position().clone();
    let start = Instant::now();
    let reply = s.command("load /dev/zero");
    assert!(reply.refused && reply.text.contains("more than 16 MiB"), "{}", reply.text);
    assert!(reply.text.contains("the game is unchanged"));
    assert_eq!(s.engine().position(), &before);
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_byte_order_mark_before_the_rules_is_no_part_of_them() {
    let text = std::fs::read_to_string("rules/cups.mancala").unwrap();
    let with_bom = format!("\u{feff}{text}");
    assert!(compile_source("bom.mancala", &with_bom, &Config::default()).is_ok());
    let dir = std::env::temp_dir().join(format!("mancala-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bom.mancala");
    std::fs::write(&path, with_bom).unwrap();
    let g = compile_file(path.to_str().unwrap(), &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
    assert_eq!(g.name, "Cups");
    // A mark anywhere else is still a mistake, at its place.
    let inside = text.replacen("players", "\u{feff}players", 1);
    assert!(compile_source("bom.mancala", &inside, &Config::default()).is_err());
}

#[test]
fn control_characters_from_a_rule_file_or_a_hook_reach_no_terminal() {
    let evil = "\u{1b}]0;owned\u{7}\u{1b}[31mEvil\u{9b}2J";
    let kalah = std::fs::read_to_string("rules/kalah.mancala").unwrap();
    let dir = std::env::temp_dir().join(format!("mancala-evil-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("evil.mancala");
    let with_name = kalah.replacen("game \"Kalah\"", &format!("game \"{evil}\""), 1);
    assert_ne!(with_name, kalah, "the game's name was not found to replace");
    std::fs::write(&path, &with_name).unwrap();
    let file = path.to_str().unwrap();
    let clean = |what: &str, text: &str| {
        assert!(!text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{what}: {text:?}");
    };
    let (code, out, err) = run_within(20, &["check", file], Ok(""));
    assert_eq!(code, 0, "{err}");
    clean("check", &out);
    assert!(out.contains("\\x1b]0;owned\\x07\\x1b[31mEvil\\u{9b}2J"), "{out}");
    let (_, out, _) = run_within(20, &["play", file], Ok("board\ninfo\n"));
    clean("play", &out);
    let (_, out, _) = run_within(20, &["show", file], Ok(""));
    clean("show", &out);
    // A mistake on a line with control characters: the line is drawn with
    // them shown as `?`.
    std::fs::write(&path, format!("{with_name}\nscore p: \u{1b}[2J oops\n")).unwrap();
    let (code, _, err) = run_within(20, &["check", file], Ok(""));
    assert_eq!(code, 1);
    clean("diagnostic", &err);
    // A hook's error carries what the hook threw.
    let hooked = "players a, b\npit s[1..2] owner a\npit n[1..2] owner b\nstore S owner a\nstore N owner b\n\
         track round cyclic: s[1..2], S, n[1..2], N\nsetup { put 1 in every pit }\n\
         hook target(x: site) -> site rhai \"\"\"throw \"\\x1b]0;owned\\x07\";\"\"\"\n\
         move m \"{h}\" { choose h in every pit of mover where count(h) > 0  take h to target(h) }\n\
         score p: count(store(p))\n";
    std::fs::write(&path, hooked).unwrap();
    let (code, out, _) = run_within(20, &["play", file], Ok("s1\n"));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("hook `target` failed"), "{out}");
    clean("hook error", &out);
}

#[test]
fn endless_lines_on_standard_input_are_refused() {
    let long = format!("s1\n{}\nboard\n", "x".repeat(1 << 20));
    let (code, out, err) = run_within(20, &["play", "rules/kalah.mancala"], Ok(&long));
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("a line of more than 64 KiB is no command") && !out.contains("> board"), "{out}");
    let (code, out, _) = run_within(20, &["play", "rules/kalah.mancala", "--keep-going"], Ok(&long));
    assert_eq!(code, 1);
    assert!(out.contains("> board"), "{out}");
    assert!(out.len() < 20_000, "the long line was echoed: {} bytes", out.len());
    // Standard input that never ends a line.
    let (code, _, _) = run_within(20, &["play", "rules/kalah.mancala"], Err("/dev/zero"));
    assert_eq!(code, 1);
}

#[test]
fn deeply_nested_conditional_expressions_are_refused_in_check_play_and_match() {
    let dir = std::env::temp_dir().join(format!("mancala-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep.mancala");
    let n = 3000;
    let kalah = std::fs::read_to_string("rules/kalah.mancala").unwrap();
    let deep = format!("{}0{}", "if true then ".repeat(n), " else 0".repeat(n));
    std::fs::write(&path, format!("{kalah}\nend deep when {deep} > 0\n")).unwrap();
    let file = path.to_str().unwrap();
    for args in [&["check", file][..], &["play", file], &["match", file, "--agents", "random", "--games", "2"]] {
        let (code, _, err) = run_within(20, args, Ok(""));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("conditional expressions nested more than 48 deep"), "{args:?}: {err}");
    }
    // Nested a little, with brackets between, they are fine.
    let ok = format!("{kalah}\nend shallow when (if true then (if false then 1 else 0) else 0) > 0\n");
    assert!(compile_source("ok.mancala", &ok, &Config::default()).is_ok());
}
