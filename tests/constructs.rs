//! The constructs the classic games brought into the language, each on a
//! small rule file written here: walks along a track, `opponent`, `when
//! stuck: end { ... }`, `can-move` in an `end` whatever the moves need, and
//! option-fixed conditions folded away.

use std::sync::Arc;

use mancala::compile::{Config, compile_source};
use mancala::engine::{Engine, Move};

/// Two rows of three, stores off the track.
const BOARD: &str = "players south, north
pit s[1..3] owner south
pit n[1..3] owner north
store S owner south
store N owner north
track round cyclic: s[1..3], n[1..3]
track line linear: s[1..3], n[1..3]
score p: count(store(p))
";

fn compile(extra: &str) -> Result<Engine, String> {
    let text = format!("{BOARD}{extra}");
    match compile_source("test.mancala", &text, &Config::default()) {
        Ok(g) => Ok(Engine::new(Arc::new(g)).map_err(|h| format!("{h:?}"))?),
        Err(f) => Err(f.render(false)),
    }
}

fn engine(extra: &str) -> Engine {
    compile(extra).unwrap_or_else(|e| panic!("{e}"))
}

fn names(e: &mut Engine) -> Vec<String> {
    let mut moves: Vec<Move> = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    moves.iter().map(|m| e.move_name(*m)).collect()
}

fn counts(e: &Engine) -> Vec<i32> {
    ["s1", "s2", "s3", "n1", "n2", "n3", "S", "N"]
        .iter()
        .map(|n| e.site_count(e.game.site_by_name(n).unwrap()))
        .collect()
}

fn play(e: &mut Engine, name: &str) {
    let mv = e.find_move(name).unwrap().unwrap_or_else(|| panic!("`{name}` is not legal: {:?}", names(e)));
    e.apply(mv).unwrap();
}

#[test]
fn a_walk_goes_along_the_track_while_its_condition_holds() {
    // The take walks from n2: forwards n2, n3, then round to s1 (cyclic);
    // it stops at the first site holding no counter.
    let mut e = engine(
        "setup { put 1 in n2  put 2 in n3  put 3 in s1  put 5 in s3 }
         move go \"{h}\" { choose h in every pit of mover where h == s3
           for x in round from n2 while count(x) > 0 { take x to store(mover) } }",
    );
    play(&mut e, "s3");
    // n2, n3 and s1 taken (1 + 2 + 3); s2 is empty, so s3 is not reached.
    assert_eq!(counts(&e), [0, 0, 5, 0, 0, 0, 6, 0]);
}

#[test]
fn a_walk_backwards_stops_at_the_start_of_a_linear_track() {
    // Backwards from n1 along the linear track: n1, s3, s2, s1, and no
    // further (a linear track has no site before its first).
    let mut e = engine(
        "setup { put 1 in every pit }
         move go \"{h}\" { choose h in every pit of mover where h == s1
           for x in line from n1 backwards { take x to store(mover) } }",
    );
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 0, 0, 0, 1, 1, 4, 0]);
}

#[test]
fn a_walk_in_a_quantifier_and_one_lap_at_most() {
    let tally = |walk: &str| {
        let mut e = engine(&format!(
            "state tally: number
             setup {{ put 1 in s1  put 2 in s2  put 4 in n1  put 8 in n3  set tally = 0 }}
             move go \"{{h}}\" {{ choose h in every pit of mover where h == s1  set tally = sum(x in {walk}: count(x)) }}"
        ));
        play(&mut e, "s1");
        match e.position().vars[0] {
            mancala::engine::game::Value::Int(v) => v,
            other => panic!("{other:?}"),
        }
    };
    // Once round from s2, every pit; a cyclic walk stops after one lap.
    assert_eq!(tally("round from s2"), 15);
    // Backwards from s2: s2, s1, then round to n3, where the `while` stops it.
    assert_eq!(tally("round from s2 backwards while x != n3"), 3);
    assert_eq!(tally("round from n1 while count(x) > 0"), 4);
    // A linear walk stops at the end of its track.
    assert_eq!(tally("line from n2"), 8);
}

#[test]
fn a_walk_from_a_site_off_its_track_is_an_error_during_play() {
    let mut e = engine(
        "setup { put 1 in every pit }
         move go \"{h}\" { choose h in every pit of mover where h == s1
           for x in round from S { take x to store(mover) } }",
    );
    let mv = e.find_move("s1").unwrap().unwrap();
    let err = format!("{:?}", e.apply(mv).unwrap_err());
    assert!(err.contains("`S` is not on track `round`"), "{err}");
}

