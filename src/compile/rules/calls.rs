//! `define`s (inlined where they are used) and `hook`s (compiled once), and
//! calls of the built-in functions.

use super::*;

impl Compiler {
    /// `define`s (kept to be inlined) and `hook`s (compiled now, once).
    pub(super) fn definitions_and_hooks(&mut self, items: &[Item]) {
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

    /// A `define`d expression with its parameters bound to the arguments,
    /// compiled where it is used.
    pub(super) fn inline(&mut self, call: &Expr, d: usize, args: &[Expr], scope: &mut Scope) -> Option<Typed> {
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

    pub(super) fn call(&mut self, e: &Expr, f: &Ident, args: &[Expr], scope: &mut Scope) -> Option<Typed> {
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
