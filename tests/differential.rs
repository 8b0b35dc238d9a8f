//! The compiled executor against the tree-walking one it replaced
//! (`engine::reference`): seeded random games of every shipped game and
//! variant, and of rule files that exercise many constructs, played through
//! both side by side. At every ply the legal moves, their names, counts,
//! samples, the position, its hash, and the result of every move (made or
//! refused, with the same error) must agree, and so must the outcome.

use std::sync::Arc;

mod common;

use mancala::compile::{Config, compile_file};
use mancala::engine::game::SiteKind;
use mancala::engine::reference::RefEngine;
use mancala::engine::{Engine, Move};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn compile(rules: &str, variants: &[&str], settings: &[(&str, &str)]) -> Arc<mancala::engine::game::Game> {
    let cfg = Config {
        variants: variants.iter().map(|s| s.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Arc::new(compile_file(rules, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

/// Every rule file of the library with its defaults, then with each of its
/// variants alone.
fn library_configurations() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for file in common::library() {
        let variants = compile(&file, &[], &[]).variants.iter().map(|v| vec![v.name.clone()]).collect::<Vec<_>>();
        out.extend(std::iter::once(vec![]).chain(variants).map(|v| (file.clone(), v)));
    }
    out
}

/// Plays `games` seeded random games through both executors.
fn agree(rules: &str, variants: &[&str], settings: &[(&str, &str)], games: u64, max_plies: usize) {
    let game = compile(rules, variants, settings);
    let what = format!("{rules} {variants:?} {settings:?}");
    let mut plies_total = 0;
    for seed in 0..games {
        let mut new = Engine::with_seed(game.clone(), seed).unwrap();
        let mut old = RefEngine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for ply in 0..max_plies {
            let at = format!("{what} seed {seed} ply {ply}");
            assert_eq!(new.position(), old.position(), "{at}: positions differ");
            assert_eq!(new.hash(), old.hash(), "{at}: hashes differ");
            let (ra, rb) = (new.legal_moves(&mut a), old.legal_moves(&mut b));
            assert_eq!(ra, rb, "{at}: listing the moves");
            if ra.is_err() {
                break;
            }
            assert_eq!(a, b, "{at}: legal moves differ");
            assert_eq!(new.count_moves(), old.count_moves(), "{at}: counts of moves differ");
            let (mut r1, mut r2) = (rng.clone(), rng.clone());
            assert_eq!(new.sample_move(&mut r1), old.sample_move(&mut r2), "{at}: samples differ");
            assert_eq!(new.move_summary(), old.move_summary(), "{at}: summaries differ");
            for &mv in a.iter().take(8) {
                let name = new.move_name(mv);
                assert_eq!(name, old.move_name(mv), "{at}: names differ");
                assert_eq!(new.find_move(&name), old.find_move(&name), "{at}: finding `{name}`");
            }
            if a.is_empty() {
                break;
            }
            // Now and then a move made, undone and made again; now and then
            // a move of another player's or a made-up one, which both must refuse.
            let mv = match rng.gen_range(0..20) {
                0 => Move { def: 0, args: [rng.gen_range(0..game.sites.len() as i32), 1, 0, 0], order: 0 },
                _ => a[rng.gen_range(0..a.len())],
            };
            // Now and then two plies looked ahead and taken back first, as a
            // search does: what the engine keeps between moves (tables made
            // for the state's values) must not outlive them.
            if ply % 7 == 3 {
                let first = a[rng.gen_range(0..a.len())];
                let made = new.apply(first);
                assert_eq!(made, old.apply(first), "{at}: looking at {first:?}");
                if made.is_ok() {
                    let (mut c, mut d) = (Vec::new(), Vec::new());
                    let listed = new.legal_moves(&mut c);
                    assert_eq!(listed, old.legal_moves(&mut d), "{at}: after {first:?}");
                    assert_eq!(c, d, "{at}: moves after {first:?}");
                    if listed.is_ok() && !c.is_empty() {
                        let second = c[rng.gen_range(0..c.len())];
                        let made = new.apply(second);
                        assert_eq!(made, old.apply(second), "{at}: looking at {second:?}");
                        assert_eq!(new.position(), old.position(), "{at}: two plies on");
                        if made.is_ok() {
                            assert!(new.undo() && old.undo());
                        }
                    }
                    assert!(new.undo() && old.undo());
                    assert_eq!(new.position(), old.position(), "{at}: back from looking ahead");
                }
            }
            let (x, y) = (new.apply(mv), old.apply(mv));
            assert_eq!(x, y, "{at}: making {mv:?}");
            if x.is_ok() && ply % 5 == 0 {
                assert!(new.undo() && old.undo());
                assert_eq!(new.position(), old.position(), "{at}: undo");
                assert_eq!(new.apply(mv), old.apply(mv), "{at}: making {mv:?} again");
            }
            plies_total += 1;
        }
        assert_eq!(new.outcome(), old.outcome(), "{what} seed {seed}: outcomes differ");
        assert_eq!(new.scores(), old.scores(), "{what} seed {seed}: scores differ");
    }
    assert!(plies_total > games as usize, "{what}: games too short to be real");
}

#[test]
fn kalah_in_every_variant() {
    for v in [&[][..], &["standard"], &["empty-capture"]] {
        agree("rules/kalah.mancala", v, &[], 60, 400);
    }
    agree("rules/kalah.mancala", &[], &[("pits", "1"), ("stones", "6")], 40, 400);
    agree("rules/kalah.mancala", &["standard"], &[("pits", "8"), ("stones", "6")], 40, 400);
    agree("tests/variants/kalah-no-extra-turn.mancala", &[], &[], 40, 400);
}

#[test]
fn cups() {
    for cups in ["3", "4", "10"] {
        agree("rules/cups.mancala", &[], &[("cups", cups)], 30, 300);
    }
}

#[test]
fn spectral_reapers() {
    for seats in ["2", "3", "6"] {
        agree("rules/spectral-reapers.mancala", &[], &[("seats", seats)], 6, 300);
    }
}

#[test]
fn tea_party_in_every_variant() {
    for v in [
        &[][..],
        &["whistle-stop"],
        &["pinky-extension"],
        &["tea-for-two-couples"],
        &["spotted-sugar-cubes"],
        &["whistle-stop", "pinky-extension", "tea-for-two-couples"],
    ] {
        agree("rules/tea-party.mancala", v, &[], 12, 200);
    }
}

/// Steps as long as a number can be, both ways, round a cyclic track and
/// off a linear one, and laps started further along a linear track
/// (tests/engine/steps.mancala), against the reference executor.
#[test]
fn steps_of_any_length() {
    for k in ["2", "4", "7"] {
        agree("tests/engine/steps.mancala", &[], &[("k", k)], 60, 300);
    }
    let made = moves_made("tests/engine/steps.mancala", &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
}

#[test]
fn a_rule_file_of_many_constructs() {
    agree("tests/engine/mixed.mancala", &[], &[], 150, 300);
    agree("tests/engine/mixed.mancala", &["dice"], &[("k", "7")], 150, 300);
    agree("tests/engine/mixed.mancala", &[], &[("k", "2")], 100, 300);
}

/// Skips found once a lap (`it == x`), beside skips asked at each counter
/// or tabulated for the state they read; with `faulty`, an `x` that goes
/// wrong must go wrong as it did when asked at each counter.
#[test]
fn sowing_skips_in_every_form() {
    for k in ["2", "3", "5"] {
        agree("tests/engine/skips.mancala", &[], &[("k", k)], 100, 300);
        agree("tests/engine/skips.mancala", &[], &[("k", k), ("faulty", "true")], 60, 300);
    }
    // A skip of state alone that goes wrong at the stores does, when the
    // sowing reaches one (and the games that do not reach one go on).
    let messages = faults("tests/engine/skips.mancala", &[("faulty", "true")], 100);
    // So does a skip of the site alone that goes wrong at the stores: at
    // the store the counter reached (north's at `B`), never at the first
    // store of the track, where no counter went.
    for want in ["`marked` is kept for every pit", "`A` is not on track `inner`", "`B` is not on track `inner`"] {
        assert!(messages.iter().any(|m| m.contains(want)), "no game met `{want}`: {messages:?}");
    }
    assert!(messages.len() < 100, "every game went wrong: {messages:?}");
}

/// Functions of one site, looked up in tables, against the reference
/// executor (which evaluates them each time); with `bold`, one goes wrong
/// at some sites, and must go wrong there alone, with its message.
#[test]
fn functions_of_a_site() {
    for k in ["2", "4", "6"] {
        agree("tests/engine/site-functions.mancala", &[], &[("k", k)], 100, 300);
        agree("tests/engine/site-functions.mancala", &[], &[("k", k), ("bold", "true")], 60, 300);
    }
    // The message names the member as the rule file would: `a[5]`.
    let game = compile("tests/engine/site-functions.mancala", &[], &[("bold", "true")]);
    let message = (0..50u64)
        .find_map(|seed| move_gone_wrong(&game, seed))
        .expect("some game asks next-over(last) at the end of a row");
    assert!(message.contains("has no member 5"), "{message}");
}

/// Functions of the mover alone, folded for each player before play
/// (tests/engine/mover-functions.mancala: a site, a number, a set counted,
/// quantified and summed, a track), against the reference executor and the
/// program that works every place out; a function that folds for one
/// player only is worked out as written, and with `bold` it goes wrong for
/// the other, with its message. The rules' parts are made and asked: some
/// games are long enough for the rarer rules to fire.
#[test]
fn functions_of_the_mover() {
    let file = "tests/engine/mover-functions.mancala";
    let plies = on_boards(file, 100, 300);
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k), ("bold", "true")], 60, 300);
    }
    assert!(plies > 3_000, "only {plies} plies played");
    let messages = faults(file, &[("bold", "true")], 40);
    assert!(messages.len() > 10, "{messages:?}");
    assert!(messages.iter().all(|m| m.contains("has no member 5")), "{messages:?}");
}

/// Comparisons whose operands the executor reads in place, by their
/// shapes, against the reference executor; with `faulty`, an operand is
/// sometimes `none` and `last` sometimes read before any sowing: both
/// executors must go wrong at the same moves, with the same messages.
#[test]
fn comparisons_of_every_shape() {
    let file = "tests/engine/shapes.mancala";
    for k in ["2", "4", "6", "9"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("faulty", "true")], 100, 300);
    }
    // The faults happen, part way through games, with their messages.
    let messages = faults(file, &[("faulty", "true")], 200);
    let wants = [
        "expected a site, but there is none here",
        "expected a player",
        "`last` is used before any sowing",
        "`seen` is kept for every pit",
        "relation `across` names no site for",
    ];
    for want in wants {
        assert!(
            messages.iter().any(|m| m.contains(want)),
            "no game met `{want}`: {:?}",
            &messages[..messages.len().min(9)]
        );
    }
    // The count of the store of no player (read in place, as the
    // store of a local or constant player is) goes wrong as it should.
    for k in ["2", "6"] {
        agree(file, &[], &[("k", k), ("nobody", "true")], 100, 300);
    }
    let messages = faults(file, &[("nobody", "true")], 50);
    assert!(
        messages.iter().any(|m| m.contains("expected a player")),
        "no game counted the store of no player: {:?}",
        &messages[..messages.len().min(9)]
    );
}

