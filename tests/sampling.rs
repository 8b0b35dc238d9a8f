//! Drawing a random move tries only the move it draws: a move that must be
//! tried (a `require`, a relay with a lap limit) or whose result an `avoid`
//! looks at is tried when drawn, and drawn again when refused. The draws
//! must still be the legal moves, and each as often as the others.

mod common;
use std::collections::HashMap;

use common::*;
use mancala::engine::game::SiteKind;
use mancala::engine::reference::RefEngine;
use mancala::engine::{Engine, Move};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Draws `n` moves from the position without making them: each must be in
/// the list of legal moves, and each legal move drawn close to `n / moves`
/// times.
fn draws_are_the_legal_moves_evenly(e: &mut Engine, n: u32, rng: &mut ChaCha8Rng, what: &str) {
    let mut legal = Vec::new();
    e.legal_moves(&mut legal).unwrap();
    let mut seen: HashMap<Move, u32> = HashMap::new();
    for _ in 0..n {
        match e.sample_move(rng).unwrap() {
            Some(mv) => {
                assert!(legal.contains(&mv), "{what}: drew {} not in {legal:?}", e.move_name(mv));
                *seen.entry(mv).or_default() += 1;
            }
            None => assert!(legal.is_empty(), "{what}: drew nothing from {legal:?}"),
        }
    }
    let expected = n / legal.len().max(1) as u32;
    for mv in &legal {
        let k = seen.get(mv).copied().unwrap_or(0);
        assert!(
            k > expected / 3 && k < expected * 3,
            "{what}: {} drawn {k} times, about {expected} expected",
            e.move_name(*mv)
        );
    }
}

#[test]
fn a_move_named_by_an_avoid_is_drawn_only_when_every_move_is() {
    // Kalah as the text has it: a move that leaves North without a move is
    // avoided. s1 sows into s2 and strands North; s5 ends in the bank (South
    // moves again) and s6 gives North stones.
    let mut s = session("rules/kalah.mancala", &[], &[]);
    set(&mut s, "clear s1=1 s5=2 s6=5 S=10 N=30 turn=south");
    assert_eq!(s.legal_names(), ["s5", "s6"]);
    let mut e = s.engine().clone();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    draws_are_the_legal_moves_evenly(&mut e, 3000, &mut rng, "kalah avoid");
    // Every move avoided: each is drawn, as each is listed.
    set(&mut s, "clear s1=1 s2=1 S=10 N=30 turn=south");
    assert_eq!(s.legal_names(), ["s1", "s2"]);
    let mut e = s.engine().clone();
    draws_are_the_legal_moves_evenly(&mut e, 3000, &mut rng, "kalah all avoided");
    // Three moves, each stranding North: the draw sets each aside, the
    // first drawn (one site, without a list) as the later ones (from the
    // list), and takes one of the three; the reference executor, which
    // lists them all, draws the same move from the same numbers.
    set(&mut s, "clear s1=1 s2=1 s3=1 S=10 N=30 turn=south");
    assert_eq!(s.legal_names(), ["s1", "s2", "s3"]);
    let mut e = s.engine().clone();
    let mut old = RefEngine::with_seed(e.game.clone(), 1).unwrap();
    old.set_position(e.position().clone()).unwrap();
    let mut seen = HashMap::new();
    for seed in 0..300 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let drawn = e.sample_move(&mut rng.clone()).unwrap();
        assert_eq!(drawn, old.sample_move(&mut rng).unwrap(), "seed {seed}");
        *seen.entry(drawn).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
}

#[test]
fn along_random_games_the_draws_are_the_legal_moves_evenly() {
    // Games whose moves are tried: Cups (`require`), Katro (a relay with a
    // lap limit), Tea Party (`require` and hooks), Kalah as the text has it
    // (`avoid`).
    for (file, variants) in [
        ("rules/cups.mancala", &[][..]),
        ("rules/katro.mancala", &["wikipedia"][..]),
        ("rules/tea-party.mancala", &[][..]),
        ("rules/kalah.mancala", &[][..]),
    ] {
        let s = session(file, variants, &[]);
        let mut e = s.engine().clone();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut checked = 0;
        for ply in 0..60 {
            if e.count_moves().unwrap() <= 8 {
                draws_are_the_legal_moves_evenly(&mut e, 400, &mut rng, &format!("{file} ply {ply}"));
                checked += 1;
            }
            let Some(mv) = e.sample_move(&mut rng).unwrap() else { break };
            e.apply(mv).unwrap();
        }
        assert!(checked >= 10, "{file}: only {checked} positions checked");
    }
}

