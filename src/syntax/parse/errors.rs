//! A syntax error in words: what the parser expected, named as a person
//! writing rules would name it, and a hint when a brace was left open.

use super::*;

/// The words a syntax error uses for what the parser expected.
fn rule_name(rule: &Rule) -> String {
    let punctuation = match rule {
        Rule::k_colon => Some(":"),
        Rule::k_assign => Some("="),
        Rule::k_lbrace | Rule::block => Some("{"),
        Rule::k_rbrace => Some("}"),
        Rule::k_lparen => Some("("),
        Rule::k_rparen => Some(")"),
        Rule::k_lbracket => Some("["),
        Rule::k_rbracket => Some("]"),
        Rule::k_comma => Some(","),
        Rule::k_dots => Some(".."),
        _ => None,
    };
    if let Some(p) = punctuation {
        return format!("`{p}`");
    }
    let s = format!("{rule:?}");
    if let Some(kw) = s.strip_prefix("k_") {
        return format!("`{kw}`");
    }
    match rule {
        Rule::ident | Rule::name => "a name".into(),
        Rule::int => "a number".into(),
        Rule::boolean => "`true` or `false`".into(),
        Rule::string => "a quoted string".into(),
        Rule::literal => "a number, `true` or `false`".into(),
        Rule::expr | Rule::primary | Rule::paren | Rule::call | Rule::indexed | Rule::quantifier | Rule::kind_set => {
            "an expression".into()
        }
        Rule::EOI => "the end of the file".into(),
        Rule::state_decl | Rule::hidden => "`state`".into(),
        Rule::item => "a declaration (game, option, players, pit, track, move, rule, ...)".into(),
        Rule::stmt => "a statement (sow, take, remove, put, if, for, let, require, again, start, end game)".into(),
        Rule::op_or | Rule::op_and => "`and` or `or`".into(),
        Rule::op_eq | Rule::op_ne | Rule::op_le | Rule::op_ge | Rule::op_lt | Rule::op_gt => "a comparison".into(),
        Rule::op_add | Rule::op_sub | Rule::op_mul | Rule::op_div | Rule::op_mod => "an operator".into(),
        Rule::is_kind => "`is`".into(),
        Rule::op_not => "`not`".into(),
        Rule::site_kind => "`pit`, `store` or `reserve`".into(),
        Rule::track_shape => "`cyclic` or `linear`".into(),
        Rule::stuck_action => "`pass`, `end` or `lose`".into(),
        Rule::about_decl => "`family`, `region` or `source`".into(),
        Rule::arrow => "`<->` or `->`".into(),
        Rule::domain => "`players`, a range `a..b`, a set, or `TRACK from SITE`".into(),
        Rule::walk | Rule::walk_while | Rule::backwards => "`TRACK from SITE [backwards] [while CONDITION]`".into(),
        Rule::range | Rule::int_range => "a range `a..b`".into(),
        other => format!("{other:?}").replace('_', " "),
    }
}

/// Folds the many keywords that can start a statement, a declaration or an
/// operator into those words, so that a syntax error lists a few choices.
fn group(name: String) -> String {
    const STATEMENTS: &[&str] = &[
        "`sow`",
        "`take`",
        "`put`",
        "`if`",
        "`for`",
        "`let`",
        "`require`",
        "`again`",
        "`enter`",
        "`swap`",
        "`remove`",
        "`start`",
    ];
    const DECLARATIONS: &[&str] = &[
        "`game`",
        "`extends`",
        "`option`",
        "`variant`",
        "`players`",
        "`pit`, `store` or `reserve`",
        "`relation`",
        "`track`",
        "`layout`",
        "`setup`",
        "`phase`",
        "`move`",
        "`rule`",
        "`avoid`",
        "`when`",
        "`score`",
        "`counters`",
        "`state`",
        "`hidden`",
        "`define`",
        "`group`",
        "`hook`",
        "`partners`",
        "`glyph`",
        "`family`, `region` or `source`",
        "`round`",
        "`board`",
    ];
    const OPERATORS: &[&str] = &["`and` or `or`", "`and`", "`or`", "`is`", "a comparison", "an operator"];
    if STATEMENTS.contains(&name.as_str()) {
        "a statement".into()
    } else if DECLARATIONS.contains(&name.as_str()) {
        "a declaration".into()
    } else if OPERATORS.contains(&name.as_str()) {
        "an operator".into()
    } else {
        name
    }
}

