//! Tea Party: invariants over seeded random games of every variant, the
//! variants' own rules, and hooks that misbehave.

use std::sync::Arc;
use std::time::Duration;

use mancala::compile::{Config, compile_file, compile_source};
use mancala::engine::game::{Game, SiteKind, Value};
use mancala::engine::{Engine, Halt};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const T: &str = "rules/tea-party.mancala";

fn game(variants: &[&str]) -> Arc<Game> {
    let cfg = Config { variants: variants.iter().map(|v| v.to_string()).collect(), settings: vec![] };
    Arc::new(compile_file(T, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false))))
}

fn state(e: &Engine, name: &str, site: Option<u16>) -> Value {
    let v = e.game.state.iter().find(|v| v.name == name).unwrap();
    e.position().vars[v.offset + site.unwrap_or(0) as usize]
}

/// Plays a seeded random game; checks the invariants after every move.
fn play(g: &Arc<Game>, seed: u64) -> Engine {
    let mut e = Engine::with_seed(g.clone(), seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pits: Vec<u16> = (0..g.sites.len() as u16).filter(|&s| g.sites[s as usize].kind == SiteKind::Pit).collect();
    let mut plies = 0;
    while let Some(mv) = e.sample_move(&mut rng).unwrap() {
        e.apply(mv).unwrap();
        plies += 1;
        assert_eq!(e.total_counters(), 23, "seed {seed}: the 23 cubes are not all there after {}", e.move_name(mv));
        for &s in &pits {
            if state(&e, "upright", Some(s)) == Value::Bool(false) {
                assert_eq!(
                    e.site_count(s),
                    0,
                    "seed {seed}: cubes in an inverted container at {}",
                    g.sites[s as usize].name
                );
            }
        }
        assert!(plies < 5_000, "seed {seed}: no end");
    }
    e
}

#[test]
fn random_games_of_every_variant_end_conserve_the_cubes_and_keep_inverted_containers_empty() {
    let combos: [&[&str]; 7] = [
        &[],
        &["whistle-stop"],
        &["pinky-extension"],
        &["tea-for-two-couples"],
        &["spotted-sugar-cubes"],
        &["pinky-extension", "whistle-stop"],
        &["pinky-extension", "tea-for-two-couples", "spotted-sugar-cubes"],
    ];
    for variants in combos {
        let g = game(variants);
        for seed in 0..40 {
            let mut e = play(&g, seed);
            let o = e.outcome().unwrap().expect("the game is over");
            assert!(!o.winners.is_empty(), "{variants:?} seed {seed}");
        }
    }
}

#[test]
fn the_whistle_stop_ends_the_game_after_20_to_80_plies_of_clearing_each_as_likely() {
    // The kettle changes nothing but the end, so a game with it is the game
    // without it (same seed, same moves) cut short where the kettle whistled.
    let (plain, whistle) = (game(&[]), game(&["whistle-stop"]));
    let mut whistled = Vec::new();
    let mut long_games = 0;
    for seed in 0..2000 {
        let full = play(&plain, seed).position().turn.ply;
        let cut = play(&whistle, seed).position().turn.ply;
        assert!(cut <= full, "seed {seed}: the kettle made the game longer");
        if cut < full {
            // Clearing the Table begins at ply 16.
            assert!((20..=80).contains(&(cut - 16)), "seed {seed}: whistled after {} plies of clearing", cut - 16);
        }
        // A game that would go past the 80th ply of clearing is always cut:
        // those show how the kettle's ply is drawn.
        if full > 16 + 80 {
            long_games += 1;
            assert!(cut < full, "seed {seed}: the kettle never whistled");
            whistled.push(cut - 16);
        }
    }
    assert!(long_games >= 100, "only {long_games} long games");
    // Uniform on 20..=80: a third of the draws in each of 20..=40, 41..=60
    // and 61..=80 (21, 20 and 20 of the 61 plies), within a wide margin.
    for (lo, hi) in [(20, 40), (41, 60), (61, 80)] {
        let share = whistled.iter().filter(|&&n| (lo..=hi).contains(&n)).count() as f64 / whistled.len() as f64;
        assert!((0.22..=0.45).contains(&share), "{lo}..={hi}: {share:.2} of {} draws", whistled.len());
    }
}

#[test]
fn the_same_seed_plays_the_same_game() {
    for variants in [&["whistle-stop"][..], &["spotted-sugar-cubes"]] {
        let g = game(variants);
        let a = play(&g, 11);
        let b = play(&g, 11);
        assert_eq!(a.position(), b.position());
        assert_eq!(a.clone().scores().unwrap(), b.clone().scores().unwrap());
    }
}

#[test]
fn spotted_sugar_cubes_play_to_the_last_cube_and_roll_them() {
    let g = game(&["spotted-sugar-cubes"]);
    let mut to_the_last = 0;
    for seed in 0..10 {
        let mut e = play(&g, seed);
        let stores: Vec<i64> =
            ["pitcher", "bowl"].iter().map(|s| e.site_count(g.site_by_name(s).unwrap()) as i64).collect();
        let scores = e.scores().unwrap();
        if stores.iter().sum::<i64>() == 23 {
            to_the_last += 1;
            for (s, n) in scores.iter().zip(&stores) {
                assert!((*n..=6 * n).contains(s), "seed {seed}: {n} dice rolled {s}");
            }
        }
    }
    // Some of the games must get there, or the dice were never checked.
    assert!(to_the_last > 0, "no game of ten played to the last cube");
}

#[test]
fn partners_take_turns_and_share_a_result() {
    let g = game(&["tea-for-two-couples"]);
    assert_eq!(g.players, vec!["cream", "sugar", "cream2", "sugar2"]);
    let mut e = play(&g, 3);
    let o = e.outcome().unwrap().unwrap();
    assert_eq!(o.scores[0], o.scores[2]);
    assert_eq!(o.scores[1], o.scores[3]);
}

/// A small game whose one move calls a hook.
fn with_hook(code: &str) -> String {
    format!(
        "players a, b\npit s[1..2] owner a\npit n[1..2] owner b\nstore S owner a\nstore N owner b\n\
         track round cyclic: s[1..2], S, n[1..2], N\nsetup {{ put 1 in every pit }}\n\
         hook target(x: site) -> site rhai \"\"\"{code}\"\"\"\n\
         move m \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  take h to target(h) }}\n\
         score p: count(store(p))\n"
    )
}

fn first_move_error(code: &str) -> String {
    let text = with_hook(code);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = compile_source("hooks.mancala", &text, &Config::default()).map(|g| {
            let mut e = Engine::new(Arc::new(g)).unwrap();
            let mut moves = Vec::new();
            e.legal_moves(&mut moves).and_then(|_| e.apply(moves[0]))
        });
        let _ = tx.send(match r {
            Err(f) => format!("check: {}", f.render(false)),
            Ok(Err(Halt::At(m, span))) => format!("play at {}..{}: {m}", span.start, span.end),
            Ok(other) => format!("unexpected: {other:?}"),
        });
    });
    rx.recv_timeout(Duration::from_secs(20)).expect("a hook ran without end")
}

