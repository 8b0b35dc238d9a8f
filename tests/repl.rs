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
