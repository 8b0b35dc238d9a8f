//! The REPL: interactive on a terminal (rustyline, with completion), and
//! plain from a pipe.

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::rc::Rc;

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use super::{Choice, exit};
use crate::session::{COMMANDS, Session, Setup};

/// `mancala play`: a new game, or one loaded from a record; interactive on
/// a terminal, else a script from standard input.
pub(super) fn play(
    file: Option<String>,
    choice: Choice,
    seed: u64,
    load: Option<String>,
    keep_going: bool,
    color: bool,
) -> i32 {
    let session = match (load, file) {
        (Some(path), _) => match Session::from_record_file(&path) {
            Ok(s) => s,
            Err(e) => {
                noteln!("{e}");
                return exit::FAILED;
            }
        },
        (None, Some(rules)) => {
            match Session::new(Setup { rules, variants: choice.variants, settings: choice.settings, seed }) {
                Ok(s) => s,
                Err(fail) => {
                    note!("{}", fail.render(color));
                    return exit::FAILED;
                }
            }
        }
        (None, None) => {
            noteln!("error: `play` needs a rule file, or --load RECORD");
            return exit::USAGE;
        }
    };
    if std::io::stdin().is_terminal() {
        interactive(session)
    } else {
        scripted(session, std::io::stdin().lock(), &mut std::io::stdout(), keep_going)
    }
}

/// Plays commands read line by line, printing a plain transcript: each
/// command after `> `, then what it answered. Lines starting with `#` are
/// comments, copied as they are. The script stops at the first command that
/// is refused (or whose rules go wrong), with exit code 1, unless
/// `keep_going`, which runs every line and still ends with 1 if any was
/// refused. A reader that has gone (`| head`) ends it quietly.
pub fn scripted(mut s: Session, input: impl BufRead, out: &mut impl Write, keep_going: bool) -> i32 {
    if write!(out, "{}", s.banner()).is_err() {
        return exit::OK;
    }
    let mut code = exit::OK;
    // Lines that are not UTF-8 are read with replacement characters, so a
    // stray byte costs one refused command, not the rest of the script.
    for (number, line) in input.split(b'\n').enumerate() {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let written = if trimmed.starts_with('#') {
            writeln!(out, "{trimmed}")
        } else {
            let reply = s.command(trimmed);
            let written = write!(out, "> {trimmed}\n{}", reply.text);
            if reply.quit {
                break;
            }
            if reply.refused {
                code = exit::FAILED;
                if !keep_going {
                    let _ = out.flush();
                    noteln!("stopped at line {}, which was refused (--keep-going runs every line)", number + 1);
                    break;
                }
            }
            written
        };
        if written.is_err() {
            break;
        }
    }
    let _ = out.flush();
    code
}

struct Completion {
    moves: Rc<RefCell<Vec<String>>>,
}

impl Completer for Completion {
    type Candidate = String;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map(|i| i + 1).unwrap_or(0);
        let word = &head[start..];
        let first = start == 0 || head[..start].trim() == "move";
        let mut out: Vec<String> = Vec::new();
        if first {
            out.extend(self.moves.borrow().iter().filter(|m| m.starts_with(word)).cloned());
            if start == 0 {
                out.extend(COMMANDS.iter().filter(|c| c.starts_with(word)).map(|c| c.to_string()));
            }
        }
        Ok((start, out))
    }
}
impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

fn interactive(mut s: Session) -> i32 {
    s.color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    say!("{}", s.banner());
    let moves = Rc::new(RefCell::new(s.legal_names()));
    let config =
        rustyline::Config::builder().completion_type(rustyline::CompletionType::List).auto_add_history(false).build();
    let mut rl: Editor<Completion, rustyline::history::DefaultHistory> = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            noteln!("cannot start the line editor ({e}); reading commands plainly");
            return scripted(s, std::io::stdin().lock(), &mut std::io::stdout(), true);
        }
    };
    rl.set_helper(Some(Completion { moves: moves.clone() }));
    loop {
        let prompt = format!("{}> ", s.game().players[s.engine().to_move() as usize]);
        match rl.readline(&prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                let reply = s.command(&line);
                say!("{}", reply.text);
                if reply.quit {
                    return 0;
                }
                *moves.borrow_mut() = s.legal_names();
            }
            Err(rustyline::error::ReadlineError::Interrupted) => sayln!("(type `quit` to leave)"),
            Err(_) => return 0,
        }
    }
}