#[test]
fn hostile_hooks_stop_with_a_clear_error_in_bounded_time() {
    let forever = first_move_error("loop { }\n");
    assert!(forever.starts_with("play at") && forever.contains("operations"), "{forever}");
    let recursion = first_move_error("target(x)\n");
    assert!(recursion.starts_with("play at") && recursion.contains("recursed too deeply"), "{recursion}");
    let file = first_move_error("import \"/etc/passwd\" as secrets;\nx\n");
    assert!(file.contains("hook `target`"), "{file}");
    let eval = first_move_error("eval(\"1\")\n");
    assert!(eval.starts_with("check:") && eval.contains("hook `target`"), "{eval}");
    let syntax = first_move_error("let = ;\n");
    assert!(syntax.starts_with("check:") && syntax.contains("rhai syntax error"), "{syntax}");
    let wrong = first_move_error("42\n");
    assert!(wrong.contains("returned") && wrong.contains("not a name"), "{wrong}");
    let nosite = first_move_error("\"Z9\"\n");
    assert!(nosite.contains("which is no site"), "{nosite}");
}

#[test]
fn a_failing_hook_leaves_the_game_as_it_was() {
    let g = Arc::new(compile_source("hooks.mancala", &with_hook("loop { }\n"), &Config::default()).unwrap());
    let mut e = Engine::new(g).unwrap();
    let before = e.position().clone();
    let mut moves = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    assert!(e.apply(moves[0]).is_err());
    assert_eq!(e.position(), &before);
}

