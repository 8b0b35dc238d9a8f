//! `mancala show`: what a rule file compiles to.

use crate::engine::game::{Game, value_text};

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
