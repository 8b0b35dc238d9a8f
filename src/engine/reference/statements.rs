//! The reference executor's statements: sowing lap by lap, relays and
//! walks, taking, putting, loops.

use super::*;

impl RefEngine {
    pub(super) fn run(&mut self, stmts: &[Stmt], f: &mut Frame) -> Res<()> {
        for s in stmts {
            // An error is told at the innermost statement that met it.
            self.stmt(s, f).map_err(|e| e.within(s.span))?;
        }
        Ok(())
    }

    pub(super) fn add(&mut self, s: SiteId, colour: usize, n: i32) {
        let c = self.game.colours;
        self.pos.counts[s as usize * c + colour] += n;
    }

    /// Counters of colour `c` taken to `dst`, or out of the game.
    pub(super) fn give(&mut self, dst: Option<SiteId>, c: usize, n: i32) {
        match dst {
            Some(d) => self.add(d, c, n),
            None => self.pos.turn.removed += n as u32,
        }
    }

    /// A walk along a track from a site on (`backwards`: against its
    /// direction), a lap at most and to the end of a linear track, while
    /// its condition holds at the site (bound to `slot`): `each` is called
    /// at every site until it says stop (true).
    pub(super) fn walk(
        &mut self,
        (track, from, backwards, cond): (&Expr, &Expr, bool, Option<&Expr>),
        slot: u8,
        f: &mut Frame,
        each: &mut dyn FnMut(&mut Self, &mut Frame) -> Res<bool>,
    ) -> Res<()> {
        let t = self.eval(track, f)?.track()?;
        let from = self.site_of(from, f)?;
        let g = self.game.clone();
        let track = &g.tracks[t as usize];
        let Some(start) = track.position[from as usize] else {
            return Err(Fault::error(format!(
                "`{}` is not on track `{}`: a walk starts from a site of its track",
                g.sites[from as usize].name, track.name
            )));
        };
        let len = track.sites.len() as i64;
        for k in 0..len {
            let place = if backwards { start as i64 - k } else { start as i64 + k };
            let place = match track.cyclic {
                true => place.rem_euclid(len),
                false if (0..len).contains(&place) => place,
                false => break,
            };
            self.tick()?;
            self.locals[slot as usize] = Value::Site(track.sites[place as usize]);
            if let Some(c) = cond
                && !self.eval(c, f)?.truthy()
            {
                break;
            }
            if each(self, f)? {
                break;
            }
        }
        Ok(())
    }

