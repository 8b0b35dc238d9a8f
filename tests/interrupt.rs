//! Ctrl-C during a search: the search stops and the game is kept. Ctrl-C is
//! a flag every search looks at (`ai::interrupt`), process-wide, so these
//! run in a test binary of their own, one after the other.

use std::time::{Duration, Instant};

mod common;
use common::*;

/// Runs `line` while another thread presses "Ctrl-C" after `after`.
fn interrupted_after(s: &mut mancala::session::Session, line: &str, after: Duration) -> (String, bool, Duration) {
    let presser = std::thread::spawn(move || {
        std::thread::sleep(after);
        mancala::ai::interrupt();
    });
    let start = Instant::now();
    let reply = s.command(line);
    let took = start.elapsed();
    presser.join().unwrap();
    (reply.text, reply.refused, took)
}

#[test]
fn ctrl_c_stops_a_hint_or_an_agent_and_keeps_the_game() {
    let mut s = session("rules/kalah.mancala", &["standard"], &[]);
    play(&mut s, "s2");
    let before = s.engine().position().clone();
    let (text, refused, took) = interrupted_after(&mut s, "hint alphabeta 60s", Duration::from_millis(300));
    assert!(refused && text.contains("stopped (Ctrl-C)"), "{text}");
    assert!(took < Duration::from_secs(10), "the search went on for {took:?}");
    assert_eq!(s.engine().position(), &before);
    // The next command runs as usual.
    let reply = s.command("board");
    assert!(!reply.refused && reply.text.contains("north to move"), "{}", reply.text);

    // An agent's seat: its search stopped, its move not made, and it waits.
    assert!(!s.command("ai south alphabeta 60s").refused);
    let (text, refused, took) = interrupted_after(&mut s, "n1", Duration::from_millis(300));
    assert!(!refused && text.contains("north plays n1"), "{text}");
    assert!(text.contains("south's agent was stopped (Ctrl-C) before it moved"), "{text}");
    assert!(took < Duration::from_secs(10), "the search went on for {took:?}");
    let before = s.engine().position().clone();
    let board = s.command("board").text;
    assert!(board.contains("south to move (alphabeta:60000ms), waiting until you move"), "{board}");
    assert_eq!(s.engine().position(), &before, "looking at the board made the agent move");
}
