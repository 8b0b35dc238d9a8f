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
            Ok((s, note)) => {
                if let Some(note) = note {
                    note!("{note}");
                }
                s
            }
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
pub fn scripted(mut s: Session, mut input: impl BufRead, out: &mut impl Write, keep_going: bool) -> i32 {
    if write!(out, "{}", s.banner()).is_err() {
        return exit::OK;
    }
    let mut code = exit::OK;
    let mut bytes = Vec::new();
    let mut number = 0;
    while let Ok(Some(too_long)) = next_line(&mut input, &mut bytes, MAX_LINE) {
        number += 1;
        // Lines that are not UTF-8 are read with replacement characters, so
        // a stray byte costs one refused command, not the rest of the script.
        let line = String::from_utf8_lossy(&bytes);
        let trimmed = line.trim();
        if trimmed.is_empty() && !too_long {
            continue;
        }
        let written = if trimmed.starts_with('#') && !too_long {
            writeln!(out, "{trimmed}")
        } else {
            let reply = if too_long {
                let text = format!("a line of more than {} KiB is no command\n", MAX_LINE >> 10);
                crate::session::Reply { text, quit: false, refused: true }
            } else {
                s.command(trimmed)
            };
            // A line too long to run is shown by its start.
            let shown: String =
                if too_long { trimmed.chars().take(80).chain(" ...".chars()).collect() } else { trimmed.into() };
            let written = write!(out, "> {shown}\n{}", reply.text);
            if reply.quit {
                break;
            }
            if crate::ai::interrupted() {
                let _ = out.flush();
                noteln!("stopped by Ctrl-C at line {number}");
                return exit::INTERRUPTED;
            }
            if too_long && keep_going {
                skip_line(&mut input);
            }
            if reply.refused {
                code = exit::FAILED;
                if !keep_going {
                    let _ = out.flush();
                    noteln!("stopped at line {number}, which was refused (--keep-going runs every line)");
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

/// The longest command line read; the rest of a longer one is skipped.
const MAX_LINE: usize = 64 << 10;

/// Reads the next line, without its newline, into `buf`: `Some(false)`, or
/// `Some(true)` as soon as it passes `max` bytes (the rest of it unread:
/// see [`skip_line`]); `None` at the end.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Option<bool>> {
    buf.clear();
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok((!buf.is_empty()).then_some(false));
        }
        let end = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..end.unwrap_or(chunk.len())];
        if buf.len() + part.len() > max {
            let room = max - buf.len();
            buf.extend_from_slice(&part[..room]);
            input.consume(room);
            return Ok(Some(true));
        }
        buf.extend_from_slice(part);
        let used = end.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if end.is_some() {
            return Ok(Some(false));
        }
    }
}

/// Skips the rest of a line.
fn skip_line(input: &mut impl BufRead) {
    while let Ok(chunk) = input.fill_buf() {
        if chunk.is_empty() {
            return;
        }
        let end = chunk.iter().position(|&b| b == b'\n');
        let used = end.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if end.is_some() {
            return;
        }
    }
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
