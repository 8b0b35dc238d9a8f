//! A sowing's tables: the next live place after each place of a track,
//! made once per statement, track and mover for the skips fixed when the
//! game is compiled, and, when the other skips read only state, made for
//! that state's values and kept in the machine until they change
//! (`Sow::keep_table`), and a few made for earlier values beside it, for
//! when those come back. A skip of the commonest such shape, a condition
//! kept for each site (`skip it is pit and burnt(it)`), is read in place
//! while the table is made ([`FlagSkip`]).

use std::sync::OnceLock;

use super::super::expr::Opnd;
use super::super::state::StateRead;
use super::super::{Lower, Program};
use super::{OFF, Sow, all_skipped};
use crate::engine::game::{BinOp, Expr, SiteId, Track, Type, Value};
use crate::engine::vm::{Fault, KeptTable, Res, SowTable, SpareTables, Vm};

impl SowTable {
    /// A statement's fixed table for `track` (never changed once made, so
    /// it also gets the table by site, `succ`, and its ring).
    fn new(skipped: &[bool], track: &Track, sites: usize) -> SowTable {
        let mut t = SowTable::default();
        t.fill(skipped, track.cyclic);
        t.by_site(track, sites);
        t
    }

    /// Makes `succ` from `next` when the track passes each site once
    /// (else leaves it empty), and on a cyclic track with a live place
    /// `ring` and `from` too (else leaves them empty), reusing buffers.
    fn by_site(&mut self, track: &Track, sites: usize) {
        let site = |x: u16| if x == OFF { OFF } else { track.sites[x as usize] };
        let (next, len) = (&self.next, track.sites.len());
        // A site off the track goes where a source off it does; the
        // track's own sites are written over, place by place.
        self.succ.clear();
        self.ring.clear();
        self.from.clear();
        self.succ.resize(sites, site(next[len]));
        for (i, &s) in track.sites.iter().enumerate() {
            if track.position[s as usize] != Some(i as u16) {
                // The track passes `s` more than once: no table by site.
                self.succ.clear();
                return;
            }
            self.succ[s as usize] = site(next[i]);
        }
        if !track.cyclic || self.live == 0 {
            return;
        }
        // The live sites in order, twice over; the site after a place is
        // the live one that many live places up to it, round the ring
        // (after a site off the track, the first).
        let live = track.sites.iter().zip(&self.skipped).filter(|&(_, &k)| !k).map(|(&s, _)| s);
        self.ring.extend(live);
        self.ring.extend_from_within(..);
        self.from.resize(sites, 0);
        let mut seen = 0;
        for (&s, &skipped) in track.sites.iter().zip(&self.skipped) {
            seen += !skipped as usize;
            self.from[s as usize] = (seen % self.live) as u16;
        }
    }

    fn fill(&mut self, skipped: &[bool], cyclic: bool) {
        self.skipped.clear();
        self.skipped.extend_from_slice(skipped);
        self.link(cyclic);
    }

    /// Makes the places' next places for the places `skipped` holds
    /// (nothing allocated once it has been made for the track): the first
    /// live place after each, round to the first of the track if it is
    /// cyclic (perhaps the place itself), else off it; from off the track
    /// (`next[len]`), the first live place. One pass from the end.
    fn link(&mut self, cyclic: bool) {
        let skipped = &self.skipped;
        let len = skipped.len();
        let first = skipped.iter().position(|&s| !s).map_or(OFF, |i| i as u16);
        let next = &mut self.next;
        next.clear();
        next.resize(len + 1, OFF);
        next[len] = first;
        let mut after = if cyclic { first } else { OFF };
        let mut live = 0;
        for i in (0..len).rev() {
            next[i] = after;
            if !skipped[i] {
                after = i as u16;
                live += 1;
            }
        }
        self.live = live;
    }
}

/// The table of a sowing statement for a track and the mover, made on
/// first use (the caller takes it from `cell` once made).
#[cold]
#[inline(never)]
fn sow_table<'p>(
    p: &'p Program,
    vm: &mut Vm,
    cell: &'p OnceLock<SowTable>,
    t: u16,
    fixed: &[Opnd],
    it: usize,
) -> Res<&'p SowTable> {
    let track = &p.game.tracks[t as usize];
    let mut skipped = vec![false; track.sites.len()];
    for (i, &site) in track.sites.iter().enumerate() {
        vm.locals[it] = site as i64;
        for c in fixed {
            if c.get(p, vm)? != 0 {
                skipped[i] = true;
                break;
            }
        }
    }
    let _ = cell.set(SowTable::new(&skipped, track, track.position.len()));
    Ok(cell.get().expect("set just above"))
}