#[test]
fn opponent_is_the_other_of_two_players_and_refused_for_more() {
    let mut e = engine(
        "setup { put 1 in every pit }
         move sow \"{h}\" { choose h in every pit of opponent(mover) where count(h) > 0  take h to store(opponent(mover)) }",
    );
    assert_eq!(names(&mut e), ["n1", "n2", "n3"]);
    play(&mut e, "n2");
    assert_eq!(counts(&e), [1, 1, 1, 1, 0, 1, 0, 1]);
    assert_eq!(names(&mut e), ["s1", "s2", "s3"]);
    let three = "players a, b, c\npit x owner a\nstore sa owner a\nstore sb owner b\nstore sc owner c\n\
                 move m \"m\" { choose h in every pit where owner(h) == opponent(mover) }\nscore p: 0\n";
    let err = match compile_source("t.mancala", three, &Config::default()) {
        Ok(_) => panic!("three players should have no `opponent`"),
        Err(f) => f.render(false),
    };
    assert!(err.contains("`opponent` is for games of two players; this one has 3"), "{err}");
}

#[test]
fn when_stuck_end_runs_its_statements_as_the_game_ends() {
    // North has nothing left after south's move: the game ends at once,
    // south's seeds going to south.
    let mut e = engine(
        "setup { put 2 in s1  put 1 in n3 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round }
         rule cap after sow { if owner(last) == opponent(mover) { take last to store(mover) } }
         when stuck: end { for p in players { take every pit of p to store(p) } }",
    );
    play(&mut e, "s1");
    // s1's 2 seeds: s2, s3; nothing reached north. North can sow n3.
    assert_eq!(names(&mut e), ["n3"]);
    play(&mut e, "n3");
    // n3 sows into s1, south's: north captures it.
    assert_eq!(counts(&e), [0, 1, 1, 0, 0, 0, 0, 1]);
    play(&mut e, "s3");
    // s3 -> n1, captured: north has nothing, is stuck, and south's row is banked.
    assert!(names(&mut e).is_empty());
    assert_eq!(counts(&e), [0, 0, 0, 0, 0, 0, 2, 1]);
    let o = e.outcome().unwrap().unwrap();
    assert_eq!(o.scores, [2, 1]);
}

#[test]
fn when_stuck_pass_takes_no_statements() {
    let Err(err) = compile("move m \"m\" { choose h in every pit of mover }\nwhen stuck: pass { end game }\n") else {
        panic!("`when stuck: pass {{ ... }}` should be refused");
    };
    assert!(err.contains("`when stuck: pass` takes no statements"), "{err}");
}

#[test]
fn can_move_in_an_end_works_when_moves_must_be_tried() {
    // A `require` makes every move a trial; the `end` asks whether the next
    // player can move. Trials run the move's statements only, so the `end`
    // is not asked again inside them (it once failed with "rules recurse
    // too deeply while looking for legal moves").
    let mut e = engine(
        "setup { put 1 in s1  put 1 in n1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round  require owner(last) == mover }
         end blocked when not can-move(next) { for p in players { take every pit of p to store(p) } }",
    );
    play(&mut e, "s1");
    // s1 -> s2. North's n1 -> n2 stays home: north can move.
    assert_eq!(names(&mut e), ["n1"]);
    play(&mut e, "n1");
    play(&mut e, "s2");
    // s2 -> s3; north's n2 -> n3 stays home.
    play(&mut e, "n2");
    // South's s3 would go to n1: not allowed; south is blocked, the end ran.
    assert!(names(&mut e).is_empty());
    assert_eq!(counts(&e), [0, 0, 0, 0, 0, 0, 1, 1]);
}

#[test]
fn a_branch_an_option_rules_out_needs_no_trial() {
    // The `require` is behind an option set to false: the move needs no
    // trial, so a choice that would sow off the end... is still refused by
    // the precheck of an empty pit only. Made with the option on, the
    // `require` refuses the move.
    let rules = |on: bool| {
        format!(
            "option strict = {on}
             setup {{ put 1 in every pit }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round
               if strict {{ require owner(last) == mover }} }}"
        )
    };
    let mut loose = engine(&rules(false));
    assert_eq!(names(&mut loose), ["s1", "s2", "s3"]);
    let mut strict = engine(&rules(true));
    assert_eq!(names(&mut strict), ["s1", "s2"]);
}