/// Expressions of fixed values, worked out once before play
/// (`program/fold.rs`; tests/engine/folds.mancala), against the reference
/// executor, which works them out at every use; with `fault`, a fixed part
/// that goes wrong (a number too large, a division by zero, a family
/// member that is not there, beside `and false` or keyed by `none`) still
/// goes wrong when it is asked, part way through a game, with its message.
#[test]
fn fixed_values_worked_out_once() {
    let file = "tests/engine/folds.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
    }
    let cases = [("1", "too large"), ("2", "division by zero"), ("3", "has no member 5"), ("4", "has no member none")];
    for (fault, message) in cases {
        let settings = [("fault", fault), ("big", "2000000000")];
        agree(file, &[], &settings, 60, 300);
        let messages = faults(file, &settings, 40);
        assert!(messages.len() > 10, "fault {fault}: {messages:?}");
        assert!(messages.iter().all(|m| m.contains(message)), "fault {fault}: {messages:?}");
        assert!(messages.iter().any(|m| !m.starts_with("ply 0:")), "fault {fault}: {messages:?}");
    }
    // With `big` small, `big * big * big` is a number like any other.
    assert!(faults(file, &[("fault", "1")], 40).is_empty());
}

/// Number state variables stepped by a fixed number (`set hand = hand -
/// 1`, `set n = 2 + n`, a step an option fixes, a variable never set
/// before, a step of 0), which the executor sets in one step
/// (tests/engine/tallies.mancala), against the reference executor. With
/// `fault`, a step past the largest number goes wrong part way through a
/// game, at the sum, in both.
#[test]
fn number_variables_stepped_by_a_fixed_number() {
    let file = "tests/engine/tallies.mancala";
    for (k, fall) in [("2", "0"), ("4", "3"), ("6", "9")] {
        agree(file, &[], &[("k", k), ("fall", fall)], 60, 300);
    }
    assert!(faults(file, &[], 40).is_empty());
    let settings = [("fault", "true")];
    agree(file, &[], &settings, 40, 300);
    let messages = faults(file, &settings, 40);
    assert!(messages.len() > 10, "{messages:?}");
    assert!(
        messages.iter().all(|m| m.starts_with("ply 5:") && m.contains("too large") && m.contains("`big + 7`")),
        "{messages:?}"
    );
}

/// Relays that go on while a per-site state of `last` has a value and it
/// holds enough (`held(last) == none and count(last) > 1`, the comparison
/// either way round, of a player or a number), whose laps run in one loop
/// with the state read in place (tests/engine/relay-state.mancala), against
/// the reference executor. With `faulty`, a relay along a track with the
/// stores asks the state of a store, which goes wrong in both, at the same
/// ply and with the same message.
#[test]
fn relays_that_ask_a_state_of_last() {
    let file = "tests/engine/relay-state.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 40, 300);
        agree(file, &[], &[("k", k), ("faulty", "true")], 30, 300);
    }
    let made = moves_made(file, &[], 30);
    assert!(made.iter().take(3).all(|&n| n > 100), "moves made of each kind: {made:?}");
    assert!(faults(file, &[], 40).is_empty());
    let messages = faults(file, &[("faulty", "true")], 40);
    assert!(messages.len() > 20, "{messages:?}");
    assert!(messages.iter().all(|m| m.contains("`held` is kept for every pit")), "{messages:?}");
}

/// Family members by a key known only during play (`a[i]`, `bank[mover]`,
/// `row[mover]`): the executor finds them in an array by the key, the
/// reference executor in the family. With `fault`, a key with no member is
/// asked part way through a game (0, below the first; negative; past the
/// last), or one too large to work out (a key a number plus a constant,
/// worked out in place until it overflows), and goes wrong with its message
/// in both.
#[test]
fn family_members_by_a_key_known_in_play() {
    let file = "tests/engine/families.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 60, 300);
    }
    assert!(faults(file, &[], 40).is_empty());
    let cases =
        [("1", "`a` has no member 0"), ("2", "`b` has no member -"), ("3", "`a` has no member "), ("4", "too large")];
    for (fault, message) in cases {
        let settings = [("fault", fault)];
        agree(file, &[], &settings, 60, 300);
        let messages = faults(file, &settings, 40);
        assert!(messages.len() > 10, "fault {fault}: {messages:?}");
        assert!(messages.iter().all(|m| m.contains(message)), "fault {fault}: {messages:?}");
        assert!(messages.iter().any(|m| !m.starts_with("ply 0:")), "fault {fault}: {messages:?}");
    }
}

/// `where`s that begin with a least count of the site and go on, read as
/// the count in place and then the rest: one choice, and two of a move
/// that must be tried; with `faulty`, the rest goes wrong where the count
/// lets it be asked, with its message.
#[test]
fn wheres_led_by_a_least_count() {
    let file = "tests/engine/lead.mancala";
    agree_least_and_faulty(file);
    // Every move but `probe` is made, and the rest goes wrong in some
    // games, not all.
    let game = compile(file, &[], &[]);
    let mut made = vec![0; game.moves.len()];
    for seed in 0..20 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..300 {
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            e.apply(mv).unwrap();
            made[mv.def as usize] += 1;
        }
    }
    // `probe` is made only with `stray` (its domain is empty without).
    let (probe, others) = made.split_last().unwrap();
    assert!(*probe == 0 && others.iter().all(|&n| n > 20), "moves made of each kind: {made:?}");
    let messages = faults(file, &[("faulty", "true")], 60);
    let want = "expected a site, but there is none here";
    assert!(messages.iter().any(|m| m.contains(want)), "no game met `{want}`: {messages:?}");
    assert!(messages.len() < 60, "every game went wrong: {messages:?}");
    // A state compared in place at a site of a kind it is not kept for.
    for k in ["3", "6"] {
        agree(file, &[], &[("k", k), ("least", "1"), ("stray", "true")], 30, 300);
    }
    let messages = faults(file, &[("stray", "true")], 30);
    let want = "`held` is kept for every pit; `A` is a store";
    assert!(messages.iter().filter(|m| m.contains(want)).count() > 5, "`{want}`: {messages:?}");
    assert!(messages.iter().any(|m| !m.starts_with("ply 0:")), "{messages:?}");
}

/// A phase's only move choosing a site by a least count and a test of a
/// per-site state for none (tests/engine/state-lead.mancala: Toguz
/// Kumalak's `where`), listed and drawn with each site asked in place: the
/// four shapes (`and`/`or`, `== none`/`!= none`), a move that needs
/// counters and one that does not, against the reference executor (the
/// program as written asks it in place too: `movegen::any`'s tests compare
/// it with the general loop); with `stray`, a set that holds a store, where
/// the test goes wrong.
#[test]
fn wheres_of_a_count_and_a_state_tested_for_none() {
    let file = "tests/engine/state-lead.mancala";
    for shape in ["0", "1", "2", "3"] {
        for least in ["0", "2"] {
            for k in ["2", "4", "6"] {
                agree(file, &[], &[("k", k), ("least", least), ("shape", shape)], 20, 200);
            }
        }
        // Both moves are made; with the `and`s, passes too (a player stuck
        // while the other can move).
        let game = compile(file, &[], &[("shape", shape)]);
        let mut made = [0; 3];
        for seed in 0..20 {
            let mut e = Engine::with_seed(game.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(mv) = e.sample_move(&mut rng).unwrap() {
                e.apply(mv).unwrap();
                made[(mv.def as usize).min(2)] += 1;
            }
        }
        let passes = if shape < "2" { 20 } else { 0 };
        assert!(made[0] > 20 && made[1] > 20 && made[2] >= passes, "shape {shape}: sow, lift, pass: {made:?}");
    }
    for k in ["4", "6"] {
        agree(file, &[], &[("k", k), ("least", "2"), ("stray", "true")], 20, 200);
    }
    let messages = faults(file, &[("least", "2"), ("stray", "true")], 20);
    let want = |m: &&String| m.contains("`mark` is kept for every pit; `") && m.contains("` is a store");
    assert!(messages.iter().filter(want).count() > 5, "{messages:?}");
    assert!(messages.iter().any(|m| !m.starts_with("ply 0:")), "{messages:?}");
}

/// `agree` on `file` with `k` 3 and 6, `least` 0 to 2, and `faulty` off
/// and on.
fn agree_least_and_faulty(file: &str) {
    for k in ["3", "6"] {
        for least in ["0", "1", "2"] {
            agree(file, &[], &[("k", k), ("least", least)], 30, 300);
            agree(file, &[], &[("k", k), ("least", least), ("faulty", "true")], 30, 300);
        }
    }
}

/// Whether a player can move, when each phase's only move chooses one site
/// and needs no trial, found by that move's loop alone (after each move,
/// for `when stuck`, and by `can-move` of a quantifier's variable in an
/// `end`): a `where` asked whole at each site, one with a guard and a
/// quantifier, one asked by count (tests/engine/asked.mancala); with
/// `faulty`, the first `where` goes wrong at some sites, where the search
/// meets them.
#[test]
fn can_move_by_the_loop_of_a_phase_s_only_move() {
    let file = "tests/engine/asked.mancala";
    agree_least_and_faulty(file);
    // Each phase's move is made, and the faulty `where` goes wrong, after
    // some moves.
    let made = moves_made(file, &[], 30);
    assert!(made.iter().all(|&n| n > 20), "moves made of each kind: {made:?}");
    let messages = faults(file, &[("faulty", "true")], 30);
    let want = "expected a site, but there is none here";
    assert!(messages.len() > 5 && messages.iter().all(|m| m.contains(want)), "{messages:?}");
    assert!(messages.iter().all(|m| !m.starts_with("ply 0:")), "{messages:?}");
}

/// A listing that runs past the work budget as written does in both
/// executors alike, whatever the executor keeps: the rest of a `where`
/// led by a least count is asked at every value, as the whole `where`
/// was, even when it reads an earlier choice alone (lead-fuel); a part
/// kept once a search (memo-fuel-closed) or for each count (memo-fuel-
/// count) spends at each read the work it took. With less work a part
/// (`steps`), both list the same moves.
#[test]
fn listings_past_the_work_budget_go_wrong_alike() {
    for (file, option) in [
        ("tests/engine/lead-fuel.mancala", false),
        ("tests/engine/memo-fuel-closed.mancala", true),
        ("tests/engine/memo-fuel-count.mancala", true),
    ] {
        let listings = |settings: &[(&str, &str)]| {
            let game = compile(file, &[], settings);
            let mut new = Engine::with_seed(game.clone(), 1).unwrap();
            let mut old = RefEngine::with_seed(game, 1).unwrap();
            assert!(new.memos() > 0, "{file}: nothing kept");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let listed = new.legal_moves(&mut a);
            assert_eq!(listed, old.legal_moves(&mut b), "{file}");
            (listed, a, b)
        };
        let (listed, _, _) = listings(&[]);
        let fault = format!("{:?}", listed.expect_err("past the work budget"));
        assert!(fault.contains("steps"), "{file}: {fault}");
        if option {
            let (listed, a, b) = listings(&[("steps", "100")]);
            assert!(listed.is_ok() && !a.is_empty() && a == b, "{file}: {listed:?} {a:?} {b:?}");
        }
    }
}

/// A phase's change whose condition an `end` asks first
/// (tests/engine/phase-lead.mancala; `program/leads.rs`): where the change
/// found it false and the phase stays, the `end` does not ask it again;
/// where the phase changes, it does. The same moves, positions and errors
/// as the reference executor and as the program that works every place
/// out (`Engine::without_memos`), on boards of 2 to 6 pits a side; the
/// phase changes both ways, and the `end` ends games.
#[test]
fn a_phase_change_read_again_by_an_end() {
    let file = "tests/engine/phase-lead.mancala";
    let plies = on_boards(file, 60, 400);
    assert!(plies > 3_000, "only {plies} plies played");
    // The moves of each phase made (passes aside), and games that end by
    // `end settled`: its statements empty every pit.
    let game = compile(file, &[], &[]);
    let (mut made, mut settled) = (vec![0; game.moves.len()], 0);
    for seed in 0..40 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..5_000 {
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            e.apply(mv).unwrap();
            if let Some(n) = made.get_mut(mv.def as usize) {
                *n += 1;
            }
        }
        let counts = &e.position().counts;
        settled += (e.position().turn.ended && counts[0..4].iter().chain(&counts[5..9]).all(|&c| c == 0)) as u32;
    }
    assert!(made.iter().all(|&n| n > 20), "moves made of each kind: {made:?}");
    assert!(settled > 10, "only {settled} games settled");
}

