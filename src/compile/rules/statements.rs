//! Statements: each resolved and checked where it stands (what a move, a
//! rule, `setup` or a `round` may do), colours included.

use super::*;

impl Compiler {
    pub(super) fn stmts(&mut self, stmts: &[Stmt], scope: &mut Scope) -> Vec<g::Stmt> {
        let mark = scope.mark();
        let out = stmts.iter().filter_map(|s| self.stmt(s, scope)).collect();
        scope.reset(mark);
        out
    }

    pub(super) fn stmt(&mut self, s: &Stmt, scope: &mut Scope) -> Option<g::Stmt> {
        let kind = match &s.kind {
            StmtKind::Sow { amount, source, track, order, start, skips, relay, each, lap } => {
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
                let lap = self.stmts(lap, scope);
                let mark = scope.mark();
                let it = scope.bind("it", Type::Site);
                let sk: Vec<GExpr> = skips
                    .iter()
                    .filter_map(|e| self.expect(e, Type::Bool, scope))
                    .filter(|e| !matches!(e, GExpr::Const(Value::Bool(false))))
                    .collect();
                scope.reset(mark);
                // Skips that read nothing that changes during play (owners
                // kept as state do) are tabulated once.
                let (fixed_skips, skips): (Vec<GExpr>, Vec<GExpr>) = sk.into_iter().partition(|e| {
                    let mut state = Vec::new();
                    self.game.skip_reads(e, it, &mut state) && state.is_empty()
                });
                GStmt::Sow {
                    amount,
                    source: src?,
                    track: trk?,
                    it,
                    ordered,
                    fixed_skips,
                    skips,
                    start,
                    relay,
                    each,
                    lap,
                }
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
                // Nothing left to run: no statement (an `each` left empty
                // lets its sowing go by table).
                if out.is_empty() && otherwise.is_empty() {
                    return None;
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

    /// Reports a coloured construct in a game whose counters have no colours.
    pub(super) fn need_colours(&mut self, span: Span, what: &str) {
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
    pub(super) fn colour_named(&mut self, span: Span, named: bool) -> Option<()> {
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

    pub(super) fn colour(&mut self, c: Option<&Expr>, scope: &mut Scope) -> Option<Option<GExpr>> {
        match c {
            None => Some(None),
            Some(c) => {
                self.need_colours(c.span, "`of COLOUR`");
                Some(Some(self.expect(c, Type::Player, scope)?))
            }
        }
    }

    pub(super) fn effect_allowed(&mut self, s: &Stmt, scope: &Scope, what: &str) -> Option<()> {
        if scope.ctx.effects {
            return Some(());
        }
        self.error(
            Diagnostic::error(s.span, format!("`{what}` belongs in a move or a rule")).label("not allowed here"),
        );
        None
    }
}
