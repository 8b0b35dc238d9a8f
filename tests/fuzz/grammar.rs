//! Random text from the pest grammar itself (`grammar/mancala.pest`, read
//! with pest_meta): any rule of the language can be derived at random, so a
//! generated declaration, statement or expression is one the parser would
//! take, or nearly (lookaheads are not honoured). Identifiers and numbers are
//! drawn mostly from the shipped files' own, so that generated text refers to
//! things that exist and reaches the checker and the engine, not only the
//! parser.

use std::collections::HashMap;

use pest_meta::ast::{Expr, RuleType};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Below this depth choices are free; past it each choice takes its
/// shortest alternative, so every derivation ends.
const FREE_DEPTH: usize = 14;
/// A derivation stops growing past this many characters.
const MAX_TEXT: usize = 20_000;

pub struct Grammar {
    rules: HashMap<String, (RuleType, Expr)>,
    /// The fewest tokens a rule can derive (for choosing how to finish).
    cost: HashMap<String, u32>,
    pub idents: Vec<String>,
    pub ints: Vec<String>,
    pub strings: Vec<String>,
    pub hooks: Vec<String>,
}

impl Grammar {
    pub fn load(text: &str) -> Grammar {
        let pairs = pest_meta::parser::parse(pest_meta::parser::Rule::grammar_rules, text).expect("the grammar parses");
        let rules = pest_meta::parser::consume_rules(pairs).expect("the grammar is well formed");
        let rules: HashMap<String, (RuleType, Expr)> = rules.into_iter().map(|r| (r.name, (r.ty, r.expr))).collect();
        let mut cost: HashMap<String, u32> = HashMap::new();
        // A fixpoint: each round may lower a rule's cost; costs never rise.
        loop {
            let mut changed = false;
            for (name, (_, e)) in &rules {
                let c = expr_cost(e, &cost);
                if c < *cost.get(name).unwrap_or(&u32::MAX) {
                    cost.insert(name.clone(), c);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Grammar { rules, cost, idents: vec![], ints: vec![], strings: vec![], hooks: vec![] }
    }

    pub fn has(&self, rule: &str) -> bool {
        self.rules.contains_key(rule)
    }

    /// Random text derived from `rule`.
    pub fn derive(&self, rule: &str, rng: &mut ChaCha8Rng) -> String {
        let mut out = String::new();
        self.ident(rule, 0, false, rng, &mut out);
        out
    }

    fn ident(&self, name: &str, depth: usize, atomic: bool, rng: &mut ChaCha8Rng, out: &mut String) {
        let pick = |v: &Vec<String>, rng: &mut ChaCha8Rng| v.choose(rng).cloned();
        let special = match name {
            "ident" if rng.gen_bool(0.9) => pick(&self.idents, rng),
            "int" if rng.gen_bool(0.8) => pick(&self.ints, rng),
            "string" if rng.gen_bool(0.7) => pick(&self.strings, rng),
            "raw_string" => pick(&self.hooks, rng).map(|h| format!("\"\"\"{h}\"\"\"")),
            "SOI" | "EOI" | "WHITESPACE" => Some(String::new()),
            "COMMENT" => Some("# a comment\n".into()),
            "NEWLINE" => Some("\n".into()),
            "ANY" => Some(any_char(rng).to_string()),
            "ASCII_DIGIT" => Some(((b'0' + rng.gen_range(0..10)) as char).to_string()),
            "ASCII_ALPHA" => Some(((b'a' + rng.gen_range(0..26)) as char).to_string()),
            "ASCII_ALPHANUMERIC" => Some(((b'a' + rng.gen_range(0..26)) as char).to_string()),
            _ => None,
        };
        if let Some(s) = special {
            out.push_str(&s);
            return;
        }
        match self.rules.get(name) {
            Some((ty, e)) => {
                let atomic = match ty {
                    RuleType::Atomic | RuleType::CompoundAtomic => true,
                    RuleType::NonAtomic => false,
                    _ => atomic,
                };
                self.expr(e, depth + 1, atomic, rng, out);
            }
            None => out.push_str(name),
        }
    }

    fn expr(&self, e: &Expr, depth: usize, atomic: bool, rng: &mut ChaCha8Rng, out: &mut String) {
        if out.len() > MAX_TEXT {
            return;
        }
        let free = depth < FREE_DEPTH;
        let repeat = |min: u32, max: u32, inner: &Expr, rng: &mut ChaCha8Rng, out: &mut String| {
            let n = if free { rng.gen_range(min..=max.max(min)) } else { min };
            for i in 0..n {
                if i > 0 && !atomic {
                    out.push(' ');
                }
                self.expr(inner, depth + 1, atomic, rng, out);
            }
        };
        match e {
            Expr::Str(s) | Expr::Insens(s) => out.push_str(s),
            Expr::Range(a, b) => {
                let (a, b) = (a.chars().next().unwrap_or('a') as u32, b.chars().next().unwrap_or('z') as u32);
                out.push(char::from_u32(rng.gen_range(a..=b.max(a))).unwrap_or('a'));
            }
            Expr::Ident(name) => self.ident(name, depth, atomic, rng, out),
            Expr::Seq(a, b) => {
                self.expr(a, depth, atomic, rng, out);
                if !atomic {
                    out.push(if rng.gen_bool(0.1) { '\n' } else { ' ' });
                }
                self.expr(b, depth, atomic, rng, out);
            }
            Expr::Choice(..) => {
                let mut alts = Vec::new();
                alternatives(e, &mut alts);
                let chosen = if free {
                    alts.choose(rng).copied()
                } else {
                    alts.iter().min_by_key(|a| expr_cost(a, &self.cost)).copied()
                };
                if let Some(alt) = chosen {
                    self.expr(alt, depth + 1, atomic, rng, out);
                }
            }
            Expr::Opt(inner) => repeat(0, 1, inner, rng, out),
            Expr::Rep(inner) => repeat(0, 3, inner, rng, out),
            Expr::RepOnce(inner) => repeat(1, 3, inner, rng, out),
            Expr::RepExact(inner, n) => repeat(*n, *n, inner, rng, out),
            Expr::RepMin(inner, n) => repeat(*n, n + 2, inner, rng, out),
            Expr::RepMax(inner, n) => repeat(0, *n, inner, rng, out),
            Expr::RepMinMax(inner, a, b) => repeat(*a, *b, inner, rng, out),
            Expr::Push(inner) => self.expr(inner, depth, atomic, rng, out),
            // Lookaheads and stack operations derive nothing.
            _ => {}
        }
    }
}

fn alternatives<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Choice(a, b) => {
            alternatives(a, out);
            alternatives(b, out);
        }
        other => out.push(other),
    }
}

fn expr_cost(e: &Expr, cost: &HashMap<String, u32>) -> u32 {
    match e {
        Expr::Str(_) | Expr::Insens(_) | Expr::Range(..) => 1,
        Expr::Ident(n) => match n.as_str() {
            "ANY" | "ASCII_DIGIT" | "ASCII_ALPHA" | "ASCII_ALPHANUMERIC" | "NEWLINE" => 1,
            "SOI" | "EOI" | "WHITESPACE" | "COMMENT" => 0,
            _ => cost.get(n).map_or(u32::MAX, |c| c.saturating_add(1)),
        },
        Expr::Seq(a, b) => expr_cost(a, cost).saturating_add(expr_cost(b, cost)),
        Expr::Choice(a, b) => expr_cost(a, cost).min(expr_cost(b, cost)),
        Expr::RepOnce(i) | Expr::Push(i) => expr_cost(i, cost),
        Expr::RepExact(i, n) | Expr::RepMin(i, n) | Expr::RepMinMax(i, n, _) => expr_cost(i, cost).saturating_mul(*n),
        _ => 0,
    }
}

/// Mostly ASCII, sometimes anything: control characters, combining marks,
/// right-to-left text, a byte-order mark.
fn any_char(rng: &mut ChaCha8Rng) -> char {
    match rng.gen_range(0..10) {
        0 => ['\u{0}', '\u{1b}', '\u{7f}', '\u{feff}', '\u{202e}', '\u{301}', '\t', '"', '\\', '\u{10ffff}']
            .choose(rng)
            .copied()
            .unwrap(),
        1 => char::from_u32(rng.gen_range(0x80..0x3000)).unwrap_or('?'),
        _ => (b' ' + rng.gen_range(0..95)) as char,
    }
}
