//! The tree-walking executor this engine had before its rules were compiled
//! to closures: kept, for now, only as the reference the compiled executor
//! is checked against move by move (`tests/differential.rs`). Not for use.
//! This file holds the position, making and unmaking moves, and the
//! outcome; the moves (listing, drawing, trying, naming) are in `moves.rs`,
//! the statements in `statements.rs`, the expressions in `eval.rs`.
#![allow(dead_code)]

use std::sync::Arc;

use super::game::*;
use super::{Halt, Move, Outcome, Position, Turn, Verdict, arrange};
use rand::Rng;

use crate::syntax::ast::Quant;

mod eval;
mod moves;
mod statements;

/// A halt inside the engine: one word, `Illegal` without allocating and the
/// others boxed, so that a `Res<Value>` is returned in two registers rather
/// than through memory (the evaluator returns one per node). The public
/// functions give back a [`Halt`].
struct Fault(Option<Box<Halt>>);

impl Fault {
    const ILLEGAL: Fault = Fault(None);
    #[cold]
    fn error(m: String) -> Fault {
        Fault(Some(Box::new(Halt::Error(m))))
    }
    #[cold]
    fn at(m: String, span: crate::diagnostics::Span) -> Fault {
        Fault(Some(Box::new(Halt::At(m, span))))
    }
    fn is_illegal(&self) -> bool {
        self.0.is_none()
    }
    /// An error without a place given `span`'s; a refusal as it is.
    fn within(self, span: crate::diagnostics::Span) -> Fault {
        match self.0.map(|h| *h) {
            None => Fault(None),
            Some(Halt::Error(m)) => Fault::at(m, span),
            Some(h) => Fault(Some(Box::new(h))),
        }
    }
    fn halt(self) -> Halt {
        match self.0 {
            None => Halt::Illegal,
            Some(h) => *h,
        }
    }
}

type Res<T> = Result<T, Fault>;

/// Where the draws of `random` start in setup, in scoring, in what is looked
/// at after a move (phase changes, `end`s) and after a position is set, so
/// that none repeats the numbers of a move made at the same ply.
const SETUP_DRAWS: u64 = 1 << 32;
const SCORE_DRAWS: u64 = 2 << 32;
const AFTER_DRAWS: u64 = 3 << 32;
const SETTLE_DRAWS: u64 = 4 << 32;

/// Most moves [`Engine::legal_moves`] lists; more must be counted, sampled or
/// found by name.
const MAX_LISTED: u128 = 1_000_000;

/// What a move did, as the statements run.
#[derive(Clone, Copy)]
struct Frame {
    mover: PlayerId,
    next: PlayerId,
    last: Option<SiteId>,
    last_colour: Option<u8>,
    again: bool,
    end: bool,
    enter: Option<u8>,
    /// The move's order of colours.
    order: u128,
    /// The site the latest lap of sowing was lifted from.
    origin: Option<SiteId>,
    /// `start P`: who begins the next round.
    start: Option<PlayerId>,
    /// Whether a move is being made (`before` reads the position saved
    /// before it).
    moving: bool,
}

impl Frame {
    fn new(mover: PlayerId) -> Frame {
        Frame {
            mover,
            next: mover,
            last: None,
            last_colour: None,
            again: false,
            end: false,
            enter: None,
            order: 0,
            origin: None,
            start: None,
            moving: false,
        }
    }
}

/// What each lap of a sowing goes by (see [`RefEngine::lap`]).
struct Sowing<'a> {
    track: &'a Expr,
    it: u8,
    /// The colours in the move's order (its first lap only).
    ordered: bool,
    fixed_skips: &'a [Expr],
    skips: &'a [Expr],
    start: Option<&'a Expr>,
    each: &'a [Stmt],
}

