//! A position as text, and back: the assignments of the REPL's `set`
//! (`s=4,4,4 n3=0 turn=north phase=play marked(A1L)=true`), parsed onto a
//! position and printed from one so that printing and parsing give back the
//! same position (hidden state left out). It knows the engine's types only,
//! so the REPL, the CLI's `--position` and `--goal`, and tests share it.

use crate::diagnostics::did_you_mean;
use crate::engine::Position;
use crate::engine::game::{Game, StateVar, Type, Value};

/// The player named `value`.
fn player(g: &Game, value: &str) -> Result<crate::engine::game::PlayerId, String> {
    g.player_by_name(value).ok_or_else(|| {
        format!(
            "no player `{value}`{}; players: {}",
            suggest(value, g.players.iter().map(|s| s.as_str())),
            g.players.join(", ")
        )
    })
}

/// Parses assignments onto `pos` (a copy: nothing changes on error); the
/// position it gives is not yet checked against the rules' end conditions.
pub fn parse(g: &Game, mut pos: Position, text: &str) -> Result<Position, String> {
    let mut tokens: Vec<String> = Vec::new();
    // `a = 1 2 3`, `a=1,2,3` and `a=1 2 3` all assign a list.
    for t in text.split_whitespace() {
        let t = t.trim_matches(',');
        if t.is_empty() {
            continue;
        }
        if t == "=" || t.starts_with('=') || (t.chars().all(|c| c.is_ascii_digit() || c == ',') && !tokens.is_empty()) {
            let last = tokens.last_mut().ok_or("`=` needs a name before it")?;
            if !last.ends_with('=') && !t.starts_with('=') && last.contains('=') {
                last.push(',');
            }
            last.push_str(t);
        } else {
            tokens.push(t.to_string());
        }
    }
    if tokens.is_empty() {
        return Err("`set` needs assignments, e.g. `set s1=4 turn=north` (see `help`)".into());
    }
    for t in &tokens {
        if t == "clear" {
            pos.counts.iter_mut().for_each(|c| *c = 0);
            continue;
        }
        let Some((name, value)) = t.split_once('=') else {
            return Err(format!("`{t}` is not an assignment: write NAME=VALUE"));
        };
        let value = value.trim_matches(',');
        match name {
            "turn" => pos.turn.to_move = player(g, value)?,
            "phase" => {
                let i = g.phases.iter().position(|p| p.name == value).ok_or_else(|| {
                    format!(
                        "no phase `{value}`; phases: {}",
                        g.phases.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
                    )
                })?;
                pos.turn.phase = i as u8;
            }
            // A game played in rounds: the rounds finished, and who began this one.
            "rounds" | "starter" if g.rounds.is_empty() => {
                return Err(format!("`{name}` is kept by games played in rounds, and this one is not"));
            }
            "rounds" => {
                pos.turn.round = value
                    .parse()
                    .map_err(|_| format!("`rounds` is how many rounds are finished, 0 to 65535, not `{value}`"))?;
            }
            "starter" => pos.turn.starter = player(g, value)?,
            _ if g.state.iter().any(|v| v.name == name && !v.per_site) => {
                let v = g.state.iter().find(|v| v.name == name).unwrap();
                // `-`: no value, as a position with it unset is printed.
                pos.vars[v.offset] = if value == "-" { Value::None } else { state_value(g, v.ty, value)? };
            }
            // A per-site variable: all its sites in order, `-` for no value.
            _ if g.state.iter().any(|v| v.name == name && v.per_site) => {
                let v = g.state.iter().find(|v| v.name == name).unwrap();
                let sites: Vec<usize> = state_sites(g, v).collect();
                let values: Vec<&str> = value.split(',').collect();
                if values.len() != sites.len() {
                    return Err(format!(
                        "`{name}` has a value for each of {} sites, but {} were given",
                        sites.len(),
                        values.len()
                    ));
                }
                for (s, text) in sites.into_iter().zip(values) {
                    pos.vars[v.offset + s] = if text == "-" { Value::None } else { state_value(g, v.ty, text)? };
                }
            }
            // One site of a per-site variable: `upright(A1L)=false`.
            _ if name.ends_with(')') && name.contains('(') => {
                let (var, site) = name[..name.len() - 1].split_once('(').unwrap_or_default();
                let v = g
                    .state
                    .iter()
                    .find(|v| v.name == var && v.per_site)
                    .ok_or_else(|| format!("no state `{var}` kept for each site"))?;
                let s = g
                    .site_by_name(site)
                    .filter(|s| state_sites(g, v).any(|x| x == *s as usize))
                    .ok_or_else(|| format!("`{var}` has no value for `{site}`"))?;
                pos.vars[v.offset + s as usize] = if value == "-" { Value::None } else { state_value(g, v.ty, value)? };
            }
            _ => {
                let k = g.colours;
                let values: Vec<Vec<i32>> = value.split(',').map(|v| parse_counts(g, v)).collect::<Result<_, _>>()?;
                let members: Vec<usize> = match g.site_by_name(name) {
                    Some(s) => vec![s as usize],
                    None => (0..g.sites.len())
                        .filter(|&i| g.sites[i].family.as_ref().is_some_and(|f| f.0 == name))
                        .collect(),
                };
                if members.is_empty() {
                    let names = g
                        .sites
                        .iter()
                        .map(|s| s.name.as_str())
                        .chain(g.state.iter().map(|s| s.name.as_str()))
                        .chain(["turn", "phase", "rounds", "starter", "clear"]);
                    return Err(format!("no site or family `{name}`{}", suggest(name, names)));
                }
                if values.len() != members.len() {
                    return Err(if members.len() == 1 {
                        format!("`{name}` is one site: give one count")
                    } else {
                        format!("`{name}` has {} sites, but {} counts were given", members.len(), values.len())
                    });
                }
                for (i, v) in members.iter().zip(values) {
                    pos.counts[i * k..(i + 1) * k].copy_from_slice(&v);
                }
            }
        }
    }
    pos.turn.ended = false;
    pos.turn.verdict = Default::default();
    Ok(pos)
}

