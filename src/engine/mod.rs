//! The executor: a position of a compiled [`Game`], its legal moves, making
//! and unmaking them, and the outcome. Making a move saves the position on an
//! undo stack that grows once and is reused, so the hot path (legal moves,
//! apply, undo) allocates nothing once warmed up.

pub mod game;

use std::sync::Arc;

use game::*;

use crate::syntax::ast::Quant;

/// A move: which move declaration, and the values it chose. Small and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub def: u16,
    pub args: [i32; 4],
}

impl Move {
    /// The move a player makes when stuck and the rules say pass.
    pub const PASS: Move = Move {
        def: u16::MAX,
        args: [0; 4],
    };
    pub fn is_pass(&self) -> bool {
        self.def == u16::MAX
    }
}

/// The scalar part of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Turn {
    pub to_move: PlayerId,
    pub phase: u8,
    pub ply: u32,
    /// Set when an `end` condition or `end game` ended the game.
    pub ended: bool,
}

/// A position: counters per site and whose turn it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub counts: Vec<i32>,
    pub turn: Turn,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub scores: Vec<i64>,
    /// The players with the highest score: one winner, or several sharing the
    /// win (all of them: a draw).
    pub winners: Vec<PlayerId>,
}

/// Why a move could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Halt {
    /// The move is not legal here (a `require` failed, a sowing ran off a
    /// linear track, a `take` asked for more than there is).
    Illegal,
    /// The rules went wrong at run time; the text says how.
    Error(String),
}

type Res<T> = Result<T, Halt>;

/// What a move did, as the statements run.
#[derive(Clone, Copy)]
struct Frame {
    mover: PlayerId,
    next: PlayerId,
    last: Option<SiteId>,
    again: bool,
    end: bool,
}

pub struct Engine {
    pub game: Arc<Game>,
    pos: Position,
    undo_counts: Vec<i32>,
    undo_turns: Vec<Turn>,
    locals: Vec<Value>,
    scratch: Vec<Vec<Move>>,
    /// Which of the moves being listed an `avoid` names (reused buffer).
    avoided: Vec<bool>,
    /// Local variables kept aside while `can-move` looks for moves.
    saved_locals: Vec<Value>,
    depth: usize,
}

impl Clone for Engine {
    fn clone(&self) -> Self {
        Engine {
            game: self.game.clone(),
            pos: self.pos.clone(),
            undo_counts: self.undo_counts.clone(),
            undo_turns: self.undo_turns.clone(),
            locals: self.locals.clone(),
            scratch: vec![],
            avoided: vec![],
            saved_locals: vec![],
            depth: 0,
        }
    }
}