/// Where enumerated moves go. A group is the `n` moves that share a
/// declaration and choices and differ only in their order of colours.
enum Sink<'a> {
    List(&'a mut Vec<Move>),
    Any(bool),
    Count(u128),
    Groups(&'a mut Vec<(Move, u128)>),
    /// Groups, a move that must be tried left untried (tried when drawn).
    Candidates(&'a mut Vec<(Move, u128)>),
}

impl Sink<'_> {
    fn done(&self) -> bool {
        matches!(self, Sink::Any(true))
    }

    fn offer(&mut self, mv: Move, n: u128) -> Res<()> {
        match self {
            Sink::List(out) => {
                if out.len() as u128 + n > MAX_LISTED {
                    return Err(Fault::error(format!(
                        "more than {MAX_LISTED} legal moves: too many to list (count or sample them instead)"
                    )));
                }
                // A group is the orders mv.order .. mv.order + n.
                for r in 0..n {
                    out.push(Move { order: mv.order + r, ..mv });
                }
            }
            Sink::Any(found) => *found |= n > 0,
            Sink::Count(total) => *total = total.saturating_add(n),
            Sink::Groups(out) | Sink::Candidates(out) => {
                if n > 0 {
                    out.push((mv, n));
                }
            }
        }
        Ok(())
    }
}

pub struct RefEngine {
    pub game: Arc<Game>,
    pos: Position,
    undo_counts: Vec<i32>,
    undo_vars: Vec<Value>,
    undo_turns: Vec<Turn>,
    locals: Vec<Value>,
    scratch: Vec<Vec<Move>>,
    /// The groups of moves a random move is drawn from (reused buffer).
    candidates: super::draw::Candidates,
    /// Which of the moves being listed an `avoid` names (reused buffer).
    avoided: Vec<bool>,
    /// Local variables kept aside while `can-move` looks for moves.
    saved_locals: Vec<Value>,
    depth: usize,
    /// Work left before the rules are stopped as running away: one unit per
    /// loop step and sowing step, refilled by every public call.
    fuel: u64,
    /// The game's seed, from which `random` draws.
    seed: u64,
    /// Draws made by `random` since the move (or scoring) began.
    draws: u64,
    /// Tabulated fixed skip clauses: (key, whether each site of the track is
    /// skipped), the key being the clauses' address, the mover and the track.
    skip_masks: Vec<((usize, u8, u16), Vec<bool>)>,
    /// Sites left out of [`hash`](Self::hash) (empty: none), and whether the
    /// rules have read how many counters one of them holds since they were
    /// set. See [`set_banks`](Self::set_banks).
    banks: Vec<bool>,
    bank_read: bool,
}

impl Clone for RefEngine {
    fn clone(&self) -> Self {
        RefEngine {
            game: self.game.clone(),
            pos: self.pos.clone(),
            undo_counts: self.undo_counts.clone(),
            undo_vars: self.undo_vars.clone(),
            undo_turns: self.undo_turns.clone(),
            locals: self.locals.clone(),
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            saved_locals: vec![],
            depth: 0,
            fuel: FUEL,
            seed: self.seed,
            draws: 0,
            skip_masks: self.skip_masks.clone(),
            banks: self.banks.clone(),
            bank_read: self.bank_read,
        }
    }
}

impl RefEngine {
    /// A new game in its starting position (after `setup`), seed 0.
    pub fn new(game: Arc<Game>) -> Result<Self, Halt> {
        RefEngine::with_seed(game, 0)
    }

    /// A new game whose `random` draws come from `seed`.
    pub fn with_seed(game: Arc<Game>, seed: u64) -> Result<Self, Halt> {
        let n = game.sites.len() * game.colours;
        let mut e = RefEngine {
            locals: vec![Value::None; game.locals.max(1) + 4],
            pos: Position { counts: vec![0; n], vars: vec![Value::None; game.state_slots()], turn: Turn::default() },
            undo_counts: Vec::with_capacity(n * 256),
            undo_vars: Vec::with_capacity(game.state_slots() * 256),
            undo_turns: Vec::with_capacity(256),
            scratch: vec![],
            candidates: Default::default(),
            avoided: vec![],
            saved_locals: vec![],
            depth: 0,
            fuel: FUEL,
            seed,
            draws: 0,
            skip_masks: Vec::new(),
            banks: Vec::new(),
            bank_read: false,
            game,
        };
        let g = e.game.clone();
        // Territory: each site's owner starts as its declaration says.
        if let Some((var, kind)) = g.territory {
            let offset = g.state[var as usize].offset;
            for (i, site) in g.sites.iter().enumerate().filter(|(_, s)| s.kind == kind) {
                e.pos.vars[offset + i] = site.owner.map_or(Value::None, Value::Player);
            }
        }
        let mut f = Frame::new(0);
        // Setup draws from its own stream, apart from the first move's.
        e.draws = SETUP_DRAWS;
        e.run(&g.setup, &mut f).map_err(Fault::halt)?;
        // `start P` in the setup: P begins.
        e.pos.turn.to_move = f.start.unwrap_or(e.pos.turn.to_move);
        e.pos.turn.starter = e.pos.turn.to_move;
        Ok(e)
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Counters in a site, of every colour.
    pub fn site_count(&self, s: SiteId) -> i32 {
        let c = self.game.colours;
        if c == 1 {
            return self.pos.counts[s as usize];
        }
        self.pos.counts[s as usize * c..(s as usize + 1) * c].iter().sum()
    }

    /// Counters of one colour (a player's) in a site.
    pub fn colour_count(&self, s: SiteId, colour: PlayerId) -> i32 {
        let c = self.game.colours;
        if c == 1 {
            return self.pos.counts[s as usize];
        }
        self.pos.counts.get(s as usize * c + colour as usize).copied().unwrap_or(0)
    }

    /// Replaces the position (a position set from text). Like a move, the
    /// change is pushed on the undo stack, so [`undo`](Self::undo) reverts it.
    pub fn set_position(&mut self, pos: Position) -> Result<(), String> {
        if pos.counts.len() != self.pos.counts.len() || pos.vars.len() != self.pos.vars.len() {
            return Err(format!(
                "a position of {} counts, but this board has {}",
                pos.counts.len(),
                self.pos.counts.len()
            ));
        }
        if pos.turn.to_move as usize >= self.game.players.len()
            || pos.turn.phase as usize >= self.game.phases.len().max(1)
        {
            return Err("no such player or phase".into());
        }
        if let Some(c) = pos.counts.iter().find(|&&c| c < 0) {
            return Err(format!("a count of {c}: counts cannot be negative"));
        }
        if pos.counts.iter().map(|&c| c as i64).sum::<i64>() > MAX_COUNT as i64 {
            return Err(format!("more than {MAX_COUNT} counters"));
        }
        self.push_undo();
        self.pos = pos;
        Ok(())
    }

    /// After a position is set from text: if an `end` condition holds, its
    /// statements run and the game is over, as they would after a move.
    pub fn settle(&mut self) -> Result<(), Halt> {
        self.settle_r().map_err(Fault::halt)
    }

    fn settle_r(&mut self) -> Res<()> {
        self.fuel = FUEL;
        self.draws = SETTLE_DRAWS;
        let mut f = Frame::new(self.pos.turn.to_move);
        self.ends(&mut f)
    }

    /// The first `end` whose condition holds ends the game: its verdict
    /// (who it names, asked before its statements run), its statements.
    /// With none, and `when stuck: end { ... }`, a player to move who has
    /// no move ends it, losing with `when stuck: lose`.
    fn ends(&mut self, f: &mut Frame) -> Res<()> {
        let g = self.game.clone();
        for e in &g.ends {
            // An error the condition or the verdict meets is shown there.
            if self.eval(&e.cond, f).map_err(|x| x.within(e.cond_span))?.truthy() {
                let verdict = match &e.verdict {
                    Some((true, who)) => Verdict::Wins(self.player_of(who, f).map_err(|x| x.within(e.verdict_span))?),
                    Some((false, who)) => Verdict::Loses(self.player_of(who, f).map_err(|x| x.within(e.verdict_span))?),
                    None => Verdict::Score,
                };
                self.run(&e.body, f)?;
                self.pos.turn.ended = true;
                self.pos.turn.verdict = verdict;
                return Ok(());
            }
        }
        let stuck = self.pos.turn.to_move;
        if !g.stuck_body.is_empty() && !self.can_move(stuck)? {
            self.run(&g.stuck_body, f)?;
            self.pos.turn.ended = true;
            if g.stuck == StuckAction::Lose {
                self.pos.turn.verdict = Verdict::Loses(stuck);
            }
        }
        Ok(())
    }

    pub fn to_move(&self) -> PlayerId {
        self.pos.turn.to_move
    }

    /// A hash of the position (counters, state, whose turn, phase, whether
    /// ended; not the ply), for transposition tables.
    pub fn hash(&self) -> u64 {
        let keys = super::hash_keys(self.pos.counts.len() + self.pos.vars.len());
        super::position_hash(&super::keys_without(&keys, &self.banks, self.game.colours), &self.pos)
    }

    /// Makes `sites` banks: sites that [`hash`](Self::hash) leaves out, for
    /// a table of positions that holds when what the banks hold makes no
    /// difference to the play. Whether it does is watched, not assumed:
    /// [`bank_read`](Self::bank_read) tells whether the rules have read a
    /// bank's count since (by `count`, or by sowing, taking or swapping
    /// from it; the score is not watched). An empty list ends it.
    pub fn set_banks(&mut self, sites: &[SiteId]) {
        self.banks.clear();
        if !sites.is_empty() {
            self.banks.resize(self.game.sites.len(), false);
            for &s in sites {
                self.banks[s as usize] = true;
            }
        }
        self.bank_read = false;
    }

    /// Whether the rules have read a bank's count since
    /// [`set_banks`](Self::set_banks).
    pub fn bank_read(&self) -> bool {
        self.bank_read
    }

    /// Notes that the rules read how many counters `s` holds.
    #[inline]
    fn read(&mut self, s: SiteId) {
        if let Some(&true) = self.banks.get(s as usize) {
            self.bank_read = true;
        }
    }

    /// Notes that the rules read the counts of a site or a set of sites.
    fn read_all(&mut self, v: Value) {
        let banks = &self.banks;
        self.bank_read |= match v {
            Value::Site(s) => banks.get(s as usize) == Some(&true),
            Value::Set(set) => self.game.sets[set as usize].iter().any(|&s| banks[s as usize]),
            Value::Mask(m) => (0..64).any(|b| m & (1 << b) != 0 && banks.get(b) == Some(&true)),
            _ => false,
        };
    }

    pub fn total_counters(&self) -> i64 {
        self.pos.counts.iter().map(|&c| c as i64).sum()
    }

    fn push_undo(&mut self) {
        self.undo_counts.extend_from_slice(&self.pos.counts);
        self.undo_vars.extend_from_slice(&self.pos.vars);
        self.undo_turns.push(self.pos.turn);
    }

    /// Swaps the position with the one saved last (the position before the
    /// move being made); swapping again swaps back.
    fn swap_with_saved(&mut self) {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        let t = self.undo_turns.last_mut().expect("a move being made is saved");
        std::mem::swap(t, &mut self.pos.turn);
        let at = self.undo_counts.len() - n;
        self.undo_counts[at..].swap_with_slice(&mut self.pos.counts);
        let at = self.undo_vars.len() - v;
        self.undo_vars[at..].swap_with_slice(&mut self.pos.vars);
    }

    // ---- making and unmaking moves --------------------------------------

    /// Makes a move, which must be one of [`legal_moves`](Self::legal_moves).
    /// On an error the position is left as it was.
    pub fn apply(&mut self, mv: Move) -> Result<(), Halt> {
        self.apply_r(mv).map_err(Fault::halt)
    }

    fn apply_r(&mut self, mv: Move) -> Res<()> {
        self.fuel = FUEL;
        self.apply_frame(mv).map(|_| ())
    }

    fn apply_frame(&mut self, mv: Move) -> Res<Frame> {
        self.push_undo();
        match self.apply_inner(mv) {
            Ok(f) => Ok(f),
            Err(e) => {
                self.undo();
                Err(e)
            }
        }
    }

    /// The statements of `mv` (its rules' included), run on the position.
    fn statements(&mut self, mv: Move) -> Res<Frame> {
        let g = self.game.clone();
        let mut f = Frame::new(self.pos.turn.to_move);
        f.order = mv.order;
        f.moving = true;
        self.draws = 0;
        if !mv.is_pass() {
            let def =
                g.moves.get(mv.def as usize).ok_or_else(|| Fault::error(format!("no move declaration {}", mv.def)))?;
            self.bind_params(def, def.params.len(), &mv);
            self.run(&def.body, &mut f)?;
        }
        Ok(f)
    }

    fn apply_inner(&mut self, mv: Move) -> Res<Frame> {
        let g = self.game.clone();
        let np = g.players.len() as u8;
        let mover = self.pos.turn.to_move;
        let mut f = self.statements(mv)?;
        self.pos.turn.ply += 1;
        // What follows is looked at from the next ply: its draws must not
        // repeat those of the move to be made at that ply.
        self.draws = AFTER_DRAWS;
        f.next = if f.again { mover } else { (mover + 1) % np };
        // The position after the move, whose turn and phase included, is what
        // `end` conditions look at (`repetitions` compares all of it).
        self.pos.turn.to_move = f.next;
        if let Some(p) = f.enter {
            self.pos.turn.phase = p;
        } else if let Some(ph) = g.phases.get(self.pos.turn.phase as usize) {
            for (to, cond, span) in &ph.transitions {
                if self.eval(cond, &f).map_err(|x| x.within(*span))?.truthy() {
                    self.pos.turn.phase = *to;
                    break;
                }
            }
        }
        if f.end {
            self.pos.turn.ended = true;
        } else {
            self.ends(&mut f)?;
        }
        // A round over: its statements set up the next, which the player
        // they `start` begins (else the player to move).
        if !self.pos.turn.ended {
            for r in &g.rounds {
                if self.eval(&r.cond, &f).map_err(|x| x.within(r.cond_span))?.truthy() {
                    f.start = None;
                    self.run(&r.body, &mut f)?;
                    let t = &mut self.pos.turn;
                    t.round = t.round.saturating_add(1);
                    t.to_move = f.start.unwrap_or(t.to_move);
                    t.starter = t.to_move;
                    f.next = t.to_move;
                    break;
                }
            }
        }
        Ok(f)
    }

    /// Unmakes the last move made. Returns false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(t) = self.undo_turns.pop() else {
            return false;
        };
        let n = self.pos.counts.len();
        let at = self.undo_counts.len() - n;
        self.pos.counts.copy_from_slice(&self.undo_counts[at..]);
        self.undo_counts.truncate(at);
        let v = self.pos.vars.len();
        let at = self.undo_vars.len() - v;
        self.pos.vars.copy_from_slice(&self.undo_vars[at..]);
        self.undo_vars.truncate(at);
        self.pos.turn = t;
        true
    }

    // ---- outcome --------------------------------------------------------

    /// The outcome, once the game is over (no legal moves).
    pub fn outcome(&mut self) -> Result<Option<Outcome>, Halt> {
        self.outcome_r().map_err(Fault::halt)
    }

    fn outcome_r(&mut self) -> Res<Option<Outcome>> {
        if self.count_moves_r()? > 0 {
            return Ok(None);
        }
        let scores = self.scores_r()?;
        let best = scores.iter().copied().max().unwrap_or(0);
        let turn = self.pos.turn;
        // Partners win together: a player's side is its group's first.
        let side = |q: PlayerId| self.game.partners.iter().find(|g| g.contains(&q)).map_or(q, |g| g[0]);
        // Who wins: the side named by the `end` that ended the game (or
        // the other sides, of the side it names the loser); else the
        // player to move, stuck with no `end` run, loses with `when stuck:
        // lose`; else the best score.
        let stuck_loses = !turn.ended && self.game.stuck == StuckAction::Lose;
        let wins = |i: PlayerId| match turn.verdict {
            Verdict::Wins(w) => side(i) == side(w),
            Verdict::Loses(l) => side(i) != side(l),
            Verdict::Score if stuck_loses => side(i) != side(turn.to_move),
            Verdict::Score => scores[i as usize] == best,
        };
        let winners = (0..scores.len() as PlayerId).filter(|&i| wins(i)).collect();
        Ok(Some(Outcome { scores, winners }))
    }

    /// Each player's score in the current position.
    pub fn scores(&mut self) -> Result<Vec<i64>, Halt> {
        self.scores_r().map_err(Fault::halt)
    }

    fn scores_r(&mut self) -> Res<Vec<i64>> {
        self.fuel = FUEL;
        // Scoring may draw random numbers (dice): one sequence for all
        // players, apart from the last move's (which drew at the same ply).
        self.draws = SCORE_DRAWS;
        let players = self.game.players.len();
        let mut out = Vec::with_capacity(players);
        for p in 0..players as u8 {
            // Partners share one score: the first partner's, worked out once.
            match self.game.partners.iter().find(|gr| gr.contains(&p)).map(|gr| gr[0]).filter(|&f| f != p) {
                Some(first) => out.push(out[first as usize]),
                None => out.push(self.score_inner(p)?),
            }
        }
        Ok(out)
    }

    /// One player's score now (partners share the first partner's), without
    /// allocating: the solver asks it at every node.
    pub fn score_of(&mut self, p: PlayerId) -> Result<i64, Halt> {
        self.score_of_r(p).map_err(Fault::halt)
    }

    fn score_of_r(&mut self, p: PlayerId) -> Res<i64> {
        self.fuel = FUEL;
        self.draws = SCORE_DRAWS;
        self.score_inner(p)
    }

    fn score_inner(&mut self, p: PlayerId) -> Res<i64> {
        let p = self.game.partners.iter().find(|gr| gr.contains(&p)).map_or(p, |gr| gr[0]);
        let g = self.game.clone();
        let f = Frame::new(self.pos.turn.to_move);
        self.locals[g.score.0 as usize] = Value::Player(p);
        // The score may read banks: it is not part of the play.
        let watched = self.bank_read;
        let r = self.eval(&g.score.1, &f).and_then(|v| v.int());
        self.bank_read = watched;
        r.map_err(|x| match g.score_span {
            Some(span) => x.within(span),
            None => x,
        })
    }
}