/// The position as the assignments of a `set` command.
pub fn print(g: &Game, pos: &Position) -> String {
    let text = |s: usize| site_text(g, pos, s as u16);
    let mut parts: Vec<String> = Vec::new();
    for i in 0..g.sites.len() {
        match &g.sites[i].family {
            Some((fam, _)) => {
                let members: Vec<usize> =
                    (0..g.sites.len()).filter(|&j| g.sites[j].family.as_ref().is_some_and(|f| &f.0 == fam)).collect();
                if members[0] == i {
                    parts.push(format!("{fam}={}", members.iter().map(|&j| text(j)).collect::<Vec<_>>().join(",")));
                }
            }
            None => parts.push(format!("{}={}", g.sites[i].name, text(i))),
        }
    }
    for v in g.state.iter().filter(|v| !v.hidden) {
        if v.per_site {
            let values: Vec<String> = state_sites(g, v)
                .map(|s| value_name(g, pos.vars[v.offset + s]).unwrap_or_else(|| "-".into()))
                .collect();
            parts.push(format!("{}={}", v.name, values.join(",")));
        } else if let Some(t) = value_name(g, pos.vars[v.offset]) {
            parts.push(format!("{}={t}", v.name));
        }
    }
    parts.push(format!("turn={}", g.players[pos.turn.to_move as usize]));
    if g.phases.len() > 1 {
        parts.push(format!("phase={}", g.phases[pos.turn.phase as usize].name));
    }
    if !g.rounds.is_empty() {
        parts.push(format!("rounds={} starter={}", pos.turn.round, g.players[pos.turn.starter as usize]));
    }
    parts.join(" ")
}

