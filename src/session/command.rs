//! A command line of the REPL, read and run: the word that starts it says
//! which command; anything else is taken for a move.

use super::{Reply, Session};
use crate::engine::Engine;

pub const COMMANDS: &[&str] = &[
    "help", "moves", "board", "undo", "redo", "new", "set", "position", "json", "save", "load", "history", "info",
    "random", "hint", "ai", "quit", "exit",
];

const HELP: &str = "\
Commands (a move is typed by its name, as `moves` lists them; `move NAME` works too):
  moves            list the legal moves
  board            draw the board again
  undo [N]         take back the last N steps (default 1); redo [N] makes them again
  new              start a new game with the same rules
  set ASSIGNMENTS  set the position: SITE=N, FAMILY=N,N,... (in index order),
                   coloured counts as a letter and count per colour (r2b1),
                   turn=PLAYER, phase=NAME, STATE=VALUE; `clear` first empties
                   every site. `position` prints the current one in this form.
  position         print the position as a `set` command
  json             print the state as JSON
  save FILE        save the game as a JSON record; load FILE loads one
  history          list the steps so far
  info             the rule file, its options and variants
  random [N]       play N random legal moves (seeded by --seed)
  help             this text
  quit             leave (also `exit`, or end of input)";

impl Session {
    /// Runs one command line.
    pub fn command(&mut self, line: &str) -> Reply {
        let mut reply = self.command_inner(line);
        // After a step is taken back, the person decides what comes next: an
        // agent to move would only make its move again at once.
        let word = line.split_whitespace().next().unwrap_or("");
        if !reply.quit && !matches!(word, "undo" | "redo") {
            reply.text.push_str(&self.autoplay());
        }
        reply
    }

    pub(super) fn command_inner(&mut self, line: &str) -> Reply {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        match word {
            "" => Reply::text(""),
            "help" | "?" => Reply::text(format!("{HELP}\n")),
            "quit" | "exit" => Reply { text: String::new(), quit: true },
            "moves" => Reply::text(self.moves_text()),
            "board" => Reply::text(self.show()),
            "undo" | "redo" => match count_arg(rest) {
                Ok(n) => Reply::text(if word == "undo" { self.undo(n) } else { self.redo(n) }),
                Err(e) => Reply::text(format!("{e}\n")),
            },
            "new" => {
                match Engine::with_seed(self.game.clone(), self.setup.seed) {
                    Ok(e) => {
                        self.engine = e;
                        self.history.clear();
                        self.redo.clear();
                    }
                    Err(h) => return Reply::text(format!("{}\n", self.rule_error(&h))),
                }
                Reply::text(format!("new game\n{}", self.show()))
            }
            "set" => match self.set(rest) {
                Ok(()) => Reply::text(self.show()),
                Err(e) => Reply::text(format!("{e}\nthe position is unchanged\n")),
            },
            "position" => Reply::text(format!("set {}\n", self.position_text())),
            "json" => Reply::text(format!("{}\n", self.json())),
            "history" => Reply::text(self.history_text()),
            "info" => Reply::text(self.info()),
            "save" => Reply::text(self.save(rest)),
            "load" => Reply::text(self.load(rest)),
            "random" => match count_arg(rest) {
                Ok(n) => Reply::text(self.random(n)),
                Err(e) => Reply::text(format!("{e}\n")),
            },
            "hint" => Reply::text(self.hint(rest)),
            "ai" => Reply::text(self.ai_command(rest)),
            "move" if rest.is_empty() => Reply::text("`move` needs a move name, e.g. `move s3`; `moves` lists them\n"),
            "move" => Reply::text(self.play(rest)),
            _ => Reply::text(self.play(line)),
        }
    }
}

pub(super) fn count_arg(rest: &str) -> Result<usize, String> {
    if rest.is_empty() {
        return Ok(1);
    }
    rest.parse::<usize>()
        .ok()
        .filter(|n| *n >= 1 && *n <= 100_000)
        .ok_or_else(|| format!("`{rest}` is not a count from 1 to 100000"))
}
