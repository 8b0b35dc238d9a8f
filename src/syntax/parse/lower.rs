//! The pest parse tree lowered to the syntax tree ([`super::super::ast`]),
//! every node with its byte span.

use super::*;

pub(super) struct Lower {
    file: u16,
    /// Mistakes stepped over (see [`super::parse`]).
    pub(super) problems: std::cell::RefCell<Vec<Diagnostic>>,
}

type R<T> = Result<T, Diagnostic>;

impl Lower {
    pub(super) fn new(file: u16) -> Lower {
        Lower { file, problems: Default::default() }
    }

    /// A pair's span, less the whitespace and comments pest keeps at its end.
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.file, s.start(), s.start() + trimmed_len(s.as_str()))
    }

    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident { name: p.as_str().to_string(), span: self.span(&p) }
    }

    fn string(&self, p: Pair<Rule>) -> Str {
        let s = p.as_str();
        // What a string says is shown to people: its control characters are
        // kept as escapes, never sent to a terminal.
        Str { value: crate::diagnostics::escape_controls(&s[1..s.len() - 1]).into_owned(), span: self.span(&p) }
    }

    fn int(&self, p: &Pair<Rule>) -> R<i64> {
        Ok(p.as_str().parse::<i64>().ok().filter(|v| *v <= i32::MAX as i64).unwrap_or_else(|| {
            self.problems.borrow_mut().push(
                Diagnostic::error(self.span(p), "number too large")
                    .label("at most 2147483647")
                    .help("counts and options are whole numbers below 2^31"),
            );
            0
        }))
    }

    fn literal(&self, p: Pair<Rule>) -> R<Literal> {
        let inner = kids(p).next().expect("literal has one child");
        Ok(match inner.as_rule() {
            Rule::int => Literal::Int(self.int(&inner)?),
            _ => Literal::Bool(inner.as_str() == "true"),
        })
    }

    pub(super) fn item(&self, p: Pair<Rule>) -> R<Item> {
        match p.as_rule() {
            Rule::move_decl => return Ok(Item::Move(self.move_decl(p)?)),
            Rule::rule_decl => return Ok(Item::Rule(self.rule_decl(p)?)),
            _ => {}
        }
        let span = self.span(&p);
        let rule = p.as_rule();
        let text = p.as_str();
        let mut it = kids(p);
        Ok(match rule {
            Rule::game_decl => Item::Game(self.string(it.next().unwrap())),
            Rule::about_decl => {
                // The keyword is a token the children leave out.
                let key = if text.starts_with("family") {
                    About::Family
                } else if text.starts_with("region") {
                    About::Region
                } else {
                    About::Source
                };
                Item::About(key, self.string(it.next().unwrap()))
            }
            Rule::extends_decl => Item::Extends(self.string(it.next().unwrap())),
            Rule::board_decl => {
                let rows = self.int(&it.next().unwrap())?;
                let per_row = self.expr(it.next().unwrap())?;
                let stores_on_track = it.next().is_some();
                Item::Board(BoardDecl { rows, per_row, stores_on_track, span })
            }
            Rule::option_decl => {
                let name = self.ident(it.next().unwrap());
                let lit = it.next().unwrap();
                let default_span = self.span(&lit);
                let default = self.literal(lit)?;
                let mut range = None;
                let mut doc = None;
                for c in it {
                    match c.as_rule() {
                        Rule::int_range => {
                            let rs = self.span(&c);
                            let mut ints = kids(c);
                            let lo = self.int(&ints.next().unwrap())?;
                            let hi = self.int(&ints.next().unwrap())?;
                            range = Some((lo, hi, rs));
                        }
                        Rule::string => doc = Some(self.string(c)),
                        _ => {}
                    }
                }
                Item::Option(OptionDecl { name, default, default_span, range, doc, span })
            }
            Rule::variant_decl => {
                let name = self.ident(it.next().unwrap());
                let mut doc = None;
                let mut items = Vec::new();
                for c in it {
                    match c.as_rule() {
                        Rule::string => doc = Some(self.string(c)),
                        Rule::variant_use => items.push(VariantItem::Use(self.ident(kids(c).next().unwrap()))),
                        Rule::variant_set => {
                            let mut s = kids(c);
                            let name = self.ident(s.next().unwrap());
                            let lit = s.next().unwrap();
                            let value_span = self.span(&lit);
                            items.push(VariantItem::Set { name, value: self.literal(lit)?, value_span });
                        }
                        _ => {}
                    }
                }
                Item::Variant(VariantDecl { name, doc, items, span })
            }
            Rule::counters_decl => Item::Counters(span),
            Rule::state_decl => {
                let mut hidden = false;
                let mut per_site = None;
                let mut idents = Vec::new();
                for c in it {
                    match c.as_rule() {
                        Rule::hidden => hidden = true,
                        Rule::per_site => per_site = Some(self.site_kind(kids(c).next().unwrap())),
                        _ => idents.push(self.ident(c)),
                    }
                }
                let ty = idents.pop().unwrap();
                let name = idents.pop().unwrap();
                Item::State(StateDecl { name, ty, per_site, hidden, span })
            }
            Rule::define_decl => {
                let name = self.ident(it.next().unwrap());
                let mut params = Vec::new();
                let mut body = None;
                for c in it {
                    match c.as_rule() {
                        Rule::ident => params.push(self.ident(c)),
                        _ => body = Some(self.expr(c)?),
                    }
                }
                Item::Define(DefineDecl { name, params, body: body.unwrap(), span })
            }
            Rule::group_decl => {
                let name = self.ident(it.next().unwrap());
                let items = it.map(|c| self.track_item(c)).collect::<R<Vec<_>>>()?;
                Item::Group(GroupDecl { name, items, span })
            }
            Rule::hook_decl => {
                let name = self.ident(it.next().unwrap());
                let mut params = Vec::new();
                let mut rest = Vec::new();
                for c in it {
                    match c.as_rule() {
                        Rule::hook_param => {
                            let mut k = kids(c);
                            let n = self.ident(k.next().unwrap());
                            params.push((n, self.ident(k.next().unwrap())));
                        }
                        _ => rest.push(c),
                    }
                }
                let returns = self.ident(rest.remove(0));
                let raw = rest.remove(0);
                let rs = self.span(&raw);
                let text = raw.as_str();
                let code = text[3..text.len() - 3].to_string();
                let code_span = Span::new(rs.file, rs.start + 3, rs.start + 3 + code.len());
                Item::Hook(HookDecl { name, params, returns, code, code_span, span })
            }
            Rule::partners_decl => Item::Partners(PartnersDecl { names: it.map(|c| self.ident(c)).collect(), span }),
            Rule::glyph_decl => {
                let text = self.string(it.next().unwrap());
                let cond = self.expr(it.next().unwrap())?;
                Item::Glyph(GlyphDecl { text, cond, span })
            }
            Rule::players_decl => {
                let mut names = Vec::new();
                let inner = it.next().unwrap();
                if inner.as_rule() == Rule::players_first {
                    let mut f = kids(inner);
                    let n = self.expr(f.next().unwrap())?;
                    let names = f.map(|i| NamePattern { name: self.ident(i), range: None }).collect();
                    return Ok(Item::Players(PlayersDecl { names, first: Some(n), span }));
                }
                for c in std::iter::once(inner).chain(it) {
                    let mut parts = kids(c);
                    let name = self.ident(parts.next().unwrap());
                    let range = match parts.next() {
                        Some(r) => Some(self.range(r)?),
                        None => None,
                    };
                    names.push(NamePattern { name, range });
                }
                Item::Players(PlayersDecl { names, first: None, span })
            }
            Rule::site_decl => {
                let kind = self.site_kind(it.next().unwrap());
                let mut names = Vec::new();
                let mut owner = None;
                for c in it {
                    match c.as_rule() {
                        Rule::decl_name => names.push(self.decl_name(c)?),
                        Rule::owner_attr => owner = Some(self.expr(kids(c).next().unwrap())?),
                        _ => {}
                    }
                }
                Item::Site(SiteDecl { kind, names, owner, span })
            }
            Rule::relation_decl => {
                let name = self.ident(it.next().unwrap());
                let mut pairs = Vec::new();
                for c in it {
                    let ps = self.span(&c);
                    let mut parts = kids(c);
                    let from = self.site_ref(parts.next().unwrap())?;
                    let both_ways = parts.next().unwrap().as_str() == "<->";
                    let to = self.site_ref(parts.next().unwrap())?;
                    let each = match parts.next() {
                        Some(f) => {
                            let mut f = kids(f);
                            let var = self.ident(f.next().unwrap());
                            Some((var, self.domain(f.next().unwrap())?))
                        }
                        None => None,
                    };
                    pairs.push(RelationPair { from, both_ways, to, each, span: ps });
                }
                Item::Relation(RelationDecl { name, pairs, span })
            }
            Rule::track_decl => {
                let name = self.decl_name(it.next().unwrap())?;
                let mut label = None;
                let mut shape = it.next().unwrap();
                if shape.as_rule() == Rule::string {
                    label = Some(self.string(shape));
                    shape = it.next().unwrap();
                }
                let cyclic = shape.as_str() == "cyclic";
                let items = it.map(|c| self.track_item(c)).collect::<R<Vec<_>>>()?;
                Item::Track(Box::new(TrackDecl { name, label, cyclic, items, span }))
            }
            Rule::layout_decl => {
                let mut rows = Vec::new();
                for row in it {
                    let mut cells = Vec::new();
                    for cell in kids(row).filter(|c| c.as_rule() == Rule::layout_cell) {
                        let inner = kids(cell).next().unwrap();
                        cells.push(match inner.as_rule() {
                            Rule::blank_cell => LayoutCell::Blank,
                            Rule::string => LayoutCell::Label(self.string(inner)),
                            _ => LayoutCell::Sites(Box::new(self.track_item(inner)?)),
                        });
                    }
                    rows.push(cells);
                }
                Item::Layout(LayoutDecl { rows, span })
            }
            Rule::setup_decl => Item::Setup(self.block(it.next().unwrap())?),
            Rule::phase_decl => {
                let name = self.ident(it.next().unwrap());
                let mut ph = PhaseDecl { name, moves: vec![], rules: vec![], transitions: vec![], span };
                for c in it {
                    match c.as_rule() {
                        Rule::move_decl => ph.moves.push(self.move_decl(c)?),
                        Rule::rule_decl => ph.rules.push(self.rule_decl(c)?),
                        Rule::then_decl => {
                            let mut t = kids(c);
                            let to = self.ident(t.next().unwrap());
                            ph.transitions.push((to, self.expr(t.next().unwrap())?));
                        }
                        _ => {}
                    }
                }
                Item::Phase(ph)
            }
            Rule::move_decl | Rule::rule_decl => unreachable!("handled by Lower::item_pair"),
            Rule::avoid_decl => {
                let name = self.ident(it.next().unwrap());
                let cond = self.expr(it.next().unwrap())?;
                Item::Avoid(AvoidDecl { name, cond, span })
            }
            Rule::round_decl => {
                let name = self.ident(it.next().unwrap());
                let cond = self.expr(it.next().unwrap())?;
                let body = self.block(it.next().unwrap())?.stmts;
                Item::Round(EndDecl { name, cond, verdict: None, body, span })
            }
            Rule::end_decl => {
                let name = self.ident(it.next().unwrap());
                let cond = self.expr(it.next().unwrap())?;
                let (mut verdict, mut body) = (None, vec![]);
                for rest in it {
                    if rest.as_rule() == Rule::verdict {
                        let winner = rest.as_str().starts_with("winner");
                        verdict = Some((winner, self.expr(kids(rest).next().unwrap())?));
                    } else {
                        body = self.block(rest)?.stmts;
                    }
                }
                Item::End(EndDecl { name, cond, verdict, body, span })
            }
            Rule::stuck_decl => {
                let a = it.next().unwrap();
                let action = match a.as_str() {
                    "pass" => StuckAction::Pass,
                    "lose" => StuckAction::Lose,
                    _ => StuckAction::End,
                };
                let body = match it.next() {
                    Some(b) => Some(self.block(b)?),
                    None => None,
                };
                Item::Stuck(StuckDecl { action, body, span })
            }
            Rule::score_decl => {
                let var = self.ident(it.next().unwrap());
                let value = self.expr(it.next().unwrap())?;
                Item::Score(ScoreDecl { var, value, span })
            }
            other => unreachable!("not an item: {other:?}"),
        })
    }

    fn move_decl(&self, p: Pair<Rule>) -> R<MoveDecl> {
        let span = self.span(&p);
        let mut it = kids(p);
        let name = self.ident(it.next().unwrap());
        let mut m = MoveDecl { name, template: None, choices: vec![], body: vec![], span };
        for c in it {
            match c.as_rule() {
                Rule::string => m.template = Some(self.string(c)),
                Rule::choose => {
                    let cs = self.span(&c);
                    let mut parts = kids(c);
                    let var = self.ident(parts.next().unwrap());
                    let d = kids(parts.next().unwrap()).next().unwrap();
                    let domain = match d.as_rule() {
                        Rule::domain_players => ChoiceDomain::Players(self.span(&d)),
                        Rule::domain_tracks => ChoiceDomain::Tracks(self.span(&d)),
                        Rule::arrangements => ChoiceDomain::Arrangements(self.expr(kids(d).next().unwrap())?),
                        _ => match self.index_arg(d)? {
                            IndexArg::Range(a, b) => ChoiceDomain::Range(a, b),
                            IndexArg::Single(e) => ChoiceDomain::Set(e),
                        },
                    };
                    let filter = match parts.next() {
                        Some(f) => Some(self.expr(f)?),
                        None => None,
                    };
                    m.choices.push(Choose { var, domain, filter, span: cs });
                }
                _ => m.body.push(self.stmt(c)?),
            }
        }
        Ok(m)
    }

    fn rule_decl(&self, p: Pair<Rule>) -> R<RuleDecl> {
        let span = self.span(&p);
        let mut it = kids(p);
        let name = self.ident(it.next().unwrap());
        let mut after = Vec::new();
        let mut body = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::ident => after.push(self.ident(c)),
                Rule::block => body = self.block(c)?.stmts,
                _ => {}
            }
        }
        Ok(RuleDecl { name, after, body, span })
    }

    fn site_kind(&self, p: Pair<Rule>) -> SiteKind {
        match p.as_str() {
            "pit" => SiteKind::Pit,
            "store" => SiteKind::Store,
            _ => SiteKind::Reserve,
        }
    }

    fn decl_name(&self, p: Pair<Rule>) -> R<DeclName> {
        let span = self.span(&p);
        let mut it = kids(p);
        let name = self.ident(it.next().unwrap());
        let index = match it.next() {
            None => None,
            Some(spec) => {
                let mut parts = kids(spec);
                let first = parts.next().unwrap();
                Some(match first.as_rule() {
                    Rule::ident => IndexSpec::Domain(Some(self.ident(first)), self.domain(parts.next().unwrap())?),
                    Rule::domain_players => IndexSpec::Domain(None, Domain::Players(self.span(&first))),
                    _ => match self.index_arg(first)? {
                        IndexArg::Range(a, b) => IndexSpec::Domain(None, Domain::Range(a, b)),
                        IndexArg::Single(e) => IndexSpec::Single(e),
                    },
                })
            }
        };
        Ok(DeclName { name, index, span })
    }

    fn domain(&self, p: Pair<Rule>) -> R<Domain> {
        let span = self.span(&p);
        // `players` is a keyword token, so a domain without children is `players`.
        Ok(match kids(p).next() {
            Some(w) if w.as_rule() == Rule::walk => {
                let wspan = self.span(&w);
                let mut it = kids(w);
                let track = self.expr(it.next().unwrap())?;
                let from = self.expr(it.next().unwrap())?;
                let (mut backwards, mut cond) = (false, None);
                for rest in it {
                    match rest.as_rule() {
                        Rule::backwards => backwards = true,
                        _ => cond = Some(self.expr(kids(rest).next().unwrap())?),
                    }
                }
                Domain::Walk(Box::new(Walk { track, from, backwards, cond, span: wspan }))
            }
            Some(arg) => match self.index_arg(arg)? {
                IndexArg::Range(a, b) => Domain::Range(a, b),
                IndexArg::Single(set) => Domain::Set(set),
            },
            None => Domain::Players(span),
        })
    }

    fn range(&self, p: Pair<Rule>) -> R<(Expr, Expr)> {
        let mut it = kids(p);
        Ok((self.expr(it.next().unwrap())?, self.expr(it.next().unwrap())?))
    }

    fn site_ref(&self, p: Pair<Rule>) -> R<SiteRef> {
        let span = self.span(&p);
        let mut it = kids(p);
        let name = self.ident(it.next().unwrap());
        let index = match it.next() {
            Some(e) => Some(self.expr(e)?),
            None => None,
        };
        Ok(SiteRef { name, index, span })
    }

    fn index_arg(&self, p: Pair<Rule>) -> R<IndexArg> {
        debug_assert_eq!(p.as_rule(), Rule::index_arg);
        let mut it = kids(p);
        let a = self.expr(it.next().unwrap())?;
        Ok(match it.next() {
            Some(b) => IndexArg::Range(a, self.expr(b)?),
            None => IndexArg::Single(a),
        })
    }

    fn track_item(&self, p: Pair<Rule>) -> R<TrackItem> {
        let span = self.span(&p);
        let mut it = kids(p);
        let name = self.ident(it.next().unwrap());
        let index = match it.next() {
            Some(i) => Some(self.index_arg(i)?),
            None => None,
        };
        Ok(TrackItem { name, index, span })
    }

    fn block(&self, p: Pair<Rule>) -> R<Block> {
        let span = self.span(&p);
        let stmts = kids(p).map(|s| self.stmt(s)).collect::<R<Vec<_>>>()?;
        Ok(Block { stmts, span })
    }

    fn stmt(&self, p: Pair<Rule>) -> R<Stmt> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut it = kids(p).peekable();
        let kind = match rule {
            Rule::sow_stmt => {
                let amount = match it.peek().map(|c| c.as_rule()) {
                    Some(Rule::sow_amount) => Some(self.expr(kids(it.next().unwrap()).next().unwrap())?),
                    _ => None,
                };
                let source = self.expr(it.next().unwrap())?;
                let track = self.expr(it.next().unwrap())?;
                let order = match it.peek().map(|c| c.as_rule()) {
                    Some(Rule::order_clause) => Some(self.expr(kids(it.next().unwrap()).next().unwrap())?),
                    _ => None,
                };
                let start = match it.peek().map(|c| c.as_rule()) {
                    Some(Rule::start_clause) => Some(self.expr(kids(it.next().unwrap()).next().unwrap())?),
                    _ => None,
                };
                let (mut skips, mut relay, mut each, mut lap) = (Vec::new(), None, Vec::new(), Vec::new());
                for clause in it {
                    match clause.as_rule() {
                        Rule::skip_clause => skips.push(self.expr(kids(clause).next().unwrap())?),
                        Rule::relay_clause => {
                            let rspan = self.span(&clause);
                            let (mut from, mut cond, mut max) = (None, None, None);
                            for part in kids(clause) {
                                match part.as_rule() {
                                    Rule::relay_from => from = Some(self.expr(kids(part).next().unwrap())?),
                                    Rule::relay_limit => max = Some(self.expr(kids(part).next().unwrap())?),
                                    _ => cond = Some(self.expr(part)?),
                                }
                            }
                            let cond = cond.expect("the grammar requires a condition");
                            relay = Some(Box::new(Relay { from, cond, max, span: rspan }));
                        }
                        Rule::lap_clause => lap = self.block(kids(clause).next().unwrap())?.stmts,
                        _ => each = self.block(kids(clause).next().unwrap())?.stmts,
                    }
                }
                StmtKind::Sow { amount, source, track, order, start, skips, relay, each, lap }
            }
            Rule::take_stmt | Rule::remove_stmt => {
                let remove = rule == Rule::remove_stmt;
                let (mut amount, mut colour) = (None, None);
                if it.peek().map(|c| c.as_rule()) == Some(Rule::take_amount) {
                    let mut a = kids(it.next().unwrap());
                    amount = Some(self.expr(a.next().unwrap())?);
                    if let Some(of) = a.next() {
                        colour = Some(self.expr(kids(of).next().unwrap())?);
                    }
                }
                let from = self.expr(it.next().unwrap())?;
                let to = if remove { None } else { Some(self.expr(it.next().unwrap())?) };
                StmtKind::Take { amount, colour, from, to }
            }
            Rule::put_stmt => {
                let amount = self.expr(it.next().unwrap())?;
                let colour = match it.peek().map(|c| c.as_rule()) {
                    Some(Rule::of_colour) => Some(self.expr(kids(it.next().unwrap()).next().unwrap())?),
                    _ => None,
                };
                let target = self.expr(it.next().unwrap())?;
                StmtKind::Put { amount, colour, target }
            }
            Rule::set_stmt => {
                let var = self.ident(it.next().unwrap());
                let first = self.expr(it.next().unwrap())?;
                match it.next() {
                    Some(v) => StmtKind::Set { var, site: Some(first), value: self.expr(v)? },
                    None => StmtKind::Set { var, site: None, value: first },
                }
            }
            Rule::swap_stmt => {
                let a = self.expr(it.next().unwrap())?;
                StmtKind::Swap(a, self.expr(it.next().unwrap())?)
            }
            Rule::enter_stmt => StmtKind::Enter(self.ident(it.next().unwrap())),
            Rule::if_stmt => {
                let cond = self.expr(it.next().unwrap())?;
                let then = self.block(it.next().unwrap())?.stmts;
                let mut branches = vec![(cond, then)];
                let mut otherwise = None;
                for p in it {
                    if p.as_rule() == Rule::else_if {
                        let mut e = kids(p);
                        let cond = self.expr(e.next().unwrap())?;
                        branches.push((cond, self.block(e.next().unwrap())?.stmts));
                    } else {
                        otherwise = Some(self.block(p)?.stmts);
                    }
                }
                StmtKind::If { branches, otherwise }
            }
            Rule::for_stmt => {
                let var = self.ident(it.next().unwrap());
                let domain = self.domain(it.next().unwrap())?;
                let body = self.block(it.next().unwrap())?.stmts;
                StmtKind::For { var, domain, body }
            }
            Rule::let_stmt => {
                let var = self.ident(it.next().unwrap());
                StmtKind::Let { var, value: self.expr(it.next().unwrap())? }
            }
            Rule::require_stmt => StmtKind::Require(self.expr(it.next().unwrap())?),
            Rule::start_stmt => StmtKind::Start(self.expr(it.next().unwrap())?),
            Rule::again_stmt => StmtKind::Again,
            Rule::end_stmt => StmtKind::EndGame,
            other => unreachable!("not a statement: {other:?}"),
        };
        Ok(Stmt { kind, span })
    }

    fn expr(&self, p: Pair<Rule>) -> R<Expr> {
        debug_assert_eq!(p.as_rule(), Rule::expr);
        let operators = p
            .clone()
            .into_inner()
            .filter(|c| {
                matches!(
                    c.as_rule(),
                    Rule::op_or
                        | Rule::op_and
                        | Rule::op_eq
                        | Rule::op_ne
                        | Rule::op_le
                        | Rule::op_ge
                        | Rule::op_lt
                        | Rule::op_gt
                        | Rule::op_add
                        | Rule::op_sub
                        | Rule::op_mul
                        | Rule::op_div
                        | Rule::op_mod
                        | Rule::op_not
                        | Rule::op_neg
                        | Rule::is_kind
                )
            })
            .count();
        if operators > MAX_OPERATORS {
            return Err(Diagnostic::error(
                self.span(&p),
                format!("an expression with {operators} operators; at most {MAX_OPERATORS}"),
            )
            .label("too long")
            .help("split it with `let`"));
        }
        PRATT
            .map_primary(|prim| self.primary(prim))
            .map_prefix(|op, rhs| {
                let rhs = rhs?;
                let span = self.span(&op).to(rhs.span);
                let u = if op.as_rule() == Rule::op_not { UnOp::Not } else { UnOp::Neg };
                Ok(Expr { kind: ExprKind::Unary(u, Box::new(rhs)), span })
            })
            .map_postfix(|lhs, op| {
                let lhs = lhs?;
                let span = lhs.span.to(self.span(&op));
                let kind = self.site_kind(kids(op).next().unwrap());
                Ok(Expr { kind: ExprKind::Is(Box::new(lhs), kind), span })
            })
            .map_infix(|lhs, op, rhs| {
                let (lhs, rhs) = (lhs?, rhs?);
                let span = lhs.span.to(rhs.span);
                let b = match op.as_rule() {
                    Rule::op_or => BinOp::Or,
                    Rule::op_and => BinOp::And,
                    Rule::op_eq => BinOp::Eq,
                    Rule::op_ne => BinOp::Ne,
                    Rule::op_le => BinOp::Le,
                    Rule::op_ge => BinOp::Ge,
                    Rule::op_lt => BinOp::Lt,
                    Rule::op_gt => BinOp::Gt,
                    Rule::op_add => BinOp::Add,
                    Rule::op_sub => BinOp::Sub,
                    Rule::op_mul => BinOp::Mul,
                    Rule::op_div => BinOp::Div,
                    _ => BinOp::Mod,
                };
                Ok(Expr { kind: ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)), span })
            })
            .parse(p.into_inner())
    }

    fn primary(&self, p: Pair<Rule>) -> R<Expr> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let kind = match rule {
            // The parentheses are part of what is written: an expression
            // that ends with one is shown whole (`a + (b)`, not `a + (b`).
            Rule::paren => {
                let mut e = self.expr(kids(p).next().unwrap())?;
                e.span = span;
                return Ok(e);
            }
            Rule::int => ExprKind::Int(self.int(&p)?),
            Rule::boolean => ExprKind::Bool(p.as_str() == "true"),
            Rule::name => ExprKind::Name(self.ident(kids(p).next().unwrap())),
            Rule::call => {
                let mut it = kids(p);
                let f = self.ident(it.next().unwrap());
                ExprKind::Call(f, it.map(|a| self.expr(a)).collect::<R<Vec<_>>>()?)
            }
            Rule::indexed => {
                let mut it = kids(p);
                let f = self.ident(it.next().unwrap());
                ExprKind::Index(f, Box::new(self.index_arg(it.next().unwrap())?))
            }
            Rule::quantifier => {
                let mut it = kids(p);
                let q = match it.next().unwrap().as_str() {
                    "any" => Quant::Any,
                    "all" => Quant::All,
                    _ => Quant::Sum,
                };
                let var = self.ident(it.next().unwrap());
                let domain = self.domain(it.next().unwrap())?;
                let body = self.expr(it.next().unwrap())?;
                ExprKind::Quant(q, var, Box::new(domain), Box::new(body))
            }
            Rule::filtered => {
                let mut it = kids(p);
                let set = self.expr(it.next().unwrap())?;
                let cond = self.expr(it.next().unwrap())?;
                ExprKind::Filter(Box::new(set), Box::new(cond))
            }
            Rule::conditional => {
                let mut it = kids(p);
                let c = self.expr(it.next().unwrap())?;
                let a = self.expr(it.next().unwrap())?;
                let b = self.expr(it.next().unwrap())?;
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b))
            }
            Rule::kind_set => {
                let mut it = kids(p);
                let kind = self.site_kind(it.next().unwrap());
                let owner = match it.next() {
                    Some(o) => Some(Box::new(self.primary(o)?)),
                    None => None,
                };
                ExprKind::Every(kind, owner)
            }
            other => unreachable!("not a primary: {other:?}"),
        };
        Ok(Expr { kind, span })
    }
}

/// A pair's children, without keyword and punctuation tokens.
pub(super) fn kids(p: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    p.into_inner().filter(|c| !is_keyword(c.as_rule()))
}

fn is_keyword(r: Rule) -> bool {
    format!("{r:?}").starts_with("k_")
}

/// The length of `text` without trailing whitespace and comments.
fn trimmed_len(text: &str) -> usize {
    let mut t = text.trim_end();
    loop {
        let line_start = t.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line = &t[line_start..];
        // A `#` outside a string starts a comment (strings have no escapes).
        let mut in_string = false;
        let mut cut = None;
        for (i, c) in line.char_indices() {
            match c {
                '"' => in_string = !in_string,
                '#' if !in_string => {
                    cut = Some(i);
                    break;
                }
                _ => {}
            }
        }
        match cut {
            Some(i) => t = t[..line_start + i].trim_end(),
            None => return t.len(),
        }
    }
}