#[test]
fn rules_that_refuse_most_candidates_are_drawn_from_the_list() {
    // 300 candidates, two legal: the draw gives up trying one by one after
    // a few dozen refusals and draws from the list (uniform as well).
    let text = "game \"Two of three hundred\"
players south, north
pit s[1..3] owner south
pit n[1..3] owner north
track round cyclic: s[1..3], n[1..3]
setup { put 1 in every pit }
move pick \"{x}\" {
  choose x in 1..300
  require x == 7 or x == 200
  take 1 from s1 to s2
}
score p: 0
";
    let game = mancala::compile::compile_source("t.mancala", text, &mancala::compile::Config::default())
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let mut e = Engine::new(std::sync::Arc::new(game)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    draws_are_the_legal_moves_evenly(&mut e, 2000, &mut rng, "two of three hundred");
    let mut legal = Vec::new();
    e.legal_moves(&mut legal).unwrap();
    assert_eq!(legal.iter().map(|m| e.move_name(*m)).collect::<Vec<_>>(), ["7", "200"]);
}

/// The rules of a test of which moves must be tried: one move, sowing a
/// chosen pit along `track` after the statements `prefix`, then `suffix`.
fn prechecked(prefix: &str, track: &str, suffix: &str) -> std::sync::Arc<mancala::engine::game::Game> {
    prechecked_where("count(h) > 0 and not mark(h)", prefix, track, suffix)
}

/// As [`prechecked`], the pit chosen `where`.
fn prechecked_where(
    filter: &str,
    prefix: &str,
    track: &str,
    suffix: &str,
) -> std::sync::Arc<mancala::engine::game::Game> {
    let text = format!(
        r#"game "Prechecks"
players south, north
pit a[1..4] owner south
store A owner south
pit b[1..4] owner north
store B owner north
track loop cyclic: a[1..4], A, b[1..4], B
track ring[south] cyclic: a[1..4], A, b[1..4]
track ring[north] cyclic: b[1..4], B, a[1..4]
track line[south] linear: a[1..4], A
track line[north] linear: b[1..4], B
state tally: number
state mark of every pit: condition
setup {{ put 2 in every pit }}
move sow "{{h}}" {{
  choose h in every pit of mover where {filter}
  {prefix}
  sow h along {track}
  {suffix}
  if last is pit and count(last) == 1 {{ set mark(last) = true }}
}}
end empty when any(p in players: count(every pit of p) == 0)
when stuck: end
score p: count(store(p))
"#
    );
    let game = mancala::compile::compile_source("prechecks.mancala", &text, &Default::default())
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    std::sync::Arc::new(game)
}

/// A sowing of all of a chosen site along a cyclic track, or a family of
/// cyclic tracks, is refused only when the site is empty, even after `let`
/// and `set` (which refuse nothing and change no count): such a move is
/// not tried. It is legal exactly when the same move made to be tried (a
/// `require` that always holds after it) is, at every ply of random games.
/// A `take` before the sowing, a linear track or a `require` keep the trial.
#[test]
fn sowings_after_let_and_set_are_not_tried() {
    let tried = |prefix: &str, track: &str, suffix: &str| prechecked(prefix, track, suffix).moves[0].needs_trial;
    let plain = [
        ("let n = count(h)\n  set tally = tally + n", "loop"),
        ("set tally = 1\n  set mark(h) = false", "ring[mover]"),
        ("", "ring[mover]"),
    ];
    for (prefix, track) in plain {
        assert!(!tried(prefix, track, ""), "{prefix:?} {track}: tried");
        assert!(tried(prefix, track, "require tally >= 0"), "{prefix:?} {track}: not tried");
        let (fast, slow) = (prechecked(prefix, track, ""), prechecked(prefix, track, "require tally >= 0"));
        let plies = side_by_side(&fast, &slow, |_, _| {});
        assert!(plies > 200, "{prefix:?} {track}: {plies} plies");
    }
    assert!(tried("take 1 from h to store(mover)", "loop", ""), "a take first");
    assert!(tried("let n = 1", "line[mover]", ""), "a linear track");
    assert!(tried("set tally = 1\n  require tally > 0", "loop", ""), "a require first");
}

