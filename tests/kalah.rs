//! Kalah, rule by rule, as kalah.txt states it and RULINGS.md decides.

mod common;
use common::*;

const K: &str = "rules/kalah.mancala";

#[test]
fn start_position_has_four_stones_in_each_of_twelve_pits() {
    let s = session(K, &[], &[]);
    let pits: Vec<String> = (1..=6).flat_map(|i| [format!("s{i}"), format!("n{i}")]).collect();
    for p in &pits {
        assert_eq!(count(&s, p), 4, "{p}");
    }
    assert_eq!(counts(&s, &["S", "N"]), vec![0, 0]);
    assert_eq!(to_move(&s), "south");
}

#[test]
fn options_change_the_board() {
    let s = session(K, &[], &[("pits", "3"), ("stones", "6")]);
    assert_eq!(s.game().sites.len(), 8);
    assert_eq!(count(&s, "n3"), 6);
    assert!(s.game().site_by_name("s4").is_none());
}

#[test]
fn sowing_is_anticlockwise_one_per_pit() {
    let mut s = session(K, &[], &[]);
    play(&mut s, "s1");
    assert_eq!(counts(&s, &["s1", "s2", "s3", "s4", "s5", "s6", "S"]), vec![0, 5, 5, 5, 5, 4, 0]);
    assert_eq!(to_move(&s), "north");
}

#[test]
fn last_stone_in_own_bank_gives_another_go() {
    let mut s = session(K, &[], &[]);
    play(&mut s, "s3");
    assert_eq!(count(&s, "S"), 1);
    assert_eq!(to_move(&s), "south");
}

#[test]
fn the_opponents_bank_is_skipped() {
    let mut s = session(K, &[], &[]);
    set(&mut s, "clear s6=9 n3=1 turn=south");
    play(&mut s, "s6");
    assert_eq!(count(&s, "N"), 0);
    assert_eq!(counts(&s, &["n1", "n2", "n3", "n4", "n6", "s1"]), vec![1, 1, 2, 1, 1, 1]);
    // The ninth stone fell in empty s2 and captured n5's one stone.
    assert_eq!(counts(&s, &["s2", "n5", "S"]), vec![1, 0, 2]);
}

#[test]
fn a_lap_skips_the_emptied_pit_but_not_in_standard() {
    let mut s = session(K, &[], &[]);
    set(&mut s, "clear s1=14 n3=1 turn=south");
    play(&mut s, "s1");
    assert_eq!(counts(&s, &["s1", "s2", "s3"]), vec![0, 2, 2]);

    let mut s = session(K, &["standard"], &[]);
    set(&mut s, "clear s1=14 n3=1 turn=south");
    play(&mut s, "s1");
    assert_eq!(counts(&s, &["s1", "s2", "s3"]), vec![1, 2, 1]);
}

#[test]
fn capture_takes_the_opposite_stones_and_leaves_the_capturing_stone() {
    let mut s = session(K, &[], &[]);
    set(&mut s, "clear s1=1 n5=3 n1=1 turn=south");
    play(&mut s, "s1");
    assert_eq!(counts(&s, &["s2", "n5", "S"]), vec![1, 0, 3]);
}

#[test]
fn standard_capture_banks_the_capturing_stone_too() {
    let mut s = session(K, &["standard"], &[]);
    set(&mut s, "clear s1=1 n5=3 n1=1 n2=1 turn=south");
    play(&mut s, "s1");
    assert_eq!(counts(&s, &["s2", "n5", "S"]), vec![0, 0, 4]);
}

#[test]
fn an_empty_opposite_pit_captures_nothing_except_in_empty_capture() {
    for (variant, expect) in [(None, vec![1, 0]), (Some("standard"), vec![1, 0]), (Some("empty-capture"), vec![0, 1])] {
        let mut s = session(K, variant.as_slice(), &[]);
        set(&mut s, "clear s1=1 s4=1 n1=1 turn=south");
        play(&mut s, "s1");
        assert_eq!(counts(&s, &["s2", "S"]), expect, "{variant:?}");
    }
}

#[test]
fn a_move_may_not_leave_the_opponent_without_a_move() {
    let mut s = session(K, &[], &[]);
    set(&mut s, "clear s1=1 s4=1 n5=2 turn=south");
    assert_eq!(s.legal_names(), vec!["s4"]);
    // ... unless every move does.
    set(&mut s, "clear s1=1 n5=2 turn=south");
    assert_eq!(s.legal_names(), vec!["s1"]);
    // A move that ends in the own bank keeps the turn and is never excluded.
    set(&mut s, "clear s5=1 s6=1 S=3 N=3 turn=south");
    assert_eq!(s.legal_names(), vec!["s6"]);
    // `standard` has no such rule.
    let mut s = session(K, &["standard"], &[]);
    set(&mut s, "clear s1=1 s4=1 n5=2 turn=south");
    assert_eq!(s.legal_names(), vec!["s1", "s4"]);
}

#[test]
fn the_game_ends_when_the_player_to_move_has_no_move_and_pits_count_for_nobody() {
    let mut s = session(K, &[], &[]);
    set(&mut s, "clear s6=1 S=20 N=10 n1=5 turn=south");
    play(&mut s, "s6");
    assert!(s.legal_names().is_empty());
    let mut e = s.engine().clone();
    let o = e.outcome().unwrap().expect("over");
    assert_eq!(o.scores, vec![21, 10]);
    assert_eq!(o.winners, vec![0]);
    assert_eq!(count(&s, "n1"), 5);
}

#[test]
fn standard_ends_when_a_side_is_empty_and_banks_what_is_left() {
    let mut s = session(K, &["standard"], &[]);
    set(&mut s, "clear s6=1 S=20 N=10 n1=5 turn=south");
    play(&mut s, "s6");
    let mut e = s.engine().clone();
    let o = e.outcome().unwrap().expect("over");
    assert_eq!(o.scores, vec![21, 15]);
    assert_eq!(count(&s, "n1"), 0);
}

#[test]
fn a_position_set_with_an_empty_side_is_over_in_standard() {
    let mut s = session(K, &["standard"], &[]);
    set(&mut s, "clear n1=1 S=20 turn=north");
    assert!(s.legal_names().is_empty());
    assert_eq!(count(&s, "N"), 1, "north banked its stone");
}

#[test]
fn equal_banks_are_a_draw() {
    let mut s = session(K, &["standard"], &[]);
    // South's last stone ends in the bank and empties south's side; north
    // banks its one stone: 10 to 10.
    set(&mut s, "clear s6=1 n1=1 S=9 N=9 turn=south");
    play(&mut s, "s6");
    let mut e = s.engine().clone();
    let o = e.outcome().unwrap().expect("over");
    assert_eq!(o.scores, vec![10, 10]);
    assert_eq!(o.winners, vec![0, 1]);
}
