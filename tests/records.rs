//! Saved games: a record replays to the same position; a record that does
//! not fit its rule file is refused with a clear error, and the game in
//! progress is kept.

mod common;
use common::*;
use mancala::record::Record;
use mancala::session::Session;

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mancala-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn save_and_load_give_back_the_same_game() {
    let mut s = session("rules/kalah.mancala", &["standard"], &[("pits", "4")]);
    for mv in ["s2", "n1", "s4"] {
        play(&mut s, mv);
    }
    set(&mut s, "s1=7");
    let first = s.legal_names()[0].clone();
    play(&mut s, &first);
    let path = temp("game.json");
    let reply = run(&mut s, &format!("save {}", path.display()));
    assert!(reply.starts_with("saved 5 steps"), "{reply}");

    let rec = Record::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(rec.variants, vec!["standard"]);
    assert_eq!(rec.settings, vec![("pits".to_string(), "4".to_string())]);
    assert_eq!(rec.steps[3], "set s1=7");
    // The record names its rule file from its own folder, so it is read
    // from there (not from the folder the test runs in).
    let (loaded, note) = Session::from_record_file(&path.display().to_string()).unwrap();
    assert_eq!(note, None);
    assert_eq!(loaded.engine().position(), s.engine().position());

    // Loading from the REPL replaces the game; undo then works through the
    // loaded steps.
    let mut other = session("rules/kalah.mancala", &[], &[]);
    let reply = run(&mut other, &format!("load {}", path.display()));
    assert!(reply.starts_with("loaded"), "{reply}");
    assert_eq!(other.engine().position(), s.engine().position());
    run(&mut other, "undo 5");
    assert_eq!(count(&other, "s1"), 4);
}

#[test]
fn records_that_do_not_fit_are_refused_and_the_game_is_kept() {
    let good = Record {
        random_position: 0,
        rules_hash: None,
        rules: "rules/kalah.mancala".into(),
        variants: vec![],
        settings: vec![],
        seed: 0,
        steps: vec!["s3".into(), "s1".into()],
    };
    let cases: Vec<(Record, &str)> = vec![
        (Record { steps: vec!["s3".into(), "n9".into()], ..good.clone() }, "step 2 `n9`"),
        (Record { steps: vec!["s3".into(), "n1".into()], ..good.clone() }, "not a legal move here"),
        (Record { variants: vec!["standart".into()], ..good.clone() }, "did you mean `standard`?"),
        (Record { settings: vec![("pits".into(), "12".into())], ..good.clone() }, "must be in 1..8"),
        (Record { rules: "rules/nope.mancala".into(), ..good.clone() }, "cannot read rule file"),
        (Record { steps: vec!["set s1=x".into()], ..good.clone() }, "not a count"),
    ];
    for (rec, expect) in cases {
        let err = Session::from_record(&rec).err().unwrap_or_else(|| panic!("{rec:?} was accepted"));
        assert!(err.contains(expect), "{rec:?}: expected {expect:?} in:\n{err}");

        let path = temp("bad.json");
        std::fs::write(&path, rec.to_json()).unwrap();
        let mut s = session("rules/kalah.mancala", &[], &[]);
        play(&mut s, "s1");
        let before = s.engine().position().clone();
        let reply = run(&mut s, &format!("load {}", path.display()));
        assert!(reply.contains("the game is unchanged"), "{reply}");
        assert_eq!(s.engine().position(), &before);
    }
    for text in ["", "{", "[]", "{\"rules\": 3}", "{\"rules\": \"rules/kalah.mancala\", \"moves\": [], \"extra\": 1}"] {
        assert!(Record::from_json(text).is_err(), "{text:?} was accepted");
    }
}

#[test]
fn a_loaded_game_draws_the_same_random_moves_as_the_saved_one_would() {
    let mut s = session("rules/kalah.mancala", &["standard"], &[]);
    run(&mut s, "random 3");
    let path = temp("random.json");
    run(&mut s, &format!("save {}", path.display()));
    let (mut loaded, _) = Session::from_record_file(&path.display().to_string()).unwrap();
    let a = run(&mut s, "random 2");
    let b = run(&mut loaded, "random 2");
    assert_eq!(a, b);
    assert!(a.contains(" plays "));
}

#[test]
fn a_record_finds_its_rule_file_beside_it() {
    let dir = std::env::temp_dir().join(format!("mancala-beside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("rules/cups.mancala", dir.join("my-cups.mancala")).unwrap();
    let rec = Record {
        rules: "my-cups.mancala".into(),
        variants: vec![],
        settings: vec![],
        seed: 0,
        random_position: 0,
        rules_hash: None,
        steps: vec!["r2".into()],
    };
    let path = dir.join("game.json");
    std::fs::write(&path, rec.to_json()).unwrap();
    let mut s = session("rules/kalah.mancala", &[], &[]);
    let reply = run(&mut s, &format!("load {}", path.display()));
    assert!(reply.starts_with("loaded"), "{reply}");
    assert_eq!(s.game().name, "Cups");
}

#[test]
fn a_record_names_its_steps_as_the_readme_does_and_old_records_still_load() {
    let mut s = session("rules/kalah.mancala", &[], &[]);
    play(&mut s, "s1");
    let json: serde_json::Value = serde_json::from_str(&s.record().to_json()).unwrap();
    assert_eq!(json["steps"], serde_json::json!(["s1"]));
    assert!(json.get("moves").is_none());
    assert!(json["rules_hash"].as_str().unwrap().starts_with("fnv1a64:"));
    let old = r#"{"rules": "rules/kalah.mancala", "moves": ["s1", "n1"]}"#;
    let loaded = Session::from_record(&Record::from_json(old).unwrap()).unwrap();
    assert_eq!(loaded.engine().position().turn.ply, 2);
}

#[test]
fn a_saved_game_loads_from_any_folder_and_says_when_its_rules_have_changed() {
    let dir = std::env::temp_dir().join(format!("mancala-anywhere-{}", std::process::id()));
    let (games, elsewhere) = (dir.join("games"), dir.join("elsewhere"));
    std::fs::create_dir_all(&games).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let rules = dir.join("my-kalah.mancala");
    let text = std::fs::read_to_string("rules/kalah.mancala").unwrap();
    std::fs::write(&rules, &text).unwrap();
    let mut s = session(rules.to_str().unwrap(), &["standard"], &[("pits", "4")]);
    for mv in ["s1", "s2"] {
        play(&mut s, mv);
    }
    let record = games.join("game.json");
    assert!(run(&mut s, &format!("save {}", record.display())).starts_with("saved 2 steps"));
    let saved = Record::from_json(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(saved.rules, "../my-kalah.mancala", "the rule file is named from the record's folder");

    // From another folder, by the program: the same game.
    let load = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
            .args(args)
            .current_dir(&elsewhere)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = load(&["play", "--load", record.to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(shown.contains("north to move"), "{shown}");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));

    // The rules changed, the steps still fit: loaded, with a note.
    std::fs::write(&rules, format!("{text}\n# a comment added later\n")).unwrap();
    let out = load(&["play", "--load", record.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("has changed since this game was saved; its steps still fit"), "{err}");
    let mut other = session("rules/cups.mancala", &[], &[]);
    let reply = run(&mut other, &format!("load {}", record.display()));
    assert!(reply.contains("has changed since this game was saved"), "{reply}");

    // Changed so that they no longer fit: refused, saying the rules changed.
    std::fs::write(&rules, text.replace("move sow \"{hole}\"", "move sow \"x{hole}\"")).unwrap();
    let out = load(&["play", "--load", record.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("does not fit") && err.contains("which may be why"), "{err}");
}
