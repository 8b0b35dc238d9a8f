//! Semantics of language constructs, on small rule files written here rather
//! than on the shipped games.

use std::sync::Arc;

use mancala::compile::{Config, compile_source};
use mancala::engine::{Engine, Move};

const BOARD: &str = "players a, b
pit s[1..2] owner a
pit n[1..2] owner b
store S owner a
store N owner b
track round cyclic: s[1..2], S, n[1..2], N
score p: count(store(p))
";

fn engine(extra: &str) -> Engine {
    let text = format!("{BOARD}{extra}");
    let game =
        compile_source("test.mancala", &text, &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
    Engine::new(Arc::new(game)).unwrap()
}

fn names(e: &mut Engine) -> Vec<String> {
    let mut moves: Vec<Move> = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    moves.iter().map(|m| e.move_name(*m)).collect()
}

fn errors(text: &str) -> String {
    match compile_source("test.mancala", text, &Config::default()) {
        Ok(_) => panic!("expected errors in:\n{text}"),
        Err(f) => f.render(false),
    }
}

#[test]
fn sowing_an_empty_site_is_not_a_legal_move() {
    // No `where count(h) > 0`: the empty pit must still not be offered.
    let mut e = engine(
        "setup { put 1 in s[1]  put 1 in n[1] }\nmove sow \"{h}\" { choose h in every pit of mover  sow h along round }\n",
    );
    assert_eq!(names(&mut e), vec!["s1"]);
    // ... also when an `avoid` makes every move be tried.
    let mut e = engine(
        "setup { put 1 in s[1]  put 1 in n[1] }\nmove sow \"{h}\" { choose h in every pit of mover  sow h along round }\navoid x when not can-move(next)\n",
    );
    assert_eq!(names(&mut e), vec!["s1"]);
}

#[test]
fn can_move_keeps_the_callers_variables() {
    // Both sides compute the same thing; if `can-move` overwrote `p`, they
    // would differ and the avoid would exclude every move but... all of them.
    let mut e = engine(
        "setup { put 1 in every pit }\nmove sow \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round }\n\
         end odd when any(p in players: can-move(p) and p == b) != any(p in players: p == b and can-move(p))\n",
    );
    e.apply(Move { def: 0, args: [0, 0, 0, 0], order: 0 }).unwrap();
    assert!(!e.position().turn.ended, "the two sides of the condition differed");
}

#[test]
fn too_many_local_variables_are_refused() {
    let lets: String = (0..40).map(|i| format!("let v{i} = {i}\n")).collect();
    let text = format!("{BOARD}move m {{\n{lets}}}\n");
    assert!(errors(&text).contains("local variables at once; at most 32"));
}

#[test]
fn a_run_of_a_single_site_is_refused() {
    let text = format!("{BOARD}track t cyclic: S[1..3]\nmove m {{ again }}\n");
    assert!(errors(&text).contains("`S` is a single site, not a family"));
}

#[test]
fn declarations_named_twice_in_a_derived_file_are_reported() {
    let dir = std::env::temp_dir().join(format!("mancala-language-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("base.mancala"), format!("{BOARD}move m {{ again }}\n")).unwrap();
    let derived = "extends \"base.mancala\"\nrule r after m { again }\nrule r after m { }\n";
    let path = dir.join("derived.mancala");
    std::fs::write(&path, derived).unwrap();
    let err = mancala::compile::compile_file(path.to_str().unwrap(), &Config::default()).expect_err("a duplicate");
    assert!(err.render(false).contains("rule `r` is declared twice"), "{}", err.render(false));
}

#[test]
fn extends_replaces_the_base_declaration_of_the_same_name() {
    let dir = std::env::temp_dir().join(format!("mancala-language-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("base.mancala"), format!("{BOARD}option k = 1 in 1..3\nsetup {{ put k in every pit }}\nmove m \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round }}\n")).unwrap();
    std::fs::write(dir.join("derived.mancala"), "extends \"base.mancala\"\noption k = 3 in 1..3\n").unwrap();
    let game =
        mancala::compile::compile_file(dir.join("derived.mancala").to_str().unwrap(), &Config::default()).unwrap();
    let e = Engine::new(Arc::new(game)).unwrap();
    assert_eq!(e.total_counters(), 12);
}

#[test]
fn an_unnamed_game_takes_its_file_name() {
    let game =
        compile_source("rules/my-game.mancala", &format!("{BOARD}move m {{ again }}\n"), &Config::default()).unwrap();
    assert_eq!(game.name, "my-game");
}

#[test]
fn hidden_state_is_left_out_of_the_position_shown_but_kept_and_settable() {
    let dir = std::env::temp_dir().join(format!("mancala-language-h-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hidden.mancala");
    std::fs::write(
        &path,
        format!(
            "{BOARD}hidden state secret: number\nstate shown: number\nstate marked of every pit: condition\nsetup {{ put 1 in every pit\n set secret = 7\n set shown = 3\n set marked(s1) = true }}\nmove m \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round }}\n"
        ),
    )
    .unwrap();
    let setup =
        mancala::session::Setup { rules: path.to_str().unwrap().into(), variants: vec![], settings: vec![], seed: 0 };
    let mut s = mancala::session::Session::new(setup).unwrap_or_else(|f| panic!("{}", f.render(false)));
    let shown = s.command("position").text;
    assert!(shown.contains("shown=3"), "{shown}");
    assert!(!shown.contains("secret"), "{shown}");
    let json: serde_json::Value = serde_json::from_str(&s.command("json").text).unwrap();
    assert_eq!(
        json["state"],
        serde_json::json!({ "shown": 3, "marked": { "s1": true, "s2": false, "n1": false, "n2": false } })
    );
    // The rules still have it, and the REPL's `set` still reaches it.
    let slot = |s: &mancala::session::Session| {
        let v = s.engine().game.state.iter().find(|v| v.name == "secret").unwrap();
        s.engine().position().vars[v.offset]
    };
    assert_eq!(slot(&s), mancala::engine::game::Value::Int(7));
    s.command("set secret=9");
    assert_eq!(slot(&s), mancala::engine::game::Value::Int(9));
    assert!(!s.command("position").text.contains("secret"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn per_site_state_of_one_kind_has_no_value_for_another_kind_of_site() {
    let mut e = engine(
        "state marked of every pit: condition\nsetup { put 1 in every pit }\nmove m \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round\n  set marked(last) = true }\n",
    );
    let before = e.position().clone();
    let mut moves = Vec::new();
    e.legal_moves(&mut moves).unwrap();
    let by_name = |e: &mut Engine, n: &str| *moves.iter().find(|&&m| e.move_name(m) == n).unwrap();
    // s1's stone falls in s2, a pit: kept.
    let s1 = by_name(&mut e, "s1");
    e.apply(s1).unwrap();
    e.undo();
    // s2's stone falls in the store S, which has no `marked`: an error, and
    // the position is as it was.
    let s2 = by_name(&mut e, "s2");
    let err = e.apply(s2).unwrap_err();
    assert_eq!(err.to_string(), "`marked` is kept for every pit; `S` is a store");
    assert_eq!(e.position(), &before);
}
