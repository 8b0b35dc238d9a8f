//! Options with their defaults and ranges, named variants, and the values the
//! user sets; and the evaluation of the fixed expressions in declarations.

use super::{Compiler, Config, Global};
use crate::diagnostics::{Diagnostic, Span, did_you_mean};
use crate::engine::game::{OptionInfo, Value, VariantInfo};
use crate::syntax::ast::*;

impl Compiler {
    pub(crate) fn options(&mut self, items: &[Item], config: &Config) {
        let mut decls: Vec<&OptionDecl> = Vec::new();
        for item in items {
            if let Item::Option(o) = item {
                let ok = match (o.default, o.range) {
                    (Literal::Int(_), None) => {
                        self.error(
                            Diagnostic::error(o.span, format!("option `{}` needs a range", o.name.name))
                                .label("a number option without `in lo..hi`")
                                .help(format!(
                                    "give the values it may take, e.g. `option {} = {} in 1..10`",
                                    o.name.name,
                                    lit_text(o.default)
                                )),
                        );
                        false
                    }
                    (Literal::Bool(_), Some((_, _, rs))) => {
                        self.error(
                            Diagnostic::error(
                                rs,
                                format!("option `{}` is true or false; it takes no range", o.name.name),
                            )
                            .label("remove this range"),
                        );
                        false
                    }
                    (Literal::Int(v), Some((lo, hi, rs))) => {
                        if lo > hi {
                            self.error(
                                Diagnostic::error(
                                    rs,
                                    format!("the range {lo}..{hi} of option `{}` is empty", o.name.name),
                                )
                                .label("empty range")
                                .help(format!("write `{hi}..{lo}`")),
                            );
                            false
                        } else if self.diags.iter().any(|d| d.span == Some(o.default_span)) {
                            // Already reported (a number too large to read).
                            false
                        } else if v < lo || v > hi {
                            self.error(
                                Diagnostic::error(
                                    o.default_span,
                                    format!(
                                        "the default {v} of option `{}` is outside its range {lo}..{hi}",
                                        o.name.name
                                    ),
                                )
                                .label("out of range")
                                .note(rs, "allowed range"),
                            );
                            false
                        } else {
                            true
                        }
                    }
                    (Literal::Bool(_), None) => true,
                };
                let value = lit_value(o.default);
                // A declaration with a mistake still declares the option, so
                // that its uses are not reported as unknown too.
                if self.declare(&o.name, Global::Option(value)) {
                    if !ok {
                        self.broken_options.push(o.name.name.clone());
                    }
                    decls.push(o);
                }
            }
        }
        // Variants are declared before they are applied, so `use` may name a later one.
        let variants: Vec<&VariantDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Variant(v) => Some(v),
                _ => None,
            })
            .collect();
        let mut declared_variants = Vec::new();
        for v in &variants {
            if self.declare(&v.name, Global::Variant) {
                declared_variants.push(*v);
                self.game.variants.push(VariantInfo {
                    name: v.name.name.clone(),
                    doc: v.doc.as_ref().map(|d| d.value.clone()).unwrap_or_default(),
                });
            }
        }
        // Every variant is checked, chosen or not.
        for v in &declared_variants {
            let mut seen = Vec::new();
            self.variant_settings(v, &declared_variants, &decls, &mut seen, &mut Vec::new());
        }
        let mut values: Vec<(String, Value)> =
            decls.iter().map(|o| (o.name.name.clone(), lit_value(o.default))).collect();
        for name in &config.variants {
            match declared_variants.iter().find(|v| &v.name.name == name) {
                Some(v) => {
                    let mut out = Vec::new();
                    self.variant_settings(v, &declared_variants, &decls, &mut Vec::new(), &mut out);
                    for (k, val) in out {
                        if let Some(slot) = values.iter_mut().find(|(n, _)| *n == k) {
                            slot.1 = val;
                        }
                    }
                }
                None => {
                    let names: Vec<&str> = declared_variants.iter().map(|v| v.name.name.as_str()).collect();
                    let help = did_you_mean(name, names.iter().copied()).or_else(|| {
                        Some(if names.is_empty() {
                            "this rule file declares no variants".to_string()
                        } else {
                            format!("its variants: {}", names.join(", "))
                        })
                    });
                    self.error(Diagnostic::global(format!("unknown variant `{name}`")).maybe_help(help));
                }
            }
        }
        for (name, text) in &config.settings {
            let Some(decl) = decls.iter().find(|o| &o.name.name == name) else {
                let names: Vec<&str> = decls.iter().map(|o| o.name.name.as_str()).collect();
                let help = did_you_mean(name, names.iter().copied()).or_else(|| {
                    Some(if names.is_empty() {
                        "this rule file declares no options".into()
                    } else {
                        format!("its options: {}", names.join(", "))
                    })
                });
                self.error(Diagnostic::global(format!("unknown option `{name}`")).maybe_help(help));
                continue;
            };
            match parse_setting(text, decl) {
                Ok(v) => {
                    if let Some(slot) = values.iter_mut().find(|(n, _)| n == name) {
                        slot.1 = v;
                    }
                }
                Err(msg) => {
                    let span = decl.range.map(|r| r.2).unwrap_or(decl.default_span);
                    self.error(Diagnostic::error(span, format!("--set {name}={text}: {msg}")).label("declared here"));
                }
            }
        }
        for o in &decls {
            let value = values.iter().find(|(n, _)| *n == o.name.name).map(|v| v.1).unwrap_or(Value::None);
            self.globals.insert(o.name.name.clone(), (Global::Option(value), o.name.span));
            self.game.options.push(OptionInfo {
                name: o.name.name.clone(),
                value,
                default: lit_value(o.default),
                range: o.range.map(|(a, b, _)| (a, b)),
                doc: o.doc.as_ref().map(|d| d.value.clone()).unwrap_or_default(),
            });
        }
        let mut first_game: Option<Span> = None;
        let mut seen: [Option<Span>; 2] = [None, None];
        for item in items {
            if let Item::About(key, text) = item {
                let slot = match key {
                    About::Family => Some((0, &mut self.game.about.family)),
                    About::Region => Some((1, &mut self.game.about.region)),
                    About::Source => None,
                };
                match slot {
                    Some((i, field)) => {
                        *field = Some(text.value.clone());
                        if let Some(prev) = seen[i] {
                            let word = if i == 0 { "family" } else { "region" };
                            self.error(
                                Diagnostic::error(text.span, format!("a second `{word}`"))
                                    .label("again")
                                    .note(prev, "first here"),
                            );
                        }
                        seen[i] = Some(text.span);
                    }
                    None => self.game.about.sources.push(text.value.clone()),
                }
            }
            if let Item::Game(s) = item {
                if let Some(prev) = first_game {
                    self.error(
                        Diagnostic::error(s.span, "a second `game` name").label("again").note(prev, "first here"),
                    );
                }
                first_game = Some(s.span);
                self.game.name = s.value.clone();
            }
        }
        if self.game.name.is_empty() {
            // Unnamed: the file's name stands in.
            let stem = std::path::Path::new(&self.game.path).file_stem().map(|s| s.to_string_lossy().into_owned());
            self.game.name = stem.unwrap_or_else(|| "game".into());
        }
    }

    /// The settings a variant makes, `use`d variants first; reports unknown
    /// options, values of the wrong kind or out of range, and `use` cycles.
    fn variant_settings(
        &mut self,
        v: &VariantDecl,
        all: &[&VariantDecl],
        decls: &[&OptionDecl],
        seen: &mut Vec<String>,
        out: &mut Vec<(String, Value)>,
    ) {
        seen.push(v.name.name.clone());
        for item in &v.items {
            match item {
                VariantItem::Use(u) => {
                    if seen.contains(&u.name) {
                        // Report each cycle once: from the first-declared variant on it.
                        let order = |n: &String| all.iter().position(|v| &v.name.name == n).unwrap_or(usize::MAX);
                        if u.name == seen[0] && seen.iter().all(|n| order(n) >= order(&seen[0])) {
                            let chain =
                                seen.iter().chain([&u.name]).map(|n| n.as_str()).collect::<Vec<_>>().join(" -> ");
                            self.error(
                                Diagnostic::error(u.span, format!("variant `{}` uses itself: {chain}", seen[0]))
                                    .label("closes a cycle of `use`")
                                    .help("remove one `use` of the cycle"),
                            );
                        }
                        continue;
                    }
                    match all.iter().find(|x| x.name.name == u.name) {
                        Some(base) => self.variant_settings(base, all, decls, seen, out),
                        None => {
                            let names = all.iter().map(|x| x.name.name.clone()).collect();
                            self.unknown(u, "variant", names);
                        }
                    }
                }
                VariantItem::Set { name, value, value_span } => {
                    let Some(decl) = decls.iter().find(|o| o.name.name == name.name) else {
                        let names = decls.iter().map(|o| o.name.name.clone()).collect();
                        self.unknown(name, "option", names);
                        continue;
                    };
                    // An option whose declaration has a mistake is checked for
                    // the kind of its value only: its range is not to be trusted.
                    let checked = if self.broken_options.contains(&name.name) {
                        match (value, decl.default) {
                            (Literal::Int(_), Literal::Bool(_)) => Err("expected `true` or `false`".to_string()),
                            (Literal::Bool(_), Literal::Int(_)) => Err("expected a number".to_string()),
                            _ => continue,
                        }
                    } else {
                        check_value(*value, decl)
                    };
                    match checked {
                        Ok(val) => out.push((name.name.clone(), val)),
                        Err(msg) => {
                            let mut d = Diagnostic::error(
                                *value_span,
                                format!(
                                    "variant `{}` sets option `{}` to {}: {msg}",
                                    v.name.name,
                                    name.name,
                                    lit_text(*value)
                                ),
                            )
                            .label(msg);
                            if let (Some((_, _, rs)), Literal::Int(_)) = (decl.range, decl.default) {
                                d = d.note(rs, "allowed range");
                            }
                            self.error(d);
                        }
                    }
                }
            }
        }
        seen.pop();
    }

    /// Evaluates an expression that must be known when the game is compiled
    /// (a range bound, an index, an owner), with `env` binding loop variables.
    pub(crate) fn const_eval(&mut self, e: &Expr, env: &[(String, Value)]) -> Option<Value> {
        let r = self.const_eval_inner(e, env);
        if let Err(d) = r {
            self.error(d);
            return None;
        }
        r.ok()
    }

    fn const_eval_inner(&self, e: &Expr, env: &[(String, Value)]) -> Result<Value, Diagnostic> {
        let int = |v: Value, span: Span| match v {
            Value::Int(i) => Ok(i),
            _ => Err(Diagnostic::error(span, "expected a number").label("not a number")),
        };
        Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Name(n) => {
                if let Some((_, v)) = env.iter().rev().find(|(k, _)| *k == n.name) {
                    *v
                } else {
                    match self.globals.get(&n.name) {
                        Some((Global::Option(v), _)) => *v,
                        Some((Global::Player(p), _)) => Value::Player(*p),
                        Some((other, _)) => {
                            return Err(Diagnostic::error(
                                n.span,
                                format!("`{}` is {}, which is not known until play", n.name, other.word()),
                            )
                            .label("must be fixed when the game is compiled")
                            .help("only numbers, options, players and loop variables may be used here"));
                        }
                        None => {
                            let mut names: Vec<String> = env.iter().map(|(k, _)| k.clone()).collect();
                            names.extend(
                                self.globals
                                    .iter()
                                    .filter(|(_, (g, _))| matches!(g, Global::Option(_) | Global::Player(_)))
                                    .map(|(k, _)| k.clone()),
                            );
                            let help = did_you_mean(&n.name, names.iter().map(|s| s.as_str())).or_else(|| {
                                (!self.game.players.is_empty())
                                    .then(|| format!("players: {}", self.game.players.join(", ")))
                            });
                            return Err(Diagnostic::error(n.span, format!("unknown name `{}`", n.name))
                                .label("not an option, player or loop variable")
                                .maybe_help(help));
                        }
                    }
                }
            }
            ExprKind::Unary(UnOp::Neg, x) => {
                Value::Int(int(self.const_eval_inner(x, env)?, x.span)?.checked_neg().ok_or_else(|| too_large(e.span))?)
            }
            ExprKind::Unary(UnOp::Not, x) => match self.const_eval_inner(x, env)? {
                Value::Bool(b) => Value::Bool(!b),
                _ => {
                    return Err(Diagnostic::error(x.span, "`not` needs a condition").label("not true or false"));
                }
            },
            ExprKind::Binary(op, a, b) => {
                let (va, vb) = (self.const_eval_inner(a, env)?, self.const_eval_inner(b, env)?);
                match op {
                    BinOp::Eq => Value::Bool(va == vb),
                    BinOp::Ne => Value::Bool(va != vb),
                    BinOp::And | BinOp::Or => match (va, vb) {
                        (Value::Bool(x), Value::Bool(y)) => {
                            Value::Bool(if *op == BinOp::And { x && y } else { x || y })
                        }
                        _ => {
                            return Err(Diagnostic::error(
                                e.span,
                                format!("`{}` needs conditions on both sides", op.symbol()),
                            )
                            .label("not true or false"));
                        }
                    },
                    _ => {
                        let (x, y) = (int(va, a.span)?, int(vb, b.span)?);
                        match op {
                            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(|| too_large(e.span))?),
                            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(|| too_large(e.span))?),
                            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(|| too_large(e.span))?),
                            BinOp::Div | BinOp::Mod if y == 0 => {
                                return Err(Diagnostic::error(b.span, "division by zero").label("is 0 here"));
                            }
                            BinOp::Div => Value::Int(x.checked_div_euclid(y).ok_or_else(|| too_large(e.span))?),
                            BinOp::Mod => Value::Int(x.checked_rem_euclid(y).ok_or_else(|| too_large(e.span))?),
                            BinOp::Lt => Value::Bool(x < y),
                            BinOp::Le => Value::Bool(x <= y),
                            BinOp::Gt => Value::Bool(x > y),
                            _ => Value::Bool(x >= y),
                        }
                    }
                }
            }
            ExprKind::Call(f, args) if (f.name == "min" || f.name == "max") && args.len() == 2 => {
                let x = int(self.const_eval_inner(&args[0], env)?, args[0].span)?;
                let y = int(self.const_eval_inner(&args[1], env)?, args[1].span)?;
                Value::Int(if f.name == "min" { x.min(y) } else { x.max(y) })
            }
            _ => {
                return Err(Diagnostic::error(e.span, "this must be fixed when the game is compiled")
                    .label("depends on the position")
                    .help(
                        "only numbers, options, players, loop variables, arithmetic, `min` and `max` may be used here",
                    ));
            }
        })
    }

    /// An integer range whose bounds are fixed at compile time.
    pub(crate) fn const_range(&mut self, a: &Expr, b: &Expr, env: &[(String, Value)]) -> Option<(i64, i64)> {
        let lo = self.const_eval(a, env)?;
        let hi = self.const_eval(b, env)?;
        match (lo, hi) {
            (Value::Int(x), Value::Int(y)) => Some((x, y)),
            _ => {
                self.error(
                    Diagnostic::error(a.span.to(b.span), "a range needs numbers at both ends")
                        .label("not a number range"),
                );
                None
            }
        }
    }
}

