//! Whether a player can move ([`super::can_move`]), after every move for
//! `when stuck` and wherever `can-move` is asked, found by the loop of the
//! phase's only move over its sites when its shape allows, without the
//! general search for moves (`super::raw`) around it: the same answer or
//! error, sites read and steps of work.

use super::Sink;
use super::sites::{first_holding, one_site, one_site_as, site_passes, state_pass};
use crate::engine::program::{Listed, MoveProg, Program};
use crate::engine::vm::{Frame, Res, SetV, Vm};

/// Whether `pl` has a move ([`super::can_move`]) when the phase's only
/// move is listed by a plain loop ([`crate::engine::program::Listed`]): the
/// loop `one_site` runs for that shape when any move will do (the same
/// sites read in the same order, up to the first that holds, and the same
/// steps of work), without the search around it (the caller's locals kept
/// aside, a frame, the memos' search), which that loop reads nothing of.
/// `None` when the phase's move is not of that shape, or the work left may
/// not cover the set: the search then stops where it would.
#[inline(always)]
pub(super) fn any_listed(p: &Program, vm: &mut Vm, pl: u8) -> Res<Option<bool>> {
    let Some(Some(l)) = p.listed.get(vm.pos.turn.phase as usize) else { return Ok(None) };
    let Some(&id) = l.sets.get(pl as usize) else { return Ok(None) };
    let sites = &p.game.sets[id as usize];
    if vm.fuel < sites.len() as u64 {
        return Ok(None);
    }
    let (any, looked) = first_holding(vm, sites, l.least);
    vm.spend(looked as u64)?;
    Ok(Some(any))
}

/// Whether `pl` has a move ([`super::can_move`]) when the phase's only move
/// chooses one site and needs no trial ([`Program::asked`]): its loop
/// ([`one_site`]) alone, or, when its `where` is asked at each site of a
/// fixed set with nothing to decide first, that loop itself, to the first
/// site that passes; with what the search for moves ([`super::raw`]) does
/// around it (the player to move and the frame set as it sets them, the
/// caller's locals kept aside, a search of the memos, one level deeper),
/// but not its general steps. `None` when the phase's move is not of that
/// shape, or the search would go no deeper (it says so).
#[inline(always)]
pub(super) fn any_asked(p: &Program, vm: &mut Vm, pl: u8) -> Option<Res<bool>> {
    let Some(Some(a)) = p.asked.get(vm.pos.turn.phase as usize) else { return None };
    if vm.depth >= super::MAX_DEPTH {
        return None;
    }
    if let Some(w) = &a.waived
        && let Some(&id) = w.sets.get(pl as usize)
    {
        return Some(any_waived(p, vm, pl, w, id));
    }
    let set = a.sets.as_ref().and_then(|s| s.get(pl as usize).copied());
    Some(asked(p, vm, pl, a.def, set))
}

/// [`asked`] for a move whose `where` has a waiver that, while it holds,
/// leaves a least count ([`crate::engine::program::Asked::waived`]; the
/// fixed set `id` for `pl`): the waiver asked as [`one_site`] asks it
/// (in a search of the memos of its own, the frame of `pl`), then, while
/// it holds, the first site that holds the count, as `one_site`'s loop
/// finds it; else the rest of `one_site` with the choice the waiver left
/// (in its case, if it has cases: see [`crate::engine::program::Choice::now`]).
/// The caller's locals are kept aside only where something may bind them:
/// a waiver that binds a variable of its own, the rest of `one_site`.
#[inline(never)]
fn any_waived(p: &Program, vm: &mut Vm, pl: u8, w: &Listed, id: u16) -> Res<bool> {
    let def = &p.moves[w.def as usize];
    let c0 = &def.choices[0];
    let saved = vm.pos.turn.to_move;
    vm.pos.turn.to_move = pl;
    let binds = c0.waiver.as_ref().is_some_and(|w| w.binds);
    let mark = binds.then(|| vm.save_values());
    let frame = vm.f;
    vm.depth += 1;
    let outer = vm.memo.begin();
    vm.f = Frame::new(pl);
    let waives = c0.waives(p, vm);
    let sites = &p.game.sets[id as usize];
    let r = if waives && vm.fuel >= sites.len() as u64 {
        let (any, looked) = first_holding(vm, sites, w.least);
        vm.spend(looked as u64).map(|()| any)
    } else {
        // What follows may bind variables (the cases' conditions, the choice).
        let inner = (!binds).then(|| vm.save_values());
        let c = c0.now_after(waives, p, vm);
        let mut sink = Sink::Any(false);
        let r = one_site_as(p, vm, (def, c), SetV::Fixed(id), w.def, &mut sink).map(|()| sink.done());
        if let Some(m) = inner {
            vm.restore_values(m);
        }
        r
    };
    vm.memo.end(outer);
    vm.depth -= 1;
    vm.f = frame;
    if let Some(m) = mark {
        vm.restore_values(m);
    }
    vm.pos.turn.to_move = saved;
    r.map_err(|e| super::choice_error(p, w.def as usize, 0, e))
}

