//! Rules: the moves, rules, phases, `avoid`, `end`, `when stuck`, `score`
//! and `glyph` declarations, resolved and type-checked. What they are made
//! of is compiled next door: statements (`statements.rs`), expressions
//! (`expressions.rs`), and `define`s, hooks and built-in calls (`calls.rs`).

mod calls;
mod expressions;
mod statements;

use super::{Compiler, Global};
use crate::diagnostics::{Diagnostic, Span};
use crate::engine::game::{
    self as g, Builtin, Domain as GDomain, EndDef, Expr as GExpr, MoveDef, Param, PhaseDef, StmtKind as GStmt,
    TemplatePart, Type, Value,
};
use crate::engine::precheck::{needs_trial, precheck};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// At most this many local variables in one move or rule.
const MAX_LOCALS: usize = 32;

/// Where an expression stands, which decides the built-ins it may use.
#[derive(Debug, Clone, Copy, Default)]
struct Ctx {
    /// `mover`, `last`: inside a move, a rule, `avoid`, `end` or `then`.
    play: bool,
    /// `next`: in `avoid`, `end` and `then`, after the move.
    after: bool,
    /// `again`, `require`, `end game`: in a move or a rule.
    effects: bool,
    /// `put`: only in `setup`, the one place that creates counters.
    setup: bool,
    /// `start`: in `setup` and in a `round`'s statements.
    starts: bool,
}

/// What compiled rules read that solving must know of: chance (`random`)
/// and the history (`ply`, `repetitions`).
#[derive(Debug, Clone, Copy, Default)]
struct Reads {
    chance: bool,
    history: bool,
}

impl std::ops::BitOr for Reads {
    type Output = Reads;
    fn bitor(self, o: Reads) -> Reads {
        Reads { chance: self.chance || o.chance, history: self.history || o.history }
    }
}

/// Most uses of definitions inlined in one rule file.
const MAX_INLINED: usize = 100_000;
/// Deepest nesting of definitions inside definitions.
const MAX_DEFINE_DEPTH: usize = 200;

#[derive(Default)]
struct Scope {
    vars: Vec<(String, u8, Type)>,
    /// Parameters of a `define` being inlined: the argument expressions.
    aliases: Vec<(String, GExpr, Type)>,
    /// Parameters given `none`: each stands for the word, typed where used.
    nones: Vec<String>,
    used: usize,
    max: usize,
    ctx: Ctx,
}

impl Scope {
    fn new(ctx: Ctx) -> Self {
        Scope { ctx, ..Default::default() }
    }
    /// Whether `e` is `none`: the word, or a parameter it was given as.
    fn is_none(&self, e: &Expr) -> bool {
        is_none(e)
            || matches!(&e.kind, ExprKind::Name(n)
                if self.nones.contains(&n.name) && !self.vars.iter().any(|(k, _, _)| *k == n.name))
    }
    fn bind(&mut self, name: &str, ty: Type) -> u8 {
        let slot = self.used.min(MAX_LOCALS - 1) as u8;
        self.used += 1;
        self.max = self.max.max(self.used);
        self.vars.push((name.to_string(), slot, ty));
        slot
    }
    fn mark(&self) -> (usize, usize) {
        (self.vars.len(), self.used)
    }
    fn reset(&mut self, m: (usize, usize)) {
        self.vars.truncate(m.0);
        self.used = m.1;
    }
}

type Typed = (GExpr, Type);

