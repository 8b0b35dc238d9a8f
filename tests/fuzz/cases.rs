//! The cases of a campaign, each made from its number alone (so any one can
//! be made again), and what is done with each: checked, and, when it checks,
//! set up and played.

use std::sync::Arc;

use mancala::compile::{Config, compile_source};
use mancala::engine::Engine;
use pest::Parser;
use pest::iterators::Pair;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::grammar::Grammar;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/mancala.pest"]
struct RulesParser;

/// Hook bodies: the shipped ones and hostile ones (endless loops, deep
/// recursion, values that grow without bound, calls that are not allowed).
const HOSTILE_HOOKS: &[&str] = &[
    "loop { }",
    "let x = 0; while true { x += 1; } x",
    "fn f(n) { f(n + 1) } f(0)",
    "let a = []; loop { a = [a]; }",
    "let s = \"ab\"; loop { s += s; }",
    "let a = []; for i in 0..100000000 { a.push(i); } a.len()",
    "sleep(100); last",
    "let f = Fn(\"x\"); for i in 0..25 { f = f.curry(f); } last",
    "throw \"no\"",
    "eval(\"1\")",
    "print(1); last",
    "last + 1",
    "()",
    "9223372036854775807 + 1",
    "",
];

pub struct Corpus {
    pub grammar: Grammar,
    /// The shipped rule files and the bad ones of the tests: (name, text).
    files: Vec<(String, String)>,
}

