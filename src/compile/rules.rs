//! Rules: expressions and statements resolved and type-checked, and the moves,
//! rules, phases, `avoid`, `end`, `when stuck` and `score` declarations that
//! use them.

use super::{Compiler, Global};
use crate::diagnostics::{Diagnostic, Span};
use crate::engine::game::{
    self as g, Builtin, Domain as GDomain, EndDef, Expr as GExpr, MoveDef, Param, PhaseDef, StmtKind as GStmt,
    TemplatePart, Type, Value,
};
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
                    params.push(Param { name: c.var.name.clone(), slot, domain, filter });
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
            let (nonempty, rest) = precheck(&body, &params, &self.game.tracks);
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
                    ph.transitions.push((t, c));
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
                        Some(c) => self.game.avoids.push((a.name.name.clone(), c)),
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
                        self.game.ends.push(EndDef { name: e.name.name.clone(), cond, verdict, body });
                    }
                }
                Item::Round(e) => {
                    let mut scope = Scope::new(Ctx { play: true, after: true, starts: true, ..Default::default() });
                    let cond = self.expect(&e.cond, Type::Bool, &mut scope);
                    let body = self.stmts(&e.body, &mut scope);
                    self.locals_used(scope.max, e.span);
                    if let Some(cond) = cond.filter(|c| !matches!(c, GExpr::Const(Value::Bool(false)))) {
                        self.game.rounds.push(EndDef { name: e.name.name.clone(), cond, verdict: None, body });
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

    fn stmts(&mut self, stmts: &[Stmt], scope: &mut Scope) -> Vec<g::Stmt> {
        let mark = scope.mark();
        let out = stmts.iter().filter_map(|s| self.stmt(s, scope)).collect();
        scope.reset(mark);
        out
    }

    fn stmt(&mut self, s: &Stmt, scope: &mut Scope) -> Option<g::Stmt> {
        let kind = match &s.kind {
            StmtKind::Sow { amount, source, track, order, start, skips, relay, each } => {
                let amount = match amount {
                    Some(a) => Some(self.expect(a, Type::Int, scope)?),
                    None => None,
                };
                let ordered = match order {
                    None => false,
                    Some(o) if amount.is_some() => {
                        self.error(
                            Diagnostic::error(o.span, "an order of colours is for sowing all the counters of a site")
                                .label("with an amount, only part is lifted")
                                .help("remove `N from`, or the order"),
                        );
                        return None;
                    }
                    Some(o) => {
                        self.need_colours(o.span, "`in order`");
                        self.expect(o, Type::Order, scope)?;
                        true
                    }
                };
                let src = self.expect(source, Type::Site, scope);
                let trk = self.expect(track, Type::Track, scope);
                let start = match start {
                    Some(x) => Some(self.expect(x, Type::Site, scope)?),
                    None => None,
                };
                let relay = match relay {
                    Some(r) => {
                        let from = match &r.from {
                            Some(x) => Some(self.expect(x, Type::Site, scope)?),
                            None => None,
                        };
                        let cond = self.expect(&r.cond, Type::Bool, scope)?;
                        let max = match &r.max {
                            Some(x) => Some(self.expect(x, Type::Int, scope)?),
                            None => None,
                        };
                        Some(Box::new(g::Relay { from, cond, max }))
                    }
                    None => None,
                };
                let each = self.stmts(each, scope);
                let mark = scope.mark();
                let it = scope.bind("it", Type::Site);
                let sk: Vec<GExpr> = skips
                    .iter()
                    .filter_map(|e| self.expect(e, Type::Bool, scope))
                    .filter(|e| !matches!(e, GExpr::Const(Value::Bool(false))))
                    .collect();
                scope.reset(mark);
                let (fixed_skips, skips): (Vec<GExpr>, Vec<GExpr>) = sk.into_iter().partition(|e| is_fixed(e, it));
                GStmt::Sow { amount, source: src?, track: trk?, it, ordered, fixed_skips, skips, start, relay, each }
            }
            StmtKind::Take { amount, colour, from, to } => {
                let amount = match amount {
                    Some(a) => Some(self.expect(a, Type::Int, scope)?),
                    None => None,
                };
                let colour = self.colour(colour.as_ref(), scope)?;
                // Taking a number of counters of several colours needs a colour;
                // taking all of a site takes every colour.
                self.colour_named(s.span, colour.is_some() || amount.is_none())?;
                let from = if amount.is_some() {
                    self.expect(from, Type::Site, scope)
                } else {
                    self.sites_or_set(from, scope)
                };
                let to = match to {
                    Some(t) => Some(self.expect(t, Type::Site, scope)?),
                    None => None,
                };
                GStmt::Take { amount, colour, from: from?, to }
            }
            StmtKind::Set { var, site, value } => {
                let Some((Global::State(i), _)) = self.globals.get(&var.name).cloned() else {
                    let names = self.game.state.iter().map(|s| s.name.clone()).collect();
                    self.unknown(var, "state variable", names);
                    return None;
                };
                // A round sets up the next round: state too (holes closed
                // by the refill, say), as a move or the setup would.
                if !scope.ctx.effects && !scope.ctx.setup && !scope.ctx.starts {
                    self.error(
                        Diagnostic::error(s.span, "`set` belongs in a move, a rule, a `round` or `setup`")
                            .label("not allowed here"),
                    );
                    return None;
                }
                let v = self.game.state[i as usize].clone();
                let site = match (site, v.per_site) {
                    (Some(x), true) => Some(self.expect(x, Type::Site, scope)?),
                    (None, false) => None,
                    (Some(x), false) => {
                        self.error(
                            Diagnostic::error(x.span, format!("`{}` is one value, not one per site", v.name))
                                .label("remove this site")
                                .help(format!("write `set {} = ...`", v.name)),
                        );
                        return None;
                    }
                    (None, true) => {
                        self.error(
                            Diagnostic::error(
                                var.span,
                                format!("`{}` has a value for each site: name the site", v.name),
                            )
                            .label("which site?")
                            .help(format!("write `set {}(SITE) = ...`", v.name)),
                        );
                        return None;
                    }
                };
                GStmt::Set { var: i, site, value: self.expect(value, v.ty, scope)? }
            }
            StmtKind::Swap(a, b) => {
                let a = self.expect(a, Type::Site, scope);
                let b = self.expect(b, Type::Site, scope);
                GStmt::Swap(a?, b?)
            }
            StmtKind::Enter(phase) => {
                self.effect_allowed(s, scope, "enter")?;
                // The implicit phase of a file without phases has a name too.
                match self.game.phases.iter().position(|p| p.name == phase.name) {
                    Some(p) => GStmt::Enter(p as u8),
                    None => {
                        let names = self.game.phases.iter().map(|p| p.name.clone()).collect();
                        self.unknown(phase, "phase", names);
                        return None;
                    }
                }
            }
            StmtKind::Put { amount, colour, target } => {
                let colour = self.colour(colour.as_ref(), scope)?;
                self.colour_named(s.span, colour.is_some())?;
                if !scope.ctx.setup {
                    self.error(
                        Diagnostic::error(s.span, "`put` creates counters, which only `setup` may do")
                            .label("counters are conserved during play")
                            .help("to move counters during play, write `take N from SITE to SITE`"),
                    );
                }
                let amount = self.expect(amount, Type::Int, scope);
                let target = self.sites_or_set(target, scope);
                GStmt::Put { amount: amount?, colour, target: target? }
            }
            StmtKind::If { branches, otherwise } => {
                let mut out = Vec::new();
                let mut ok = true;
                for (cond, then) in branches {
                    let cond = self.expect(cond, Type::Bool, scope);
                    let then = self.stmts(then, scope);
                    match cond {
                        Some(c) => out.push((c, then)),
                        None => ok = false,
                    }
                }
                let mut otherwise = otherwise.as_ref().map(|o| self.stmts(o, scope)).unwrap_or_default();
                if !ok {
                    return None;
                }
                // Fold conditions fixed by options: a branch that can never
                // run is dropped (so a `require` in it makes no move need a
                // trial), and one that always runs ends the chain.
                out.retain(|(c, _)| !matches!(c, GExpr::Const(Value::Bool(false))));
                if let Some(i) = out.iter().position(|(c, _)| matches!(c, GExpr::Const(Value::Bool(true)))) {
                    otherwise = out.remove(i).1;
                    out.truncate(i);
                }
                GStmt::If { branches: out, otherwise }
            }
            StmtKind::For { var, domain, body } => {
                let mut dom = self.domain(domain, scope);
                let mark = scope.mark();
                let ty = Self::domain_type(domain);
                let slot = scope.bind(&var.name, ty);
                self.walk_condition(domain, &mut dom, scope);
                let body = self.stmts(body, scope);
                scope.reset(mark);
                GStmt::For { var: slot, domain: dom?, body }
            }
            StmtKind::Let { var, value } => {
                let (v, ty) = self.expr(value, scope)?;
                let slot = scope.bind(&var.name, ty);
                GStmt::Let { var: slot, value: v }
            }
            StmtKind::Require(e) => {
                self.effect_allowed(s, scope, "require")?;
                GStmt::Require(self.expect(e, Type::Bool, scope)?)
            }
            StmtKind::Again => {
                self.effect_allowed(s, scope, "again")?;
                GStmt::Again
            }
            StmtKind::Start(p) => {
                if !scope.ctx.starts {
                    self.error(
                        Diagnostic::error(s.span, "`start` belongs in `setup` or a `round`")
                            .label("not allowed here")
                            .help("it says who begins the game, or the next round"),
                    );
                    return None;
                }
                GStmt::Start(self.expect(p, Type::Player, scope)?)
            }
            StmtKind::EndGame => {
                self.effect_allowed(s, scope, "end game")?;
                GStmt::EndGame
            }
        };
        Some(g::Stmt { kind, span: s.span })
    }

    /// `define`s (kept to be inlined) and `hook`s (compiled now, once).
    fn definitions_and_hooks(&mut self, items: &[Item]) {
        let tracks = self
            .game
            .tracks
            .iter()
            .map(|t| (t.name.clone(), t.sites.iter().map(|&s| self.game.sites[s as usize].name.clone()).collect()))
            .collect();
        let mut hooks = crate::hooks::Hooks::with_tracks(tracks);
        for item in items {
            match item {
                Item::Define(d) => {
                    let id = self.defines.len();
                    if self.declare(&d.name, Global::Define(id)) {
                        self.defines.push(d.clone());
                    }
                }
                Item::Hook(h) => {
                    let mut params = Vec::new();
                    for (p, ty) in &h.params {
                        match type_named(&ty.name) {
                            Some(t) => params.push((p.name.clone(), t)),
                            None => self.error(
                                Diagnostic::error(ty.span, format!("`{}` is not a type a hook can take", ty.name))
                                    .label("unknown type")
                                    .help("one of `site`, `track`, `player`, `number`, `condition`, `sites`"),
                            ),
                        }
                    }
                    let Some(returns) = type_named(&h.returns.name).filter(|t| *t != Type::Set) else {
                        self.error(
                            Diagnostic::error(
                                h.returns.span,
                                format!("`{}` is not a type a hook can return", h.returns.name),
                            )
                            .label("unknown type")
                            .help("one of `site`, `track`, `player`, `number`, `condition`"),
                        );
                        self.declare(&h.name, Global::Hook(u16::MAX));
                        continue;
                    };
                    if params.len() != h.params.len() {
                        self.declare(&h.name, Global::Hook(u16::MAX));
                        continue;
                    }
                    match hooks.add(&h.name.name, params, returns, &h.code, h.code_span) {
                        Ok(id) => {
                            self.declare(&h.name, Global::Hook(id));
                        }
                        Err(d) => {
                            // Declared all the same, so its uses are not reported as unknown.
                            self.declare(&h.name, Global::Hook(u16::MAX));
                            self.error(d);
                        }
                    }
                }
                _ => {}
            }
        }
        if !hooks.defs.is_empty() {
            self.game.hooks = Some(std::sync::Arc::new(hooks));
        }
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

    /// Whether both operands of a comparison are sites (compiled once to see,
    /// with no diagnostics kept).
    fn site_operands(&mut self, a: &Expr, b: &Expr, scope: &mut Scope) -> bool {
        let before = self.diags.len();
        let ta = self.expr(a, scope).map(|x| x.1);
        let tb = self.expr(b, scope).map(|x| x.1);
        self.diags.truncate(before);
        ta == Some(Type::Site) && tb == Some(Type::Site)
    }

    /// A `define`d expression with its parameters bound to the arguments,
    /// compiled where it is used.
    fn inline(&mut self, call: &Expr, d: usize, args: &[Expr], scope: &mut Scope) -> Option<Typed> {
        let def = self.defines[d].clone();
        if args.len() != def.params.len() {
            self.error(
                Diagnostic::error(
                    call.span,
                    format!("`{}` takes {} argument(s), found {}", def.name.name, def.params.len(), args.len()),
                )
                .label("wrong number of arguments")
                .note(def.span, "defined here"),
            );
            return None;
        }
        if self.inlining.contains(&d) {
            self.error(
                Diagnostic::error(
                    call.span,
                    format!("`{}` uses itself, directly or through other definitions", def.name.name),
                )
                .label("used here")
                .note(def.span, "defined here")
                .help("a definition cannot refer to itself"),
            );
            return None;
        }
        // The copies are counted for each use outside any definition: past
        // the limit, every copy still open stops, and that outermost use
        // says why (each time it is compiled: a trial compile may drop it).
        if self.inlining.is_empty() {
            self.inlined = 0;
            self.inlined_too_deep = false;
        }
        self.inlined += 1;
        self.inlined_too_deep |= self.inlining.len() >= MAX_DEFINE_DEPTH;
        if self.inlined > MAX_INLINED || self.inlined_too_deep {
            return None;
        }
        let mut bound = Vec::new();
        let mut nones = Vec::new();
        for (p, a) in def.params.iter().zip(args) {
            // `none` takes its kind from where the body uses it.
            if scope.is_none(a) {
                nones.push(p.name.clone());
                continue;
            }
            let (e, ty) = self.expr(a, scope)?;
            // The argument is written into the body at each use: a random
            // number would be drawn again at each.
            let uses = uses_of(&def.body, &p.name);
            if draws(&e) && uses > 1 {
                self.error(
                    Diagnostic::error(
                        a.span,
                        format!("this draws a random number, and `{}` uses `{}` {uses} times", def.name.name, p.name),
                    )
                    .label("drawn again at each use")
                    .note(def.span, "defined here")
                    .help("draw it once first: `let r = random(...)`, then pass `r`"),
                );
                return None;
            }
            bound.push((p.name.clone(), e, ty));
        }
        // The body sees its parameters and the globals, not the caller's locals.
        let saved_vars = std::mem::take(&mut scope.vars);
        let saved_aliases = std::mem::replace(&mut scope.aliases, bound);
        let saved_nones = std::mem::replace(&mut scope.nones, nones);
        self.inlining.push(d);
        let r = self.expr(&def.body, scope);
        self.inlining.pop();
        scope.vars = saved_vars;
        scope.aliases = saved_aliases;
        scope.nones = saved_nones;
        if self.inlining.is_empty() && (self.inlined > MAX_INLINED || self.inlined_too_deep) {
            let what = if !self.inlined_too_deep {
                format!(
                    "`{}` would be copied with the definitions it uses more than {MAX_INLINED} times",
                    def.name.name
                )
            } else {
                format!("definitions nested more than {MAX_DEFINE_DEPTH} deep in `{}`", def.name.name)
            };
            self.error(
                Diagnostic::error(call.span, what)
                    .label("used here")
                    .note(def.span, "defined here")
                    .help("each use of a definition is a copy of it, so a definition that uses another twice doubles it: compute a value once with `let`, or write it with fewer layers"),
            );
            return None;
        }
        r
    }

    /// Reports a coloured construct in a game whose counters have no colours.
    fn need_colours(&mut self, span: Span, what: &str) {
        if self.game.colours < 2 {
            self.error(
                Diagnostic::error(span, format!("{what} needs counters of several colours"))
                    .label("the counters of this game have no colours")
                    .help("declare `counters coloured by player`"),
            );
        }
    }

    /// The colour of `of C`, a player.
    /// With counters of several colours, a statement that moves or makes a
    /// number of them must say which colour (`named`): an error otherwise.
    fn colour_named(&mut self, span: Span, named: bool) -> Option<()> {
        if named || self.game.colours <= 1 {
            return Some(());
        }
        self.error(
            Diagnostic::error(span, "counters of several colours: say which colour")
                .label("which colour?")
                .help("write `... N of COLOUR ...`"),
        );
        None
    }

    fn colour(&mut self, c: Option<&Expr>, scope: &mut Scope) -> Option<Option<GExpr>> {
        match c {
            None => Some(None),
            Some(c) => {
                self.need_colours(c.span, "`of COLOUR`");
                Some(Some(self.expect(c, Type::Player, scope)?))
            }
        }
    }

    fn effect_allowed(&mut self, s: &Stmt, scope: &Scope, what: &str) -> Option<()> {
        if scope.ctx.effects {
            return Some(());
        }
        self.error(
            Diagnostic::error(s.span, format!("`{what}` belongs in a move or a rule")).label("not allowed here"),
        );
        None
    }

    /// A site or a set of sites (a single site becomes a set of one at run time).
    fn sites_or_set(&mut self, e: &Expr, scope: &mut Scope) -> Option<GExpr> {
        let (x, ty) = self.expr(e, scope)?;
        match ty {
            Type::Site | Type::Set => Some(x),
            other => {
                self.type_error(e.span, "a site or a set of sites", other);
                None
            }
        }
    }

    fn domain(&mut self, d: &Domain, scope: &mut Scope) -> Option<GDomain> {
        Some(match d {
            Domain::Players(_) => GDomain::Players,
            Domain::Range(a, b) => {
                let a = self.expect(a, Type::Int, scope);
                let b = self.expect(b, Type::Int, scope);
                GDomain::Range(a?, b?)
            }
            Domain::Set(set) => GDomain::Set(self.sites_or_set(set, scope)?),
            Domain::Walk(w) => {
                let track = self.expect(&w.track, Type::Track, scope);
                let from = self.expect(&w.from, Type::Site, scope);
                // The condition is compiled once the variable is bound: see `walk_condition`.
                GDomain::Walk { track: track?, from: from?, backwards: w.backwards, cond: None }
            }
        })
    }

    /// A walk's `while`, compiled with the walk's variable in scope.
    fn walk_condition(&mut self, domain: &Domain, compiled: &mut Option<GDomain>, scope: &mut Scope) {
        if let (Domain::Walk(w), Some(GDomain::Walk { cond, .. })) = (domain, compiled.as_mut())
            && let Some(c) = &w.cond
        {
            match self.expect(c, Type::Bool, scope) {
                Some(c) => *cond = Some(Box::new(c)),
                None => *compiled = None,
            }
        }
    }

    /// The type of the variable a domain binds.
    fn domain_type(d: &Domain) -> Type {
        match d {
            Domain::Players(_) => Type::Player,
            Domain::Range(..) => Type::Int,
            Domain::Set(_) | Domain::Walk(_) => Type::Site,
        }
    }

    fn type_error(&mut self, span: Span, want: &str, got: Type) {
        self.error(
            Diagnostic::error(span, format!("expected {want}, found {}", got.word()))
                .label(format!("this is {}", got.word())),
        );
    }

    /// `none` where a value of type `ty` is compared: none for a player,
    /// site or track; an error for a number or a condition.
    fn none_of(&mut self, e: &Expr, ty: Type) -> Option<Typed> {
        if matches!(ty, Type::Player | Type::Site | Type::Track) {
            return Some((GExpr::Const(Value::None), ty));
        }
        self.error(
            Diagnostic::error(
                e.span,
                format!("`none` is no player, site or track, and this is compared with {}", ty.word()),
            )
            .label("no such value")
            .help("a number or a condition always has a value (0 and false when never set)"),
        );
        None
    }

    fn expect(&mut self, e: &Expr, want: Type, scope: &mut Scope) -> Option<GExpr> {
        if scope.is_none(e) && matches!(want, Type::Player | Type::Site | Type::Track) {
            return Some(GExpr::Const(Value::None));
        }
        let (x, ty) = self.expr(e, scope)?;
        if ty == want {
            return Some(x);
        }
        let mut d = Diagnostic::error(e.span, format!("expected {}, found {}", want.word(), ty.word()))
            .label(format!("this is {}", ty.word()));
        if want == Type::Int && ty == Type::Site {
            d = d.help("to use the counters in a site, write `count(...)`");
        } else if want == Type::Bool && ty == Type::Int {
            d = d.help("compare it, e.g. `... > 0`");
        }
        self.error(d);
        None
    }

    fn expr(&mut self, e: &Expr, scope: &mut Scope) -> Option<Typed> {
        match &e.kind {
            ExprKind::Int(i) => Some((GExpr::Const(Value::Int(*i)), Type::Int)),
            ExprKind::Bool(b) => Some((GExpr::Const(Value::Bool(*b)), Type::Bool)),
            ExprKind::Name(n) => self.name(n, scope),
            ExprKind::Call(f, args) => self.call(e, f, args, scope),
            ExprKind::Index(n, arg) => self.index(n, arg, scope),
            ExprKind::Unary(UnOp::Not, x) => {
                let x = self.expect(x, Type::Bool, scope)?;
                Some((
                    match x {
                        GExpr::Const(Value::Bool(b)) => GExpr::Const(Value::Bool(!b)),
                        x => GExpr::Not(Box::new(x)),
                    },
                    Type::Bool,
                ))
            }
            ExprKind::Unary(UnOp::Neg, x) => Some((
                GExpr::Spanned(e.span, Box::new(GExpr::Neg(Box::new(self.expect(x, Type::Int, scope)?)))),
                Type::Int,
            )),
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b, scope),
            ExprKind::Is(x, kind) => {
                Some((GExpr::IsKind(Box::new(self.expect(x, Type::Site, scope)?), *kind), Type::Bool))
            }
            ExprKind::Every(kind, owner) => {
                let k = kind.index();
                match owner {
                    None => {
                        Some((GExpr::Const(Value::Set(self.game.kind_sets[k][self.game.players.len()])), Type::Set))
                    }
                    Some(o) => match self.expect(o, Type::Player, scope)? {
                        // With territory, whose the sites are is known only in play.
                        GExpr::Const(Value::Player(p)) if self.game.territory.is_none_or(|(_, t)| t != *kind) => {
                            Some((GExpr::Const(Value::Set(self.game.kind_sets[k][p as usize])), Type::Set))
                        }
                        x => Some((GExpr::KindSet(*kind, Box::new(x)), Type::Set)),
                    },
                }
            }
            ExprKind::Filter(set, cond) => {
                let set = self.sites_or_set(set, scope);
                let mark = scope.mark();
                let it = scope.bind("it", Type::Site);
                let cond = self.expect(cond, Type::Bool, scope);
                scope.reset(mark);
                Some((GExpr::Filter(Box::new(set?), it, Box::new(cond?)), Type::Set))
            }
            ExprKind::Cond(c, a, b) => {
                let before = self.take_reads();
                let c = self.expect(c, Type::Bool, scope);
                let read_c = self.take_reads();
                // `none` in one branch takes the other's type.
                let (ea, eb) = (&**a, &**b);
                let mut a = if scope.is_none(ea) { None } else { self.expr(ea, scope) };
                let read_a = self.take_reads();
                let b = match (scope.is_none(eb), &a) {
                    (true, Some((_, ty))) => self.expect(eb, *ty, scope).map(|x| (x, *ty)),
                    _ => self.expr(eb, scope),
                };
                if scope.is_none(ea)
                    && let Some((_, ty)) = &b
                {
                    a = self.expect(ea, *ty, scope).map(|x| (x, *ty));
                }
                let read_b = self.take_reads();
                // A condition fixed by an option leaves one branch: only what
                // it reads is read.
                let kept = match &c {
                    Some(GExpr::Const(Value::Bool(true))) => read_a,
                    Some(GExpr::Const(Value::Bool(false))) => read_b,
                    _ => read_a | read_b,
                };
                self.add_reads(before | read_c | kept);
                let ((a, ta), (b, tb)) = (a?, b?);
                if ta != tb {
                    self.error(
                        Diagnostic::error(e.span, format!("the two branches give {} and {}", ta.word(), tb.word()))
                            .label("different kinds of value")
                            .help("both branches of `if ... then ... else ...` must give the same kind of value"),
                    );
                    return None;
                }
                Some(match c? {
                    GExpr::Const(Value::Bool(true)) => (a, ta),
                    GExpr::Const(Value::Bool(false)) => (b, ta),
                    c => (GExpr::Cond(Box::new(c), Box::new(a), Box::new(b)), ta),
                })
            }
            ExprKind::Quant(q, var, domain, body) => {
                let mut dom = self.domain(domain, scope);
                let mark = scope.mark();
                let ty = Self::domain_type(domain);
                let slot = scope.bind(&var.name, ty);
                self.walk_condition(domain, &mut dom, scope);
                let want = if *q == Quant::Sum { Type::Int } else { Type::Bool };
                let body = self.expect(body, want, scope);
                scope.reset(mark);
                let quant = GExpr::Quant(*q, slot, Box::new(dom?), Box::new(body?));
                Some((if *q == Quant::Sum { GExpr::Spanned(e.span, Box::new(quant)) } else { quant }, want))
            }
        }
    }

    fn name(&mut self, n: &Ident, scope: &mut Scope) -> Option<Typed> {
        if let Some((_, slot, ty)) = scope.vars.iter().rev().find(|(k, _, _)| *k == n.name) {
            return Some((GExpr::Local(*slot), *ty));
        }
        if let Some((_, e, ty)) = scope.aliases.iter().rev().find(|(k, _, _)| *k == n.name) {
            return Some((e.clone(), *ty));
        }
        let builtin = match n.name.as_str() {
            "mover" => {
                Some((Builtin::Mover, Type::Player, scope.ctx.play, "in a move, a rule, `avoid`, `end` or `then`"))
            }
            "last" => Some((Builtin::Last, Type::Site, scope.ctx.play, "after a sowing, in a move or a rule")),
            "origin" => Some((Builtin::Origin, Type::Site, scope.ctx.play, "in a sowing, in a move or a rule")),
            "next" => Some((
                Builtin::Next,
                Type::Player,
                scope.ctx.after,
                "in `avoid`, `end` and `then`, which look at the position after a move",
            )),
            "ply" => Some((Builtin::Ply, Type::Int, true, "")),
            "rounds" => Some((Builtin::Rounds, Type::Int, true, "")),
            "starter" => Some((Builtin::Starter, Type::Player, true, "")),
            "repetitions" => Some((Builtin::Repetitions, Type::Int, true, "")),
            "last-colour" => {
                self.need_colours(n.span, "`last-colour`");
                Some((Builtin::LastColour, Type::Player, scope.ctx.play, "after a sowing, in a move or a rule"))
            }
            _ => None,
        };
        if let Some((b, ty, ok, where_)) = builtin {
            if !ok {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` is only known {where_}", n.name)).label("not known here"),
                );
                return None;
            }
            if matches!(b, Builtin::Ply | Builtin::Repetitions) {
                self.game.history = true;
            }
            return Some((GExpr::Builtin(b), ty));
        }
        if n.name == "none" || scope.nones.contains(&n.name) {
            self.error(
                Diagnostic::error(n.span, "`none` has no kind here")
                    .label("no player, site or track of what?")
                    .help("compare it (`owner(x) == none`) or give it where a player, site or track is expected"),
            );
            return None;
        }
        if n.name == "it" {
            self.error(
                Diagnostic::error(n.span, "`it` is only known in a `skip` clause, a `(SET where ...)` filter and a `glyph`, where it is the site in question")
                    .label("not known here"),
            );
            return None;
        }
        match self.globals.get(&n.name).map(|g| g.0.clone()) {
            Some(Global::Option(v)) => {
                let ty = if matches!(v, Value::Bool(_)) { Type::Bool } else { Type::Int };
                Some((GExpr::Const(v), ty))
            }
            Some(Global::Player(p)) => Some((GExpr::Const(Value::Player(p)), Type::Player)),
            Some(Global::Site(s)) => Some((GExpr::Const(Value::Site(s)), Type::Site)),
            Some(Global::State(v)) if !self.game.state[v as usize].per_site => {
                Some((GExpr::State(v), self.game.state[v as usize].ty))
            }
            Some(Global::State(v)) => {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` has a value for each site: name the site", n.name))
                        .label("which site?")
                        .help(format!("write `{}(SITE)`", n.name)),
                );
                let _ = v;
                None
            }
            Some(Global::Group(set)) => Some((GExpr::Const(Value::Set(set)), Type::Set)),
            Some(Global::Track(t)) => Some((GExpr::Const(Value::Track(t)), Type::Track)),
            Some(Global::SiteFamily(_)) | Some(Global::TrackFamily(_)) => {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` is a family; name one member", n.name))
                        .label("which one?")
                        .help(format!("e.g. `{0}[1]`, `{0}[mover]` or a run `{0}[1..3]`", n.name)),
                );
                None
            }
            Some(other) => {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` is {}, which has no value here", n.name, other.word()))
                        .label("not a value"),
                );
                None
            }
            None => {
                let mut names: Vec<String> = scope.vars.iter().map(|v| v.0.clone()).collect();
                names.extend(
                    self.globals
                        .iter()
                        .filter(|(_, (g, _))| !matches!(g, Global::Variant | Global::Phase(_)))
                        .map(|(k, _)| k.clone()),
                );
                names.extend(["mover", "last", "next", "ply"].map(String::from));
                self.unknown(n, "name", names);
                None
            }
        }
    }

    fn index(&mut self, n: &Ident, arg: &IndexArg, scope: &mut Scope) -> Option<Typed> {
        let g = self.globals.get(&n.name).map(|g| g.0.clone());
        match (g, arg) {
            (Some(Global::SiteFamily(f)), IndexArg::Range(a, b)) => {
                let (lo, hi) = self.const_range(a, b, &[])?;
                let sites = self.family_run(f, lo, hi, a.span.to(b.span));
                let id = self.intern_set(sites);
                Some((GExpr::Const(Value::Set(id)), Type::Set))
            }
            (Some(Global::SiteFamily(f)), IndexArg::Single(ix)) => {
                let (x, _) = self.expr(ix, scope)?;
                match x {
                    GExpr::Const(key) => {
                        Some((GExpr::Const(Value::Site(self.family_member(f, key, ix.span)?)), Type::Site))
                    }
                    x => Some((GExpr::Family(self.family_table(&n.name)?, Box::new(x)), Type::Site)),
                }
            }
            (Some(Global::TrackFamily(f)), IndexArg::Single(ix)) => {
                let (x, _) = self.expr(ix, scope)?;
                match x {
                    GExpr::Const(key) => match self.track_families[f as usize].1.iter().find(|(k, _)| *k == key) {
                        Some((_, t)) => Some((GExpr::Const(Value::Track(*t)), Type::Track)),
                        None => {
                            self.error(
                                Diagnostic::error(
                                    ix.span,
                                    format!("track family `{}` has no member for this index", n.name),
                                )
                                .label("no such track"),
                            );
                            None
                        }
                    },
                    x => {
                        let np = self.game.players.len();
                        let missing: Vec<String> = (0..np as u8)
                            .filter(|p| !self.track_families[f as usize].1.iter().any(|(k, _)| *k == Value::Player(*p)))
                            .map(|p| self.game.players[p as usize].clone())
                            .collect();
                        if !missing.is_empty()
                            && self.track_families[f as usize].1.iter().all(|(k, _)| matches!(k, Value::Player(_)))
                        {
                            self.error(
                                Diagnostic::error(
                                    ix.span,
                                    format!("track family `{}` has no track for {}", n.name, missing.join(", ")),
                                )
                                .label("may be any player")
                                .help(format!("declare `track {}[{}] ...`", n.name, missing[0])),
                            );
                        }
                        Some((GExpr::Family(self.family_table(&n.name)?, Box::new(x)), Type::Track))
                    }
                }
            }
            (Some(Global::TrackFamily(_)), IndexArg::Range(a, b)) => {
                self.error(
                    Diagnostic::error(a.span.to(b.span), "a run of tracks has no meaning").label("name one track"),
                );
                None
            }
            (Some(other), _) => {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` is {}, not a family", n.name, other.word()))
                        .label("cannot be indexed"),
                );
                None
            }
            (None, _) => {
                let names = self
                    .globals
                    .iter()
                    .filter(|(_, (g, _))| matches!(g, Global::SiteFamily(_) | Global::TrackFamily(_)))
                    .map(|(k, _)| k.clone())
                    .collect();
                self.unknown(n, "family", names);
                None
            }
        }
    }

    fn family_table(&mut self, name: &str) -> Option<u16> {
        self.game.families.iter().position(|f| f.name == name).map(|i| i as u16)
    }

    fn call(&mut self, e: &Expr, f: &Ident, args: &[Expr], scope: &mut Scope) -> Option<Typed> {
        let arity = |c: &mut Compiler, n: usize| {
            if args.len() != n {
                c.error(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "`{}` takes {n} argument{}, found {}",
                            f.name,
                            if n == 1 { "" } else { "s" },
                            args.len()
                        ),
                    )
                    .label("wrong number of arguments"),
                );
                return false;
            }
            true
        };
        let boxed = |x: GExpr| Box::new(x);
        match f.name.as_str() {
            "step" => {
                if !arity(self, 3) {
                    return None;
                }
                let x = self.expect(&args[0], Type::Site, scope);
                let t = self.expect(&args[1], Type::Track, scope);
                let n = self.expect(&args[2], Type::Int, scope);
                Some((GExpr::Step(boxed(x?), boxed(t?), boxed(n?)), Type::Site))
            }
            "first" => {
                if !arity(self, 1) {
                    return None;
                }
                Some((GExpr::First(boxed(self.sites_or_set(&args[0], scope)?)), Type::Site))
            }
            "before" => {
                if !arity(self, 1) {
                    return None;
                }
                if !scope.ctx.play {
                    self.error(
                        Diagnostic::error(e.span, "`before` is only known where a move is being made")
                            .label("before what?")
                            .help("in a move, a rule, `avoid`, `end` or `then`"),
                    );
                    return None;
                }
                let (x, ty) = self.expr(&args[0], scope)?;
                if ty == Type::Set {
                    self.error(
                        Diagnostic::error(args[0].span, "`before` gives a number, condition, player, site or track")
                            .label("a set of sites"),
                    );
                    return None;
                }
                Some((GExpr::Before(boxed(x)), ty))
            }
            "opponent" => {
                if !arity(self, 1) {
                    return None;
                }
                let p = self.expect(&args[0], Type::Player, scope)?;
                if self.game.players.len() != 2 {
                    self.error(
                        Diagnostic::error(
                            e.span,
                            format!("`opponent` is for games of two players; this one has {}", self.game.players.len()),
                        )
                        .label("whose opponent?")
                        .help("name the player, or use `next`"),
                    );
                    return None;
                }
                // The other of two: 1 - p.
                Some((
                    match p {
                        GExpr::Const(Value::Player(q)) => GExpr::Const(Value::Player(1 - q)),
                        p => GExpr::Opponent(boxed(p)),
                    },
                    Type::Player,
                ))
            }
            "count" => {
                if args.len() == 2 {
                    let x = self.sites_or_set(&args[0], scope);
                    let c = self.colour(Some(&args[1]), scope)?;
                    return Some((GExpr::Count(boxed(x?), c.map(Box::new)), Type::Int));
                }
                if !arity(self, 1) {
                    return None;
                }
                let x = self.sites_or_set(&args[0], scope)?;
                Some((GExpr::Count(boxed(x), None), Type::Int))
            }
            "index" => {
                if !arity(self, 1) {
                    return None;
                }
                Some((GExpr::Index(boxed(self.expect(&args[0], Type::Site, scope)?)), Type::Int))
            }
            "owner" => {
                if !arity(self, 1) {
                    return None;
                }
                Some((GExpr::Owner(boxed(self.expect(&args[0], Type::Site, scope)?)), Type::Player))
            }
            "store" | "reserve" | "pit" => {
                if !arity(self, 1) {
                    return None;
                }
                let kind = match f.name.as_str() {
                    "store" => SiteKind::Store,
                    "reserve" => SiteKind::Reserve,
                    _ => SiteKind::Pit,
                };
                let p = self.expect(&args[0], Type::Player, scope)?;
                let k = kind.index();
                let lacking: Vec<String> = (0..self.game.players.len())
                    .filter(|&i| self.game.owned[k][i].is_none())
                    .map(|i| self.game.players[i].clone())
                    .collect();
                // With sites refused at the limit, a store may be missing
                // because of that: said once there.
                if !lacking.is_empty() && !self.refused_sites.is_empty() {
                    return None;
                }
                if !lacking.is_empty() {
                    self.error(
                        Diagnostic::error(
                            e.span,
                            format!("`{}(p)` needs every player to own exactly one {}", f.name, kind.word()),
                        )
                        .label(format!(
                            "{} own{} none or several",
                            lacking.join(", "),
                            if lacking.len() == 1 { "s" } else { "" }
                        ))
                        .help(format!("declare e.g. `{} X owner {}`", kind.word(), lacking[0])),
                    );
                    return None;
                }
                Some((
                    match p {
                        GExpr::Const(Value::Player(pl)) => {
                            GExpr::Const(self.game.owned[k][pl as usize].map(Value::Site).unwrap_or(Value::None))
                        }
                        p => GExpr::OwnedSite(kind, boxed(p)),
                    },
                    Type::Site,
                ))
            }
            "min" | "max" => {
                if !arity(self, 2) {
                    return None;
                }
                let a = self.expect(&args[0], Type::Int, scope);
                let b = self.expect(&args[1], Type::Int, scope);
                let (a, b) = (boxed(a?), boxed(b?));
                Some((if f.name == "min" { GExpr::Min(a, b) } else { GExpr::Max(a, b) }, Type::Int))
            }
            "can-move" => {
                if !arity(self, 1) {
                    return None;
                }
                if !scope.ctx.after {
                    self.error(
                        Diagnostic::error(e.span, "`can-move` is only known in `avoid`, `end` and `then`")
                            .label("not known here"),
                    );
                    return None;
                }
                Some((GExpr::CanMove(boxed(self.expect(&args[0], Type::Player, scope)?)), Type::Bool))
            }
            "member" => {
                if !arity(self, 2) {
                    return None;
                }
                let x = self.expect(&args[0], Type::Site, scope);
                let set = self.sites_or_set(&args[1], scope);
                Some((GExpr::Member(boxed(x?), boxed(set?)), Type::Bool))
            }
            "on" => {
                if !arity(self, 2) {
                    return None;
                }
                let x = self.expect(&args[0], Type::Site, scope);
                let t = self.expect(&args[1], Type::Track, scope);
                Some((GExpr::OnTrack(boxed(x?), boxed(t?)), Type::Bool))
            }
            "random" => {
                if !arity(self, 2) {
                    return None;
                }
                let a = self.expect(&args[0], Type::Int, scope);
                let b = self.expect(&args[1], Type::Int, scope);
                self.game.chance = true;
                Some((GExpr::Random(boxed(a?), boxed(b?)), Type::Int))
            }
            "side" => {
                if !arity(self, 1) {
                    return None;
                }
                Some((GExpr::Side(boxed(self.expect(&args[0], Type::Player, scope)?)), Type::Player))
            }
            name => match self.globals.get(name).map(|g| g.0.clone()) {
                Some(Global::Relation(r)) => {
                    if !arity(self, 1) {
                        return None;
                    }
                    Some((GExpr::Relation(r, boxed(self.expect(&args[0], Type::Site, scope)?)), Type::Site))
                }
                Some(Global::Group(set)) => {
                    if !arity(self, 1) {
                        return None;
                    }
                    let x = self.expect(&args[0], Type::Site, scope)?;
                    Some((GExpr::Member(boxed(x), boxed(GExpr::Const(Value::Set(set)))), Type::Bool))
                }
                Some(Global::State(v)) if self.game.state[v as usize].per_site => {
                    if !arity(self, 1) {
                        return None;
                    }
                    let x = self.expect(&args[0], Type::Site, scope)?;
                    Some((GExpr::SiteState(v, boxed(x)), self.game.state[v as usize].ty))
                }
                Some(Global::Define(d)) => self.inline(e, d, args, scope),
                Some(Global::Hook(h)) => {
                    let def = self
                        .game
                        .hooks
                        .as_ref()
                        .and_then(|hs| hs.defs.get(h as usize))
                        // A hook that failed to compile was reported already.
                        .map(|d| (d.params.clone(), d.returns))?;
                    if !arity(self, def.0.len()) {
                        return None;
                    }
                    let mut compiled = Vec::new();
                    for (a, (_, ty)) in args.iter().zip(&def.0) {
                        compiled.push(self.expect(a, *ty, scope));
                    }
                    let compiled: Option<Vec<GExpr>> = compiled.into_iter().collect();
                    Some((GExpr::Hook(h, compiled?), def.1))
                }
                Some(other) => {
                    self.error(
                        Diagnostic::error(f.span, format!("`{name}` is {}, not a function", other.word()))
                            .label("cannot be called"),
                    );
                    None
                }
                None => {
                    let mut names: Vec<String> = [
                        "count", "owner", "store", "reserve", "pit", "min", "max", "can-move", "index", "member", "on",
                        "random", "side",
                    ]
                    .map(String::from)
                    .to_vec();
                    names.extend(
                        self.globals
                            .iter()
                            .filter(|(_, (g, _))| {
                                matches!(
                                    g,
                                    Global::Relation(_) | Global::Define(_) | Global::Group(_) | Global::Hook(_)
                                )
                            })
                            .map(|(k, _)| k.clone()),
                    );
                    self.unknown(f, "function", names);
                    None
                }
            },
        }
    }

    /// What the rules compiled since the last call read (chance, the
    /// history: the flags solving looks at), cleared.
    fn take_reads(&mut self) -> Reads {
        let r = Reads { chance: self.game.chance, history: self.game.history };
        self.game.chance = false;
        self.game.history = false;
        r
    }

    fn add_reads(&mut self, r: Reads) {
        self.game.chance |= r.chance;
        self.game.history |= r.history;
    }

    fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, scope: &mut Scope) -> Option<Typed> {
        match op {
            BinOp::And | BinOp::Or => {
                let before = self.take_reads();
                let x = self.expect(a, Type::Bool, scope);
                let read_x = self.take_reads();
                let y = self.expect(b, Type::Bool, scope);
                let read_y = self.take_reads();
                self.add_reads(before | read_x | read_y);
                let (x, y) = (x?, y?);
                // Fold options that are fixed at compile time; what a part
                // folded away reads (chance, the history) is not read.
                let and = op == BinOp::And;
                self.take_reads();
                Some((
                    match (&x, &y) {
                        (GExpr::Const(Value::Bool(c)), _) if *c == and => {
                            self.add_reads(before | read_y);
                            y
                        }
                        (_, GExpr::Const(Value::Bool(c))) if *c == and => {
                            self.add_reads(before | read_x);
                            x
                        }
                        (GExpr::Const(Value::Bool(c)), _) | (_, GExpr::Const(Value::Bool(c))) if *c != and => {
                            self.add_reads(before);
                            GExpr::Const(Value::Bool(*c))
                        }
                        _ => {
                            self.add_reads(before | read_x | read_y);
                            GExpr::Bin(op, Box::new(x), Box::new(y))
                        }
                    },
                    Type::Bool,
                ))
            }
            BinOp::Eq | BinOp::Ne => {
                // `x == none`: `none` takes the other side's type.
                let (x, y) = match (scope.is_none(a), scope.is_none(b)) {
                    (false, true) => {
                        let x = self.expr(a, scope)?;
                        let y = self.none_of(b, x.1)?;
                        (Some(x), Some(y))
                    }
                    (true, false) => {
                        let y = self.expr(b, scope)?;
                        let x = self.none_of(a, y.1)?;
                        (Some(x), Some(y))
                    }
                    _ => (self.expr(a, scope), self.expr(b, scope)),
                };
                let ((x, tx), (y, ty)) = (x?, y?);
                if tx != ty {
                    let _ = e;
                    self.error(
                        Diagnostic::error(a.span, format!("cannot compare {} with {}", tx.word(), ty.word()))
                            .label(format!("this is {}", tx.word()))
                            .note(b.span, format!("this is {}", ty.word())),
                    );
                    return None;
                }
                Some((GExpr::Bin(op, Box::new(x), Box::new(y)), Type::Bool))
            }
            // Sites compare by the order they are declared in.
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if self.site_operands(a, b, scope) => {
                let x = self.expect(a, Type::Site, scope);
                let y = self.expect(b, Type::Site, scope);
                Some((GExpr::Bin(op, Box::new(x?), Box::new(y?)), Type::Bool))
            }
            _ => {
                let x = self.expect(a, Type::Int, scope);
                let y = self.expect(b, Type::Int, scope);
                let (x, y) = (x?, y?);
                let ty =
                    if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) { Type::Bool } else { Type::Int };
                if let (GExpr::Const(Value::Int(_)), GExpr::Const(Value::Int(0))) = (&x, &y)
                    && matches!(op, BinOp::Div | BinOp::Mod)
                {
                    self.error(Diagnostic::error(b.span, "division by zero").label("is 0"));
                    return None;
                }
                let bin = GExpr::Bin(op, Box::new(x), Box::new(y));
                // Arithmetic keeps its place, where an overflow is reported.
                Some((if ty == Type::Int { GExpr::Spanned(e.span, Box::new(bin)) } else { bin }, ty))
            }
        }
    }
}

/// Whether a move's legality can only be known by making it: a `require`, a
/// `take N` that may ask for more than there is, or a sowing (of an empty
/// source, or off the end of a linear track).
fn needs_trial(s: &g::Stmt) -> bool {
    match &s.kind {
        GStmt::Require(_) => true,
        // A sowing fails when its source is empty or it runs off a linear
        // track; see `precheck` for the common case that needs no trial.
        GStmt::Sow { .. } => true,
        GStmt::Take { amount, .. } => amount.is_some(),
        GStmt::If { branches, otherwise } => branches.iter().flat_map(|b| &b.1).chain(otherwise).any(needs_trial),
        GStmt::For { body, .. } => body.iter().any(needs_trial),
        _ => false,
    }
}

/// A move whose first statement sows all of a chosen site along a fixed
/// cyclic track can only fail when that site is empty: the executor checks
/// that directly instead of trying the move. Returns the choice to check and
/// how many leading statements the check covers.
fn precheck(body: &[g::Stmt], params: &[Param], tracks: &[g::Track]) -> (Option<usize>, usize) {
    if let Some(g::Stmt {
        kind:
            GStmt::Sow { amount: None, source: GExpr::Local(slot), track: GExpr::Const(Value::Track(t)), relay, each, .. },
        ..
    }) = body.first()
        && tracks[*t as usize].cyclic
        // A relay with a limit on its laps, or statements for each counter
        // that can refuse the move, need the move tried.
        && relay.as_ref().is_none_or(|r| r.max.is_none())
        && !each.iter().any(needs_trial)
        && let Some(i) = params.iter().position(|p| p.slot == *slot && matches!(p.domain, GDomain::Set(_)))
    {
        return (Some(i), 1);
    }
    (None, 0)
}

/// A choice's `where`, or nothing when all it tests is that the chosen site
/// holds counters (`count(x) > 0`) and the executor checks that already
/// (see `precheck`): the last choice's test would be made twice. (Not the
/// first of an `and`: what follows it may fail on an empty site.)
fn without_nonempty_test(filter: GExpr, slot: u8) -> Option<GExpr> {
    let is_test = |e: &GExpr| {
        matches!(e, GExpr::Bin(BinOp::Gt | BinOp::Ne, x, z)
            if matches!(&**x, GExpr::Count(s, None) if matches!(**s, GExpr::Local(l) if l == slot))
                && matches!(**z, GExpr::Const(Value::Int(0))))
    };
    (!is_test(&filter)).then_some(filter)
}

/// Whether a compiled expression draws a random number.
fn draws(e: &GExpr) -> bool {
    if matches!(e, GExpr::Random(..)) {
        return true;
    }
    let mut found = false;
    e.each_child(&mut |c| found |= draws(c));
    found
}

/// How many times a name is used in an expression (a definition's body).
fn uses_of(e: &Expr, name: &str) -> usize {
    let all = |es: &[&Expr]| es.iter().map(|x| uses_of(x, name)).sum::<usize>();
    let domain = |d: &Domain| match d {
        Domain::Players(_) => 0,
        Domain::Range(a, b) => all(&[a, b]),
        Domain::Set(x) => uses_of(x, name),
        Domain::Walk(w) => all(&[&w.track, &w.from]) + w.cond.as_ref().map_or(0, |c| uses_of(c, name)),
    };
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) => 0,
        ExprKind::Name(n) => (n.name == name) as usize,
        ExprKind::Call(_, args) => args.iter().map(|a| uses_of(a, name)).sum(),
        ExprKind::Index(_, arg) => match &**arg {
            IndexArg::Single(x) => uses_of(x, name),
            IndexArg::Range(a, b) => all(&[a, b]),
        },
        ExprKind::Unary(_, x) | ExprKind::Is(x, _) => uses_of(x, name),
        ExprKind::Binary(_, a, b) | ExprKind::Filter(a, b) => all(&[a, b]),
        ExprKind::Every(_, x) => x.as_ref().map_or(0, |x| uses_of(x, name)),
        ExprKind::Quant(_, _, d, body) => domain(d) + uses_of(body, name),
        ExprKind::Cond(c, a, b) => all(&[c, a, b]),
    }
}

/// Whether an expression is the word `none`: no player, site or track.
fn is_none(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Name(n) if n.name == "none")
}

/// The type a word names in a hook's signature.
fn type_named(word: &str) -> Option<Type> {
    Some(match word {
        "site" => Type::Site,
        "track" => Type::Track,
        "player" => Type::Player,
        "number" => Type::Int,
        "condition" => Type::Bool,
        "sites" => Type::Set,
        _ => return None,
    })
}

/// Whether a statement moves a number of counters (not all there are).
/// Whether an expression depends only on the site `it` stands for, the
/// mover, and things fixed when the game is compiled: then its value can be
/// tabulated for each site of a track and each mover.
fn is_fixed(e: &GExpr, it: u8) -> bool {
    use GExpr::*;
    match e {
        Const(_) => true,
        Local(s) => *s == it,
        Builtin(b) => *b == crate::engine::game::Builtin::Mover,
        Owner(x)
        | OwnedSite(_, x)
        | Relation(_, x)
        | IsKind(x, _)
        | KindSet(_, x)
        | Not(x)
        | Neg(x)
        | Side(x)
        | Opponent(x)
        | Index(x) => is_fixed(x, it),
        Bin(_, a, b) | Min(a, b) | Max(a, b) | OnTrack(a, b) | Member(a, b) => is_fixed(a, it) && is_fixed(b, it),
        Spanned(_, x) => is_fixed(x, it),
        Cond(c, a, b) => is_fixed(c, it) && is_fixed(a, it) && is_fixed(b, it),
        _ => false,
    }
}
