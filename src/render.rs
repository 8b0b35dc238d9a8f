//! Drawing a position as text: the rule file's `layout` rows as a grid of
//! site names over counts, stores in brackets, and every site the layout
//! leaves out (reserves, say) on a line below.

use crate::engine::game::{Game, SiteKind};
use crate::engine::{Outcome, Position};

pub fn board(g: &Game, pos: &Position) -> String {
    let cell = |s: u16| {
        let site = &g.sites[s as usize];
        let c = pos.counts[s as usize];
        let count = if site.kind == SiteKind::Store {
            format!("[{c}]")
        } else {
            c.to_string()
        };
        (site.name.clone(), count)
    };
    let mut out = String::new();
    let mut shown = vec![false; g.sites.len()];
    let rows: Vec<Vec<Option<u16>>> = match &g.layout {
        Some(l) => l.rows.clone(),
        None => default_rows(g),
    };
    let width = rows
        .iter()
        .flatten()
        .flatten()
        .map(|&s| {
            let (a, b) = cell(s);
            a.len().max(b.len())
        })
        .max()
        .unwrap_or(1)
        + 1;
    for row in &rows {
        let mut names = String::new();
        let mut counts = String::new();
        for c in row {
            let (a, b) = match c {
                Some(s) => {
                    shown[*s as usize] = true;
                    cell(*s)
                }
                None => (String::new(), String::new()),
            };
            names.push_str(&format!("{a:>width$}"));
            counts.push_str(&format!("{b:>width$}"));
        }
        out.push_str(names.trim_end());
        out.push('\n');
        out.push_str(counts.trim_end());
        out.push('\n');
    }
    let rest: Vec<String> = (0..g.sites.len())
        .filter(|&s| !shown[s])
        .map(|s| {
            let (a, b) = cell(s as u16);
            format!("{a} {b}")
        })
        .collect();
    if !rest.is_empty() {
        out.push_str(&rest.join("   "));
        out.push('\n');
    }
    out
}

/// Without a layout: one row per owner (unowned sites last).
fn default_rows(g: &Game) -> Vec<Vec<Option<u16>>> {
    let mut rows = Vec::new();
    for owner in (0..g.players.len()).map(|p| Some(p as u8)).chain([None]) {
        let row: Vec<Option<u16>> = (0..g.sites.len())
            .filter(|&s| g.sites[s].owner == owner && g.sites[s].kind != SiteKind::Reserve)
            .map(|s| Some(s as u16))
            .collect();
        if !row.is_empty() {
            rows.push(row);
        }
    }
    rows
}

/// "south wins, 25 to 23", "a draw, 24 to 24", "p1 and p3 share the win ...".
pub fn outcome(g: &Game, o: &Outcome) -> String {
    let scores = o
        .scores
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" to ");
    let names: Vec<&str> = o
        .winners
        .iter()
        .map(|&p| g.players[p as usize].as_str())
        .collect();
    let who = if o.winners.len() == g.players.len() && g.players.len() > 1 {
        "a draw".to_string()
    } else if names.len() == 1 {
        format!("{} wins", names[0])
    } else {
        format!("{} share the win", join_and(&names))
    };
    let board = g
        .players
        .iter()
        .zip(&o.scores)
        .map(|(p, s)| format!("{p} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = scores;
    format!("game over: {who} ({board})")
}

pub fn join_and(names: &[&str]) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].to_string(),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}
