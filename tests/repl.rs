//! The REPL as people and scripts use it: lines read into commands, which
//! replies are refusals, and what the replies say.

mod common;
use common::*;
use mancala::session::Command;

#[test]
fn lines_are_read_into_commands_and_bad_arguments_refused_before_running() {
    let cases = [
        ("", Ok(Command::Nothing)),
        ("  undo  ", Ok(Command::Undo(1))),
        ("undo 3", Ok(Command::Undo(3))),
        ("redo 100000", Ok(Command::Redo(100_000))),
        ("set s1=4  turn=north", Ok(Command::Set("s1=4  turn=north".into()))),
        ("move s3", Ok(Command::Move("s3".into()))),
        ("cup A1L cup A2L", Ok(Command::Move("cup A1L cup A2L".into()))),
        ("hint mcts 2s", Ok(Command::Hint("mcts 2s".into()))),
        ("exit", Ok(Command::Quit)),
        ("undo 0", Err("`0` is not a count from 1 to 100000")),
        ("random 100001", Err("`100001` is not a count from 1 to 100000")),
        ("save", Err("`save` needs a file name")),
        ("load  ", Err("`load` needs a file name")),
        ("move", Err("`move` needs a move name, e.g. `move s3`; `moves` lists them")),
    ];
    for (line, expect) in cases {
        assert_eq!(Command::parse(line), expect.map_err(str::to_string), "{line:?}");
    }
}

#[test]
fn replies_say_whether_the_command_was_refused() {
    let mut s = session("rules/kalah.mancala", &["standard"], &[]);
    for (line, refused) in [
        ("moves", false),
        ("s9", true),
        ("frobnicate", true),
        ("undo", true),
        ("s1", false),
        ("undo", false),
        ("redo", false),
        ("redo", true),
        ("set s1=x", true),
        ("set s1=2", false),
        ("hint bogus", true),
        ("ai west random", true),
        ("load /nonexistent/record.json", true),
        ("history", false),
    ] {
        let reply = s.command(line);
        assert_eq!(reply.refused, refused, "`{line}`:\n{}", reply.text);
    }
}

#[test]
fn the_replies_say_who_moves_again_who_played_and_whose_evaluation() {
    let mut s = session("rules/kalah.mancala", &["standard"], &[]);
    // s3 of Kalah(6,4) ends in the store: another turn.
    let reply = run(&mut s, "s3");
    assert!(reply.starts_with("south plays s3, and moves again\n"), "{reply}");
    let reply = run(&mut s, "s1");
    assert!(reply.starts_with("south plays s1\n"), "{reply}");
    assert_eq!(run(&mut s, "history"), "  1. south plays s3\n  2. south plays s1\n");
    let hint = run(&mut s, "hint greedy");
    assert!(hint.contains("evaluation for north: margin"), "{hint}");
    let help = run(&mut s, "help");
    assert!(help.contains("hint [AGENT]") && help.contains("ai SEAT AGENT"), "{help}");
    // A pit the board does not have is said to be so, not taken for another.
    let reply = run(&mut s, "n7");
    assert!(reply.contains("there is no site `n7`: `n` is n1..n6") && !reply.contains("did you mean"), "{reply}");
}

#[test]
fn moves_are_listed_so_that_each_name_can_be_told_apart() {
    // Tea Party's moves have spaces in their names: one a line.
    let mut s = session("rules/tea-party.mancala", &[], &[]);
    let moves = run(&mut s, "moves");
    assert!(moves.lines().all(|l| l.starts_with("  ") && l.trim().split(' ').count() == 2), "{moves}");
    // Spectral Reapers' placements with four seats: 168, more than 60: how
    // many, one a line, at most 40, and a prefix to narrow them.
    let mut s = session("rules/spectral-reapers.mancala", &[], &[("seats", "4")]);
    let moves = run(&mut s, "moves");
    let lines: Vec<&str> = moves.lines().collect();
    assert_eq!(lines[0], "168 legal moves");
    assert_eq!(lines.len(), 43, "{moves}");
    assert!(lines[1..41].iter().all(|l| l.starts_with("  x") && l.split_whitespace().count() == 3), "{moves}");
    assert!(moves.contains("... and 128 more") && moves.contains("`moves PREFIX`"), "{moves}");
    let some = run(&mut s, "moves x1=3 x2");
    assert!(some.starts_with("6 of 168 legal moves start with `x1=3 x2`\n"), "{some}");
    assert!(some.lines().skip(1).all(|l| l.starts_with("  x1=3 x2=")), "{some}");
    assert!(s.command("moves zz").refused);
}
