//! Sowing, lowered. A sowing runs along a table of next sites made once per
//! statement, track and mover, with its fixed skip clauses already applied;
//! when its other skips read only state, along a table made for that
//! state's values and kept in the Vm until they change (`table.rs`).
//! Its skips are asked counter by counter only when they read more, or when
//! `each` runs there. The commonest sowing (every counter of a site, one
//! lap, fixed skips, one colour) is a closure of its own; a lap with its
//! table alone to go by (most laps of a relay) takes a short road of its
//! own (`Sow::simple_lap`), and the laps of the commonest relay run
//! in one loop (`relay.rs`).

mod relay;
mod table;

use relay::{Relay, relay_rest};
use table::FlagSkip;

use super::expr::{Leaf, Opnd};
use super::shapes::{Index, K, Local};
use super::{Block, Fst, Lower, Program, run};
use crate::engine::arrange;
use crate::engine::game::{Expr, SiteId, Stmt, Track, Type};
use crate::engine::vm::{Fault, Res, SowTable, Vm};

/// Past the end of a linear track, in a sowing table.
pub(crate) const OFF: u16 = u16::MAX;

/// Sows `n` counters of one colour along `track` from the place after
/// `pos`, by a table, and past the place `except` too: whole laps of a
/// cyclic track are added at once. `Err(None)`: every place of a cyclic
/// track is skipped. The counts and the frame alone, so that a table kept
/// in the machine can be read while they are written.
fn sow_counts(
    counts: &mut [i32],
    f: &mut crate::engine::vm::Frame,
    track: &Track,
    tab: &SowTable,
    mut pos: usize,
    mut n: i32,
    except: Option<usize>,
) -> Result<(), Option<Fault>> {
    let except = except.filter(|&x| !tab.skipped[x]);
    let live = tab.live - except.is_some() as usize;
    if track.cyclic && n as usize > live {
        if live == 0 {
            return Err(None);
        }
        let laps = (n - 1) / live as i32;
        for (i, (&site, &skip)) in track.sites.iter().zip(tab.skipped.iter()).enumerate() {
            if !skip && except != Some(i) {
                counts[site as usize] += laps;
            }
        }
        n -= laps * live as i32;
    }
    while n > 0 {
        let nx = tab.next[pos];
        if nx == OFF {
            return Err(Some(Fault::ILLEGAL));
        }
        pos = nx as usize;
        if except != Some(pos) {
            counts[track.sites[pos] as usize] += 1;
            n -= 1;
        }
    }
    f.last = track.sites[pos];
    f.last_colour = 0;
    Ok(())
}

/// [`sow_counts`] from the site `s`, for a table by site (`tab.succ`),
/// with no place left out: a counter a step, each a look-up and an add;
/// on a cyclic track with `RING`, by its ring. The caller has refused a
/// cyclic track whose every place is skipped. `last`, set in the frame, is
/// given back too: a relay's next lap starts from it in a register (read
/// back from the frame, it waited on the store: ~3% of the time of games
/// of long relays).
#[inline(always)]
fn sow_sites<const RING: bool>(
    counts: &mut [i32],
    f: &mut crate::engine::vm::Frame,
    track: &Track,
    tab: &SowTable,
    s: SiteId,
    mut n: i32,
) -> Res<SiteId> {
    if track.cyclic && n as usize > tab.live {
        // Whole laps at once, to every live site.
        let laps = (n - 1) / tab.live as i32;
        for &site in &tab.ring[..tab.live] {
            counts[site as usize] += laps;
        }
        n -= laps * tab.live as i32;
    }
    if RING && track.cyclic {
        // At most a lap left: the next `n` live sites, in a row of the
        // ring (see `SowTable::ring`), each counter's site known without
        // the one before it.
        let last = match n > 0 {
            true => {
                let from = tab.from[s as usize] as usize;
                let row = &tab.ring[from..from + n as usize];
                for &x in row {
                    counts[x as usize] += 1;
                }
                row[row.len() - 1]
            }
            false => s,
        };
        f.last = last;
        f.last_colour = 0;
        return Ok(last);
    }
    let succ = &tab.succ[..];
    let mut at = s as usize;
    if track.cyclic {
        // Every place leads to a live one: no end to look for.
        for _ in 0..n {
            at = succ[at] as usize;
            counts[at] += 1;
        }
    } else {
        for _ in 0..n {
            let nx = succ[at];
            if nx == OFF {
                return Err(Fault::ILLEGAL);
            }
            at = nx as usize;
            counts[at] += 1;
        }
    }
    f.last = at as SiteId;
    f.last_colour = 0;
    Ok(at as SiteId)
}