impl Compiler {
    pub(crate) fn rules(&mut self, items: &[Item]) {
        self.track_family_tables();
        self.definitions_and_hooks(items);
        // Phases, in order; without any, one implicit phase.
        let phases: Vec<&PhaseDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Phase(p) => Some(p),
                _ => None,
            })
            .collect();
        for (i, p) in phases.iter().enumerate() {
            if self.declare(&p.name, Global::Phase(i as u8)) {
                self.game.phases.push(PhaseDef { name: p.name.name.clone(), transitions: vec![] });
            }
        }
        if phases.is_empty() {
            self.game.phases.push(PhaseDef { name: "play".into(), transitions: vec![] });
        }
        // Moves: top level (phase 0, or an error with phases) and in phases.
        let mut moves: Vec<(&MoveDecl, u8)> = Vec::new();
        let mut rules: Vec<&RuleDecl> = Vec::new();
        for item in items {
            match item {
                Item::Move(m) => {
                    if !phases.is_empty() {
                        self.error(
                            Diagnostic::error(m.name.span, format!("move `{}` is outside every phase", m.name.name))
                                .label("top-level move")
                                .help("when a rule file declares phases, each move belongs to one: put it inside `phase NAME { ... }`"),
                        );
                    }
                    moves.push((m, 0));
                }
                Item::Rule(r) => rules.push(r),
                Item::Phase(p) => {
                    let idx = phases.iter().position(|x| std::ptr::eq(*x, p)).unwrap_or(0) as u8;
                    moves.extend(p.moves.iter().map(|m| (m, idx)));
                    rules.extend(p.rules.iter());
                }
                _ => {}
            }
        }
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (m, _) in &moves {
            if let Some(prev) = seen.get(m.name.name.as_str()) {
                self.error(
                    Diagnostic::error(m.name.span, format!("move `{}` is declared twice", m.name.name))
                        .label("again")
                        .note(*prev, "first here"),
                );
            } else {
                seen.insert(&m.name.name, m.name.span);
            }
        }
        let mut per_phase: HashMap<u8, usize> = HashMap::new();
        for (_, p) in &moves {
            *per_phase.entry(*p).or_default() += 1;
        }
        if moves.is_empty() {
            self.error(
                Diagnostic::error(Span::new(0, 0, 0), "the rule file declares no moves")
                    .label("in this file")
                    .help("add `move NAME { ... }`: what a player may do on their turn"),
            );
        }
        let mut seen_rules: Vec<&Ident> = Vec::new();
        for r in &rules {
            if let Some(prev) = seen_rules.iter().find(|p| p.name == r.name.name) {
                self.error(
                    Diagnostic::error(r.name.span, format!("rule `{}` is declared twice", r.name.name))
                        .label("again")
                        .note(prev.span, "first here"),
                );
            }
            seen_rules.push(&r.name);
            for a in &r.after {
                if !moves.iter().any(|(m, _)| m.name.name == a.name) {
                    let names = moves.iter().map(|(m, _)| m.name.name.clone()).collect();
                    self.unknown(a, "move", names);
                }
            }
        }
        // Rule bodies, compiled once each, are appended to their moves.
        let play = Ctx { play: true, effects: true, ..Default::default() };
        let mut compiled_rules: Vec<(Vec<String>, Vec<g::Stmt>, usize)> = Vec::new();
        for r in &rules {
            let mut scope = Scope::new(play);
            let body = self.stmts(&r.body, &mut scope);
            self.locals_used(scope.max, r.span);
            compiled_rules.push((r.after.iter().map(|a| a.name.clone()).collect(), body, scope.max));
        }
        for (m, phase) in &moves {
            let mut scope = Scope::new(play);
            let mut params = Vec::new();
            for c in &m.choices {
                let domain = match &c.domain {
                    ChoiceDomain::Range(a, b) => {
                        let a = self.expect(a, Type::Int, &mut scope);
                        let b = self.expect(b, Type::Int, &mut scope);
                        (a.zip(b).map(|(a, b)| GDomain::Range(a, b)), Type::Int)
                    }
                    ChoiceDomain::Set(e) => (self.expect(e, Type::Set, &mut scope).map(GDomain::Set), Type::Site),
                    ChoiceDomain::Players(_) => (Some(GDomain::Players), Type::Player),
                    ChoiceDomain::Tracks(_) => (Some(GDomain::Tracks), Type::Track),
                    ChoiceDomain::Arrangements(e) => {
                        self.need_colours(e.span, "`arrangements`");
                        let last = m.choices.last().is_some_and(|l| std::ptr::eq(l, c));
                        if !last {
                            self.error(
                                Diagnostic::error(c.span, "`arrangements` must be the last choice of a move")
                                    .label("later choices follow")
                                    .help("an order of colours is chosen after everything else, so it can be counted and sampled without listing"),
                            );
                        }
                        if let Some(f) = &c.filter {
                            self.error(
                                Diagnostic::error(f.span, "an order of colours cannot be filtered with `where`")
                                    .label("every order of the site is a choice")
                                    .help("use `require` in the move's body to refuse orders"),
                            );
                        }
                        (self.expect(e, Type::Site, &mut scope).map(GDomain::Arrangements), Type::Order)
                    }
                };
                let slot = scope.bind(&c.var.name, domain.1);
                let filter = c.filter.as_ref().and_then(|f| self.expect(f, Type::Bool, &mut scope));
                if let Some(domain) = domain.0 {
                    params.push(Param { name: c.var.name.clone(), slot, domain, filter, span: c.span });
                }
            }
            if params.len() > 4 {
                self.error(
                    Diagnostic::error(m.choices[4].span, "a move chooses at most 4 things").label("a fifth choice"),
                );
            }
            let shared = per_phase.get(phase).is_some_and(|&n| n > 1);
            let template = self.template(m, shared);
            let mut body = self.stmts(&m.body, &mut scope);
            let mut locals = scope.max;
            for (after, rbody, rmax) in &compiled_rules {
                if after.contains(&m.name.name) {
                    body.extend(rbody.iter().cloned());
                    locals = locals.max(*rmax);
                }
            }
            self.locals_used(locals, m.span);
            let (nonempty, rest) = precheck(&body, &params, &self.game);
            let needs_trial = body[rest..].iter().any(needs_trial);
            if let Some(i) = nonempty
                && i + 1 == params.len()
            {
                let slot = params[i].slot;
                params[i].filter = params[i].filter.take().and_then(|f| without_nonempty_test(f, slot));
            }
            self.game.moves.push(MoveDef {
                name: m.name.name.clone(),
                template,
                params,
                body,
                phase: *phase,
                needs_trial,
                nonempty,
                span: m.span,
            });
        }
        self.distinct_names(&moves);
        // Phase transitions.
        for (i, p) in phases.iter().enumerate() {
            for (to, cond) in &p.transitions {
                let target = match self.globals.get(&to.name) {
                    Some((Global::Phase(t), _)) => Some(*t),
                    _ => {
                        let names = phases.iter().map(|p| p.name.name.clone()).collect();
                        self.unknown(to, "phase", names);
                        None
                    }
                };
                let mut scope = Scope::new(Ctx { play: true, after: true, ..Default::default() });
                let span = cond.span;
                let cond = self.expect(cond, Type::Bool, &mut scope);
                self.locals_used(scope.max, span);
                if let (Some(t), Some(c), Some(ph)) = (target, cond, self.game.phases.get_mut(i)) {
                    ph.transitions.push((t, c, span));
                }
            }
        }
        let mut setups = 0;
        let mut score_seen = None;
        let mut stuck_seen: Option<Span> = None;
        let mut named: Vec<(&str, &Ident)> = Vec::new();
        for item in items {
            let name = match item {
                Item::Avoid(a) => Some(("avoid", &a.name)),
                Item::End(e) => Some(("end", &e.name)),
                Item::Round(e) => Some(("round", &e.name)),
                _ => None,
            };
            if let Some((kind, n)) = name {
                if let Some((_, prev)) = named.iter().find(|(k, p)| *k == kind && p.name == n.name) {
                    self.error(
                        Diagnostic::error(n.span, format!("`{kind} {}` is declared twice", n.name))
                            .label("again")
                            .note(prev.span, "first here")
                            .help("give each its own name; a variant file replaces one by declaring it again"),
                    );
                }
                named.push((kind, n));
            }
            match item {
                Item::Setup(b) => {
                    setups += 1;
                    if setups > 1 {
                        self.error(Diagnostic::error(b.span, "a second `setup`").label("one setup per game"));
                    }
                    let mut scope = Scope::new(Ctx { setup: true, starts: true, ..Default::default() });
                    self.game.setup = self.stmts(&b.stmts, &mut scope);
                    self.game.setup_span = Some(b.span);
                    self.locals_used(scope.max, b.span);
                }
                Item::Avoid(a) => {
                    let mut scope = Scope::new(Ctx { play: true, after: true, ..Default::default() });
                    match self.expect(&a.cond, Type::Bool, &mut scope) {
                        // Switched off by an option: nothing to check during play.
                        Some(GExpr::Const(Value::Bool(false))) | None => {}
                        Some(c) => self.game.avoids.push((a.name.name.clone(), c, a.cond.span)),
                    }
                    self.locals_used(scope.max, a.span);
                }
                Item::End(e) => {
                    let mut scope = Scope::new(Ctx { play: true, after: true, ..Default::default() });
                    let before = self.take_reads();
                    let cond = self.expect(&e.cond, Type::Bool, &mut scope);
                    let verdict = match &e.verdict {
                        Some((winner, p)) => self.expect(p, Type::Player, &mut scope).map(|p| (*winner, p)),
                        None => None,
                    };
                    let body = self.stmts(&e.body, &mut scope);
                    self.locals_used(scope.max, e.span);
                    let reads = self.take_reads();
                    self.add_reads(before);
                    // Switched off by an option: it never runs, and what it
                    // would read is not read.
                    if let Some(cond) = cond.filter(|c| !matches!(c, GExpr::Const(Value::Bool(false)))) {
                        self.add_reads(reads);
                        let cond_span = e.cond.span;
                        let verdict_span = e.verdict.as_ref().map_or(cond_span, |(_, p)| p.span);
                        let name = e.name.name.clone();
                        self.game.ends.push(EndDef { name, cond, verdict, body, cond_span, verdict_span });
                    }
                }
                Item::Round(e) => {
                    let mut scope = Scope::new(Ctx { play: true, after: true, starts: true, ..Default::default() });
                    let cond = self.expect(&e.cond, Type::Bool, &mut scope);
                    let body = self.stmts(&e.body, &mut scope);
                    self.locals_used(scope.max, e.span);
                    if let Some(cond) = cond.filter(|c| !matches!(c, GExpr::Const(Value::Bool(false)))) {
                        let (name, cond_span) = (e.name.name.clone(), e.cond.span);
                        let verdict_span = cond_span;
                        self.game.rounds.push(EndDef { name, cond, verdict: None, body, cond_span, verdict_span });
                    }
                }
                Item::Stuck(s) => {
                    if let Some(prev) = stuck_seen {
                        self.error(
                            Diagnostic::error(s.span, "a second `when stuck`").label("again").note(prev, "first here"),
                        );
                    }
                    stuck_seen = Some(s.span);
                    self.game.stuck = s.action;
                    if let Some(b) = &s.body {
                        if s.action == StuckAction::Pass {
                            self.error(
                                Diagnostic::error(b.span, "`when stuck: pass` takes no statements")
                                    .label("nothing ends here")
                                    .help("statements run when the game ends: `when stuck: end { ... }`"),
                            );
                        }
                        let mut scope = Scope::new(Ctx { play: true, after: true, ..Default::default() });
                        self.game.stuck_body = self.stmts(&b.stmts, &mut scope);
                        self.locals_used(scope.max, b.span);
                    }
                }
                Item::Score(s) => {
                    if let Some(prev) = score_seen {
                        self.error(
                            Diagnostic::error(s.span, "a second `score`").label("again").note(prev, "first here"),
                        );
                    }
                    score_seen = Some(s.span);
                    let mut scope = Scope::new(Ctx::default());
                    let slot = scope.bind(&s.var.name, Type::Player);
                    if let Some(v) = self.expect(&s.value, Type::Int, &mut scope) {
                        self.game.score = (slot, v);
                        self.game.score_span = Some(s.value.span);
                    }
                    self.locals_used(scope.max, s.span);
                }
                _ => {}
            }
        }
        if score_seen.is_none() {
            self.error(
                Diagnostic::error(Span::new(0, 0, 0), "the rule file declares no score")
                    .label("in this file")
                    .help("add e.g. `score p: count(store(p))`: the most wins, equal scores share the win"),
            );
        }
        self.glyphs(items);
        self.game.locals = self.game.locals.max(1);
    }

    /// Notes how many local variables a move or rule needs, refusing more than
    /// the executor keeps.
    fn locals_used(&mut self, n: usize, span: Span) {
        if n > MAX_LOCALS {
            self.error(
                Diagnostic::error(span, format!("this uses {n} local variables at once; at most {MAX_LOCALS}"))
                    .label("too many variables")
                    .help("split it into several rules or moves"),
            );
        }
        self.game.locals = self.game.locals.max(n.min(MAX_LOCALS));
    }

    /// Reports two kinds of move in one phase whose names have the same shape
    /// (the same words around choices of the same types): they could name
    /// different moves alike, and only one of them could be typed.
    fn distinct_names(&mut self, decls: &[(&MoveDecl, u8)]) {
        let shape = |d: &MoveDef| {
            d.template
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(t) => t.clone(),
                    TemplatePart::Param(i) => match d.params.get(*i).map(|p| &p.domain) {
                        Some(GDomain::Range(..)) => "{number}".into(),
                        Some(GDomain::Set(_) | GDomain::Walk { .. }) => "{site}".into(),
                        Some(GDomain::Players) => "{player}".into(),
                        Some(GDomain::Arrangements(_)) => "{order}".into(),
                        Some(GDomain::Tracks) => "{track}".into(),
                        None => "{?}".into(),
                    },
                })
                .collect::<String>()
        };
        // Two declarations whose names have the same shape may still never
        // be legal at once (their `where`s part them): that is found out in
        // play, where two legal moves of one name make finding it an error
        // that names both (see `engine::names::find_move`).
        let _ = (decls, shape);
    }

    /// A move's name as parts; `shared` when its phase has other kinds of
    /// move, whose names a default name must not be confused with.
    fn template(&mut self, m: &MoveDecl, shared: bool) -> Vec<TemplatePart> {
        let Some(t) = &m.template else {
            return match m.choices.len() {
                0 => vec![TemplatePart::Text(m.name.name.clone())],
                1 if !shared => vec![TemplatePart::Param(0)],
                n => {
                    let mut parts = vec![TemplatePart::Text(m.name.name.clone())];
                    for i in 0..n {
                        parts.push(TemplatePart::Text(" ".into()));
                        parts.push(TemplatePart::Param(i));
                    }
                    parts
                }
            };
        };
        let mut parts = Vec::new();
        let mut misspelt = false;
        let mut rest = t.value.as_str();
        let mut offset = t.span.start + 1;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(TemplatePart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                self.error(
                    Diagnostic::error(
                        Span::new(t.span.file, offset + open, offset + open + 1),
                        "`{` without a closing `}` in a move name",
                    )
                    .label("unclosed"),
                );
                return parts;
            };
            let name = &rest[open + 1..open + close];
            let span = Span::new(t.span.file, offset + open, offset + open + close + 1);
            match m.choices.iter().position(|c| c.var.name == name) {
                Some(i) => parts.push(TemplatePart::Param(i)),
                None => {
                    misspelt = true;
                    let names: Vec<String> = m.choices.iter().map(|c| c.var.name.clone()).collect();
                    self.unknown(&Ident { name: name.to_string(), span }, "choice", names);
                }
            }
            rest = &rest[open + close + 1..];
            offset += open + close + 1;
        }
        if !rest.is_empty() {
            parts.push(TemplatePart::Text(rest.to_string()));
        }
        if t.value.trim().is_empty() {
            self.error(
                Diagnostic::error(t.span, "a move needs a name to be typed by")
                    .label("empty")
                    .help("e.g. `\"{hole}\"`, filled in with the choices the move makes"),
            );
        } else if !misspelt {
            for (i, c) in m.choices.iter().enumerate() {
                if !parts.iter().any(|p| matches!(p, TemplatePart::Param(j) if *j == i)) {
                    self.error(
                        Diagnostic::error(
                            t.span,
                            format!("the name of move `{}` leaves out its choice `{}`", m.name.name, c.var.name),
                        )
                        .label("moves that differ only in this choice would share this name")
                        .note(c.var.span, "chosen here")
                        .help(format!("write `{{{}}}` in the name", c.var.name)),
                    );
                }
            }
        }
        parts
    }

    /// `glyph`s: how sites are drawn, first match first.
    fn glyphs(&mut self, items: &[Item]) {
        let mut scope = Scope::new(Ctx::default());
        let slot = scope.bind("it", Type::Site);
        self.game.glyph_slot = slot;
        for item in items {
            if let Item::Glyph(g) = item
                && let Some(c) = self.expect(&g.cond, Type::Bool, &mut scope)
            {
                self.game.glyphs.push((g.text.value.clone(), c));
            }
        }
        self.locals_used(scope.max, Span::default());
    }
}

/// A choice's `where`, or nothing when all it tests is that the chosen site
/// holds counters (`count(x) > 0`) and the executor checks that already
/// (see `precheck`): the last choice's test would be made twice. (Not the
/// first of an `and`: what follows it may fail on an empty site.)
fn without_nonempty_test(filter: GExpr, slot: u8) -> Option<GExpr> {
    (!filter.is_nonempty_test(slot)).then_some(filter)
}

/// Whether an expression is the word `none`: no player, site or track.
fn is_none(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Name(n) if n.name == "none")
}
