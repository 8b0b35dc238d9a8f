//! What players read and type: move names (a declaration's template filled
//! in, an order of colours as letters), finding a legal move by its name,
//! summaries of large move sets, and the glyph a site is drawn with.

use super::game::{Domain, Game, MoveDef, TemplatePart};
use super::movegen::{groups, legal_moves, trial};
use super::play::bind_choices;
use super::program::Program;
use super::vm::{Fault, Frame, Res, Vm};
use super::{Move, arrange, movegen};

/// The name a player types for a move.
pub(crate) fn move_name(p: &Program, vm: &mut Vm, mv: Move) -> String {
    render_name(p, vm, mv, true)
}

/// A move's name without its order of colours.
fn group_name(p: &Program, vm: &mut Vm, mv: Move) -> String {
    render_name(p, vm, mv, false)
}

fn has_order(g: &Game, mv: Move) -> bool {
    g.moves.get(mv.def as usize).is_some_and(|d| d.params.iter().any(|p| matches!(p.domain, Domain::Arrangements(_))))
}

/// The counts of colours an arrangement choice of `mv` orders.
fn order_counts(p: &Program, vm: &mut Vm, mv: Move) -> Res<(usize, [u32; arrange::MAX_COLOURS])> {
    let def = &p.moves[mv.def as usize];
    let Some(site) = def.choices.iter().find_map(|c| match &c.domain {
        super::program::ChoiceDomain::Arrangements(s) => Some(s),
        _ => None,
    }) else {
        return Ok((0, [0; arrange::MAX_COLOURS]));
    };
    bind_choices(def, def.choices.len(), &mv, vm);
    let saved = vm.f;
    vm.f = Frame::new(vm.pos.turn.to_move);
    let s = site.site(p, vm);
    vm.f = saved;
    Ok(movegen::colours_of(vm, s?))
}

/// The text before and after the order of colours in a move's name.
fn order_frame(g: &Game, mv: Move) -> Option<(String, String)> {
    let def = g.moves.get(mv.def as usize)?;
    let at = def.template.iter().position(
        |t| matches!(t, TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_))),
    )?;
    let render = |parts: &[TemplatePart]| {
        let mut s = String::new();
        for part in parts {
            match part {
                TemplatePart::Text(t) => s.push_str(t),
                TemplatePart::Param(i) => s.push_str(&param_text(g, def, *i, mv.args[*i])),
            }
        }
        s
    };
    Some((render(&def.template[..at]), render(&def.template[at + 1..])))
}

fn render_name(p: &Program, vm: &mut Vm, mv: Move, with_order: bool) -> String {
    if mv.is_pass() {
        return "pass".into();
    }
    let g = &p.game;
    let Some(def) = g.moves.get(mv.def as usize) else {
        return "?".into();
    };
    let mut s = String::new();
    for part in &def.template {
        match part {
            TemplatePart::Text(t) => s.push_str(t),
            TemplatePart::Param(i) if matches!(def.params[*i].domain, Domain::Arrangements(_)) => {
                if with_order {
                    s.push_str(&order_text(p, vm, mv));
                }
            }
            TemplatePart::Param(i) => s.push_str(&param_text(g, def, *i, mv.args[*i])),
        }
    }
    if !with_order {
        return s.trim_end().to_string();
    }
    s
}

/// A move's order of colours as letters, e.g. `rrbg`.
fn order_text(p: &Program, vm: &mut Vm, mv: Move) -> String {
    let Ok((k, counts)) = order_counts(p, vm, mv) else {
        return "?".into();
    };
    let Some(mut u) = arrange::Unrank::new(&counts[..k], mv.order) else {
        return "?".into();
    };
    std::iter::from_fn(|| u.next_colour()).map(|c| p.game.colour_letters.get(c).copied().unwrap_or('?')).collect()
}

fn param_text(g: &Game, def: &MoveDef, i: usize, a: i32) -> String {
    let Some(param) = def.params.get(i) else { return "?".into() };
    match param.domain {
        Domain::Set(_) => g.sites.get(a as usize).map_or("?".into(), |s| s.name.clone()),
        Domain::Players => g.players.get(a as usize).cloned().unwrap_or_else(|| "?".into()),
        Domain::Range(..) => a.to_string(),
        Domain::Tracks => {
            g.tracks.get(a as usize).map_or("?".into(), |t| t.label.clone().unwrap_or_else(|| t.name.clone()))
        }
        Domain::Arrangements(_) | Domain::Walk { .. } => "?".into(),
    }
}