/// The value of the first state variable, as the rules read it.
fn state0(e: &Engine) -> mancala::engine::game::Value {
    e.position().vars[0]
}

#[test]
fn starting_at_the_origin_drops_the_first_counter_back_into_it() {
    let mut e = engine(
        "setup { put 3 in s1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round starting at origin }",
    );
    play(&mut e, "s1");
    assert_eq!(counts(&e), [1, 1, 1, 0, 0, 0, 0, 0]);
}

#[test]
fn relay_sowing_lifts_the_last_site_while_its_condition_holds() {
    let rules = |relay: &str| {
        format!(
            "setup {{ put 2 in s1  put 1 in s3 }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round {relay} }}"
        )
    };
    // s1 (2): s2, s3 (now 2); s3 (2) lifted: n1, n2; n2 holds 1: it stops.
    let mut e = engine(&rules("relay while count(last) > 1"));
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 0, 1, 1, 0, 0, 0]);
    // The same relay allowed one lap only: the move cannot be made.
    let mut e = engine(&rules("relay while count(last) > 1 at most 1 laps"));
    assert_eq!(names(&mut e), ["s3"]);
    let mut e = engine(&rules("relay while count(last) > 1 at most 2 laps"));
    assert_eq!(names(&mut e), ["s1", "s3"]);
}

#[test]
fn relay_from_another_site_and_the_site_along_a_track() {
    // Lift the site after the last one, while it holds counters.
    let mut e = engine(
        "setup { put 1 in s1  put 2 in s3  put 1 in n1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round relay from step(last, round, 1) while count(step(last, round, 1)) > 0 }",
    );
    // s1 (1): s2; s3 (2) lifted: n1 (2), n2; n3 is empty: it stops.
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 0, 2, 1, 0, 0, 0]);
}

#[test]
fn a_relay_that_never_ends_is_stopped_with_an_error() {
    let mut e = engine(
        "setup { put 2 in s1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round relay while true }",
    );
    let mv = e.find_move("s1").unwrap().unwrap();
    let err = format!("{:?}", e.apply(mv).unwrap_err());
    assert!(err.contains("steps in one call"), "{err}");
    assert_eq!(counts(&e), [2, 0, 0, 0, 0, 0, 0, 0], "the position is left as it was");
    // A relay of the commonest shapes, whose later laps run in one loop,
    // that goes round for ever (found by trying the boards of six
    // counters).
    for relay in ["relay while count(last) > 1", "relay while last is pit and count(last) > 1"] {
        let mut e = engine(&format!(
            "setup {{ put 2 in s1  put 1 in s3  put 2 in n2  put 1 in n3 }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round {relay} }}"
        ));
        let mv = e.find_move("s1").unwrap().unwrap();
        let err = format!("{:?}", e.apply(mv).unwrap_err());
        assert!(err.contains("steps in one call"), "{relay}: {err}");
        assert_eq!(counts(&e), [2, 0, 1, 0, 2, 1, 0, 0], "{relay}: the position is left as it was");
    }
}

#[test]
fn each_runs_after_every_counter_dropped() {
    // Every site brought to 2 by the sowing is captured at once.
    let mut e = engine(
        "setup { put 3 in s1  put 1 in s2  put 1 in n1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round each { if count(last) == 2 { take last to store(mover) } } }",
    );
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 0, 1, 0, 0, 0, 4, 0]);
}

#[test]
fn step_first_before_and_none() {
    let mut e = engine(
        "state beyond: site
         state gained: number
         setup { put 2 in s3  put 1 in n2  put 1 in n3 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round
           take first((every pit of opponent(mover) where count(it) > 1)) to store(mover)
           set gained = count(store(mover)) - before(count(store(mover)))
           set beyond = step(n3, line, 1) }",
    );
    // Never set: a site reads as none, a number as 0.
    assert_eq!(format!("{:?}", state0(&e)), "None");
    play(&mut e, "s3");
    // s3 (2): n1 (1), n2 (2); the first of north's pits holding more than 1
    // is n2: taken. Past the end of a linear track there is no site.
    assert_eq!(counts(&e), [0, 0, 0, 1, 0, 1, 2, 0]);
    assert_eq!(e.position().vars[1], mancala::engine::game::Value::Int(2));
    assert_eq!(state0(&e), mancala::engine::game::Value::None);
}

