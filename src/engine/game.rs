//! A compiled game: the board, its tracks and tables precomputed, every rule
//! lowered to [`Expr`] and [`Stmt`] trees whose names are already resolved to
//! indices. Nothing here knows any game by name.

use std::collections::BTreeMap;

use crate::diagnostics::{Sources, Span};
pub use crate::syntax::ast::{BinOp, SiteKind, StuckAction};

pub type SiteId = u16;
pub type PlayerId = u8;

#[derive(Debug, Clone)]
pub struct Site {
    pub name: String,
    pub kind: SiteKind,
    pub owner: Option<PlayerId>,
    /// The family this site belongs to and its index there (`s3` is `s`, 3).
    pub family: Option<(String, i64)>,
}

#[derive(Debug, Clone)]
pub struct Track {
    pub name: String,
    /// How moves name the track, if not by its name.
    pub label: Option<String>,
    pub cyclic: bool,
    pub sites: Vec<SiteId>,
    /// For each site of the board, its position on this track.
    pub position: Vec<Option<u16>>,
}

/// A value during play. Sets, tracks and relations are indices into the
/// game's tables, so values are small and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    None,
    Int(i64),
    Bool(bool),
    Player(PlayerId),
    Site(SiteId),
    Set(u16),
    Track(u16),
    /// A set computed during play (`(every pit where ...)`): bit `s` for site `s`.
    Mask(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    Bool,
    Player,
    Site,
    Set,
    Track,
    /// An ordering of colours chosen by `arrangements(...)`.
    Order,
}

impl Type {
    pub fn word(self) -> &'static str {
        match self {
            Type::Int => "a number",
            Type::Bool => "a condition",
            Type::Player => "a player",
            Type::Site => "a site",
            Type::Set => "a set of sites",
            Type::Track => "a track",
            Type::Order => "an order of colours",
        }
    }
}

/// A built-in quantity of the move being made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// The player making the move.
    Mover,
    /// The player to move after this move (in `avoid`, `end` and `then`).
    Next,
    /// The site the last counter of the latest sowing fell into.
    Last,
    /// Plies played so far.
    Ply,
    /// The colour (a player) of the last counter of the latest sowing.
    LastColour,
    /// How many times the position has occurred before in this game.
    Repetitions,
    /// The site the latest lap of sowing was lifted from.
    Origin,
    /// Rounds finished so far.
    Rounds,
    /// The player who began this round (the game, in the first).
    Starter,
}

