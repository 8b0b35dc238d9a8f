//! Expressions: names, indexing, operators and the domains of loops and
//! quantifiers, resolved and typed; what they read (chance, history).

use super::*;

impl Compiler {
    /// Whether both operands of a comparison are sites (compiled once to see,
    /// with no diagnostics kept).
    pub(super) fn site_operands(&mut self, a: &Expr, b: &Expr, scope: &mut Scope) -> bool {
        let before = self.diags.len();
        let ta = self.expr(a, scope).map(|x| x.1);
        let tb = self.expr(b, scope).map(|x| x.1);
        self.diags.truncate(before);
        ta == Some(Type::Site) && tb == Some(Type::Site)
    }

    /// A site or a set of sites (a single site becomes a set of one at run time).
    pub(super) fn sites_or_set(&mut self, e: &Expr, scope: &mut Scope) -> Option<GExpr> {
        let (x, ty) = self.expr(e, scope)?;
        match ty {
            Type::Site | Type::Set => Some(x),
            other => {
                self.type_error(e.span, "a site or a set of sites", other);
                None
            }
        }
    }

    pub(super) fn domain(&mut self, d: &Domain, scope: &mut Scope) -> Option<GDomain> {
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
    pub(super) fn walk_condition(&mut self, domain: &Domain, compiled: &mut Option<GDomain>, scope: &mut Scope) {
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
    pub(super) fn domain_type(d: &Domain) -> Type {
        match d {
            Domain::Players(_) => Type::Player,
            Domain::Range(..) => Type::Int,
            Domain::Set(_) | Domain::Walk(_) => Type::Site,
        }
    }

    pub(super) fn type_error(&mut self, span: Span, want: &str, got: Type) {
        self.error(
            Diagnostic::error(span, format!("expected {want}, found {}", got.word()))
                .label(format!("this is {}", got.word())),
        );
    }

    /// `none` where a value of type `ty` is compared: none for a player,
    /// site or track; an error for a number or a condition.
    pub(super) fn none_of(&mut self, e: &Expr, ty: Type) -> Option<Typed> {
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

    pub(super) fn expect(&mut self, e: &Expr, want: Type, scope: &mut Scope) -> Option<GExpr> {
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

    pub(super) fn expr(&mut self, e: &Expr, scope: &mut Scope) -> Option<Typed> {
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

    pub(super) fn name(&mut self, n: &Ident, scope: &mut Scope) -> Option<Typed> {
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

    pub(super) fn index(&mut self, n: &Ident, arg: &IndexArg, scope: &mut Scope) -> Option<Typed> {
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

    pub(super) fn family_table(&mut self, name: &str) -> Option<u16> {
        self.game.families.iter().position(|f| f.name == name).map(|i| i as u16)
    }

    /// What the rules compiled since the last call read (chance, the
    /// history: the flags solving looks at), cleared.
    pub(super) fn take_reads(&mut self) -> Reads {
        let r = Reads { chance: self.game.chance, history: self.game.history };
        self.game.chance = false;
        self.game.history = false;
        r
    }

    pub(super) fn add_reads(&mut self, r: Reads) {
        self.game.chance |= r.chance;
        self.game.history |= r.history;
    }

    pub(super) fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, scope: &mut Scope) -> Option<Typed> {
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
