//! The Cups text's solitaire claims ("perfect endgame" positions, Table 1),
//! checked with the generic solitaire solver on the shipped rule file.

use mancala::ai::solitaire::{Limits, Outcome, fewest_moves};
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
    let limits = Limits { max_positions: 10_000_000, max_moves: 1_000, memory: 1 << 30 };
    let report = fewest_moves(s.engine(), &goal, limits, &mut |_| {}).unwrap();
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

// ---- "3 1 0 0 4 3 0 0 0 1 (88 seeds in reserve) takes more than 80 steps" --
//
// The generic solitaire search cannot go that deep (each move triples the
// positions). This claim is settled on a model of one side of a 10-cup board
// alone: the beans in cups 1..10 and in reserve, the pot holding the rest of
// the 100. The model is checked against the rule file move for move first.

const CUPS: usize = 10;
type Cups = [u8; CUPS];

/// How many beans cup `i` (0 is cup 1, the leftmost) needs to reach the pot.
fn reach(i: usize) -> u8 {
    (CUPS - i) as u8
}

/// The positions one move of the model leads to, as (cups, reserve).
fn model_moves(c: Cups, reserve: u8) -> Vec<(Cups, u8)> {
    let mut out = Vec::new();
    // "Take some beans (from one to the number of cups) from your reserve and
    // distribute them to the right, one by one, by starting in your leftmost
    // hole." (No capture: the opponent has no beans.)
    for k in 1..=CUPS.min(reserve as usize) {
        let mut d = c;
        d[..k].iter_mut().for_each(|x| *x += 1);
        out.push((d, reserve - k as u8));
    }
    // A cup holding exactly its reach is emptied, one bean each into the cups
    // to its right and the last into the pot.
    for i in 0..CUPS {
        if c[i] == reach(i) {
            let mut d = c;
            d[i] = 0;
            d[i + 1..].iter_mut().for_each(|x| *x += 1);
            out.push((d, reserve));
        }
    }
    out
}

/// The positions from which one move of the model leads to `(c, reserve)`,
/// the pot holding `pot`.
fn model_unmoves(c: &Cups, reserve: u8, pot: u32, out: &mut Vec<(Cups, u8)>) {
    out.clear();
    for k in 1..=CUPS {
        if c[..k].iter().all(|&x| x > 0) {
            let mut d = *c;
            d[..k].iter_mut().for_each(|x| *x -= 1);
            out.push((d, reserve + k as u8));
        }
    }
    for i in 0..CUPS {
        if pot > 0 && c[i] == 0 && c[i + 1..].iter().all(|&x| x > 0) {
            let mut d = *c;
            d[i] = reach(i);
            d[i + 1..].iter_mut().for_each(|x| *x -= 1);
            out.push((d, reserve));
        }
    }
}

fn cups_text(c: &Cups, reserve: u8, pot: u32) -> String {
    let c: Vec<i32> = c.iter().map(|&x| x as i32).collect();
    format!("s={} s-reserve={reserve} S={pot}", list(&c))
}