/// Sows `n` counters lifted from `s` by `tab`: site by site when it has a
/// table by site, else place by place (`last` read back from the frame
/// then: [`sow_counts`] is out of line, and gave up more than it saved when
/// it gave `last` back: +0.8% in the instructions of a relay whose laps
/// all go that way). `last` given back as [`sow_sites`] gives it,
/// `Err(None)` as [`sow_counts`].
/// `RING`: by the ring of a cyclic track (see [`sow_sites`]), for the laps
/// made by a table alone (`Sow::simple_lap`, [`relay`]'s), most of them a
/// relay's, whose counts grow as it goes; the commonest sowing
/// ([`plain_sowing`]) follows the table by site (a lap of a few counters,
/// as most of those are, gained no time by the ring and cost 14
/// instructions more a ply).
#[inline(always)]
fn sow_by<const RING: bool>(
    counts: &mut [i32],
    f: &mut crate::engine::vm::Frame,
    track: &Track,
    tab: &SowTable,
    s: SiteId,
    n: i32,
) -> Result<SiteId, Option<Fault>> {
    if !tab.succ.is_empty() {
        return sow_sites::<RING>(counts, f, track, tab, s, n).map_err(Some);
    }
    let pos = track.position[s as usize].map_or(track.sites.len(), |x| x as usize);
    sow_counts(counts, f, track, tab, pos, n, None)?;
    Ok(f.last)
}

/// The commonest sowing (see [`Lower::sow`]): every counter of the site
/// `src` along the track `trk`, its skips fixed.
fn plain_sowing<S: Index, T: Index>(src: S, trk: T, sow: Sow) -> Fst {
    Box::new(move |p, vm| {
        let s = src.index(p, vm, "a site")? as SiteId;
        let t = trk.index(p, vm, "a track")? as u16;
        vm.read(s);
        let n = vm.pos.counts[s as usize];
        if n <= 0 {
            return Err(Fault::ILLEGAL);
        }
        vm.f.origin = s;
        vm.pos.counts[s as usize] = 0;
        let (track, tab) = sow.table(p, vm, t)?;
        sow_by::<false>(&mut vm.pos.counts, &mut vm.f, track, tab, s, n)
            .map(drop)
            .map_err(|f| f.unwrap_or_else(|| all_skipped(p, t)))
    })
}

#[cold]
fn all_skipped(p: &Program, t: u16) -> Fault {
    Fault::error(format!(
        "every site of track `{}` is skipped: the sowing cannot go on",
        p.game.tracks[t as usize].name
    ))
}