impl Corpus {
    pub fn load() -> Corpus {
        let mut grammar = Grammar::load(&std::fs::read_to_string("grammar/mancala.pest").unwrap());
        let mut files = Vec::new();
        for dir in ["rules", "tests/bad", "tests/engine"] {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
            paths.sort();
            for p in paths {
                if p.extension().is_some_and(|e| e == "mancala") {
                    files.push((p.to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        // The words the shipped files use, for generated text to use too.
        let mut hooks: Vec<String> = HOSTILE_HOOKS.iter().map(|s| s.to_string()).collect();
        for (_, text) in &files {
            let Ok(pairs) = RulesParser::parse(Rule::file, text) else { continue };
            for p in pairs.flatten() {
                let s = p.as_str().to_string();
                match p.as_rule() {
                    Rule::ident => grammar.idents.push(s),
                    Rule::int => grammar.ints.push(s),
                    Rule::string => grammar.strings.push(s),
                    Rule::raw_string => hooks.push(s.trim_matches('"').to_string()),
                    _ => {}
                }
            }
        }
        for v in [&mut grammar.idents, &mut grammar.ints, &mut grammar.strings, &mut hooks] {
            v.sort();
            v.dedup();
        }
        grammar
            .ints
            .extend(["0", "4096", "2147483648", "9223372036854775808", "99999999999999999999"].map(String::from));
        grammar.hooks = hooks;
        Corpus { grammar, files }
    }

    /// Case `i` of the campaign seeded `seed`.
    pub fn case(&self, seed: u64, i: u64) -> String {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i);
        let (_, base) = self.files.choose(&mut rng).unwrap();
        match i % 4 {
            // A whole file derived from the grammar.
            0 => self.grammar.derive("file", &mut rng),
            // A shipped file with parts of it derived anew.
            1 | 2 => {
                let mut text = base.clone();
                for _ in 0..rng.gen_range(1..4) {
                    text = self.splice(&text, &mut rng);
                }
                text
            }
            // A shipped file with lines moved, doubled, dropped, or numbers
            // made extreme; then a part derived anew.
            _ => {
                let text = edit_lines(base, &mut rng);
                if rng.gen_bool(0.5) { self.splice(&text, &mut rng) } else { text }
            }
        }
    }

    /// Replaces one part of `text` (a declaration, a statement, an
    /// expression, a name...) by text derived from the same rule.
    fn splice(&self, text: &str, rng: &mut ChaCha8Rng) -> String {
        let Ok(pairs) = RulesParser::parse(Rule::file, text) else { return text.to_string() };
        let parts: Vec<Pair<Rule>> =
            pairs.flatten().filter(|p| !matches!(p.as_rule(), Rule::file | Rule::EOI)).collect();
        let Some(part) = parts.choose(rng) else { return text.to_string() };
        let rule = format!("{:?}", part.as_rule());
        if !self.grammar.has(&rule) {
            return text.to_string();
        }
        let span = part.as_span();
        let new = self.grammar.derive(&rule, rng);
        format!("{}{}{}", &text[..span.start()], new, &text[span.end()..])
    }
}

fn edit_lines(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for _ in 0..rng.gen_range(1..5) {
        if lines.is_empty() {
            break;
        }
        let a = rng.gen_range(0..lines.len());
        let b = rng.gen_range(0..lines.len());
        match rng.gen_range(0..5) {
            0 => {
                lines.remove(a);
            }
            1 => {
                let l = lines[a].clone();
                lines.insert(b, l);
            }
            2 => lines.swap(a, b),
            3 => {
                let n = ["0", "1", "-1", "64", "4097", "2147483647", "9223372036854775807"].choose(rng).unwrap();
                lines[a] = replace_a_number(&lines[a], n, rng);
            }
            _ => {
                let l = lines[a].clone();
                let cut = rng.gen_range(0..=l.len());
                if l.is_char_boundary(cut) {
                    lines[a] = l[..cut].to_string();
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

fn replace_a_number(line: &str, n: &str, rng: &mut ChaCha8Rng) -> String {
    let starts: Vec<usize> = line
        .char_indices()
        .filter(|&(i, c)| c.is_ascii_digit() && !line[..i].ends_with(|p: char| p.is_ascii_alphanumeric()))
        .map(|(i, _)| i)
        .collect();
    let Some(&at) = starts.choose(rng) else { return line.to_string() };
    let end = line[at..].find(|c: char| !c.is_ascii_digit()).map_or(line.len(), |k| at + k);
    format!("{}{n}{}", &line[..at], &line[end..])
}

/// What a case came to.
#[derive(Default)]
pub struct Tally {
    pub refused: u64,
    pub checked: u64,
    pub played_plies: u64,
    pub ended: u64,
    pub halted: u64,
    /// Plies at which the two executors were compared (`differ.rs`).
    pub compared: u64,
}

/// How long a case's game is played at most (then its perft is left out).
/// A file whose moves take a million steps to list (the work budget's own
/// tests, mutated) takes a debug build tens of milliseconds a listing:
/// 200 plies of it, and a perft, would be taken for a hang, though every
/// call answers. A hang is one call that does not.
const PLAY_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// Checks the text; when it checks, sets the game up and plays a short
/// random game (200 plies, or [`PLAY_TIME`]) with every move undone and
/// made again, and counts the positions one ply deep, and two when there
/// are few. Any panic or hang here is what the campaign is looking for;
/// errors are the expected answer to bad rules.
pub fn run(text: &str, i: u64, tally: &mut Tally) {
    let game = match compile_source("fuzz.mancala", text, &Config::default()) {
        Ok(g) => g,
        Err(f) => {
            assert!(!f.diagnostics.is_empty(), "a refused file without a diagnostic");
            let _ = f.render(false);
            let _ = f.to_json();
            tally.refused += 1;
            return;
        }
    };
    tally.checked += 1;
    let game = Arc::new(game);
    // The executors are compared in one of the file's variants, or its
    // defaults, by the case's number: a variant's options reach shortcuts
    // the defaults may not (a variant that no longer checks is left out).
    let pick = i as usize % (game.variants.len() + 1);
    let judged = match pick.checked_sub(1).map(|k| game.variants[k].name.clone()) {
        Some(v) => {
            compile_source("fuzz.mancala", text, &Config { variants: vec![v], ..Config::default() }).ok().map(Arc::new)
        }
        None => Some(game.clone()),
    };
    if let Some(judged) = judged {
        tally.compared += crate::differ::agree(judged, i);
    }
    let Ok(start) = Engine::new(game) else {
        tally.halted += 1;
        return;
    };
    let mut e = start.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(i);
    let mut moves = Vec::new();
    let started = std::time::Instant::now();
    let late = || started.elapsed() > PLAY_TIME;
    for _ in 0..200 {
        if late() {
            break;
        }
        // A long list (orders of colours on a big board run to a million)
        // is sampled, as the agents do; a short one is listed.
        let listed = match e.count_moves() {
            Ok(n) if n > 1_000 => e.sample_move(&mut rng).map(|m| {
                moves.clear();
                moves.extend(m);
            }),
            Ok(_) => e.legal_moves(&mut moves),
            Err(h) => Err(h),
        };
        if listed.is_err() {
            tally.halted += 1;
            break;
        }
        let Some(&mv) = moves.choose(&mut rng) else {
            let _ = e.outcome();
            tally.ended += 1;
            break;
        };
        let before = e.position().clone();
        let _ = e.move_name(mv);
        if e.apply(mv).is_err() {
            assert_eq!(e.position(), &before, "a move that failed changed the position");
            tally.halted += 1;
            break;
        }
        assert!(e.undo(), "a move made could not be undone");
        assert_eq!(e.position(), &before, "undo did not restore the position");
        e.apply(mv).expect("a move made once is made again");
        tally.played_plies += 1;
    }
    let _ = e.scores();
    // Two plies deep when that is a few thousand positions at most: a board
    // of 57 pits with orders of colours to choose has 87,780 first moves,
    // and 7.7 billion positions two plies deep would be the fuzz's own hang.
    if !late() && mancala::perft::perft(&start, 1).is_ok_and(|n| n <= 100) {
        let _ = mancala::perft::perft(&start, 2);
    }
}
