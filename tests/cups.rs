//! Cups (BohnDuell), rule by rule, as cups.txt states it and RULINGS.md decides.

mod common;
use common::*;

const C: &str = "rules/cups.mancala";

#[test]
fn the_board_starts_empty_with_ten_beans_a_cup_in_reserve() {
    for n in [3, 4, 10] {
        let s = session(C, &[], &[("cups", &n.to_string())]);
        assert_eq!(s.engine().total_counters(), 2 * 10 * n);
        assert_eq!(count(&s, "s-reserve"), 10 * n as i32);
        assert_eq!(count(&s, "s1"), 0);
    }
}

#[test]
fn cups_outside_three_to_ten_are_refused() {
    for bad in ["2", "11", "x"] {
        let setup = mancala::session::Setup {
            rules: C.into(),
            settings: vec![("cups".into(), bad.into())],
            ..Default::default()
        };
        let err = mancala::session::Session::new(setup).err().expect("refused");
        assert!(err.render(false).contains("--set cups="), "{}", err.render(false));
    }
}

#[test]
fn a_reserve_move_sows_cups_one_to_k() {
    let mut s = session(C, &[], &[]);
    assert_eq!(s.legal_names(), vec!["r1", "r2", "r3", "r4"]);
    play(&mut s, "r3");
    assert_eq!(counts(&s, &["s1", "s2", "s3", "s4", "s-reserve"]), vec![1, 1, 1, 0, 37]);
}

#[test]
fn a_reserve_move_takes_at_most_what_the_reserve_holds() {
    let mut s = session(C, &[], &[]);
    set(&mut s, "s-reserve=2");
    assert_eq!(s.legal_names(), vec!["r1", "r2"]);
}

#[test]
fn last_bean_in_an_empty_cup_captures_the_opposite_beans_only() {
    let mut s = session(C, &[], &[]);
    set(&mut s, "clear s-reserve=5 n-reserve=5 n3=4 turn=south");
    play(&mut s, "r2");
    assert_eq!(counts(&s, &["s1", "s2", "n3", "S"]), vec![1, 1, 0, 4]);
    // Not when the last cup held beans before.
    set(&mut s, "clear s2=1 s-reserve=5 n-reserve=5 n3=4 turn=south");
    play(&mut s, "r2");
    assert_eq!(counts(&s, &["s2", "n3", "S"]), vec![2, 4, 0]);
}

#[test]
fn a_cup_is_emptied_only_when_its_beans_reach_the_pot_exactly() {
    let mut s = session(C, &[], &[]);
    // Cup i of 4 needs 5 - i beans: s2 needs 3, s3 needs 2, s4 needs 1.
    set(&mut s, "clear s1=4 s2=4 s3=2 s4=2 turn=south");
    assert_eq!(s.legal_names(), vec!["s1", "s3"]);
    play(&mut s, "s3");
    assert_eq!(counts(&s, &["s3", "s4", "S"]), vec![0, 3, 1]);
}

#[test]
fn the_text_s_position_reaches_the_perfect_position_in_three_steps() {
    let mut s = session(C, &[], &[("cups", "10")]);
    set(&mut s, "clear s=10,8,6,4,2,5,1,0,0,1 turn=south");
    for mv in ["s10", "pass", "s6", "pass", "s10"] {
        play(&mut s, mv);
    }
    let cups: Vec<String> = (1..=10).map(|i| format!("s{i}")).collect();
    let cups: Vec<&str> = cups.iter().map(|c| c.as_str()).collect();
    assert_eq!(counts(&s, &cups), vec![10, 8, 6, 4, 2, 0, 2, 1, 1, 0]);
}

#[test]
fn a_player_who_cannot_move_passes_and_the_game_ends_when_neither_can() {
    let mut s = session(C, &[], &[]);
    set(&mut s, "clear s4=1 s1=3 S=7 N=9 n2=1 turn=north");
    assert_eq!(s.legal_names(), vec!["pass"]);
    play(&mut s, "pass");
    play(&mut s, "s4");
    assert!(s.legal_names().is_empty());
    let mut e = s.engine().clone();
    let o = e.outcome().unwrap().expect("over");
    // Beans left in cups are not counted.
    assert_eq!(o.scores, vec![8, 9]);
    assert_eq!(o.winners, vec![1]);
}