#[inline(never)]
fn asked(p: &Program, vm: &mut Vm, pl: u8, d: u16, set: Option<u16>) -> Res<bool> {
    let def = &p.moves[d as usize];
    let saved = vm.pos.turn.to_move;
    vm.pos.turn.to_move = pl;
    // No statement runs (the move needs no trial): only the values can change.
    let mark = vm.save_values();
    let frame = vm.f;
    vm.depth += 1;
    let outer = vm.memo.begin();
    vm.f = Frame::new(pl);
    let r = match set {
        Some(id) => first_passing(p, vm, def, id),
        None => {
            let mut sink = Sink::Any(false);
            one_site(p, vm, def, d, &mut sink).map(|()| sink.done())
        }
    };
    vm.memo.end(outer);
    vm.depth -= 1;
    vm.f = frame;
    vm.restore_values(mark);
    vm.pos.turn.to_move = saved;
    r.map_err(|e| super::choice_error(p, d as usize, 0, e))
}

/// Whether a site of the fixed set `id` passes ([`site_passes`]) the
/// `where` of `def`'s choice as written, asked in order up to the first
/// that does (in place, where [`state_pass`] can).
#[inline(always)]
fn first_passing(p: &Program, vm: &mut Vm, def: &MoveProg, id: u16) -> Res<bool> {
    let c = &def.choices[0];
    let sites = &p.game.sets[id as usize];
    if let Some(t) = c.filter.as_ref().and_then(|f| state_pass(p, vm, (def, c, f), id)) {
        return t.first(vm, c.slot, sites);
    }
    for &s in sites {
        if site_passes(p, vm, (def, c, c.filter.as_ref()), s)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::super::{Sink, can_move, raw};
    use crate::compile::{Config, compile_file};
    use crate::engine::Engine;
    use crate::engine::vm::Fault;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;

    /// `can-move` of a phase whose only move chooses one site and needs no
    /// trial (`Program::asked`) answers as the search for moves does: for
    /// either player, at every position of seeded games of
    /// tests/engine/asked.mancala (a `where` asked whole at each site; one
    /// with a guard and a quantifier's variable; one asked by count; one
    /// waived, its waiver binding a variable of its own or not), with
    /// banks and without, and in the same positions with `faulty` (a rest
    /// that goes wrong): the same answer or error, the same steps of work
    /// and bank reads as the search's (`movegen::raw`), and the caller's
    /// locals and frame as they were.
    #[test]
    fn can_move_of_an_asked_move_answers_as_the_search_does() {
        let compile = |least: &str, faulty: &str, bound: &str| {
            let settings =
                vec![("least".into(), least.into()), ("faulty".into(), faulty.into()), ("bound".into(), bound.into())];
            let cfg = Config { variants: vec![], settings };
            let game =
                compile_file("tests/engine/asked.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            Arc::new(game)
        };
        // Answers no, yes, and errors.
        let mut seen = [0; 3];
        // The feeding rule's answers: no, yes, and while its waiver fails.
        let mut fed = [0; 3];
        for (least, bound) in [("0", "false"), ("1", "true"), ("2", "false")] {
            let (game, faulty) = (compile(least, "false", bound), compile(least, "true", bound));
            for seed in 0..8 {
                let mut e = Engine::with_seed(game.clone(), seed).unwrap();
                let mut f = Engine::with_seed(faulty.clone(), seed).unwrap();
                let loops: Vec<Option<bool>> =
                    e.prog.asked.iter().map(|a| a.as_ref().map(|a| a.sets.is_some())).collect();
                assert_eq!(
                    loops,
                    [Some(true), Some(false), Some(false), Some(false)],
                    "the loop itself, then `one_site`'s"
                );
                let waived: Vec<bool> =
                    e.prog.asked.iter().map(|a| a.as_ref().is_some_and(|a| a.waived.is_some())).collect();
                assert_eq!(waived, [false, true, false, true], "a waiver that leaves a least count");
                let banks: &[u16] = if seed % 2 == 0 { &[] } else { &[0, 4, 9] };
                e.set_banks(banks);
                f.set_banks(banks);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                loop {
                    f.vm.pos = e.vm.pos.clone();
                    for x in [&mut e, &mut f] {
                        for pl in 0..2 {
                            let at = format!("least {least}, seed {seed}, ply {}, player {pl}", x.vm.pos.turn.ply);
                            let answer = agree(x, pl, &at).0;
                            seen[answer] += 1;
                            if x.vm.pos.turn.phase == 3 {
                                // The waiver fails: the opponent's pits hold 3k counters
                                // or fewer (k = 4); with `bound`, none more than 3.
                                let pits = &x.vm.pos.counts[if pl == 0 { 5..9 } else { 0..4 }];
                                let fails = match bound {
                                    "true" => pits.iter().all(|&n| n <= 3),
                                    _ => pits.iter().sum::<i32>() <= 12,
                                };
                                fed[if fails { 2 } else { answer.min(1) }] += 1;
                            }
                        }
                    }
                    match e.sample_move(&mut rng) {
                        Ok(Some(mv)) => e.apply(mv).unwrap(),
                        _ => break,
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 20), "answers (no, yes, errors): {seen:?}");
        assert!(fed.iter().all(|&n| n > 10), "feeding (no, yes, waiver failing): {fed:?}");
    }

    /// `can-move` of a phase whose only move is listed by a plain loop
    /// (`Program::listed`) answers as the search does: for either player,
    /// at every position of seeded games of tests/engine/least.mancala (its
    /// sowing is listed, with least counts 0 to 3, also written as several
    /// comparisons; its other phases' moves take a counter and are tried),
    /// with banks and without (see `agree`).
    #[test]
    fn can_move_of_a_listed_move_answers_as_the_search_does() {
        let (mut answers, mut bank_reads) = ([0; 2], 0);
        for (least, written) in (0..4).flat_map(|l| [(l, "1"), (l, "2")]) {
            let settings = vec![("least".into(), least.to_string()), ("written".into(), written.into())];
            let cfg = Config { variants: vec![], settings };
            let game =
                compile_file("tests/engine/least.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            let game = Arc::new(game);
            for seed in 0..6 {
                let mut e = Engine::with_seed(game.clone(), seed).unwrap();
                assert!(e.prog.listed[0].is_some(), "the sowing is listed by a plain loop");
                // A pit of each side and a store as banks, every other game.
                e.set_banks(if seed % 2 == 0 { &[] } else { &[0, 4, 8] });
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                loop {
                    let ply = e.vm.pos.turn.ply;
                    for pl in 0..2 {
                        let at = format!("least {least}, written {written}, seed {seed}, ply {ply}, player {pl}");
                        let (answer, read) = agree(&mut e, pl, &at);
                        assert!(answer < 2, "{at}: no fault");
                        // The phases whose moves must be tried are searched either way.
                        if ply.is_multiple_of(3) {
                            answers[answer] += 1;
                            bank_reads += read as u32;
                        }
                    }
                    let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
                    e.apply(mv).unwrap();
                }
            }
        }
        assert!(answers[0] > 20 && answers[1] > 100, "answers (no, yes): {answers:?}");
        assert!(bank_reads > 20, "only {bank_reads} answers read a bank");
    }

    /// `can-move` of a phase whose only move's `where` is a least count and
    /// a test of a per-site state for none, asked in place (`sites.rs`'s
    /// `StatePass::first`), answers as the search does: at every position
    /// of seeded games of tests/engine/state-lead.mancala, in its four
    /// shapes, with `stray` (a store in the set, where the test goes wrong:
    /// the general loop) and without, with banks and without (see `agree`).
    #[test]
    fn can_move_of_a_state_lead_answers_as_the_search_does() {
        let mut seen = [0; 3];
        for (shape, stray) in (0..4).flat_map(|s| [(s, "false"), (s, "true")]) {
            let settings =
                vec![("shape".into(), shape.to_string()), ("least".into(), "1".into()), ("stray".into(), stray.into())];
            let cfg = Config { variants: vec![], settings };
            let game =
                compile_file("tests/engine/state-lead.mancala", &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
            let game = Arc::new(game);
            for seed in 0..6 {
                let mut e = Engine::with_seed(game.clone(), seed).unwrap();
                let loops = e.prog.asked.iter().all(|a| a.as_ref().is_some_and(|a| a.sets.is_some()));
                assert!(loops, "each phase's move asked by the loop itself");
                e.set_banks(if seed % 3 == 2 { &[0, 4] } else { &[] });
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                loop {
                    let ply = e.vm.pos.turn.ply;
                    for pl in 0..2 {
                        let at = format!("shape {shape}, stray {stray}, seed {seed}, ply {ply}, player {pl}");
                        seen[agree(&mut e, pl, &at).0] += 1;
                    }
                    match e.sample_move(&mut rng) {
                        Ok(Some(mv)) if e.apply(mv).is_ok() => {}
                        _ => break,
                    }
                }
            }
        }
        assert!(seen[0] > 20 && seen[1] > 100 && seen[2] > 5, "answers (no, yes, errors): {seen:?}");
    }

    /// The moves of tests/engine/state-lead.mancala listed and drawn by
    /// `StatePass` (asked in place: no banks) spend the work and leave the
    /// locals the general loop does (banks on a store, which turn it off),
    /// in each of the file's four shapes, at every position of seeded
    /// games; and `state_pass` takes each phase's move only without banks.
    #[test]
    fn a_state_lead_listed_and_drawn_in_place_spends_as_the_general_loop() {
        use super::super::sites::state_pass;
        let mut plies = 0;
        for shape in 0..4 {
            for least in ["0", "2"] {
                let settings =
                    vec![("shape".into(), shape.to_string()), ("least".into(), least.into()), ("k".into(), "6".into())];
                let cfg = Config { variants: vec![], settings };
                let game = compile_file("tests/engine/state-lead.mancala", &cfg)
                    .unwrap_or_else(|f| panic!("{}", f.render(false)));
                let game = Arc::new(game);
                for seed in 0..10 {
                    let mut fast = Engine::with_seed(game.clone(), seed).unwrap();
                    let mut general = Engine::with_seed(game.clone(), seed).unwrap();
                    let store = game.sites.iter().position(|s| s.name == "A").unwrap() as u16;
                    general.set_banks(&[store]);
                    for (e, taken) in [(&fast, true), (&general, false)] {
                        for a in e.prog.asked.iter().flatten() {
                            let (def, id) = (&e.prog.moves[a.def as usize], a.sets.as_ref().unwrap()[0]);
                            let c = &def.choices[0];
                            let t = state_pass(&e.prog, &e.vm, (def, c, c.filter.as_ref().unwrap()), id);
                            assert_eq!(t.is_some(), taken, "shape {shape}: `state_pass` with banks: {}", !taken);
                        }
                    }
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    for ply in 0..200 {
                        let at = format!("shape {shape}, least {least}, seed {seed}, ply {ply}");
                        for e in [&mut fast, &mut general] {
                            e.vm.locals.fill(-7);
                        }
                        assert_eq!(fast.legal_moves(&mut a), general.legal_moves(&mut b), "{at}");
                        assert_eq!(a, b, "{at}: the moves");
                        assert_eq!(fast.vm.fuel, general.vm.fuel, "{at}: work listing");
                        assert_eq!(fast.vm.locals, general.vm.locals, "{at}: locals listing");
                        let drawn = fast.sample_move(&mut rng.clone());
                        assert_eq!(drawn, general.sample_move(&mut rng), "{at}");
                        assert_eq!(fast.vm.fuel, general.vm.fuel, "{at}: work drawing");
                        assert_eq!(fast.vm.locals, general.vm.locals, "{at}: locals drawing");
                        let Ok(Some(mv)) = drawn else { break };
                        fast.apply(mv).unwrap();
                        general.apply(mv).unwrap();
                        plies += 1;
                    }
                }
            }
        }
        assert!(plies > 1_000, "only {plies} plies");
    }

    /// Asks `can_move` of `pl` and the search, and compares them: the same
    /// answer or error, steps of work and bank reads, and the caller's
    /// locals, frame, depth and player to move as they were. Gives 0 for
    /// no move, 1 for a move, 2 for an error, and whether a bank was read.
    fn agree(e: &mut Engine, pl: u8, at: &str) -> (usize, bool) {
        let (prog, vm) = (&*e.prog, &mut *e.vm);
        // Locals and a frame as a caller holds them.
        for (k, l) in vm.locals.iter_mut().enumerate() {
            *l = 1000 + k as i64;
        }
        let (locals, frame) = (vm.locals.clone(), vm.f);
        let (fuel, to_move) = (vm.fuel, vm.pos.turn.to_move);
        vm.bank_read = false;
        let fast = can_move(prog, vm, pl).map_err(Fault::halt);
        let fast = (fast, fuel - vm.fuel, vm.bank_read);
        assert_eq!(vm.locals, locals, "{at}: the caller's locals");
        assert_eq!((vm.f.mover, vm.f.next, vm.f.last), (frame.mover, frame.next, frame.last), "{at}");
        assert_eq!((vm.depth, vm.pos.turn.to_move), (0, to_move), "{at}");
        (vm.fuel, vm.bank_read) = (fuel, false);
        vm.pos.turn.to_move = pl;
        let mut sink = Sink::Any(false);
        let searched = raw(prog, vm, pl, &mut sink).map(|()| sink.done()).map_err(Fault::halt);
        vm.pos.turn.to_move = to_move;
        let searched = (searched, fuel - vm.fuel, vm.bank_read);
        vm.fuel = fuel;
        assert_eq!(fast, searched, "{at}");
        let answer = match fast.0 {
            Ok(any) => any as usize,
            Err(_) => 2,
        };
        (answer, fast.2)
    }
}
