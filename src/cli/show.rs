//! `mancala check` (every mistake of rule files) and `mancala show` (what a
//! rule file compiles to), as text or JSON.

use super::{Choice, exit};
use crate::compile::{check_file, compile_file};
use crate::diagnostics::Failure;
use crate::engine::game::{Game, value_text};

/// Checks each file: with its defaults and every variant, or the variants and
/// settings chosen. Exit code 1 if any has a mistake.
pub(super) fn check(files: &[String], choice: &Choice, json: bool, color: bool) -> i32 {
    let chosen = !choice.variants.is_empty() || !choice.settings.is_empty();
    let mut code = exit::OK;
    let mut results = Vec::new();
    // A folder stands for its rule files.
    let files: Vec<String> = files
        .iter()
        .flat_map(|f| match std::fs::read_dir(f) {
            Ok(entries) => {
                let mut inner: Vec<String> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "mancala"))
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                inner.sort();
                inner
            }
            Err(_) => vec![f.clone()],
        })
        .collect();
    for f in &files {
        let r = if chosen { compile_file(f, &choice.config()) } else { check_file(f) };
        if r.is_err() {
            code = exit::FAILED;
        }
        if json {
            results.push(check_json(f, &r));
            continue;
        }
        match r {
            Ok(g) => {
                let variants = if g.variants.is_empty() {
                    String::new()
                } else {
                    format!(", variants {}", g.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "))
                };
                sayln!("{f}: ok ({}: {} players, {} sites{variants})", g.name, g.players.len(), g.sites.len());
            }
            Err(fail) => {
                note!("{}", fail.render(color));
                let n = fail.diagnostics.len();
                noteln!("{f}: {n} error{}", if n == 1 { "" } else { "s" });
            }
        }
    }
    if json {
        sayln!("{}", serde_json::to_string_pretty(&results).unwrap_or_default());
    }
    code
}

fn check_json(file: &str, r: &Result<Game, Failure>) -> serde_json::Value {
    match r {
        Ok(g) => serde_json::json!({
            "file": file,
            "ok": true,
            "game": g.name,
            "players": g.players,
            "sites": g.sites.len(),
            "variants": g.variants.iter().map(|v| v.name.clone()).collect::<Vec<_>>(),
        }),
        Err(fail) => serde_json::json!({ "file": file, "ok": false, "errors": fail.to_json() }),
    }
}

/// The board in a few words: rows of pits as the layout draws them
/// (`2 x 6`), then stores and reserves.
pub(crate) fn board_words(g: &Game) -> String {
    use crate::engine::game::{Cell, SiteKind};
    let pits = g.sites.iter().filter(|s| s.kind == SiteKind::Pit).count();
    let rows: Vec<usize> = g
        .layout
        .iter()
        .flat_map(|l| &l.rows)
        .map(|r| r.iter().filter(|c| matches!(c, Cell::Site(s) if g.sites[*s as usize].kind == SiteKind::Pit)).count())
        .filter(|&n| n > 0)
        .collect();
    let mut out = match rows.first() {
        Some(&n) if rows.iter().all(|&r| r == n) && rows.len() * n == pits => format!("{} x {n}", rows.len()),
        _ => format!("{pits} pits"),
    };
    for (kind, word) in [(SiteKind::Store, "store"), (SiteKind::Reserve, "reserve")] {
        let n = g.sites.iter().filter(|s| s.kind == kind).count();
        if n > 0 {
            out.push_str(&format!(", {n} {word}{}", if n == 1 { "" } else { "s" }));
        }
    }
    out
}

/// `mancala list DIR`: every game of a folder, one line each. Files that
/// build on another (`extends`) are variants, not games, and are left out.
pub(super) fn list(dir: &str, json: bool, color: bool) -> i32 {
    let mut files: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "mancala"))
            .collect(),
        Err(e) => {
            noteln!("{dir}: {e}");
            return exit::FAILED;
        }
    };
    files.sort();
    let mut code = exit::OK;
    let mut rows = Vec::new();
    for f in &files {
        let path = f.to_string_lossy().into_owned();
        let derived = std::fs::read_to_string(f)
            .map(|t| t.lines().any(|l| l.trim_start().starts_with("extends ")))
            .unwrap_or(false);
        if derived {
            continue;
        }
        match compile_file(&path, &Default::default()) {
            Ok(g) => rows.push((path, g)),
            Err(fail) => {
                note!("{}", fail.render(color));
                noteln!("{path}: does not compile");
                code = exit::FAILED;
            }
        }
    }
    rows.sort_by_key(|r| r.1.name.to_lowercase());
    if json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(path, g)| {
                serde_json::json!({
                    "file": path,
                    "game": g.name,
                    "family": g.about.family,
                    "region": g.about.region,
                    "board": board_words(g),
                    "players": g.players.len(),
                    "variants": g.variants.iter().map(|v| v.name.clone()).collect::<Vec<_>>(),
                    "sources": g.about.sources,
                })
            })
            .collect();
        sayln!("{}", serde_json::to_string_pretty(&list).unwrap_or_default());
        return code;
    }
    let table: Vec<[String; 6]> = rows
        .iter()
        .map(|(_, g)| {
            [
                g.name.clone(),
                g.about.region.clone().unwrap_or_default(),
                board_words(g),
                g.players.len().to_string(),
                g.variants.len().to_string(),
                g.about.sources.first().cloned().unwrap_or_default(),
            ]
        })
        .collect();
    let head = ["game", "region", "board", "players", "variants", "source"];
    let mut width = head.map(|h| h.chars().count());
    for r in &table {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  ", w = width[i]));
            }
        }
        s.trim_end().to_string()
    };
    sayln!("{}", line(&head.map(String::from)));
    for r in &table {
        sayln!("{}", line(r));
    }
    sayln!("{} games", table.len());
    code
}