/// A summary of the legal moves: each group's name (the order of colours
/// left out) and its number of orders.
pub(crate) fn move_summary(p: &Program, vm: &mut Vm) -> Res<Vec<(String, u128)>> {
    if !p.avoids.is_empty() {
        let mut buf = Vec::new();
        legal_moves(p, vm, &mut buf)?;
        return Ok(buf.iter().map(|m| (move_name(p, vm, *m), 1)).collect());
    }
    let mut out = Vec::new();
    groups(p, vm, &mut out)?;
    Ok(out.iter().map(|&(m, n)| (group_name(p, vm, m), n)).collect())
}

/// The legal move that has this name; `None` if none has. A move with an
/// order of colours matches its name with the order written out, or
/// without it, meaning the default order (seat order).
pub(crate) fn find_move(p: &Program, vm: &mut Vm, name: &str) -> Res<Option<Move>> {
    if !p.avoids.is_empty() {
        let mut buf = Vec::new();
        legal_moves(p, vm, &mut buf)?;
        let found: Vec<Move> = buf.iter().copied().filter(|m| move_name(p, vm, *m) == name).collect();
        if let [a, b, ..] = found[..]
            && a.def != b.def
        {
            return Err(Fault::error(format!(
                "two legal moves are named `{name}`, of moves `{}` and `{}`: put a word in one of their names that tells them apart",
                p.game.moves[a.def as usize].name, p.game.moves[b.def as usize].name
            )));
        }
        return Ok(found.first().copied());
    }
    let mut all = Vec::new();
    groups(p, vm, &mut all)?;
    // Two legal moves of different declarations with the same name: which
    // is meant cannot be told.
    let mut named: Option<Move> = None;
    for &(mv, n) in &all {
        if n == 1 && !has_order(&p.game, mv) && move_name(p, vm, mv) == name {
            if let Some(first) = named
                && first.def != mv.def
            {
                return Err(Fault::error(format!(
                    "two legal moves are named `{name}`, of moves `{}` and `{}`: put a word in one of their names that tells them apart",
                    p.game.moves[first.def as usize].name, p.game.moves[mv.def as usize].name
                )));
            }
            named = Some(mv);
        }
    }
    for (mv, n) in all {
        if n == 1 && !has_order(&p.game, mv) {
            if move_name(p, vm, mv) == name {
                return Ok(Some(mv));
            }
            continue;
        }
        if group_name(p, vm, mv) == name {
            return Ok(Some(mv));
        }
        let Some((prefix, suffix)) = order_frame(&p.game, mv) else {
            continue;
        };
        let Some(middle) = name.strip_prefix(prefix.as_str()).and_then(|r| r.strip_suffix(suffix.as_str())) else {
            continue;
        };
        let letters = &p.game.colour_letters;
        let seq: Option<Vec<usize>> = middle.chars().map(|ch| letters.iter().position(|&l| l == ch)).collect();
        let Some(seq) = seq else { continue };
        let counts = order_counts(p, vm, mv)?;
        if let Some(r) = arrange::rank(&counts.1[..counts.0], seq) {
            let m = Move { order: r, ..mv };
            // A group of one tried order: only that order was found legal.
            let def = &p.moves[mv.def as usize];
            if def.needs_trial && !(n == 1 && mv.order == r) && !trial(p, vm, m, vm.pos.turn.to_move)? {
                return Ok(None);
            }
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// The glyph a site is drawn with: the first `glyph` whose condition holds.
pub(crate) fn glyph(p: &Program, vm: &mut Vm, s: u16) -> Option<String> {
    vm.f = Frame::new(vm.pos.turn.to_move);
    for ((text, _), cond) in p.game.glyphs.iter().zip(&p.glyphs) {
        vm.locals[p.game.glyph_slot as usize] = s as i64;
        if cond.get(p, vm).map(|v| v != 0).unwrap_or(false) {
            return Some(text.clone());
        }
    }
    None
}
