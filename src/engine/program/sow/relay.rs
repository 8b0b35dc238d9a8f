//! A sowing's relay: after a lap, while its condition holds, the site it
//! names (`last`, unless `relay from` says) is lifted and sown, and the
//! statements after each lap (`each lap`) run.
//!
//! The commonest relay goes on from `last` while it holds more than one
//! counter, perhaps only while it is a pit (`relay while last is pit and
//! count(last) > 1`: Congkak, Sungka, Dakon, Jongkak, Mefuvha) or while a
//! state of it has a fixed value (`uur(last) == none and count(last) > 1`:
//! Leyla-Gobale), and its laps have nothing but their table to go by (see
//! `Sow::simple`). Then nothing runs between laps that could change the
//! track, its table or what the condition reads but the counts (a sowing
//! sets no state), so the laps run in one loop
//! ([`Sow::relay_all`]): the condition read in place, the track and
//! table found once, a lap a lift and a sowing by the table. What is
//! sown, the work spent, the limit of laps and every error are as the
//! general loop ([`relay_rest`]) makes them.

use super::{OneByOne, Sow, all_skipped, sow_by};
use crate::engine::game::{BinOp, Builtin, Expr, SiteId, Track, Value};
use crate::engine::program::expr::Opnd;
use crate::engine::program::least_count_of;
use crate::engine::program::state::StateTest;
use crate::engine::program::{Block, Fst, Lower, Program, run};
use crate::engine::vm::{Fault, Frame, Res, SowTable, Vm, out_of_fuel};

/// A relay, lowered: the site it goes on from (`last` if none), its
/// condition, and the most laps it may take.
pub(super) struct Relay {
    pub from: Option<Opnd>,
    pub cond: Opnd,
    pub max: Option<Opnd>,
}

/// A relay after its first lap: while its condition holds, the site it
/// names lifted and sown, and the statements after each lap run.
pub(super) fn relay_rest(p: &Program, vm: &mut Vm, sow: &Sow, r: &Relay, lap_end: &Block, max: i64) -> Res<()> {
    let mut laps = 1;
    loop {
        if r.cond.get(p, vm)? == 0 {
            return Ok(());
        }
        let s = match &r.from {
            Some(x) => x.site(p, vm)?,
            None => vm.f.last,
        };
        // An empty site ends the relay: there is nothing to lift.
        vm.read(s);
        if vm.count(s) == 0 {
            return Ok(());
        }
        if laps >= max {
            return Err(Fault::ILLEGAL);
        }
        laps += 1;
        // A relay that never ends is stopped by the work budget.
        vm.tick()?;
        sow.lap(p, vm, s, None, false)?;
        if !lap_end.is_empty() {
            run(lap_end, p, vm)?;
        }
    }
}

/// A relay's condition of the commonest shape, read in place: `last` holds
/// `least` counters or more (`count(last) > 1`), and first, if it says so,
/// is of the site kind `kind` (`last is pit and count(last) > 1`) or has a
/// per-site state of a fixed value (`uur(last) == none and count(last) >
/// 1`), asked as the condition asks it, with the same error for a site of
/// another kind than the state is kept for.
pub(super) enum RelayTest {
    Count(CountTest),
    State(StateCountTest),
}

/// `count(last) >= least`, perhaps after `last is <kind>`.
#[derive(Clone, Copy)]
pub(super) struct CountTest {
    kind: Option<u8>,
    least: i32,
}

/// `v(last) OP c and count(last) >= least`.
#[derive(Clone, Copy)]
pub(super) struct StateCountTest {
    state: StateTest,
    least: i32,
}

/// A shape of [`RelayTest`]: each is its own sowing closure ([`fused`]),
/// so that no lap asks which shape it is.
trait LastTest: Copy + Send + Sync + 'static {
    /// Whether the condition holds of `last` (counts of one colour; `vars`
    /// the position's state).
    fn holds(self, p: &Program, vars: &[Value], counts: &[i32], last: SiteId) -> Res<bool>;
}

impl LastTest for CountTest {
    #[inline(always)]
    fn holds(self, p: &Program, _: &[Value], counts: &[i32], last: SiteId) -> Res<bool> {
        Ok(self.kind.is_none_or(|k| p.kinds[last as usize] == k) && counts[last as usize] >= self.least)
    }
}

impl LastTest for StateCountTest {
    #[inline(always)]
    fn holds(self, p: &Program, vars: &[Value], counts: &[i32], last: SiteId) -> Res<bool> {
        Ok(self.state.holds_in(p, vars, last)? && counts[last as usize] >= self.least)
    }
}

impl Lower<'_> {
    /// The test of a relay whose laps run in one loop: its laps have
    /// their table alone to go by and nothing after them (`steady`: so
    /// nothing between them changes a state), it goes on from `last`, along
    /// a track each lap finds the same ([`steady_track`]), while a condition
    /// of the commonest shape holds.
    pub(super) fn fused_test(&self, r: &crate::engine::game::Relay, track: &Expr, steady: bool) -> Option<RelayTest> {
        if !steady || r.from.is_some() || !steady_track(track) {
            return None;
        }
        self.relay_test(&r.cond)
    }

    fn relay_test(&self, e: &Expr) -> Option<RelayTest> {
        let last = |x: &Expr| matches!(x, Expr::Builtin(Builtin::Last));
        let least = |e: &Expr| least_count_of(e, |x| matches!(x, Expr::Count(s, None) if last(s)));
        match e {
            Expr::Bin(BinOp::And, a, b) => match &**a {
                Expr::IsKind(x, k) if last(x) => {
                    Some(RelayTest::Count(CountTest { kind: Some(k.index() as u8), least: least(b)? }))
                }
                a => Some(RelayTest::State(StateCountTest { state: self.state_test_of(a, last)?, least: least(b)? })),
            },
            e => Some(RelayTest::Count(CountTest { kind: None, least: least(e)? })),
        }
    }
}

