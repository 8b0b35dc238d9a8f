//! Players and the board: sites and their families, relations, tracks and
//! the layout, all expanded into the tables the executor reads.

use super::{Compiler, Global};
use crate::diagnostics::{Diagnostic, Span};
use crate::engine::game::{Cell, Family, Layout, Site, SiteId, StateVar, Track, Type, Value};
use crate::syntax::ast::*;

/// Families larger than this are a mistake, not a board.
const MAX_SITES: usize = 4096;

impl Compiler {
    pub(crate) fn players(&mut self, items: &[Item]) {
        let decls: Vec<&PlayersDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Players(p) => Some(p),
                _ => None,
            })
            .collect();
        let Some(decl) = decls.first() else {
            self.error(
                Diagnostic::error(Span::new(0, 0, 0), "the rule file declares no players")
                    .label("in this file")
                    .help("add e.g. `players south, north`; the first moves first"),
            );
            return;
        };
        for extra in &decls[1..] {
            self.error(
                Diagnostic::error(extra.span, "players are declared twice")
                    .label("second declaration")
                    .note(decl.span, "first declaration"),
            );
        }
        let take = match &decl.first {
            None => decl.names.len(),
            Some(n) => match self.const_eval(n, &[]) {
                Some(Value::Int(k)) if k >= 1 && (k as usize) <= decl.names.len() => k as usize,
                Some(Value::Int(k)) => {
                    self.error(
                        Diagnostic::error(n.span, format!("{k} players, but {} names are given", decl.names.len()))
                            .label(format!("must be 1 to {}", decl.names.len()))
                            .help("name as many players as the most that may play"),
                    );
                    return;
                }
                Some(_) => {
                    self.error(
                        Diagnostic::error(n.span, "the number of players must be a number").label("not a number"),
                    );
                    return;
                }
                None => return,
            },
        };
        // Names past the first N still mean a player in `partners`, which
        // leaves out the players not in this game.
        self.cut_players = decl.names.iter().skip(take).map(|p| p.name.name.clone()).collect();
        for pat in decl.names.iter().take(take) {
            match &pat.range {
                None => self.add_player(&pat.name, pat.name.name.clone()),
                Some((a, b)) => {
                    let Some((lo, hi)) = self.const_range(a, b, &[]) else {
                        continue;
                    };
                    if hi < lo || hi - lo >= 64 {
                        self.error(
                            Diagnostic::error(
                                a.span.to(b.span),
                                format!("{lo}..{hi} is not a range of 1 to 64 players"),
                            )
                            .label("bad player range"),
                        );
                        continue;
                    }
                    for i in lo..=hi {
                        self.add_player(&pat.name, format!("{}{}", pat.name.name, i));
                    }
                }
            }
        }
        if self.game.players.len() > 64 {
            self.error(Diagnostic::error(decl.span, "at most 64 players").label("too many players"));
        }
    }

    fn add_player(&mut self, at: &Ident, name: String) {
        let id = self.game.players.len() as u8;
        if self.declare(&Ident { name: name.clone(), span: at.span }, Global::Player(id)) {
            self.game.players.push(name);
        }
    }

    pub(crate) fn board(&mut self, items: &[Item]) {
        for item in items {
            if let Item::Site(s) = item {
                self.site_decl(s);
            }
        }
        if !items.iter().any(|i| matches!(i, Item::Site(_))) {
            self.error(
                Diagnostic::error(Span::new(0, 0, 0), "the rule file declares no sites")
                    .label("in this file")
                    .help("declare the board, e.g. `pit s[1..6] owner south`"),
            );
        }
        self.partners(items);
        self.tables();
        for item in items {
            match item {
                Item::Relation(r) => self.relation(r),
                Item::Track(t) => self.track(t),
                Item::Group(g) => {
                    let sites: Vec<SiteId> = g.items.iter().flat_map(|i| self.site_run(i)).collect();
                    let id = self.intern_set(sites);
                    self.declare(&g.name, Global::Group(id));
                }
                _ => {}
            }
        }
        // The values of per-site state first, then those of one value: the
        // executor saves the two parts apart (the first, shared by the saved
        // positions that hold the same values; see `Vm::site_vars`).
        let mut offset = 0;
        for per_site in [true, false] {
            for v in self.game.state.iter_mut().filter(|v| v.per_site == per_site) {
                v.offset = offset;
                offset += if per_site { self.game.sites.len() } else { 1 };
            }
        }
        let layouts: Vec<&LayoutDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Layout(l) => Some(l),
                _ => None,
            })
            .collect();
        if let Some(l) = layouts.first() {
            for extra in &layouts[1..] {
                self.error(
                    Diagnostic::error(extra.span, "a second layout")
                        .label("one layout per game")
                        .note(l.span, "first layout"),
                );
            }
            let mut rows = Vec::new();
            for row in &l.rows {
                let mut cells = Vec::new();
                for cell in row {
                    match cell {
                        LayoutCell::Blank => cells.push(Cell::Blank),
                        LayoutCell::Label(t) => cells.push(Cell::Label(t.value.clone())),
                        LayoutCell::Sites(item) => cells.extend(self.site_run(item).into_iter().map(Cell::Site)),
                    }
                }
                rows.push(cells);
            }
            self.game.layout = Some(Layout { rows });
        }
        for (name, members) in self.site_families.clone() {
            let members = members.into_iter().map(|(k, s)| (k, Value::Site(s))).collect();
            self.game.families.push(Family { name, members });
        }
    }

    fn site_decl(&mut self, d: &SiteDecl) {
        for name in &d.names {
            match &name.index {
                None => {
                    let Some(owner) = self.owner(d, &[]) else {
                        continue;
                    };
                    if self.game.sites.len() >= MAX_SITES {
                        self.too_many_sites(&name.name, 1);
                        continue;
                    }
                    let id = self.game.sites.len() as SiteId;
                    if self.declare(&name.name, Global::Site(id)) {
                        self.game.sites.push(Site { name: name.name.name.clone(), kind: d.kind, owner, family: None });
                    }
                }
                Some(IndexSpec::Single(e)) => {
                    self.error(
                        Diagnostic::error(e.span, "a site is declared one at a time or as a whole family")
                            .label("a single index")
                            .help(format!(
                                "declare the family at once, e.g. `{} {}[1..6]`",
                                d.kind.word(),
                                name.name.name
                            )),
                    );
                }
                Some(IndexSpec::Domain(var, dom)) => {
                    let keys = match self.domain_values(dom) {
                        Some(k) => k,
                        None => continue,
                    };
                    if self.game.sites.len() + keys.len() > MAX_SITES {
                        self.too_many_sites(&name.name, keys.len());
                        continue;
                    }
                    let fam = self.site_families.len() as u16;
                    if !self.declare(&name.name, Global::SiteFamily(fam)) {
                        continue;
                    }
                    let mut members = Vec::new();
                    for key in keys {
                        let env: Vec<(String, Value)> = var.iter().map(|v| (v.name.clone(), key)).collect();
                        let Some(owner) = self.owner(d, &env) else {
                            break;
                        };
                        let (label, index) = match key {
                            Value::Int(i) => (format!("{}{}", name.name.name, i), i),
                            // A family of players is indexed by seat, from 1.
                            Value::Player(p) => {
                                (format!("{}-{}", name.name.name, self.game.players[p as usize]), p as i64 + 1)
                            }
                            _ => continue,
                        };
                        let id = self.game.sites.len() as SiteId;
                        if let Some((prev, span)) = self.globals.get(&label) {
                            self.error(
                                Diagnostic::error(
                                    name.span,
                                    format!(
                                        "site `{label}` of this family has the name of {} declared elsewhere",
                                        prev.word()
                                    ),
                                )
                                .label("its members are named by joining name and index")
                                .note(*span, "declared here"),
                            );
                            continue;
                        }
                        self.globals.insert(label.clone(), (Global::Site(id), name.span));
                        self.game.sites.push(Site {
                            name: label,
                            kind: d.kind,
                            owner,
                            family: Some((name.name.name.clone(), index)),
                        });
                        members.push((key, id));
                    }
                    self.site_families.push((name.name.name.clone(), members));
                }
            }
        }
    }

    /// A site or family that would take the board past [`MAX_SITES`]:
    /// refused once, and its uses not reported again.
    fn too_many_sites(&mut self, name: &Ident, adding: usize) {
        let before = self.game.sites.len();
        let what = if adding == 1 { "this site".to_string() } else { format!("these {adding} sites") };
        self.error(
            Diagnostic::error(
                name.span,
                format!("a board has at most {MAX_SITES} sites: with {what} it would have {}", before + adding),
            )
            .label(if before >= MAX_SITES { "no room left" } else { "too many" })
            .help(format!("the sites declared before take {before}; declare fewer or smaller families")),
        );
        self.refused_sites.push(name.name.clone());
    }

    fn owner(&mut self, d: &SiteDecl, env: &[(String, Value)]) -> Option<Option<u8>> {
        let Some(e) = &d.owner else { return Some(None) };
        match self.const_eval(e, env)? {
            Value::Player(p) => Some(Some(p)),
            _ => {
                self.error(
                    Diagnostic::error(e.span, "an owner must be a player")
                        .label("not a player")
                        .help(format!("players: {}", self.game.players.join(", "))),
                );
                None
            }
        }
    }

    pub(crate) fn domain_values(&mut self, d: &Domain) -> Option<Vec<Value>> {
        match d {
            Domain::Players(_) => Some((0..self.game.players.len() as u8).map(Value::Player).collect()),
            Domain::Set(e) => {
                self.error(
                    Diagnostic::error(e.span, "a range or `players` is needed here")
                        .label("a set of sites")
                        .help("write e.g. `1..6`"),
                );
                None
            }
            Domain::Walk(w) => {
                self.error(
                    Diagnostic::error(w.span, "a range or `players` is needed here")
                        .label("a walk along a track")
                        .help("write e.g. `1..6`"),
                );
                None
            }
            Domain::Range(a, b) => {
                let (lo, hi) = self.const_range(a, b, &[])?;
                if hi < lo {
                    self.error(
                        Diagnostic::error(a.span.to(b.span), format!("the range {lo}..{hi} is empty"))
                            .label("empty range")
                            .help("ranges count upwards, `lo..hi`"),
                    );
                    return None;
                }
                if hi - lo >= MAX_SITES as i64 {
                    self.error(
                        Diagnostic::error(a.span.to(b.span), format!("the range {lo}..{hi} is too large"))
                            .label("too large"),
                    );
                    return None;
                }
                Some((lo..=hi).map(Value::Int).collect())
            }
        }
    }

    /// `partners`: players who share their sites, score and result. Names
    /// of players not in this game (past `players first N of`) are left out.
    fn partners(&mut self, items: &[Item]) {
        for item in items {
            let Item::Partners(p) = item else { continue };
            let mut group = Vec::new();
            for n in &p.names {
                match self.globals.get(&n.name) {
                    Some((Global::Player(id), _)) => {
                        if self.game.partners.iter().any(|g| g.contains(id)) {
                            self.error(
                                Diagnostic::error(n.span, format!("`{}` already has partners", n.name))
                                    .label("a second partnership"),
                            );
                        } else {
                            group.push(*id);
                        }
                    }
                    _ if self.cut_players.contains(&n.name) => {}
                    _ => {
                        let names = self.game.players.clone();
                        self.unknown(n, "player", names);
                    }
                }
            }
            if group.len() > 1 {
                self.game.partners.push(group);
            }
        }
    }

    /// The players who own a site: its owner and the owner's partners.
    fn owners_of(&self, s: usize) -> Vec<u8> {
        match self.game.sites[s].owner {
            None => vec![],
            Some(o) => self.game.partners.iter().find(|g| g.contains(&o)).cloned().unwrap_or_else(|| vec![o]),
        }
    }

    /// `kind_sets` and `owned`, from the sites.
    fn tables(&mut self) {
        let np = self.game.players.len();
        for (k, kind) in [SiteKind::Pit, SiteKind::Store, SiteKind::Reserve].into_iter().enumerate() {
            let mut per_owner = Vec::new();
            for owner in 0..=np {
                let set: Vec<SiteId> = (0..self.game.sites.len())
                    .filter(|&i| {
                        self.game.sites[i].kind == kind && (owner == np || self.owners_of(i).contains(&(owner as u8)))
                    })
                    .map(|i| i as SiteId)
                    .collect();
                per_owner.push(self.intern_set(set));
            }
            self.game.kind_sets[k] = per_owner;
            self.game.owned[k] = (0..np)
                .map(|p| {
                    let mine: Vec<usize> = (0..self.game.sites.len())
                        .filter(|&i| self.game.sites[i].kind == kind && self.owners_of(i).contains(&(p as u8)))
                        .collect();
                    (mine.len() == 1).then(|| mine[0] as SiteId)
                })
                .collect();
        }
    }

    pub(crate) fn intern_set(&mut self, set: Vec<SiteId>) -> u16 {
        if let Some(i) = self.game.sets.iter().position(|s| *s == set) {
            return i as u16;
        }
        self.game.sets.push(set);
        (self.game.sets.len() - 1) as u16
    }

    /// Resolves `s[3]` or `S` to one site at compile time.
    fn one_site(&mut self, name: &Ident, index: Option<&Expr>, env: &[(String, Value)]) -> Option<SiteId> {
        match (self.globals.get(&name.name).map(|g| g.0.clone()), index) {
            (Some(Global::Site(s)), None) => Some(s),
            (Some(Global::SiteFamily(f)), Some(ix)) => {
                let key = self.const_eval(ix, env)?;
                self.family_member(f, key, ix.span)
            }
            (Some(Global::SiteFamily(_)), None) => {
                self.error(
                    Diagnostic::error(name.span, format!("`{}` is a family of sites; name one of them", name.name))
                        .label("which one?")
                        .help(format!("e.g. `{}[1]`", name.name)),
                );
                None
            }
            (Some(Global::Site(_)), Some(ix)) => {
                self.error(
                    Diagnostic::error(ix.span, format!("`{}` is a single site, not a family", name.name))
                        .label("remove this index"),
                );
                None
            }
            (Some(other), _) => {
                self.error(
                    Diagnostic::error(name.span, format!("`{}` is {}, not a site", name.name, other.word()))
                        .label("not a site"),
                );
                None
            }
            (None, _) => {
                let names = self.site_names();
                self.unknown(name, "site", names);
                None
            }
        }
    }

    pub(crate) fn site_names(&self) -> Vec<String> {
        self.globals
            .iter()
            .filter(|(_, (g, _))| matches!(g, Global::Site(_) | Global::SiteFamily(_)))
            .map(|(k, _)| k.clone())
            .collect()
    }

    pub(crate) fn family_member(&mut self, f: u16, key: Value, span: Span) -> Option<SiteId> {
        let (name, members) = &self.site_families[f as usize];
        if let Some((_, s)) = members.iter().find(|(k, _)| *k == key) {
            return Some(*s);
        }
        let range = match (members.first(), members.last()) {
            (Some((Value::Int(a), _)), Some((Value::Int(b), _))) => format!("{a}..{b}"),
            _ => "by its players".to_string(),
        };
        let msg = format!("`{name}` has no member {}", self.game.key_text(key));
        self.error(Diagnostic::error(span, msg).label(format!("`{name}` is indexed {range}")));
        None
    }

    /// The members `lo..hi` of a family (downwards when `hi < lo`), all of
    /// which must exist: one diagnostic otherwise, before anything is listed.
    pub(crate) fn family_run(&mut self, f: u16, lo: i64, hi: i64, span: Span) -> Vec<SiteId> {
        let (name, members) = &self.site_families[f as usize];
        let ints: Vec<i64> =
            members.iter().filter_map(|(k, _)| if let Value::Int(i) = k { Some(*i) } else { None }).collect();
        let (min, max) = (ints.iter().min().copied(), ints.iter().max().copied());
        let inside = |k: i64| min.is_some_and(|m| k >= m) && max.is_some_and(|m| k <= m);
        if !inside(lo) || !inside(hi) {
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("indexed {a}..{b}"),
                _ => "indexed by players".to_string(),
            };
            let name = name.clone();
            self.error(
                Diagnostic::error(span, format!("{lo}..{hi} runs outside `{name}`, which is {range}"))
                    .label("outside the family")
                    .help(format!("a run names members of `{name}` that exist")),
            );
            return vec![];
        }
        let keys: Vec<i64> = if lo <= hi { (lo..=hi).collect() } else { (hi..=lo).rev().collect() };
        keys.into_iter().filter_map(|k| self.family_member(f, Value::Int(k), span)).collect()
    }

    /// The sites a track or layout item names, in order: `n[pits..1]` runs downwards.
    pub(crate) fn site_run(&mut self, item: &TrackItem) -> Vec<SiteId> {
        match &item.index {
            Some(IndexArg::Range(a, b)) => {
                let Some(Global::SiteFamily(f)) = self.globals.get(&item.name.name).map(|g| g.0.clone()) else {
                    if let Some(s) = self.one_site(&item.name, None, &[]) {
                        let name = self.game.sites[s as usize].name.clone();
                        self.error(
                            Diagnostic::error(a.span.to(b.span), format!("`{name}` is a single site, not a family"))
                                .label("a run of a single site")
                                .help(format!("write `{name}`")),
                        );
                    }
                    return vec![];
                };
                let Some((lo, hi)) = self.const_range(a, b, &[]) else {
                    return vec![];
                };
                self.family_run(f, lo, hi, a.span.to(b.span))
            }
            Some(IndexArg::Single(e)) => self.one_site(&item.name, Some(e), &[]).into_iter().collect(),
            None => self.one_site(&item.name, None, &[]).into_iter().collect(),
        }
    }

    fn relation(&mut self, r: &RelationDecl) {
        let id = self.game.relations.len() as u16;
        if !self.declare(&r.name, Global::Relation(id)) {
            return;
        }
        let mut map: Vec<Option<SiteId>> = vec![None; self.game.sites.len()];
        let mut set_at: Vec<Option<Span>> = vec![None; self.game.sites.len()];
        for pair in &r.pairs {
            let envs: Vec<Vec<(String, Value)>> = match &pair.each {
                None => vec![vec![]],
                Some((var, dom)) => match self.domain_values(dom) {
                    Some(vals) => vals.into_iter().map(|v| vec![(var.name.clone(), v)]).collect(),
                    None => continue,
                },
            };
            for env in envs {
                let a = self.one_site(&pair.from.name, pair.from.index.as_ref(), &env);
                let b = self.one_site(&pair.to.name, pair.to.index.as_ref(), &env);
                let (Some(a), Some(b)) = (a, b) else { break };
                let mut links = vec![(a, b)];
                if pair.both_ways {
                    links.push((b, a));
                }
                for (x, y) in links {
                    if let Some(prev) = map[x as usize].filter(|p| *p != y) {
                        let site = self.game.sites[x as usize].name.clone();
                        let d = Diagnostic::error(
                            pair.span,
                            format!(
                                "relation `{}` gives `{site}` two partners, `{}` and `{}`",
                                r.name.name, self.game.sites[prev as usize].name, self.game.sites[y as usize].name
                            ),
                        )
                        .label("second partner")
                        .note(set_at[x as usize].unwrap_or(pair.span), "first partner")
                        .help("a relation maps each site to at most one other");
                        self.error(d);
                    }
                    map[x as usize] = Some(y);
                    set_at[x as usize] = Some(pair.span);
                }
            }
        }
        self.game.relations.push((r.name.name.clone(), map));
    }

    fn track(&mut self, t: &TrackDecl) {
        let mut sites = Vec::new();
        for item in &t.items {
            for s in self.site_run(item) {
                if let Some(pos) = sites.iter().position(|x| *x == s) {
                    let _ = pos;
                    let name = self.game.sites[s as usize].name.clone();
                    self.error(
                        Diagnostic::error(item.span, format!("`{name}` is on track `{}` twice", t.name.name.name))
                            .label("second time")
                            .help("a track passes each site once; a cyclic track returns to its start by itself"),
                    );
                } else {
                    sites.push(s);
                }
            }
        }
        let mut position = vec![None; self.game.sites.len()];
        for (i, s) in sites.iter().enumerate() {
            position[*s as usize] = Some(i as u16);
        }
        let id = self.game.tracks.len() as u16;
        let label = match &t.name.index {
            None => t.name.name.name.clone(),
            Some(IndexSpec::Single(e)) => {
                let Some(key) = self.const_eval(e, &[]) else {
                    return;
                };
                let fam = match self.globals.get(&t.name.name.name).map(|g| g.0.clone()) {
                    Some(Global::TrackFamily(f)) => f,
                    Some(_) => {
                        self.declare(&t.name.name, Global::TrackFamily(0));
                        return;
                    }
                    None => {
                        let f = self.track_families.len() as u16;
                        self.declare(&t.name.name, Global::TrackFamily(f));
                        self.track_families.push((t.name.name.name.clone(), vec![]));
                        f
                    }
                };
                let members = &mut self.track_families[fam as usize].1;
                if members.iter().any(|(k, _)| *k == key) {
                    self.error(
                        Diagnostic::error(
                            t.name.span,
                            format!("track `{}` is declared twice for this index", t.name.name.name),
                        )
                        .label("again"),
                    );
                    return;
                }
                members.push((key, id));
                let shown = match key {
                    Value::Player(p) => self.game.players[p as usize].clone(),
                    Value::Int(i) => i.to_string(),
                    other => format!("{other:?}"),
                };
                format!("{}[{}]", t.name.name.name, shown)
            }
            Some(IndexSpec::Domain(..)) => {
                self.error(
                    Diagnostic::error(t.name.span, "declare each track of a family with its own index")
                        .label("a range of tracks")
                        .help(format!("e.g. `track {}[south] ...`", t.name.name.name)),
                );
                return;
            }
        };
        if t.name.index.is_none() && !self.declare(&t.name.name, crate::compile::Global::Track(id)) {
            return;
        }
        self.game.tracks.push(Track {
            name: label,
            label: t.label.as_ref().map(|l| l.value.clone()),
            cyclic: t.cyclic,
            sites,
            position,
        });
    }

    /// Registers the track families as run-time lookup tables.
    pub(crate) fn track_family_tables(&mut self) -> Vec<u16> {
        let mut ids = Vec::new();
        for (name, members) in self.track_families.clone() {
            ids.push(self.game.families.len() as u16);
            self.game
                .families
                .push(Family { name, members: members.into_iter().map(|(k, t)| (k, Value::Track(t))).collect() });
        }
        ids
    }
}