/// The `end` that does not ask again what a phase's change found false
/// spends the work that took (tests/engine/phase-lead.mancala): with
/// `steps` 15,000, one ask of `calm()` fits the work budget of a move and
/// two do not, and the first move goes wrong as in the program that asks
/// it twice (`Engine::without_memos`; the reference executor counts the
/// work of a quantifier otherwise); with 8,000 both fit, and it is made.
#[test]
fn a_phase_change_read_again_spends_its_work_again() {
    let file = "tests/engine/phase-lead.mancala";
    for (steps, fits) in [("15000", false), ("8000", true)] {
        let game = compile(file, &[], &[("steps", steps)]);
        let mut new = Engine::with_seed(game.clone(), 1).unwrap();
        let mut written = Engine::without_memos(game, 1).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        new.legal_moves(&mut a).unwrap();
        written.legal_moves(&mut b).unwrap();
        assert_eq!(a, b, "steps {steps}");
        let made = new.apply(a[0]);
        assert_eq!(made, written.apply(a[0]), "steps {steps}");
        assert_eq!(new.position(), written.position(), "steps {steps}");
        match fits {
            true => assert!(made.is_ok(), "steps {steps}: {made:?}"),
            false => {
                let fault = format!("{:?}", made.expect_err("past the work budget"));
                assert!(fault.contains("steps"), "steps {steps}: {fault}");
            }
        }
    }
}

/// The faults that end seeded random games (one game a seed, played until
/// it ends or goes wrong), each with the ply it happened at.
fn faults(file: &str, settings: &[(&str, &str)], seeds: u64) -> Vec<String> {
    let game = compile(file, &[], settings);
    let mut messages = Vec::new();
    for seed in 0..seeds {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        loop {
            match e.sample_move(&mut rng).and_then(|mv| mv.map_or(Ok(false), |mv| e.apply(mv).map(|_| true))) {
                Ok(true) => {}
                Ok(false) => break,
                Err(h) => {
                    messages.push(format!("ply {}: {h:?}", e.position().turn.ply));
                    break;
                }
            }
        }
    }
    messages
}

/// A relay with a limit on its laps (which makes the rules try its move)
/// that the options kill, and a rule that goes wrong after the sowing now
/// and then (tests/engine/dead-relay-errors.mancala): dead as written,
/// dead only once folded, and alive, both executors try the same moves and
/// so meet the errors alike, while looking for moves or making one (fuzz
/// campaign 3012, case 20939: the program spared a trial the rules as
/// written make, and counted moves where the reference met an error).
#[test]
fn a_dead_relay_spares_the_same_trials_in_both_executors() {
    let file = "tests/engine/dead-relay-errors.mancala";
    let settings: [&[(&str, &str)]; 3] = [&[], &[("relay", "true"), ("reach", "25")], &[("relay", "true")]];
    for s in settings {
        agree(file, &[], s, 30, 200);
        let met = faults(file, s, 30);
        assert!(met.len() >= 10, "{s:?}: errors met in only {} of 30 games: {met:?}", met.len());
    }
}

/// Which sites' counts the rules read: with some sites set as banks (as
/// the solver sets the stores), both executors must say alike, after
/// listing the moves, counting them, drawing one and making one, whether the rules read
/// a bank (the solver trusts a "no"). The banks are the stores, then a pit
/// of each side, which nearly every move reads.
#[test]
fn banks_are_read_alike() {
    type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        ("rules/kalah.mancala", &["standard"], &[]),
        ("rules/kalah.mancala", &[], &[]),
        ("tests/engine/shapes.mancala", &[], &[("k", "4")]),
        ("tests/engine/shapes.mancala", &[], &[("k", "9")]),
        ("tests/engine/mixed.mancala", &[], &[]),
        ("tests/engine/counted.mancala", &[], &[("heap", "true")]),
        ("tests/engine/least.mancala", &[], &[("least", "2")]),
        ("tests/engine/lead.mancala", &[], &[("least", "1")]),
        ("tests/engine/wide.mancala", &[], &[]),
    ];
    for &(file, variants, settings) in cases {
        let game = compile(file, variants, settings);
        let stores: Vec<_> =
            (0..game.sites.len() as u16).filter(|&s| game.sites[s as usize].kind.word() == "store").collect();
        let pits = [1, game.sites.len() as u16 - 3];
        let mut reads = 0;
        for banks in [&stores[..], &pits[..]] {
            for seed in 0..20u64 {
                let at = |ply| format!("{file} {settings:?} banks {banks:?} seed {seed} ply {ply}");
                let mut new = Engine::with_seed(game.clone(), seed).unwrap();
                let mut old = RefEngine::with_seed(game.clone(), seed).unwrap();
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for ply in 0..200 {
                    new.set_banks(banks);
                    old.set_banks(banks);
                    let listed = new.legal_moves(&mut a);
                    assert_eq!(listed, old.legal_moves(&mut b), "{}", at(ply));
                    assert_eq!(new.bank_read(), old.bank_read(), "{}: listing", at(ply));
                    reads += new.bank_read() as usize;
                    new.set_banks(banks);
                    old.set_banks(banks);
                    assert_eq!(new.count_moves(), old.count_moves(), "{}", at(ply));
                    assert_eq!(new.bank_read(), old.bank_read(), "{}: counting", at(ply));
                    new.set_banks(banks);
                    old.set_banks(banks);
                    let drawn = new.sample_move(&mut rng.clone());
                    assert_eq!(drawn, old.sample_move(&mut rng.clone()), "{}", at(ply));
                    assert_eq!(new.bank_read(), old.bank_read(), "{}: drawing", at(ply));
                    if listed.is_err() || a.is_empty() {
                        break;
                    }
                    let mv = a[rng.gen_range(0..a.len())];
                    new.set_banks(banks);
                    old.set_banks(banks);
                    let made = new.apply(mv);
                    assert_eq!(made, old.apply(mv), "{}", at(ply));
                    assert_eq!(new.bank_read(), old.bank_read(), "{}: making {mv:?}", at(ply));
                    if made.is_err() {
                        break;
                    }
                }
            }
        }
        assert!(reads > 0, "{file}: no bank was ever read");
    }
}

/// `where`s that begin with terms reading nothing of the choice: the
/// executor asks those once for all the sites and, while they hold, lists
/// the moves as if there were no `where`; the reference executor asks the
/// whole `where` at each site. With `bold`, a later term goes wrong at
/// some sites, and with `risky` the first term at some positions: both
/// executors must go wrong at the same plies with the same message.
#[test]
fn wheres_waived_by_their_first_terms() {
    let file = "tests/engine/waivers.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("bold", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 60, 300);
    }
    // The failures above happen, and part way through games.
    for (option, message) in [("bold", "has no member 5"), ("risky", "none")] {
        fail_part_way(file, option, message);
    }
}

/// A `where` of which the waiver covers some terms and not another (with
/// `partial`, between them): while the waiver holds, the executor asks the
/// others alone, in their order; the reference executor asks the whole
/// `where`. With `bold`, the term left goes wrong at the end of a row.
#[test]
fn wheres_partly_waived() {
    let file = "tests/engine/waivers.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k), ("partial", "true")], 100, 300);
        agree(file, &[], &[("k", k), ("partial", "true"), ("bold", "true")], 60, 300);
    }
}

/// How many times each move declaration of `file` (with `settings`) is
/// made in `seeds` seeded random games, played to their end.
fn moves_made(file: &str, settings: &[(&str, &str)], seeds: u64) -> Vec<usize> {
    let game = compile(file, &[], settings);
    let mut made = vec![0; game.moves.len()];
    for seed in 0..seeds {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(mv) = e.sample_move(&mut rng).unwrap() {
            e.apply(mv).unwrap();
            made[mv.def as usize] += 1;
        }
    }
    made
}

/// Random games of `file` with `option` on: some go wrong, after their
/// first plies, and every one with `message`.
fn fail_part_way(file: &str, option: &str, message: &str) {
    let game = compile(file, &[], &[(option, "true")]);
    let failed = (0..40u64)
        .filter_map(|seed| {
            let mut e = Engine::with_seed(game.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for ply in 0.. {
                match e.sample_move(&mut rng) {
                    Ok(Some(mv)) => e.apply(mv).ok()?,
                    Ok(None) => return None,
                    Err(h) => return Some((ply, format!("{h:?}"))),
                }
            }
            None
        })
        .collect::<Vec<_>>();
    assert!(failed.iter().any(|(ply, _)| *ply > 2), "{option}: {failed:?}");
    assert!(failed.iter().all(|(_, m)| m.contains(message)), "{option}: {failed:?}");
}

/// `where`s that begin with `and` terms reading nothing of the choice: the
/// executor asks those once for all the values of a choice (sites, numbers,
/// players; one choice or two) and, while they fail, tries none; the
/// reference executor asks the whole `where` at each value. With `risky`,
/// a first term goes wrong at some positions; with `shaky`, a term before
/// which closed terms must not be moved; with `wild`, a choice's
/// domain, whatever its `where` would say: both executors must go wrong at
/// the same plies with the same message.
#[test]
fn wheres_guarded_by_their_first_terms() {
    let file = "tests/engine/guards.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("wild", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("shaky", "true")], 60, 300);
    }
    fail_part_way(file, "risky", "none");
    fail_part_way(file, "shaky", "none");
    fail_part_way(file, "wild", "none");
    // Each kind of move is made: each guard both holds and fails.
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
}