#[test]
fn none_compares_with_players_sites_and_tracks_and_unset_state_reads_as_none_0_or_false() {
    let mut e = engine(
        "state mark: site
         state times: number
         state done: condition
         setup { put 1 in every pit }
         move mark \"{h}\" { choose h in every pit of mover where mark == none and not done
           set mark = h  set times = times + 1  set done = times > 5 }",
    );
    assert_eq!(names(&mut e), ["s1", "s2", "s3"]);
    play(&mut e, "s2");
    // South has marked: mark is s2 now, for north too.
    assert!(names(&mut e).is_empty());
    let err = compile("move m \"{h}\" { choose h in every pit of mover where count(h) == none }").err().unwrap();
    assert!(err.contains("`none` is no player, site or track, and this is compared with a number"), "{err}");
}

#[test]
fn none_can_be_given_to_a_definition_and_takes_its_kind_where_it_is_used() {
    // `unmarked(none)` compares the site state with `none`, and
    // `pick(true, s3, none)` gives `none` the kind of the other branch.
    let mut e = engine(
        "state mark: site
         define same(x, y) = x == y
         define pick(c, a, b) = if c then a else b
         define chain(x) = same(mark, x)
         setup { put 1 in every pit }
         move mark \"{h}\" { choose h in every pit of mover where same(mark, none) and chain(none)
           and h != pick(false, s3, none)
           set mark = pick(true, h, none) }",
    );
    assert_eq!(names(&mut e), ["s1", "s2", "s3"]);
    play(&mut e, "s2");
    assert!(names(&mut e).is_empty());
    // Where nothing gives it a kind, it is still refused, at the argument's
    // use in the body.
    let err = compile("define f(x) = x\nmove m \"{h}\" { choose h in every pit of mover where f(none) == s1 }")
        .err()
        .unwrap();
    assert!(err.contains("`none` has no kind here"), "{err}");
}

#[test]
fn an_end_can_name_the_winner_or_the_loser() {
    // South ends the game at once by sowing into n1: North loses, though
    // North has more in store.
    let rules = |verdict: &str| {
        format!(
            "setup {{ put 1 in s3  put 5 in N }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round }}
             end reached when count(n1) > 0 {verdict}"
        )
    };
    let mut e = engine(&rules("loser opponent(mover)"));
    play(&mut e, "s3");
    let o = e.outcome().unwrap().unwrap();
    assert_eq!((o.scores, o.winners), (vec![0, 5], vec![0]));
    let mut e = engine(&rules("winner next"));
    play(&mut e, "s3");
    assert_eq!(e.outcome().unwrap().unwrap().winners, [1]);
    // No verdict: by the score.
    let mut e = engine(&rules(""));
    play(&mut e, "s3");
    assert_eq!(e.outcome().unwrap().unwrap().winners, [1]);
}

#[test]
fn a_player_who_cannot_move_loses_with_when_stuck_lose() {
    let rules = |stuck: &str| {
        format!(
            "setup {{ put 1 in s3  put 9 in N }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  take h to store(mover) }}
             when stuck: {stuck}"
        )
    };
    // South banks its one counter; North has none, cannot move, and loses
    // with 9 in store against 1.
    let mut e = engine(&rules("lose"));
    play(&mut e, "s3");
    assert!(names(&mut e).is_empty());
    let o = e.outcome().unwrap().unwrap();
    assert_eq!((o.scores, o.winners), (vec![1, 9], vec![0]));
    let mut e = engine(&rules("end"));
    play(&mut e, "s3");
    assert_eq!(e.outcome().unwrap().unwrap().winners, [1]);
    // With statements: they run as the game ends, and North still loses.
    let mut e = engine(&rules("lose { take N to S }"));
    play(&mut e, "s3");
    let o = e.outcome().unwrap().unwrap();
    assert_eq!((o.scores, o.winners), (vec![10, 0], vec![0]));
}