#[test]
fn the_model_of_the_puzzle_moves_as_the_rule_file_does() {
    let mut checked = 0;
    for start in [([3, 1, 0, 0, 4, 3, 0, 0, 0, 1], 88), ([10, 8, 6, 4, 2, 5, 1, 0, 0, 1], 0)] {
        // Breadth first through the model's positions, each compared with
        // what the rule file makes of it.
        let mut queue = std::collections::VecDeque::from([start]);
        let mut seen = std::collections::HashSet::from([start]);
        while let Some((c, reserve)) = queue.pop_front() {
            {
                let pot = 100 - c.iter().map(|&x| x as u32).sum::<u32>() - reserve as u32;
                let s = cups_at("rules/cups.mancala", CUPS, &cups_text(&c, reserve, pot));
                let mut e = s.engine().clone();
                let g = e.game.clone();
                let sites: Vec<u16> = (1..=CUPS).map(|i| g.site_by_name(&format!("s{i}")).unwrap()).collect();
                let (res, store) = (g.site_by_name("s-reserve").unwrap(), g.site_by_name("S").unwrap());
                let mut moves = Vec::new();
                e.legal_moves(&mut moves).unwrap();
                let mut by_rules: Vec<(Cups, u8)> = moves
                    .iter()
                    .map(|&mv| {
                        e.apply(mv).unwrap();
                        let mut d = [0u8; CUPS];
                        for (x, &site) in d.iter_mut().zip(&sites) {
                            *x = e.site_count(site) as u8;
                        }
                        let after = (d, e.site_count(res) as u8);
                        assert_eq!(e.total_counters(), 100);
                        // The pot gains one bean exactly when a cup is emptied.
                        let potted = e.site_count(store) as u32 - pot;
                        assert_eq!(potted, (after.1 == reserve) as u32, "{}", e.move_name(mv));
                        e.undo();
                        after
                    })
                    .collect();
                let mut by_model = model_moves(c, reserve);
                by_rules.sort_unstable();
                by_model.sort_unstable();
                assert_eq!(by_rules, by_model, "from {}", cups_text(&c, reserve, pot));
                // Each move of the model is undone by one of its unmoves.
                let mut back = Vec::new();
                for &(d, r) in &by_model {
                    let pot_after = 100 - d.iter().map(|&x| x as u32).sum::<u32>() - r as u32;
                    model_unmoves(&d, r, pot_after, &mut back);
                    assert!(back.contains(&(c, reserve)), "{d:?} {r} does not lead back to {c:?} {reserve}");
                }
            }
            checked += 1;
            if seen.len() >= 3000 {
                continue;
            }
            for next in model_moves(c, reserve) {
                if seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
    }
    // Both breadth-first walks ran (the second start reaches few positions).
    assert!(checked > 3000, "{checked}");
}

/// Every position (cups, reserve) with at most `max_reserve` in reserve from
/// which the model reaches `goal` (nothing in reserve), found backwards from
/// the goal one level of reserve at a time (unmaking a move never lowers the
/// reserve), each level a bitmap over the cups. Returns how many there are,
/// and which of `probes` are among them.
fn positions_that_reach(goal: Cups, max_reserve: u8, probes: &[(Cups, u8)]) -> (u64, Vec<bool>) {
    // Cups are numbered in mixed radix, cup i holding 0..=reach(i) (more
    // and it is blocked for ever, so no such position reaches the goal).
    let space: usize = (0..CUPS).map(|i| reach(i) as usize + 1).product();
    let index = |c: &Cups| (0..CUPS).fold(0usize, |k, i| k * (reach(i) as usize + 1) + c[i] as usize);
    let unindex = |mut k: usize| {
        let mut c = [0u8; CUPS];
        for i in (0..CUPS).rev() {
            let base = reach(i) as usize + 1;
            c[i] = (k % base) as u8;
            k /= base;
        }
        c
    };
    let fits = |c: &Cups| (0..CUPS).all(|i| c[i] <= reach(i));
    let has = |level: &[u64], k: usize| level[k / 64] & (1 << (k % 64)) != 0;
    // A move takes at most CUPS from the reserve: levels r .. r + CUPS are kept.
    let ring = CUPS + 1;
    let mut levels: Vec<Vec<u64>> = vec![vec![0; space / 64 + 1]; ring];
    let (mut total, mut found) = (0u64, vec![false; probes.len()]);
    let (mut stack, mut back) = (Vec::new(), Vec::new());
    let k = index(&goal);
    levels[0][k / 64] |= 1 << (k % 64);
    for r in 0..=max_reserve as usize {
        // The positions put on this level from below, then those they are
        // reached from by cup moves, which keep the reserve.
        let level = &levels[r % ring];
        for (w, &word) in level.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                stack.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        while let Some(k) = stack.pop() {
            total += 1;
            let c = unindex(k);
            let pot = 100 - c.iter().map(|&x| x as u32).sum::<u32>() - r as u32;
            model_unmoves(&c, r as u8, pot, &mut back);
            for &(d, dr) in &back {
                if dr > max_reserve || !fits(&d) {
                    continue;
                }
                let (level, k) = (&mut levels[dr as usize % ring], index(&d));
                if !has(level, k) {
                    level[k / 64] |= 1 << (k % 64);
                    if dr as usize == r {
                        stack.push(k);
                    }
                }
            }
        }
        for (p, (c, pr)) in probes.iter().enumerate() {
            if *pr as usize == r && fits(c) {
                found[p] = has(&levels[r % ring], index(c));
            }
        }
        levels[r % ring].iter_mut().for_each(|w| *w = 0);
    }
    (total, found)
}

#[test]
fn three_one_zero_zero_four_three_never_reaches_the_perfect_position() {
    let perfect = [10, 8, 6, 4, 2, 0, 2, 1, 1, 0];
    let probes = [
        // The text's claim.
        ([3, 1, 0, 0, 4, 3, 0, 0, 0, 1], 88),
        // The three-step example, and a position made by unmaking 60 moves
        // (22 from the reserve) from the perfect one: both reach it.
        ([10, 8, 6, 4, 2, 5, 1, 0, 0, 1], 0),
        ([8, 7, 5, 3, 0, 3, 2, 0, 0, 0], 44),
    ];
    let (positions, found) = positions_that_reach(perfect, 88, &probes);
    assert_eq!(found, vec![false, true, true]);
    assert_eq!(positions, 57_772_208);
}