/// `where`s written by cases of conditions that read nothing of the choice
/// (tests/engine/cases.mancala): the executor asks those once for all the
/// values of a choice (sites, tracks, numbers, players; a phase's only
/// move drawn without a list, and moves of two choices) and asks each
/// value the `where` of their case; the reference executor asks the whole
/// `where` at each value. With `risky`, a decision goes wrong at some
/// positions; with `bold`, a term left before an `and` its decision makes
/// false goes wrong; with `deep`, decisions nest past the most asked in
/// turn: both executors must go wrong at the same plies with the same
/// message.
#[test]
fn wheres_by_cases_of_closed_conditions() {
    let file = "tests/engine/cases.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("bold", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("deep", "true")], 60, 300);
    }
    fail_part_way(file, "risky", "none");
    fail_part_way(file, "bold", "has no member");
    // Each kind of move is made.
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
}

/// `where`s with a later decision (tests/engine/later.mancala): a closed
/// condition past terms that cannot go wrong, which the executor asks once
/// for all the pits, free of work, and the reference executor as part of the
/// whole `where` at each pit (a phase's only move drawn without a list, moves
/// listed). With `risky`, the decision goes wrong at some positions: both
/// executors at the same plies with the same message. Each move is made,
/// and the single's `where` passes a pit of one counter (its decision
/// false) as well as one of more.
#[test]
fn wheres_with_a_later_decision() {
    let file = "tests/engine/later.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 60, 300);
    }
    fail_part_way(file, "risky", "none");
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
    let game = compile(file, &[], &[]);
    let mut sown = [0; 2];
    for seed in 0..40 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(mv) = e.sample_move(&mut rng).unwrap() {
            if mv.def == 0 {
                sown[(e.position().counts[mv.args[0] as usize] > 1) as usize] += 1;
            }
            e.apply(mv).unwrap();
        }
    }
    assert!(sown.iter().all(|&n| n > 5), "single pits, pits of more sown: {sown:?}");
}

/// A later decision is asked free of work (tests/engine/later-fuel.mancala):
/// at the start no pit asks the first move's, a loop of twelve million
/// steps, and the second move's kept part spends ten million as written.
/// Both executors list the same moves; with a kept part twice as heavy,
/// both run past the work budget.
#[test]
fn a_later_decision_is_asked_free_of_work() {
    let file = "tests/engine/later-fuel.mancala";
    let listings = |settings: &[(&str, &str)]| {
        let game = compile(file, &[], settings);
        let mut new = Engine::with_seed(game.clone(), 1).unwrap();
        let mut old = RefEngine::with_seed(game, 1).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let listed = new.legal_moves(&mut a);
        assert_eq!(listed, old.legal_moves(&mut b));
        (listed, a, b)
    };
    let (listed, a, b) = listings(&[]);
    assert!(listed.is_ok() && a.len() == 16 && a == b, "{listed:?} {a:?} {b:?}");
    let (listed, _, _) = listings(&[("burn", "1300")]);
    let fault = format!("{:?}", listed.expect_err("past the work budget"));
    assert!(fault.contains("steps"), "{fault}");
}

/// `where`s that name the only values that can pass (`y == opposite(x) or
/// ...`; tests/engine/pins.mancala): the executor works the named values
/// out once for all the values of a choice (sites, tracks, numbers,
/// players) and asks any other value only the terms before the naming
/// one; the reference executor asks the whole `where` at each value. With
/// `risky`, one of those terms goes wrong at a value not named; with
/// `wild`, a value named goes wrong: both executors must go wrong at the
/// same plies with the same message.
#[test]
fn wheres_that_name_their_values() {
    let file = "tests/engine/pins.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("wild", "true")], 60, 300);
        agree(file, &[], &[("k", k), ("looped", "true"), ("kept", "true")], 60, 300);
    }
    fail_part_way(file, "risky", "none");
    fail_part_way(file, "wild", "none");
    // Each kind of move is made.
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
    // `broken`: a term before the naming one goes wrong at a store not
    // named, from the start: in both, the moves cannot be listed,
    // counted or drawn.
    let game = compile(file, &[], &[("broken", "true")]);
    let mut new = Engine::with_seed(game.clone(), 1).unwrap();
    let mut old = RefEngine::with_seed(game, 1).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let listed = new.legal_moves(&mut a);
    assert_eq!(listed, old.legal_moves(&mut b));
    assert!(format!("{listed:?}").contains("`marked` is kept for every pit"), "{listed:?}");
    assert_eq!(new.count_moves(), old.count_moves());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    assert_eq!(new.sample_move(&mut rng.clone()), old.sample_move(&mut rng));
}

/// Values named in increasing order, each once (tests/engine/pins-in-
/// order.mancala: numbers, tracks and players): the executor visits only
/// those and spends the work of the values between them in one. Named the
/// other way round (`flip`), it visits every value, as before. At every
/// ply of seeded games the two list the same moves and spend the same
/// work, and each agrees with the reference executor. A hundred thousand
/// numbers sixty times at each of the mover's four pits run past the work
/// budget (twenty million steps) in both, with the same error; forty
/// times do not, and take the same work.
#[test]
fn values_named_in_order_spend_the_work_of_every_value() {
    let file = "tests/engine/pins-in-order.mancala";
    for flip in ["false", "true"] {
        agree(file, &[], &[("flip", flip)], 40, 200);
    }
    let (ordered, flipped) = (compile(file, &[], &[]), compile(file, &[], &[("flip", "true")]));
    let mut made = [0; 3];
    for seed in 0..40u64 {
        let mut a = Engine::with_seed(ordered.clone(), seed).unwrap();
        let mut b = Engine::with_seed(flipped.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut ma, mut mb) = (Vec::new(), Vec::new());
        for ply in 0.. {
            a.legal_moves(&mut ma).unwrap();
            b.legal_moves(&mut mb).unwrap();
            assert_eq!(ma, mb, "seed {seed} ply {ply}: moves");
            assert_eq!(a.work_spent(), b.work_spent(), "seed {seed} ply {ply}: work spent listing {ma:?}");
            let Some(&mv) = ma.get(rng.gen_range(0..ma.len().max(1))) else { break };
            made[mv.def as usize] += 1;
            a.apply(mv).unwrap();
            b.apply(mv).unwrap();
        }
    }
    assert!(made.iter().all(|&n| n > 20), "moves made of each kind: {made:?}");
    for (times, fits) in [("40", true), ("60", false)] {
        let listed = ["false", "true"].map(|flip| {
            let settings = [("span", "100000"), ("times", times), ("flip", flip)];
            let mut e = Engine::with_seed(compile(file, &[], &settings), 1).unwrap();
            let mut moves = Vec::new();
            let listed = e.legal_moves(&mut moves);
            (listed, moves, e.work_spent())
        });
        assert_eq!(listed[0], listed[1], "times {times}");
        let (listed, moves, spent) = &listed[0];
        assert_eq!(listed.is_ok(), fits, "times {times}: {listed:?}, {spent} steps");
        if fits {
            assert!(*spent > 16_000_000 && moves.len() == 4 * 40 + 8, "times {times}: {spent} steps, {moves:?}");
        } else {
            assert!(format!("{listed:?}").contains("steps"), "times {times}: {listed:?}");
        }
    }
}

/// `any` and `all` over sites whose body compares the site's count with a
/// number, read straight from the counts, and `where`s that read the
/// chosen site only by its count, worked out once for each count met
/// (tests/engine/counted.mancala): the same as the reference executor,
/// which asks every body and `where` at every site, on small and large
/// boards, with counts past those kept (`heap`; `heaped` 70, past those
/// answered while a set is looked through), and with a `where` that goes
/// wrong now and then (`risky`): at the same plies, with the same message.
#[test]
fn counts_compared_in_place_and_wheres_kept_by_count() {
    let file = "tests/engine/counted.mancala";
    for k in ["2", "4", "8"] {
        for heap in ["false", "true"] {
            agree(file, &[], &[("k", k), ("heap", heap)], 60, 300);
            agree(file, &[], &[("k", k), ("heap", heap), ("risky", "true")], 40, 300);
        }
    }
    agree(file, &[], &[("heap", "true"), ("heaped", "70")], 40, 300);
    agree(file, &[], &[("heap", "true"), ("heaped", "70"), ("risky", "true")], 40, 300);
    fail_part_way(file, "risky", "none");
    // Each kind of move is made, and a heap's pit is lifted.
    let game = compile(file, &[], &[("heap", "true")]);
    let mut made = vec![0; game.moves.len()];
    let mut heaped = 0;
    for seed in 0..40 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(mv) = e.sample_move(&mut rng).unwrap() {
            heaped += (mv.def == 1 && e.position().counts[mv.args[0] as usize] >= 17) as usize;
            e.apply(mv).unwrap();
            made[mv.def as usize] += 1;
        }
    }
    // `trim` wants a heap of more than sixty: made with `heaped` 70.
    assert!(made.iter().enumerate().all(|(d, &n)| n > 5 || d == 2), "moves made of each kind: {made:?}");
    let trimmed = moves_made(file, &[("heap", "true"), ("heaped", "70")], 40)[2];
    assert!(trimmed > 5, "`trim` made {trimmed} times");
    assert!(heaped > 5, "a pit of more than sixteen lifted {heaped} times");
}

/// A phase's only kind of move, whose `where` reads the chosen site only
/// by its count (tests/engine/counted-draw.mancala), drawn without a list:
/// the `where` asked once for each count met while the sites that pass
/// are gathered, the k-th drawn. The same draws as the reference executor,
/// which lists the candidates: with moves that pass refused when tried
/// (`laps`), counts past those kept (`heap`), and a `where` that goes
/// wrong now and then (`risky`), at the same plies with the same message.
#[test]
fn wheres_kept_by_count_drawn_without_a_list() {
    let file = "tests/engine/counted-draw.mancala";
    for k in ["2", "4", "7"] {
        for laps in ["0", "2"] {
            for heap in ["false", "true"] {
                agree(file, &[], &[("k", k), ("laps", laps), ("heap", heap)], 40, 300);
            }
            agree(file, &[], &[("k", k), ("laps", laps), ("risky", "true")], 30, 300);
        }
    }
    fail_part_way(file, "risky", "none");
    // What the draws meet: a single drawn (no pit of the mover's holds
    // more), a heap of more than sixty-four lifted, and a pit that passes
    // refused by the lap limit (fewer moves than pits that pass).
    let (mut singles, mut heaps, mut refused) = (0, 0, 0);
    let mut legal = Vec::new();
    for (game, seed) in [&[("laps", "2"), ("heap", "true")][..], &[("k", "2")][..], &[("k", "7")][..]]
        .into_iter()
        .flat_map(|settings| (0..30).map(move |seed| (compile(file, &[], settings), seed)))
    {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..300 {
            e.legal_moves(&mut legal).unwrap();
            let (pos, me) = (e.position().clone(), e.position().turn.to_move);
            let mine: Vec<usize> = (0..game.sites.len())
                .filter(|&s| game.sites[s].kind == SiteKind::Pit && game.sites[s].owner == Some(me))
                .collect();
            let most = mine.iter().map(|&s| pos.counts[s]).max().unwrap_or(0);
            let passing = mine.iter().filter(|&&s| pos.counts[s] > 1 || (pos.counts[s] == 1 && most <= 1)).count();
            refused += usize::from(legal.len() < passing);
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            let held = pos.counts[mv.args[0] as usize];
            singles += usize::from(held == 1);
            heaps += usize::from(held > 64);
            e.apply(mv).unwrap();
        }
    }
    assert!(singles > 5 && heaps > 5 && refused > 5, "singles {singles}, heaps {heaps}, refused {refused}");
}