fn param_text(g: &Game, def: &MoveDef, i: usize, a: i32) -> String {
    match def.params.get(i).map(|p| arg_value(p, a)) {
        Some(Value::Site(x)) => g.sites[x as usize].name.clone(),
        Some(Value::Player(p)) => g.players[p as usize].clone(),
        Some(Value::Int(v)) => v.to_string(),
        Some(Value::Track(t)) => {
            g.tracks[t as usize].label.clone().unwrap_or_else(|| g.tracks[t as usize].name.clone())
        }
        _ => "?".into(),
    }
}

fn arg_value(p: &Param, a: i32) -> Value {
    match p.domain {
        Domain::Range(..) => Value::Int(a as i64),
        Domain::Set(_) => Value::Site(a as SiteId),
        Domain::Players => Value::Player(a as PlayerId),
        // The order itself is the move's `order`, read by `sow ... in order`.
        Domain::Arrangements(_) => Value::None,
        Domain::Tracks => Value::Track(a as u16),
        Domain::Walk { .. } => Value::Site(a as SiteId),
    }
}

/// Most counters a game may have; `put` refuses to go beyond it, and no
/// move can, since moves conserve counters.
const MAX_COUNT: i32 = 100_000_000;
/// Most values a range in a rule may run over during play.
const MAX_RANGE: i64 = 100_000;