impl Engine {
    /// A new game in its starting position (after `setup`).
    pub fn new(game: Arc<Game>) -> Result<Self, Halt> {
        let n = game.sites.len();
        let mut e = Engine {
            locals: vec![Value::None; game.locals.max(1) + 4],
            game,
            pos: Position {
                counts: vec![0; n],
                turn: Turn {
                    to_move: 0,
                    phase: 0,
                    ply: 0,
                    ended: false,
                },
            },
            undo_counts: Vec::with_capacity(n * 256),
            undo_turns: Vec::with_capacity(256),
            scratch: vec![],
            avoided: vec![],
            saved_locals: vec![],
            depth: 0,
        };
        let g = e.game.clone();
        let mut f = Frame {
            mover: 0,
            next: 0,
            last: None,
            again: false,
            end: false,
        };
        e.run(&g.setup, &mut f)?;
        Ok(e)
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Replaces the position (a position set from text). Like a move, the
    /// change is pushed on the undo stack, so [`undo`](Self::undo) reverts it.
    pub fn set_position(&mut self, pos: Position) -> Result<(), String> {
        if pos.counts.len() != self.pos.counts.len() {
            return Err(format!(
                "a position of {} sites, but this board has {}",
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
        self.undo_counts.extend_from_slice(&self.pos.counts);
        self.undo_turns.push(self.pos.turn);
        self.pos = pos;
        Ok(())
    }

    pub fn to_move(&self) -> PlayerId {
        self.pos.turn.to_move
    }

    pub fn total_counters(&self) -> i64 {
        self.pos.counts.iter().map(|&c| c as i64).sum()
    }

    /// Moves made since the start (or since the position was set).
    pub fn history_len(&self) -> usize {
        self.undo_turns.len()
    }

    // ---- legal moves ----------------------------------------------------

    /// The legal moves of the player to move, into `out` (cleared first).
    /// Empty exactly when the game is over.
    pub fn legal_moves(&mut self, out: &mut Vec<Move>) -> Res<()> {
        out.clear();
        if self.pos.turn.ended {
            return Ok(());
        }
        let me = self.pos.turn.to_move;
        self.raw_moves(me, out, false)?;
        if out.is_empty() {
            if self.game.stuck == StuckAction::Pass {
                let np = self.game.players.len() as u8;
                for k in 1..np {
                    let other = (me + k) % np;
                    if self.can_move(other)? {
                        out.push(Move::PASS);
                        break;
                    }
                }
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

    fn violates_avoid(&mut self, mv: Move) -> Res<bool> {
        let f = self.apply_frame(mv)?;
        let g = self.game.clone();
        let mut bad = false;
        for (_, cond) in &g.avoids {
            if self.eval(cond, &f)?.truthy() {
                bad = true;
                break;
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
        let mut buf = self.take_scratch();
        let r = self.raw_moves(p, &mut buf, true);
        let any = !buf.is_empty();
        self.give_scratch(buf);
        self.locals.copy_from_slice(&self.saved_locals[mark..]);
        self.saved_locals.truncate(mark);
        self.pos.turn.to_move = saved;
        r.map(|_| any)
    }

    /// Moves for `p` by the move declarations alone (no `avoid`, no pass).
    fn raw_moves(&mut self, p: PlayerId, out: &mut Vec<Move>, first_only: bool) -> Res<()> {
        self.depth += 1;
        if self.depth > 64 {
            self.depth -= 1;
            return Err(Halt::Error(
                "rules recurse too deeply while looking for legal moves".into(),
            ));
        }
        let g = self.game.clone();
        let phase = self.pos.turn.phase;
        let mut r = Ok(());
        for (d, def) in g.moves.iter().enumerate() {
            if def.phase != phase {
                continue;
            }
            let f = Frame {
                mover: p,
                next: p,
                last: None,
                again: false,
                end: false,
            };
            let mut mv = Move {
                def: d as u16,
                args: [0; 4],
            };
            r = self.enumerate(def, 0, &mut mv, &f, out, first_only);
            if r.is_err() || (first_only && !out.is_empty()) {
                break;
            }
        }
        self.depth -= 1;
        r
    }

    fn enumerate(
        &mut self,
        def: &MoveDef,
        i: usize,
        mv: &mut Move,
        f: &Frame,
        out: &mut Vec<Move>,
        first_only: bool,
    ) -> Res<()> {
        if i == def.params.len() {
            if let Some(k) = def.nonempty
                && self.pos.counts[mv.args[k] as usize] == 0
            {
                return Ok(());
            }
            if def.needs_trial {
                let saved = self.pos.turn.to_move;
                self.pos.turn.to_move = f.mover;
                let r = self.apply_frame(*mv);
                match r {
                    Ok(_) => {
                        self.undo();
                    }
                    Err(Halt::Illegal) => {}
                    Err(e) => {
                        self.pos.turn.to_move = saved;
                        return Err(e);
                    }
                }
                self.pos.turn.to_move = saved;
                if r.is_err() {
                    return Ok(());
                }
            }
            out.push(*mv);
            return Ok(());
        }
        let p = &def.params[i];
        // Bind earlier choices again: evaluation of later domains may use them.
        for (j, pj) in def.params[..i].iter().enumerate() {
            self.locals[pj.slot as usize] = arg_value(pj, mv.args[j]);
        }
        match &p.domain {
            Domain::Range(a, b) => {
                let lo = self.eval(a, f)?.int()?;
                let hi = self.eval(b, f)?.int()?;
                check_range(lo, hi)?;
                for v in lo..=hi {
                    self.locals[p.slot as usize] = Value::Int(v);
                    if self.choice_ok(p, f)? {
                        mv.args[i] = v as i32;
                        self.enumerate(def, i + 1, mv, f, out, first_only)?;
                        if first_only && !out.is_empty() {
                            return Ok(());
                        }
                    }
                    for (j, pj) in def.params[..=i].iter().enumerate() {
                        self.locals[pj.slot as usize] = arg_value(pj, mv.args[j]);
                    }
                }
            }
            Domain::Set(s) => {
                let set = self.eval(s, f)?;
                let n = self.set_len(set)?;
                for k in 0..n {
                    let site = self.set_item(set, k)?;
                    self.locals[p.slot as usize] = Value::Site(site);
                    if self.choice_ok(p, f)? {
                        mv.args[i] = site as i32;
                        self.enumerate(def, i + 1, mv, f, out, first_only)?;
                        if first_only && !out.is_empty() {
                            return Ok(());
                        }
                    }
                    for (j, pj) in def.params[..i].iter().enumerate() {
                        self.locals[pj.slot as usize] = arg_value(pj, mv.args[j]);
                    }
                }
            }
            Domain::Players => {
                for pl in 0..self.game.players.len() as u8 {
                    self.locals[p.slot as usize] = Value::Player(pl);
                    if self.choice_ok(p, f)? {
                        mv.args[i] = pl as i32;
                        self.enumerate(def, i + 1, mv, f, out, first_only)?;
                        if first_only && !out.is_empty() {
                            return Ok(());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn choice_ok(&mut self, p: &Param, f: &Frame) -> Res<bool> {
        match &p.filter {
            None => Ok(true),
            Some(c) => Ok(self.eval(c, f)?.truthy()),
        }
    }

    // ---- making and unmaking moves --------------------------------------

    /// Makes a move, which must be one of [`legal_moves`](Self::legal_moves).
    /// On an error the position is left as it was.
    pub fn apply(&mut self, mv: Move) -> Res<()> {
        self.apply_frame(mv).map(|_| ())
    }

    fn apply_frame(&mut self, mv: Move) -> Res<Frame> {
        self.undo_counts.extend_from_slice(&self.pos.counts);
        self.undo_turns.push(self.pos.turn);
        match self.apply_inner(mv) {
            Ok(f) => Ok(f),
            Err(e) => {
                self.undo();
                Err(e)
            }
        }
    }

    fn apply_inner(&mut self, mv: Move) -> Res<Frame> {
        let g = self.game.clone();
        let np = g.players.len() as u8;
        let mover = self.pos.turn.to_move;
        let mut f = Frame {
            mover,
            next: mover,
            last: None,
            again: false,
            end: false,
        };
        if !mv.is_pass() {
            let def = g
                .moves
                .get(mv.def as usize)
                .ok_or_else(|| Halt::Error(format!("no move declaration {}", mv.def)))?;
            for (i, p) in def.params.iter().enumerate() {
                self.locals[p.slot as usize] = arg_value(p, mv.args[i]);
            }
            self.run(&def.body, &mut f)?;
        }
        self.pos.turn.ply += 1;
        f.next = if f.again { mover } else { (mover + 1) % np };
        if f.end {
            self.pos.turn.ended = true;
        } else {
            for e in &g.ends {
                if self.eval(&e.cond, &f)?.truthy() {
                    self.run(&e.body, &mut f)?;
                    self.pos.turn.ended = true;
                    break;
                }
            }
        }
        self.pos.turn.to_move = f.next;
        if !self.pos.turn.ended
            && let Some(ph) = g.phases.get(self.pos.turn.phase as usize)
        {
            for (to, cond) in &ph.transitions {
                if self.eval(cond, &f)?.truthy() {
                    self.pos.turn.phase = *to;
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
        self.pos.turn = t;
        true
    }

    // ---- outcome --------------------------------------------------------

    /// The outcome, once the game is over (no legal moves).
    pub fn outcome(&mut self) -> Res<Option<Outcome>> {
        let mut buf = self.take_scratch();
        let r = self.legal_moves(&mut buf);
        let over = buf.is_empty();
        self.give_scratch(buf);
        r?;
        if !over {
            return Ok(None);
        }
        let scores = self.scores()?;
        let best = scores.iter().copied().max().unwrap_or(0);
        let winners = (0..scores.len())
            .filter(|&i| scores[i] == best)
            .map(|i| i as PlayerId)
            .collect();
        Ok(Some(Outcome { scores, winners }))
    }

    /// Each player's score in the current position.
    pub fn scores(&mut self) -> Res<Vec<i64>> {
        let g = self.game.clone();
        let f = Frame {
            mover: self.pos.turn.to_move,
            next: self.pos.turn.to_move,
            last: None,
            again: false,
            end: false,
        };
        let mut out = Vec::with_capacity(g.players.len());
        for p in 0..g.players.len() as u8 {
            self.locals[g.score.0 as usize] = Value::Player(p);
            out.push(self.eval(&g.score.1, &f)?.int()?);
        }
        Ok(out)
    }

    // ---- statements -----------------------------------------------------

    fn run(&mut self, stmts: &[Stmt], f: &mut Frame) -> Res<()> {
        for s in stmts {
            self.stmt(s, f)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, f: &mut Frame) -> Res<()> {
        match &s.kind {
            StmtKind::Sow {
                amount,
                source,
                track,
                it,
                skips,
            } => {
                let src = self.eval(source, f)?.site()?;
                let t = self.eval(track, f)?.track()?;
                let have = self.pos.counts[src as usize];
                let n = match amount {
                    Some(a) => self.eval(a, f)?.int()?,
                    None => have as i64,
                };
                if n <= 0 || n > have as i64 {
                    return Err(Halt::Illegal);
                }
                self.pos.counts[src as usize] -= n as i32;
                let g = self.game.clone();
                let track = &g.tracks[t as usize];
                let len = track.sites.len();
                if len == 0 {
                    return Err(Halt::Error(format!("track `{}` has no sites", track.name)));
                }
                let mut pos: isize = track.position[src as usize]
                    .map(|p| p as isize)
                    .unwrap_or(-1);
                let mut left = n;
                let mut idle = 0;
                while left > 0 {
                    pos += 1;
                    if pos as usize >= len {
                        if !track.cyclic {
                            return Err(Halt::Illegal);
                        }
                        pos = 0;
                    }
                    let site = track.sites[pos as usize];
                    if !skips.is_empty() {
                        self.locals[*it as usize] = Value::Site(site);
                        let mut skip = false;
                        for c in skips {
                            if self.eval(c, f)?.truthy() {
                                skip = true;
                                break;
                            }
                        }
                        if skip {
                            idle += 1;
                            if idle > len {
                                return Err(Halt::Error(format!(
                                    "every site of track `{}` is skipped: the sowing cannot go on",
                                    track.name
                                )));
                            }
                            continue;
                        }
                    }
                    idle = 0;
                    self.pos.counts[site as usize] += 1;
                    left -= 1;
                    f.last = Some(site);
                }
                Ok(())
            }
            StmtKind::Take { amount, from, to } => {
                let dst = self.eval(to, f)?.site()?;
                let src = self.eval(from, f)?;
                match amount {
                    Some(a) => {
                        let n = self.eval(a, f)?.int()?;
                        let s = src.site()?;
                        if n < 0 || n > self.pos.counts[s as usize] as i64 {
                            return Err(Halt::Illegal);
                        }
                        self.pos.counts[s as usize] -= n as i32;
                        self.pos.counts[dst as usize] += n as i32;
                    }
                    None => {
                        let len = self.set_len(src)?;
                        for k in 0..len {
                            let s = self.set_item(src, k)?;
                            if s != dst {
                                let c = std::mem::take(&mut self.pos.counts[s as usize]);
                                self.pos.counts[dst as usize] += c;
                            }
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Put { amount, target } => {
                let n = self.eval(amount, f)?.int()?;
                if !(0..=1_000_000).contains(&n) {
                    return Err(Halt::Error(format!(
                        "`put` of {n} counters: must be 0 to 1000000"
                    )));
                }
                let t = self.eval(target, f)?;
                for k in 0..self.set_len(t)? {
                    let s = self.set_item(t, k)?;
                    if self.total_counters() + n > MAX_COUNT as i64 {
                        return Err(Halt::Error(format!(
                            "`put` would make more than {MAX_COUNT} counters in all"
                        )));
                    }
                    self.pos.counts[s as usize] += n as i32;
                }
                Ok(())
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.eval(cond, f)?.truthy() {
                    self.run(then, f)
                } else {
                    self.run(otherwise, f)
                }
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
            },
            StmtKind::Let { var, value } => {
                self.locals[*var as usize] = self.eval(value, f)?;
                Ok(())
            }
            StmtKind::Require(c) => {
                if self.eval(c, f)?.truthy() {
                    Ok(())
                } else {
                    Err(Halt::Illegal)
                }
            }
            StmtKind::Again => {
                f.again = true;
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
            other => Err(type_halt("a set of sites", other)),
        }
    }

    fn set_item(&self, v: Value, k: usize) -> Res<SiteId> {
        match v {
            Value::Site(s) => Ok(s),
            Value::Set(s) => Ok(self.game.sets[s as usize][k]),
            other => Err(type_halt("a set of sites", other)),
        }
    }

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
                        return Err(Halt::Error(
                            "`last` is used before any sowing of this move".into(),
                        ));
                    }
                },
                Builtin::Ply => Value::Int(self.pos.turn.ply as i64),
            },
            Expr::Count(x) => {
                let v = self.eval(x, f)?;
                match v {
                    Value::Site(s) => Value::Int(self.pos.counts[s as usize] as i64),
                    Value::Set(s) => Value::Int(
                        self.game.sets[s as usize]
                            .iter()
                            .map(|&i| self.pos.counts[i as usize] as i64)
                            .sum(),
                    ),
                    other => return Err(type_halt("a site", other)),
                }
            }
            Expr::Owner(x) => {
                let s = self.eval(x, f)?.site()?;
                self.game.sites[s as usize]
                    .owner
                    .map(Value::Player)
                    .unwrap_or(Value::None)
            }
            Expr::OwnedSite(kind, p) => {
                let p = self.eval(p, f)?.player()?;
                let k = match kind {
                    SiteKind::Pit => 0,
                    SiteKind::Store => 1,
                    SiteKind::Reserve => 2,
                };
                self.game.owned[k]
                    .get(p as usize)
                    .copied()
                    .flatten()
                    .map(Value::Site)
                    .unwrap_or(Value::None)
            }
            Expr::Relation(r, x) => {
                let s = self.eval(x, f)?.site()?;
                match self.game.relations[*r as usize].1[s as usize] {
                    Some(t) => Value::Site(t),
                    None => {
                        return Err(Halt::Error(format!(
                            "relation `{}` names no site for `{}`",
                            self.game.relations[*r as usize].0, self.game.sites[s as usize].name
                        )));
                    }
                }
            }
            Expr::IsKind(x, k) => {
                let s = self.eval(x, f)?.site()?;
                Value::Bool(self.game.sites[s as usize].kind == *k)
            }
            Expr::KindSet(kind, p) => {
                let p = self.eval(p, f)?.player()?;
                let k = match kind {
                    SiteKind::Pit => 0,
                    SiteKind::Store => 1,
                    SiteKind::Reserve => 2,
                };
                Value::Set(self.game.kind_sets[k][p as usize])
            }
            Expr::Family(fam, x) => {
                let key = self.eval(x, f)?;
                match self.game.families[*fam as usize].members.get(&key) {
                    Some(v) => *v,
                    None => {
                        return Err(Halt::Error(format!(
                            "`{}` has no member {key:?}",
                            self.game.families[*fam as usize].name
                        )));
                    }
                }
            }
            Expr::Not(x) => Value::Bool(!self.eval(x, f)?.truthy()),
            Expr::Neg(x) => Value::Int(-self.eval(x, f)?.int()?),
            Expr::Bin(op, a, b) => {
                match op {
                    BinOp::And => {
                        return Ok(Value::Bool(
                            self.eval(a, f)?.truthy() && self.eval(b, f)?.truthy(),
                        ));
                    }
                    BinOp::Or => {
                        return Ok(Value::Bool(
                            self.eval(a, f)?.truthy() || self.eval(b, f)?.truthy(),
                        ));
                    }
                    _ => {}
                }
                let x = self.eval(a, f)?;
                let y = self.eval(b, f)?;
                match op {
                    BinOp::Eq => Value::Bool(x == y),
                    BinOp::Ne => Value::Bool(x != y),
                    _ => {
                        let (x, y) = (x.int()?, y.int()?);
                        match op {
                            BinOp::Add => Value::Int(x.saturating_add(y)),
                            BinOp::Sub => Value::Int(x.saturating_sub(y)),
                            BinOp::Mul => Value::Int(x.saturating_mul(y)),
                            BinOp::Div | BinOp::Mod if y == 0 => {
                                return Err(Halt::Error("division by zero".into()));
                            }
                            BinOp::Div => Value::Int(x.div_euclid(y)),
                            BinOp::Mod => Value::Int(x.rem_euclid(y)),
                            BinOp::Lt => Value::Bool(x < y),
                            BinOp::Le => Value::Bool(x <= y),
                            BinOp::Gt => Value::Bool(x > y),
                            _ => Value::Bool(x >= y),
                        }
                    }
                }
            }
            Expr::Min(a, b) => Value::Int(self.eval(a, f)?.int()?.min(self.eval(b, f)?.int()?)),
            Expr::Max(a, b) => Value::Int(self.eval(a, f)?.int()?.max(self.eval(b, f)?.int()?)),
            Expr::Quant(q, slot, dom, body) => {
                let items: (i64, i64, u8) = match &**dom {
                    Domain::Players => (0, self.game.players.len() as i64 - 1, 0),
                    Domain::Range(a, b) => {
                        let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                        check_range(lo, hi)?;
                        (lo, hi, 1)
                    }
                    Domain::Set(_) => return Err(Halt::Error("quantifier over a set".into())),
                };
                let mut acc: i64 = 0;
                let mut any = false;
                let mut all = true;
                for v in items.0..=items.1 {
                    self.locals[*slot as usize] = if items.2 == 0 {
                        Value::Player(v as u8)
                    } else {
                        Value::Int(v)
                    };
                    let r = self.eval(body, f)?;
                    match q {
                        Quant::Sum => acc = acc.saturating_add(r.int()?),
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
                let p = self.eval(p, f)?.player()?;
                Value::Bool(self.can_move(p)?)
            }
        })
    }

    // ---- names ----------------------------------------------------------

    /// The name a player types for a move: its declaration's template filled in.
    pub fn move_name(&self, mv: Move) -> String {
        move_name(&self.game, mv)
    }
}

pub fn move_name(g: &Game, mv: Move) -> String {
    if mv.is_pass() {
        return "pass".into();
    }
    let Some(def) = g.moves.get(mv.def as usize) else {
        return "?".into();
    };
    let mut s = String::new();
    for part in &def.template {
        match part {
            TemplatePart::Text(t) => s.push_str(t),
            TemplatePart::Param(i) => match def.params.get(*i).map(|p| arg_value(p, mv.args[*i])) {
                Some(Value::Site(x)) => s.push_str(&g.sites[x as usize].name),
                Some(Value::Player(p)) => s.push_str(&g.players[p as usize]),
                Some(Value::Int(v)) => s.push_str(&v.to_string()),
                _ => s.push('?'),
            },
        }
    }
    s
}

fn arg_value(p: &Param, a: i32) -> Value {
    match p.domain {
        Domain::Range(..) => Value::Int(a as i64),
        Domain::Set(_) => Value::Site(a as SiteId),
        Domain::Players => Value::Player(a as PlayerId),
    }
}

/// Most counters a game may have; `put` refuses to go beyond it, and no
/// move can, since moves conserve counters.
const MAX_COUNT: i32 = 100_000_000;
/// Most values a range in a rule may run over during play.
const MAX_RANGE: i64 = 100_000;

fn check_range(lo: i64, hi: i64) -> Res<()> {
    if hi.saturating_sub(lo) >= MAX_RANGE {
        return Err(Halt::Error(format!(
            "the range {lo}..{hi} has more than {MAX_RANGE} values"
        )));
    }
    Ok(())
}

fn type_halt(want: &str, got: Value) -> Halt {
    match got {
        Value::None => Halt::Error(format!(
            "expected {want}, but there is none here (a player owning no such site, or a site with no owner)"
        )),
        other => Halt::Error(format!("expected {want}, found {other:?}")),
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