/// Loops over a set whose test begins with what the site is, narrowed to
/// the sites that test lets through (tests/engine/narrow.mancala): `any`,
/// `all` and a choice's `where` over a player's pits, a group and a set
/// worked out during play; with `risky`, a leading test that goes wrong at
/// one site of the group; with `wild`, at one site of a choice's set; a
/// `where`, an `any` and an `all` that ask the count first, and with
/// `shaky` the `where`'s test of the
/// site goes wrong at one site, with `edge` a term before it at others: the
/// same as the reference executor, which asks the whole test at each site.
#[test]
fn sets_narrowed_by_what_their_sites_are() {
    let file = "tests/engine/narrow.mancala";
    for k in ["2", "4", "5", "8"] {
        agree(file, &[], &[("k", k)], 60, 300);
        agree(file, &[], &[("k", k), ("risky", "true")], 40, 300);
        agree(file, &[], &[("k", k), ("shaky", "true")], 40, 300);
        agree(file, &[], &[("k", k), ("edge", "true")], 40, 300);
    }
    fail_part_way(file, "risky", "`b` has no member 5");
    fail_part_way(file, "shaky", "`b` has no member 5");
    fail_part_way(file, "edge", "has no member 5");
    // Every kind of move is made.
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
    // `wild`: north's moves cannot be listed, counted or drawn, in either.
    let game = compile(file, &[], &[("wild", "true")]);
    let mut new = Engine::with_seed(game.clone(), 1).unwrap();
    let mut old = RefEngine::with_seed(game, 1).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(new.legal_moves(&mut a), old.legal_moves(&mut b));
    assert_eq!(a, b);
    assert!(new.apply(a[0]).is_ok() && old.apply(a[0]).is_ok());
    let listed = new.legal_moves(&mut a);
    assert_eq!(listed, old.legal_moves(&mut b));
    assert!(format!("{listed:?}").contains("`b` has no member 5"), "{listed:?}");
    assert_eq!(new.count_moves(), old.count_moves());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let drawn = new.sample_move(&mut rng.clone());
    assert_eq!(drawn, old.sample_move(&mut rng));
    assert!(drawn.is_err(), "{drawn:?}");
}

/// Moves whose only test of the site is a least count (`count(h) > 1`),
/// read in place where the moves are listed, counted and drawn
/// (tests/engine/least.mancala): the same as the reference executor, which
/// asks the `where` at each site, for least counts of 0 to 3 (`count(h) >=
/// 0` passes the empty holes of a move that does not sow them), each
/// written as one comparison or as several (`written`).
#[test]
fn least_counts_read_in_place() {
    let file = "tests/engine/least.mancala";
    for k in ["2", "5"] {
        for least in ["0", "1", "2", "3"] {
            for written in ["1", "2", "3"] {
                agree(file, &[], &[("k", k), ("least", least), ("written", written)], 30, 300);
            }
        }
    }
    // Each phase's move is made, and a counter dealt to an empty hole with least 0.
    let game = compile(file, &[], &[("least", "0")]);
    let (mut made, mut empty) = (vec![0; game.moves.len()], 0);
    for seed in 0..20 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(mv) = e.sample_move(&mut rng).unwrap() {
            empty += (mv.def == 2 && e.position().counts[mv.args[0] as usize] == 0) as usize;
            e.apply(mv).unwrap();
            made[mv.def as usize] += 1;
            if made.iter().sum::<usize>() > 3000 {
                break;
            }
        }
    }
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
    assert!(empty > 0, "no counter dealt to an empty hole");
}

/// Two moves to choose between, each choosing a pit by a least count
/// alone (tests/engine/wide.mancala): a draw offers the candidates of both,
/// the pits that hold enough gathered 64 at a time. The same listings,
/// counts, draws and summaries as the reference executor, which asks each
/// `where` at each pit, on boards of 2 to 80 pits a side (past 64, a
/// player's pits are two stretches); and both moves are drawn, from pits
/// in either stretch.
#[test]
fn candidates_chosen_by_a_least_count() {
    let file = "tests/engine/wide.mancala";
    for k in ["2", "5", "64", "65", "80"] {
        agree(file, &[], &[("k", k)], 12, 250);
    }
    let k = 80;
    let game = compile(file, &[], &[("k", &k.to_string())]);
    // Drawn: [sow, lift] from the first 64 pits of a side, and past them
    // (a side's pits are numbered from 0 or from k + 1, past a's store).
    let mut drawn = [[0; 2]; 2];
    for seed in 0..10 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..400 {
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            let past = (mv.args[0] as usize % (k + 1)) >= 64;
            drawn[mv.def as usize][past as usize] += 1;
            e.apply(mv).unwrap();
        }
    }
    assert!(drawn.iter().flatten().all(|&n| n > 20), "moves drawn [sow, lift] x [first 64, past]: {drawn:?}");
}

/// A move drawn at random that had to be tried first is made from what its
/// trial left (`engine::vm::Tried`) when it is made next, from the same
/// position and history with the same seed. Every game of the library, in
/// every variant, and a rule file whose trials draw numbers, set state and
/// read `repetitions` (tests/engine/trials.mancala), played by drawing moves,
/// against an engine that never draws (so never keeps a trial): the same
/// results, errors and positions; and between a draw and its move, now and
/// then, another move looked at and taken back, the drawn move made and
/// taken back first, another move made instead, or the seed changed.
#[test]
fn moves_made_from_their_trial_change_nothing() {
    let mut plies = 0;
    for (file, v) in library_configurations() {
        let v: Vec<&str> = v.iter().map(String::as_str).collect();
        plies += drawn_then_made(&file, &v, &[], 2);
    }
    assert!(plies > 10_000, "only {plies} plies in the library");
    let mut plies = 0;
    for k in ["2", "4", "6"] {
        plies += drawn_then_made("tests/engine/trials.mancala", &[], &[("k", k)], 60);
        // The same rules against the reference executor, whose draws try
        // and refuse candidates the same way.
        agree("tests/engine/trials.mancala", &[], &[("k", k)], 60, 300);
    }
    assert!(plies > 1_000, "only {plies} plies of trials.mancala");
}

/// A move drawn and made in one call (`Engine::play_random`: a drawn move
/// that must be tried is left made by its trial) plays as one drawn by
/// `sample_move`, then made by `apply`: every game of the library in every
/// variant; a rule file whose trials draw numbers, set state and read
/// `repetitions` and the stores (tests/engine/trials.mancala); draws
/// refused by their trial, the draw going on (where-then-trial, with a
/// `where` that draws numbers); and errors met by a trial and by what
/// follows a move's statements (tests/engine/trial-errors.mancala), after
/// which nothing is made.
#[test]
fn a_move_drawn_and_made_in_one_call_plays_as_drawn_then_made() {
    let mut plies = 0;
    for (file, v) in library_configurations() {
        let v: Vec<&str> = v.iter().map(String::as_str).collect();
        plies += played_in_one_call(&file, &v, &[], 3, 400).0;
    }
    assert!(plies > 10_000, "only {plies} plies in the library");
    let mut plies = 0;
    for k in ["2", "4", "6"] {
        plies += played_in_one_call("tests/engine/trials.mancala", &[], &[("k", k)], 60, 300).0;
        let file = "tests/engine/where-then-trial.mancala";
        plies += played_in_one_call(file, &[], &[("k", k), ("chance", "true")], 60, 300).0;
    }
    assert!(plies > 3_000, "only {plies} plies of trials");
    let (_, errors) = played_in_one_call("tests/engine/trial-errors.mancala", &[], &[], 200, 300);
    assert!(errors[0] >= 5 && errors[1] >= 5, "errors met drawing, making: {errors:?}");
}

/// Seeded games played by `play_random` on one engine and by `sample_move`
/// then `apply` on another, each with its own generator from the same
/// seed: the same moves and results (errors included), positions, hashes
/// and draws at every ply, and the same outcome; then the moves taken back
/// one by one, the same positions again. The plies made, and the games
/// ended by an error met drawing and by one met making the move drawn.
fn played_in_one_call(
    file: &str,
    v: &[&str],
    settings: &[(&str, &str)],
    seeds: u64,
    max_plies: usize,
) -> (usize, [usize; 2]) {
    let game = compile(file, v, settings);
    let (mut plies, mut errors) = (0, [0, 0]);
    for seed in 0..seeds {
        let mut a = Engine::with_seed(game.clone(), seed).unwrap();
        let mut b = Engine::with_seed(game.clone(), seed).unwrap();
        let (mut ra, mut rb) = (ChaCha8Rng::seed_from_u64(seed), ChaCha8Rng::seed_from_u64(seed));
        let mut positions = vec![a.position().clone()];
        for ply in 0..max_plies {
            let at = format!("{file} {v:?} {settings:?} seed {seed} ply {ply}");
            let played = a.play_random(&mut ra);
            let drawn = b.sample_move(&mut rb);
            let drawn_ok = drawn.is_ok();
            let made = match drawn {
                Ok(Some(mv)) => b.apply(mv).map(|()| Some(mv)),
                Err(h) => {
                    errors[0] += 1;
                    Err(h)
                }
                Ok(None) => Ok(None),
            };
            errors[1] += (drawn_ok && made.is_err()) as usize;
            assert_eq!(played, made, "{at}: played in one call, drawn then made");
            assert_eq!(a.position(), b.position(), "{at}: after {played:?}");
            assert_eq!(a.hash(), b.hash(), "{at}: hashes");
            assert_eq!(ra.get_word_pos(), rb.get_word_pos(), "{at}: numbers drawn");
            let Ok(Some(_)) = played else { break };
            positions.push(a.position().clone());
            plies += 1;
        }
        assert_eq!(a.outcome(), b.outcome(), "{file} {v:?} {settings:?} seed {seed}: outcomes");
        positions.pop();
        while let Some(p) = positions.pop() {
            assert!(a.undo(), "{file} {v:?} {settings:?} seed {seed}: a move to take back");
            assert_eq!(a.position(), &p, "{file} {v:?} {settings:?} seed {seed}: taken back");
        }
    }
    (plies, errors)
}