impl Lower<'_> {
    pub(super) fn sow(&mut self, s: &SowDef) -> Fst {
        let src = self.opnd(s.source);
        let trk = self.opnd(s.track);
        let amount = s.amount.map(|a| self.opnd(a));
        let start = s.start.map(|x| self.opnd(x));
        let relay = s.relay.map(|r| Relay {
            from: r.from.as_ref().map(|x| self.opnd(x)),
            cond: self.opnd(&r.cond),
            max: r.max.as_ref().map(|x| self.opnd(x)),
        });
        let each = self.block(s.each);
        let lap_end = self.block(s.lap);
        let it = s.it as usize;
        self.slots[it] = Type::Site;
        let fixed: Vec<Opnd> = s.fixed_skips.iter().map(|e| self.opnd(e)).collect();
        // One clause `it == x`, with `x` the same all lap long: its site is
        // found once a lap (not with `each`, whose statements may change `x`).
        let found = match s.each.is_empty() {
            true => s.skips.iter().enumerate().find_map(|(k, e)| self.g.skipped_site(e, s.it).map(|x| (k, x))),
            false => None,
        };
        let except_at = found.map(|(k, _)| k);
        let except = found.map(|(_, x)| self.opnd(x));
        let others: Vec<&Expr> =
            s.skips.iter().enumerate().filter(|&(k, _)| Some(k) != except_at).map(|(_, e)| e).collect();
        let dynamic: Vec<Opnd> = others.iter().map(|e| self.opnd(e)).collect();
        let flags = match others.is_empty() {
            true => None,
            false => others.iter().map(|e| self.flag_skip(e, s.it)).collect::<Option<Box<[FlagSkip]>>>(),
        };
        let all: Vec<Opnd> = match except_at {
            Some(_) => s.skips.iter().map(|e| self.opnd(e)).collect(),
            None => Vec::new(),
        };
        let mut ranges = Vec::new();
        let keyed =
            (!others.is_empty() && s.each.is_empty() && others.iter().all(|e| self.g.skip_reads(e, s.it, &mut ranges)))
                .then(|| {
                    ranges.sort_unstable();
                    ranges.dedup();
                    ranges.into_boxed_slice()
                });
        // This statement's tables: one per track and mover, from `base`.
        let base = self.sow_cells;
        self.sow_cells += self.g.tracks.len() * self.g.players.len().max(1);
        let np = self.g.players.len().max(1);
        let except = except.map(|x| (x, except_at.unwrap_or(0), all));
        let simple = start.is_none()
            && s.each.is_empty()
            && except.is_none()
            && self.g.colours == 1
            && (dynamic.is_empty() || keyed.is_some());
        // Skips that read per-site state alone: their tables are good while
        // its version stands, whatever a value of one value does.
        let per_site = self.g.site_state_slots();
        let by_sites = keyed.as_ref().is_some_and(|r| per_site > 0 && r.iter().all(|&(a, l)| a + l <= per_site));
        let sow = Sow {
            trk,
            start,
            fixed,
            dynamic,
            flags,
            except,
            keyed,
            by_sites,
            each,
            it,
            ordered: s.ordered,
            base,
            np,
            simple,
        };
        // The commonest sowing: every counter of a site of one colour, one
        // lap, skips fixed for the track and mover: `Sow::lap`'s steps for
        // that case alone, in its order.
        let plain = amount.is_none()
            && relay.is_none()
            && lap_end.is_empty()
            && sow.start.is_none()
            && sow.each.is_empty()
            && sow.dynamic.is_empty()
            && sow.except.is_none()
            && self.g.colours == 1;
        if plain {
            // Its source and track read in place in their commonest shapes.
            let mut sow = sow;
            let trk = std::mem::replace(&mut sow.trk, Opnd::Leaf(Leaf::Const(0)));
            return match (src, trk) {
                (Opnd::Leaf(Leaf::Local(s)), Opnd::Leaf(Leaf::Const(t))) => plain_sowing(Local(s), K(t), sow),
                (src, Opnd::Leaf(Leaf::Const(t))) => plain_sowing(src, K(t), sow),
                (src, trk) => plain_sowing(src, trk, sow),
            };
        }
        // A relay of laps with nothing but their table to go by, on from
        // `last` while it is of a kind and holds enough: its laps in one
        // loop (see `relay.rs`).
        let steady = sow.simple && lap_end.is_empty();
        if let Some(test) = s.relay.and_then(|r| self.fused_test(r, s.track, steady)) {
            let relay = relay.expect("a relay: its condition was read");
            return relay::fused(src, amount, relay, test, sow);
        }
        Box::new(move |p, vm| {
            let s = src.site(p, vm)?;
            let n = match &amount {
                Some(a) => Some(a.get(p, vm)?),
                None => None,
            };
            let max = match relay.as_ref().and_then(|r| r.max.as_ref()) {
                Some(m) => m.get(p, vm)?,
                None => i64::MAX,
            };
            sow.lap(p, vm, s, n, true)?;
            if !lap_end.is_empty() {
                run(&lap_end, p, vm)?;
            }
            match &relay {
                Some(r) => relay_rest(p, vm, &sow, r, &lap_end, max),
                None => Ok(()),
            }
        })
    }
}