/// A relay sowing with a limit on its laps must be tried, but is refused
/// anyway when the chosen site is empty: when its choice tests nothing else
/// (`count(h) > 0`), that is checked without trying it, and the moves
/// listed and drawn are those of the same rules with a `where` that tests
/// it as one term among others. A `where` that tests more keeps its test.
#[test]
fn a_relay_with_a_lap_limit_checks_the_empty_site_first() {
    let relay = "loop relay while count(last) > 1 at most 6 laps";
    let nonempty = |filter: &str| prechecked_where(filter, "", relay, "").moves[0].nonempty.is_some();
    let game = prechecked_where("count(h) > 0", "", relay, "");
    assert!(game.moves[0].needs_trial && nonempty("count(h) > 0"));
    assert!(!nonempty("count(h) > 0 and tally >= 0") && !nonempty("count(h) > 1"));
    let other = prechecked_where("count(h) > 0 and tally >= 0", "", relay, "");
    let mut refused = 0;
    let plies = side_by_side(&game, &other, |e, listed| {
        // A pit of the mover's holding counters whose move the lap limit
        // refuses.
        let (pos, me) = (e.position(), e.position().turn.to_move);
        let sites = game.sites.iter().enumerate();
        let held = sites.filter(|(s, x)| x.kind == SiteKind::Pit && x.owner == Some(me) && pos.counts[*s] > 0);
        refused += usize::from(listed < held.count());
    });
    assert!(plies > 200 && refused > 0, "{plies} plies, {refused} with a move refused by its laps");
}

/// Seeded random games of `a` and `b` played side by side: at every ply
/// both list the same moves and draw the same one; `look` sees `a` and how
/// many moves it lists. The plies played in all.
fn side_by_side(
    a: &std::sync::Arc<mancala::engine::game::Game>,
    b: &std::sync::Arc<mancala::engine::game::Game>,
    mut look: impl FnMut(&Engine, usize),
) -> usize {
    let mut plies = 0;
    for seed in 0..40 {
        let (mut x, mut y) = (Engine::with_seed(a.clone(), seed).unwrap(), Engine::with_seed(b.clone(), seed).unwrap());
        let (mut rx, mut ry) = (ChaCha8Rng::seed_from_u64(seed), ChaCha8Rng::seed_from_u64(seed));
        let (mut mx, mut my) = (Vec::new(), Vec::new());
        loop {
            x.legal_moves(&mut mx).unwrap();
            y.legal_moves(&mut my).unwrap();
            assert_eq!(mx, my, "seed {seed}, ply {plies}");
            look(&x, mx.len());
            let drawn = x.sample_move(&mut rx).unwrap();
            assert_eq!(drawn, y.sample_move(&mut ry).unwrap(), "seed {seed}, ply {plies}");
            let Some(mv) = drawn else { break };
            x.apply(mv).unwrap();
            y.apply(mv).unwrap();
            plies += 1;
        }
    }
    plies
}

/// A move drawn where an `avoid` looks at what it leads to has been made
/// once already, to see that; making it then takes what that made (the
/// position, the turn, what the `end`s and rounds did) instead of making
/// it again. It must be what making the move afresh makes, and its undo
/// must give back the position before, in every game that avoids: Awari
/// (a starving move), Gabata of Aksum (an end ruled by rounds and a phase
/// of dividing), Pallanguli as Hanson plays it (rounds), Kalah with
/// `leave-a-move` (another turn in the store).
#[test]
fn a_move_drawn_past_an_avoid_is_made_as_making_it_afresh_makes_it() {
    let games = [
        ("rules/awari.mancala", &[][..], &[][..]),
        ("rules/gabata.mancala", &["aksum"][..], &[][..]),
        ("rules/pallanguli.mancala", &["hanson"][..], &[][..]),
        ("rules/kalah.mancala", &[][..], &[("leave-a-move", "true")][..]),
    ];
    for (rules, variants, settings) in games {
        let cfg = mancala::compile::Config {
            variants: variants.iter().map(|v| v.to_string()).collect(),
            settings: settings.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let game = std::sync::Arc::new(mancala::compile::compile_file(rules, &cfg).unwrap());
        let mut plies = 0;
        for seed in 0..6 {
            let mut drawn = Engine::with_seed(game.clone(), seed).unwrap();
            let mut afresh = Engine::with_seed(game.clone(), seed).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut made = 0;
            while let Some(mv) = drawn.sample_move(&mut rng).unwrap() {
                drawn.apply(mv).unwrap();
                afresh.apply(mv).unwrap();
                made += 1;
                let at = format!("{rules} {variants:?} seed {seed} ply {made}");
                assert_eq!(drawn.position(), afresh.position(), "{at}");
                assert_eq!(drawn.hash(), afresh.hash(), "{at}");
                if made == 400 {
                    break;
                }
            }
            for _ in 0..made {
                assert!(drawn.undo() && afresh.undo());
                assert_eq!(drawn.position(), afresh.position(), "{rules} seed {seed}: undone");
            }
            assert!(drawn.position().turn.ply == 0 && !drawn.undo());
            plies += made;
        }
        assert!(plies > 100, "{rules}: {plies} plies");
    }
}
