//! No input makes the parser, the checker, the executor or the REPL panic or
//! hang: mutated rule files, hostile rules, and nonsense commands.

use std::time::Instant;

use mancala::compile::{Config, compile_source};
use mancala::session::{Session, Setup};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "..",
    ",",
    ":",
    "=",
    "==",
    "<->",
    "->",
    "#",
    "\"",
    "-",
    "+",
    "*",
    "/",
    "%",
    "0",
    "1",
    "99999999999",
    "pit",
    "store",
    "reserve",
    "move",
    "rule",
    "after",
    "sow",
    "along",
    "skip",
    "take",
    "put",
    "to",
    "from",
    "if",
    "else",
    "for",
    "in",
    "players",
    "every",
    "of",
    "is",
    "not",
    "and",
    "or",
    "again",
    "end",
    "game",
    "require",
    "let",
    "choose",
    "where",
    "track",
    "cyclic",
    "linear",
    "relation",
    "layout",
    "row",
    "_",
    "setup",
    "phase",
    "then",
    "when",
    "stuck",
    "pass",
    "score",
    "option",
    "variant",
    "set",
    "use",
    "extends",
    "mover",
    "next",
    "last",
    "it",
    "count",
    "owner",
    "store(mover)",
    "opposite(last)",
    "s[1..pits]",
    "\n",
];

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..rng.gen_range(1..6) {
        let at = rng.gen_range(0..=s.len());
        match rng.gen_range(0..5) {
            0 if !s.is_empty() => {
                let end = (at + rng.gen_range(1..20)).min(s.len());
                s.drain(at.min(end)..end);
            }
            1 => {
                let t = TOKENS.choose(rng).unwrap();
                for (k, c) in format!(" {t} ").chars().enumerate() {
                    s.insert(at + k, c);
                }
            }
            2 if !s.is_empty() => {
                let j = rng.gen_range(0..s.len());
                let at = at.min(s.len() - 1);
                s.swap(at, j);
            }
            3 => s.truncate(at),
            _ => {
                let c = char::from_u32(rng.gen_range(0..0x3000)).unwrap_or('?');
                s.insert(at, c);
            }
        }
    }
    s.into_iter().collect()
}