/// The parts of a `sow` statement, as the compiler gives them.
pub(crate) struct SowDef<'a> {
    pub amount: Option<&'a Expr>,
    pub source: &'a Expr,
    pub track: &'a Expr,
    pub start: Option<&'a Expr>,
    pub it: u8,
    pub ordered: bool,
    pub fixed_skips: &'a [Expr],
    pub skips: &'a [Expr],
    pub relay: Option<&'a crate::engine::game::Relay>,
    pub each: &'a [Stmt],
    pub lap: &'a [Stmt],
}

/// What a lap sown counter by counter goes by: its track (`t`) and fixed
/// table, the skips asked at each counter, and the place a clause `it == x`
/// skips (`except`) with that clause's place among them (`except_at`).
#[derive(Clone, Copy)]
struct OneByOne<'a> {
    t: u16,
    track: &'a Track,
    tab: &'a SowTable,
    dynamic: &'a [Opnd],
    except: Option<usize>,
    except_at: usize,
    /// Whether this is a sowing's first lap (which takes no work).
    first: bool,
}

/// A sowing, lowered: one lap at a time.
struct Sow {
    trk: Opnd,
    start: Option<Opnd>,
    fixed: Vec<Opnd>,
    /// The skips asked as the sowing goes (but the one of `except`).
    dynamic: Vec<Opnd>,
    /// The same, when each is a condition kept for each site, perhaps for
    /// sites of one kind alone: read in place when a kept table is made.
    flags: Option<Box<[FlagSkip]>>,
    /// A clause `it == x` whose `x` a lap does not change: `x`, the
    /// clause's place among the skips, and all the skips in their order
    /// (asked one by one should `x` go wrong, so it goes wrong where and
    /// only if it would have).
    except: Option<(Opnd, usize, Vec<Opnd>)>,
    /// When every skip of `dynamic` reads only state (and what is fixed):
    /// the places of that state, for the tables kept in `Vm::kept`.
    keyed: Option<Box<[(usize, usize)]>>,
    /// Whether all of `keyed` is per-site state: its tables then go by
    /// [`Vm::sites_version`], which a change of a value of one value (a
    /// hand, a flag set at every move) keeps.
    by_sites: bool,
    each: Block,
    it: usize,
    ordered: bool,
    /// The first of this statement's sowing tables, and players.
    base: usize,
    np: usize,
    /// One colour, no `starting at`, no `each`, no clause `it == x`, and
    /// every skip fixed or reading only state: a lap is lifted and sown by
    /// a table ([`Sow::simple_lap`]; a relay's laps are most of these).
    simple: bool,
}

