//! Reading rule files: parsing, following `extends`, and merging a derived
//! file's declarations over its base's, so that a variant file need say only
//! what differs.

use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostic, Sources};
use crate::syntax::{ast::*, parse};

/// Reads and parses a rule file and everything it extends.
pub fn load_items(path: &str, sources: &mut Sources) -> Result<Vec<Item>, Vec<Diagnostic>> {
    let text = crate::files::read_text(path, crate::files::MAX_RULE_FILE, "rule file")
        .map_err(|e| vec![Diagnostic::global(format!("cannot read rule file `{path}`: {e}"))])?;
    let mut chain = vec![canonical(Path::new(path))];
    load_text(path, &text, sources, &mut chain)
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

pub(crate) fn load_text(
    name: &str,
    text: &str,
    sources: &mut Sources,
    chain: &mut Vec<PathBuf>,
) -> Result<Vec<Item>, Vec<Diagnostic>> {
    // A byte-order mark some editors put first is no part of the rules.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file = sources.add(name, text);
    let (ast, problems) = parse(text, file).map_err(|d| vec![d])?;
    sources.problems.extend(problems);
    let mut extends: Option<Str> = None;
    let mut own = Vec::new();
    let mut diags = Vec::new();
    for item in ast.items {
        match item {
            Item::Board(b) => match board_items(&b, text, name, sources) {
                Ok(items) => own.extend(items),
                Err(d) => diags.extend(d),
            },
            Item::Extends(s) => {
                if let Some(first) = &extends {
                    diags.push(
                        Diagnostic::error(s.span, "a rule file can extend only one other")
                            .label("second `extends`")
                            .note(first.span, "first `extends` here"),
                    );
                } else {
                    extends = Some(s);
                }
            }
            other => own.push(other),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let Some(base) = extends else { return Ok(own) };
    let base_path = Path::new(name).parent().unwrap_or(Path::new("")).join(&base.value);
    let canon = canonical(&base_path);
    if chain.contains(&canon) {
        return Err(vec![
            Diagnostic::error(base.span, format!("`{}` extends itself, through a cycle of `extends`", base.value))
                .label("cycle"),
        ]);
    }
    let base_text = crate::files::read_text(&base_path, crate::files::MAX_RULE_FILE, "rule file").map_err(|e| {
        vec![
            Diagnostic::error(base.span, format!("cannot read `{}`: {e}", base_path.display()))
                .label("extended here")
                .help("the path is relative to the folder of this rule file"),
        ]
    })?;
    chain.push(canon);
    let mut items = load_text(&base_path.to_string_lossy(), &base_text, sources, chain)?;
    chain.pop();
    // A declaration replaces the base's of the same key. Two of the same key
    // in the derived file both stay, so that the checker reports the clash.
    let base_len = items.len();
    let mut replaced = vec![false; base_len];
    for item in own {
        let pos = key(&item).and_then(|k| items[..base_len].iter().position(|i| key(i).as_ref() == Some(&k)));
        match pos {
            Some(pos) if !replaced[pos] => {
                items[pos] = item;
                replaced[pos] = true;
            }
            _ => items.push(item),
        }
    }
    Ok(items)
}

/// The declarations a `board` stands for, written out as text (a source of
/// its own, so that `mancala show` and any mistake in them show the very
/// lines) and read like the file's own. The players are `south` (moving
/// first, its holes `s1`, `s2`, ...) and `north` (`n1`, ...), as the
/// project's convention names every board.
///
/// Two rows of N: `s1..sN` from South's left, `n1..nN` from North's left
/// (so `n1` faces `sN`), stores `S` and `N`, the track `round` counter-
/// clockwise (through the stores `with stores on the track`), and the
/// relation `opposite`. Four rows of N: each player's outer row numbered
/// from their left, `s1..sN`, then their inner row back from their right,
/// `s(N+1)..s(2N)`, one cyclic track each along their own two rows,
/// `loop[south]` and `loop[north]`, counter-clockwise; `opposite` joins an
/// inner hole to the inner hole it faces, `behind` an inner hole to the
/// opponent's outer hole behind that one; stores `S` and `N` for what is
/// taken, off the tracks.
fn board_items(b: &BoardDecl, text: &str, name: &str, sources: &mut Sources) -> Result<Vec<Item>, Vec<Diagnostic>> {
    let n = format!("({})", text.get(b.per_row.span.start..b.per_row.span.end).unwrap_or("0"));
    let generated = match (b.rows, b.stores_on_track) {
        (2, on) => {
            let track = if on { format!("s[1..{n}], S, n[1..{n}], N") } else { format!("s[1..{n}], n[1..{n}]") };
            format!(
                "pit s[1..{n}] owner south\npit n[1..{n}] owner north\n\
                 store S owner south\nstore N owner north\n\
                 track round cyclic: {track}\n\
                 relation opposite: s[i] <-> n[{n} + 1 - i] for i in 1..{n}\n\
                 layout {{\n  row N, n[{n}..1], _\n  row _, s[1..{n}], S\n}}\n"
            )
        }
        (4, false) => format!(
            "pit s[1..2 * {n}] owner south\npit n[1..2 * {n}] owner north\n\
             store S owner south\nstore N owner north\n\
             track loop[south] cyclic: s[1..2 * {n}]\ntrack loop[north] cyclic: n[1..2 * {n}]\n\
             relation opposite: s[i] <-> n[3 * {n} + 1 - i] for i in {n} + 1..2 * {n}\n\
             relation behind: s[i] -> n[i - {n}] for i in {n} + 1..2 * {n}, n[i] -> s[i - {n}] for i in {n} + 1..2 * {n}\n\
             layout {{\n  row N, n[{n}..1]\n  row _, n[{n} + 1..2 * {n}]\n  row _, s[2 * {n}..{n} + 1]\n  row S, s[1..{n}]\n}}\n"
        ),
        _ => {
            return Err(vec![
                Diagnostic::error(b.span, "a board of this shape has no shorthand")
                    .label("2 or 4 rows")
                    .help("`board 2 rows of 6`, `board 2 rows of 7 with stores on the track`, `board 4 rows of 8`; declare other boards site by site"),
            ]);
        }
    };
    let file = sources.add(format!("{name} (board)"), generated.as_str());
    let (ast, problems) = parse(&generated, file).map_err(|d| vec![d])?;
    sources.problems.extend(problems);
    Ok(ast.items)
}

/// What a declaration in a derived file replaces in its base: the one of the
/// same kind and name, or the single declaration of its kind.
fn key(item: &Item) -> Option<(&'static str, String)> {
    let named = |k: &'static str, n: &Ident| Some((k, n.name.clone()));
    match item {
        Item::Game(_) => Some(("game", String::new())),
        Item::Board(_) => Some(("board", String::new())),
        // A derived file's family or region replaces the base's; its
        // sources are added to the base's.
        Item::About(About::Family, _) => Some(("family", String::new())),
        Item::About(About::Region, _) => Some(("region", String::new())),
        Item::About(About::Source, s) => Some(("source", s.value.clone())),
        Item::Extends(_) => None,
        Item::Option(o) => named("option", &o.name),
        Item::Variant(v) => named("variant", &v.name),
        Item::Players(_) => Some(("players", String::new())),
        Item::Counters(_) => Some(("counters", String::new())),
        Item::Define(d) => named("define", &d.name),
        Item::Group(g) => named("group", &g.name),
        Item::Hook(h) => named("hook", &h.name),
        Item::Partners(p) => p.names.first().and_then(|n| named("partners", n)),
        Item::Glyph(g) => Some(("glyph", g.text.value.clone())),
        Item::State(s) => named("state", &s.name),
        Item::Site(s) => s.names.first().and_then(|n| named("site", &n.name)),
        Item::Relation(r) => named("relation", &r.name),
        Item::Track(t) => Some(("track", track_key(&t.name))),
        Item::Layout(_) => Some(("layout", String::new())),
        Item::Setup(_) => Some(("setup", String::new())),
        Item::Phase(p) => named("phase", &p.name),
        Item::Move(m) => named("move", &m.name),
        Item::Rule(r) => named("rule", &r.name),
        Item::Avoid(a) => named("avoid", &a.name),
        Item::End(e) => named("end", &e.name),
        Item::Round(e) => named("round", &e.name),
        Item::Stuck(_) => Some(("stuck", String::new())),
        Item::Score(_) => Some(("score", String::new())),
    }
}

fn track_key(d: &DeclName) -> String {
    match &d.index {
        Some(IndexSpec::Single(e)) => match &e.kind {
            ExprKind::Name(n) => format!("{}[{}]", d.name.name, n.name),
            ExprKind::Int(i) => format!("{}[{}]", d.name.name, i),
            other => format!("{}[{:?}]", d.name.name, other),
        },
        _ => d.name.name.clone(),
    }
}
