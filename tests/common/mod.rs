//! Helpers shared by the integration tests.
#![allow(dead_code)]

use mancala::session::{Session, Setup};

pub fn session(rules: &str, variants: &[&str], settings: &[(&str, &str)]) -> Session {
    let setup = Setup {
        rules: rules.to_string(),
        variants: variants.iter().map(|v| v.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        seed: 0,
    };
    Session::new(setup).unwrap_or_else(|f| panic!("{}", f.render(false)))
}

/// Runs a command and returns its reply, failing on replies that report a
/// refused command when `must_succeed` is set.
pub fn run(s: &mut Session, line: &str) -> String {
    s.command(line).text
}

/// Plays a move, which must be legal.
pub fn play(s: &mut Session, mv: &str) {
    let found = s.engine().clone().find_move(mv).unwrap();
    assert!(found.is_some(), "`{mv}` should be legal; legal: {:?}", s.legal_names());
    let reply = run(s, mv);
    assert!(reply.contains(" plays "), "`{mv}` was not played: {reply}");
}

pub fn count(s: &Session, site: &str) -> i32 {
    let id = s.game().site_by_name(site).unwrap_or_else(|| panic!("no site {site}"));
    s.engine().site_count(id)
}

pub fn counts(s: &Session, sites: &[&str]) -> Vec<i32> {
    sites.iter().map(|x| count(s, x)).collect()
}

pub fn to_move(s: &Session) -> String {
    s.game().players[s.engine().to_move() as usize].clone()
}

pub fn set(s: &mut Session, assignments: &str) {
    let reply = run(s, &format!("set {assignments}"));
    assert!(!reply.contains("unchanged"), "set {assignments}: {reply}");
}

/// The rule files of the library that are games of their own.
pub fn library() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mancala"))
        .filter(|p| !std::fs::read_to_string(p).unwrap().lines().any(|l| l.trim_start().starts_with("extends ")))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}