impl Sow {
    /// Lifts `n` counters of `s` (all, if none given) and sows them. The
    /// first lap sows colours in the move's order (`in order`); a relay's
    /// later laps in seat order.
    fn lap(&self, p: &Program, vm: &mut Vm, s: SiteId, n: Option<i64>, first: bool) -> Res<()> {
        if self.simple {
            return self.simple_lap(p, vm, s, n, first);
        }
        let t = self.trk.track(p, vm)?;
        vm.read(s);
        let have = vm.count(s);
        let n = n.unwrap_or(have as i64);
        if n <= 0 || n > have as i64 {
            return Err(Fault::ILLEGAL);
        }
        let n = n as i32;
        vm.f.origin = s;
        // The colours lifted, in the order they are sown.
        let mut order = None;
        if vm.colours == 1 {
            vm.pos.counts[s as usize] -= n;
        } else {
            let k = vm.colours.min(arrange::MAX_COLOURS);
            let mut lifted = [0u32; arrange::MAX_COLOURS];
            for (c, l) in lifted.iter_mut().enumerate().take(k) {
                *l = vm.colour_count(s, c as u8).max(0) as u32;
            }
            if n < have {
                // Part of a coloured site: colours in seat order.
                let mut left = n as u32;
                for c in lifted.iter_mut().take(k) {
                    let take = (*c).min(left);
                    *c = take;
                    left -= take;
                }
            }
            let rank = if self.ordered && first { vm.f.order } else { 0 };
            order = Some(arrange::Unrank::new(&lifted[..k], rank).ok_or_else(|| {
                Fault::error(format!("no order {rank} of the counters in `{}`", p.game.sites[s as usize].name))
            })?);
            for (c, &m) in lifted.iter().enumerate().take(k) {
                vm.add(s, c, -(m as i32));
            }
        }
        let (track, tab) = self.table(p, vm, t)?;
        let len = track.sites.len();
        // The place a clause `it == x` skips, found once (`None`: no such
        // clause, or `x` is on no place of the track); should `x` go wrong,
        // every skip is asked at each counter, in order.
        let mut dynamic = &self.dynamic[..];
        let mut except = None;
        let mut except_at = usize::MAX;
        if let Some((x, at, all)) = &self.except {
            match x.get(p, vm) {
                Ok(v) => {
                    except = usize::try_from(v)
                        .ok()
                        .and_then(|v| track.position.get(v).copied().flatten())
                        .map(|i| i as usize);
                    except_at = *at;
                }
                Err(_) => dynamic = all,
            }
        }
        // Sowing goes on from the place after `pos` (`len`: before the first).
        let pos = match &self.start {
            None => track.position[s as usize].map_or(len, |x| x as usize),
            // `starting at X`: the place before X's, so X comes first.
            Some(x) => {
                let x = x.site(p, vm)?;
                match track.position[x as usize] {
                    Some(0) => {
                        if track.cyclic {
                            len - 1
                        } else {
                            len
                        }
                    }
                    Some(i) => i as usize - 1,
                    None => {
                        return Err(Fault::error(format!(
                            "a sowing starting at `{}`, which is not on track `{}`",
                            p.game.sites[x as usize].name, track.name
                        )));
                    }
                }
            }
        };
        // A sowing takes no work from the budget: it ends when the
        // counters lifted run out, however many there are.
        let tabulated = self.except.is_none() || except_at != usize::MAX;
        if order.is_none() && self.each.is_empty() && tabulated {
            // The common case: one colour, every skip tabulated.
            if self.dynamic.is_empty() {
                return sow_counts(&mut vm.pos.counts, &mut vm.f, track, tab, pos, n, except)
                    .map_err(|f| f.unwrap_or_else(|| all_skipped(p, t)));
            }
            // Skips that read state: a table made for its values.
            if let Some(ranges) = &self.keyed {
                let at = self.base + t as usize * self.np + vm.f.mover as usize;
                if self.keep_table(p, vm, at, track, tab, ranges) {
                    let kept = &vm.kept[at].tab;
                    if kept.live == 0 && track.cyclic {
                        return Err(all_skipped(p, t));
                    }
                    return sow_counts(&mut vm.pos.counts, &mut vm.f, track, kept, pos, n, except)
                        .map_err(|f| f.unwrap_or_else(|| all_skipped(p, t)));
                }
            }
        }
        let by = OneByOne { t, track, tab, dynamic, except, except_at, first };
        self.one_by_one(p, vm, &by, pos, n, order)
    }

    /// The start of a lap with nothing but its table to go by (see
    /// `simple`): its track, and `n` counters of `s` (all, if none given)
    /// lifted, `s` the lap's origin; how many.
    #[inline(always)]
    fn lift(&self, p: &Program, vm: &mut Vm, s: SiteId, n: Option<i64>) -> Res<(u16, i32)> {
        let t = self.trk.track(p, vm)?;
        vm.read(s);
        let have = vm.pos.counts[s as usize];
        let n = n.unwrap_or(have as i64);
        if n <= 0 || n > have as i64 {
            return Err(Fault::ILLEGAL);
        }
        let n = n as i32;
        vm.f.origin = s;
        vm.pos.counts[s as usize] -= n;
        Ok((t, n))
    }