/// The state at `ranges` of `vars` as a key, in `key` (written over):
/// each value one word, its kind and its bits, so that equal values are
/// equal bytes and keys are compared by one `memcmp`.
fn state_key(ranges: &[(usize, usize)], vars: &[Value], key: &mut Vec<u128>) {
    let word = |v: &Value| {
        let (kind, x) = match *v {
            Value::None => (0u8, 0),
            Value::Int(n) => (1, n as u64),
            Value::Bool(b) => (2, b as u64),
            Value::Player(p) => (3, p as u64),
            Value::Site(s) => (4, s as u64),
            Value::Set(s) => (5, s as u64),
            Value::Track(s) => (6, s as u64),
            Value::Mask(m) => (7, m),
        };
        (kind as u128) << 64 | x as u128
    };
    key.clear();
    for &(a, l) in ranges {
        key.extend(vars[a..a + l].iter().map(word));
    }
}

/// A number for `key`: tables made for a key of another number were made
/// for another key (those of the same number are compared).
fn key_print(key: &[u128]) -> u64 {
    key.iter().fold(0, |h, &w| (h.rotate_left(5) ^ w as u64 ^ (w >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A skip that reads a condition kept for each site, of the site the
/// sowing reaches (`skip burnt(it)`), perhaps only of a kind of site
/// (`skip it is pit and burnt(it)`): asked as its expression is, kind
/// first, and going wrong where it would (a site of a kind the condition
/// is not kept for).
#[derive(Clone, Copy)]
pub(super) struct FlagSkip {
    kind: Option<u8>,
    read: StateRead,
}

impl FlagSkip {
    #[inline(always)]
    fn holds(self, p: &Program, vm: &Vm, s: SiteId) -> Res<bool> {
        if self.kind.is_some_and(|k| p.kinds[s as usize] != k) {
            return Ok(false);
        }
        Ok(self.read.at(p, vm, s)? != 0)
    }
}

/// Whether one of `flags` skips `site`, asked in order until one does.
#[inline(always)]
fn flag_skipped(flags: &[FlagSkip], p: &Program, vm: &Vm, site: SiteId) -> Res<bool> {
    for f in flags {
        if f.holds(p, vm, site)? {
            return Ok(true);
        }
    }
    Ok(false)
}

impl Lower<'_> {
    /// The skip `e` as a [`FlagSkip`], if it is one (`it` the sowing's site).
    pub(super) fn flag_skip(&self, e: &Expr, it: u8) -> Option<FlagSkip> {
        let is_it = |x: &Expr| matches!(x.unspanned(), Expr::Local(s) if *s == it);
        let flag = |x: &Expr| match x.unspanned() {
            Expr::SiteState(v, x) if is_it(x) && self.g.state[*v as usize].ty == Type::Bool => {
                Some(self.state_read(*v))
            }
            _ => None,
        };
        match e.unspanned() {
            Expr::Bin(BinOp::And, a, b) => match a.unspanned() {
                Expr::IsKind(x, k) if is_it(x) => Some(FlagSkip { kind: Some(k.index() as u8), read: flag(b)? }),
                _ => None,
            },
            e => Some(FlagSkip { kind: None, read: flag(e)? }),
        }
    }
}

impl Sow {
    /// Makes the table kept for this statement, track and mover (`at`, in
    /// `vm.kept`) current: made again if the state its skips read has
    /// changed since. False when a skip went wrong for some site of the
    /// track: then the sowing asks the skips site by site, so that a skip
    /// goes wrong only where the sowing reaches it.
    #[inline(always)]
    pub(super) fn keep_table(
        &self,
        p: &Program,
        vm: &mut Vm,
        at: usize,
        track: &Track,
        fixed: &SowTable,
        ranges: &[(usize, usize)],
    ) -> bool {
        // The same version of the state (a relay's later laps): the same
        // values, not compared, and the table not moved out and back.
        let version = if self.by_sites { vm.sites_version } else { vm.vars_version };
        match vm.kept.get(at) {
            Some(k) if k.made && k.version == version => {
                let ok = !k.failed;
                vm.claim_versions(self.by_sites);
                ok
            }
            _ => self.make_table(p, vm, (at, track, fixed, ranges), version),
        }
    }

    /// [`keep_table`](Self::keep_table) when the state's version is not the
    /// table's: the values compared, with the table's and then with the
    /// spares' (see [`SpareTables`]), and the table made again if none has
    /// them.
    #[inline(never)]
    fn make_table(
        &self,
        p: &Program,
        vm: &mut Vm,
        (at, track, fixed, ranges): (usize, &Track, &SowTable, &[(usize, usize)]),
        version: u64,
    ) -> bool {
        if vm.kept.len() <= at {
            vm.kept.resize_with(p.sow_tables.len(), KeptTable::default);
            vm.spare.resize_with(p.sow_tables.len(), SpareTables::default);
        }
        let (kept, spare) = (&mut vm.kept[at], &mut vm.spare[at]);
        state_key(ranges, &vm.pos.vars, &mut spare.key);
        // Made for these values before, perhaps kept among the spares
        // (then taken back, the table in use kept in its place): found in
        // place, nothing moved.
        let mut found = kept.made && kept.key == spare.key;
        let print = if found { kept.print } else { key_print(&spare.key) };
        if !found && let Some(i) = spare.tables.iter().position(|t| t.made && t.print == print && t.key == spare.key) {
            std::mem::swap(kept, &mut spare.tables[i]);
            found = true;
        }
        if found {
            kept.version = version;
            let ok = !kept.failed;
            vm.claim_versions(self.by_sites);
            return ok;
        }
        let mut kept = std::mem::take(kept);
        if kept.made {
            spare.keep(&mut kept);
        }
        kept.print = print;
        kept.key.clear();
        kept.key.extend_from_slice(&spare.key);
        kept.made = true;
        kept.failed = false;
        // The fixed skips first; then each site they leave is asked,
        // its skips in order until one holds.
        kept.tab.skipped.clear();
        kept.tab.skipped.extend_from_slice(&fixed.skipped);
        let it = vm.locals[self.it];
        for (i, &site) in track.sites.iter().enumerate() {
            if kept.tab.skipped[i] {
                continue;
            }
            let asked: Res<bool> = match &self.flags {
                Some(flags) => flag_skipped(flags, p, vm, site),
                None => {
                    vm.locals[self.it] = site as i64;
                    self.dynamic.iter().try_fold(false, |k, c| Ok(k || c.get(p, vm)? != 0))
                }
            };
            match asked {
                Ok(k) => kept.tab.skipped[i] = k,
                Err(_) => {
                    kept.failed = true;
                    break;
                }
            }
        }
        vm.locals[self.it] = it;
        if !kept.failed {
            kept.tab.link(track.cyclic);
            kept.tab.by_site(track, track.position.len());
        }
        kept.version = version;
        let ok = !kept.failed;
        vm.kept[at] = kept;
        vm.claim_versions(self.by_sites);
        ok
    }

    /// Track `t`, and this statement's table for it and the mover (made on
    /// first use): an error if the track has no sites, or if it is cyclic
    /// and every site is skipped.
    #[inline(always)]
    pub(super) fn table<'p>(&self, p: &'p Program, vm: &mut Vm, t: u16) -> Res<(&'p Track, &'p SowTable)> {
        let track = &p.game.tracks[t as usize];
        if track.sites.is_empty() {
            return Err(Fault::error(format!("track `{}` has no sites", track.name)));
        }
        let cell = &p.sow_tables[self.base + t as usize * self.np + vm.f.mover as usize];
        let tab = match cell.get() {
            Some(tab) => tab,
            None => sow_table(p, vm, cell, t, &self.fixed, self.it)?,
        };
        if tab.live == 0 && track.cyclic {
            return Err(all_skipped(p, t));
        }
        Ok((track, tab))
    }
}

#[cfg(test)]
mod tests {
    use super::{OFF, SowTable, state_key};
    use crate::engine::game::{Track, Value};

    fn track(sites: &[u16], board: usize, cyclic: bool) -> Track {
        let mut position = vec![None; board];
        for (i, &s) in sites.iter().enumerate().rev() {
            position[s as usize] = Some(i as u16);
        }
        Track { name: "t".into(), label: None, cyclic, sites: sites.to_vec(), position }
    }

    /// A key for the state a sowing's skips read: equal values, equal keys;
    /// values of different kinds with the same bits (`Int(1)` and
    /// `Bool(true)`, a site and a set of the same number, nothing and 0),
    /// different keys, and their tables not taken for each other.
    #[test]
    fn state_keys_are_equal_only_for_equal_values() {
        let values = [
            Value::None,
            Value::Int(0),
            Value::Int(1),
            Value::Int(-1),
            Value::Bool(false),
            Value::Bool(true),
            Value::Player(1),
            Value::Site(1),
            Value::Set(1),
            Value::Track(1),
            Value::Mask(1),
            Value::Mask(u64::MAX),
        ];
        let key = |vars: &[Value], ranges: &[(usize, usize)]| {
            let mut k = vec![7u128];
            state_key(ranges, vars, &mut k);
            k
        };
        for a in values {
            for b in values {
                let (ka, kb) = (key(&[a, Value::Int(5)], &[(0, 1)]), key(&[b], &[(0, 1)]));
                assert_eq!(ka == kb, a == b, "{a:?} and {b:?}");
                assert_eq!(ka.len(), 1, "written over");
            }
        }
        // Ranges in order, one word a value.
        let vars = [Value::Int(3), Value::Bool(true), Value::Site(2), Value::Int(4)];
        assert_eq!(key(&vars, &[(2, 2), (0, 1)]), key(&[Value::Site(2), Value::Int(4), Value::Int(3)], &[(0, 3)]));
        assert_ne!(key(&vars, &[(2, 2), (0, 1)]), key(&vars, &[(0, 1), (2, 2)]));
    }

    /// The table by site: each site of the track to the site of the next
    /// live place, a site off the track to the first live one; none for a
    /// track that passes a site twice.
    #[test]
    fn a_table_by_site_follows_the_places_and_is_none_for_a_track_that_repeats() {
        for cyclic in [false, true] {
            let t = track(&[5, 1, 3, 0], 6, cyclic);
            for mask in 0..16u32 {
                let skipped: Vec<bool> = (0..4).map(|i| mask >> i & 1 == 1).collect();
                let mut tab = SowTable { skipped: skipped.clone(), ..SowTable::default() };
                tab.link(cyclic);
                tab.by_site(&t, 6);
                let site = |x: u16| if x == OFF { OFF } else { t.sites[x as usize] };
                let want: Vec<u16> = (0..6).map(|s| site(tab.next[t.position[s].map_or(4, |i| i as usize)])).collect();
                assert_eq!(tab.succ, want, "{skipped:?} cyclic {cyclic}");
                assert_eq!(tab.succ[2], site(tab.next[4]), "off the track: the first live site");
            }
            let mut tab = SowTable { skipped: vec![false; 4], ..SowTable::default() };
            tab.link(cyclic);
            tab.by_site(&track(&[0, 1, 0, 2], 3, cyclic), 3);
            assert!(tab.succ.is_empty(), "site 0 twice: no table by site");
        }
    }

    /// The ring of a cyclic track: from every site of the board, `n`
    /// counters (up to a lap) land where `n` steps of the table by site
    /// take them, in that order; a track that passes a site twice, a
    /// linear one, or one with every place skipped has no ring. One table
    /// made over and over, as a kept one is: nothing left of the last.
    #[test]
    fn a_ring_gives_the_sites_the_table_by_site_steps_to() {
        let t = track(&[5, 1, 3, 0, 6], 8, true);
        let mut tab = SowTable::default();
        let remake = |tab: &mut SowTable, skipped: &[bool], t: &Track, board: usize| {
            tab.skipped.clear();
            tab.skipped.extend_from_slice(skipped);
            tab.link(t.cyclic);
            tab.by_site(t, board);
        };
        for mask in (0..32u32).rev() {
            let skipped: Vec<bool> = (0..5).map(|i| mask >> i & 1 == 1).collect();
            remake(&mut tab, &skipped, &t, 8);
            if tab.live == 0 {
                assert!(tab.ring.is_empty() && tab.from.is_empty(), "{skipped:?}");
                continue;
            }
            assert_eq!(tab.ring.len(), 2 * tab.live, "{skipped:?}");
            assert_eq!(tab.from.len(), 8, "{skipped:?}");
            for s in 0..8usize {
                let mut at = s;
                for n in 1..=tab.live {
                    at = tab.succ[at] as usize;
                    let from = tab.from[s] as usize;
                    assert_eq!(tab.ring[from + n - 1] as usize, at, "{skipped:?} from {s}, {n} counters");
                }
            }
        }
        remake(&mut tab, &[false; 5], &track(&[5, 1, 3, 0, 6], 8, false), 8);
        assert!(!tab.succ.is_empty() && tab.ring.is_empty() && tab.from.is_empty(), "a linear track: no ring");
        remake(&mut tab, &[false; 5], &t, 8);
        remake(&mut tab, &[false; 4], &track(&[0, 1, 0, 2], 3, true), 3);
        assert!(tab.ring.is_empty() && tab.from.is_empty(), "site 0 twice: no ring");
    }

    /// Sowing by the ring and by the table by site, whole laps at once:
    /// the counts and `last` of a counter a step, for any number of
    /// counters (whole laps, a lap exactly, none) from any site, for
    /// every pattern of skips.
    #[test]
    fn sowing_by_the_ring_is_sowing_by_the_table() {
        use super::super::sow_sites;
        use crate::engine::vm::Frame;
        let t = track(&[5, 1, 3, 0, 6], 8, true);
        for mask in 0..31u32 {
            let skipped: Vec<bool> = (0..5).map(|i| mask >> i & 1 == 1).collect();
            let mut tab = SowTable { skipped, ..SowTable::default() };
            tab.link(true);
            tab.by_site(&t, 8);
            for s in 0..8u16 {
                for n in 0..=3 * tab.live as i32 + 1 {
                    let start: Vec<i32> = (0..8).map(|i| i * 3 % 7).collect();
                    let (mut a, mut b) = (start.clone(), start.clone());
                    let (mut fa, mut fb) = (Frame::new(0), Frame::new(0));
                    let la = sow_sites::<true>(&mut a, &mut fa, &t, &tab, s, n).ok();
                    let lb = sow_sites::<false>(&mut b, &mut fb, &t, &tab, s, n).ok();
                    // A counter a step, by the table by site.
                    let (mut c, mut at) = (start, s as usize);
                    for _ in 0..n {
                        at = tab.succ[at] as usize;
                        c[at] += 1;
                    }
                    let want = (c, at as u16);
                    // `last` in the frame and given back.
                    assert_eq!(
                        (a, fa.last, la),
                        (want.0.clone(), want.1, Some(want.1)),
                        "by the ring: mask {mask:05b} from {s}, {n} counters"
                    );
                    assert_eq!(
                        (b, fb.last, lb),
                        (want.0, want.1, Some(want.1)),
                        "by the table: mask {mask:05b} from {s}, {n} counters"
                    );
                }
            }
        }
    }

    /// The next places as the definition has them: from each place (and
    /// from off the track, the last entry) the first live place after it,
    /// round the track if it is cyclic (perhaps the place itself).
    fn next_by_definition(skipped: &[bool], cyclic: bool) -> Vec<u16> {
        let len = skipped.len();
        (0..=len)
            .map(|i| {
                let after: Vec<usize> = match (i == len, cyclic) {
                    (true, _) => (0..len).collect(),
                    (false, true) => (i + 1..len).chain(0..=i).collect(),
                    (false, false) => (i + 1..len).collect(),
                };
                after.into_iter().find(|&j| !skipped[j]).map_or(OFF, |j| j as u16)
            })
            .collect()
    }

    #[test]
    fn a_table_links_each_place_to_the_next_live_one_for_every_pattern_of_skips() {
        for len in 0..=9usize {
            for mask in 0..1u32 << len {
                let skipped: Vec<bool> = (0..len).map(|i| mask >> i & 1 == 1).collect();
                for cyclic in [false, true] {
                    let mut t = SowTable { skipped: skipped.clone(), ..SowTable::default() };
                    t.link(cyclic);
                    assert_eq!(t.next, next_by_definition(&skipped, cyclic), "{skipped:?} cyclic {cyclic}");
                    assert_eq!(t.live, skipped.iter().filter(|&&s| !s).count());
                }
            }
        }
    }
}