#[test]
fn remove_takes_counters_out_of_the_game() {
    let mut e = engine(
        "setup { put 2 in every pit }
         move go \"{h}\" { choose h in every pit of mover where count(h) > 0
           remove 1 from h  remove every pit of opponent(mover) }",
    );
    play(&mut e, "s2");
    assert_eq!(counts(&e), [2, 1, 2, 0, 0, 0, 0, 0]);
    assert_eq!((e.total_counters(), e.removed()), (5, 7));
    // Taking more than is there is not a legal move, as with `take N from`.
    let mut e = engine(
        "setup { put 1 in every pit }
         move go \"{h}\" { choose h in every pit of mover where count(h) > 0  remove 2 from h }",
    );
    assert!(names(&mut e).is_empty());
}

#[test]
fn a_round_ends_sets_up_the_next_and_says_who_starts_it() {
    let mut e = engine(
        "setup { put 1 in s1  put 1 in n1 }
         move take \"{h}\" { choose h in every pit of mover where count(h) > 0  take h to store(mover) }
         end over when rounds >= 1 and count(every pit) == 0
         round refill when count(every pit) == 0 {
           take 1 from S to s2
           take 1 from N to n2
           start north
         }",
    );
    assert_eq!((e.position().turn.round, e.position().turn.starter), (0, 0));
    play(&mut e, "s1");
    play(&mut e, "n1");
    // The round is over: refilled from the stores, North to begin.
    assert_eq!(counts(&e), [0, 1, 0, 0, 1, 0, 0, 0]);
    assert_eq!(e.to_move(), 1);
    assert_eq!((e.position().turn.round, e.position().turn.starter), (1, 1));
    play(&mut e, "n2");
    play(&mut e, "s2");
    // The second round's end is the game's.
    assert!(names(&mut e).is_empty());
    assert_eq!(e.outcome().unwrap().unwrap().scores, [1, 1]);
    // Undo goes back through the round's end.
    for _ in 0..3 {
        assert!(e.undo());
    }
    assert_eq!((e.position().turn.round, e.to_move()), (0, 1));
}

#[test]
fn a_round_sets_state_for_the_next_round_and_an_end_may_not() {
    // The holes the refill could not fill are closed for the round, and
    // sowing skips them.
    let mut e = engine(
        "state closed of every pit: condition
         setup { put 2 in s1  put 1 in n2 }
         move take \"t{h}\" { choose h in every pit of mover where count(h) > 0  take h to store(mover) }
         move go \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round skip it is pit and closed(it) }
         round refill when count(every pit) == 0 {
           take 2 from S to s1
           take 1 from N to n2
           for h in every pit { set closed(h) = count(h) == 0 }
         }",
    );
    let start = e.position().clone();
    play(&mut e, "ts1");
    let before_round = e.position().clone();
    play(&mut e, "tn2");
    assert_eq!(counts(&e), [2, 0, 0, 0, 1, 0, 0, 0]);
    // s1's two counters pass over the closed s2, s3 and n1: one into n2,
    // and, n3 closed too, one back into s1.
    play(&mut e, "s1");
    assert_eq!(counts(&e), [1, 0, 0, 0, 2, 0, 0, 0]);
    // Undo takes back the state the round set, with the rest.
    assert!(e.undo() && e.undo());
    assert_eq!(e.position(), &before_round);
    assert!(e.undo());
    assert_eq!(e.position(), &start);

    let err = compile(
        "state closed of every pit: condition\nsetup { put 1 in s1 }\nmove m \"{h}\" { choose h in every pit of mover  take h to S }\nend e when true { set closed(s1) = true }",
    )
    .err()
    .unwrap();
    assert!(err.contains("`set` belongs in a move, a rule, a `round` or `setup`"), "{err}");
}

#[test]
fn start_in_the_setup_says_who_moves_first() {
    let rules = |first: &str| {
        format!(
            "option north-first = {first}
             setup {{ put 1 in every pit  if north-first {{ start north }} }}
             move take \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  take h to store(mover) }}"
        )
    };
    assert_eq!(engine(&rules("false")).to_move(), 0);
    let e = engine(&rules("true"));
    assert_eq!((e.to_move(), e.position().turn.starter), (1, 1));
    let err =
        compile("setup { put 1 in s1 }\nmove m \"{h}\" { choose h in every pit of mover  start north }").err().unwrap();
    assert!(err.contains("`start` belongs in `setup` or a `round`"), "{err}");
}