    /// A lap with nothing but its table to go by (see `simple`): the
    /// counters of `s` (`n` of them if given) lifted and sown.
    #[inline(always)]
    fn simple_lap(&self, p: &Program, vm: &mut Vm, s: SiteId, n: Option<i64>, first: bool) -> Res<()> {
        let (t, n) = self.lift(p, vm, s, n)?;
        let (track, tab) = self.table(p, vm, t)?;
        // Skips that read state: the table kept for its values.
        let tab = match &self.keyed {
            None => tab,
            Some(ranges) => {
                let at = self.base + t as usize * self.np + vm.f.mover as usize;
                if !self.keep_table(p, vm, at, track, tab, ranges) {
                    // A skip went wrong somewhere: asked site by site.
                    let pos = track.position[s as usize].map_or(track.sites.len(), |x| x as usize);
                    let (dynamic, except, except_at) = (&self.dynamic[..], None, usize::MAX);
                    let by = OneByOne { t, track, tab, dynamic, except, except_at, first };
                    return self.one_by_one(p, vm, &by, pos, n, None);
                }
                let kept = &vm.kept[at].tab;
                if kept.live == 0 && track.cyclic {
                    return Err(all_skipped(p, t));
                }
                kept
            }
        };
        sow_by::<true>(&mut vm.pos.counts, &mut vm.f, track, tab, s, n)
            .map(drop)
            .map_err(|f| f.unwrap_or_else(|| all_skipped(p, t)))
    }

    /// Counters sown one by one run the rule file's conditions or
    /// statements at each. A first lap sows what was lifted, however much
    /// (a legal move is not refused for its size); the laps of a relay are
    /// work, or many laps of a huge count would run for hours.
    fn one_by_one(
        &self,
        p: &Program,
        vm: &mut Vm,
        by: &OneByOne,
        mut pos: usize,
        n: i32,
        mut order: Option<arrange::Unrank>,
    ) -> Res<()> {
        let OneByOne { t, track, tab, dynamic, except, except_at, first } = *by;
        let len = track.sites.len();
        if !first && vm.fuel < n as u64 {
            vm.fuel = 0;
            return Err(Fault::error(format!(
                "a relay lap of {n} counters sown one by one (for `each`, a skip that changes as the sowing goes, or colours) \
                 would take the move past the {} steps it may take",
                crate::engine::vm::FUEL
            )));
        }
        if !first {
            vm.fuel -= n as u64;
        }
        let mut left = n;
        let mut idle = 0;
        while left > 0 {
            let nx = tab.next[pos];
            if nx == OFF {
                return Err(Fault::ILLEGAL);
            }
            pos = nx as usize;
            let site = track.sites[pos];
            if !dynamic.is_empty() || except.is_some() {
                vm.locals[self.it] = site as i64;
                // The clauses in their order, `it == x` in its place.
                let mut skip = false;
                for (k, c) in dynamic.iter().enumerate() {
                    if k == except_at && except == Some(pos) {
                        skip = true;
                        break;
                    }
                    if c.get(p, vm)? != 0 {
                        skip = true;
                        break;
                    }
                }
                skip |= except_at >= dynamic.len() && except == Some(pos);
                if skip {
                    idle += 1;
                    if idle > len {
                        return Err(all_skipped(p, t));
                    }
                    continue;
                }
            }
            idle = 0;
            let colour = order.as_mut().and_then(|u| u.next_colour()).unwrap_or(0);
            vm.add(site, colour, 1);
            left -= 1;
            vm.f.last = site;
            vm.f.last_colour = colour as u8;
            if !self.each.is_empty() {
                run(&self.each, p, vm)?;
            }
        }
        Ok(())
    }
}
