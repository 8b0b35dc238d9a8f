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

use crate::session::{COMMANDS, Session};

/// Plays commands read line by line, printing a plain transcript: each
/// command after `> `, then what it answered. Lines starting with `#` are
/// comments, copied as they are.
pub fn scripted(mut s: Session, input: impl BufRead, out: &mut impl Write) -> i32 {
    let _ = write!(out, "{}", s.banner());
    // Lines that are not UTF-8 are read with replacement characters, so a
    // stray byte costs one refused command, not the rest of the script.
    for line in input.split(b'\n') {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('#') {
            let _ = writeln!(out, "{trimmed}");
            continue;
        }
        let _ = writeln!(out, "> {trimmed}");
        let reply = s.command(trimmed);
        let _ = write!(out, "{}", reply.text);
        if reply.quit {
            break;
        }
    }
    0
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

pub(super) fn interactive(mut s: Session) -> i32 {
    s.color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    print!("{}", s.banner());
    let moves = Rc::new(RefCell::new(s.legal_names()));
    let config =
        rustyline::Config::builder().completion_type(rustyline::CompletionType::List).auto_add_history(false).build();
    let mut rl: Editor<Completion, rustyline::history::DefaultHistory> = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("cannot start the line editor ({e}); reading commands plainly");
            return scripted(s, std::io::stdin().lock(), &mut std::io::stdout());
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
                print!("{}", reply.text);
                if reply.quit {
                    return 0;
                }
                *moves.borrow_mut() = s.legal_names();
            }
            Err(rustyline::error::ReadlineError::Interrupted) => println!("(type `quit` to leave)"),
            Err(_) => return 0,
        }
    }
}