/// Per-site state that most moves leave as it is: the positions saved for
/// undo share one copy of it (`Vm::push_undo`), a trial that changes none
/// of it leaves it in place, and a move that changes it and reads the
/// position before it (`before`, `repetitions` of the positions saved
/// below, whose copy the one before shares) plays as in the reference
/// executor, and as when made from its trial. With state of one value
/// beside it (`shared-state-mixed`), which most moves change, those values
/// are saved apart, and a trial that changed only them leaves the
/// per-site values in place.
#[test]
fn state_left_as_it_is_shared_by_the_positions_saved() {
    for file in ["tests/engine/shared-state.mancala", "tests/engine/shared-state-mixed.mancala"] {
        let mut plies = 0;
        for k in ["2", "3", "5"] {
            agree(file, &[], &[("k", k)], 60, 300);
            plies += drawn_then_made(file, &[], &[("k", k)], 30);
        }
        assert!(plies > 1_000, "only {plies} plies of {file}");
    }
}

/// A `where` of another shape than a least count (`count(h) > 0 and not
/// used(h)`) is asked at each site when a move is drawn, without a list
/// (`movegen/sites.rs`): the same draw as the reference executor's from its
/// list, and, when no site passes it, the pass an empty list leads to.
#[test]
fn a_where_of_any_shape_is_drawn_without_a_list_and_none_passing_passes() {
    let file = "tests/engine/where-then-pass.mancala";
    let mut passes = 0;
    for k in ["2", "3", "5"] {
        agree(file, &[], &[("k", k)], 100, 300);
        let game = compile(file, &[], &[("k", k)]);
        for seed in 0..100 {
            let mut e = Engine::with_seed(game.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(mv) = e.sample_move(&mut rng).unwrap() {
                passes += (mv == Move::PASS) as u32;
                e.apply(mv).unwrap();
            }
        }
    }
    assert!(passes >= 30, "only {passes} passes drawn");
}

/// A move drawn without a list under a `where` of another shape (or none),
/// then refused by its trial: the draw goes on among the sites that passed
/// the `where` when it was asked, not among those of a second asking. The same
/// draws as the reference executor's; and with a `where` that draws numbers
/// (each candidate from a stream of its own), every move drawn is one
/// that passed its trial.
#[test]
fn a_drawn_move_refused_draws_again_from_the_sites_asked() {
    let file = "tests/engine/where-then-trial.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 100, 300);
        // No `where` at all: every site of the set a candidate.
        agree("tests/engine/any-site-trial.mancala", &[], &[("k", k)], 50, 300);
    }
    // At the start (four pits a side) three of south's four sites pass the
    // `where` and are refused by the trial: most first draws are refused.
    let mut e = Engine::with_seed(compile(file, &[], &[]), 0).unwrap();
    let mut list = Vec::new();
    e.legal_moves(&mut list).unwrap();
    assert_eq!(list.iter().map(|&mv| e.move_name(mv)).collect::<Vec<_>>(), ["a3"]);
    let mut plies = 0;
    for k in ["2", "4", "6"] {
        let game = compile(file, &[], &[("k", k), ("chance", "true")]);
        for seed in 0..100 {
            // `b` never draws: it makes each move anew, its `require` asked.
            let mut a = Engine::with_seed(game.clone(), seed).unwrap();
            let mut b = Engine::with_seed(game.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let k: usize = k.parse().unwrap();
            while let Some(mv) = a.sample_move(&mut rng).unwrap() {
                // A site that passed the `where`'s other terms: a pit of
                // the mover's (sites a1..ak, A, b1..bk, B) holding counters.
                let (pos, h) = (a.position(), mv.args[0] as usize);
                let own = match pos.turn.to_move {
                    0 => 0..k,
                    _ => k + 1..2 * k + 1,
                };
                assert!(mv == Move::PASS || (own.contains(&h) && pos.counts[h] > 0), "k {k} seed {seed}: {mv:?} drawn");
                a.apply(mv).unwrap();
                b.apply(mv)
                    .unwrap_or_else(|f| panic!("k {k} seed {seed}: {mv:?} drawn, but its sowing ends at three: {f:?}"));
                plies += 1;
            }
        }
    }
    assert!(plies > 500, "only {plies} plies");
}

/// Banks set between the draw of a move that must be tried and its making:
/// whether the move read them is what the solver asks, and a move made from
/// its trial (made before the banks were set) must answer as one made anew.
#[test]
fn banks_set_between_a_draw_and_its_move() {
    let game = compile("tests/engine/trials.mancala", &[], &[("k", "4")]);
    let stores: Vec<_> = ["A", "B"]
        .iter()
        .map(|n| game.sites.iter().position(|s| s.name == *n).expect("a store") as mancala::engine::game::SiteId)
        .collect();
    let (mut read, mut plies) = (0, 0);
    for seed in 0..20 {
        let mut a = Engine::with_seed(game.clone(), seed).unwrap();
        let mut b = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for ply in 0..60 {
            a.set_banks(&[]);
            let Ok(Some(mv)) = a.sample_move(&mut rng) else { break };
            a.set_banks(&stores);
            b.set_banks(&stores);
            let made = a.apply(mv);
            assert_eq!(made, b.apply(mv), "seed {seed} ply {ply}");
            assert_eq!(a.bank_read(), b.bank_read(), "seed {seed} ply {ply}: {mv:?} read the stores?");
            read += a.bank_read() as usize;
            if made.is_err() {
                break;
            }
            plies += 1;
        }
    }
    assert!(read > 20 && read < plies, "{read} of {plies} moves read the stores");
}

/// Seeded games drawn and made by one engine, each move made by another
/// that never draws (see above); the plies made.
fn drawn_then_made(file: &str, v: &[&str], settings: &[(&str, &str)], seeds: u64) -> usize {
    let game = compile(file, v, settings);
    let mut plies = 0;
    for seed in 0..seeds {
        let mut a = Engine::with_seed(game.clone(), seed).unwrap();
        let mut b = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut list = Vec::new();
        for ply in 0..120 {
            let at = format!("{file} {v:?} {settings:?} seed {seed} ply {ply}");
            let Ok(Some(mut mv)) = a.sample_move(&mut rng) else { break };
            match rng.gen_range(0..8) {
                0 | 1 => {
                    // Another move looked at, or the drawn one made, and taken back.
                    b.legal_moves(&mut list).unwrap();
                    let other = if ply % 2 == 0 { list[rng.gen_range(0..list.len())] } else { mv };
                    let made = a.apply(other);
                    assert_eq!(made, b.apply(other), "{at}: looking at {other:?}");
                    assert_eq!(a.position(), b.position(), "{at}: after {other:?}");
                    if made.is_ok() {
                        assert!(a.undo() && b.undo());
                    }
                }
                2 => {
                    b.legal_moves(&mut list).unwrap();
                    mv = list[rng.gen_range(0..list.len())];
                }
                3 => {
                    a.set_seed(seed + 100 + ply);
                    b.set_seed(seed + 100 + ply);
                }
                _ => {}
            }
            let made = a.apply(mv);
            assert_eq!(made, b.apply(mv), "{at}: making {mv:?}");
            assert_eq!(a.position(), b.position(), "{at}: after {mv:?}");
            if made.is_err() {
                break;
            }
            plies += 1;
        }
        assert_eq!(a.outcome(), b.outcome(), "{file} {v:?} {settings:?} seed {seed}: outcomes");
    }
    plies
}

/// A relay whose laps change the state its skips read: sown along tables
/// made for the state's values (and kept while its version stands), it
/// must play as when the skip is asked at each counter, looking ahead and
/// taking back included; and as the reference executor plays it.
#[test]
fn tables_kept_for_the_state_follow_its_changes() {
    for k in ["2", "4", "6"] {
        agree("tests/engine/relay-skips.mancala", &[], &[("k", k)], 30, 300);
        let kept = compile("tests/engine/relay-skips.mancala", &[], &[("k", k)]);
        let asked = compile("tests/engine/relay-skips.mancala", &[], &[("k", k), ("tabulated", "false")]);
        let (mut plies, mut made) = (0, vec![0; kept.moves.len()]);
        for seed in 0..60 {
            let mut a = Engine::with_seed(kept.clone(), seed).unwrap();
            let mut b = Engine::with_seed(asked.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (mut ma, mut mb) = (Vec::new(), Vec::new());
            for ply in 0..200 {
                let at = format!("k {k} seed {seed} ply {ply}");
                assert_eq!(a.position(), b.position(), "{at}: positions differ");
                assert_eq!(a.legal_moves(&mut ma), b.legal_moves(&mut mb), "{at}: listing");
                assert_eq!(ma, mb, "{at}: moves differ");
                if ma.is_empty() {
                    break;
                }
                // Two plies looked at and taken back, then one made.
                for _ in 0..2 {
                    let mv = ma[rng.gen_range(0..ma.len())];
                    assert_eq!(a.apply(mv), b.apply(mv), "{at}: looking at {mv:?}");
                    assert_eq!(a.position(), b.position(), "{at}: after {mv:?}");
                    assert_eq!(a.legal_moves(&mut ma), b.legal_moves(&mut mb), "{at}: listing after {mv:?}");
                    if !ma.is_empty() {
                        let second = ma[rng.gen_range(0..ma.len())];
                        assert_eq!(a.apply(second), b.apply(second), "{at}: looking at {second:?}");
                        assert_eq!(a.position(), b.position(), "{at}: after {second:?}");
                        assert!(a.undo() && b.undo());
                    }
                    assert!(a.undo() && b.undo());
                    assert_eq!(a.legal_moves(&mut ma), b.legal_moves(&mut mb), "{at}: back");
                }
                let mv = ma[rng.gen_range(0..ma.len())];
                assert_eq!(a.apply(mv), b.apply(mv), "{at}: making {mv:?}");
                made[mv.def as usize] += 1;
                plies += 1;
            }
        }
        assert!(plies > 100, "k {k}: only {plies} plies");
        assert!(made.iter().all(|&n| n > 5), "k {k}: moves made of each kind: {made:?}");
    }
}

/// A hook that returns nothing (Rhai's `()`): refused where a condition
/// or a number was declared, with the hook named, by both executors alike
/// (the compiled one took it for `true`); `none` where a site was.
#[test]
fn hooks_that_return_nothing() {
    let listed = |ask: &str| {
        let game = compile("tests/hooks/returns-nothing.mancala", &[], &[("ask", ask)]);
        let (mut new, mut old) = (Engine::new(game.clone()).unwrap(), RefEngine::new(game).unwrap());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (ra, rb) = (new.legal_moves(&mut a), old.legal_moves(&mut b));
        assert_eq!(ra, rb, "ask {ask}: listing the moves");
        assert_eq!(a, b, "ask {ask}: the moves");
        ra.map(|_| a.iter().map(|&m| new.move_name(m)).collect::<Vec<_>>()).map_err(|h| format!("{h:?}"))
    };
    let condition = listed("1").unwrap_err();
    assert!(
        condition.contains("hook `odd` returned nothing") && condition.contains("not true or false"),
        "{condition}"
    );
    let number = listed("2").unwrap_err();
    assert!(number.contains("hook `half` returned nothing") && number.contains("not a number"), "{number}");
    assert_eq!(listed("3"), Ok(vec!["s2".to_string()]));
    agree("tests/hooks/returns-nothing.mancala", &[], &[("ask", "3")], 3, 20);
}

/// Partners win and lose together: an `end` naming a winner or a loser,
/// and a seat that cannot move under `when stuck: lose`, decide for the
/// whole side (whichever partner is named), against the scores, in both
/// executors.
#[test]
fn partners_win_and_lose_together() {
    let file = "tests/engine/partners-verdicts.mancala";
    // Seats a, b, a2, b2: after three plies side a has banked two, side b
    // one; after four, two each, and a cannot move.
    for (verdict, plies, scores) in [("1", 3, [2, 1, 2, 1]), ("2", 3, [2, 1, 2, 1]), ("3", 4, [2, 2, 2, 2])] {
        agree(file, &[], &[("verdict", verdict)], 10, 20);
        let game = compile(file, &[], &[("verdict", verdict)]);
        let (mut new, mut old) = (Engine::new(game.clone()).unwrap(), RefEngine::new(game).unwrap());
        let mut moves = Vec::new();
        let mut made = 0;
        while new.legal_moves(&mut moves).is_ok() && !moves.is_empty() {
            new.apply(moves[0]).unwrap();
            old.apply(moves[0]).unwrap();
            made += 1;
        }
        assert_eq!(made, plies, "verdict {verdict}");
        let outcome = new.outcome().unwrap().expect("the game is over");
        assert_eq!((outcome.scores.as_slice(), outcome.winners.as_slice()), (&scores[..], &[1, 3][..]));
        assert_eq!(old.outcome().unwrap(), Some(outcome), "verdict {verdict}: the reference executor");
    }
}

#[test]
fn hooks_that_fail() {
    for f in ["tests/hooks/loops-forever.mancala", "tests/hooks/recurses.mancala"] {
        agree(f, &[], &[], 3, 20);
    }
}

/// The parts of the choices' `where`s that do not depend on the choice are
/// worked out once a search for moves (`program/memo.rs`), and functions of
/// one site are looked up in tables (`program/tables.rs`): every game of
/// the library, in every variant, gives the same moves, counts, draws and
/// positions as with both worked out at every use.
#[test]
fn kept_parts_of_the_wheres_change_nothing() {
    let (mut kept, mut plies) = (0, 0);
    for (file, v) in library_configurations() {
        let v: Vec<&str> = v.iter().map(String::as_str).collect();
        let game = compile(&file, &v, &[]);
        for seed in 0..3 {
            kept += Engine::with_seed(game.clone(), seed).unwrap().memos();
            plies += as_written(&game, seed, 150, &format!("{file} {v:?}"));
        }
    }
    // Katro's `outermost(mover)`, Kisolo's `capture-exists(mover)` and others.
    assert!(kept >= 10, "only {kept} parts kept in the whole library");
    assert!(plies > 15_000, "only {plies} plies played");
}

/// Plays a seeded random game of `game` through the program as it runs
/// (memos, tables, folding, parts kept) and as the rules are written
/// (`Engine::without_memos`): the same moves, counts, draws, positions and
/// errors at every ply, up to `max_plies`; the plies made.
fn as_written(game: &Arc<mancala::engine::game::Game>, seed: u64, max_plies: usize, what: &str) -> usize {
    let mut new = Engine::with_seed(game.clone(), seed).unwrap();
    let mut old = Engine::without_memos(game.clone(), seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for ply in 0..max_plies {
        let at = format!("{what} seed {seed} ply {ply}");
        assert_eq!(new.legal_moves(&mut a), old.legal_moves(&mut b), "{at}: listing the moves");
        assert_eq!(a, b, "{at}: legal moves differ");
        assert_eq!(new.count_moves(), old.count_moves(), "{at}: counts differ");
        let (mut r1, mut r2) = (rng.clone(), rng.clone());
        let drawn = new.sample_move(&mut r1);
        assert_eq!(drawn, old.sample_move(&mut r2), "{at}: draws differ");
        rng = r1;
        let Ok(Some(mv)) = drawn else { return ply };
        let made = new.apply(mv);
        assert_eq!(made, old.apply(mv), "{at}: making {mv:?}");
        assert_eq!(new.position(), old.position(), "{at}: positions differ");
        if made.is_err() {
            return ply;
        }
    }
    max_plies
}

/// `random` between the extremes of the numbers the rules hold: the range
/// is as wide as 2^64 numbers, wider than any number, and the executors
/// must draw the same number from it (the reference once divided by the
/// width plus one, which overflowed to nothing for the widest range).
#[test]
fn random_between_extreme_bounds_agrees() {
    let text = "players south, north
        pit s[1..3] owner south
        pit n[1..3] owner north
        store S owner south
        store N owner north
        state all: number
        state low: number
        state high: number
        state top: number
        define half() = (2147483647 + 1) * (2147483647 + 1)
        define most() = half() - 1 + half()
        define least() = 0 - half() - half()
        setup { put 1 in every pit }
        move m \"{h}\" {
          choose h in every pit of mover where count(h) > 0
          set all = random(least(), most())
          set low = random(least(), 0)
          set high = random(-1, most())
          set top = random(most() - 1, most())
          take h to store(mover)
        }
        score p: count(store(p))";
    let game = Arc::new(
        mancala::compile::compile_source("random.mancala", text, &Config::default())
            .unwrap_or_else(|f| panic!("{}", f.render(false))),
    );
    let (mut negative, mut positive) = (0, 0);
    for seed in 0..40 {
        let mut new = Engine::with_seed(game.clone(), seed).unwrap();
        let mut old = RefEngine::with_seed(game.clone(), seed).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for ply in 0..6 {
            new.legal_moves(&mut a).unwrap();
            old.legal_moves(&mut b).unwrap();
            assert_eq!(a, b, "seed {seed} ply {ply}");
            let Some(&mv) = a.first() else { break };
            assert_eq!(new.apply(mv), old.apply(mv), "seed {seed} ply {ply}");
            assert_eq!(new.position(), old.position(), "seed {seed} ply {ply}");
            let int = |i: usize| match new.position().vars[i] {
                mancala::engine::game::Value::Int(x) => x,
                v => panic!("seed {seed}: {v:?}"),
            };
            assert!(int(1) <= 0 && int(2) >= -1 && int(3) >= i64::MAX - 1, "seed {seed}: {:?}", new.position().vars);
            negative += (int(0) < 0) as u32;
            positive += (int(0) > 0) as u32;
        }
    }
    // The widest range is drawn from whole: both signs come up.
    assert!(negative > 20 && positive > 20, "{negative} negative, {positive} positive");
}

/// Parts of a choice's `where` that read one site alone, worked out once
/// a site in a search for moves (`program/memo.rs`):
/// tests/engine/per-site.mancala, whose parts are asked again at each value
/// of a later choice, of an earlier one, and in a quantifier's body, one
/// written in two moves, one not kept (a part kept inside it is read after
/// it), and with `risky` one that goes wrong where it is first asked now
/// and then. The same moves, counts, draws, positions and errors as the
/// program that works every place out (`Engine::without_memos`).
#[test]
fn parts_of_one_site_worked_out_once_a_search() {
    risky_boards_as_written("tests/engine/per-site.mancala");
}

/// Parts written more than once in one expression, worked out once and
/// read again where that is sound (`program/cse.rs`;
/// tests/engine/repeats.mancala): in a chain of `and`s and `or`s, after an
/// `==`, in an `if`'s branch; and worked out again where it is not (a
/// branch of another `if`, after an `or` whose right held the first, in
/// the next quantifier with the same slot, inside `before`); with `risky`,
/// a part that goes wrong at its first place now and then. The rule file
/// steps along tracks, which the reference executor does not: the same
/// moves, counts, draws, positions and errors as the program that works
/// every place out (`Engine::without_memos`), on small and large boards.
#[test]
fn parts_written_twice_worked_out_once() {
    risky_boards_as_written("tests/engine/repeats.mancala");
}

/// Functions of `origin` alone, looked up in tables by it, and `origin`
/// read in place (tests/engine/origins.mancala), against the reference
/// executor and the program that works every part out; with `risky`, a
/// step from the origin goes wrong now and then, where it would have.
#[test]
fn functions_of_the_origin() {
    let file = "tests/engine/origins.mancala";
    // Against the reference executor (with `risky`, most games go wrong
    // in their first plies: those are played against the program as
    // written below).
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 40, 300);
    }
    let plies = boards_as_written(file, 60);
    assert!(plies > 5_000, "only {plies} plies played");
    // With `risky`, some games go wrong part way, at the step.
    let game = compile(file, &[], &[("risky", "true")]);
    let failed: Vec<String> = (0..40u64).filter_map(|seed| move_gone_wrong(&game, seed)).collect();
    assert!(!failed.is_empty(), "no game went wrong with `risky`");
    assert!(failed.iter().all(|m| m.contains("is not on track")), "{failed:?}");
}