#[test]
fn territory_owners_kept_as_state_change_whose_pits_are_whose() {
    let mut e = engine(
        "state owner of every pit: player
         setup { put 1 in every pit }
         move capture \"{h}\" { choose h in every pit of opponent(mover) where count(h) > 0
           take h to store(mover)  set owner(h) = mover }",
    );
    assert_eq!(names(&mut e), ["n1", "n2", "n3"]);
    play(&mut e, "n1");
    // n1 is South's now, and empty: North's choices are South's pits.
    assert_eq!(names(&mut e), ["s1", "s2", "s3"]);
    play(&mut e, "s2");
    // s2 is North's: South may take n2 and n3 (n1 is its own).
    assert_eq!(names(&mut e), ["n2", "n3"]);
    assert!(e.undo() && e.undo());
    assert_eq!(names(&mut e), ["n1", "n2", "n3"]);
    let err = compile("state owner: player\nmove m \"{h}\" { choose h in every pit of mover }").err().unwrap();
    assert!(err.contains("an owner kept as state is a player for each site of a kind"), "{err}");
}

#[test]
fn owners_kept_as_state_leave_other_kinds_of_site_their_declared_owners() {
    // Owners are kept for the pits; the stores keep the owners declared,
    // read of a choice (`owner(h)`), after a sowing (`owner(last)`) and of
    // a site worked out (`owner(step(h, all, 4))`, the other store).
    let mut e = engine(
        "state owner of every pit: player
         state marks: number
         track all cyclic: s[1..3], S, n[1..3], N
         setup { put 1 in s3  put 1 in n3 }
         move sow \"{h}\" { choose h in every pit where owner(h) == mover and count(h) > 0
           sow h along all
           if owner(last) == mover { again } }
         move mark \"mark {h}\" {
           choose h in every store where owner(h) == mover and owner(step(h, all, 4)) == opponent(mover)
           set marks = marks + 1 }",
    );
    assert_eq!(names(&mut e), ["s3", "mark S"]);
    // The last counter falls in S, South's own: South moves again.
    play(&mut e, "s3");
    assert_eq!((e.to_move(), names(&mut e)), (0, vec!["mark S".to_string()]));
    play(&mut e, "mark S");
    assert_eq!((e.to_move(), names(&mut e)), (1, vec!["n3".to_string(), "mark N".to_string()]));
    play(&mut e, "n3");
    assert_eq!(e.to_move(), 1, "N is North's: North moves again");
}

#[test]
fn a_skip_reading_owners_kept_as_state_follows_them() {
    // Each sows over the pits they own, skipping the others; claiming a pit
    // of the opponent's makes it the claimer's.
    let mut e = engine(
        "state owner of every pit: player
         setup { put 2 in s3  put 1 in n1  put 1 in n2  put 1 in n3 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round skip owner(it) != mover }
         move claim \"claim {h}\" { choose h in every pit of opponent(mover) where count(h) == 1
           set owner(h) = mover }",
    );
    play(&mut e, "s3");
    assert_eq!(counts(&e), [1, 1, 0, 1, 1, 1, 0, 0]);
    // North's one counter skips South's row, round to n1.
    play(&mut e, "n3");
    assert_eq!(counts(&e), [1, 1, 0, 2, 1, 0, 0, 0]);
    play(&mut e, "claim n2");
    // n2 is South's now: North's two counters from n1 skip it (and South's
    // row): n3, then round to n1.
    play(&mut e, "n1");
    assert_eq!(counts(&e), [1, 1, 0, 1, 1, 1, 0, 0]);
    // Taken back, n2 is North's again, and sown into.
    assert!(e.undo() && e.undo());
    play(&mut e, "s1");
    play(&mut e, "n1");
    assert_eq!(counts(&e), [0, 2, 0, 0, 2, 1, 0, 0]);
}

#[test]
fn a_skip_reading_state_follows_it_as_it_changes_and_is_taken_back() {
    // The sowing's table for `closed(it)` is made for the state it reads
    // and made again when that state changes (or is undone).
    let mut e = engine(
        "state closed of every pit: condition
         setup { put 4 in s1  put 1 in n1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round skip closed(it) }
         move close \"close {h}\" { choose h in every pit where count(h) == 0 and not closed(h)
           set closed(h) = true }",
    );
    play(&mut e, "close s2");
    play(&mut e, "n1");
    assert_eq!(counts(&e), [4, 0, 0, 0, 1, 0, 0, 0]);
    // s2 closed: s3, n1, n2, n3.
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 0, 1, 1, 2, 1, 0, 0]);
    assert!(e.undo() && e.undo());
    // s2 and s3 closed: n1, n2, n3, then round to s1.
    play(&mut e, "close s3");
    play(&mut e, "s1");
    assert_eq!(counts(&e), [1, 0, 0, 2, 1, 1, 0, 0]);
    // Nothing closed: s2, s3, n1, n2.
    assert!(e.undo() && e.undo() && e.undo());
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 1, 2, 1, 0, 0, 0]);
}

