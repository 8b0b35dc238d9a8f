//! The reference executor's moves: listing, counting, drawing and trying
//! them, and their names.

use super::*;

impl RefEngine {
    /// The legal moves of the player to move, into `out` (cleared first).
    /// Empty exactly when the game is over. Refuses (with an error) to list
    /// more than [`MAX_LISTED`].
    pub fn legal_moves(&mut self, out: &mut Vec<Move>) -> Result<(), Halt> {
        self.legal_moves_r(out).map_err(Fault::halt)
    }

    pub(super) fn legal_moves_r(&mut self, out: &mut Vec<Move>) -> Res<()> {
        self.fuel = FUEL;
        out.clear();
        if self.pos.turn.ended {
            return Ok(());
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::List(out))?;
        if out.is_empty() {
            if self.must_pass(me)? {
                out.push(Move::PASS);
            }
            return Ok(());
        }
        if self.game.avoids.is_empty() {
            return Ok(());
        }
        // `avoid`: drop the moves whose result it names, unless all do.
        let mut bad = std::mem::take(&mut self.avoided);
        bad.clear();
        for &mv in out.iter() {
            match self.violates_avoid(mv) {
                Ok(b) => bad.push(b),
                Err(e) => {
                    self.avoided = bad;
                    return Err(e);
                }
            }
        }
        if bad.iter().any(|b| !b) {
            let mut flag = bad.iter();
            out.retain(|_| flag.next().is_some_and(|b| !b));
        }
        self.avoided = bad;
        Ok(())
    }