impl Compiler {
    /// `counters coloured by player` and `state` declarations.
    pub(crate) fn colours_and_state(&mut self, items: &[Item]) {
        let mut seen: Option<Span> = None;
        for item in items {
            match item {
                Item::Counters(span) => {
                    if let Some(prev) = seen {
                        self.error(
                            Diagnostic::error(*span, "a second `counters` declaration")
                                .label("again")
                                .note(prev, "first here"),
                        );
                    }
                    seen = Some(*span);
                    if self.game.players.len() > MAX_COLOURS {
                        self.error(
                            Diagnostic::error(*span, format!("counters of more than {MAX_COLOURS} colours"))
                                .label(format!("{} players", self.game.players.len())),
                        );
                    } else {
                        self.game.colours = self.game.players.len().max(1);
                    }
                }
                Item::State(s) => {
                    let ty = match s.ty.name.as_str() {
                        "site" => Type::Site,
                        "number" => Type::Int,
                        "player" => Type::Player,
                        "condition" => Type::Bool,
                        _ => {
                            self.error(
                                Diagnostic::error(
                                    s.ty.span,
                                    format!("`{}` is not a type a state variable can have", s.ty.name),
                                )
                                .label("unknown type")
                                .help("one of `site`, `number`, `player`, `condition`"),
                            );
                            continue;
                        }
                    };
                    let id = self.game.state.len() as u16;
                    // `state owner of every pit: player`: territory, holes whose
                    // owner changes. `owner(x)` and `every pit of P` follow it.
                    let territory = s.name.name == "owner";
                    if territory {
                        match (s.per_site, ty) {
                            (Some(kind), Type::Player) if !self.globals.contains_key("owner") => {
                                self.globals.insert("owner".into(), (Global::State(id), s.name.span));
                                self.game.territory = Some((id, kind));
                            }
                            _ => {
                                self.error(
                                    Diagnostic::error(
                                        s.span,
                                        "an owner kept as state is a player for each site of a kind",
                                    )
                                    .label("not territory")
                                    .help("write `state owner of every pit: player`"),
                                );
                                continue;
                            }
                        }
                    }
                    if territory || self.declare(&s.name, Global::State(id)) {
                        // Offsets are given once the number of sites is known.
                        self.game.state.push(StateVar {
                            name: s.name.name.clone(),
                            ty,
                            per_site: s.per_site.is_some(),
                            kind: s.per_site,
                            hidden: s.hidden,
                            offset: 0,
                        });
                    }
                }
                _ => {}
            }
        }
        self.game.colour_letters = colour_letters(&self.game.players);
    }
}

/// Most colours counters may have.
pub(crate) const MAX_COLOURS: usize = 16;

/// A letter for each player's colour: the first letter of the name not
/// already taken, or a digit.
fn colour_letters(players: &[String]) -> Vec<char> {
    let mut out: Vec<char> = Vec::new();
    for p in players {
        let pick =
            p.chars().filter(|c| c.is_ascii_alphabetic()).map(|c| c.to_ascii_lowercase()).find(|c| !out.contains(c));
        // Letters only, so that counts after them stay readable (`p11` is 11 of p).
        let spare = ('a'..='z').find(|c| !out.contains(c));
        out.push(pick.or(spare).unwrap_or('?'));
    }
    out
}
