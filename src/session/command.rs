//! A command line of the REPL, read and run: [`Command::parse`] reads the
//! word that starts it (anything else is taken for a move), and
//! [`Session::command`] runs it. A command that is refused, or a rule that
//! goes wrong, leaves the game as it was and says why; the reply says which.

use super::{Reply, Session};

pub const COMMANDS: &[&str] = &[
    "help", "moves", "board", "undo", "redo", "new", "set", "position", "json", "save", "load", "history", "info",
    "random", "hint", "ai", "quit", "exit",
];

const HELP: &str = "\
Commands (a move is typed by its name, as `moves` lists them; `move NAME` works too):
  moves [PREFIX]   list the legal moves (those whose name starts with PREFIX)
  board            draw the board again
  undo [N]         take back the last N steps (default 1); redo [N] makes them again
  new              start a new game with the same rules
  set ASSIGNMENTS  set the position: SITE=N, FAMILY=N,N,... (in index order),
                   coloured counts as a letter and count per colour (r2b1),
                   turn=PLAYER, phase=NAME, STATE=VALUE, and in a game played
                   in rounds rounds=N (finished) and starter=PLAYER (who began
                   this one); `clear` first empties every site. `position`
                   prints the current one in this form.
  position         print the position as a `set` command
  json             print the state as JSON
  save FILE        save the game as a JSON record; load FILE loads one
  history          list the steps so far
  info             the rule file, its options and variants
  random [N]       play N random legal moves (seeded by --seed)
  hint [AGENT]     the move an agent would play, and its evaluation for the
                   player to move (alphabeta 2s, mcts:5000, greedy, random)
  ai SEAT AGENT    give a seat to an agent, which then moves by itself (`ai SEAT
                   off` takes it back, `ai` lists the seats); after an undo it
                   waits until you move
  (Ctrl-C stops a hint or an agent's search; the game is kept)
  help             this text
  quit             leave (also `exit`, or end of input)";

/// A command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An empty line.
    Nothing,
    Help,
    Quit,
    /// The legal moves, those whose name starts with the text given.
    Moves(String),
    Board,
    Undo(usize),
    Redo(usize),
    New,
    Set(String),
    Position,
    Json,
    History,
    Info,
    Save(String),
    Load(String),
    Random(usize),
    Hint(String),
    Ai(String),
    /// A move, by its name (or two moves on a line).
    Move(String),
}

impl Command {
    /// Reads a command line; a command with a bad argument is refused here,
    /// before anything runs.
    pub fn parse(line: &str) -> Result<Command, String> {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let file = |cmd: &str| {
            if rest.is_empty() { Err(format!("`{cmd}` needs a file name")) } else { Ok(rest.to_string()) }
        };
        Ok(match word {
            "" => Command::Nothing,
            "help" | "?" => Command::Help,
            "quit" | "exit" => Command::Quit,
            "moves" => Command::Moves(rest.to_string()),
            "board" => Command::Board,
            "undo" => Command::Undo(count_arg(rest)?),
            "redo" => Command::Redo(count_arg(rest)?),
            "new" => Command::New,
            "set" => Command::Set(rest.to_string()),
            "position" => Command::Position,
            "json" => Command::Json,
            "history" => Command::History,
            "info" => Command::Info,
            "save" => Command::Save(file("save")?),
            "load" => Command::Load(file("load")?),
            "random" => Command::Random(count_arg(rest)?),
            "hint" => Command::Hint(rest.to_string()),
            "ai" => Command::Ai(rest.to_string()),
            "move" if rest.is_empty() => {
                return Err("`move` needs a move name, e.g. `move s3`; `moves` lists them".into());
            }
            "move" => Command::Move(rest.to_string()),
            _ => Command::Move(line.to_string()),
        })
    }
}

impl Session {
    /// Runs one command line.
    pub fn command(&mut self, line: &str) -> Reply {
        let cmd = match Command::parse(line) {
            Ok(cmd) => cmd,
            Err(e) => return Reply { text: format!("{e}\n"), quit: false, refused: true },
        };
        let quit = cmd == Command::Quit;
        crate::ai::clear_interrupt();
        // Agents move after a step the person took (or after being given a
        // seat); after an undo the person decides what comes next, and a
        // refused line (a typo) changes nothing, agents included.
        let step = match &cmd {
            Command::Move(_) | Command::Set(_) | Command::New | Command::Load(_) | Command::Random(_) => true,
            Command::Ai(text) => text.split_whitespace().nth(1).is_some_and(|agent| agent != "off"),
            _ => false,
        };
        let took_back = matches!(cmd, Command::Undo(_) | Command::Redo(_));
        // Set before the command runs, so that the board it shows says so.
        let was_waiting = self.agents_wait;
        self.agents_wait = (was_waiting || took_back) && !step;
        let (mut text, refused) = match self.run(cmd) {
            Ok(text) => (text, false),
            Err(text) => (text, true),
        };
        if refused {
            self.agents_wait = was_waiting;
        } else if step {
            text.push_str(&self.autoplay());
        }
        Reply { text, quit, refused }
    }

    /// Runs a command: what it says, or why it was refused.
    pub fn run(&mut self, cmd: Command) -> Result<String, String> {
        match cmd {
            Command::Nothing | Command::Quit => Ok(String::new()),
            Command::Help => Ok(format!("{HELP}\n")),
            Command::Moves(prefix) => self.moves_text(&prefix),
            Command::Board => Ok(self.show()),
            Command::Undo(n) => self.undo(n),
            Command::Redo(n) => self.redo(n),
            Command::New => {
                // The rules as compiled already: only the position is new.
                let e = self.engine.new_game(self.setup.seed).map_err(|h| format!("{}\n", self.rule_error(&h)))?;
                self.engine = e;
                self.history.clear();
                self.redo.clear();
                Ok(format!("new game\n{}", self.show()))
            }
            Command::Set(text) => match self.set(&text) {
                Ok(()) => Ok(self.show()),
                Err(e) => Err(format!("{e}\nthe position is unchanged\n")),
            },
            Command::Position => Ok(format!("set {}\n", self.position_text())),
            Command::Json => Ok(format!("{}\n", self.json())),
            Command::History => Ok(self.history_text()),
            Command::Info => Ok(self.info()),
            Command::Save(path) => self.save(&path),
            Command::Load(path) => self.load(&path),
            Command::Random(n) => self.random(n),
            Command::Hint(agent) => self.hint(&agent),
            Command::Ai(text) => self.ai_command(&text),
            Command::Move(text) => self.play(&text),
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