/// Whether a sowing's track is the same at each lap of a relay whose laps
/// run nothing between them: it reads no count, `last` or `origin`, and
/// draws or calls nothing (a fixed track, a local, a track of the mover's).
fn steady_track(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Local(_) | Expr::Builtin(Builtin::Mover) => true,
        Expr::Family(_, x) | Expr::Opponent(x) => steady_track(x),
        _ => false,
    }
}

/// A sowing with a relay that passed [`fused_test`]: its laps in one loop
/// ([`Sow::relay_all`]); in a machine that watches banks (which a lift
/// reads), the general loop.
pub(super) fn fused(src: Opnd, amount: Option<Opnd>, relay: Relay, test: RelayTest, sow: Sow) -> Fst {
    match test {
        RelayTest::Count(t) => fused_by(src, amount, relay, t, sow),
        RelayTest::State(t) => fused_by(src, amount, relay, t, sow),
    }
}

/// [`fused`], for one shape of its test.
fn fused_by(src: Opnd, amount: Option<Opnd>, relay: Relay, test: impl LastTest, sow: Sow) -> Fst {
    Box::new(move |p, vm| {
        let s = src.site(p, vm)?;
        let n = match &amount {
            Some(a) => Some(a.get(p, vm)?),
            None => None,
        };
        let max = match &relay.max {
            Some(m) => m.get(p, vm)?,
            None => i64::MAX,
        };
        if !vm.banks.is_empty() {
            sow.lap(p, vm, s, n, true)?;
            return relay_rest(p, vm, &sow, &relay, &Block::default(), max);
        }
        sow.relay_all(p, vm, &relay, test, (s, n), max)
    })
}

impl Sow {
    /// A relay whose laps run nothing between them: each is a lap of the
    /// same track by the same table (a sowing changes no state a skip
    /// reads), so the track and its table are found once, by the first lap,
    /// which is made as `Sow::simple_lap` makes it (`n` counters of `s`, all
    /// if none given), and the later ones from `last`, as [`relay_rest`]
    /// and `Sow::simple_lap` make them ([`relay_laps`]). A machine that
    /// watches banks is not one of these (the caller asks [`relay_rest`]).
    fn relay_all(
        &self,
        p: &Program,
        vm: &mut Vm,
        r: &Relay,
        test: impl LastTest,
        (s, n): (SiteId, Option<i64>),
        max: i64,
    ) -> Res<()> {
        let (t, n) = self.lift(p, vm, s, n)?;
        let (track, tab) = self.table(p, vm, t)?;
        let skipped = |f: Option<Fault>| f.unwrap_or_else(|| all_skipped(p, t));
        let Some(ranges) = &self.keyed else {
            let (counts, vars, f) = (&mut vm.pos.counts, &vm.pos.vars, &mut vm.f);
            let last = sow_by::<true>(counts, f, track, tab, s, n).map_err(skipped)?;
            return relay_laps(p, (counts, vars), f, &mut vm.fuel, (track, tab, last), test, max).map_err(skipped);
        };
        let at = self.base + t as usize * self.np + vm.f.mover as usize;
        if !self.keep_table(p, vm, at, track, tab, ranges) {
            // A skip went wrong somewhere: the first lap asks the skips
            // site by site, and so do the later ones.
            let pos = track.position[s as usize].map_or(track.sites.len(), |x| x as usize);
            let (dynamic, except, except_at) = (&self.dynamic[..], None, usize::MAX);
            let by = OneByOne { t, track, tab, dynamic, except, except_at, first: true };
            self.one_by_one(p, vm, &by, pos, n, None)?;
            return relay_rest(p, vm, self, r, &Block::default(), max);
        }
        let kept = &vm.kept[at].tab;
        if kept.live == 0 && track.cyclic {
            return Err(all_skipped(p, t));
        }
        let (counts, vars, f) = (&mut vm.pos.counts, &vm.pos.vars, &mut vm.f);
        let last = sow_by::<true>(counts, f, track, kept, s, n).map_err(skipped)?;
        relay_laps(p, (counts, vars), f, &mut vm.fuel, (track, kept, last), test, max).map_err(skipped)
    }
}

/// The later laps of a relay ([`Sow::relay_all`]) sown by `tab`, from `s`,
/// the first lap's `last`: while `last` passes `test`, lifted and sown
/// (`last` carried from lap to lap as [`sow_by`] gives it back), each a
/// step of work, the second lap the first counted against `max`, as
/// [`relay_rest`] counts them.
/// `Err(None)`: every place of a cyclic track is skipped (as `sow_counts`).
#[inline(always)]
fn relay_laps(
    p: &Program,
    (counts, vars): (&mut [i32], &[Value]),
    f: &mut Frame,
    fuel: &mut u64,
    (track, tab, mut s): (&Track, &SowTable, SiteId),
    test: impl LastTest,
    max: i64,
) -> Result<(), Option<Fault>> {
    let mut laps: i64 = 1;
    loop {
        if !test.holds(p, vars, counts, s)? {
            return Ok(());
        }
        let n = counts[s as usize];
        if n == 0 {
            return Ok(());
        }
        if laps >= max {
            return Err(Some(Fault::ILLEGAL));
        }
        laps += 1;
        if *fuel == 0 {
            return Err(Some(out_of_fuel()));
        }
        *fuel -= 1;
        f.origin = s;
        counts[s as usize] = 0;
        s = sow_by::<true>(counts, f, track, tab, s, n)?;
    }
}