#[test]
fn a_skip_that_goes_wrong_goes_wrong_only_where_the_sowing_reaches() {
    // `closed` is kept for pits; the track passes the stores. A skip asking
    // it of a store goes wrong, but only once a sowing reaches one.
    let mut e = engine(
        "state closed of every pit: condition
         track loop cyclic: s[1..3], S, n[1..3], N
         setup { put 1 in s1  put 3 in s2 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along loop skip closed(it) }",
    );
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 4, 0, 0, 0, 0, 0, 0]);
    e.undo();
    let mv = e.find_move("s2").unwrap().unwrap();
    let err = format!("{:?}", e.apply(mv).unwrap_err());
    assert!(err.contains("`closed` is kept for every pit; `S` is a store"), "{err}");
    assert_eq!(counts(&e), [1, 3, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn each_lap_runs_where_every_lap_ends_before_the_relay_goes_on() {
    // A counter is banked from where each lap ends: before the relay's
    // condition is tried, and after the last lap too.
    let rules = |setup: &str| {
        engine(&format!(
            "setup {{ {setup} }}
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 1
               sow h along round relay while count(last) > 1
                 each lap {{ take 1 from last to store(mover) }} }}"
        ))
    };
    // s1's two: s2, s3 (now 2); one banked leaves 1 there, so no relay.
    let mut e = rules("put 2 in s1  put 1 in s3");
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 1, 0, 0, 0, 1, 0]);
    // s3 holds 3, less the one banked: its two go on to n1, n2, where the
    // last lap's counter is banked too.
    let mut e = rules("put 2 in s1  put 2 in s3");
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 0, 1, 0, 0, 2, 0]);
    // With `each` as well: `each` after every counter, `each lap` after
    // the lap's last (and its `each`).
    let mut e = engine(
        "state dropped: number
         setup { put 3 in s1 }
         move sow \"{h}\" { choose h in every pit of mover where count(h) > 0
           sow h along round each { set dropped = dropped + 1 }
             each lap { if dropped == 3 { take last to store(mover) } } }",
    );
    play(&mut e, "s1");
    assert_eq!(counts(&e), [0, 1, 1, 0, 0, 0, 1, 0]);
}

#[test]
fn an_if_an_option_switches_off_leaves_no_statement() {
    // `if OPTION and ...` with the option off runs nothing; it is dropped,
    // so a sowing whose `each` held only it has no `each` at all (and goes
    // by table). With the option on it stays.
    let each_len = |on: &str| {
        let g = compiled(&format!(
            "{BOARD}option marks = {on} \"mark\"
             state marked: condition
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0
               sow h along round each {{ if marks and owner(last) != mover {{ set marked = true }} }} }}"
        ))
        .unwrap();
        match &g.moves[0].body[0].kind {
            mancala::engine::game::StmtKind::Sow { each, .. } => each.len(),
            other => panic!("not a sowing: {other:?}"),
        }
    };
    assert_eq!((each_len("false"), each_len("true")), (0, 1));
}

fn compiled(text: &str) -> Result<mancala::engine::game::Game, String> {
    compile_source("test.mancala", text, &Config::default()).map_err(|f| f.render(false))
}

