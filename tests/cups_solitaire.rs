//! The Cups text's solitaire claims ("perfect endgame" positions, Table 1),
//! checked with the generic solitaire solver on the shipped rule file.

use mancala::ai::solitaire::{Outcome, fewest_moves};
use mancala::session::{Session, Setup};

/// A Cups session of `cups` cups per side at the position `set` (north out
/// of play: no beans anywhere).
fn cups_at(rules: &str, cups: usize, set: &str) -> Session {
    let mut s = Session::new(Setup {
        rules: rules.into(),
        variants: vec![],
        settings: vec![("cups".into(), cups.to_string())],
        seed: 0,
    })
    .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let reply = s.command(&format!("set {set} n-reserve=0"));
    assert!(!reply.text.contains("unchanged"), "{}", reply.text);
    s
}

fn list(counts: &[i32]) -> String {
    counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
}

/// The fewest moves from `from` to `goal`, or None when unreachable.
fn fewest(rules: &str, cups: usize, from: &str, goal: &str) -> Option<Vec<String>> {
    let s = cups_at(rules, cups, from);
    let goal = s.parse_goal(goal).unwrap();
    let mut e = s.engine().clone();
    let report = fewest_moves(&mut e, &goal, 10_000_000, 1_000, &mut |_| {}).unwrap();
    match report.outcome {
        Outcome::Reached { line } => Some(line),
        Outcome::Unreachable => None,
        Outcome::GaveUp { .. } => panic!("the search gave up"),
    }
}

/// Whether every bean on the board can be played into the pot.
fn clears(rules: &str, cups: &[i32]) -> Option<usize> {
    let n = cups.len();
    let empty = vec![0; n];
    fewest(rules, n, &format!("s={} s-reserve=0", list(cups)), &format!("s={} s-reserve=0", list(&empty)))
        .map(|l| l.len())
}

#[test]
fn ten_eight_six_four_two_five_one_reaches_the_perfect_position_in_three_steps() {
    let line =
        fewest("rules/cups.mancala", 10, "s=10,8,6,4,2,5,1,0,0,1 s-reserve=0", "s=10,8,6,4,2,0,2,1,1,0 s-reserve=0");
    assert_eq!(line, Some(vec!["s10".to_string(), "s6".into(), "s10".into()]));
}

/// Table 1 of the text: n cups, the fewest beans, the position.
const TABLE_1: &[(usize, &[i32])] = &[
    (4, &[3, 1, 0]),
    (6, &[4, 2, 0, 0]),
    (10, &[5, 3, 1, 1, 0]),
    (12, &[6, 4, 2, 0, 0, 0]),
    (18, &[7, 5, 3, 1, 2, 0, 0]),
    (22, &[8, 6, 4, 2, 0, 1, 1, 0]),
    (30, &[9, 7, 5, 3, 1, 3, 2, 0, 0]),
    (34, &[10, 8, 6, 4, 2, 0, 2, 1, 1, 0]),
];

#[test]
fn every_position_of_table_1_plays_every_bean_into_the_pot() {
    for &(beans, cups) in TABLE_1 {
        assert_eq!(cups.iter().sum::<i32>() as usize, beans);
        // Each move pots one bean, so clearing takes exactly one move a bean.
        assert_eq!(clears("rules/cups.mancala", cups), Some(beans), "{cups:?}");
    }
}

/// Every position of `cups` cups holding `beans` beans with cup 1 filled.
fn positions_with_cup_one_filled(cups: usize, beans: i32) -> Vec<Vec<i32>> {
    fn fill(rest: &mut Vec<i32>, left: i32, slots: usize, out: &mut Vec<Vec<i32>>) {
        if slots == 0 {
            if left == 0 {
                out.push(rest.clone());
            }
            return;
        }
        for c in 0..=left {
            rest.push(c);
            fill(rest, left - c, slots - 1, out);
            rest.pop();
        }
    }
    let mut out = Vec::new();
    if beans >= cups as i32 {
        fill(&mut vec![cups as i32], beans - cups as i32, cups - 1, &mut out);
    }
    out
}

#[test]
fn table_1_needs_the_fewest_beans_and_its_positions_are_the_only_ones() {
    // Up to 6 cups, every position with cup 1 filled and no more beans than
    // the table's is tried: those with fewer never clear, and the table's is
    // the only one of its size that does.
    for &(beans, table) in &TABLE_1[..4] {
        let n = table.len();
        for b in n as i32..=beans as i32 {
            let clearing: Vec<Vec<i32>> = positions_with_cup_one_filled(n, b)
                .into_iter()
                .filter(|p| clears("rules/cups.mancala", p).is_some())
                .collect();
            if b < beans as i32 {
                assert!(clearing.is_empty(), "{n} cups, {b} beans: {clearing:?} clear");
            } else {
                assert_eq!(clearing, vec![table.to_vec()], "{n} cups");
            }
        }
    }
}

#[test]
fn beyond_ten_cups_the_perfect_positions_go_on_clearing() {
    // The rule file stops at 10 cups, as the text does; a copy that allows
    // more checks the positions beyond (as README.md reports them).
    let text = std::fs::read_to_string("rules/cups.mancala").unwrap();
    assert!(text.contains("in 3..10"));
    let path = std::env::temp_dir().join(format!("cups-wide-{}.mancala", std::process::id()));
    std::fs::write(&path, text.replace("in 3..10", "in 3..16")).unwrap();
    let rules = path.to_str().unwrap();
    let beyond: &[(usize, &[i32])] = &[
        (42, &[11, 9, 7, 5, 3, 1, 4, 0, 2, 0, 0]),
        (48, &[12, 10, 8, 6, 4, 2, 0, 3, 3, 0, 0, 0]),
        (58, &[13, 11, 9, 7, 5, 3, 1, 5, 1, 1, 1, 1, 0]),
        (60, &[14, 12, 10, 8, 6, 4, 2, 0, 4, 0, 0, 0, 0, 0]),
    ];
    for &(beans, cups) in beyond {
        assert_eq!(cups.iter().sum::<i32>() as usize, beans);
        assert_eq!(clears(rules, cups), Some(beans), "{cups:?}");
        // One bean fewer in any cup but the first, and the board is stuck.
        for i in 1..cups.len() {
            if cups[i] > 0 {
                let mut less = cups.to_vec();
                less[i] -= 1;
                assert_eq!(clears(rules, &less), None, "{less:?}");
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_goal_that_cannot_be_reached_is_proved_so() {
    // Beans never leave the pot: a goal with fewer in it is unreachable.
    assert_eq!(fewest("rules/cups.mancala", 3, "s=3,1,0 s-reserve=0 S=5", "S=4"), None);
}
