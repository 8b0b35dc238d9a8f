//! Move generation: each move declaration's choices run in turn, their
//! `where`s tested, and what they offer goes to a [`Sink`] (a list, a count,
//! whether there is any, or groups of moves that differ only in their order
//! of colours). A move whose legality depends on its effects is tried.
//! The loops of the commonest moves, one choice of a site of a fixed set,
//! are in `sites.rs`; whether a player can move, found by those loops
//! where the move's shape allows, in `any.rs`.

mod any;
mod sites;

use sites::{OneSite, draw_one_site, list_only_move, one_site};

use super::draw::Candidates;
use super::game::SiteId;
use super::play::{apply_frame, bind_choices, try_statements};
use super::program::expr::Opnd;
use super::program::sets::set_sites;
use super::program::{Choice, ChoiceDomain, MoveProg, Program, index_in};
use super::vm::{Fault, Frame, Res, Vm, check_choice_range};
use super::{MAX_LISTED, Move, arrange};

/// Where enumerated moves go. A group is the `n` moves that share a
/// declaration and choices and differ only in their order of colours.
pub(crate) enum Sink<'a> {
    List(&'a mut Vec<Move>),
    Any(bool),
    Count(u128),
    Groups(&'a mut Vec<(Move, u128)>),
    /// Groups as [`Sink::Groups`], but a move that must be tried is not:
    /// the caller tries the ones it draws.
    Candidates(&'a mut Vec<(Move, u128)>),
}

impl Sink<'_> {
    #[inline]
    pub(crate) fn done(&self) -> bool {
        matches!(self, Sink::Any(true))
    }

    /// Offers the move of declaration `def` that chooses one site.
    #[inline(always)]
    fn offer_site(&mut self, def: u16, site: SiteId) -> Res<()> {
        match self {
            // Written in place, field by field (a whole `Move` built first and
            // then copied was read back before its stores had landed).
            Sink::List(out) if (out.len() as u128) < MAX_LISTED => {
                out.push(Move { def, args: [site as i32, 0, 0, 0], order: 0 });
                Ok(())
            }
            Sink::Any(found) => {
                *found = true;
                Ok(())
            }
            Sink::Count(total) => {
                *total = total.saturating_add(1);
                Ok(())
            }
            Sink::Candidates(out) => {
                out.push((Move { def, args: [site as i32, 0, 0, 0], order: 0 }, 1));
                Ok(())
            }
            _ => self.offer(Move { def, args: [site as i32, 0, 0, 0], order: 0 }, 1),
        }
    }

    #[inline]
    fn offer(&mut self, mv: Move, n: u128) -> Res<()> {
        match self {
            Sink::List(out) => {
                if out.len() as u128 + n > MAX_LISTED {
                    return Err(Fault::error(format!(
                        "more than {MAX_LISTED} legal moves: too many to list (count or sample them instead)"
                    )));
                }
                // A group is the orders mv.order .. mv.order + n.
                for r in 0..n {
                    out.push(Move { order: mv.order + r, ..mv });
                }
            }
            Sink::Any(found) => *found |= n > 0,
            Sink::Count(total) => *total = total.saturating_add(n),
            Sink::Groups(out) | Sink::Candidates(out) => {
                if n > 0 {
                    out.push((mv, n));
                }
            }
        }
        Ok(())
    }
}

/// How deep searches for moves may nest (a `where` that asks `can-move`).
const MAX_DEPTH: usize = 64;

/// Moves for `pl` by the move declarations alone (no `avoid`, no pass).
/// The frame is left as the last declaration's (see [`can_move`], which
/// keeps its caller's).
pub(crate) fn raw(p: &Program, vm: &mut Vm, pl: u8, sink: &mut Sink) -> Res<()> {
    vm.depth += 1;
    if vm.depth > MAX_DEPTH {
        vm.depth -= 1;
        return Err(Fault::error("rules recurse too deeply while looking for legal moves".into()));
    }
    let phase = vm.pos.turn.phase;
    // The position stays as it is during the search: the closed parts of
    // the `where`s are worked out once (see `program/memo.rs`).
    let outer = vm.memo.begin();
    let mut r = Ok(());
    for (d, def) in p.moves.iter().enumerate() {
        if def.phase != phase {
            continue;
        }
        vm.f = Frame::new(pl);
        let mut mv = Move { def: d as u16, args: [0; 4], order: 0 };
        r = match def.one_site {
            true => one_site(p, vm, def, d as u16, sink).map_err(|e| choice_error(p, d, 0, e)),
            false => enumerate(p, vm, def, 0, &mut mv, sink),
        };
        if r.is_err() || sink.done() {
            break;
        }
    }
    vm.memo.end(outer);
    vm.depth -= 1;
    r
}

/// Whether `pl` would have any move if it were their turn now.
#[inline(always)]
pub(crate) fn can_move(p: &Program, vm: &mut Vm, pl: u8) -> Res<bool> {
    if let Some(any) = any::any_listed(p, vm, pl)? {
        return Ok(any);
    }
    if let Some(any) = any::any_asked(p, vm, pl) {
        return any;
    }
    let saved = vm.pos.turn.to_move;
    vm.pos.turn.to_move = pl;
    // Finding moves binds local variables; the caller's are kept aside.
    let mark = vm.save_locals();
    let frame = vm.f;
    let mut sink = Sink::Any(false);
    let r = raw(p, vm, pl, &mut sink);
    vm.f = frame;
    vm.restore_locals(mark);
    vm.pos.turn.to_move = saved;
    r.map(|_| matches!(sink, Sink::Any(true)))
}

/// Whether the player to move, having no move, passes (someone else can
/// move and the rules say pass).
pub(crate) fn must_pass(p: &Program, vm: &mut Vm, me: u8) -> Res<bool> {
    if p.game.stuck != super::game::StuckAction::Pass {
        return Ok(false);
    }
    let np = p.game.players.len() as u8;
    for k in 1..np {
        if can_move(p, vm, (me + k) % np)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The legal moves of the player to move, `avoid` applied.
pub(crate) fn legal_moves(p: &Program, vm: &mut Vm, out: &mut Vec<Move>) -> Res<()> {
    out.clear();
    if vm.pos.turn.ended {
        return Ok(());
    }
    let me = vm.pos.turn.to_move;
    if !list_only_move(p, vm, me, out)? {
        raw(p, vm, me, &mut Sink::List(out))?;
    }
    if out.is_empty() {
        if must_pass(p, vm, me)? {
            out.push(Move::PASS);
        }
        return Ok(());
    }
    if p.avoids.is_empty() {
        return Ok(());
    }
    // `avoid`: drop the moves whose result it names, unless all do.
    let mut bad = std::mem::take(&mut vm.avoided);
    bad.clear();
    for &mv in out.iter() {
        match violates_avoid(p, vm, mv, Then::Undo) {
            Ok(b) => bad.push(b),
            Err(e) => {
                vm.avoided = bad;
                return Err(e);
            }
        }
    }
    if bad.iter().any(|b| !b) {
        let mut flag = bad.iter();
        out.retain(|_| flag.next().is_some_and(|b| !b));
    }
    vm.avoided = bad;
    Ok(())
}

/// What [`violates_avoid`] does with a move no `avoid` names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Takes it back.
    Undo,
    /// Keeps it whole for making it next (see [`crate::engine::vm::Tried`])
    /// and takes it back: a move drawn is then made once, not twice.
    Keep,
    /// Leaves it made: the frame, locals and draws as the `avoid`s leave
    /// them (whatever runs next, a move, a listing or a score, sets them
    /// before it reads them).
    Leave,
}

/// Whether an `avoid` names what making `mv` leads to: a move one names
/// is taken back, one none names is dealt with as `then` says.
fn violates_avoid(p: &Program, vm: &mut Vm, mv: Move, then: Then) -> Res<bool> {
    apply_frame(p, vm, mv)?;
    // As the move left them, for making it from the keeping: asking the
    // `avoid`s may change them.
    if then == Then::Keep {
        vm.keep_frame();
    }
    let mut bad = false;
    for cond in &p.avoids {
        match cond.get(p, vm) {
            Ok(v) if v != 0 => {
                bad = true;
                break;
            }
            Ok(_) => {}
            Err(e) => {
                vm.undo();
                return Err(e.within(p.game.avoids[index_in(&p.avoids, cond)].2));
            }
        }
    }
    match (bad, then) {
        (false, Then::Keep) => vm.keep_made_and_undo(mv, true),
        (false, Then::Leave) => {}
        _ => {
            vm.undo();
        }
    }
    Ok(bad)
}

/// How many legal moves there are, without listing them when no `avoid`
/// needs each one tried.
pub(crate) fn count_moves(p: &Program, vm: &mut Vm) -> Res<u128> {
    if vm.pos.turn.ended {
        return Ok(0);
    }
    if !p.avoids.is_empty() {
        let mut buf = vm.take_scratch();
        let r = legal_moves(p, vm, &mut buf).map(|_| buf.len() as u128);
        vm.give_scratch(buf);
        return r;
    }
    let me = vm.pos.turn.to_move;
    let mut sink = Sink::Count(0);
    raw(p, vm, me, &mut sink)?;
    let Sink::Count(n) = sink else { unreachable!() };
    if n == 0 && must_pass(p, vm, me)? {
        return Ok(1);
    }
    Ok(n)
}

/// The groups of legal moves: each a move and how many orders of colours
/// it comes in (1 for a move without an order). Not filtered by `avoid`.
pub(crate) fn groups(p: &Program, vm: &mut Vm, out: &mut Vec<(Move, u128)>) -> Res<()> {
    out.clear();
    if vm.pos.turn.ended {
        return Ok(());
    }
    let me = vm.pos.turn.to_move;
    raw(p, vm, me, &mut Sink::Groups(out))?;
    if out.is_empty() && must_pass(p, vm, me)? {
        out.push((Move::PASS, 1));
    }
    Ok(())
}

/// A legal move drawn uniformly at random, `avoid` applied, without listing
/// the moves; `None` when the game is over. A move that must be tried, or
/// whose result an `avoid` must look at, is tried only when drawn (see
/// [`super::draw`]).
pub(crate) fn sample_move(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng) -> Res<Option<Move>> {
    Ok(draw_move(p, vm, rng, false)?.map(|(mv, _)| mv))
}

/// How much of a move [`draw_move`] drew it left made.
#[derive(Clone, Copy)]
pub(crate) enum Made {
    /// Nothing: the position is as it was.
    No,
    /// Its statements, by the trial that found it legal: what follows them
    /// is the caller's (`play::finish_made`).
    Statements,
    /// The whole move, made to ask the `avoid`s of its result.
    Whole,
}

/// The move [`sample_move`] draws, from the same draws, and how much of it
/// was left made. With `make`, a drawn move that must be tried is left made
/// by its trial: its statements, not what follows them (the caller's, by
/// `play::finish_made`); in rules with an `avoid`, which looks at a move's
/// whole result, the whole move made for it. Without, what was made is
/// kept for making the move next (see [`crate::engine::vm::Tried`]).
/// Inlined: a call of its own cost a short game's sampled ply 1% (`make`
/// is known where it is called).
#[inline(always)]
pub(crate) fn draw_move(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, make: bool) -> Res<Option<(Move, Made)>> {
    if vm.pos.turn.ended {
        return Ok(None);
    }
    let me = vm.pos.turn.to_move;
    // What is left made of a legal move drawn (`Made::No` for one that
    // needs no trial and no `avoid`, known below): its statements, by its
    // trial; with an `avoid`, the whole move its `avoid`s were asked of.
    let (then, made) = match (make, p.avoids.is_empty()) {
        (false, _) => (Then::Keep, Made::No),
        (true, true) => (Then::Keep, Made::Statements),
        (true, false) => (Then::Leave, Made::Whole),
    };
    // With an `avoid`, a trial keeps what it made for making the move
    // whole, to ask the `avoid`s.
    let make = make && p.avoids.is_empty();
    // Most draws end here, with one site drawn and no list: the reused
    // lists of candidates are not taken out of the machine, nor emptied.
    let mut refused = None;
    match draw_one_site(p, vm, rng, me).map_err(|e| only_move_error(p, vm, e))? {
        OneSite::Drawn { def, site, k, n } => {
            let mv = Move { def, args: [site as i32, 0, 0, 0], order: 0 };
            let tried = p.moves[def as usize].needs_trial;
            let legal = !tried || try_drawn(p, vm, mv, me, make)?;
            // A legal move an `avoid` names is set aside, as a list sets it.
            let avoided = legal && !p.avoids.is_empty() && violates_avoid(p, vm, mv, then)?;
            if legal && !avoided {
                let untouched = p.avoids.is_empty() && !tried;
                return Ok(Some((mv, if untouched { Made::No } else { made })));
            }
            refused = Some(Refused { mv, k, n, avoided });
        }
        // No candidate: what an empty list leads to.
        OneSite::None => return Ok(pass_or_none(p, vm, rng, me)?.map(|mv| (mv, Made::No))),
        OneSite::List => {}
    }
    let mut c = std::mem::take(&mut vm.candidates);
    let r = draw_listed_or_refused(p, vm, rng, &mut c, refused, (make, then, made));
    vm.candidates = c;
    r
}

/// The site drawn by [`sample_move`] and not taken: its move, its number
/// among the `n` candidates it was drawn from, and whether it is legal but
/// named by an `avoid` (else its trial refused it).
struct Refused {
    mv: Move,
    k: u32,
    n: u32,
    avoided: bool,
}

/// [`sample_move`] past its draw of one site: among the candidates listed,
/// or, if the site drawn was not taken, among the others it was drawn from.
fn draw_listed_or_refused(
    p: &Program,
    vm: &mut Vm,
    rng: &mut impl rand::Rng,
    c: &mut Candidates,
    refused: Option<Refused>,
    (make, then, made): (bool, Then, Made),
) -> Res<Option<(Move, Made)>> {
    c.clear();
    let me = vm.pos.turn.to_move;
    if let Some(Refused { mv, k, n, avoided }) = refused {
        // The draws go on among the candidates it was drawn from (the first
        // `n` sites picked, in a list's order), as if it had been drawn from
        // their list. Its trial, or the `avoid`s, only made and unmade a
        // move: what was picked is as it was, and a `where` is not asked
        // twice.
        let picked = vm.picked[..n as usize].iter();
        c.groups.extend(picked.map(|&s| (Move { args: [s as i32, 0, 0, 0], ..mv }, 1)));
        c.counted();
        c.refuse(k as u128);
        if avoided {
            c.avoided.push(mv);
        }
    } else {
        raw(p, vm, me, &mut Sink::Candidates(&mut c.groups))?;
        c.counted();
    }
    while let Some((mv, number)) = c.draw(rng) {
        if c.mostly_refused() {
            return Ok(draw_listed(p, vm, rng, c)?.map(|mv| (mv, Made::No)));
        }
        let tried = p.moves[mv.def as usize].needs_trial;
        if tried && !try_drawn(p, vm, mv, me, make)? {
            c.refuse(number);
            continue;
        }
        if p.avoids.is_empty() {
            return Ok(Some((mv, if tried { made } else { Made::No })));
        }
        // `avoid`: a move whose result it names is drawn only if all are.
        c.refuse(number);
        if !violates_avoid(p, vm, mv, then)? {
            return Ok(Some((mv, made)));
        }
        c.avoided.push(mv);
    }
    if !c.avoided.is_empty() {
        return Ok(Some((c.avoided[rng.gen_range(0..c.avoided.len())], Made::No)));
    }
    Ok(pass_or_none(p, vm, rng, me)?.map(|mv| (mv, Made::No)))
}

/// The draw of a player with no legal move: a pass if the rules say
/// pass and someone else can move, else none.
fn pass_or_none(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, me: u8) -> Res<Option<Move>> {
    if must_pass(p, vm, me)? {
        return Ok(Some(Candidates::pass(rng)));
    }
    Ok(None)
}

/// A legal move drawn from the list of them (`avoid` applied), or from
/// the groups of legal moves: for rules that refuse most candidates.
fn draw_listed(p: &Program, vm: &mut Vm, rng: &mut impl rand::Rng, c: &mut Candidates) -> Res<Option<Move>> {
    c.clear();
    if !p.avoids.is_empty() {
        let mut buf = vm.take_scratch();
        let r = legal_moves(p, vm, &mut buf).map(|_| (!buf.is_empty()).then(|| buf[rng.gen_range(0..buf.len())]));
        vm.give_scratch(buf);
        return r;
    }
    groups(p, vm, &mut c.groups)?;
    c.counted();
    Ok(c.draw(rng).map(|(mv, _)| mv))
}

/// Offers the move `mv` (all choices made) if it is legal: checked by its
/// precheck, or by trying it when its legality depends on its effects.
fn leaf(p: &Program, vm: &mut Vm, def: &MoveProg, mv: Move, n: u128, sink: &mut Sink) -> Res<()> {
    if let Some(k) = def.nonempty {
        let s = mv.args[k] as SiteId;
        vm.read(s);
        if vm.count(s) == 0 {
            return Ok(());
        }
    }
    if !def.needs_trial || matches!(sink, Sink::Candidates(_)) {
        return sink.offer(mv, n);
    }
    // Try each order: legality may depend on where the colours fall.
    let mover = vm.f.mover;
    for r in 0..n {
        let m = Move { order: r, ..mv };
        if trial(p, vm, m, mover)? {
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

/// Tries a move drawn by [`draw_move`] as the player to move: with `make`,
/// a legal one is left made by its statements; without, what it made is
/// kept for making it next.
#[inline(always)]
fn try_drawn(p: &Program, vm: &mut Vm, mv: Move, me: u8, make: bool) -> Res<bool> {
    trial_kept(p, vm, mv, me, if make { Keep::Made } else { Keep::Kept })
}

/// Whether making `mv` as `mover` succeeds (the position is restored).
pub(crate) fn trial(p: &Program, vm: &mut Vm, mv: Move, mover: u8) -> Res<bool> {
    trial_kept(p, vm, mv, mover, Keep::No)
}

/// What a trial that succeeds as the player to move leaves: nothing (the
/// position restored), what its statements made kept for making the move
/// next ([`crate::engine::vm::Tried`]), or the move made by its statements
/// (what follows them is the caller's: `play::finish_made`).
#[derive(Clone, Copy)]
enum Keep {
    No,
    Kept,
    Made,
}

/// As [`trial`], the success of a trial as the player to move left as
/// `keep` says. What draws around the trial draws on as if it had not been
/// made (unless it is left made).
fn trial_kept(p: &Program, vm: &mut Vm, mv: Move, mover: u8, keep: Keep) -> Res<bool> {
    let saved = vm.pos.turn.to_move;
    let (frame, draws) = (vm.f, vm.draws);
    vm.pos.turn.to_move = mover;
    let r = try_statements(p, vm, mv);
    let ok = match r {
        Ok(()) => {
            match keep {
                // Drawn as the player to move: the move is theirs.
                Keep::Made => {
                    debug_assert_eq!(mover, saved, "a move left made is the mover's");
                    return Ok(true);
                }
                Keep::Kept if mover == saved => vm.keep_tried_and_undo(mv),
                _ => {
                    vm.undo();
                }
            }
            true
        }
        Err(e) if e.is_illegal() => false,
        Err(e) => {
            vm.pos.turn.to_move = saved;
            (vm.f, vm.draws) = (frame, draws);
            return Err(e);
        }
    };
    vm.pos.turn.to_move = saved;
    (vm.f, vm.draws) = (frame, draws);
    Ok(ok)
}

/// Binds choice `i` to `v` and, if its `where` (`filter`) holds, goes on
/// to the choices after it: whether the sink wants no more. Inlined: a
/// call of its own at each value was some 25 instructions a value.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn try_one(
    p: &Program,
    vm: &mut Vm,
    def: &MoveProg,
    i: usize,
    (c, filter): (&Choice, Option<&Opnd>),
    mv: &mut Move,
    sink: &mut Sink,
    v: i64,
    arg: i32,
) -> Res<bool> {
    vm.tick()?;
    bind_choices(def, i, mv, vm);
    vm.locals[c.slot] = v;
    if let Some(f) = filter
        && !c.passes(f, p, vm)?
    {
        return Ok(false);
    }
    mv.args[i] = arg;
    after(p, vm, def, i + 1, mv, sink)?;
    Ok(sink.done())
}

/// Tries choice `i` at each of `values` (a value and how the move writes
/// it): binds it and, if its `where` holds, enumerates the choices after
/// it, until the sink wants no more. A pinned choice has a loop of its own
/// that passes over the values its `where` does not name, so that the loop
/// of the others is no larger for it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn try_values(
    p: &Program,
    vm: &mut Vm,
    def: &MoveProg,
    i: usize,
    mv: &mut Move,
    sink: &mut Sink,
    (c, filter): (&Choice, Option<&Opnd>),
    values: impl Iterator<Item = (i64, i32)>,
    range: Option<(i64, i64)>,
) -> Res<()> {
    // The values a pinned `where` names, worked out here where they are
    // read, so that the struct is made in place and not copied on its way.
    let pinned = match (filter, &c.pin) {
        (Some(_), Some(pin)) => pin.values(p, vm),
        _ => None,
    };
    let Some(pinned) = pinned else {
        for (v, arg) in values {
            if try_one(p, vm, def, i, (c, filter), mv, sink, v, arg)? {
                break;
            }
        }
        return Ok(());
    };
    // What is left of the `where` at a value named alone stands for the
    // choice's own `where`, read whole (see `Pinned::residual`).
    let whole = c.lead.is_none() && filter.is_some_and(|f| c.filter.as_ref().is_some_and(|w| std::ptr::eq(f, w)));
    // Values that are the numbers `lo..=hi` (a range, the players, the
    // tracks), named in increasing order, none with terms to ask before
    // the naming one: only the values named are visited, and the others
    // take their steps of work in one (as many, and short exactly where
    // ticking each would have been: nothing else is asked of them).
    if whole
        && pinned.prefix.is_none()
        && let Some((lo, hi)) = range
        && let Some((named, rests)) = pinned.in_order()
    {
        let mut next = lo;
        for (&v, rest) in named.iter().zip(rests) {
            if v < lo {
                continue;
            }
            if v > hi {
                break;
            }
            // The values before `v` not named, and `v` itself.
            vm.spend((v - next + 1) as u64)?;
            next = v + 1;
            bind_choices(def, i, mv, vm);
            vm.locals[c.slot] = v;
            if let Some(r) = rest
                && r.get(p, vm)? == 0
            {
                continue;
            }
            mv.args[i] = v as i32;
            after(p, vm, def, i + 1, mv, sink)?;
            if sink.done() {
                return Ok(());
            }
        }
        if next <= hi {
            vm.spend((hi - next + 1) as u64)?;
        }
        return Ok(());
    }
    for (v, arg) in values {
        // A value not named fails the `where` (see `program/pin.rs`): it
        // takes its step of work and is asked the terms before the naming
        // one, if they can go wrong, for their error.
        if !pinned.admits(v) {
            vm.tick()?;
            if let Some(prefix) = pinned.prefix {
                bind_choices(def, i, mv, vm);
                vm.locals[c.slot] = v;
                prefix.get(p, vm)?;
            }
            continue;
        }
        // A value equal to one named alone: only what is left of the
        // `where` is asked, as `try_one` asks the whole (written out here:
        // passed to `try_one`, it cost Omweso 3.5% more a ply).
        if whole && let Some(rest) = pinned.residual(v) {
            vm.tick()?;
            bind_choices(def, i, mv, vm);
            vm.locals[c.slot] = v;
            if let Some(r) = rest
                && r.get(p, vm)? == 0
            {
                continue;
            }
            mv.args[i] = arg;
            after(p, vm, def, i + 1, mv, sink)?;
            if sink.done() {
                break;
            }
            continue;
        }
        if try_one(p, vm, def, i, (c, filter), mv, sink, v, arg)? {
            break;
        }
    }
    Ok(())
}

/// An error met by the `i`-th choice of declaration `d` (its domain, its
/// `where`, or the choices and trials after it), given the choice's place
/// unless a place inside it was given first.
#[cold]
fn choice_error(p: &Program, d: usize, i: usize, e: Fault) -> Fault {
    e.within(p.game.moves[d].params[i].span)
}

/// An error met while drawing the only move of the phase the game is in
/// without listing (`draw_one_site`): the first choice's.
#[cold]
fn only_move_error(p: &Program, vm: &Vm, e: Fault) -> Fault {
    match p.only_move.get(vm.pos.turn.phase as usize) {
        Some(&Some(d)) => choice_error(p, d as usize, 0, e),
        _ => e,
    }
}

/// The choices from `i` on, once those before it are bound: the move
/// itself after the last, offered in place (entering [`enumerate`], whose
/// frame is that of every choice's loop, only to offer it was some 20
/// instructions a move).
#[inline(always)]
fn after(p: &Program, vm: &mut Vm, def: &MoveProg, i: usize, mv: &mut Move, sink: &mut Sink) -> Res<()> {
    if i == def.choices.len() {
        return leaf(p, vm, def, *mv, 1, sink);
    }
    enumerate(p, vm, def, i, mv, sink)
}

fn enumerate(p: &Program, vm: &mut Vm, def: &MoveProg, i: usize, mv: &mut Move, sink: &mut Sink) -> Res<()> {
    if i == def.choices.len() {
        return leaf(p, vm, def, *mv, 1, sink);
    }
    choose(p, vm, def, i, mv, sink).map_err(|e| choice_error(p, mv.def as usize, i, e))
}

/// The values of choice `i` (not the last one's leaf): each bound and
/// tested, and the choices after it enumerated. Inlined: a call of its
/// own at each choice would cost the loops of moves of many choices.
#[inline(always)]
fn choose(p: &Program, vm: &mut Vm, def: &MoveProg, i: usize, mv: &mut Move, sink: &mut Sink) -> Res<()> {
    // Bind earlier choices again: evaluation of later domains may use them.
    bind_choices(def, i, mv, vm);
    let c = &def.choices[i];
    // The `where` for every value, once the domain is known.
    match &c.domain {
        ChoiceDomain::Range(a, b) => {
            let lo = a.get(p, vm)?;
            let hi = b.get(p, vm)?;
            check_choice_range(lo, hi, || {
                let named = &p.game.moves[mv.def as usize];
                (&named.name, &named.params[i].name)
            })?;
            let Some(test) = c.tested(p, vm) else { return Ok(()) };
            let values = (lo..=hi).map(|v| (v, v as i32));
            try_values(p, vm, def, i, mv, sink, test, values, Some((lo, hi)))?;
        }
        ChoiceDomain::Set(s) => {
            let set = s.get(p, vm)?;
            let Some(test) = c.tested(p, vm) else { return Ok(()) };
            let values = set_sites(p, set).map(|site| (site as i64, site as i32));
            try_values(p, vm, def, i, mv, sink, test, values, None)?;
        }
        ChoiceDomain::Players => {
            let Some(test) = c.tested(p, vm) else { return Ok(()) };
            let n = p.game.players.len() as i64;
            let values = (0..n).map(|pl| (pl, pl as i32));
            try_values(p, vm, def, i, mv, sink, test, values, Some((0, n - 1)))?;
        }
        ChoiceDomain::Tracks => {
            let Some(test) = c.tested(p, vm) else { return Ok(()) };
            let n = p.game.tracks.len() as i64;
            let values = (0..n).map(|t| (t, t as i32));
            try_values(p, vm, def, i, mv, sink, test, values, Some((0, n - 1)))?;
        }
        ChoiceDomain::Arrangements(site) => {
            // The last choice: every order of the site's colours, as one group.
            let s = site.site(p, vm)?;
            vm.read(s);
            let (k, counts) = colours_of(vm, s);
            let n = arrange::multinomial(&counts[..k]).ok_or_else(|| {
                Fault::error(format!(
                    "`{}` holds too many counters to number their orders",
                    p.game.sites[s as usize].name
                ))
            })?;
            mv.args[i] = 0;
            mv.order = 0;
            return leaf(p, vm, def, *mv, n, sink);
        }
    }
    Ok(())
}

/// The counts of each colour in a site.
pub(crate) fn colours_of(vm: &Vm, s: SiteId) -> (usize, [u32; arrange::MAX_COLOURS]) {
    let c = vm.colours.min(arrange::MAX_COLOURS);
    let mut out = [0u32; arrange::MAX_COLOURS];
    for (k, o) in out.iter_mut().enumerate().take(c) {
        *o = vm.colour_count(s, k as u8).max(0) as u32;
    }
    (c, out)
}
