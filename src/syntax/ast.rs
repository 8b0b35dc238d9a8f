//! The typed syntax tree of a rule file. Every node keeps the byte span it was
//! parsed from, so that the checker can point at it.

use crate::diagnostics::Span;

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Str {
    /// The text between the quotes.
    pub value: String,
    /// The span of the whole literal, quotes included.
    pub span: Span,
}

#[derive(Debug, Clone, Default)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Game(Str),
    /// `board ROWS rows of N [with stores on the track]`, written out when
    /// the file is read (see `compile::load`).
    Board(BoardDecl),
    /// `family "..."`, `region "..."`, `source "..."`: what the game is.
    About(About, Str),
    Extends(Str),
    Option(OptionDecl),
    Variant(VariantDecl),
    Players(PlayersDecl),
    Counters(Span),
    State(StateDecl),
    Site(SiteDecl),
    Relation(RelationDecl),
    Track(Box<TrackDecl>),
    Layout(LayoutDecl),
    Setup(Block),
    Phase(PhaseDecl),
    Move(MoveDecl),
    Rule(RuleDecl),
    Avoid(AvoidDecl),
    End(EndDecl),
    /// `round NAME when C { ... }`: the end of a round (its body sets up the next).
    Round(EndDecl),
    Stuck(StuckDecl),
    Score(ScoreDecl),
    Define(DefineDecl),
    Group(GroupDecl),
    Hook(HookDecl),
    Partners(PartnersDecl),
    Glyph(GlyphDecl),
}

#[derive(Debug, Clone)]
pub struct BoardDecl {
    pub rows: i64,
    /// The number of holes in a row, as written.
    pub per_row: Expr,
    pub stores_on_track: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    Family,
    Region,
    Source,
}

