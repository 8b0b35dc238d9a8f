//! Every file in `tests/bad/` is a rule file with mistakes; its rendered
//! diagnostics (all of them, from one run of the checker) are compared with
//! the snapshot in `snapshots/`. A bad file may start with a line
//!
//!     # args: --variant NAME --set K=V
//!
//! to be checked with those command line choices instead.

use mancala::compile::{Config, check_file, compile_file};

fn config(text: &str) -> Option<Config> {
    let line = text.lines().next()?.strip_prefix("# args:")?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut c = Config::default();
    for pair in words.chunks(2) {
        match pair {
            ["--variant", v] => c.variants.push(v.to_string()),
            ["--set", kv] => {
                let (k, v) = kv.split_once('=').expect("--set NAME=VALUE");
                c.settings.push((k.to_string(), v.to_string()));
            }
            other => panic!("bad args line {other:?}"),
        }
    }
    Some(c)
}

#[test]
fn bad_rule_files() {
    insta::glob!("bad/*.mancala", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        // Paths in the output are relative, so snapshots do not depend on the checkout.
        let rel = format!("tests/bad/{}", path.file_name().unwrap().to_string_lossy());
        let result = match config(&text) {
            Some(c) => compile_file(&rel, &c),
            None => check_file(&rel),
        };
        let failure = match result {
            Ok(_) => panic!("{rel} should have errors but checks clean"),
            Err(f) => f,
        };
        let rendered = format!("{} error(s)\n{}", failure.diagnostics.len(), failure.render(false));
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(rendered);
        });
    });
}
