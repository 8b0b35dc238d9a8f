//! The tree-walking executor this engine had before its rules were compiled
//! to closures: kept, for now, only as the reference the compiled executor
//! is checked against move by move (`tests/differential.rs`). Not for use.
#![allow(dead_code)]

use std::sync::Arc;

use super::game::*;
use super::{Halt, Move, Outcome, Position, Turn, Verdict, arrange};
use rand::Rng;

use crate::syntax::ast::Quant;

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
            if self.eval(&e.cond, f)?.truthy() {
                let verdict = match &e.verdict {
                    Some((true, who)) => Verdict::Wins(self.player_of(who, f)?),
                    Some((false, who)) => Verdict::Loses(self.player_of(who, f)?),
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

    // ---- legal moves ----------------------------------------------------

    /// The legal moves of the player to move, into `out` (cleared first).
    /// Empty exactly when the game is over. Refuses (with an error) to list
    /// more than [`MAX_LISTED`].
    pub fn legal_moves(&mut self, out: &mut Vec<Move>) -> Result<(), Halt> {
        self.legal_moves_r(out).map_err(Fault::halt)
    }

    fn legal_moves_r(&mut self, out: &mut Vec<Move>) -> Res<()> {
        self.fuel = FUEL;
        out.clear();
        if self.pos.turn.ended {
            return Ok(());
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::List(out))?;
        if out.is_empty() {
            if self.must_pass(me)? {
                out.push(Move::PASS);
            }
            return Ok(());
        }
        if self.game.avoids.is_empty() {
            return Ok(());
        }
        // `avoid`: drop the moves whose result it names, unless all do.
        let mut bad = std::mem::take(&mut self.avoided);
        bad.clear();
        for &mv in out.iter() {
            match self.violates_avoid(mv) {
                Ok(b) => bad.push(b),
                Err(e) => {
                    self.avoided = bad;
                    return Err(e);
                }
            }
        }
        if bad.iter().any(|b| !b) {
            let mut flag = bad.iter();
            out.retain(|_| flag.next().is_some_and(|b| !b));
        }
        self.avoided = bad;
        Ok(())
    }

    /// Whether the player to move, having no move, passes (someone else can
    /// move and the rules say pass).
    fn must_pass(&mut self, me: PlayerId) -> Res<bool> {
        if self.game.stuck != StuckAction::Pass {
            return Ok(false);
        }
        let np = self.game.players.len() as u8;
        for k in 1..np {
            if self.can_move((me + k) % np)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many legal moves there are, without listing them when no `avoid`
    /// needs each one tried.
    pub fn count_moves(&mut self) -> Result<u128, Halt> {
        self.count_moves_r().map_err(Fault::halt)
    }

    fn count_moves_r(&mut self) -> Res<u128> {
        self.fuel = FUEL;
        if self.pos.turn.ended {
            return Ok(0);
        }
        if !self.game.avoids.is_empty() {
            let mut buf = self.take_scratch();
            let r = self.legal_moves_r(&mut buf).map(|_| buf.len() as u128);
            self.give_scratch(buf);
            return r;
        }
        let me = self.pos.turn.to_move;
        let mut sink = Sink::Count(0);
        self.raw(me, &mut sink)?;
        let Sink::Count(n) = sink else { unreachable!() };
        if n == 0 && self.must_pass(me)? {
            return Ok(1);
        }
        Ok(n)
    }

    /// A legal move drawn uniformly at random without listing them: a move
    /// that must be tried (or judged by an `avoid`) is tried only when drawn,
    /// and another drawn if it is refused (see `draw.rs`); `None` when the
    /// game is over. A rule error in a move is met only if that move is
    /// drawn: listing the moves tries them all and meets it at once.
    pub fn sample_move(&mut self, rng: &mut impl Rng) -> Result<Option<Move>, Halt> {
        self.sample_move_r(rng).map_err(Fault::halt)
    }

    fn sample_move_r(&mut self, rng: &mut impl Rng) -> Res<Option<Move>> {
        self.fuel = FUEL;
        // A move that must be tried, or looked at by an `avoid`, is tried
        // when drawn (see `draw`).
        let mut c = std::mem::take(&mut self.candidates);
        let r = self.draw_legal(rng, &mut c);
        self.candidates = c;
        r
    }

    fn draw_legal(&mut self, rng: &mut impl Rng, c: &mut super::draw::Candidates) -> Res<Option<Move>> {
        c.clear();
        if self.pos.turn.ended {
            return Ok(None);
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::Candidates(&mut c.groups))?;
        c.counted();
        while let Some((mv, number)) = c.draw(rng) {
            if c.mostly_refused() {
                // Most candidates refused: drawn from the list instead.
                c.clear();
                if !self.game.avoids.is_empty() {
                    let mut buf = Vec::new();
                    self.legal_moves_r(&mut buf)?;
                    return Ok((!buf.is_empty()).then(|| buf[rng.gen_range(0..buf.len())]));
                }
                self.groups(&mut c.groups)?;
                c.counted();
                return Ok(c.draw(rng).map(|(mv, _)| mv));
            }
            if self.game.moves[mv.def as usize].needs_trial && !self.trial(mv, me)? {
                c.refuse(number);
                continue;
            }
            if self.game.avoids.is_empty() {
                return Ok(Some(mv));
            }
            c.refuse(number);
            if !self.violates_avoid(mv)? {
                return Ok(Some(mv));
            }
            c.avoided.push(mv);
        }
        if !c.avoided.is_empty() {
            return Ok(Some(c.avoided[rng.gen_range(0..c.avoided.len())]));
        }
        if self.must_pass(me)? {
            return Ok(Some(super::draw::Candidates::pass(rng)));
        }
        Ok(None)
    }

    /// The groups of legal moves: each a move and how many orders of colours
    /// it comes in (1 for a move without an order). Not filtered by `avoid`.
    fn groups(&mut self, out: &mut Vec<(Move, u128)>) -> Res<()> {
        out.clear();
        if self.pos.turn.ended {
            return Ok(());
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::Groups(out))?;
        if out.is_empty() && self.must_pass(me)? {
            out.push((Move::PASS, 1));
        }
        Ok(())
    }

    /// A summary of the legal moves: each group's name (the order of colours
    /// left out) and its number of orders.
    pub fn move_summary(&mut self) -> Result<Vec<(String, u128)>, Halt> {
        self.move_summary_r().map_err(Fault::halt)
    }

    fn move_summary_r(&mut self) -> Res<Vec<(String, u128)>> {
        self.fuel = FUEL;
        if !self.game.avoids.is_empty() {
            let mut buf = Vec::new();
            self.legal_moves_r(&mut buf)?;
            return Ok(buf.iter().map(|m| (self.move_name(*m), 1)).collect());
        }
        let mut groups = Vec::new();
        self.groups(&mut groups)?;
        Ok(groups.iter().map(|&(m, n)| (self.group_name(m), n)).collect())
    }

    /// The legal move that has this name; `None` if none has. A move with an
    /// order of colours matches its name with the order written out, or
    /// without it, meaning the default order (seat order).
    pub fn find_move(&mut self, name: &str) -> Result<Option<Move>, Halt> {
        self.find_move_r(name).map_err(Fault::halt)
    }

    fn find_move_r(&mut self, name: &str) -> Res<Option<Move>> {
        self.fuel = FUEL;
        if !self.game.avoids.is_empty() {
            let mut buf = Vec::new();
            self.legal_moves_r(&mut buf)?;
            return Ok(buf.iter().copied().find(|m| self.move_name(*m) == name));
        }
        let mut groups = Vec::new();
        self.groups(&mut groups)?;
        for (mv, n) in groups {
            if n == 1 && !self.has_order(mv) {
                if self.move_name(mv) == name {
                    return Ok(Some(mv));
                }
                continue;
            }
            if self.group_name(mv) == name {
                return Ok(Some(mv));
            }
            let Some((prefix, suffix)) = self.order_frame(mv) else {
                continue;
            };
            let Some(middle) = name.strip_prefix(prefix.as_str()).and_then(|r| r.strip_suffix(suffix.as_str())) else {
                continue;
            };
            let letters = &self.game.colour_letters;
            let seq: Option<Vec<usize>> = middle.chars().map(|ch| letters.iter().position(|&l| l == ch)).collect();
            let Some(seq) = seq else { continue };
            let counts = self.order_counts(mv)?;
            if let Some(r) = arrange::rank(&counts.1[..counts.0], seq) {
                let m = Move { order: r, ..mv };
                // A group of one tried order: only that order was found legal.
                let def = &self.game.moves[mv.def as usize];
                if def.needs_trial && !(n == 1 && mv.order == r) && !self.trial(m, self.pos.turn.to_move)? {
                    return Ok(None);
                }
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    fn violates_avoid(&mut self, mv: Move) -> Res<bool> {
        let f = self.apply_frame(mv)?;
        let g = self.game.clone();
        let mut bad = false;
        for (_, cond) in &g.avoids {
            match self.eval(cond, &f) {
                Ok(v) if v.truthy() => {
                    bad = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.undo();
                    return Err(e);
                }
            }
        }
        self.undo();
        Ok(bad)
    }

    /// An empty buffer from the pool (buffers are reused, so nothing is
    /// allocated once the pool is warm).
    fn take_scratch(&mut self) -> Vec<Move> {
        let mut v = self.scratch.pop().unwrap_or_default();
        v.clear();
        v
    }
    fn give_scratch(&mut self, v: Vec<Move>) {
        self.scratch.push(v);
    }

    /// Whether `p` would have any move if it were their turn now.
    fn can_move(&mut self, p: PlayerId) -> Res<bool> {
        let saved = self.pos.turn.to_move;
        self.pos.turn.to_move = p;
        // Finding moves binds local variables; the caller's are kept aside.
        let mark = self.saved_locals.len();
        self.saved_locals.extend_from_slice(&self.locals);
        let mut sink = Sink::Any(false);
        let r = self.raw(p, &mut sink);
        self.locals.copy_from_slice(&self.saved_locals[mark..]);
        self.saved_locals.truncate(mark);
        self.pos.turn.to_move = saved;
        r.map(|_| matches!(sink, Sink::Any(true)))
    }

    /// Moves for `p` by the move declarations alone (no `avoid`, no pass).
    fn raw(&mut self, p: PlayerId, sink: &mut Sink) -> Res<()> {
        self.depth += 1;
        if self.depth > 64 {
            self.depth -= 1;
            return Err(Fault::error("rules recurse too deeply while looking for legal moves".into()));
        }
        let g = self.game.clone();
        let phase = self.pos.turn.phase;
        let mut r = Ok(());
        for (d, def) in g.moves.iter().enumerate() {
            if def.phase != phase {
                continue;
            }
            let f = Frame::new(p);
            let mut mv = Move { def: d as u16, args: [0; 4], order: 0 };
            r = self.enumerate(def, 0, &mut mv, &f, sink);
            if r.is_err() || sink.done() {
                break;
            }
        }
        self.depth -= 1;
        r
    }

    /// Offers the move `mv` (all choices made) if it is legal: checked by its
    /// precheck, or by trying it when its legality depends on its effects.
    fn leaf(&mut self, def: &MoveDef, mv: Move, f: &Frame, n: u128, sink: &mut Sink) -> Res<()> {
        if let Some(k) = def.nonempty {
            self.read(mv.args[k] as SiteId);
            if self.site_count(mv.args[k] as SiteId) == 0 {
                return Ok(());
            }
        }
        if !def.needs_trial || matches!(sink, Sink::Candidates(_)) {
            return sink.offer(mv, n);
        }
        // Try each order: legality may depend on where the colours fall.
        for r in 0..n {
            let m = Move { order: r, ..mv };
            if self.trial(m, f.mover)? {
                sink.offer(m, 1)?;
                if sink.done() {
                    break;
                }
            }
            if r >= MAX_LISTED {
                return Err(Fault::error(format!("more than {MAX_LISTED} orders of colours to try one by one")));
            }
        }
        Ok(())
    }

    /// Whether making `mv` as `mover` succeeds (the position is restored).
    /// Its statements alone decide: what follows a move (phase changes,
    /// `end`s, being stuck) decides nothing about it.
    fn trial(&mut self, mv: Move, mover: PlayerId) -> Res<bool> {
        let saved = self.pos.turn.to_move;
        self.pos.turn.to_move = mover;
        self.push_undo();
        let r = self.statements(mv);
        if r.is_err() {
            self.undo();
        }
        let ok = match r {
            Ok(_) => {
                self.undo();
                true
            }
            Err(e) if e.is_illegal() => false,
            Err(e) => {
                self.pos.turn.to_move = saved;
                return Err(e);
            }
        };
        self.pos.turn.to_move = saved;
        Ok(ok)
    }

    /// Binds choice `i` to `v` (written `arg` in the move) and, if its
    /// `where` holds, enumerates the choices after it. True when the sink
    /// wants no more moves.
    #[allow(clippy::too_many_arguments)]
    fn try_choice(
        &mut self,
        def: &MoveDef,
        i: usize,
        mv: &mut Move,
        f: &Frame,
        sink: &mut Sink,
        v: Value,
        arg: i32,
    ) -> Res<bool> {
        self.tick()?;
        self.bind_params(def, i, mv);
        let p = &def.params[i];
        self.locals[p.slot as usize] = v;
        if !self.choice_ok(p, f)? {
            return Ok(false);
        }
        mv.args[i] = arg;
        self.enumerate(def, i + 1, mv, f, sink)?;
        Ok(sink.done())
    }

    fn enumerate(&mut self, def: &MoveDef, i: usize, mv: &mut Move, f: &Frame, sink: &mut Sink) -> Res<()> {
        if i == def.params.len() {
            return self.leaf(def, *mv, f, 1, sink);
        }
        let p = &def.params[i];
        // Bind earlier choices again: evaluation of later domains may use them.
        self.bind_params(def, i, mv);
        match &p.domain {
            Domain::Range(a, b) => {
                let lo = self.eval(a, f)?.int()?;
                let hi = self.eval(b, f)?.int()?;
                check_range(lo, hi)?;
                for v in lo..=hi {
                    if self.try_choice(def, i, mv, f, sink, Value::Int(v), v as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Set(s) => {
                let set = self.eval(s, f)?;
                let n = self.set_len(set)?;
                for k in 0..n {
                    let site = self.set_item(set, k)?;
                    if self.try_choice(def, i, mv, f, sink, Value::Site(site), site as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Players => {
                for pl in 0..self.game.players.len() as u8 {
                    if self.try_choice(def, i, mv, f, sink, Value::Player(pl), pl as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Tracks => {
                for t in 0..self.game.tracks.len() as u16 {
                    if self.try_choice(def, i, mv, f, sink, Value::Track(t), t as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Walk { .. } => return Err(Fault::error("a walk is no choice".into())),
            Domain::Arrangements(site) => {
                // The last choice: every order of the site's colours, as one group.
                let s = self.eval(site, f)?.site()?;
                self.read(s);
                let (k, counts) = self.colours_of(s);
                let n = arrange::multinomial(&counts[..k]).ok_or_else(|| {
                    Fault::error(format!(
                        "`{}` holds too many counters to number their orders",
                        self.game.sites[s as usize].name
                    ))
                })?;
                mv.args[i] = 0;
                mv.order = 0;
                return self.leaf(def, *mv, f, n, sink);
            }
        }
        Ok(())
    }

    /// The next number drawn from the game's seed. It depends only on the
    /// seed, the ply and how many draws this move made before, so a move that
    /// is tried and then made draws the same numbers both times.
    fn random(&mut self) -> u64 {
        self.draws += 1;
        let mut z = self.seed
            ^ (self.pos.turn.ply as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self.draws.wrapping_mul(0xD1B5_4A32_D192_ED03);
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// How many times the current position occurred before in this game
    /// (the same counters, state and player to move, in the same phase).
    fn repetitions(&self) -> usize {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        (0..self.undo_turns.len())
            .filter(|&k| {
                let t = self.undo_turns[k];
                t.to_move == self.pos.turn.to_move
                    && t.phase == self.pos.turn.phase
                    && self.undo_counts[k * n..(k + 1) * n] == self.pos.counts[..]
                    && self.undo_vars[k * v..(k + 1) * v] == self.pos.vars[..]
            })
            .count()
    }

    /// The seed `random` draws from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Sets the seed `random` draws from (the game's `--seed`).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// The glyph a site is drawn with: the first `glyph` whose condition holds.
    pub fn glyph(&mut self, s: SiteId) -> Option<String> {
        let g = self.game.clone();
        let f = Frame::new(self.pos.turn.to_move);
        for (text, cond) in &g.glyphs {
            self.locals[g.glyph_slot as usize] = Value::Site(s);
            if self.eval(cond, &f).map(|v| v.truthy()).unwrap_or(false) {
                return Some(text.clone());
            }
        }
        None
    }

    /// The index of the table of fixed skip clauses for this sowing, mover
    /// and track, made on first use.
    fn skip_mask(&mut self, clauses: &[Expr], it: u8, f: &Frame, t: u16) -> Res<usize> {
        let key = (clauses.as_ptr() as usize, f.mover, t);
        if let Some(i) = self.skip_masks.iter().position(|(k, _)| *k == key) {
            return Ok(i);
        }
        let g = self.game.clone();
        let mut mask = Vec::with_capacity(g.tracks[t as usize].sites.len());
        for &site in &g.tracks[t as usize].sites {
            self.locals[it as usize] = Value::Site(site);
            let mut skip = false;
            for c in clauses {
                if self.eval(c, f)?.truthy() {
                    skip = true;
                    break;
                }
            }
            mask.push(skip);
        }
        self.skip_masks.push((key, mask));
        Ok(self.skip_masks.len() - 1)
    }

    /// A per-site state variable kept for one kind of site has no value for
    /// a site of another kind.
    fn check_kind(&self, var: u16, site: usize) -> Res<()> {
        let v = &self.game.state[var as usize];
        match v.kind {
            Some(k) if self.game.sites[site].kind != k => Err(Fault::error(format!(
                "`{}` is kept for every {}; `{}` is a {}",
                v.name,
                k.word(),
                self.game.sites[site].name,
                self.game.sites[site].kind.word()
            ))),
            _ => Ok(()),
        }
    }

    fn tick(&mut self) -> Res<()> {
        if self.fuel == 0 {
            return Err(Fault::error(format!(
                "the rules ran for more than {FUEL} steps in one call: a loop that never ends, or loops nested too deep"
            )));
        }
        self.fuel -= 1;
        Ok(())
    }

    fn bind_params(&mut self, def: &MoveDef, upto: usize, mv: &Move) {
        for (j, pj) in def.params[..upto].iter().enumerate() {
            self.locals[pj.slot as usize] = arg_value(pj, mv.args[j]);
        }
    }

    fn choice_ok(&mut self, p: &Param, f: &Frame) -> Res<bool> {
        match &p.filter {
            None => Ok(true),
            Some(c) => Ok(self.eval(c, f)?.truthy()),
        }
    }

    /// The counts of each colour in a site.
    fn colours_of(&self, s: SiteId) -> (usize, [u32; arrange::MAX_COLOURS]) {
        let c = self.game.colours.min(arrange::MAX_COLOURS);
        let mut out = [0u32; arrange::MAX_COLOURS];
        for (k, o) in out.iter_mut().enumerate().take(c) {
            *o = self.colour_count(s, k as u8).max(0) as u32;
        }
        (c, out)
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
            for (to, cond) in &ph.transitions {
                if self.eval(cond, &f)?.truthy() {
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
                if self.eval(&r.cond, &f)?.truthy() {
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
        r
    }

    // ---- statements -----------------------------------------------------

    fn run(&mut self, stmts: &[Stmt], f: &mut Frame) -> Res<()> {
        for s in stmts {
            self.stmt(s, f)?;
        }
        Ok(())
    }

    fn add(&mut self, s: SiteId, colour: usize, n: i32) {
        let c = self.game.colours;
        self.pos.counts[s as usize * c + colour] += n;
    }

    /// Counters of colour `c` taken to `dst`, or out of the game.
    fn give(&mut self, dst: Option<SiteId>, c: usize, n: i32) {
        match dst {
            Some(d) => self.add(d, c, n),
            None => self.pos.turn.removed += n as u32,
        }
    }

    /// A walk along a track from a site on (`backwards`: against its
    /// direction), a lap at most and to the end of a linear track, while
    /// its condition holds at the site (bound to `slot`): `each` is called
    /// at every site until it says stop (true).
    fn walk(
        &mut self,
        (track, from, backwards, cond): (&Expr, &Expr, bool, Option<&Expr>),
        slot: u8,
        f: &mut Frame,
        each: &mut dyn FnMut(&mut Self, &mut Frame) -> Res<bool>,
    ) -> Res<()> {
        let t = self.eval(track, f)?.track()?;
        let from = self.site_of(from, f)?;
        let g = self.game.clone();
        let track = &g.tracks[t as usize];
        let Some(start) = track.position[from as usize] else {
            return Err(Fault::error(format!(
                "`{}` is not on track `{}`: a walk starts from a site of its track",
                g.sites[from as usize].name, track.name
            )));
        };
        let len = track.sites.len() as i64;
        for k in 0..len {
            let place = if backwards { start as i64 - k } else { start as i64 + k };
            let place = match track.cyclic {
                true => place.rem_euclid(len),
                false if (0..len).contains(&place) => place,
                false => break,
            };
            self.tick()?;
            self.locals[slot as usize] = Value::Site(track.sites[place as usize]);
            if let Some(c) = cond
                && !self.eval(c, f)?.truthy()
            {
                break;
            }
            if each(self, f)? {
                break;
            }
        }
        Ok(())
    }

    /// One lap of a sowing: the counters of `src` (`amount` of them if
    /// given) lifted and sown one by one along the track, from the site
    /// after `src` or from `starting at`'s site, skips asked at each place,
    /// `each`'s statements run after each counter.
    fn lap(&mut self, s: &Sowing, src: SiteId, amount: Option<i64>, f: &mut Frame) -> Res<()> {
        let t = self.eval(s.track, f)?.track()?;
        self.read(src);
        let have = self.site_count(src);
        let n = amount.unwrap_or(have as i64);
        if n <= 0 || n > have as i64 {
            return Err(Fault::ILLEGAL);
        }
        f.origin = Some(src);
        // The colours lifted, in the order they are sown.
        let (k, mut lifted) = self.colours_of(src);
        if n < have as i64 {
            // Part of a coloured site: colours in seat order.
            let mut left = n as u32;
            for c in lifted.iter_mut().take(k) {
                let take = (*c).min(left);
                *c = take;
                left -= take;
            }
        }
        let rank = if s.ordered { f.order } else { 0 };
        let mut colours = arrange::Unrank::new(&lifted[..k], rank).ok_or_else(|| {
            Fault::error(format!("no order {rank} of the counters in `{}`", self.game.sites[src as usize].name))
        })?;
        for (c, &m) in lifted.iter().enumerate().take(k) {
            self.add(src, c, -(m as i32));
        }
        let g = self.game.clone();
        let track = &g.tracks[t as usize];
        let len = track.sites.len();
        if len == 0 {
            return Err(Fault::error(format!("track `{}` has no sites", track.name)));
        }
        // The fixed skip clauses, tabulated once for this mover and track.
        let fixed = if s.fixed_skips.is_empty() { None } else { Some(self.skip_mask(s.fixed_skips, s.it, f, t)?) };
        // The place before the first counter's: the source's, or the one
        // before the site the lap starts at (-1: before the track's first).
        let mut pos: isize = match s.start {
            None => track.position[src as usize].map(|p| p as isize).unwrap_or(-1),
            Some(x) => {
                let x = self.eval(x, f)?.site()?;
                match track.position[x as usize] {
                    Some(p) => p as isize - 1,
                    None => {
                        return Err(Fault::error(format!(
                            "a sowing starting at `{}`, which is not on track `{}`",
                            g.sites[x as usize].name, track.name
                        )));
                    }
                }
            }
        };
        let mut left = n;
        let mut idle = 0;
        while left > 0 {
            self.tick()?;
            pos += 1;
            if pos as usize >= len {
                if !track.cyclic {
                    return Err(Fault::ILLEGAL);
                }
                pos = 0;
            }
            let site = track.sites[pos as usize];
            // The tabulated clauses first, then those tested here.
            let mut skip = fixed.is_some_and(|m| self.skip_masks[m].1[pos as usize]);
            if !skip && !s.skips.is_empty() {
                self.locals[s.it as usize] = Value::Site(site);
                for c in s.skips {
                    if self.eval(c, f)?.truthy() {
                        skip = true;
                        break;
                    }
                }
            }
            if skip {
                idle += 1;
                if idle > len {
                    return Err(Fault::error(format!(
                        "every site of track `{}` is skipped: the sowing cannot go on",
                        track.name
                    )));
                }
                continue;
            }
            idle = 0;
            let colour = colours.next_colour().unwrap_or(0);
            self.add(site, colour, 1);
            left -= 1;
            f.last = Some(site);
            f.last_colour = Some(colour as u8);
            self.run(s.each, f)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, f: &mut Frame) -> Res<()> {
        match &s.kind {
            StmtKind::Sow { amount, source, track, it, ordered, fixed_skips, skips, start, relay, each, lap } => {
                let mut src = self.eval(source, f)?.site()?;
                let mut amount = match amount {
                    Some(a) => Some(self.eval(a, f)?.int()?),
                    None => None,
                };
                let most = match relay.as_ref().and_then(|r| r.max.as_ref()) {
                    Some(m) => self.eval(m, f)?.int()?,
                    None => i64::MAX,
                };
                // Lap after lap while the relay goes on (one lap without one).
                let mut laps = 1;
                loop {
                    let sowing = Sowing {
                        track,
                        it: *it,
                        ordered: *ordered && laps == 1,
                        fixed_skips,
                        skips,
                        start: start.as_ref(),
                        each,
                    };
                    self.lap(&sowing, src, amount, f)?;
                    self.run(lap, f)?;
                    let Some(r) = relay else { return Ok(()) };
                    if !self.eval(&r.cond, f)?.truthy() {
                        return Ok(());
                    }
                    src = match &r.from {
                        Some(x) => self.eval(x, f)?.site()?,
                        None => f
                            .last
                            .ok_or_else(|| Fault::error("`last` is used before any sowing of this move".into()))?,
                    };
                    // Nothing to lift: the relay ends.
                    self.read(src);
                    if self.site_count(src) == 0 {
                        return Ok(());
                    }
                    if laps >= most {
                        return Err(Fault::ILLEGAL);
                    }
                    laps += 1;
                    amount = None;
                    self.tick()?;
                }
            }
            StmtKind::Take { amount, colour, from, to } => {
                // Where the counters go: a site, or out of the game (`remove`).
                let dst = match to {
                    Some(to) => Some(self.eval(to, f)?.site()?),
                    None => None,
                };
                let src = self.eval(from, f)?;
                let colour = match colour {
                    Some(c) => Some(self.eval(c, f)?.player()? as usize),
                    None => None,
                };
                match amount {
                    Some(a) => {
                        let n = self.eval(a, f)?.int()?;
                        let s = src.site()?;
                        let c = colour.unwrap_or(0);
                        self.read(s);
                        let have = if colour.is_some() { self.colour_count(s, c as u8) } else { self.site_count(s) };
                        if n < 0 || n > have as i64 {
                            return Err(Fault::ILLEGAL);
                        }
                        self.add(s, c, -(n as i32));
                        self.give(dst, c, n as i32);
                    }
                    None => {
                        let len = self.set_len(src)?;
                        let k = self.game.colours;
                        for j in 0..len {
                            let s = self.set_item(src, j)?;
                            if Some(s) == dst {
                                continue;
                            }
                            self.read(s);
                            for c in 0..k {
                                if colour.is_some_and(|x| x != c) {
                                    continue;
                                }
                                let m = std::mem::take(&mut self.pos.counts[s as usize * k + c]);
                                self.give(dst, c, m);
                            }
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Put { amount, colour, target } => {
                let n = self.eval(amount, f)?.int()?;
                if !(0..=1_000_000).contains(&n) {
                    return Err(Fault::error(format!("`put` of {n} counters: must be 0 to 1000000")));
                }
                let colour = match colour {
                    Some(c) => self.eval(c, f)?.player()? as usize,
                    None => 0,
                };
                let t = self.eval(target, f)?;
                // The limit on all counters reads every count, banks too.
                self.bank_read |= !self.banks.is_empty();
                for k in 0..self.set_len(t)? {
                    let s = self.set_item(t, k)?;
                    if self.total_counters() + n > MAX_COUNT as i64 {
                        return Err(Fault::error(format!("`put` would make more than {MAX_COUNT} counters in all")));
                    }
                    self.add(s, colour, n as i32);
                }
                Ok(())
            }
            StmtKind::If { branches, otherwise } => {
                for (cond, then) in branches {
                    if self.eval(cond, f)?.truthy() {
                        return self.run(then, f);
                    }
                }
                self.run(otherwise, f)
            }
            StmtKind::For { var, domain, body } => match domain {
                Domain::Players => {
                    for p in 0..self.game.players.len() as u8 {
                        self.locals[*var as usize] = Value::Player(p);
                        self.run(body, f)?;
                    }
                    Ok(())
                }
                Domain::Range(a, b) => {
                    let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                    check_range(lo, hi)?;
                    for v in lo..=hi {
                        self.tick()?;
                        self.locals[*var as usize] = Value::Int(v);
                        self.run(body, f)?;
                    }
                    Ok(())
                }
                Domain::Set(s) => {
                    let set = self.eval(s, f)?;
                    for k in 0..self.set_len(set)? {
                        self.locals[*var as usize] = Value::Site(self.set_item(set, k)?);
                        self.run(body, f)?;
                    }
                    Ok(())
                }
                Domain::Walk { track, from, backwards, cond } => {
                    let walk = (track, from, *backwards, cond.as_deref());
                    self.walk(walk, *var, f, &mut |r, f| r.run(body, f).map(|_| false))
                }
                Domain::Arrangements(_) | Domain::Tracks => {
                    Err(Fault::error("a loop over arrangements or tracks".into()))
                }
            },
            StmtKind::Let { var, value } => {
                self.locals[*var as usize] = self.eval(value, f)?;
                Ok(())
            }
            StmtKind::Set { var, site, value } => {
                let v = &self.game.state[*var as usize];
                let slot = match site {
                    Some(x) => {
                        let offset = v.offset;
                        let s = self.eval(x, f)?.site()? as usize;
                        self.check_kind(*var, s)?;
                        offset + s
                    }
                    None => v.offset,
                };
                self.pos.vars[slot] = self.eval(value, f)?;
                Ok(())
            }
            StmtKind::Swap(a, b) => {
                let (a, b) = (self.eval(a, f)?.site()? as usize, self.eval(b, f)?.site()? as usize);
                self.read(a as SiteId);
                self.read(b as SiteId);
                let k = self.game.colours;
                for c in 0..k {
                    self.pos.counts.swap(a * k + c, b * k + c);
                }
                let g = self.game.clone();
                for v in g.state.iter().filter(|v| v.per_site) {
                    self.pos.vars.swap(v.offset + a, v.offset + b);
                }
                Ok(())
            }
            StmtKind::Enter(p) => {
                f.enter = Some(*p);
                Ok(())
            }
            StmtKind::Require(c) => {
                if self.eval(c, f)?.truthy() {
                    Ok(())
                } else {
                    Err(Fault::ILLEGAL)
                }
            }
            StmtKind::Again => {
                f.again = true;
                Ok(())
            }
            StmtKind::Start(x) => {
                f.start = Some(self.player_of(x, f)?);
                Ok(())
            }
            StmtKind::EndGame => {
                f.end = true;
                Ok(())
            }
        }
    }

    // ---- expressions ----------------------------------------------------

    fn set_len(&self, v: Value) -> Res<usize> {
        match v {
            Value::Site(_) => Ok(1),
            Value::Set(s) => Ok(self.game.sets[s as usize].len()),
            Value::Mask(m) => Ok(m.count_ones() as usize),
            other => Err(type_halt("a set of sites", other)),
        }
    }

    fn set_item(&self, v: Value, k: usize) -> Res<SiteId> {
        match v {
            Value::Site(s) => Ok(s),
            Value::Set(s) => Ok(self.game.sets[s as usize][k]),
            Value::Mask(mut m) => {
                for _ in 0..k {
                    m &= m - 1;
                }
                Ok(m.trailing_zeros() as SiteId)
            }
            other => Err(type_halt("a set of sites", other)),
        }
    }

    /// The value of an expression. The common nodes are here, their
    /// operands of the commonest shapes read in place (see
    /// [`value_of`](Self::value_of)); the rest are in
    /// [`eval_cold`](Self::eval_cold), so that this function, called once a
    /// node, stays small.
    fn eval(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Local(s) => self.locals[*s as usize],
            Expr::Builtin(b) => match b {
                Builtin::Mover => Value::Player(f.mover),
                Builtin::Next => Value::Player(f.next),
                Builtin::Last => match f.last {
                    Some(s) => Value::Site(s),
                    None => {
                        return Err(Fault::error("`last` is used before any sowing of this move".into()));
                    }
                },
                Builtin::Ply => Value::Int(self.pos.turn.ply as i64),
                Builtin::Repetitions => Value::Int(self.repetitions() as i64),
                Builtin::Origin => match f.origin {
                    Some(s) => Value::Site(s),
                    None => {
                        return Err(Fault::error("`origin` is used before any sowing of this move".into()));
                    }
                },
                Builtin::Rounds => Value::Int(self.pos.turn.round as i64),
                Builtin::Starter => Value::Player(self.pos.turn.starter),
                Builtin::LastColour => match f.last_colour {
                    Some(c) => Value::Player(c),
                    None => {
                        return Err(Fault::error("`last-colour` is used before any sowing of this move".into()));
                    }
                },
            },
            Expr::Count(x, colour) => {
                let v = self.value_of(x, f)?;
                let colour = match colour {
                    Some(c) => Some(self.eval(c, f)?.player()?),
                    None => None,
                };
                let one = |e: &RefEngine, s: SiteId| match colour {
                    Some(c) => e.colour_count(s, c) as i64,
                    None => e.site_count(s) as i64,
                };
                if !self.banks.is_empty() {
                    self.read_all(v);
                }
                match v {
                    Value::Site(s) => Value::Int(one(self, s)),
                    Value::Set(set) => Value::Int(self.game.sets[set as usize].iter().map(|&s| one(self, s)).sum()),
                    Value::Mask(m) => {
                        Value::Int((0..64).filter(|b| m & (1 << b) != 0).map(|b| one(self, b as SiteId)).sum())
                    }
                    other => return Err(type_halt("a site", other)),
                }
            }
            Expr::State(v) => {
                let var = &self.game.state[*v as usize];
                match self.pos.vars[var.offset] {
                    // A value never set is false, 0 or none (grammar/README.md).
                    Value::None if var.ty == Type::Bool => Value::Bool(false),
                    Value::None if var.ty == Type::Int => Value::Int(0),
                    x => x,
                }
            }
            Expr::SiteState(v, x) => {
                let s = self.site_of(x, f)? as usize;
                self.check_kind(*v, s)?;
                let var = &self.game.state[*v as usize];
                match self.pos.vars[var.offset + s] {
                    // A per-site value never set is false, 0 or no value.
                    Value::None if var.ty == Type::Bool => Value::Bool(false),
                    Value::None if var.ty == Type::Int => Value::Int(0),
                    x => x,
                }
            }
            Expr::Owner(x) => {
                let s = self.site_of(x, f)?;
                match self.game.territory {
                    // Territory: the owner kept as state, for its kind of site.
                    Some((var, kind)) if self.game.sites[s as usize].kind == kind => {
                        match self.pos.vars[self.game.state[var as usize].offset + s as usize] {
                            v @ Value::Player(_) => v,
                            _ => Value::None,
                        }
                    }
                    _ => self.game.sites[s as usize].owner.map(Value::Player).unwrap_or(Value::None),
                }
            }
            Expr::OwnedSite(kind, p) => {
                let p = self.player_of(p, f)?;
                let k = kind.index();
                self.game.owned[k].get(p as usize).copied().flatten().map(Value::Site).unwrap_or(Value::None)
            }
            Expr::Relation(r, x) => {
                let s = self.site_of(x, f)?;
                match self.game.relations[*r as usize].1[s as usize] {
                    Some(t) => Value::Site(t),
                    None => {
                        return Err(Fault::error(format!(
                            "relation `{}` names no site for `{}`",
                            self.game.relations[*r as usize].0, self.game.sites[s as usize].name
                        )));
                    }
                }
            }
            Expr::IsKind(x, k) => {
                let s = self.site_of(x, f)?;
                Value::Bool(self.game.sites[s as usize].kind == *k)
            }
            Expr::KindSet(kind, p) => {
                let p = self.player_of(p, f)?;
                match self.game.territory {
                    // Territory: the sites of the kind the player owns now.
                    Some((var, k)) if k == *kind => {
                        let offset = self.game.state[var as usize].offset;
                        let mut mask = 0u64;
                        for s in (0..self.game.sites.len()).filter(|&s| self.game.sites[s].kind == k) {
                            if self.pos.vars[offset + s] == Value::Player(p) {
                                if s >= 64 {
                                    return Err(Fault::error(
                                        "a player's sites, when their owners change, can be only among the first 64"
                                            .into(),
                                    ));
                                }
                                mask |= 1 << s;
                            }
                        }
                        Value::Mask(mask)
                    }
                    _ => Value::Set(self.game.kind_sets[kind.index()][p as usize]),
                }
            }
            Expr::Not(x) => Value::Bool(!self.value_of(x, f)?.truthy()),
            Expr::Bin(op, a, b) => {
                match op {
                    BinOp::And => {
                        return Ok(Value::Bool(self.value_of(a, f)?.truthy() && self.value_of(b, f)?.truthy()));
                    }
                    BinOp::Or => {
                        return Ok(Value::Bool(self.value_of(a, f)?.truthy() || self.value_of(b, f)?.truthy()));
                    }
                    _ => {}
                }
                let x = self.value_of(a, f)?;
                let y = self.value_of(b, f)?;
                match op {
                    BinOp::Eq => Value::Bool(x == y),
                    BinOp::Ne => Value::Bool(x != y),
                    // Sites compare by the order they are declared in.
                    _ if matches!((x, y), (Value::Site(_), Value::Site(_))) => {
                        let (Value::Site(x), Value::Site(y)) = (x, y) else { unreachable!() };
                        Value::Bool(match op {
                            BinOp::Lt => x < y,
                            BinOp::Le => x <= y,
                            BinOp::Gt => x > y,
                            _ => x >= y,
                        })
                    }
                    _ => {
                        let (x, y) = (x.int()?, y.int()?);
                        match op {
                            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
                            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
                            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
                            BinOp::Div | BinOp::Mod if y == 0 => {
                                return Err(Fault::error("division by zero".into()));
                            }
                            BinOp::Div => Value::Int(x.checked_div_euclid(y).ok_or_else(overflow)?),
                            BinOp::Mod => Value::Int(x.checked_rem_euclid(y).ok_or_else(overflow)?),
                            BinOp::Lt => Value::Bool(x < y),
                            BinOp::Le => Value::Bool(x <= y),
                            BinOp::Gt => Value::Bool(x > y),
                            _ => Value::Bool(x >= y),
                        }
                    }
                }
            }
            _ => return self.eval_cold(e, f),
        })
    }

    /// An operand's value: constants, local variables and the mover read
    /// in place, anything else evaluated.
    #[inline(always)]
    fn value_of(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        match e {
            Expr::Const(v) => Ok(*v),
            Expr::Local(s) => Ok(self.locals[*s as usize]),
            Expr::Builtin(Builtin::Mover) => Ok(Value::Player(f.mover)),
            _ => self.eval(e, f),
        }
    }

    /// An operand that must be a site.
    #[inline(always)]
    fn site_of(&mut self, e: &Expr, f: &Frame) -> Res<SiteId> {
        match (e, f.last) {
            (Expr::Builtin(Builtin::Last), Some(s)) => Ok(s),
            _ => self.value_of(e, f)?.site(),
        }
    }

    /// An operand that must be a player.
    #[inline(always)]
    fn player_of(&mut self, e: &Expr, f: &Frame) -> Res<PlayerId> {
        self.value_of(e, f)?.player()
    }

    /// The nodes met less often than those of [`eval`](Self::eval).
    #[inline(never)]
    fn eval_cold(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        Ok(match e {
            // Made only in the executor's program (`program/cse.rs`), never
            // in the rules this executor runs: worked out as written.
            Expr::Keep(_, x) | Expr::Kept(_, x) => self.eval(x, f)?,
            Expr::Member(x, set) => {
                let s = self.site_of(x, f)?;
                let set = self.eval(set, f)?;
                let mut found = false;
                for k in 0..self.set_len(set)? {
                    if self.set_item(set, k)? == s {
                        found = true;
                        break;
                    }
                }
                Value::Bool(found)
            }
            Expr::Filter(set, slot, cond) => {
                let set = self.eval(set, f)?;
                let mut mask = 0u64;
                for k in 0..self.set_len(set)? {
                    let s = self.set_item(set, k)?;
                    if s >= 64 {
                        return Err(Fault::error("a set filtered during play can hold only the first 64 sites".into()));
                    }
                    self.locals[*slot as usize] = Value::Site(s);
                    if self.eval(cond, f)?.truthy() {
                        mask |= 1 << s;
                    }
                }
                Value::Mask(mask)
            }
            Expr::Cond(c, a, b) => {
                if self.eval(c, f)?.truthy() {
                    self.eval(a, f)?
                } else {
                    self.eval(b, f)?
                }
            }
            Expr::OnTrack(x, t) => {
                let s = self.site_of(x, f)?;
                let t = self.eval(t, f)?.track()?;
                Value::Bool(self.game.tracks[t as usize].position[s as usize].is_some())
            }
            Expr::Random(a, b) => {
                let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                if hi < lo {
                    return Err(Fault::error(format!("random({lo}, {hi}): the range is empty")));
                }
                // As wide as 2^64 numbers (the width wraps to 0): any draw.
                let width = (hi.wrapping_sub(lo) as u64).wrapping_add(1);
                let r = self.random();
                Value::Int(lo.wrapping_add(if width == 0 { r } else { r % width } as i64))
            }
            Expr::Opponent(p) => Value::Player(1 - self.player_of(p, f)?),
            // Arithmetic is spanned where it is written: an overflow in it
            // is reported there, as the executor reports it.
            Expr::Spanned(span, x) => match self.eval(x, f) {
                Err(Fault(Some(h))) if matches!(&*h, Halt::Error(m) if m == TOO_LARGE) => {
                    return Err(Fault::at(self.game.too_large(*span), *span));
                }
                v => v?,
            },
            Expr::Before(x) => {
                if !f.moving || self.undo_turns.is_empty() {
                    return Err(Fault::error("`before` is used where no move is being made".into()));
                }
                self.swap_with_saved();
                let r = self.eval(x, f);
                self.swap_with_saved();
                r?
            }
            Expr::Step(x, t, n) => {
                let s = self.site_of(x, f)?;
                let t = self.eval(t, f)?.track()?;
                let n = self.eval(n, f)?.int()?;
                let track = &self.game.tracks[t as usize];
                let Some(at) = track.position[s as usize] else {
                    return Err(Fault::error(format!(
                        "`{}` is not on track `{}`",
                        self.game.sites[s as usize].name, track.name
                    )));
                };
                // Walked place by place: round a cyclic track (forward, as
                // far as `n` comes to), off either end of a linear one to none.
                let len = track.sites.len() as i64;
                let (mut place, dir, walk) = match track.cyclic {
                    true => (at as i64, 1, n.rem_euclid(len)),
                    false => (at as i64, n.signum(), n.unsigned_abs().min(len as u64 + 1) as i64),
                };
                for _ in 0..walk {
                    place += dir;
                    if place == len && track.cyclic {
                        place = 0;
                    }
                }
                match usize::try_from(place).ok().and_then(|k| track.sites.get(k)) {
                    Some(&s) => Value::Site(s),
                    None => Value::None,
                }
            }
            Expr::First(x) => {
                let set = self.eval(x, f)?;
                match self.set_len(set)? {
                    0 => Value::None,
                    _ => Value::Site(self.set_item(set, 0)?),
                }
            }
            Expr::Side(p) => {
                let p = self.player_of(p, f)?;
                let side = self.game.partners.iter().find(|g| g.contains(&p)).map_or(p, |g| g[0]);
                Value::Player(side)
            }
            Expr::Hook(h, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, f)?);
                }
                let g = self.game.clone();
                let hooks = g.hooks.as_ref().ok_or_else(|| Fault::error("no hooks".into()))?;
                hooks.call(&g, *h, &vals).map_err(|(m, span)| Fault::at(m, span))?
            }
            Expr::Index(x) => {
                let s = self.site_of(x, f)?;
                match &self.game.sites[s as usize].family {
                    Some((_, i)) => Value::Int(*i),
                    None => {
                        return Err(Fault::error(format!(
                            "`{}` belongs to no family, so it has no index",
                            self.game.sites[s as usize].name
                        )));
                    }
                }
            }
            Expr::Family(fam, x) => {
                let key = self.eval(x, f)?;
                match self.game.families[*fam as usize].members.get(&key) {
                    Some(v) => *v,
                    None => {
                        return Err(Fault::error(format!(
                            "`{}` has no member {}",
                            self.game.families[*fam as usize].name,
                            self.game.key_text(key)
                        )));
                    }
                }
            }
            Expr::Neg(x) => Value::Int(self.eval(x, f)?.int()?.checked_neg().ok_or_else(overflow)?),
            Expr::Min(a, b) => Value::Int(self.eval(a, f)?.int()?.min(self.eval(b, f)?.int()?)),
            Expr::Max(a, b) => Value::Int(self.eval(a, f)?.int()?.max(self.eval(b, f)?.int()?)),
            Expr::Quant(q, slot, dom, body) if matches!(&**dom, Domain::Walk { .. }) => {
                let Domain::Walk { track, from, backwards, cond } = &**dom else { unreachable!("a walk") };
                let (mut acc, mut any, mut all) = (0i64, false, true);
                let mut frame = *f;
                self.walk((track, from, *backwards, cond.as_deref()), *slot, &mut frame, &mut |r, f| {
                    let v = r.eval(body, f)?;
                    Ok(match q {
                        Quant::Sum => {
                            acc = acc.checked_add(v.int()?).ok_or_else(overflow)?;
                            false
                        }
                        Quant::Any => {
                            any = v.truthy();
                            any
                        }
                        Quant::All => {
                            all = v.truthy();
                            !all
                        }
                    })
                })?;
                match q {
                    Quant::Sum => Value::Int(acc),
                    Quant::Any => Value::Bool(any),
                    Quant::All => Value::Bool(all),
                }
            }
            Expr::Quant(q, slot, dom, body) => {
                // The values the variable takes: players, numbers or sites.
                let (lo, hi, set) = match &**dom {
                    Domain::Players => (0, self.game.players.len() as i64 - 1, None),
                    Domain::Range(a, b) => {
                        let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                        check_range(lo, hi)?;
                        (lo, hi, None)
                    }
                    Domain::Set(s) => {
                        let set = self.eval(s, f)?;
                        (0, self.set_len(set)? as i64 - 1, Some(set))
                    }
                    Domain::Arrangements(_) | Domain::Tracks | Domain::Walk { .. } => {
                        return Err(Fault::error("a quantifier over arrangements or tracks".into()));
                    }
                };
                let mut acc: i64 = 0;
                let mut any = false;
                let mut all = true;
                for v in lo..=hi {
                    self.tick()?;
                    self.locals[*slot as usize] = match (set, &**dom) {
                        (Some(set), _) => Value::Site(self.set_item(set, v as usize)?),
                        (None, Domain::Players) => Value::Player(v as u8),
                        _ => Value::Int(v),
                    };
                    let r = self.eval(body, f)?;
                    match q {
                        Quant::Sum => acc = acc.checked_add(r.int()?).ok_or_else(overflow)?,
                        Quant::Any => {
                            if r.truthy() {
                                any = true;
                                break;
                            }
                        }
                        Quant::All => {
                            if !r.truthy() {
                                all = false;
                                break;
                            }
                        }
                    }
                }
                match q {
                    Quant::Sum => Value::Int(acc),
                    Quant::Any => Value::Bool(any),
                    Quant::All => Value::Bool(all),
                }
            }
            Expr::CanMove(p) => {
                let p = self.player_of(p, f)?;
                Value::Bool(self.can_move(p)?)
            }
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::Builtin(_)
            | Expr::Count(..)
            | Expr::State(_)
            | Expr::SiteState(..)
            | Expr::Owner(_)
            | Expr::OwnedSite(..)
            | Expr::Relation(..)
            | Expr::IsKind(..)
            | Expr::KindSet(..)
            | Expr::Not(_)
            | Expr::Bin(..) => return self.eval(e, f),
        })
    }

    // ---- names ----------------------------------------------------------

    /// The name a player types for a move: its declaration's template filled
    /// in, an order of colours written as the colours' letters.
    pub fn move_name(&mut self, mv: Move) -> String {
        self.render_name(mv, true)
    }

    /// A move's name without its order of colours.
    fn group_name(&mut self, mv: Move) -> String {
        self.render_name(mv, false)
    }

    fn has_order(&self, mv: Move) -> bool {
        self.game
            .moves
            .get(mv.def as usize)
            .is_some_and(|d| d.params.iter().any(|p| matches!(p.domain, Domain::Arrangements(_))))
    }

    /// The counts of colours an arrangement choice of `mv` orders.
    fn order_counts(&mut self, mv: Move) -> Res<(usize, [u32; arrange::MAX_COLOURS])> {
        let g = self.game.clone();
        let def = &g.moves[mv.def as usize];
        let Some(p) = def.params.iter().find(|p| matches!(p.domain, Domain::Arrangements(_))) else {
            return Ok((0, [0; arrange::MAX_COLOURS]));
        };
        let Domain::Arrangements(site) = &p.domain else { unreachable!() };
        self.bind_params(def, def.params.len(), &mv);
        let s = self.eval(site, &Frame::new(self.pos.turn.to_move))?.site()?;
        Ok(self.colours_of(s))
    }

    /// The text before and after the order of colours in a move's name.
    fn order_frame(&mut self, mv: Move) -> Option<(String, String)> {
        let g = self.game.clone();
        let def = g.moves.get(mv.def as usize)?;
        let at = def.template.iter().position(
            |t| matches!(t, TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_))),
        )?;
        let render = |parts: &[TemplatePart]| {
            let mut s = String::new();
            for part in parts {
                match part {
                    TemplatePart::Text(t) => s.push_str(t),
                    TemplatePart::Param(i) => s.push_str(&param_text(&g, def, *i, mv.args[*i])),
                }
            }
            s
        };
        Some((render(&def.template[..at]), render(&def.template[at + 1..])))
    }

    fn render_name(&mut self, mv: Move, with_order: bool) -> String {
        if mv.is_pass() {
            return "pass".into();
        }
        let g = self.game.clone();
        let Some(def) = g.moves.get(mv.def as usize) else {
            return "?".into();
        };
        let mut s = String::new();
        for part in &def.template {
            match part {
                TemplatePart::Text(t) => s.push_str(t),
                TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_)) => {
                    if with_order {
                        s.push_str(&self.order_text(mv));
                    }
                }
                TemplatePart::Param(i) => s.push_str(&param_text(&g, def, *i, mv.args[*i])),
            }
        }
        if !with_order {
            return s.trim_end().to_string();
        }
        s
    }

    /// A move's order of colours as letters, e.g. `rrbg`.
    fn order_text(&mut self, mv: Move) -> String {
        let Ok((k, counts)) = self.order_counts(mv) else {
            return "?".into();
        };
        let Some(mut u) = arrange::Unrank::new(&counts[..k], mv.order) else {
            return "?".into();
        };
        std::iter::from_fn(|| u.next_colour())
            .map(|c| self.game.colour_letters.get(c).copied().unwrap_or('?'))
            .collect()
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