#[derive(Debug, Clone)]
pub struct DefineDecl {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub body: Expr,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct GroupDecl {
    pub name: Ident,
    pub items: Vec<TrackItem>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct HookDecl {
    pub name: Ident,
    pub params: Vec<(Ident, Ident)>,
    pub returns: Ident,
    /// The rhai source, and where it starts in the file.
    pub code: String,
    pub code_span: Span,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct PartnersDecl {
    pub names: Vec<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct GlyphDecl {
    pub text: Str,
    pub cond: Expr,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    Int(i64),
    Bool(bool),
}

#[derive(Debug, Clone)]
pub struct OptionDecl {
    pub name: Ident,
    pub default: Literal,
    pub default_span: Span,
    pub range: Option<(i64, i64, Span)>,
    pub doc: Option<Str>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum VariantItem {
    Use(Ident),
    Set { name: Ident, value: Literal, value_span: Span },
}

#[derive(Debug, Clone)]
pub struct VariantDecl {
    pub name: Ident,
    pub doc: Option<Str>,
    pub items: Vec<VariantItem>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct NamePattern {
    pub name: Ident,
    pub range: Option<(Expr, Expr)>,
}

#[derive(Debug, Clone)]
pub struct PlayersDecl {
    pub names: Vec<NamePattern>,
    /// `players first N of a, b, c`: only the first N names play.
    pub first: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct StateDecl {
    pub name: Ident,
    pub ty: Ident,
    /// `of every pit`: a value for each site of this kind.
    pub per_site: Option<SiteKind>,
    pub hidden: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SiteKind {
    Pit,
    Store,
    Reserve,
}

impl SiteKind {
    /// The kind's place in tables kept per kind (`Game::owned`, `Game::kind_sets`).
    pub fn index(self) -> usize {
        match self {
            SiteKind::Pit => 0,
            SiteKind::Store => 1,
            SiteKind::Reserve => 2,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            SiteKind::Pit => "pit",
            SiteKind::Store => "store",
            SiteKind::Reserve => "reserve",
        }
    }
}

/// The domain a variable ranges over: the players, or integers `lo..hi`.
#[derive(Debug, Clone)]
pub enum Domain {
    Players(Span),
    Range(Expr, Expr),
    /// Every site of a set.
    Set(Expr),
    /// The sites of a track from a site on (backwards: against the track's
    /// direction), one lap at most, while a condition holds.
    Walk(Box<Walk>),
}

/// `TRACK from SITE [backwards] [while CONDITION]`.
#[derive(Debug, Clone)]
pub struct Walk {
    pub track: Expr,
    pub from: Expr,
    pub backwards: bool,
    pub cond: Option<Expr>,
    pub span: Span,
}

/// What is inside the brackets of a declared name.
#[derive(Debug, Clone)]
pub enum IndexSpec {
    /// `s[1..pits]` or `s[i in 1..pits]` or `bank[p in players]`.
    Domain(Option<Ident>, Domain),
    /// `row[south]`: one member of a family.
    Single(Expr),
}

#[derive(Debug, Clone)]
pub struct DeclName {
    pub name: Ident,
    pub index: Option<IndexSpec>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct SiteDecl {
    pub kind: SiteKind,
    pub names: Vec<DeclName>,
    pub owner: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct SiteRef {
    pub name: Ident,
    pub index: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RelationPair {
    pub from: SiteRef,
    pub both_ways: bool,
    pub to: SiteRef,
    pub each: Option<(Ident, Domain)>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RelationDecl {
    pub name: Ident,
    pub pairs: Vec<RelationPair>,
    pub span: Span,
}

/// `s[1..pits]`, `n[pits..1]`, `S` or `s[3]`: one site or a run of a family.
#[derive(Debug, Clone)]
pub struct TrackItem {
    pub name: Ident,
    pub index: Option<IndexArg>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum IndexArg {
    Single(Expr),
    Range(Expr, Expr),
}

#[derive(Debug, Clone)]
pub struct TrackDecl {
    pub name: DeclName,
    /// How moves name the track (`"plane 1"`), if not by its name.
    pub label: Option<Str>,
    pub cyclic: bool,
    pub items: Vec<TrackItem>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct LayoutDecl {
    pub rows: Vec<Vec<LayoutCell>>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum LayoutCell {
    Blank,
    Label(Str),
    Sites(Box<TrackItem>),
}

#[derive(Debug, Clone)]
pub struct PhaseDecl {
    pub name: Ident,
    pub moves: Vec<MoveDecl>,
    pub rules: Vec<RuleDecl>,
    pub transitions: Vec<(Ident, Expr)>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ChoiceDomain {
    Range(Expr, Expr),
    Set(Expr),
    Players(Span),
    /// Every ordering of the colours of the counters in a site.
    Arrangements(Expr),
    /// Every track.
    Tracks(Span),
}

#[derive(Debug, Clone)]
pub struct Choose {
    pub var: Ident,
    pub domain: ChoiceDomain,
    pub filter: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct MoveDecl {
    pub name: Ident,
    pub template: Option<Str>,
    pub choices: Vec<Choose>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RuleDecl {
    pub name: Ident,
    pub after: Vec<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct AvoidDecl {
    pub name: Ident,
    pub cond: Expr,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct EndDecl {
    pub name: Ident,
    pub cond: Expr,
    /// `winner P` (true) or `loser P` (false).
    pub verdict: Option<(bool, Expr)>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StuckAction {
    Pass,
    End,
    /// The player who cannot move loses.
    Lose,
}

#[derive(Debug, Clone)]
pub struct StuckDecl {
    pub action: StuckAction,
    /// `when stuck: end { ... }`: run as the game ends.
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ScoreDecl {
    pub var: Ident,
    pub value: Expr,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
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
        /// `in order X`: the colours of the counters in the order sown.
        order: Option<Expr>,
        /// `starting at SITE`: where each lap's first counter goes.
        start: Option<Expr>,
        skips: Vec<Expr>,
        relay: Option<Box<Relay>>,
        /// `each { ... }`: run after every counter dropped.
        each: Vec<Stmt>,
        /// `each lap { ... }`: run after every lap.
        lap: Vec<Stmt>,
    },
    Take {
        amount: Option<Expr>,
        /// `take N of C from ...`: counters of one colour.
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
        var: Ident,
        /// `set upright(x) = ...`: the site of a per-site state.
        site: Option<Expr>,
        value: Expr,
    },
    Enter(Ident),
    Swap(Expr, Expr),
    /// `if C1 { .. } else if C2 { .. } else { .. }`: the branches in order.
    If {
        branches: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    For {
        var: Ident,
        domain: Domain,
        body: Vec<Stmt>,
    },
    Let {
        var: Ident,
        value: Expr,
    },
    Require(Expr),
    Again,
    EndGame,
    /// `start P`: P begins (the game, in `setup`; the next round, in a `round`).
    Start(Expr),
}

/// `relay [from SITE] while CONDITION [at most N laps]`.
#[derive(Debug, Clone)]
pub struct Relay {
    pub from: Option<Expr>,
    pub cond: Expr,
    pub max: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Le,
    Ge,
    Lt,
    Gt,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quant {
    Any,
    All,
    Sum,
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Name(Ident),
    Call(Ident, Vec<Expr>),
    Index(Ident, Box<IndexArg>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Is(Box<Expr>, SiteKind),
    Every(SiteKind, Option<Box<Expr>>),
    Quant(Quant, Ident, Box<Domain>, Box<Expr>),
    /// `(SET where COND)`, with `it` the site in COND.
    Filter(Box<Expr>, Box<Expr>),
    /// `if C then A else B`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}