#[derive(Debug, Clone, PartialEq, Hash)]
pub enum Expr {
    Const(Value),
    Local(u8),
    Builtin(Builtin),
    /// Counters in a site or in every site of a set; of one colour, if given.
    Count(Box<Expr>, Option<Box<Expr>>),
    /// A state variable kept in the position.
    State(u16),
    /// A per-site state variable of a site: `upright(x)`.
    SiteState(u16, Box<Expr>),
    /// Whether a site is in a set: `low(x)`, `member(x, s)`.
    Member(Box<Expr>, Box<Expr>),
    /// Whether a site is on a track.
    OnTrack(Box<Expr>, Box<Expr>),
    /// A number from `lo` to `hi` drawn from the game's seed (see `Engine::random`).
    Random(Box<Expr>, Box<Expr>),
    /// The first of a player's partners (the player, without partners).
    Side(Box<Expr>),
    /// The other player of a two-player game.
    Opponent(Box<Expr>),
    /// The site `n` places further along a track (back, if `n` < 0).
    Step(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The value in the position before the move being made.
    Before(Box<Expr>),
    /// The first site of a set, or none.
    First(Box<Expr>),
    /// Arithmetic (`+ - * / %`, a minus, a `sum`) and where it is written,
    /// so that a number grown too large is reported there.
    Spanned(Span, Box<Expr>),
    /// A call of a rhai hook.
    Hook(u16, Vec<Expr>),
    /// The sites of a set for which a condition holds (the site in a local slot).
    Filter(Box<Expr>, u8, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The index of a site in its family (`s3` is 3).
    Index(Box<Expr>),
    Owner(Box<Expr>),
    /// The unique site of a kind a player owns: `store(p)`, `reserve(p)`.
    OwnedSite(SiteKind, Box<Expr>),
    Relation(u16, Box<Expr>),
    IsKind(Box<Expr>, SiteKind),
    /// `every pit of p`: the set for each owner, precomputed.
    KindSet(SiteKind, Box<Expr>),
    /// A family member chosen at run time: `row[mover]`. The table maps an
    /// index key to a value.
    Family(u16, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Max(Box<Expr>, Box<Expr>),
    Quant(crate::syntax::ast::Quant, u8, Box<Domain>, Box<Expr>),
    CanMove(Box<Expr>),
    /// A part that recurs later in the same expression, worked out here
    /// and kept in a local slot for the later places to read (see
    /// `program/cse.rs`; only in the executor's program, never written).
    Keep(u8, Box<Expr>),
    /// A later place of a part kept (`Keep`) in the slot: its value read
    /// from there. The part itself stays, for its type and for the
    /// analyses that ask what a value depends on.
    Kept(u8, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq, Hash)]
pub enum Domain {
    Players,
    Range(Expr, Expr),
    Set(Expr),
    /// Every ordering of the colours of the counters in a site: a move's
    /// `order`, numbered from 0 (see [`crate::engine::arrange`]).
    Arrangements(Expr),
    /// Every track.
    Tracks,
    /// The sites of a track from a site on, one lap at most, while a
    /// condition holds (tried with the variable bound to each site).
    Walk {
        track: Expr,
        from: Expr,
        backwards: bool,
        cond: Option<Box<Expr>>,
    },
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    Sow {
        amount: Option<Expr>,
        source: Expr,
        track: Expr,
        it: u8,
        /// Sow the colours in the move's chosen order (else in seat order).
        ordered: bool,
        /// Skip clauses that depend only on the site passed, the mover and
        /// fixed things: the executor tabulates them once per mover and track.
        fixed_skips: Vec<Expr>,
        /// Skip clauses that depend on the position: tested at each step.
        skips: Vec<Expr>,
        /// Where each lap's first counter goes (else the site after the source).
        start: Option<Expr>,
        relay: Option<Box<Relay>>,
        /// Run after every counter dropped.
        each: Vec<Stmt>,
        /// Run after every lap (its last counter dropped).
        lap: Vec<Stmt>,
    },
    Take {
        amount: Option<Expr>,
        colour: Option<Expr>,
        from: Expr,
        /// None: `remove`, the counters leave the game.
        to: Option<Expr>,
    },
    Put {
        amount: Expr,
        colour: Option<Expr>,
        target: Expr,
    },
    Set {
        var: u16,
        site: Option<Expr>,
        value: Expr,
    },
    Enter(u8),
    /// Exchange everything two sites hold: counters and per-site state.
    Swap(Expr, Expr),
    /// The first branch whose condition holds runs, else `otherwise`.
    If {
        branches: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Vec<Stmt>,
    },
    For {
        var: u8,
        domain: Domain,
        body: Vec<Stmt>,
    },
    Let {
        var: u8,
        value: Expr,
    },
    Require(Expr),
    Again,
    EndGame,
    /// Who begins: the game (in `setup`) or the next round.
    Start(Expr),
}

/// Relay sowing: after a lap, while `cond` holds, the counters of `from`
/// (`last` if none) are lifted and sown on; at most `max` laps in all.
#[derive(Debug, Clone)]
pub struct Relay {
    pub from: Option<Expr>,
    pub cond: Expr,
    pub max: Option<Expr>,
}

#[derive(Debug, Clone)]
pub enum TemplatePart {
    Text(String),
    Param(usize),
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub slot: u8,
    pub domain: Domain,
    pub filter: Option<Expr>,
    /// The `choose` in the rule file: where an error its domain or its
    /// `where` meets is shown.
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct MoveDef {
    pub name: String,
    pub template: Vec<TemplatePart>,
    pub params: Vec<Param>,
    /// The move's own statements, then those of every rule that runs after it.
    pub body: Vec<Stmt>,
    pub phase: u8,
    /// Whether legality can only be known by making the move (`require`, or a
    /// sowing that may run off a linear track).
    pub needs_trial: bool,
    /// The choice (a site) that must hold counters for the move to be legal,
    /// checked without trying the move (see `needs_trial`).
    pub nonempty: Option<usize>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct EndDef {
    pub name: String,
    pub cond: Expr,
    /// `winner P` (true) or `loser P` (false): who wins, not by the score.
    pub verdict: Option<(bool, Expr)>,
    pub body: Vec<Stmt>,
    /// Where the condition is, and the verdict's player (the condition's
    /// place when there is no verdict): an error either meets is shown there.
    pub cond_span: Span,
    pub verdict_span: Span,
}

#[derive(Debug, Clone)]
pub struct PhaseDef {
    pub name: String,
    /// The phase to enter, the condition, and where the condition is.
    pub transitions: Vec<(u8, Expr, Span)>,
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Blank,
    Label(String),
    Site(SiteId),
}

/// A value kept in the position: one, or one per site (`of every pit`),
/// stored from `offset` in [`crate::engine::Position::vars`].
#[derive(Debug, Clone)]
pub struct StateVar {
    pub name: String,
    pub ty: Type,
    pub per_site: bool,
    /// For a per-site variable: the kind of site it is kept for.
    pub kind: Option<SiteKind>,
    pub hidden: bool,
    pub offset: usize,
}

#[derive(Debug, Clone)]
pub struct OptionInfo {
    pub name: String,
    pub value: Value,
    pub default: Value,
    pub range: Option<(i64, i64)>,
    pub doc: String,
}

#[derive(Debug, Clone)]
pub struct VariantInfo {
    pub name: String,
    pub doc: String,
}

/// What a rule file says the game is, for `mancala list`.
#[derive(Debug, Clone, Default)]
pub struct About {
    pub family: Option<String>,
    pub region: Option<String>,
    pub sources: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Game {
    pub name: String,
    pub about: About,
    pub sources: Sources,
    /// The rule file this game was loaded from, as given.
    pub path: String,
    pub variants_applied: Vec<String>,
    pub options: Vec<OptionInfo>,
    pub variants: Vec<VariantInfo>,
    pub players: Vec<String>,
    pub sites: Vec<Site>,
    pub tracks: Vec<Track>,
    pub relations: Vec<(String, Vec<Option<SiteId>>)>,
    /// Fixed sets of sites; `Value::Set` indexes this.
    pub sets: Vec<Vec<SiteId>>,
    /// `kind_sets[kind][owner]`: the set of every site of a kind an owner has
    /// (owner index `players.len()` is every site of the kind).
    pub kind_sets: [Vec<u16>; 3],
    /// `owned[kind][player]`: the one site of a kind a player owns, if unique.
    pub owned: [Vec<Option<SiteId>>; 3],
    /// Family lookup tables for `name[index]` at run time.
    pub families: Vec<Family>,
    pub setup: Vec<Stmt>,
    /// Where `setup` is, for reporting a setup that fails.
    pub setup_span: Option<Span>,
    pub moves: Vec<MoveDef>,
    /// Each `avoid`'s name, condition and where the condition is.
    pub avoids: Vec<(String, Expr, Span)>,
    pub ends: Vec<EndDef>,
    /// Territory: the per-site state `owner` (its index) and the kind of
    /// site it is kept for; `owner(x)` and `every KIND of P` follow it.
    pub territory: Option<(u16, SiteKind)>,
    /// `round`s: when one's condition holds after a move, its statements set
    /// up the next round.
    pub rounds: Vec<EndDef>,
    pub stuck: StuckAction,
    /// `when stuck: end { ... }`: run when the player to move has no move.
    pub stuck_body: Vec<Stmt>,
    pub score: (u8, Expr),
    /// Where the score's expression is (none when the file declares none).
    pub score_span: Option<Span>,
    pub phases: Vec<PhaseDef>,
    pub layout: Option<Layout>,
    /// Local variable slots a move needs at most.
    /// Colours of counters: 1, or one per player (`counters coloured by player`).
    pub colours: usize,
    /// The letter that stands for each colour in move names and positions.
    pub colour_letters: Vec<char>,
    /// State variables kept in the position.
    pub state: Vec<StateVar>,
    /// Players who share their sites, score and result.
    pub partners: Vec<Vec<PlayerId>>,
    /// How sites are drawn: the first glyph whose condition holds (with the
    /// site in local slot `glyph_slot`).
    pub glyphs: Vec<(String, Expr)>,
    pub glyph_slot: u8,
    /// The rhai hooks, compiled once.
    pub hooks: Option<std::sync::Arc<crate::hooks::Hooks>>,
    pub locals: usize,
    /// Whether the rules draw random numbers (`random`): such a game has chance.
    pub chance: bool,
    /// Whether the rules read `ply` or `repetitions`: then what a position
    /// leads to depends on how it was reached, not on the position alone.
    pub history: bool,
}

#[derive(Debug, Clone)]
pub struct Family {
    pub name: String,
    pub members: BTreeMap<Value, Value>,
}

impl Game {
    /// How many values the position keeps for state variables.
    pub fn state_slots(&self) -> usize {
        self.state.iter().map(|v| if v.per_site { self.sites.len() } else { 1 }).sum()
    }

    /// How many of those values are of per-site state: they come first.
    pub fn site_state_slots(&self) -> usize {
        self.state.iter().filter(|v| v.per_site).count() * self.sites.len()
    }

    pub fn site_by_name(&self, name: &str) -> Option<SiteId> {
        self.sites.iter().position(|s| s.name == name).map(|i| i as SiteId)
    }
    pub fn player_by_name(&self, name: &str) -> Option<PlayerId> {
        self.players.iter().position(|s| s == name).map(|i| i as PlayerId)
    }
    pub fn option(&self, name: &str) -> Option<Value> {
        self.options.iter().find(|o| o.name == name).map(|o| o.value)
    }

    /// Whether the value is the same in every position: it depends only on
    /// the board's tables and on local variables bound to such values (not
    /// on counters, state, whose turn it is, the move, or chance). Owners
    /// kept as state (territory) change in play: `owner(x)` and `every pit
    /// of p` of that kind are not fixed then.
    pub fn is_fixed(&self, e: &Expr) -> bool {
        match e {
            Expr::Count(..)
            | Expr::CanMove(_)
            | Expr::Builtin(_)
            | Expr::State(_)
            | Expr::SiteState(..)
            | Expr::Before(_)
            | Expr::Random(..) => false,
            Expr::Quant(_, _, d, _) if matches!(**d, Domain::Arrangements(_)) => false,
            Expr::Owner(_) if self.territory.is_some() => false,
            Expr::KindSet(kind, _) if self.territory.is_some_and(|(_, k)| k == *kind) => false,
            _ => e.all_children(|c| self.is_fixed(c)),
        }
    }

    /// Whether a quantifier's domain is the same in every position.
    fn domain_is_fixed(&self, d: &Domain) -> bool {
        match d {
            Domain::Players | Domain::Tracks => true,
            Domain::Range(a, b) => self.is_fixed(a) && self.is_fixed(b),
            Domain::Set(a) => self.is_fixed(a),
            Domain::Arrangements(_) | Domain::Walk { .. } => false,
        }
    }

    /// Whether the value is a sum of counts of fixed sites, each times a
    /// fixed factor, plus a part that is the same in every position: then it
    /// is a fixed factor for each count, summed, and a constant.
    pub fn is_linear_and_fixed(&self, e: &Expr) -> bool {
        self.is_linear(e, &|x| self.is_fixed(x))
    }

    /// Whether the value is a sum of counts of fixed sites, each times a
    /// fixed factor, plus terms that read no counts: then adding counters to
    /// a site changes it by the same amount in every position.
    pub fn is_linear_in_counts(&self, e: &Expr) -> bool {
        self.is_linear(e, &|x| !x.reads_counts())
    }

    /// Whether the value is a sum of counts of fixed sites, each times a
    /// fixed factor, plus terms of which `rest` holds.
    fn is_linear(&self, e: &Expr, rest: &dyn Fn(&Expr) -> bool) -> bool {
        let go = |x: &Expr| self.is_linear(x, rest);
        match e {
            Expr::Count(x, c) => self.is_fixed(x) && c.as_ref().is_none_or(|c| self.is_fixed(c)),
            Expr::Spanned(_, a) | Expr::Neg(a) => go(a),
            Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => go(a) && go(b),
            Expr::Bin(BinOp::Mul, a, b) => (go(a) && self.is_fixed(b)) || (self.is_fixed(a) && go(b)),
            Expr::Cond(c, a, b) => self.is_fixed(c) && go(a) && go(b),
            Expr::Quant(crate::syntax::ast::Quant::Sum, _, d, body) => self.domain_is_fixed(d) && go(body),
            _ => rest(e),
        }
    }

    /// Whether a sowing's skip clause `e` reads nothing but the site `it`
    /// stands for, the mover, what is fixed when the game is compiled, and
    /// state. The places of the state it reads (offset and length in the
    /// position's values; owners kept as state, territory, among them) are
    /// added to `state`. A clause that reads no state is fixed: tabulated
    /// once per track and mover; one that reads state is tabulated for the
    /// values it read, until they change.
    pub fn skip_reads(&self, e: &Expr, it: u8, state: &mut Vec<(usize, usize)>) -> bool {
        self.reads_only(e, &|s| s == it, &|b| b == Builtin::Mover, false, state)
    }

    /// Whether `e` reads nothing but the locals and built-ins `local` and
    /// `builtin` allow, what is fixed when the game is compiled (`step`s
    /// along a track only with `steps`), and state (whose places it adds to
    /// `state`, as [`skip_reads`](Self::skip_reads)).
    fn reads_only(
        &self,
        e: &Expr,
        local: &dyn Fn(u8) -> bool,
        builtin: &dyn Fn(Builtin) -> bool,
        steps: bool,
        state: &mut Vec<(usize, usize)>,
    ) -> bool {
        let sites = self.sites.len();
        let go = |x: &Expr, state: &mut Vec<(usize, usize)>| self.reads_only(x, local, builtin, steps, state);
        match e {
            Expr::Const(_) => true,
            Expr::Local(s) => local(*s),
            Expr::Builtin(b) => builtin(*b),
            Expr::State(v) => {
                state.push((self.state[*v as usize].offset, 1));
                true
            }
            Expr::SiteState(v, x) => {
                state.push((self.state[*v as usize].offset, sites));
                go(x, state)
            }
            Expr::Owner(x) | Expr::KindSet(_, x) => {
                if let Some((var, _)) = self.territory {
                    state.push((self.state[var as usize].offset, sites));
                }
                go(x, state)
            }
            Expr::OwnedSite(_, x)
            | Expr::Relation(_, x)
            | Expr::IsKind(x, _)
            | Expr::Family(_, x)
            | Expr::Not(x)
            | Expr::Neg(x)
            | Expr::Side(x)
            | Expr::Opponent(x)
            | Expr::Index(x)
            | Expr::Spanned(_, x) => go(x, state),
            Expr::Bin(_, a, b) | Expr::Min(a, b) | Expr::Max(a, b) | Expr::OnTrack(a, b) | Expr::Member(a, b) => {
                go(a, state) && go(b, state)
            }
            Expr::Cond(c, a, b) => go(c, state) && go(a, state) && go(b, state),
            // Tracks are fixed: a step is a function of its operands. Not
            // in a skip clause, whose table is made for the whole track at
            // once: a step that goes wrong at a site no counter reaches
            // would go wrong at the first sowing.
            Expr::Step(x, t, n) => steps && go(x, state) && go(t, state) && go(n, state),
            _ => false,
        }
    }

    /// For a skip clause `it == x` (or `x == it`) whose `x` stays the same
    /// while a lap is sown, that `x`: a lap with no `each` runs no
    /// statement, so only counts, `last` and `it` itself change during it.
    /// The site that clause skips is then found once per lap instead of
    /// asked at each counter (the origin skipped by most single-lap games).
    pub fn skipped_site<'e>(&self, e: &'e Expr, it: u8) -> Option<&'e Expr> {
        let Expr::Bin(BinOp::Eq, a, b) = e.unspanned() else { return None };
        let is_it = |x: &Expr| matches!(x.unspanned(), Expr::Local(s) if *s == it);
        let other = match (is_it(a), is_it(b)) {
            (true, false) => b,
            (false, true) => a,
            _ => return None,
        };
        self.same_in_a_lap(other, it).then_some(&**other)
    }

    /// A family's key as a rule file writes it: `5`, `north`, `none`.
    pub fn key_text(&self, key: Value) -> String {
        match key {
            Value::Int(i) => i.to_string(),
            Value::Player(p) => self.players.get(p as usize).cloned().unwrap_or_else(|| format!("player {p}")),
            Value::None => "none".to_string(),
            other => format!("{other:?}"),
        }
    }

    /// Whether `e` reads no variable but `var` (a local variable or a
    /// built-in name), and nothing else that changes during play: no
    /// counts, no state.
    pub fn reads_only_site(&self, e: &Expr, var: &Expr) -> bool {
        self.reads_only_var(e, var, false)
    }

    /// As [`reads_only_site`](Self::reads_only_site), the mover allowed
    /// too if `mover`.
    pub fn reads_only_var(&self, e: &Expr, var: &Expr, mover: bool) -> bool {
        let mut state = Vec::new();
        let ok = match var {
            Expr::Local(v) => self.reads_only(e, &|s| s == *v, &|b| mover && b == Builtin::Mover, true, &mut state),
            Expr::Builtin(v) => {
                self.reads_only(e, &|_| false, &|b| b == *v || (mover && b == Builtin::Mover), true, &mut state)
            }
            _ => false,
        };
        ok && state.is_empty()
    }

    /// Whether `e` reads nothing a lap of sowing without `each` changes.
    fn same_in_a_lap(&self, e: &Expr, it: u8) -> bool {
        self.reads_only(e, &|s| s != it, &|b| matches!(b, Builtin::Mover | Builtin::Origin), true, &mut Vec::new())
    }
}

/// The expressions directly inside an expression, or a domain, each given
/// to `visit`: one listing for [`Expr::each_child`] and
/// [`Expr::each_child_mut`] (`iter` or `iter_mut` over a hook's arguments,
/// and the domain's own walk).
macro_rules! children {
    ($e:expr, $visit:ident, $iter:ident, $domain:ident) => {
        match $e {
            Expr::Const(_) | Expr::Local(_) | Expr::Builtin(_) | Expr::State(_) => {}
            Expr::Count(x, c) => {
                $visit(x);
                if let Some(c) = c {
                    $visit(c);
                }
            }
            Expr::SiteState(_, a)
            | Expr::Side(a)
            | Expr::Opponent(a)
            | Expr::Before(a)
            | Expr::First(a)
            | Expr::Spanned(_, a)
            | Expr::Index(a)
            | Expr::Owner(a)
            | Expr::OwnedSite(_, a)
            | Expr::Relation(_, a)
            | Expr::IsKind(a, _)
            | Expr::KindSet(_, a)
            | Expr::Family(_, a)
            | Expr::Not(a)
            | Expr::Neg(a)
            | Expr::CanMove(a)
            | Expr::Keep(_, a)
            | Expr::Kept(_, a) => $visit(a),
            Expr::Member(a, b)
            | Expr::OnTrack(a, b)
            | Expr::Random(a, b)
            | Expr::Filter(a, _, b)
            | Expr::Bin(_, a, b)
            | Expr::Min(a, b)
            | Expr::Max(a, b) => {
                $visit(a);
                $visit(b);
            }
            Expr::Cond(a, b, c) | Expr::Step(a, b, c) => {
                $visit(a);
                $visit(b);
                $visit(c);
            }
            Expr::Hook(_, args) => args.$iter().for_each($visit),
            Expr::Quant(_, _, domain, body) => {
                domain.$domain($visit);
                $visit(body);
            }
        }
    };
}

/// The expressions of a domain, each given to `visit`.
macro_rules! domain_exprs {
    ($d:expr, $visit:ident) => {
        match $d {
            Domain::Players | Domain::Tracks => {}
            Domain::Range(a, b) => {
                $visit(a);
                $visit(b);
            }
            Domain::Set(a) | Domain::Arrangements(a) => $visit(a),
            Domain::Walk { track, from, cond, .. } => {
                $visit(track);
                $visit(from);
                if let Some(c) = cond {
                    $visit(c);
                }
            }
        }
    };
}

impl Domain {
    /// Calls `visit` on each expression of the domain.
    pub fn each_expr<'a>(&'a self, visit: &mut impl FnMut(&'a Expr)) {
        domain_exprs!(self, visit)
    }

    /// As [`Domain::each_expr`], to change them.
    pub(crate) fn each_expr_mut(&mut self, visit: &mut impl FnMut(&mut Expr)) {
        domain_exprs!(self, visit)
    }
}

impl Expr {
    /// `count(x) > 0` or `count(x) != 0` of the site in local `slot`.
    pub fn is_nonempty_test(&self, slot: u8) -> bool {
        matches!(self, Expr::Bin(BinOp::Gt | BinOp::Ne, x, z)
            if x.is_count_of(slot) && matches!(**z, Expr::Const(Value::Int(0))))
    }

    /// `count(x)` (all colours) of the site in local `slot`.
    pub fn is_count_of(&self, slot: u8) -> bool {
        matches!(self, Expr::Count(s, None) if matches!(**s, Expr::Local(l) if l == slot))
    }

    /// The expression without the spans around it.
    pub fn unspanned(&self) -> &Expr {
        match self {
            Expr::Spanned(_, x) => x.unspanned(),
            e => e,
        }
    }

    /// Calls `visit` on each expression directly inside this one (a
    /// quantifier's domain included).
    pub fn each_child<'a>(&'a self, visit: &mut impl FnMut(&'a Expr)) {
        children!(self, visit, iter, each_expr)
    }

    /// As [`Expr::each_child`], to change them.
    pub(crate) fn each_child_mut(&mut self, visit: &mut impl FnMut(&mut Expr)) {
        children!(self, visit, iter_mut, each_expr_mut)
    }

    pub(crate) fn all_children(&self, test: impl Fn(&Expr) -> bool) -> bool {
        let mut all = true;
        self.each_child(&mut |c| all &= test(c));
        all
    }

    /// Whether working it out draws numbers (`random`).
    pub fn draws(&self) -> bool {
        matches!(self, Expr::Random(..)) || !self.all_children(|c| !c.draws())
    }

    /// Whether working it out binds a local variable (a quantifier's, a
    /// filter's, a part kept for later places).
    pub(crate) fn binds(&self) -> bool {
        matches!(self, Expr::Quant(..) | Expr::Filter(..) | Expr::Keep(..)) || !self.all_children(|c| !c.binds())
    }

    /// Whether the value depends on how many counters some site holds.
    pub fn reads_counts(&self) -> bool {
        match self {
            Expr::Count(..) | Expr::CanMove(_) | Expr::Builtin(Builtin::Repetitions) | Expr::Before(_) => true,
            Expr::Quant(_, _, d, _) if matches!(**d, Domain::Arrangements(_)) => true,
            _ => !self.all_children(|c| !c.reads_counts()),
        }
    }
}

/// What arithmetic past `i64` says (issue 11) where its place is not known.
pub(crate) const TOO_LARGE: &str = "a number in the rules grew too large (beyond 9223372036854775807 either way)";

impl Game {
    /// Arithmetic past `i64` at `span`, quoted from the rule file.
    pub(crate) fn too_large(&self, span: Span) -> String {
        format!("{TOO_LARGE}: `{}`", self.sources.text(span).split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

pub fn value_text(v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}