    /// Whether the player to move, having no move, passes (someone else can
    /// move and the rules say pass).
    pub(super) fn must_pass(&mut self, me: PlayerId) -> Res<bool> {
        if self.game.stuck != StuckAction::Pass {
            return Ok(false);
        }
        let np = self.game.players.len() as u8;
        for k in 1..np {
            if self.can_move((me + k) % np)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many legal moves there are, without listing them when no `avoid`
    /// needs each one tried.
    pub fn count_moves(&mut self) -> Result<u128, Halt> {
        self.count_moves_r().map_err(Fault::halt)
    }

    pub(super) fn count_moves_r(&mut self) -> Res<u128> {
        self.fuel = FUEL;
        if self.pos.turn.ended {
            return Ok(0);
        }
        if !self.game.avoids.is_empty() {
            let mut buf = self.take_scratch();
            let r = self.legal_moves_r(&mut buf).map(|_| buf.len() as u128);
            self.give_scratch(buf);
            return r;
        }
        let me = self.pos.turn.to_move;
        let mut sink = Sink::Count(0);
        self.raw(me, &mut sink)?;
        let Sink::Count(n) = sink else { unreachable!() };
        if n == 0 && self.must_pass(me)? {
            return Ok(1);
        }
        Ok(n)
    }

    /// A legal move drawn uniformly at random without listing them: a move
    /// that must be tried (or judged by an `avoid`) is tried only when drawn,
    /// and another drawn if it is refused (see `draw.rs`); `None` when the
    /// game is over. A rule error in a move is met only if that move is
    /// drawn: listing the moves tries them all and meets it at once.
    pub fn sample_move(&mut self, rng: &mut impl Rng) -> Result<Option<Move>, Halt> {
        self.sample_move_r(rng).map_err(Fault::halt)
    }

    pub(super) fn sample_move_r(&mut self, rng: &mut impl Rng) -> Res<Option<Move>> {
        self.fuel = FUEL;
        // A move that must be tried, or looked at by an `avoid`, is tried
        // when drawn (see `draw`).
        let mut c = std::mem::take(&mut self.candidates);
        let r = self.draw_legal(rng, &mut c);
        self.candidates = c;
        r
    }

    pub(super) fn draw_legal(
        &mut self,
        rng: &mut impl Rng,
        c: &mut crate::engine::draw::Candidates,
    ) -> Res<Option<Move>> {
        c.clear();
        if self.pos.turn.ended {
            return Ok(None);
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::Candidates(&mut c.groups))?;
        c.counted();
        while let Some((mv, number)) = c.draw(rng) {
            if c.mostly_refused() {
                // Most candidates refused: drawn from the list instead.
                c.clear();
                if !self.game.avoids.is_empty() {
                    let mut buf = Vec::new();
                    self.legal_moves_r(&mut buf)?;
                    return Ok((!buf.is_empty()).then(|| buf[rng.gen_range(0..buf.len())]));
                }
                self.groups(&mut c.groups)?;
                c.counted();
                return Ok(c.draw(rng).map(|(mv, _)| mv));
            }
            if self.game.moves[mv.def as usize].needs_trial && !self.trial(mv, me)? {
                c.refuse(number);
                continue;
            }
            if self.game.avoids.is_empty() {
                return Ok(Some(mv));
            }
            c.refuse(number);
            if !self.violates_avoid(mv)? {
                return Ok(Some(mv));
            }
            c.avoided.push(mv);
        }
        if !c.avoided.is_empty() {
            return Ok(Some(c.avoided[rng.gen_range(0..c.avoided.len())]));
        }
        if self.must_pass(me)? {
            return Ok(Some(crate::engine::draw::Candidates::pass(rng)));
        }
        Ok(None)
    }

    /// The groups of legal moves: each a move and how many orders of colours
    /// it comes in (1 for a move without an order). Not filtered by `avoid`.
    pub(super) fn groups(&mut self, out: &mut Vec<(Move, u128)>) -> Res<()> {
        out.clear();
        if self.pos.turn.ended {
            return Ok(());
        }
        let me = self.pos.turn.to_move;
        self.raw(me, &mut Sink::Groups(out))?;
        if out.is_empty() && self.must_pass(me)? {
            out.push((Move::PASS, 1));
        }
        Ok(())
    }

    /// A summary of the legal moves: each group's name (the order of colours
    /// left out) and its number of orders.
    pub fn move_summary(&mut self) -> Result<Vec<(String, u128)>, Halt> {
        self.move_summary_r().map_err(Fault::halt)
    }

    pub(super) fn move_summary_r(&mut self) -> Res<Vec<(String, u128)>> {
        self.fuel = FUEL;
        if !self.game.avoids.is_empty() {
            let mut buf = Vec::new();
            self.legal_moves_r(&mut buf)?;
            return Ok(buf.iter().map(|m| (self.move_name(*m), 1)).collect());
        }
        let mut groups = Vec::new();
        self.groups(&mut groups)?;
        Ok(groups.iter().map(|&(m, n)| (self.group_name(m), n)).collect())
    }

    /// The legal move that has this name; `None` if none has. A move with an
    /// order of colours matches its name with the order written out, or
    /// without it, meaning the default order (seat order).
    pub fn find_move(&mut self, name: &str) -> Result<Option<Move>, Halt> {
        self.find_move_r(name).map_err(Fault::halt)
    }

    pub(super) fn find_move_r(&mut self, name: &str) -> Res<Option<Move>> {
        self.fuel = FUEL;
        if !self.game.avoids.is_empty() {
            let mut buf = Vec::new();
            self.legal_moves_r(&mut buf)?;
            return Ok(buf.iter().copied().find(|m| self.move_name(*m) == name));
        }
        let mut groups = Vec::new();
        self.groups(&mut groups)?;
        for (mv, n) in groups {
            if n == 1 && !self.has_order(mv) {
                if self.move_name(mv) == name {
                    return Ok(Some(mv));
                }
                continue;
            }
            if self.group_name(mv) == name {
                return Ok(Some(mv));
            }
            let Some((prefix, suffix)) = self.order_frame(mv) else {
                continue;
            };
            let Some(middle) = name.strip_prefix(prefix.as_str()).and_then(|r| r.strip_suffix(suffix.as_str())) else {
                continue;
            };
            let letters = &self.game.colour_letters;
            let seq: Option<Vec<usize>> = middle.chars().map(|ch| letters.iter().position(|&l| l == ch)).collect();
            let Some(seq) = seq else { continue };
            let counts = self.order_counts(mv)?;
            if let Some(r) = arrange::rank(&counts.1[..counts.0], seq) {
                let m = Move { order: r, ..mv };
                // A group of one tried order: only that order was found legal.
                let def = &self.game.moves[mv.def as usize];
                if def.needs_trial && !(n == 1 && mv.order == r) && !self.trial(m, self.pos.turn.to_move)? {
                    return Ok(None);
                }
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    pub(super) fn violates_avoid(&mut self, mv: Move) -> Res<bool> {
        let f = self.apply_frame(mv)?;
        let g = self.game.clone();
        let mut bad = false;
        for (_, cond, span) in &g.avoids {
            match self.eval(cond, &f).map_err(|x| x.within(*span)) {
                Ok(v) if v.truthy() => {
                    bad = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.undo();
                    return Err(e);
                }
            }
        }
        self.undo();
        Ok(bad)
    }

    /// An empty buffer from the pool (buffers are reused, so nothing is
    /// allocated once the pool is warm).
    pub(super) fn take_scratch(&mut self) -> Vec<Move> {
        let mut v = self.scratch.pop().unwrap_or_default();
        v.clear();
        v
    }
    pub(super) fn give_scratch(&mut self, v: Vec<Move>) {
        self.scratch.push(v);
    }

    /// Whether `p` would have any move if it were their turn now.
    pub(super) fn can_move(&mut self, p: PlayerId) -> Res<bool> {
        let saved = self.pos.turn.to_move;
        self.pos.turn.to_move = p;
        // Finding moves binds local variables; the caller's are kept aside.
        let mark = self.saved_locals.len();
        self.saved_locals.extend_from_slice(&self.locals);
        let mut sink = Sink::Any(false);
        let r = self.raw(p, &mut sink);
        self.locals.copy_from_slice(&self.saved_locals[mark..]);
        self.saved_locals.truncate(mark);
        self.pos.turn.to_move = saved;
        r.map(|_| matches!(sink, Sink::Any(true)))
    }

    /// Moves for `p` by the move declarations alone (no `avoid`, no pass).
    pub(super) fn raw(&mut self, p: PlayerId, sink: &mut Sink) -> Res<()> {
        self.depth += 1;
        if self.depth > 64 {
            self.depth -= 1;
            return Err(Fault::error("rules recurse too deeply while looking for legal moves".into()));
        }
        let g = self.game.clone();
        let phase = self.pos.turn.phase;
        let mut r = Ok(());
        for (d, def) in g.moves.iter().enumerate() {
            if def.phase != phase {
                continue;
            }
            let f = Frame::new(p);
            let mut mv = Move { def: d as u16, args: [0; 4], order: 0 };
            r = self.enumerate(def, 0, &mut mv, &f, sink);
            if r.is_err() || sink.done() {
                break;
            }
        }
        self.depth -= 1;
        r
    }

    /// Offers the move `mv` (all choices made) if it is legal: checked by its
    /// precheck, or by trying it when its legality depends on its effects.
    pub(super) fn leaf(&mut self, def: &MoveDef, mv: Move, f: &Frame, n: u128, sink: &mut Sink) -> Res<()> {
        if let Some(k) = def.nonempty {
            self.read(mv.args[k] as SiteId);
            if self.site_count(mv.args[k] as SiteId) == 0 {
                return Ok(());
            }
        }
        if !def.needs_trial || matches!(sink, Sink::Candidates(_)) {
            return sink.offer(mv, n);
        }
        // Try each order: legality may depend on where the colours fall.
        for r in 0..n {
            let m = Move { order: r, ..mv };
            if self.trial(m, f.mover)? {
                sink.offer(m, 1)?;
                if sink.done() {
                    break;
                }
            }
            if r >= MAX_LISTED {
                return Err(Fault::error(format!("more than {MAX_LISTED} orders of colours to try one by one")));
            }
        }
        Ok(())
    }

    /// Whether making `mv` as `mover` succeeds (the position is restored).
    /// Its statements alone decide: what follows a move (phase changes,
    /// `end`s, being stuck) decides nothing about it. What draws around it
    /// draws on as if it had not been made.
    pub(super) fn trial(&mut self, mv: Move, mover: PlayerId) -> Res<bool> {
        // Saving and giving back the position is work too.
        self.spend(crate::engine::vm::trial_work(self.pos.counts.len()))?;
        let saved = self.pos.turn.to_move;
        self.pos.turn.to_move = mover;
        self.push_undo();
        let draws = self.draws;
        let r = self.statements(mv);
        self.draws = draws;
        if r.is_err() {
            self.undo();
        }
        let ok = match r {
            Ok(_) => {
                self.undo();
                true
            }
            Err(e) if e.is_illegal() => false,
            Err(e) => {
                self.pos.turn.to_move = saved;
                return Err(e);
            }
        };
        self.pos.turn.to_move = saved;
        Ok(ok)
    }

    /// Binds choice `i` to `v` (written `arg` in the move) and, if its
    /// `where` holds, enumerates the choices after it. True when the sink
    /// wants no more moves.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn try_choice(
        &mut self,
        def: &MoveDef,
        i: usize,
        mv: &mut Move,
        f: &Frame,
        sink: &mut Sink,
        v: Value,
        arg: i32,
    ) -> Res<bool> {
        self.tick()?;
        self.bind_params(def, i, mv);
        let p = &def.params[i];
        self.locals[p.slot as usize] = v;
        // The `where` draws from the candidate's own stream; what is around
        // it draws on as if it had not been asked.
        if !self.in_stream(mv, i, arg as i64, |e| e.choice_ok(p, f))? {
            return Ok(false);
        }
        mv.args[i] = arg;
        self.enumerate(def, i + 1, mv, f, sink)?;
        Ok(sink.done())
    }

    /// `work` done in the stream of draws of choice `i` (see
    /// [`crate::engine::where_draws`]): the values chosen before it, then
    /// `last` (its value, for its `where`; a marker, for a part of its
    /// domain). The draws around it go on as they were.
    fn in_stream<T>(&mut self, mv: &Move, i: usize, last: i64, work: impl FnOnce(&mut Self) -> Res<T>) -> Res<T> {
        let draws = self.draws;
        let values = mv.args[..i].iter().map(|&a| a as i64).chain([last]);
        self.draws = crate::engine::where_draws(mv.def, values);
        let r = work(self);
        self.draws = draws;
        r
    }

    pub(super) fn enumerate(&mut self, def: &MoveDef, i: usize, mv: &mut Move, f: &Frame, sink: &mut Sink) -> Res<()> {
        if i == def.params.len() {
            return self.leaf(def, *mv, f, 1, sink);
        }
        // An error met by the choice, or the choices and trials after it,
        // is shown at the choice unless a place inside was given first.
        self.choose(def, i, mv, f, sink).map_err(|x| x.within(def.params[i].span))
    }

    /// The values of choice `i`: each bound and tested, and the choices
    /// after it enumerated.
    fn choose(&mut self, def: &MoveDef, i: usize, mv: &mut Move, f: &Frame, sink: &mut Sink) -> Res<()> {
        let p = &def.params[i];
        // Bind earlier choices again: evaluation of later domains may use them.
        self.bind_params(def, i, mv);
        match &p.domain {
            Domain::Range(a, b) => {
                let part = crate::engine::DOMAIN_PART;
                let lo = self.in_stream(mv, i, part, |e| e.eval(a, f))?.int()?;
                let hi = self.in_stream(mv, i, part + 1, |e| e.eval(b, f))?.int()?;
                check_choice_range(lo, hi, &def.name, &p.name)?;
                for v in lo..=hi {
                    if self.try_choice(def, i, mv, f, sink, Value::Int(v), v as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Set(s) => {
                let set = self.in_stream(mv, i, crate::engine::DOMAIN_PART, |e| e.eval(s, f))?;
                let n = self.set_len(set)?;
                for k in 0..n {
                    let site = self.set_item(set, k)?;
                    if self.try_choice(def, i, mv, f, sink, Value::Site(site), site as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Players => {
                for pl in 0..self.game.players.len() as u8 {
                    if self.try_choice(def, i, mv, f, sink, Value::Player(pl), pl as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Tracks => {
                for t in 0..self.game.tracks.len() as u16 {
                    if self.try_choice(def, i, mv, f, sink, Value::Track(t), t as i32)? {
                        return Ok(());
                    }
                }
            }
            Domain::Walk { .. } => return Err(Fault::error("a walk is no choice".into())),
            Domain::Arrangements(site) => {
                // The last choice: every order of the site's colours, as one group.
                let s = self.in_stream(mv, i, crate::engine::DOMAIN_PART, |e| e.eval(site, f))?.site()?;
                self.read(s);
                let (k, counts) = self.colours_of(s);
                let n = arrange::multinomial(&counts[..k]).ok_or_else(|| {
                    Fault::error(format!(
                        "`{}` holds too many counters to number their orders",
                        self.game.sites[s as usize].name
                    ))
                })?;
                mv.args[i] = 0;
                mv.order = 0;
                return self.leaf(def, *mv, f, n, sink);
            }
        }
        Ok(())
    }

    /// The next number drawn from the game's seed. It depends only on the
    /// seed, the ply and how many draws this move made before, so a move that
    /// is tried and then made draws the same numbers both times.
    pub(super) fn random(&mut self) -> u64 {
        self.draws = self.draws.wrapping_add(1);
        let mut z = self.seed
            ^ (self.pos.turn.ply as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self.draws.wrapping_mul(0xD1B5_4A32_D192_ED03);
        // SplitMix64's finaliser.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// How many times the current position occurred before in this game
    /// (the same counters, state and player to move, in the same phase).
    pub(super) fn repetitions(&self) -> usize {
        let (n, v) = (self.pos.counts.len(), self.pos.vars.len());
        (0..self.undo_turns.len())
            .filter(|&k| {
                let t = self.undo_turns[k];
                t.to_move == self.pos.turn.to_move
                    && t.phase == self.pos.turn.phase
                    && self.undo_counts[k * n..(k + 1) * n] == self.pos.counts[..]
                    && self.undo_vars[k * v..(k + 1) * v] == self.pos.vars[..]
            })
            .count()
    }

    /// The seed `random` draws from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Sets the seed `random` draws from (the game's `--seed`).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// The glyph a site is drawn with: the first `glyph` whose condition holds.
    pub fn glyph(&mut self, s: SiteId) -> Option<String> {
        let g = self.game.clone();
        let f = Frame::new(self.pos.turn.to_move);
        for (text, cond) in &g.glyphs {
            self.locals[g.glyph_slot as usize] = Value::Site(s);
            if self.eval(cond, &f).map(|v| v.truthy()).unwrap_or(false) {
                return Some(text.clone());
            }
        }
        None
    }

    /// The index of the table of fixed skip clauses for this sowing, mover
    /// and track, made on first use.
    pub(super) fn skip_mask(&mut self, clauses: &[Expr], it: u8, f: &Frame, t: u16) -> Res<usize> {
        let key = (clauses.as_ptr() as usize, f.mover, t);
        if let Some(i) = self.skip_masks.iter().position(|(k, _)| *k == key) {
            return Ok(i);
        }
        let g = self.game.clone();
        let mut mask = Vec::with_capacity(g.tracks[t as usize].sites.len());
        for &site in &g.tracks[t as usize].sites {
            self.locals[it as usize] = Value::Site(site);
            let mut skip = false;
            for c in clauses {
                if self.eval(c, f)?.truthy() {
                    skip = true;
                    break;
                }
            }
            mask.push(skip);
        }
        self.skip_masks.push((key, mask));
        Ok(self.skip_masks.len() - 1)
    }

    /// A per-site state variable kept for one kind of site has no value for
    /// a site of another kind.
    pub(super) fn check_kind(&self, var: u16, site: usize) -> Res<()> {
        let v = &self.game.state[var as usize];
        match v.kind {
            Some(k) if self.game.sites[site].kind != k => Err(Fault::error(format!(
                "`{}` is kept for every {}; `{}` is a {}",
                v.name,
                k.word(),
                self.game.sites[site].name,
                self.game.sites[site].kind.word()
            ))),
            _ => Ok(()),
        }
    }

    pub(super) fn tick(&mut self) -> Res<()> {
        self.spend(1)
    }

    /// Takes `n` steps of work at once.
    pub(super) fn spend(&mut self, n: u64) -> Res<()> {
        if self.fuel < n {
            self.fuel = 0;
            return Err(Fault::error(format!(
                "the rules ran for more than {FUEL} steps in one call: a loop that never ends, or loops nested too deep"
            )));
        }
        self.fuel -= n;
        Ok(())
    }

    /// The steps of work left in this call.
    #[cfg(test)]
    pub(crate) fn fuel_left(&self) -> u64 {
        self.fuel
    }

    pub(super) fn bind_params(&mut self, def: &MoveDef, upto: usize, mv: &Move) {
        for (j, pj) in def.params[..upto].iter().enumerate() {
            self.locals[pj.slot as usize] = arg_value(pj, mv.args[j]);
        }
    }

    pub(super) fn choice_ok(&mut self, p: &Param, f: &Frame) -> Res<bool> {
        match &p.filter {
            None => Ok(true),
            Some(c) => Ok(self.eval(c, f)?.truthy()),
        }
    }

    /// The counts of each colour in a site.
    pub(super) fn colours_of(&self, s: SiteId) -> (usize, [u32; arrange::MAX_COLOURS]) {
        let c = self.game.colours.min(arrange::MAX_COLOURS);
        let mut out = [0u32; arrange::MAX_COLOURS];
        for (k, o) in out.iter_mut().enumerate().take(c) {
            *o = self.colour_count(s, k as u8).max(0) as u32;
        }
        (c, out)
    }

    // ---- names ----------------------------------------------------------

    /// The name a player types for a move: its declaration's template filled
    /// in, an order of colours written as the colours' letters.
    pub fn move_name(&mut self, mv: Move) -> String {
        self.render_name(mv, true)
    }

    /// A move's name without its order of colours.
    pub(super) fn group_name(&mut self, mv: Move) -> String {
        self.render_name(mv, false)
    }

    pub(super) fn has_order(&self, mv: Move) -> bool {
        self.game
            .moves
            .get(mv.def as usize)
            .is_some_and(|d| d.params.iter().any(|p| matches!(p.domain, Domain::Arrangements(_))))
    }

    /// The counts of colours an arrangement choice of `mv` orders.
    pub(super) fn order_counts(&mut self, mv: Move) -> Res<(usize, [u32; arrange::MAX_COLOURS])> {
        let g = self.game.clone();
        let def = &g.moves[mv.def as usize];
        let Some(i) = def.params.iter().position(|p| matches!(p.domain, Domain::Arrangements(_))) else {
            return Ok((0, [0; arrange::MAX_COLOURS]));
        };
        let Domain::Arrangements(site) = &def.params[i].domain else { unreachable!() };
        self.bind_params(def, def.params.len(), &mv);
        // In the stream its listing worked it out in (see `enumerate`).
        let f = Frame::new(self.pos.turn.to_move);
        let s = self.in_stream(&mv, i, crate::engine::DOMAIN_PART, |e| e.eval(site, &f))?.site()?;
        Ok(self.colours_of(s))
    }

    /// The text before and after the order of colours in a move's name.
    pub(super) fn order_frame(&mut self, mv: Move) -> Option<(String, String)> {
        let g = self.game.clone();
        let def = g.moves.get(mv.def as usize)?;
        let at = def.template.iter().position(
            |t| matches!(t, TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_))),
        )?;
        let render = |parts: &[TemplatePart]| {
            let mut s = String::new();
            for part in parts {
                match part {
                    TemplatePart::Text(t) => s.push_str(t),
                    TemplatePart::Param(i) => s.push_str(&param_text(&g, def, *i, mv.args[*i])),
                }
            }
            s
        };
        Some((render(&def.template[..at]), render(&def.template[at + 1..])))
    }

    pub(super) fn render_name(&mut self, mv: Move, with_order: bool) -> String {
        if mv.is_pass() {
            return "pass".into();
        }
        let g = self.game.clone();
        let Some(def) = g.moves.get(mv.def as usize) else {
            return "?".into();
        };
        let mut s = String::new();
        for part in &def.template {
            match part {
                TemplatePart::Text(t) => s.push_str(t),
                TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_)) => {
                    if with_order {
                        s.push_str(&self.order_text(mv));
                    }
                }
                TemplatePart::Param(i) => s.push_str(&param_text(&g, def, *i, mv.args[*i])),
            }
        }
        if !with_order {
            return s.trim_end().to_string();
        }
        s
    }

    /// A move's order of colours as letters, e.g. `rrbg`.
    pub(super) fn order_text(&mut self, mv: Move) -> String {
        let Ok((k, counts)) = self.order_counts(mv) else {
            return "?".into();
        };
        let Some(mut u) = arrange::Unrank::new(&counts[..k], mv.order) else {
            return "?".into();
        };
        std::iter::from_fn(|| u.next_colour())
            .map(|c| self.game.colour_letters.get(c).copied().unwrap_or('?'))
            .collect()
    }
}