#[test]
fn no_position_tells_when_the_kettle_will_whistle() {
    // The same moves under two game seeds: the positions are the same as long
    // as both games go on, so an agent that reads positions cannot know when
    // the kettle will whistle; yet the two seeds end games at different plies.
    let g = game(&["whistle-stop"]);
    let mut differ = 0;
    for seed in 0..60u64 {
        let mut games =
            [Engine::with_seed(g.clone(), 1000 + seed).unwrap(), Engine::with_seed(g.clone(), 2000 + seed).unwrap()];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = Vec::new();
        loop {
            let going: Vec<usize> = (0..2).filter(|&i| games[i].count_moves().unwrap() > 0).collect();
            let Some(&first) = going.first() else { break };
            if going.len() == 2 {
                assert_eq!(games[0].position(), games[1].position(), "seed {seed}");
                assert_eq!(games[0].hash(), games[1].hash());
            }
            games[first].legal_moves(&mut moves).unwrap();
            let mv = moves[rand::Rng::gen_range(&mut rng, 0..moves.len())];
            for &i in &going {
                games[i].apply(mv).unwrap();
            }
        }
        differ += (games[0].position().turn.ply != games[1].position().turn.ply) as usize;
    }
    assert!(differ >= 5, "the seeds made a difference in only {differ} of 60 games");
}

#[test]
fn agents_search_with_draws_of_their_own_not_the_games() {
    // A long game of the plain rules, its moves kept.
    let (plain, whistle) = (game(&[]), game(&["whistle-stop"]));
    let line: Vec<_> = (0..100)
        .find_map(|seed| {
            let mut e = Engine::with_seed(plain.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut line = Vec::new();
            while let Some(mv) = e.sample_move(&mut rng).unwrap() {
                e.apply(mv).unwrap();
                line.push(mv);
            }
            (line.len() > 70).then_some(line)
        })
        .expect("a game of more than 70 plies");
    // The same plies with the kettle under many seeds: at each point of the
    // line, some seeds whistle right after the next move, some do not, from
    // the very same position. An agent cannot tell them apart: what it sees
    // may not hang on the game's own draws to come.
    let mut points = 0;
    for cut in (36..70).step_by(3) {
        let mut whistles_next: [Option<Engine>; 2] = [None, None];
        for seed in 0..400 {
            let mut e = Engine::with_seed(whistle.clone(), seed).unwrap();
            if line[..cut].iter().any(|&mv| e.count_moves().unwrap() == 0 || e.apply(mv).is_err())
                || e.count_moves().unwrap() == 0
            {
                continue;
            }
            e.apply(line[cut]).unwrap();
            let next = e.count_moves().unwrap() == 0;
            e.undo();
            whistles_next[next as usize].get_or_insert(e);
        }
        let [Some(quiet), Some(blowing)] = whistles_next else { continue };
        assert_eq!(quiet.position(), blowing.position());
        for agent in ["alphabeta:2000", "greedy", "mcts:100"] {
            let spec: mancala::ai::AgentSpec = agent.parse().unwrap();
            let pick = |e: &Engine| {
                let c = mancala::ai::choose(spec, &mut e.clone(), &mut ChaCha8Rng::seed_from_u64(7)).unwrap().unwrap();
                (c.mv, c.value.map(f64::to_bits))
            };
            assert_eq!(pick(&quiet), pick(&blowing), "ply {cut}, {agent}");
        }
        points += 1;
    }
    assert!(points >= 5, "only {points} points of the line had seeds of both kinds");
}

#[test]
fn hooks_cannot_sleep_read_the_clock_curry_without_bound_or_nest_values_for_long() {
    // `sleep` fails at once; `curry` is not part of the hooks' language.
    let sleep = first_move_error("sleep(100);\nx\n");
    assert!(sleep.starts_with("play at") && sleep.contains("hooks cannot sleep"), "{sleep}");
    // Nor read the clock: a hook answers by its arguments alone.
    let clock = first_move_error("let t = timestamp();\nx\n");
    assert!(clock.starts_with("play at") && clock.contains("hooks cannot read the clock"), "{clock}");
    let curry = first_move_error("let f = Fn(\"target\");\nfor i in 0..25 { f = f.curry(f); }\nx\n");
    assert!(curry.starts_with("check:") && curry.contains("rhai syntax error"), "{curry}");
    // Values nested deeper at each step: stopped by the clock within about
    // a second, not after many.
    let start = std::time::Instant::now();
    let nested = first_move_error("let a = [];\nloop { a = [a]; }\n");
    assert!(nested.starts_with("play at") && nested.contains("hook `target` failed"), "{nested}");
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}

#[test]
fn a_match_of_a_game_whose_hook_nests_values_ends_with_an_error_not_an_abort() {
    let dir = std::env::temp_dir().join(format!("mancala-nest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nest.mancala");
    std::fs::write(&path, with_hook("let a = [];\nloop { a = [a]; }\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(["match", path.to_str().unwrap(), "--agents", "random", "--games", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("hook `target` failed"), "{err}");
}
