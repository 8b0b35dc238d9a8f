//! A game being played: the commands of the REPL, the history with undo and
//! redo, positions set from text, JSON output, and saved records. It speaks
//! in text and knows nothing of terminals, so the REPL, piped scripts and the
//! transcript tests all drive the same code.
//!
//! One file a concern: `command` (a line read and run), `play` (moves and
//! positions), `history` (undo and redo), `text` (what it says), `json`,
//! `records` (save and load) and `agents` (hints and seats the program plays).

mod agents;
mod command;
mod history;
mod json;
mod play;
mod records;
mod text;

pub use command::{COMMANDS, Command};

use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::compile::{Config, compile_file};
use crate::diagnostics::Failure;
use crate::engine::game::Game;
use crate::engine::{Engine, Move, Position};

/// What a session is started with: the command line's choices.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    pub rules: String,
    pub variants: Vec<String>,
    pub settings: Vec<(String, String)>,
    pub seed: u64,
}

/// One step of the history: a move, or a position set from text.
#[derive(Debug, Clone)]
enum Step {
    /// A move, with its name as it was when made (an order of colours is
    /// named by the counters of its site at the time), and who made it.
    Move(Move, String, crate::engine::game::PlayerId),
    Set(String, Position),
}

/// What a command line answered.
pub struct Reply {
    pub text: String,
    /// The line was `quit`.
    pub quit: bool,
    /// The command was refused (a bad command, an illegal move, a bad
    /// position or record), or a rule went wrong while it ran. A refused
    /// command changes nothing.
    pub refused: bool,
}

pub struct Session {
    pub setup: Setup,
    game: Arc<Game>,
    engine: Engine,
    history: Vec<Step>,
    redo: Vec<Step>,
    rng: ChaCha8Rng,
    buf: Vec<Move>,
    /// Paint coloured counters with terminal colours.
    pub color: bool,
    /// Seats the program plays, and with which agent.
    ai: Vec<Option<crate::ai::AgentSpec>>,
    /// After an undo (or a search stopped by Ctrl-C) the agents wait until
    /// the person takes a step, so that looking around (or a typo) does not
    /// make them move again.
    agents_wait: bool,
}

impl Session {
    pub fn new(setup: Setup) -> Result<Session, Failure> {
        let config = Config { variants: setup.variants.clone(), settings: setup.settings.clone() };
        let game = Arc::new(compile_file(&setup.rules, &config)?);
        let engine = Engine::with_seed(game.clone(), setup.seed).map_err(|h| Failure {
            diagnostics: vec![crate::diagnostics::Diagnostic::global(format!("the setup failed: {h}"))],
            sources: game.sources.clone(),
        })?;
        let rng = ChaCha8Rng::seed_from_u64(setup.seed);
        Ok(Session {
            setup,
            game,
            engine,
            history: vec![],
            redo: vec![],
            rng,
            buf: vec![],
            color: false,
            ai: vec![],
            agents_wait: false,
        })
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The steps taken, as a record writes them, and those `redo` would
    /// make again (the next one last): what a refused command must leave
    /// as it was.
    pub fn steps(&self) -> (Vec<String>, Vec<String>) {
        (
            self.history.iter().map(|s| self.step_text(s)).collect(),
            self.redo.iter().map(|s| self.step_text(s)).collect(),
        )
    }

    /// The legal moves' names.
    /// The legal moves' names; where moves come in many orders of colours,
    /// the name of each group (which plays its default order).
    pub fn legal_names(&mut self) -> Vec<String> {
        match self.engine.count_moves() {
            Ok(n) if n <= 500 => {
                let mut buf = std::mem::take(&mut self.buf);
                let names = match self.engine.legal_moves(&mut buf) {
                    Ok(()) => buf.iter().map(|m| self.engine.move_name(*m)).collect(),
                    Err(_) => vec![],
                };
                self.buf = buf;
                names
            }
            Ok(_) => self.engine.move_summary().map(|s| s.into_iter().map(|(n, _)| n).collect()).unwrap_or_default(),
            Err(_) => vec![],
        }
    }
}
