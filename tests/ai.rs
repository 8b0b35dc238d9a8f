//! Agents and the solver, on every shipped game, through the engine only.

use std::sync::Arc;

use mancala::ai::solve::{Limits, Solution, Unsolved, solve, solve_limited};
use mancala::ai::{AgentSpec, alphabeta::WIN, choose};
use mancala::analysis::{Play, play_match, play_one};
use mancala::compile::{Config, compile_file};
use mancala::engine::game::Game;
use mancala::engine::{Engine, Move};
use mancala::session::{Session, Setup};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn game(rules: &str, settings: &[(&str, &str)], variants: &[&str]) -> Arc<Game> {
    let cfg = Config {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Arc::new(compile_file(rules, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

fn specs(s: &str) -> Vec<AgentSpec> {
    s.split(',').map(|a| a.parse().unwrap()).collect()
}

#[test]
fn agents_only_ever_play_legal_moves() {
    let cases: Vec<(Arc<Game>, &str)> = vec![
        (game("rules/kalah.mancala", &[("pits", "4")], &[]), "random,greedy,alphabeta:300,mcts:40"),
        (game("rules/kalah.mancala", &[("pits", "4")], &["standard"]), "alphabeta:300,mcts:40"),
        (game("rules/cups.mancala", &[("cups", "3")], &[]), "greedy,alphabeta:300,mcts:40"),
        (game("rules/spectral-reapers.mancala", &[("seats", "3")], &[]), "mcts:20,greedy,alphabeta:100"),
        (game("rules/tea-party.mancala", &[], &["whistle-stop"]), "mcts:20,alphabeta:200"),
    ];
    for (g, agents) in cases {
        for agent in specs(agents) {
            for seed in 0..2 {
                let mut e = Engine::with_seed(g.clone(), seed).unwrap();
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                for _ in 0..400 {
                    let Some(c) = choose(agent, &mut e, &mut rng).unwrap() else { break };
                    // Legal: found by its name among the moves of the position.
                    let name = e.move_name(c.mv);
                    assert_eq!(e.find_move(&name).unwrap(), Some(c.mv), "{} {agent}: `{name}` is not legal", g.name);
                    e.apply(c.mv).unwrap();
                }
            }
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let g = game("rules/kalah.mancala", &[("pits", "4")], &[]);
    let agents = specs("mcts:60,alphabeta:500");
    let a = play_one(&g, &agents, 7, Play { max_plies: 1000, opening: 0 }).unwrap();
    let b = play_one(&g, &agents, 7, Play { max_plies: 1000, opening: 0 }).unwrap();
    assert_eq!((a.scores.clone(), a.plies), (b.scores.clone(), b.plies));
    let c = play_one(&g, &specs("random"), 8, Play { max_plies: 1000, opening: 0 }).unwrap();
    assert!(c.finished);
}

/// A match plays game `i` from seed `seed + i` as `play_one` plays it
/// alone (its games are new games of one engine: the rules compiled once),
/// in a game whose rules draw at random (Tea Party's whistle and spotted
/// cubes): the same plies and scores, summed over the games.
#[test]
fn a_match_plays_each_game_as_it_is_played_alone() {
    let g = game("rules/tea-party.mancala", &[], &["whistle-stop", "spotted-sugar-cubes"]);
    let agents = specs("random");
    let play = Play { max_plies: 1000, opening: 0 };
    let report = play_match(g.clone(), &agents, 16, 3, play, &|| ()).unwrap();
    let alone: Vec<_> = (3..19).map(|seed| play_one(&g, &agents, seed, play).unwrap()).collect();
    let n = alone.len() as f64;
    let mean_plies = alone.iter().map(|r| r.plies as f64).sum::<f64>() / n;
    assert_eq!(report.mean_plies, mean_plies);
    for (p, seat) in report.seats.iter().enumerate() {
        let mean = alone.iter().map(|r| r.scores[p] as f64).sum::<f64>() / n;
        assert_eq!(seat.mean_score, mean, "{}", seat.seat);
        assert_eq!(seat.wins, alone.iter().filter(|r| r.winners == [p as u8]).count(), "{}", seat.seat);
    }
    // The seeds play different games.
    assert!(alone.iter().any(|r| r.plies != alone[0].plies));
}

/// The first player's final margin under perfect play, by plain minimax.
fn minimax(e: &mut Engine) -> i64 {
    let mut moves: Vec<Move> = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    if moves.is_empty() {
        let s = e.scores().unwrap();
        return s[0] - s[1];
    }
    let first = e.to_move() == 0;
    let mut best = if first { i64::MIN } else { i64::MAX };
    for mv in moves {
        e.apply(mv).unwrap();
        let v = minimax(e);
        e.undo();
        best = if first { best.max(v) } else { best.min(v) };
    }
    best
}

/// Small positions of several games: each a rule file, settings, variants
/// and a position set from text (or the start).
fn small_positions() -> Vec<(String, Engine)> {
    let mut out = Vec::new();
    let mut add = |rules: &str, settings: &[(&str, &str)], variants: &[&str], set: Option<&str>| {
        let setup = Setup {
            rules: rules.into(),
            variants: variants.iter().map(|v| v.to_string()).collect(),
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            seed: 0,
        };
        let mut s = Session::new(setup).unwrap();
        if let Some(p) = set {
            let r = s.command(&format!("set {p}"));
            assert!(!r.text.contains("unchanged"), "{}", r.text);
        }
        out.push((format!("{rules} {settings:?} {variants:?} {set:?}"), s.engine().clone()));
    };
    for (p, n) in [("2", "2"), ("2", "3"), ("3", "2"), ("3", "3")] {
        add("rules/kalah.mancala", &[("pits", p), ("stones", n)], &["standard"], None);
        add("rules/kalah.mancala", &[("pits", p), ("stones", n)], &["empty-capture"], None);
        add("rules/kalah.mancala", &[("pits", p), ("stones", n)], &[], None);
    }
    // Part-way through, with stones in the stores: the solver's table
    // leaves the stores out, so values must not depend on them.
    add("rules/kalah.mancala", &[("pits", "3")], &["standard"], Some("clear s1=2 s3=3 n1=1 n2=2 S=7 N=4 turn=north"));
    add("rules/kalah.mancala", &[("pits", "3")], &[], Some("clear s2=4 n1=3 n3=1 S=2 N=9 turn=south"));
    add("rules/cups.mancala", &[("cups", "3")], &[], Some("clear s-reserve=3 n-reserve=3 s1=1 n2=1 turn=south"));
    add("rules/cups.mancala", &[("cups", "3")], &[], Some("clear s-reserve=4 n-reserve=2 turn=north"));
    out
}

/// A solve with `threads` threads and a table of at most `memory` bytes.
fn solve_threads(e: &Engine, threads: usize, memory: usize) -> Result<Solution, Unsolved> {
    solve_limited(e, Limits { memory, time: None, max_positions: None, threads }, &mut |_| {})
}

#[test]
fn the_solver_agrees_with_plain_minimax() {
    for (what, mut e) in small_positions() {
        let exact = minimax(&mut e);
        let before = e.position().clone();
        let sol = solve(&e, &mut |_| {}).unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(sol.value, exact, "{what}");
        assert_eq!(solve_threads(&e, 2, 1 << 30).unwrap().value, exact, "{what}: two threads");
        assert_eq!(e.position(), &before, "{what}: the solver changed the position");
        // Its best move keeps the value (a position with moves has one).
        assert_eq!(sol.best.is_some(), e.count_moves().unwrap() > 0, "{what}");
        if let Some(b) = sol.best {
            e.apply(b).unwrap();
            assert_eq!(minimax(&mut e), exact, "{what}: best move {}", e.move_name(b));
            e.undo();
        }
        // The principal variation is played to the end of the game and ends
        // with the value's margin.
        let mut made = 0;
        for name in &sol.pv {
            let mv = e.find_move(name).unwrap().unwrap_or_else(|| panic!("{what}: `{name}` of the line is not legal"));
            e.apply(mv).unwrap();
            made += 1;
        }
        assert_eq!(e.count_moves().unwrap(), 0, "{what}: the line {:?} stops before the end", sol.pv);
        let scores = e.scores().unwrap();
        assert_eq!(scores[0] - scores[1], exact, "{what}: the line {:?}", sol.pv);
        for _ in 0..made {
            e.undo();
        }
    }
}

#[test]
fn alphabeta_plays_a_move_that_keeps_the_value() {
    for (what, mut e) in small_positions() {
        if e.count_moves().unwrap() == 0 {
            continue;
        }
        let exact = minimax(&mut e);
        let me = e.to_move();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let c = choose("alphabeta:2000000".parse().unwrap(), &mut e, &mut rng).unwrap().unwrap();
        e.apply(c.mv).unwrap();
        let after = minimax(&mut e);
        e.undo();
        assert_eq!(after, exact, "{what}: alpha-beta chose {} for player {me}", e.move_name(c.mv));
        // A proven result is reported as a win or loss by the exact margin.
        let v = c.value.unwrap() as i64;
        let mine = if me == 0 { exact } else { -exact };
        if v.abs() >= WIN / 2 {
            assert_eq!(v - v.signum() * WIN, mine, "{what}");
        }
    }
}

#[test]
fn solver_values_of_small_kalah_boards() {
    let mut table = String::new();
    for variant in ["standard", "empty-capture"] {
        for pits in 1..=4 {
            for stones in 1..=3 {
                if pits * stones > 9 {
                    continue;
                }
                let g = game(
                    "rules/kalah.mancala",
                    &[("pits", &pits.to_string()), ("stones", &stones.to_string())],
                    &[variant],
                );
                let mut e = Engine::new(g).unwrap();
                let sol = solve(&e, &mut |_| {}).unwrap();
                table.push_str(&format!(
                    "Kalah({pits},{stones}) {variant}: {:+} (best {})\n",
                    sol.value,
                    sol.best.map(|m| e.move_name(m)).unwrap_or_default()
                ));
            }
        }
    }
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("solver_values_small_kalah", table);
    });
}

/// The table is a cache: one far too small to hold the search (64 KiB, about
/// 2,700 entries, for a search of tens of thousands of positions) loses
/// entries and searches them again, and gives the same values.
#[test]
fn a_small_table_gives_the_same_values() {
    for (pits, stones, variant) in [(4, 3, "standard"), (3, 3, "empty-capture"), (4, 2, "standard")] {
        let g =
            game("rules/kalah.mancala", &[("pits", &pits.to_string()), ("stones", &stones.to_string())], &[variant]);
        let e = Engine::new(g).unwrap();
        let full = solve(&e, &mut |_| {}).unwrap();
        let small = mancala::ai::solve::solve_within(&e, 64 << 10, &mut |_| {}).unwrap();
        assert_eq!(small.value, full.value, "Kalah({pits},{stones}) {variant}");
        assert!(small.positions <= (64 << 10) / mancala::ai::table::ENTRY_BYTES);
        if pits == 4 && stones == 3 {
            // Kalah(4,3) needs more than that table holds: entries were lost and searched again.
            assert!(full.positions > small.positions && small.nodes > full.nodes, "{full:?} {small:?}");
        }
    }
}

/// Several threads search one table, which grows under them and, when
/// small, loses entries they share: the values stay those of one thread.
#[test]
fn several_threads_give_the_values_of_one() {
    for (pits, stones, variant, value) in
        [(4, 4, "standard", 2), (4, 3, "empty-capture", 8), (5, 2, "standard", 2), (5, 3, "standard", 6)]
    {
        let g =
            game("rules/kalah.mancala", &[("pits", &pits.to_string()), ("stones", &stones.to_string())], &[variant]);
        let e = Engine::new(g).unwrap();
        // 16 KiB: the principal variation, searched alone after the passes,
        // has to search again much that the table lost.
        for (threads, memory) in [(2, 1 << 30), (2, 64 << 10), (3, 1 << 20), (2, 16 << 10)] {
            let sol = solve_threads(&e, threads, memory).unwrap();
            assert_eq!(sol.value, value, "Kalah({pits},{stones}) {variant}, {threads} threads, {memory} bytes");
            // The line proves the value: played out, it ends with that margin.
            let mut line = e.clone();
            for name in &sol.pv {
                let mv = line.find_move(name).unwrap().unwrap();
                line.apply(mv).unwrap();
            }
            assert_eq!(line.count_moves().unwrap(), 0);
            let s = line.scores().unwrap();
            assert_eq!(s[0] - s[1], value);
        }
    }
}

/// Moves that cut searches off before are tried first among equal gains
/// (the history heuristic): Kalah(5,3) searched 900,648 positions without
/// it, and this guards the gain (one thread, so the count is the same every
/// run).
#[test]
fn moves_that_cut_off_before_are_tried_first() {
    let e = Engine::new(game("rules/kalah.mancala", &[("pits", "5"), ("stones", "3")], &["standard"])).unwrap();
    let sol = solve(&e, &mut |_| {}).unwrap();
    assert_eq!(sol.value, 6);
    assert!(sol.nodes < 400_000, "{} positions searched", sol.nodes);
}

/// A game that never ends: one stone passed back and forth.
const ROUND_AND_ROUND: &str = r#"
game "Round and round"
players south, north
pit a owner south
pit b owner north
track round cyclic: a, b
setup { put 1 in a }
move sow "{hole}" {
  choose hole in every pit of mover where count(hole) > 0
  sow hole along round
}
when stuck: pass
score p: count(every pit of p)
"#;

#[test]
fn games_that_can_cycle_are_refused_not_searched_for_ever() {
    let g = mancala::compile::compile_source("round.mancala", ROUND_AND_ROUND, &Config::default())
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let e = Engine::new(Arc::new(g)).unwrap();
    let err = solve(&e, &mut |_| {}).unwrap_err();
    // Met as a repeated position, not as a line too long.
    assert!(err.contains("come round again"), "{err}");
    let err = solve_threads(&e, 2, 1 << 20).unwrap_err();
    assert!(matches!(&err, Unsolved::Refused(m) if m.contains("come round again")), "{err}");
}

#[test]
fn rules_that_read_the_history_are_not_solved() {
    // Spectral Reapers reads `ply`: a table of positions cannot value it.
    let e = Engine::new(game("rules/spectral-reapers.mancala", &[("seats", "2")], &[])).unwrap();
    let err = solve(&e, &mut |_| {}).unwrap_err();
    assert!(err.contains("`ply`"), "{err}");
}

#[test]
fn games_with_chance_or_more_players_are_not_solved() {
    // Tea Party draws random numbers only under Whistle Stop (and Spotted
    // Sugar Cubes); by default the reason is that it reads the history.
    let e = Engine::new(game("rules/tea-party.mancala", &[], &["whistle-stop"])).unwrap();
    assert!(solve(&e, &mut |_| {}).unwrap_err().contains("chance"));
    let e = Engine::new(game("rules/tea-party.mancala", &[], &[])).unwrap();
    let err = solve(&e, &mut |_| {}).unwrap_err();
    assert!(err.contains("`ply` or `repetitions`") && !err.contains("chance"), "{err}");
    let e = Engine::new(game("rules/spectral-reapers.mancala", &[], &[])).unwrap();
    assert!(solve(&e, &mut |_| {}).unwrap_err().contains("two players"));
}

/// A small game whose play reads what a store holds: a player may move only
/// while their store holds fewer than 2.
const STORE_READER: &str = r#"
game "Store reader"
players south, north
pit a[1..2] owner south
store A owner south
pit b[1..2] owner north
store B owner north
track round cyclic: a[1..2], A, b[1..2], B
setup { put 2 in every pit }
move sow "{hole}" {
  choose hole in every pit of mover where count(hole) > 0 and count(store(mover)) < 2
  sow hole along round
}
when stuck: end
score p: count(store(p))
"#;

fn compiled(source: &str) -> Arc<Game> {
    Arc::new(
        mancala::compile::compile_source("test.mancala", source, &Config::default())
            .unwrap_or_else(|f| panic!("{}", f.render(false))),
    )
}

#[test]
fn the_engine_watches_whether_the_play_reads_a_bank() {
    // Kalah never reads its stores in play: a whole game leaves the watch unset.
    let g = game("rules/kalah.mancala", &[("pits", "4")], &["standard"]);
    let stores: Vec<u16> = ["S", "N"].iter().map(|n| g.site_by_name(n).unwrap()).collect();
    let mut e = Engine::new(g).unwrap();
    e.set_banks(&stores);
    let before = e.hash();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut plies = 0;
    while let Some(mv) = e.sample_move(&mut rng).unwrap() {
        e.apply(mv).unwrap();
        e.scores().unwrap();
        plies += 1;
    }
    assert!(plies > 4);
    assert!(!e.bank_read(), "Kalah's play read a store");
    // The hash leaves the stores out: the stores alone changed, the key did not.
    for _ in 0..plies {
        e.undo();
    }
    let mut pos = e.position().clone();
    pos.counts[stores[0] as usize] += 5;
    e.set_position(pos).unwrap();
    assert_eq!(e.hash(), before);
    e.set_banks(&[]);
    assert_ne!(e.hash(), before);

    // A game whose moves depend on the stores: listing the moves reads them.
    let g = compiled(STORE_READER);
    let stores: Vec<u16> = ["A", "B"].iter().map(|n| g.site_by_name(n).unwrap()).collect();
    let mut e = Engine::new(g).unwrap();
    e.set_banks(&stores);
    let mut moves = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    assert!(e.bank_read());
    e.set_banks(&stores);
    assert!(!e.bank_read(), "setting the banks starts the watch afresh");
}

/// The first player's margin under perfect play, by minimax with a table of
/// whole positions (stores included, ply left out).
fn memo_minimax(e: &mut Engine, memo: &mut std::collections::HashMap<mancala::engine::Position, i64>) -> i64 {
    let mut key = e.position().clone();
    key.turn.ply = 0;
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut moves: Vec<Move> = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    let v = if moves.is_empty() {
        let s = e.scores().unwrap();
        s[0] - s[1]
    } else {
        let first = e.to_move() == 0;
        let mut best = if first { i64::MIN } else { i64::MAX };
        for mv in moves {
            e.apply(mv).unwrap();
            let v = memo_minimax(e, memo);
            e.undo();
            best = if first { best.max(v) } else { best.min(v) };
        }
        best
    };
    memo.insert(key, v);
    v
}

#[test]
fn a_game_whose_play_reads_a_store_is_solved_with_the_stores_in_the_key() {
    let mut e = Engine::new(compiled(STORE_READER)).unwrap();
    let exact = minimax(&mut e);
    let mut said = Vec::new();
    let sol = solve(&e, &mut |m| said.push(m.to_string())).unwrap();
    assert_eq!(sol.value, exact);
    assert!(said.iter().any(|m| m.contains("solving again with the stores")), "{said:?}");
    // Kalah(4,2) where a player may not move while their store holds 6: a
    // table that left the stores out would value it 7, not 6.
    let kalah = std::fs::read_to_string("rules/kalah.mancala").unwrap();
    let twisted = kalah.replace("where count(hole) > 0", "where count(hole) > 0 and count(store(mover)) != 6");
    assert_ne!(twisted, kalah);
    let cfg = Config {
        variants: vec!["standard".into()],
        settings: vec![("pits".into(), "4".into()), ("stones".into(), "2".into())],
    };
    let g = mancala::compile::compile_source("twisted.mancala", &twisted, &cfg)
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let mut e = Engine::new(Arc::new(g)).unwrap();
    let exact = memo_minimax(&mut e, &mut Default::default());
    assert_eq!(exact, 6);
    // A helper thread that reads a store must be heard too.
    assert_eq!(solve_threads(&e, 2, 1 << 30).unwrap().value, exact);
    let mut said = Vec::new();
    assert_eq!(solve(&e, &mut |m| said.push(m.to_string())).unwrap().value, exact);
    assert!(said.iter().any(|m| m.contains("solving again with the stores")), "{said:?}");
    // Kalah's play never reads a store: solved once.
    let e = Engine::new(game("rules/kalah.mancala", &[("pits", "3"), ("stones", "2")], &["standard"])).unwrap();
    let mut said = Vec::new();
    solve(&e, &mut |m| said.push(m.to_string())).unwrap();
    assert!(!said.iter().any(|m| m.contains("solving again")), "{said:?}");
}

#[test]
fn which_scores_are_sums_of_counts() {
    let linear_in_counts = |score: &str| {
        let source =
            STORE_READER.replace("score p: count(store(p))", &format!("state bonus: number\nscore p: {score}"));
        let g = compiled(&source);
        g.is_linear_in_counts(&g.score.1)
    };
    for linear in [
        "count(store(p))",
        "count(store(p)) + count(every pit of p)",
        "2 * count(store(p)) - count(store(p))",
        "-count(store(p)) + 3",
        "if p == south then count(A) else count(B)",
        "sum(q in players: count(store(q)))",
    ] {
        assert!(linear_in_counts(linear), "{linear}");
    }
    for not_linear in [
        "count(store(p)) * count(store(p))",
        "count(store(p)) / 2",
        "bonus * count(store(p))",
        "if count(A) > 3 then 1 else 0",
        "max(count(A), count(B))",
        "count(if count(A) > 0 then A else B)",
    ] {
        assert!(!linear_in_counts(not_linear), "{not_linear}");
    }
}

/// A game whose rules fail (a division by zero) once store A holds 3: the
/// store reader's board, moves unrestricted.
fn fails_deep() -> String {
    let mut text = STORE_READER.to_string();
    for (from, to) in [
        ("put 2 in every pit", "put 3 in every pit"),
        (" and count(store(mover)) < 2", ""),
        ("when stuck: end", "rule boom after sow { require count(B) / (3 - count(A)) >= 0 }\nwhen stuck: end"),
    ] {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    text
}

#[test]
fn a_rule_that_fails_deep_in_a_search_leaves_the_game_in_progress_as_it_was() {
    let dir = std::env::temp_dir().join(format!("mancala-ai-fails-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fails.mancala");
    std::fs::write(&path, fails_deep()).unwrap();
    let setup = Setup { rules: path.to_str().unwrap().into(), variants: vec![], settings: vec![], seed: 0 };
    let mut s = Session::new(setup).unwrap_or_else(|f| panic!("{}", f.render(false)));
    let first = s.command("a1").text;
    assert!(first.contains("south plays a1"), "{first}");
    let before = s.engine().position().clone();
    for agent in ["alphabeta 20000", "mcts 2000"] {
        let hint = s.command(&format!("hint {agent}")).text;
        assert!(hint.contains("division by zero"), "{agent}: {hint}");
        assert_eq!(s.engine().position(), &before, "{agent}");
        // North's seat to the agent: it fails, says why, and the game waits.
        let reply = s.command(&format!("ai north {agent}")).text;
        assert!(reply.contains("division by zero"), "{agent}: {reply}");
        assert_eq!(s.engine().position(), &before, "{agent}");
        s.command("ai north off");
    }
    let solved = mancala::ai::solve::solve(s.engine(), &mut |_| {});
    assert!(solved.unwrap_err().contains("division by zero"));
    assert_eq!(s.engine().position(), &before);
    // The game goes on: a move and its undo, back to where it was.
    let moves = s.command("moves").text;
    assert!(moves.contains("b1"), "{moves}");
    s.command("b1");
    assert_ne!(s.engine().position(), &before);
    s.command("undo");
    assert_eq!(s.engine().position(), &before);
    s.command("undo");
    assert_eq!(s.engine().position().turn.ply, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Irving, Donkers and Uiterwijk, "Solving Kalah", ICGA Journal 23(3), 2000,
/// solved Kalah(m,n) (m pits a side, n stones a pit) with the rules of the
/// `empty-capture` variant: a capture needs nothing opposite, the capturing
/// stone is banked too, and when a side is empty each player banks their
/// own. Its Table 10 says who wins, Table 9 by how much.
#[test]
fn the_solver_reproduces_the_published_solutions_of_kalah() {
    // Table 10: the first player wins (W), draws (D) or loses (L), for
    // n = 1..6 stones.
    for (pits, row) in [(1, "DLWLWD"), (2, "WLLLWW"), (3, "DWWWWL")] {
        for (k, expected) in row.chars().enumerate() {
            let stones = (k + 1).to_string();
            let g =
                game("rules/kalah.mancala", &[("pits", &pits.to_string()), ("stones", &stones)], &["empty-capture"]);
            let v = solve(&Engine::new(g).unwrap(), &mut |_| {}).unwrap().value;
            let got = match v.signum() {
                1 => 'W',
                0 => 'D',
                _ => 'L',
            };
            assert_eq!(got, expected, "Kalah({pits},{stones}): {v:+}");
        }
    }
    // Table 9: the first player's final margin.
    for (pits, stones, margin) in
        [(4, 1, 2), (4, 2, 6), (4, 3, 8), (4, 4, 2), (5, 1, 0), (5, 2, 0), (5, 3, 8), (6, 1, 2), (6, 2, 10)]
    {
        let g = game(
            "rules/kalah.mancala",
            &[("pits", &pits.to_string()), ("stones", &stones.to_string())],
            &["empty-capture"],
        );
        let v = solve(&Engine::new(g).unwrap(), &mut |_| {}).unwrap().value;
        assert_eq!(v, margin, "Kalah({pits},{stones})");
    }
}

#[test]
fn a_score_of_weighted_counts_is_solved_as_minimax_values_it() {
    // The solver settles a position when the margin cannot reach the bound
    // tried any more, from the score's factor for each count (here 3 for a
    // store, 1 for an own pit, and a constant): a factor read wrong would
    // settle positions wrongly, and values would differ from minimax.
    let source = r#"
extends "rules/kalah.mancala"
game "Kalah, weighted"
score p: 3 * count(store(p)) + count(every pit of p) - 2
"#;
    for (pits, stones) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
        let cfg = Config {
            variants: vec!["standard".into()],
            settings: vec![("pits".into(), pits.to_string()), ("stones".into(), stones.to_string())],
        };
        let g = Arc::new(
            mancala::compile::compile_source("test.mancala", source, &cfg)
                .unwrap_or_else(|f| panic!("{}", f.render(false))),
        );
        let mut e = Engine::new(g).unwrap();
        let exact = minimax(&mut e);
        let sol = solve(&e, &mut |_| {}).unwrap();
        assert_eq!(sol.value, exact, "Kalah({pits},{stones}), weighted");
    }
}

/// A score that counts the pits each player owns, where owners are kept as
/// state and change in play: what a counter in a pit is worth to the
/// margin changes with its pit's owner, so no bound worked out from the
/// owners at the start may cut the search.
#[test]
fn the_solver_agrees_with_minimax_when_the_score_follows_owners_that_change() {
    let text = "players south, north
        pit s[1..3] owner south
        pit n[1..3] owner north
        store S owner south
        store N owner north
        state owner of every pit: player
        setup { put 2 in every pit }
        move claim \"{h}\" { choose h in every pit where owner(h) == opponent(mover) and count(h) > 0
          take 1 from h to store(mover)  set owner(h) = mover }
        score p: count(store(p)) + sum(x in every pit of p: count(x))";
    let g = mancala::compile::compile_source("owners.mancala", text, &mancala::compile::Config::default())
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let mut e = Engine::new(Arc::new(g)).unwrap();
    // From the start and from every position two plies in.
    let mut cases = vec![e.clone()];
    let mut first: Vec<Move> = Vec::new();
    e.legal_moves(&mut first).unwrap();
    for a in first {
        e.apply(a).unwrap();
        let mut second: Vec<Move> = Vec::new();
        e.legal_moves(&mut second).unwrap();
        for b in second {
            e.apply(b).unwrap();
            cases.push(e.clone());
            e.undo();
        }
        e.undo();
    }
    for mut c in cases {
        let exact = minimax(&mut c);
        let sol = solve(&c, &mut |_| {}).unwrap();
        assert_eq!(sol.value, exact, "{:?}", c.position());
    }
}
