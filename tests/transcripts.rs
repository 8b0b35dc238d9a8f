//! Rule behaviour as transcripts: each file in `tests/transcripts/` is a
//! script of REPL commands whose first line names the game to play,
//!
//!     # play rules/kalah.mancala --variant standard --set pits=4 --seed 7
//!
//! and whose output is compared with its snapshot in `snapshots/`.

use mancala::cli::scripted;
use mancala::session::{Session, Setup};

/// Reads the `# play FILE [--variant V] [--set K=V] [--seed N]` header.
fn setup_from_header(header: &str) -> Setup {
    let words: Vec<&str> = header.trim_start_matches('#').split_whitespace().collect();
    assert_eq!(words.first(), Some(&"play"), "a transcript starts with `# play RULES ...`, found {header:?}");
    let mut setup = Setup { rules: words.get(1).expect("a rule file after `# play`").to_string(), ..Setup::default() };
    let mut i = 2;
    while i < words.len() {
        let value = words.get(i + 1).unwrap_or_else(|| panic!("{} needs a value", words[i]));
        match words[i] {
            "--variant" => setup.variants.push(value.to_string()),
            "--set" => {
                let (k, v) = value.split_once('=').expect("--set NAME=VALUE");
                setup.settings.push((k.to_string(), v.to_string()));
            }
            "--seed" => setup.seed = value.parse().expect("--seed takes a number"),
            other => panic!("unknown word {other:?} in transcript header"),
        }
        i += 2;
    }
    setup
}

#[test]
fn transcripts() {
    insta::glob!("transcripts/*.txt", |path| {
        let script = std::fs::read_to_string(path).unwrap();
        let header = script.lines().next().unwrap_or_default();
        let session = match Session::new(setup_from_header(header)) {
            Ok(s) => s,
            Err(f) => panic!("{}", f.render(false)),
        };
        let mut out = Vec::new();
        // Transcripts show refusals too: every line runs.
        scripted(session, script.as_bytes(), &mut out, true);
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(String::from_utf8(out).unwrap());
        });
    });
}
