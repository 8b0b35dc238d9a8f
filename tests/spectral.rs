//! Spectral Reapers, rule by rule, as spectral-reapers.txt states it and
//! RULINGS.md decides; and the counting, sampling and naming of moves that
//! choose an order of colours.

mod common;
use common::*;
use mancala::engine::Move;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const R: &str = "rules/spectral-reapers.mancala";

#[test]
fn two_to_six_players_with_eleven_beads_each_and_two_pits_a_player() {
    for n in 2..=6 {
        let s = session(R, &[], &[("seats", &n.to_string())]);
        assert_eq!(s.game().players.len(), n);
        assert_eq!(s.engine().total_counters(), 11 * n as i64);
        assert_eq!(s.game().sites.iter().filter(|x| x.kind == mancala::engine::game::SiteKind::Pit).count(), 2 * n);
    }
    for bad in ["1", "7"] {
        let setup = mancala::session::Setup {
            rules: R.into(),
            settings: vec![("seats".into(), bad.into())],
            ..Default::default()
        };
        assert!(mancala::session::Session::new(setup).is_err());
    }
}

#[test]
fn placement_puts_three_and_four_and_four_own_beads_in_three_distinct_pits() {
    let mut s = session(R, &[], &[]);
    // 6 pits for the three, then an unordered pair of the other 5 for the fours.
    assert_eq!(s.engine().clone().count_moves().unwrap(), 6 * 10);
    for bad in ["x1=2 x2=4 x3=5", "x1=3 x1=4 x2=4", "x1=5 x2=3 x3=3", "x1=3 x2=3 x3=4"] {
        let before = s.engine().position().clone();
        let reply = run(&mut s, bad);
        assert!(
            reply.contains("is not a legal move now") || reply.contains("unknown command or move"),
            "{bad}: {reply}"
        );
        assert_eq!(s.engine().position(), &before, "{bad} changed the game");
    }
    // The two fours in either order name the same placement.
    let reply = run(&mut s, "x1=3 x3=4 x2=4");
    assert!(reply.contains("red plays x1=3 x2=4 x3=4"), "{reply}");
    assert_eq!(s.engine().colour_count(0, 0), 3);
    assert_eq!(count(&s, "hand-red"), 0);
    play(&mut s, "x1=3 x2=4 x3=4");
    play(&mut s, "x4=3 x5=4 x6=4");
    // The same player starts phase two.
    assert_eq!(to_move(&s), "red");
    assert_eq!(s.engine().position().turn.phase, 1);
}

#[test]
fn a_pit_of_four_four_and_three_beads_has_11550_orders_counted_without_listing() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x1=r4b4g3 x3=b1 x5=g1 turn=red phase=reaping");
    let mut e = s.engine().clone();
    assert_eq!(e.count_moves().unwrap(), 11_550);
    let summary = e.move_summary().unwrap();
    assert_eq!(summary, vec![("x1".to_string(), 11_550)]);
}

#[test]
fn huge_move_sets_are_counted_sampled_and_named_without_listing() {
    let mut s = session(R, &[], &[("seats", "6")]);
    set(&mut s, "clear x1=r5b5g5y5w5p5 x2=b1 x3=g1 x4=y1 x5=w1 x6=p1 turn=red phase=reaping");
    let mut e = s.engine().clone();
    let n = e.count_moves().unwrap();
    assert_eq!(n, 30_u128.pow(0) * mancala::engine::arrange::multinomial(&[5; 6]).unwrap());
    assert!(n > 1_000_000_000_000_000);
    // Listing is refused, with a reason.
    let mut list = Vec::new();
    assert!(e.legal_moves(&mut list).is_err());
    // Sampling and naming work, and the name finds the same move.
    let total = e.total_counters();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..20 {
        let mv = e.sample_move(&mut rng).unwrap().unwrap();
        let name = e.move_name(mv);
        assert_eq!(name.len(), "x1 ".len() + 30);
        assert_eq!(e.find_move(&name).unwrap(), Some(mv));
        e.apply(mv).unwrap();
        assert_eq!(e.total_counters(), total);
        e.undo();
    }
}