#[test]
fn mutated_rule_files_never_panic_or_hang() {
    let mut inputs: Vec<(String, String)> = Vec::new();
    for dir in ["rules", "tests/bad"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "mancala") {
                inputs.push((path.to_string_lossy().into_owned(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut compiled = 0;
    let start = Instant::now();
    for round in 0..1500 {
        let (name, text) = &inputs[round % inputs.len()];
        let mutated = mutate(text, &mut rng);
        let t = Instant::now();
        let result = compile_source(name, &mutated, &Config::default());
        assert!(t.elapsed().as_secs() < 5, "checking took {:?} on:\n{mutated}", t.elapsed());
        match result {
            Ok(game) => {
                compiled += 1;
                // Whatever compiles can be set up and played a little.
                if let Ok(mut e) = mancala::engine::Engine::new(std::sync::Arc::new(game)) {
                    let mut moves = Vec::new();
                    for _ in 0..20 {
                        if e.legal_moves(&mut moves).is_err() || moves.is_empty() {
                            break;
                        }
                        let mv = moves[rng.gen_range(0..moves.len())];
                        if e.apply(mv).is_err() {
                            break;
                        }
                    }
                }
            }
            Err(f) => {
                assert!(!f.diagnostics.is_empty());
                let _ = f.render(false);
            }
        }
    }
    // Some mutations leave a valid file (a changed number, say).
    assert!(compiled > 0, "no mutation compiled");
    eprintln!("1500 mutations, {compiled} compiled, in {:?}", start.elapsed());
}

/// Runs `f` on a thread with a large stack and fails if it takes longer
/// than `secs`: a hang fails the test instead of blocking it.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what}: no answer within {secs} s"))
}

#[test]
fn pathological_inputs_are_refused_quickly() {
    let cases: Vec<(&str, String)> = vec![
        ("nested brackets", format!("players a\nscore p: {}1{}\n", "s[".repeat(500), "]".repeat(500))),
        ("deep parentheses", format!("players a\nscore p: {}1{}\n", "(".repeat(100_000), ")".repeat(100_000))),
        ("a long sum", format!("players a\nscore p: {}\n", vec!["1"; 50_000].join(" + "))),
        ("many nots", format!("players a\nscore p: {}1\n", "not ".repeat(10_000))),
        ("a huge file", "x".repeat(2_000_000)),
        ("an else-if chain", format!("players a\nmove m {{ {} {{ }} }}\n", "if true { } else ".repeat(5000))),
        ("an every-of chain", format!("players a\nscore p: count({}mover)\n", "every pit of ".repeat(5000))),
        (
            "an overflowing constant",
            "players a\npit x[1..(0 - 2147483647 * 2147483647 * 2147483647 - 1) / (0 - 1)] owner a\n".to_string(),
        ),
        (
            "a run far outside its family",
            "players a\npit s[1..3] owner a\ntrack t cyclic: s[1..2000000000]\n".to_string(),
        ),
        (
            "an index far outside its family",
            "players a\npit s[1..3] owner a\nscore p: count(s[1..2000000000])\n".to_string(),
        ),
        ("a very long line", format!("players a\n{}@\n", " ".repeat(70_000))),
    ];
    for (what, text) in cases {
        let failure = within(10, what, move || {
            compile_source("deep.mancala", &text, &Config::default()).err().map(|f| f.render(false))
        });
        let rendered = failure.unwrap_or_else(|| panic!("{what}: accepted"));
        assert!(!rendered.is_empty(), "{what}");
    }
}

fn hostile(body: &str) -> String {
    format!(
        "players a, b\npit s[1..3] owner a\npit n[1..3] owner b\nstore S owner a\nstore N owner b\ntrack round cyclic: s[1..3], S, n[1..3], N\nsetup {{ put 2 in every pit }}\n{body}\nscore p: count(store(p))\n"
    )
}

#[test]
fn hostile_rules_stop_with_an_error() {
    let cases = [
        // A move range far too large to enumerate.
        "move m \"{k}\" { choose k in 1..2000000000 }",
        // A loop far too long.
        "move m { for i in 1..2000000000 { again } }",
        // Every site of the track skipped.
        "move m \"{h}\" { choose h in every pit of mover where count(h) > 0  sow h along round skip true or count(h) >= 0 }",
        // `last` before any sowing.
        "move m { if count(last) > 0 { again } }",
        // Loops nested, each under the limit of one range, too long together.
        "move m \"{h}\" { choose h in every pit of mover where count(h) > 0 and sum(i in 1..99999: sum(j in 1..99999: 1)) > 0  sow h along round }",
        // Arithmetic that overflows at run time.
        "move m \"{h}\" { choose h in every pit of mover where (0 - 2147483647 * 2147483647 * 2147483647 - 1) / (0 - 1) > 0  sow h along round }",
    ];
    for body in cases {
        let text = hostile(body);
        let game = match compile_source("hostile.mancala", &text, &Config::default()) {
            Ok(g) => g,
            Err(f) => panic!("{body}\n{}", f.render(false)),
        };
        let r = within(30, body, move || {
            let mut e = mancala::engine::Engine::new(std::sync::Arc::new(game)).unwrap();
            let mut moves = Vec::new();
            e.legal_moves(&mut moves).and_then(|_| match moves.first() {
                Some(m) => e.apply(*m),
                None => Ok(()),
            })
        });
        // An error (one at a place in the rule file, for arithmetic that overflows).
        assert!(matches!(r, Err(mancala::engine::Halt::Error(_) | mancala::engine::Halt::At(..))), "{body}: {r:?}");
    }
    // A setup that would make too many counters.
    let text =
        hostile("move m { again }").replace("put 2 in every pit", "for i in 1..90000 { put 100000 in every pit }");
    let game = compile_source("hostile.mancala", &text, &Config::default()).unwrap();
    assert!(mancala::engine::Engine::new(std::sync::Arc::new(game)).is_err());
}

#[test]
fn nonsense_commands_leave_the_game_as_it_was() {
    let words = [
        "s1",
        "s2",
        "n1",
        "pass",
        "r1",
        "undo",
        "redo",
        "set",
        "set s1=3",
        "set s=1,2",
        "set clear",
        "set turn=north",
        "set turn=x",
        "set s1=-1",
        "set s1=",
        "set =",
        "set ==3",
        "moves",
        "board",
        "new",
        "json",
        "position",
        "history",
        "info",
        "help",
        "random",
        "random 0",
        "random 9999999999",
        "undo 999",
        "redo 0",
        "move",
        "move s1",
        "load",
        "load /nonexistent",
        "\u{0}",
        "ä",
        "s1 s2",
        "--",
        "#",
        "set s1=3 s1=4",
        "set phase=nope",
    ];
    // No `save` among the words: it writes files, and these lines would name
    // them. The folder is checked below to hold the same files afterwards.
    let listing = || {
        let mut v: Vec<_> = std::fs::read_dir(".").unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };
    let files_before = listing();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for rules in ["rules/kalah.mancala", "rules/cups.mancala"] {
        let mut s = Session::new(Setup { rules: rules.into(), ..Default::default() }).unwrap();
        let mut refused = 0;
        for _ in 0..1500 {
            let line: String =
                (0..rng.gen_range(1..3)).map(|_| *words.choose(&mut rng).unwrap()).collect::<Vec<_>>().join(" ");
            let before = s.engine().position().clone();
            let reply = s.command(&line);
            refused += reply.refused as usize;
            if reply.refused {
                assert_eq!(
                    s.engine().position(),
                    &before,
                    "`{line}` was refused but changed the game:\n{}",
                    reply.text
                );
            }
        }
        assert!((300..1200).contains(&refused), "{rules}: {refused} of 1500 lines refused");
    }
    assert_eq!(listing(), files_before, "the REPL commands wrote files into the working folder");
}

#[test]
fn definitions_inline_within_limits_and_only_real_recursion_is_called_so() {
    // Each definition uses the one before twice: 2^24 copies if inlined.
    let mut lines = vec!["define d0(x) = x + 1".to_string()];
    lines.extend((1..=24).map(|i| format!("define d{i}(x) = d{}(x) + d{}(x)", i - 1, i - 1)));
    let doubling = hostile(&format!("{}\nmove m {{ require d24(1) > 0 }}", lines.join("\n")));
    let rendered = within(20, "doubling definitions", move || {
        compile_source("defines.mancala", &doubling, &Config::default()).err().map(|f| f.render(false))
    })
    .expect("2^24 copies were accepted");
    assert!(
        rendered.contains("`d24` would be copied with the definitions it uses more than 100000 times"),
        "{rendered}"
    );
    assert_eq!(rendered.matches('×').count(), 1, "said once:\n{rendered}");

    // A chain of 32 definitions, none using itself, is fine.
    let mut chain = vec!["define g32(x) = x".to_string()];
    chain.extend((0..32).rev().map(|i| format!("define g{i}(x) = g{}(x) + 1", i + 1)));
    let text = hostile(&format!("{}\nmove m {{ require g0(1) == 33 }}", chain.join("\n")));
    if let Err(f) = compile_source("chain.mancala", &text, &Config::default()) {
        panic!("{}", f.render(false));
    }
    // A definition that does use itself is still told so.
    for body in ["define f(x) = f(x) + 1", "define f(x) = g(x)\ndefine g(x) = f(x)"] {
        let text = hostile(&format!("{body}\nmove m {{ require f(1) > 0 }}"));
        let err = compile_source("loop.mancala", &text, &Config::default()).err().unwrap().render(false);
        assert!(err.contains("uses itself"), "{body}: {err}");
    }
}

#[test]
fn many_mistakes_are_reported_in_time_proportional_to_their_number() {
    let moves: String = (0..20_000).map(|i| format!("move m{i} {{ require count(nosuch{i}) > 0 }}\n")).collect();
    let text = format!("players a\npit s[1..3] owner a\nstore S owner a\n{moves}score p: 0\n");
    let (rendered, json) = within(20, "20,000 mistakes", move || {
        let f = compile_source("many.mancala", &text, &Config::default()).err().unwrap();
        assert_eq!(f.diagnostics.len(), 20_000);
        (f.render(false), f.to_json())
    });
    assert!(rendered.contains("... and 19500 more"), "{}", &rendered[rendered.len() - 300..]);
    let last = &json[19_999];
    assert_eq!(last["line"], 20_003);
    assert_eq!(last["message"], "unknown name `nosuch19999`");
}

#[test]
fn a_board_past_the_limit_of_sites_is_refused_once_without_a_cascade() {
    for (pits, stores_fit) in [(2048, false), (2049, true)] {
        let text = format!(
            "players a, b\npit s[1..{pits}] owner a\npit n[1..{pits}] owner b\nstore S owner a\nstore N owner b\n\
             track round cyclic: s[1..{pits}], S, n[1..{pits}], N\nsetup {{ put 1 in every pit }}\n\
             move sow \"{{h}}\" {{ choose h in every pit of mover where count(h) > 0  sow h along round }}\n\
             rule take after sow {{ if count(n1) > 0 and count(n[2]) > 0 {{ take n1 to S }} }}\n\
             score p: count(store(p))\n"
        );
        let Err(f) = compile_source("wide.mancala", &text, &Config::default()) else { panic!("accepted") };
        let rendered = f.render(false);
        assert!(rendered.contains("a board has at most 4096 sites: with"), "{rendered}");
        assert!(!rendered.contains("unknown"), "a cascade:\n{rendered}");
        // 2,048 a side: both stores are past the limit; 2,049: the second family.
        assert_eq!(f.diagnostics.len(), if stores_fit { 1 } else { 2 }, "{rendered}");
    }
}