/// Loop and sowing steps one call of the engine may take.
const FUEL: u64 = 20_000_000;

/// An overflow, worded as the executor words it, not yet put at its
/// place (see `Expr::Spanned`).
fn overflow() -> Fault {
    Fault::error(TOO_LARGE.into())
}

fn check_range(lo: i64, hi: i64) -> Res<()> {
    if hi.saturating_sub(lo) >= MAX_RANGE {
        return Err(Fault::error(format!("the range {lo}..{hi} has more than {MAX_RANGE} values")));
    }
    Ok(())
}

/// The range of the choice `choice` of move `def`: every value one a move
/// can hold (32 bits).
fn check_choice_range(lo: i64, hi: i64, def: &str, choice: &str) -> Res<()> {
    check_range(lo, hi)?;
    if lo <= hi && (lo < i32::MIN as i64 || hi > i32::MAX as i64) {
        let (min, max) = (i32::MIN, i32::MAX);
        return Err(Fault::error(format!(
            "move `{def}`: the numbers {lo}..{hi} to choose `{choice}` from go past what a move can hold ({min}..{max})"
        )));
    }
    Ok(())
}

fn type_halt(want: &str, got: Value) -> Fault {
    match got {
        Value::None => Fault::error(format!(
            "expected {want}, but there is none here (a player owning no such site, or a site with no owner)"
        )),
        other => Fault::error(format!("expected {want}, found {other:?}")),
    }
}

impl Value {
    fn truthy(self) -> bool {
        matches!(self, Value::Bool(true))
    }
    fn int(self) -> Res<i64> {
        match self {
            Value::Int(i) => Ok(i),
            other => Err(type_halt("a number", other)),
        }
    }
    fn site(self) -> Res<SiteId> {
        match self {
            Value::Site(s) => Ok(s),
            other => Err(type_halt("a site", other)),
        }
    }
    fn player(self) -> Res<PlayerId> {
        match self {
            Value::Player(p) => Ok(p),
            other => Err(type_halt("a player", other)),
        }
    }
    fn track(self) -> Res<u16> {
        match self {
            Value::Track(t) => Ok(t),
            other => Err(type_halt("a track", other)),
        }
    }
}
