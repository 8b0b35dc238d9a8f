//! Drawing a position as text: the rule file's `layout` rows as a grid of
//! site names over counts, stores in brackets, and every site the layout
//! leaves out (reserves, say) on a line below. Coloured counters are written
//! as each colour's letter and count (`r2b1`), readable without colour; with
//! `color`, letters are also painted in their colour where the player's name
//! is a colour's.

use crate::engine::game::{Cell, Game, SiteKind};
use crate::engine::{Engine, Outcome, Position};

/// A site's counters as text: a number, or per colour `r2b1` (`0` if empty).
pub fn counts_text(g: &Game, pos: &Position, s: u16, color: bool) -> String {
    if !color {
        return crate::position_text::site_text(g, pos, s);
    }
    let k = g.colours;
    if k == 1 {
        return pos.counts[s as usize].to_string();
    }
    let mut t = String::new();
    for c in 0..k {
        let n = pos.counts[s as usize * k + c];
        if n > 0 {
            let piece = format!("{}{n}", g.colour_letters[c]);
            match ansi(&g.players[c]).filter(|_| color) {
                Some(code) => t.push_str(&format!("\x1b[{code}m{piece}\x1b[0m")),
                None => t.push_str(&piece),
            }
        }
    }
    if t.is_empty() { "0".into() } else { t }
}

/// The terminal colour code for a colour's name, if it is one.
fn ansi(name: &str) -> Option<&'static str> {
    Some(match name {
        "red" => "31",
        "green" => "32",
        "yellow" => "33",
        "blue" => "34",
        "purple" | "magenta" => "35",
        "cyan" => "36",
        "white" => "1",
        "black" => "90",
        "orange" => "38;5;208",
        _ => return None,
    })
}

/// Width on screen, not counting colour codes.
fn visible(s: &str) -> usize {
    let mut n = 0;
    let mut in_code = false;
    for ch in s.chars() {
        match ch {
            '\x1b' => in_code = true,
            'm' if in_code => in_code = false,
            _ if in_code => {}
            _ => n += 1,
        }
    }
    n
}

fn pad(s: &str, width: usize) -> String {
    format!("{}{s}", " ".repeat(width.saturating_sub(visible(s))))
}

pub fn board(e: &mut Engine, color: bool) -> String {
    let g = e.game.clone();
    let pos = e.position().clone();
    let glyphs = !g.glyphs.is_empty();
    let mut cell = |s: u16| {
        let site = &g.sites[s as usize];
        let c = counts_text(&g, &pos, s, color);
        let count = match e.glyph(s) {
            Some(glyph) => format!("{glyph} {c}"),
            None if site.kind == SiteKind::Store && !glyphs => format!("[{c}]"),
            None => c,
        };
        (site.name.clone(), count)
    };
    let mut out = String::new();
    let mut shown = vec![false; g.sites.len()];
    let rows: Vec<Vec<Cell>> = match &g.layout {
        Some(l) => l.rows.clone(),
        None => default_rows(&g),
    };
    // Every cell's text, to size the columns.
    let texts: Vec<Vec<(String, String)>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    Cell::Site(s) => cell(*s),
                    Cell::Label(t) => (String::new(), t.clone()),
                    Cell::Blank => (String::new(), String::new()),
                })
                .collect()
        })
        .collect();
    let width = texts.iter().flatten().map(|(a, b)| visible(a).max(visible(b))).max().unwrap_or(1) + 1;
    for (row, text) in rows.iter().zip(&texts) {
        let has_sites = row.iter().any(|c| matches!(c, Cell::Site(_)));
        let mut names = String::new();
        let mut counts = String::new();
        for (c, (a, b)) in row.iter().zip(text) {
            if let Cell::Site(s) = c {
                shown[*s as usize] = true;
            }
            names.push_str(&pad(a, width));
            counts.push_str(&pad(b, width));
        }
        // Drawn pieces speak for themselves: one line a row. Plain counts
        // have the sites' names above them.
        if has_sites && !glyphs {
            out.push_str(names.trim_end());
            out.push('\n');
        }
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
fn default_rows(g: &Game) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    for owner in (0..g.players.len()).map(|p| Some(p as u8)).chain([None]) {
        let row: Vec<Cell> = (0..g.sites.len())
            .filter(|&s| g.sites[s].owner == owner && g.sites[s].kind != SiteKind::Reserve)
            .map(|s| Cell::Site(s as u16))
            .collect();
        if !row.is_empty() {
            rows.push(row);
        }
    }
    rows
}

/// "south wins (south 25, north 23)", "a draw (...)", "red and blue share the win (...)";
/// "solo loses (solo 1)" when nobody wins (a game of one player, lost).
pub fn outcome(g: &Game, o: &Outcome) -> String {
    let names: Vec<&str> = o.winners.iter().map(|&p| g.players[p as usize].as_str()).collect();
    let who = if names.is_empty() {
        let all: Vec<&str> = g.players.iter().map(|p| p.as_str()).collect();
        format!("{} {}", join_and(&all), if all.len() == 1 { "loses" } else { "lose" })
    } else if o.winners.len() == g.players.len() && g.players.len() > 1 {
        "a draw".to_string()
    } else if names.len() == 1 {
        format!("{} wins", names[0])
    } else {
        format!("{} share the win", join_and(&names))
    };
    let board = g.players.iter().zip(&o.scores).map(|(p, s)| format!("{p} {s}")).collect::<Vec<_>>().join(", ");
    format!("game over: {who} ({board})")
}

pub fn join_and(names: &[&str]) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].to_string(),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}