/// A site's counters as text: a number, or per colour `r2b1` (`0` if empty).
pub fn site_text(g: &Game, pos: &Position, s: u16) -> String {
    let k = g.colours;
    if k == 1 {
        return pos.counts[s as usize].to_string();
    }
    let t: String = (0..k)
        .filter_map(|c| {
            let n = pos.counts[s as usize * k + c];
            (n > 0).then(|| format!("{}{n}", g.colour_letters[c]))
        })
        .collect();
    if t.is_empty() { "0".into() } else { t }
}

/// The counts named by assignments, whatever the rest of the position: a
/// partial position (for solitaire's goal), as places in
/// [`Position::counts`] and the count each must hold.
pub fn named_counts(g: &Game, pos: &Position, text: &str) -> Result<Vec<(usize, i32)>, String> {
    let mut free = pos.clone();
    free.counts.iter_mut().for_each(|c| *c = -1);
    let named = parse(g, free.clone(), text)?;
    if (named.turn.to_move, named.turn.phase) != (free.turn.to_move, free.turn.phase) || named.vars != free.vars {
        return Err("a goal names counts only: whose turn it is, the phase and state are not part of it".into());
    }
    let counts: Vec<(usize, i32)> =
        named.counts.iter().enumerate().filter(|(_, c)| **c >= 0).map(|(i, &c)| (i, c)).collect();
    if counts.is_empty() {
        return Err("a goal names counts, e.g. `s=3,1,0 s-reserve=0`".into());
    }
    Ok(counts)
}

pub fn suggest<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(name, names).map(|h| format!(" ({h})")).unwrap_or_default()
}

/// A site's counts from text: a number, or for coloured counters a letter
/// and count per colour (`r2b1`), or `0`.
pub fn parse_counts(g: &Game, v: &str) -> Result<Vec<i32>, String> {
    let bad = || format!("`{v}` is not a count (0 to 1000000)");
    let k = g.colours;
    if k == 1 {
        return v.parse::<i32>().ok().filter(|c| (0..=1_000_000).contains(c)).map(|c| vec![c]).ok_or_else(bad);
    }
    let mut out = vec![0; k];
    if v == "0" {
        return Ok(out);
    }
    let letters: String = g.colour_letters.iter().collect();
    let form = || {
        format!(
            "`{v}` is not counts of colours: write a letter and a count per colour, e.g. `{}2{}1`, or `0` (letters: {letters})",
            g.colour_letters[0], g.colour_letters[1]
        )
    };
    let mut chars = v.chars().peekable();
    while let Some(ch) = chars.next() {
        let c = g.colour_letters.iter().position(|&l| l == ch).ok_or_else(form)?;
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        out[c] = digits.parse::<i32>().ok().filter(|c| (0..=1_000_000).contains(c)).ok_or_else(form)?;
    }
    Ok(out)
}

/// The sites a per-site state variable is kept for, in order.
pub fn state_sites<'a>(g: &'a Game, v: &'a StateVar) -> impl Iterator<Item = usize> + 'a {
    (0..g.sites.len()).filter(move |&s| v.kind.is_none_or(|k| g.sites[s].kind == k))
}

/// A state variable's value from text.
pub fn state_value(g: &Game, ty: Type, v: &str) -> Result<Value, String> {
    let r = match ty {
        Type::Site => g.site_by_name(v).map(Value::Site),
        Type::Player => g.player_by_name(v).map(Value::Player),
        Type::Int => v.parse().ok().map(Value::Int),
        Type::Bool => crate::compile::parse_bool(v).map(Value::Bool),
        _ => None,
    };
    r.ok_or_else(|| format!("`{v}` is not {}", ty.word()))
}

/// A value as the text `set` reads back; `None` for no value.
pub fn value_name(g: &Game, v: Value) -> Option<String> {
    match v {
        Value::Site(s) => Some(g.sites[s as usize].name.clone()),
        Value::Player(p) => Some(g.players[p as usize].clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(if b { "t" } else { "f" }.to_string()),
        _ => None,
    }
}