#[test]
fn a_two_row_board_written_in_one_line() {
    let g = compiled(
        "players south, north
         board 2 rows of 4 with stores on the track
         move m \"{h}\" { choose h in every pit of mover }
         score p: count(store(p))",
    )
    .unwrap();
    let names: Vec<&str> = g.sites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["s1", "s2", "s3", "s4", "n1", "n2", "n3", "n4", "S", "N"]);
    let round = g.tracks.iter().find(|t| t.name == "round").unwrap();
    let order: Vec<&str> = round.sites.iter().map(|&s| g.sites[s as usize].name.as_str()).collect();
    assert_eq!(order, ["s1", "s2", "s3", "s4", "S", "n1", "n2", "n3", "n4", "N"]);
    assert!(round.cyclic);
    let (_, opposite) = g.relations.iter().find(|(n, _)| n == "opposite").unwrap();
    let of = |x: &str| g.sites[opposite[g.site_by_name(x).unwrap() as usize].unwrap() as usize].name.clone();
    assert_eq!((of("s1"), of("s4"), of("n2")), ("n4".into(), "n1".into(), "s3".into()));
    assert_eq!(g.sites[g.site_by_name("n3").unwrap() as usize].owner, Some(1));
    // Without stores on the track, the track is the pits alone.
    let g = compiled(
        "players south, north\nboard 2 rows of 3\nmove m \"{h}\" { choose h in every pit of mover }\nscore p: 0",
    )
    .unwrap();
    assert_eq!(g.tracks[0].sites.len(), 6);
}

#[test]
fn a_four_row_board_written_in_one_line() {
    let g = compiled(
        "players south, north\nboard 4 rows of 8\nmove m \"{h}\" { choose h in every pit of mover }\nscore p: 0",
    )
    .unwrap();
    assert_eq!(g.sites.len(), 34);
    let site = |x: &str| g.site_by_name(x).unwrap() as usize;
    let rel = |r: &str, x: &str| {
        let (_, t) = g.relations.iter().find(|(n, _)| n == r).unwrap();
        g.sites[t[site(x)].unwrap() as usize].name.clone()
    };
    // South's inner row runs from its right: s9 under the column of s8,
    // facing North's inner n16, behind which is North's outer n1.
    assert_eq!((rel("opposite", "s9"), rel("behind", "s9")), ("n16".into(), "n1".into()));
    assert_eq!((rel("opposite", "s16"), rel("behind", "s16")), ("n9".into(), "n8".into()));
    assert_eq!(rel("behind", "n12"), "s4");
    let south = g.tracks.iter().find(|t| t.sites.contains(&(site("s1") as u16))).unwrap();
    assert_eq!(south.sites.len(), 16);
    assert!(south.cyclic);
    let err = compiled("players south, north\nboard 3 rows of 6\nmove m \"x\" { }\nscore p: 0").unwrap_err();
    assert!(err.contains("a board of this shape has no shorthand"), "{err}");
    // A mistake in what a board stands for shows the written-out lines.
    let err = compiled("players white, black\nboard 2 rows of 6\nmove m \"x\" { }\nscore p: 0").unwrap_err();
    assert!(err.contains("test.mancala (board)"), "{err}");
}

#[test]
fn a_random_number_passed_to_a_definition_that_uses_it_twice_is_refused() {
    let err = compile(
        "define twice(x) = x + x
         setup { put 1 in every pit }
         move m \"{h}\" { choose h in every pit of mover where count(h) > 0  take twice(random(0, 1)) from h to S }",
    )
    .err()
    .unwrap();
    assert!(err.contains("this draws a random number, and `twice` uses `x` 2 times"), "{err}");
    // Used once, it is drawn once: fine.
    compile(
        "define once(x) = x + 1
         setup { put 1 in every pit }
         move m \"{h}\" { choose h in every pit of mover where count(h) > 0  take once(random(0, 0)) from h to S }",
    )
    .unwrap();
}

#[test]
fn moves_whose_names_look_alike_are_fine_while_never_legal_together() {
    // Alemungula's way: some holes sow one way, the others the other, and
    // both moves are named by the hole.
    let rules = |overlap: &str| {
        format!(
            "setup {{ put 1 in every pit }}
             move left \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0 and index(h) <= 2  take h to store(mover) }}
             move right \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0 and index(h) >= {overlap}  remove h }}"
        )
    };
    let mut e = engine(&rules("3"));
    assert_eq!(names(&mut e), ["s1", "s2", "s3"]);
    play(&mut e, "s3");
    assert_eq!(e.removed(), 1);
    // When both can be played, the name cannot tell them apart: an error naming both.
    let mut e = engine(&rules("2"));
    let err = format!("{:?}", e.find_move("s2").unwrap_err());
    assert!(err.contains("two legal moves are named `s2`, of moves `left` and `right`"), "{err}");
    assert!(e.find_move("s1").unwrap().is_some());
}