/// What the first move of a random game (drawn with `seed`) that went wrong
/// said, made or tried while drawn; `None` if the game ended first.
fn move_gone_wrong(game: &Arc<mancala::engine::game::Game>, seed: u64) -> Option<String> {
    let mut e = Engine::with_seed(game.clone(), seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let mv = match e.sample_move(&mut rng) {
            Ok(Some(mv)) => mv,
            Ok(None) => return None,
            Err(h) => return Some(format!("{h:?}")),
        };
        if let Err(h) = e.apply(mv) {
            return Some(format!("{h:?}"));
        }
    }
}

/// `file` on boards of 2, 4 and 6 pits a side (option `k`): `games` games
/// against the reference executor (`agree`), then 60 against the program
/// as written; the plies of the latter.
fn on_boards(file: &str, games: u64, max_plies: usize) -> usize {
    let mut plies = 0;
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], games, max_plies);
        let game = compile(file, &[], &[("k", k)]);
        for seed in 0..60 {
            plies += as_written(&game, seed, max_plies, &format!("{file} k {k}"));
        }
    }
    plies
}

/// `seeds` random games of `file` on each of five boards (option `k`), with
/// and without `risky`, against the program as written: the plies played.
fn boards_as_written(file: &str, seeds: u64) -> usize {
    let mut plies = 0;
    for k in ["2", "3", "4", "6", "8"] {
        for risky in ["false", "true"] {
            let game = compile(file, &[], &[("k", k), ("risky", risky)]);
            for seed in 0..seeds {
                plies += as_written(&game, seed, 300, &format!("k {k} risky {risky}"));
            }
        }
    }
    plies
}

/// Random games of `file` (options `k`, pits a side, and `risky`, which
/// makes a part go wrong now and then off a track) on five boards, with
/// and without `risky`, against the program as written ([`as_written`]);
/// with `risky`, some go wrong part way; both of its moves are made.
fn risky_boards_as_written(file: &str) {
    let plies = boards_as_written(file, 30);
    assert!(plies > 5_000, "only {plies} plies played");
    fail_part_way(file, "risky", "is not on track");
    // Both kinds of move are made.
    let made = moves_made(file, &[], 40);
    assert!(made.iter().all(|&n| n > 5), "moves made of each kind: {made:?}");
}