fn lit_value(l: Literal) -> Value {
    match l {
        Literal::Int(i) => Value::Int(i),
        Literal::Bool(b) => Value::Bool(b),
    }
}

fn lit_text(l: Literal) -> String {
    match l {
        Literal::Int(i) => i.to_string(),
        Literal::Bool(b) => b.to_string(),
    }
}

fn check_value(v: Literal, decl: &OptionDecl) -> Result<Value, String> {
    match (v, decl.default, decl.range) {
        (Literal::Int(i), Literal::Int(_), Some((lo, hi, _))) => {
            if i < lo || i > hi {
                Err(format!("must be in {lo}..{hi}"))
            } else {
                Ok(Value::Int(i))
            }
        }
        (Literal::Int(i), Literal::Int(_), None) => Ok(Value::Int(i)),
        (Literal::Bool(b), Literal::Bool(_), _) => Ok(Value::Bool(b)),
        (_, Literal::Int(_), _) => Err("expected a number".into()),
        (_, Literal::Bool(_), _) => Err("expected `true` or `false`".into()),
    }
}

/// A condition as typed on the command line or in the REPL's `set`:
/// `true`/`false`, `1`/`0`, `yes`/`no` or `t`/`f`.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "t" | "1" | "yes" => Some(true),
        "false" | "f" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// An option's value from `--set NAME=VALUE`, read as the kind of value the
/// option holds.
fn parse_setting(text: &str, decl: &OptionDecl) -> Result<Value, String> {
    let t = text.trim();
    let lit = match decl.default {
        Literal::Bool(_) => {
            Literal::Bool(parse_bool(t).ok_or_else(|| format!("`{t}` is not true or false (nor 1/0, yes/no)"))?)
        }
        Literal::Int(_) => Literal::Int(t.parse().map_err(|_| format!("`{t}` is not a number"))?),
    };
    check_value(lit, decl)
}

fn too_large(span: Span) -> Diagnostic {
    Diagnostic::error(span, "this number is too large").label("out of range").help("numbers in rules stay below 2^63")
}