/// Prints what a rule file compiles to.
pub(super) fn show(file: &str, choice: &Choice, json: bool, color: bool) -> i32 {
    match compile_file(file, &choice.config()) {
        Ok(g) if json => {
            sayln!("{}", serde_json::to_string_pretty(&describe_json(&g)).unwrap_or_default());
            exit::OK
        }
        Ok(g) => {
            say!("{}", describe(&g));
            exit::OK
        }
        Err(fail) => {
            note!("{}", fail.render(color));
            exit::FAILED
        }
    }
}

/// What a rule file compiles to, as JSON: the same facts as [`describe`].
pub fn describe_json(g: &Game) -> serde_json::Value {
    use serde_json::json;
    let name = |i: u16| g.sites[i as usize].name.clone();
    let value = |v| match v {
        crate::engine::game::Value::Int(i) => json!(i),
        crate::engine::game::Value::Bool(b) => json!(b),
        other => json!(value_text(other)),
    };
    json!({
        "game": g.name,
        "file": g.path,
        "variants_applied": g.variants_applied,
        "players": g.players,
        "options": g.options.iter().map(|o| json!({
            "name": o.name,
            "value": value(o.value),
            "default": value(o.default),
            "range": o.range.map(|(a, b)| [a, b]),
            "doc": o.doc,
        })).collect::<Vec<_>>(),
        "variants": g.variants.iter().map(|v| json!({ "name": v.name, "doc": v.doc })).collect::<Vec<_>>(),
        "sites": g.sites.iter().map(|s| json!({
            "name": s.name,
            "kind": s.kind.word(),
            "owner": s.owner.map(|o| g.players[o as usize].clone()),
        })).collect::<Vec<_>>(),
        "tracks": g.tracks.iter().map(|t| json!({
            "name": t.name,
            "cyclic": t.cyclic,
            "sites": t.sites.iter().map(|&i| name(i)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "relations": g.relations.iter().map(|(r, map)| {
            let pairs: serde_json::Map<String, serde_json::Value> = map.iter().enumerate()
                .filter_map(|(i, t)| t.map(|t| (name(i as u16), json!(name(t))))).collect();
            (r.clone(), serde_json::Value::Object(pairs))
        }).collect::<serde_json::Map<_, _>>(),
        "phases": g.phases.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "moves": g.moves.iter().map(|m| json!({
            "name": m.name,
            "phase": g.phases[m.phase as usize].name,
            "choosing": m.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "avoid": g.avoids.iter().map(|a| a.0.clone()).collect::<Vec<_>>(),
        "ends": g.ends.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
        "when_stuck": if g.stuck == crate::engine::game::StuckAction::Pass { "pass" } else { "end" },
    })
}

/// What a rule file compiles to, for `mancala show`.
pub fn describe(g: &Game) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let name = |i: u16| g.sites[i as usize].name.clone();
    let _ = writeln!(s, "game: {} ({})", g.name, g.path);
    if !g.variants_applied.is_empty() {
        let _ = writeln!(s, "variant: {}", g.variants_applied.join(" + "));
    }
    let _ = writeln!(s, "players, in turn order: {}", g.players.join(", "));
    if !g.options.is_empty() {
        let _ = writeln!(s, "options:");
        for o in &g.options {
            let range = o.range.map(|(a, b)| format!(" in {a}..{b}")).unwrap_or_default();
            let changed =
                if o.value != o.default { format!(" (default {})", value_text(o.default)) } else { String::new() };
            let _ = writeln!(s, "  {} = {}{range}{changed}  {}", o.name, value_text(o.value), o.doc);
        }
    }
    if !g.variants.is_empty() {
        let _ = writeln!(s, "variants: {}", g.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(s, "sites ({}):", g.sites.len());
    for site in &g.sites {
        let owner = site.owner.map(|o| format!(" of {}", g.players[o as usize])).unwrap_or_default();
        let _ = writeln!(s, "  {:<10} {}{owner}", site.name, site.kind.word());
    }
    let _ = writeln!(s, "tracks:");
    for t in &g.tracks {
        let _ = writeln!(
            s,
            "  {} ({}): {}",
            t.name,
            if t.cyclic { "cyclic" } else { "linear" },
            t.sites.iter().map(|&i| name(i)).collect::<Vec<_>>().join(" ")
        );
    }
    for (rname, map) in &g.relations {
        let pairs: Vec<String> =
            map.iter().enumerate().filter_map(|(i, t)| t.map(|t| format!("{}->{}", name(i as u16), name(t)))).collect();
        let _ = writeln!(s, "relation {rname}: {}", pairs.join(" "));
    }
    let _ = writeln!(s, "phases: {}", g.phases.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "));
    let _ = writeln!(s, "moves:");
    for m in &g.moves {
        let params: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let phase =
            if g.phases.len() > 1 { format!(" in phase {}", g.phases[m.phase as usize].name) } else { String::new() };
        let choosing = if params.is_empty() { String::new() } else { format!(", choosing {}", params.join(", ")) };
        let _ = writeln!(s, "  {}{phase}{choosing}: {} statements with its rules", m.name, m.body.len());
    }
    if !g.avoids.is_empty() {
        let _ = writeln!(s, "avoid: {}", g.avoids.iter().map(|a| a.0.as_str()).collect::<Vec<_>>().join(", "));
    }
    if !g.ends.is_empty() {
        let _ =
            writeln!(s, "end conditions: {}", g.ends.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(
        s,
        "when stuck: {}",
        if g.stuck == crate::engine::game::StuckAction::Pass { "pass" } else { "the game ends" }
    );
    s
}