/// Every shipped rule file but the seed games (played above at more
/// sizes), with its defaults and each of its variants, found by reading
/// the folder: a new rule file is played here as it lands. Beyond the seed
/// games they need the reference to do what they say: relays (`relay
/// from`, `while`, a lap limit), `starting at`, `each lap`, `origin`,
/// rounds (`round`, `start`, `rounds`, `starter`), verdicts (`end ...
/// winner` or `loser`, `when stuck: lose`), walks along a track (`for x in
/// round from ...`, `sum(y in round from ... while ...)`), `remove`,
/// owners kept as state (territory), and a trial that stops at the move's
/// statements (an `end` that asks who can move).
#[test]
fn every_shipped_game_in_every_variant() {
    let seeds = ["kalah", "cups", "spectral-reapers", "tea-party"];
    let mut files: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".mancala") && !seeds.iter().any(|s| f.ends_with(&format!("/{s}.mancala"))))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "only {} rule files found", files.len());
    for file in &files {
        agree(file, &[], &[], 15, 300);
        for v in &compile(file, &[], &[]).variants {
            agree(file, &[v.name.as_str()], &[], 15, 300);
        }
    }
    // A win by `end ... winner`, which random games of the files above
    // never reach: Tchuka Ruma with one hole of one pebble, won at once.
    let game = compile("rules/tchuka-ruma.mancala", &[], &[("holes", "1"), ("pebbles", "1")]);
    let (mut e, mut r) = (Engine::new(game.clone()).unwrap(), RefEngine::new(game).unwrap());
    let mut moves = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    assert_eq!((e.apply(moves[0]), r.apply(moves[0])), (Ok(()), Ok(())));
    assert_eq!(e.position(), r.position());
    assert_eq!(e.outcome(), r.outcome());
    assert_eq!(e.position().turn.verdict, mancala::engine::Verdict::Wins(0), "won by its `end`, not the score");
    assert_eq!(e.outcome().unwrap().map(|o| o.winners), Some(vec![0]), "the solitaire is won");
}

/// `where`s and ranges that draw numbers (`random`): a candidate's `where`
/// draws from a stream of its own (the seed, the ply, the declaration and
/// the values chosen), and so does a bound of a range to choose from, so
/// the moves are the same however often and in whatever order they are
/// looked for (listed, counted, drawn one at a time, looked for by an `end`
/// whose `can-move` tries moves and whose own draws go on as if it had not),
/// and the reference executor, which looks for them in its own way, finds
/// the same. Before, they drew on from the numbers drawn last and answered
/// otherwise at each asking.
#[test]
fn wheres_that_draw_answer_the_same_however_the_moves_are_looked_for() {
    let file = "tests/engine/where-draws.mancala";
    for k in ["2", "4", "6"] {
        agree(file, &[], &[("k", k)], 40, 200);
    }
    // The site of an order of colours, named by a coin: listed, named and
    // read back in the same stream.
    agree("tests/engine/arrangement-draws.mancala", &[], &[], 40, 30);
    let game = compile(file, &[], &[]);
    let (mut listed, mut left_out, mut plies) = (0, 0, 0);
    let (mut coins, mut pits_for_coins) = (0, 0);
    let mut first_lists = std::collections::BTreeSet::new();
    for seed in 0..80 {
        let mut e = Engine::with_seed(game.clone(), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        e.legal_moves(&mut a).unwrap();
        first_lists.insert(a.iter().map(|&mv| e.move_name(mv)).collect::<Vec<_>>());
        loop {
            let at = format!("seed {seed} ply {plies}");
            e.legal_moves(&mut a).unwrap();
            // Asked again, by a copy, counted, drawn: the same moves.
            e.legal_moves(&mut b).unwrap();
            assert_eq!(a, b, "{at}: listed twice");
            e.clone().legal_moves(&mut b).unwrap();
            assert_eq!(a, b, "{at}: listed by a copy");
            assert_eq!(e.count_moves().unwrap(), a.len() as u128, "{at}: counted");
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            assert!(mv == Move::PASS || a.contains(&mv), "{at}: {mv:?} drawn, not listed in {a:?}");
            // The coin of the `where` of `sow`: a pit of the mover's (a1..a4,
            // A, b1..b4, B) holding one to five counters is now listed, now not.
            let pos = e.position();
            let own = if pos.turn.to_move == 0 { 0..4 } else { 5..9 };
            for h in own.clone().filter(|&h| (1..=5).contains(&pos.counts[h])) {
                match a.iter().any(|m| m.def == 0 && m.args[0] == h as i32) {
                    true => listed += 1,
                    false => left_out += 1,
                }
            }
            pits_for_coins += own.filter(|&h| pos.counts[h] > 1).count();
            coins += a.iter().filter(|m| m.def == 2).count();
            e.apply(mv).unwrap();
            plies += 1;
        }
    }
    assert!(plies > 800, "only {plies} plies");
    assert!(listed > 300 && left_out > 300, "{listed} listed, {left_out} left out");
    // The coins of `coin`'s set: some of its moves listed, not all.
    assert!(coins > 100 && coins < pits_for_coins, "{coins} of {pits_for_coins}");
    // The seed decides what the coins say at the start.
    assert!(first_lists.len() > 40, "{first_lists:?}");
}

/// An error a statement meets is told at the innermost statement that met
/// it, alike in both executors: the `take` inside an `if` (or its `else`),
/// or the `if` whose condition went wrong, the first or an `else if`'s
/// (tests/engine/statement-errors.mancala); a move that goes wrong leaves
/// the position as it was.
#[test]
fn statement_errors_are_told_at_their_statement() {
    use mancala::engine::Halt;
    let file = "tests/engine/statement-errors.mancala";
    agree(file, &[], &[], 20, 100);
    let game = compile(file, &[], &[]);
    let mut new = Engine::with_seed(game.clone(), 1).unwrap();
    let mut old = RefEngine::with_seed(game.clone(), 1).unwrap();
    // Each move named goes wrong alike in both, told at the text given, and
    // leaves the position as it was.
    let told_at = |new: &mut Engine, old: &mut RefEngine, cases: &[(&str, &str)]| {
        for &(name, told) in cases {
            let mv = new.find_move(name).unwrap().expect("a legal move");
            let before = new.position().clone();
            let made = new.apply(mv);
            assert_eq!(made, old.apply(mv), "{name}");
            let Err(Halt::At(message, span)) = made else { panic!("{name}: {made:?}") };
            assert!(message.contains("but there is none here"), "{name}: {message}");
            let text = game.sources.text(span);
            assert!(text.starts_with(told), "{name}: told at `{text}`");
            assert_eq!(new.position(), &before, "{name}");
        }
    };
    told_at(
        &mut new,
        &mut old,
        &[("a2", "take target to store(mover)"), ("a3", "if index(h) == 3 and count(target) > 0 {")],
    );
    // A move that meets no error is made.
    let mv = new.find_move("a1").unwrap().expect("a legal move");
    assert_eq!(new.apply(mv), Ok(()));
    assert_eq!(old.apply(mv), Ok(()));
    // North: the `else if` whose condition went wrong is told at the whole
    // `if`, the `else` branch's statement at itself.
    let chain =
        "if index(h) == 1 {\n      take b[2] to store(mover)\n    } else if index(h) == 2 and count(target) > 0 {";
    told_at(&mut new, &mut old, &[("b2", chain), ("b3", "take target to store(opponent(mover))")]);
    // b1's first branch takes b2's counters, two and the one b1 sows there.
    let b2 = new.find_move("b2").unwrap().expect("a legal move").args[0] as usize;
    assert_eq!(new.position().counts[b2], 2);
    let mv = new.find_move("b1").unwrap().expect("a legal move");
    assert_eq!(new.apply(mv), Ok(()));
    assert_eq!(old.apply(mv), Ok(()));
    assert_eq!(new.position(), old.position());
    assert_eq!(new.position().counts[b2], 0);
}

/// An error met outside the statements is told where it was met, alike in
/// both executors (tests/engine/outside-errors.mancala, a variant for each
/// part): a choice's `where` while the moves are listed or drawn (the
/// second choice's, not the first's, when the second goes wrong), an
/// `avoid` while the moves are listed, a phase change, an `end`'s
/// condition or winner, a `round`'s condition after a move (which leaves
/// the position as it was), and the score.
#[test]
fn errors_outside_statements_are_told_at_their_place() {
    use mancala::engine::Halt;
    let file = "tests/engine/outside-errors.mancala";
    let cases = [
        (
            "choice",
            "choose h in every pit of mover where count(h) > 0\n      and (not bad-choice or count(target) > index(h))",
        ),
        ("second", "choose k in 1..2 where count(target) > k"),
        ("avoid", "bad-avoid and count(target) > 0"),
        ("phase", "bad-phase and count(target) > 0"),
        ("end", "bad-end and count(target) > 0"),
        ("verdict", "owner(target)"),
        ("round", "bad-round and count(target) > 0"),
        ("score", "count(store(p)) + (if bad-score then count(target) else 0)"),
    ];
    // Nothing broken, the file plays alike in both.
    agree(file, &[], &[], 10, 40);
    for (variant, text) in cases {
        let game = compile(file, &[variant], &[]);
        let mut new = Engine::with_seed(game.clone(), 1).unwrap();
        let mut old = RefEngine::with_seed(game.clone(), 1).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        // The part that goes wrong, and what it says.
        let halt: Halt = match variant {
            "choice" | "avoid" => {
                let mut r = ChaCha8Rng::seed_from_u64(1);
                let drawn = new.sample_move(&mut r.clone());
                assert_eq!(drawn, old.sample_move(&mut r), "{variant}: drawing");
                let listed = new.legal_moves(&mut a);
                assert_eq!(listed, old.legal_moves(&mut b), "{variant}: listing");
                assert_eq!(drawn.err(), listed.clone().err(), "{variant}: drawn and listed");
                listed.unwrap_err()
            }
            "score" => {
                let scored = new.scores();
                assert_eq!(scored, old.scores(), "{variant}");
                scored.unwrap_err()
            }
            _ => {
                new.legal_moves(&mut a).unwrap();
                let mv = a[0];
                let before = new.position().clone();
                let made = new.apply(mv);
                assert_eq!(made, old.apply(mv), "{variant}: making {mv:?}");
                match made {
                    Err(h) => {
                        assert_eq!(new.position(), &before, "{variant}: the position after the error");
                        h
                    }
                    // The second choice: the moves after the first.
                    Ok(()) => {
                        let listed = new.legal_moves(&mut a);
                        assert_eq!(listed, old.legal_moves(&mut b), "{variant}: listing after {mv:?}");
                        listed.unwrap_err()
                    }
                }
            }
        };
        let Halt::At(message, span) = &halt else { panic!("{variant}: told without a place: {halt:?}") };
        assert!(message.contains("there is none here"), "{variant}: {message}");
        assert_eq!(game.sources.text(*span), text, "{variant}: told at");
    }
}