#[test]
fn sampling_is_uniform_over_all_moves() {
    let mut s = session(R, &[], &[]);
    // x1: 3 orders of r1b2; x4: 1 order of r1: four moves in all.
    set(&mut s, "clear x1=r1b2 x4=r1 x6=g2 turn=red phase=reaping");
    let mut e = s.engine().clone();
    assert_eq!(e.count_moves().unwrap(), 4);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut seen = std::collections::HashMap::new();
    for _ in 0..4000 {
        let mv = e.sample_move(&mut rng).unwrap().unwrap();
        *seen.entry(e.move_name(mv)).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
    for (name, k) in &seen {
        assert!((850..1150).contains(k), "{name} drawn {k} times of 4000: not uniform ({seen:?})");
    }
}

#[test]
fn the_sower_chooses_the_order_of_colours() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x1=r2b1g1 x4=r1b2g2 turn=red phase=reaping");
    play(&mut s, "x1 gbrr");
    assert_eq!(s.engine().colour_count(1, 2), 1, "x2 gets green");
    assert_eq!(s.engine().colour_count(2, 1), 1, "x3 gets blue");
    assert_eq!(s.engine().colour_count(4, 0), 1, "x5 gets red");
    run(&mut s, "undo");
    // Without an order: seat order.
    play(&mut s, "x1");
    assert_eq!(s.engine().colour_count(1, 0), 1);
    assert_eq!(s.engine().colour_count(4, 2), 1);
}

#[test]
fn a_lap_skips_the_emptied_pit() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x1=r4b3 x5=g2 x6=b1 turn=red phase=reaping");
    play(&mut s, "x1");
    assert_eq!(count(&s, "x1"), 0);
    assert_eq!(counts(&s, &["x2", "x3", "x4", "x5", "x6"]), vec![2, 2, 1, 3, 2]);
}

#[test]
fn two_own_beads_in_the_last_pit_force_a_capture_and_another_turn() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x2=r1 x3=r1g2 x4=r1 x6=b2 x5=g1 turn=red phase=reaping");
    play(&mut s, "x2");
    assert_eq!(to_move(&s), "red");
    assert_eq!(s.legal_names(), vec!["take red", "take green"]);
    play(&mut s, "take green");
    assert_eq!(count(&s, "cup-red"), 1);
    assert_eq!(s.engine().colour_count(s.game().site_by_name("cup-red").unwrap(), 2), 1);
    assert_eq!(to_move(&s), "red");
    // No capture when the last bead is not the mover's colour.
    set(&mut s, "clear x2=b1 x3=r2 x4=r1 x6=b2 x5=g2 turn=blue phase=reaping");
    play(&mut s, "x2");
    assert_eq!(to_move(&s), "green");
}

#[test]
fn the_game_ends_the_moment_a_player_has_one_bead_in_play() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x2=r1 x3=r1b1 x6=b1 x5=g2 x4=r1 cup-green=b2r1 turn=red phase=reaping");
    let reply = run(&mut s, "x2 r take blue");
    assert!(reply.contains("red plays take blue"), "{reply}");
    let mut e = s.engine().clone();
    assert_eq!(e.count_moves().unwrap(), 0);
    let o = e.outcome().unwrap().expect("over");
    assert_eq!(o.scores, vec![1, 0, 3]);
    assert_eq!(o.winners, vec![2]);
}

#[test]
fn moves_are_named_and_found_in_every_form() {
    let mut s = session(R, &[], &[]);
    set(&mut s, "clear x1=r1b1 x4=r1 x5=b2 x6=g2 turn=red phase=reaping");
    let mut e = s.engine().clone();
    let rb = e.find_move("x1 rb").unwrap().expect("explicit order");
    let br = e.find_move("x1 br").unwrap().expect("other order");
    assert_ne!(rb, br);
    assert_eq!(e.find_move("x1").unwrap(), Some(rb), "no order means seat order");
    for bad in ["x1 rr", "x1 rbb", "x1 q", "x1 r", "x2", "x1  rb"] {
        assert_eq!(e.find_move(bad).unwrap(), None, "{bad}");
    }
    assert!(e.find_move("x4 r").unwrap().is_some());
    assert_eq!(Move::PASS.order, 0);
}
