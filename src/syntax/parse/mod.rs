//! The parse: the text, within its limits, through the pest grammar
//! (`grammar/mancala.pest`); a syntax error explained (`errors.rs`); the
//! parse tree lowered to the syntax tree (`lower.rs`).

mod errors;
mod lower;

use errors::syntax_error;
use lower::{Lower, kids};

use std::sync::LazyLock;

use pest::Parser;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};

use super::ast::*;
use crate::diagnostics::{Diagnostic, Span};

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/mancala.pest"]
struct RulesParser;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::op_or, Assoc::Left))
        .op(Op::infix(Rule::op_and, Assoc::Left))
        .op(Op::prefix(Rule::op_not))
        .op(Op::infix(Rule::op_eq, Assoc::Left)
            | Op::infix(Rule::op_ne, Assoc::Left)
            | Op::infix(Rule::op_le, Assoc::Left)
            | Op::infix(Rule::op_ge, Assoc::Left)
            | Op::infix(Rule::op_lt, Assoc::Left)
            | Op::infix(Rule::op_gt, Assoc::Left))
        .op(Op::infix(Rule::op_add, Assoc::Left) | Op::infix(Rule::op_sub, Assoc::Left))
        .op(Op::infix(Rule::op_mul, Assoc::Left)
            | Op::infix(Rule::op_div, Assoc::Left)
            | Op::infix(Rule::op_mod, Assoc::Left))
        .op(Op::prefix(Rule::op_neg))
        .op(Op::postfix(Rule::is_kind))
});

/// Parses one rule file. `file` is the index of its text in the loaded
/// sources, carried in every span. A syntax error is one diagnostic.
/// Mistakes the parse can step over (a number too large, say) come back
/// beside the tree, so that checking goes on and reports the rest too.
pub fn parse(text: &str, file: u16) -> Result<(File, Vec<Diagnostic>), Diagnostic> {
    check_limits(text, file)?;
    // A bound on the parser's work, so that no input can make it run for long.
    pest::set_call_limit(std::num::NonZeroUsize::new(CALL_LIMIT));
    let mut pairs = RulesParser::parse(Rule::file, text).map_err(|e| syntax_error(e, text, file))?;
    let top = pairs.next().expect("the file rule always yields one pair");
    let l = Lower::new(file);
    let mut items = Vec::new();
    for p in kids(top) {
        if p.as_rule() != Rule::EOI {
            items.push(l.item(p)?);
        }
    }
    Ok((File { items }, l.problems.into_inner()))
}

/// Rule files are small; these bounds keep the parser and checker from
/// deep recursion or long work on hostile input.
const MAX_BYTES: usize = 1 << 20;
const MAX_NESTING: usize = 48;
const MAX_OPERATORS: usize = 400;
const CALL_LIMIT: usize = 20_000_000;

/// Refuses inputs too large or too deeply nested to be a rule file.
fn check_limits(text: &str, file: u16) -> Result<(), Diagnostic> {
    if text.len() > MAX_BYTES {
        return Err(Diagnostic::error(
            Span::new(file, 0, 0),
            format!("the file is {} bytes; a rule file may have at most {MAX_BYTES}", text.len()),
        )
        .label("too large"));
    }
    let mut depth = 0usize;
    // A conditional expression nests without brackets: `if a then if b
    // then ... else ... else ...`. Each `then` opens one, closed by the
    // `else` at its depth of brackets; the nesting counts them with brackets.
    let mut thens: Vec<usize> = Vec::new();
    let too_deep = |at: usize, what: &str| {
        Diagnostic::error(Span::new(file, at, at + 1), format!("{what} nested more than {MAX_NESTING} deep"))
            .label("too deep")
            .help("split the expression with `let` or `define`, or the rule into several")
    };
    let mut word = (0usize, 0usize);
    let mut next_at = 0usize;
    for (i, c) in code_chars(text).chain(std::iter::once((text.len(), ' '))) {
        let ident = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if !(ident && i == next_at && word.1 == i) {
            match &text[word.0..word.1] {
                "then" => {
                    thens.push(depth);
                    if depth + thens.len() > MAX_NESTING {
                        return Err(too_deep(word.0, "conditional expressions"));
                    }
                }
                "else" if thens.last() == Some(&depth) => {
                    thens.pop();
                }
                _ => {}
            }
            word = (i, i);
        }
        next_at = i + c.len_utf8();
        if ident {
            word.1 = next_at;
        } else {
            word = (next_at, next_at);
        }
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth + thens.len() > MAX_NESTING {
                    return Err(too_deep(i, "brackets"));
                }
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                thens.retain(|&d| d <= depth);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The characters of `text` outside comments and strings (line ends
/// left out too), with their places.
fn code_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut in_comment, mut in_string) = (false, false);
    text.char_indices().filter(move |&(_, c)| match c {
        '\n' => {
            in_comment = false;
            in_string = false;
            false
        }
        _ if in_comment => false,
        '"' => {
            in_string = !in_string;
            false
        }
        _ if in_string => false,
        '#' => {
            in_comment = true;
            false
        }
        _ => true,
    })
}