    /// One lap of a sowing: the counters of `src` (`amount` of them if
    /// given) lifted and sown one by one along the track, from the site
    /// after `src` or from `starting at`'s site, skips asked at each place,
    /// `each`'s statements run after each counter.
    pub(super) fn lap(&mut self, s: &Sowing, src: SiteId, amount: Option<i64>, f: &mut Frame) -> Res<()> {
        let t = self.eval(s.track, f)?.track()?;
        self.read(src);
        let have = self.site_count(src);
        let n = amount.unwrap_or(have as i64);
        if n <= 0 || n > have as i64 {
            return Err(Fault::ILLEGAL);
        }
        f.origin = Some(src);
        // The colours lifted, in the order they are sown.
        let (k, mut lifted) = self.colours_of(src);
        if n < have as i64 {
            // Part of a coloured site: colours in seat order.
            let mut left = n as u32;
            for c in lifted.iter_mut().take(k) {
                let take = (*c).min(left);
                *c = take;
                left -= take;
            }
        }
        let rank = if s.ordered { f.order } else { 0 };
        let mut colours = arrange::Unrank::new(&lifted[..k], rank).ok_or_else(|| {
            Fault::error(format!("no order {rank} of the counters in `{}`", self.game.sites[src as usize].name))
        })?;
        for (c, &m) in lifted.iter().enumerate().take(k) {
            self.add(src, c, -(m as i32));
        }
        let g = self.game.clone();
        let track = &g.tracks[t as usize];
        let len = track.sites.len();
        if len == 0 {
            return Err(Fault::error(format!("track `{}` has no sites", track.name)));
        }
        // The fixed skip clauses, tabulated once for this mover and track.
        let fixed = if s.fixed_skips.is_empty() { None } else { Some(self.skip_mask(s.fixed_skips, s.it, f, t)?) };
        // The place before the first counter's: the source's, or the one
        // before the site the lap starts at (-1: before the track's first).
        let mut pos: isize = match s.start {
            None => track.position[src as usize].map(|p| p as isize).unwrap_or(-1),
            Some(x) => {
                let x = self.eval(x, f)?.site()?;
                match track.position[x as usize] {
                    Some(p) => p as isize - 1,
                    None => {
                        return Err(Fault::error(format!(
                            "a sowing starting at `{}`, which is not on track `{}`",
                            g.sites[x as usize].name, track.name
                        )));
                    }
                }
            }
        };
        let mut left = n;
        let mut idle = 0;
        while left > 0 {
            self.tick()?;
            pos += 1;
            if pos as usize >= len {
                if !track.cyclic {
                    return Err(Fault::ILLEGAL);
                }
                pos = 0;
            }
            let site = track.sites[pos as usize];
            // The tabulated clauses first, then those tested here.
            let mut skip = fixed.is_some_and(|m| self.skip_masks[m].1[pos as usize]);
            if !skip && !s.skips.is_empty() {
                self.locals[s.it as usize] = Value::Site(site);
                for c in s.skips {
                    if self.eval(c, f)?.truthy() {
                        skip = true;
                        break;
                    }
                }
            }
            if skip {
                idle += 1;
                if idle > len {
                    return Err(Fault::error(format!(
                        "every site of track `{}` is skipped: the sowing cannot go on",
                        track.name
                    )));
                }
                continue;
            }
            idle = 0;
            let colour = colours.next_colour().unwrap_or(0);
            self.add(site, colour, 1);
            left -= 1;
            f.last = Some(site);
            f.last_colour = Some(colour as u8);
            self.run(s.each, f)?;
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, s: &Stmt, f: &mut Frame) -> Res<()> {
        match &s.kind {
            StmtKind::Sow { amount, source, track, it, ordered, fixed_skips, skips, start, relay, each, lap } => {
                let mut src = self.eval(source, f)?.site()?;
                let mut amount = match amount {
                    Some(a) => Some(self.eval(a, f)?.int()?),
                    None => None,
                };
                let most = match relay.as_ref().and_then(|r| r.max.as_ref()) {
                    Some(m) => self.eval(m, f)?.int()?,
                    None => i64::MAX,
                };
                // Lap after lap while the relay goes on (one lap without one).
                let mut laps = 1;
                loop {
                    let sowing = Sowing {
                        track,
                        it: *it,
                        ordered: *ordered && laps == 1,
                        fixed_skips,
                        skips,
                        start: start.as_ref(),
                        each,
                    };
                    self.lap(&sowing, src, amount, f)?;
                    self.run(lap, f)?;
                    let Some(r) = relay else { return Ok(()) };
                    if !self.eval(&r.cond, f)?.truthy() {
                        return Ok(());
                    }
                    src = match &r.from {
                        Some(x) => self.eval(x, f)?.site()?,
                        None => f
                            .last
                            .ok_or_else(|| Fault::error("`last` is used before any sowing of this move".into()))?,
                    };
                    // Nothing to lift: the relay ends.
                    self.read(src);
                    if self.site_count(src) == 0 {
                        return Ok(());
                    }
                    if laps >= most {
                        return Err(Fault::ILLEGAL);
                    }
                    laps += 1;
                    amount = None;
                    self.tick()?;
                }
            }
            StmtKind::Take { amount, colour, from, to } => {
                // Where the counters go: a site, or out of the game (`remove`).
                let dst = match to {
                    Some(to) => Some(self.eval(to, f)?.site()?),
                    None => None,
                };
                let src = self.eval(from, f)?;
                let colour = match colour {
                    Some(c) => Some(self.eval(c, f)?.player()? as usize),
                    None => None,
                };
                match amount {
                    Some(a) => {
                        let n = self.eval(a, f)?.int()?;
                        let s = src.site()?;
                        let c = colour.unwrap_or(0);
                        self.read(s);
                        let have = if colour.is_some() { self.colour_count(s, c as u8) } else { self.site_count(s) };
                        if n < 0 || n > have as i64 {
                            return Err(Fault::ILLEGAL);
                        }
                        self.add(s, c, -(n as i32));
                        self.give(dst, c, n as i32);
                    }
                    None => {
                        let len = self.set_len(src)?;
                        let k = self.game.colours;
                        for j in 0..len {
                            let s = self.set_item(src, j)?;
                            if Some(s) == dst {
                                continue;
                            }
                            self.read(s);
                            for c in 0..k {
                                if colour.is_some_and(|x| x != c) {
                                    continue;
                                }
                                let m = std::mem::take(&mut self.pos.counts[s as usize * k + c]);
                                self.give(dst, c, m);
                            }
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Put { amount, colour, target } => {
                let n = self.eval(amount, f)?.int()?;
                if !(0..=1_000_000).contains(&n) {
                    return Err(Fault::error(format!("`put` of {n} counters: must be 0 to 1000000")));
                }
                let colour = match colour {
                    Some(c) => self.eval(c, f)?.player()? as usize,
                    None => 0,
                };
                let t = self.eval(target, f)?;
                // The limit on all counters reads every count, banks too.
                self.bank_read |= !self.banks.is_empty();
                for k in 0..self.set_len(t)? {
                    let s = self.set_item(t, k)?;
                    if self.total_counters() + n > MAX_COUNT as i64 {
                        return Err(Fault::error(format!("`put` would make more than {MAX_COUNT} counters in all")));
                    }
                    self.add(s, colour, n as i32);
                }
                Ok(())
            }
            StmtKind::If { branches, otherwise } => {
                for (cond, then) in branches {
                    if self.eval(cond, f)?.truthy() {
                        return self.run(then, f);
                    }
                }
                self.run(otherwise, f)
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
                        self.tick()?;
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
                Domain::Walk { track, from, backwards, cond } => {
                    let walk = (track, from, *backwards, cond.as_deref());
                    self.walk(walk, *var, f, &mut |r, f| r.run(body, f).map(|_| false))
                }
                Domain::Arrangements(_) | Domain::Tracks => {
                    Err(Fault::error("a loop over arrangements or tracks".into()))
                }
            },
            StmtKind::Let { var, value } => {
                self.locals[*var as usize] = self.eval(value, f)?;
                Ok(())
            }
            StmtKind::Set { var, site, value } => {
                let v = &self.game.state[*var as usize];
                let slot = match site {
                    Some(x) => {
                        let offset = v.offset;
                        let s = self.eval(x, f)?.site()? as usize;
                        self.check_kind(*var, s)?;
                        offset + s
                    }
                    None => v.offset,
                };
                self.pos.vars[slot] = self.eval(value, f)?;
                Ok(())
            }
            StmtKind::Swap(a, b) => {
                let (a, b) = (self.eval(a, f)?.site()? as usize, self.eval(b, f)?.site()? as usize);
                self.read(a as SiteId);
                self.read(b as SiteId);
                let k = self.game.colours;
                for c in 0..k {
                    self.pos.counts.swap(a * k + c, b * k + c);
                }
                let g = self.game.clone();
                for v in g.state.iter().filter(|v| v.per_site) {
                    self.pos.vars.swap(v.offset + a, v.offset + b);
                }
                Ok(())
            }
            StmtKind::Enter(p) => {
                f.enter = Some(*p);
                Ok(())
            }
            StmtKind::Require(c) => {
                if self.eval(c, f)?.truthy() {
                    Ok(())
                } else {
                    Err(Fault::ILLEGAL)
                }
            }
            StmtKind::Again => {
                f.again = true;
                Ok(())
            }
            StmtKind::Start(x) => {
                f.start = Some(self.player_of(x, f)?);
                Ok(())
            }
            StmtKind::EndGame => {
                f.end = true;
                Ok(())
            }
        }
    }
}