/// Whether the text starts with a word that begins a declaration, or is
/// the end of the file: met inside a block, a `}` is likely missing.
fn starts_declaration(rest: &str) -> bool {
    const WORDS: &[&str] = &[
        "game", "extends", "option", "variant", "players", "pit", "store", "reserve", "relation", "track", "layout",
        "setup", "phase", "move", "rule", "avoid", "end", "when", "score", "counters", "state",
    ];
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_').collect();
    rest.trim().is_empty() || WORDS.contains(&word.as_str())
}

/// Where the last `{` that is still open before `pos` is, outside comments and strings.
fn unclosed_brace(text: &str, pos: usize) -> Option<usize> {
    let mut open = Vec::new();
    for (i, c) in code_chars(&text[..pos.min(text.len())]) {
        match c {
            '{' => open.push(i),
            '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

pub(super) fn syntax_error(e: pest::error::Error<Rule>, text: &str, file: u16) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    // Point at the whole offending word, or one character.
    let rest = &text[pos.min(text.len())..];
    let len = match rest.chars().next() {
        None => 0,
        Some(c) if c.is_alphanumeric() || c == '_' => {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len())
        }
        Some(_) if ["<->", "==", "!=", "<=", ">=", "->", ".."].iter().any(|op| rest.starts_with(op)) => {
            ["<->", "==", "!=", "<=", ">=", "->", ".."]
                .iter()
                .find(|op| rest.starts_with(**op))
                .map_or(1, |op| op.len())
        }
        Some(c) => c.len_utf8(),
    };
    let found = if len == 0 { "the end of the file".to_string() } else { format!("`{}`", &rest[..len]) };
    let (message, label) = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let raw: Vec<String> = positives.iter().map(rule_name).collect();
            // `end` starts a declaration at the top level and a statement in a
            // block; `set` is a statement, or an item of a variant. An
            // ambiguous word joins the group whose other words are expected.
            let ambiguous = ["`end`", "`set`", "`when`"];
            let present = |g: &str| raw.iter().any(|n| !ambiguous.contains(&n.as_str()) && group(n.clone()) == g);
            let (top_level, in_block) = (present("a declaration"), present("a statement"));
            let mut names: Vec<String> = raw
                .into_iter()
                .map(|n| match n.as_str() {
                    "`end`" | "`when`" if top_level => "a declaration".into(),
                    "`end`" | "`set`" if in_block => "a statement".into(),
                    "`end`" | "`set`" | "`when`" => n,
                    _ => group(n),
                })
                .collect();
            names.sort();
            names.dedup();
            let list = match names.len() {
                1 => names[0].clone(),
                _ => format!("{} or {}", names[..names.len() - 1].join(", "), names[names.len() - 1]),
            };
            (format!("syntax error: expected {list}, found {found}"), format!("expected {list}"))
        }
        ErrorVariant::ParsingError { .. } => {
            (format!("syntax error: unexpected {found}"), "unexpected here".to_string())
        }
        ErrorVariant::CustomError { message } if message.contains("call limit") => (
            "this file is too complex to parse (the parser's work limit was reached)".to_string(),
            "the parser gave up here".to_string(),
        ),
        ErrorVariant::CustomError { message } => (format!("syntax error: {message}"), message.clone()),
    };
    let wants_assign = message.contains("expected `=`");
    let mut d = Diagnostic::error(Span::new(file, pos, pos + len), message).label(label);
    if rest.starts_with("//") {
        d = d.help("comments start with `#`");
    } else if rest.starts_with('"') && !rest[1..].split('\n').next().unwrap_or("").contains('"') {
        d = d.help("a string ends with `\"` on the same line");
    } else if rest.starts_with('=') && !rest.starts_with("==") {
        d = d.help("to compare, write `==`");
    } else if rest.starts_with("==") && wants_assign {
        d = d.help("`let`, `set` and options take a single `=`; `==` compares");
    } else if let Some(open) = unclosed_brace(text, pos).filter(|_| starts_declaration(rest)) {
        let (line, col) = crate::diagnostics::line_col(text, open);
        d = d.help(format!("is a `}}` missing? the `{{` at line {line}, column {col} is still open here"));
    }
    d
}
