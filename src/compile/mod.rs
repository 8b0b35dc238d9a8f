//! Checking and compiling: from the syntax tree of a rule file (and the files
//! it extends) to a [`Game`]. Every stage collects its diagnostics and goes
//! on, so one run reports every mistake it can find.

mod board;
mod load;
mod options;
pub use options::parse_bool;
mod rules;

use std::collections::HashMap;

use crate::diagnostics::{Diagnostic, Failure, Sources, Span, did_you_mean};
use crate::engine::game::*;
use crate::syntax::ast;

pub use load::load_items;

/// What to compile a rule file with: the variants and option settings the
/// user chose (`--variant`, `--set`).
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub variants: Vec<String>,
    pub settings: Vec<(String, String)>,
}

/// What a name in the global namespace stands for.
#[derive(Debug, Clone)]
pub(crate) enum Global {
    Option(Value),
    Variant,
    Player(PlayerId),
    Site(SiteId),
    SiteFamily(u16),
    Track(u16),
    TrackFamily(u16),
    Relation(u16),
    Phase(u8),
    State(u16),
    Define(usize),
    Group(u16),
    Hook(u16),
}

impl Global {
    fn word(&self) -> &'static str {
        match self {
            Global::Option(_) => "an option",
            Global::Variant => "a variant",
            Global::Player(_) => "a player",
            Global::Site(_) => "a site",
            Global::SiteFamily(_) => "a family of sites",
            Global::Track(_) => "a track",
            Global::TrackFamily(_) => "a family of tracks",
            Global::Relation(_) => "a relation",
            Global::Phase(_) => "a phase",
            Global::State(_) => "a state variable",
            Global::Define(_) => "a definition",
            Global::Group(_) => "a group of sites",
            Global::Hook(_) => "a hook",
        }
    }
}

/// Names the language gives a meaning of its own.
pub(crate) const BUILTIN_NAMES: &[&str] = &[
    "mover",
    "next",
    "last",
    "ply",
    "it",
    "count",
    "owner",
    "store",
    "reserve",
    "pit",
    "min",
    "max",
    "can-move",
    "players",
    "last-colour",
    "index",
    "member",
    "on",
    "random",
    "side",
    "repetitions",
    "opponent",
    "origin",
    "none",
    "step",
    "before",
    "first",
    "rounds",
    "starter",
];

pub(crate) struct Compiler {
    pub diags: Vec<Diagnostic>,
    pub globals: HashMap<String, (Global, Span)>,
    pub game: Game,
    /// Site families: members by index value.
    pub site_families: Vec<(String, Vec<(Value, SiteId)>)>,
    pub track_families: Vec<(String, Vec<(Value, u16)>)>,
    /// Options whose declarations have mistakes: their values are not checked
    /// again where variants set them, which would only repeat the mistake.
    pub broken_options: Vec<String>,
    /// Sites and families refused (past the limit of sites): their uses are
    /// not reported again as unknown names.
    pub refused_sites: Vec<String>,
    /// `define`d expressions, inlined where they are used.
    pub defines: Vec<ast::DefineDecl>,
    /// The definitions being inlined, innermost last: one met again uses
    /// itself, which would never end.
    pub inlining: Vec<usize>,
    /// Definitions inlined so far: each use copies its definition, so a
    /// definition that uses another twice doubles it, and a few lines can
    /// ask for millions of copies. Past `MAX_INLINED` they are refused.
    pub inlined: usize,
    /// Whether those copies went deeper than `MAX_DEFINE_DEPTH`.
    pub inlined_too_deep: bool,
    /// Players named in `players first N of` beyond the first N.
    pub cut_players: Vec<String>,
}

impl Compiler {
    pub fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Declares a global name, reporting a clash with an earlier one.
    pub fn declare(&mut self, name: &ast::Ident, g: Global) -> bool {
        if BUILTIN_NAMES.contains(&name.name.as_str()) {
            self.error(
                Diagnostic::error(name.span, format!("`{}` is a built-in name of the language", name.name))
                    .label("reserved")
                    .help("choose another name"),
            );
            return false;
        }
        if let Some((prev, prev_span)) = self.globals.get(&name.name) {
            let d = Diagnostic::error(name.span, format!("`{}` is declared twice", name.name))
                .label(format!("declared again here as {}", g.word()))
                .note(*prev_span, format!("first declared here as {}", prev.word()))
                .help("every option, variant, player, site, track, relation and phase needs a name of its own");
            self.error(d);
            return false;
        }
        self.globals.insert(name.name.clone(), (g, name.span));
        true
    }

    pub fn unknown(&mut self, name: &ast::Ident, what: &str, candidates: Vec<String>) {
        // A site refused where it was declared, or a member of a refused
        // family (`n5`, `n-north`): said once already.
        let refused = self.refused_sites.iter().any(|f| {
            name.name.strip_prefix(f.as_str()).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with('-') || rest.chars().all(|c| c.is_ascii_digit())
            })
        });
        if refused {
            return;
        }
        let mut help = None;
        if name.name.contains('-') {
            let parts: Vec<&str> = name.name.split('-').collect();
            if parts.iter().all(|p| {
                self.globals.contains_key(*p)
                    || candidates.iter().any(|c| c == p)
                    || BUILTIN_NAMES.contains(p)
                    || p.parse::<i64>().is_ok()
            }) {
                help =
                    Some(format!("names may contain `-`; to subtract, put spaces around it: `{}`", parts.join(" - ")));
            }
        }
        let help = help.or_else(|| did_you_mean(&name.name, candidates.iter().map(|s| s.as_str())));
        let help = help.or_else(|| {
            let mut c: Vec<&String> = candidates.iter().collect();
            c.sort();
            (!c.is_empty() && c.len() <= 12)
                .then(|| format!("known: {}", c.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")))
        });
        let label = if what == "name" {
            "nothing of this name is declared".to_string()
        } else {
            format!("no {what} has this name")
        };
        self.error(
            Diagnostic::error(name.span, format!("unknown {what} `{}`", name.name)).label(label).maybe_help(help),
        );
    }
}

/// Loads, checks and compiles a rule file with the given configuration.
pub fn compile_file(path: &str, config: &Config) -> Result<Game, Failure> {
    let mut sources = Sources::default();
    let items = match load_items(path, &mut sources) {
        Ok(items) => items,
        Err(diagnostics) => {
            return Err(Failure { diagnostics, sources });
        }
    };
    compile_items(path, items, sources, config)
}

/// Compiles a rule file given as text (the file name is for diagnostics and
/// for resolving `extends`).
pub fn compile_source(name: &str, text: &str, config: &Config) -> Result<Game, Failure> {
    let mut sources = Sources::default();
    let items = match load::load_text(name, text, &mut sources, &mut Vec::new()) {
        Ok(items) => items,
        Err(diagnostics) => {
            return Err(Failure { diagnostics, sources });
        }
    };
    compile_items(name, items, sources, config)
}

fn compile_items(path: &str, items: Vec<ast::Item>, mut sources: Sources, config: &Config) -> Result<Game, Failure> {
    let mut c = Compiler {
        diags: std::mem::take(&mut sources.problems),
        globals: HashMap::new(),
        game: Game {
            name: String::new(),
            about: Default::default(),
            sources: sources.clone(),
            path: path.to_string(),
            variants_applied: config.variants.clone(),
            options: vec![],
            variants: vec![],
            players: vec![],
            sites: vec![],
            tracks: vec![],
            relations: vec![],
            sets: vec![],
            kind_sets: Default::default(),
            owned: Default::default(),
            families: vec![],
            setup: vec![],
            moves: vec![],
            avoids: vec![],
            ends: vec![],
            stuck: StuckAction::End,
            stuck_body: vec![],
            rounds: vec![],
            territory: None,
            score: (0, Expr::Const(Value::Int(0))),
            score_span: None,
            phases: vec![],
            layout: None,
            locals: 0,
            setup_span: None,
            chance: false,
            history: false,
            colours: 1,
            colour_letters: vec![],
            state: vec![],
            partners: vec![],
            glyphs: vec![],
            glyph_slot: 0,
            hooks: None,
        },
        site_families: vec![],
        track_families: vec![],
        broken_options: vec![],
        refused_sites: vec![],
        defines: vec![],
        inlining: Vec::new(),
        inlined: 0,
        inlined_too_deep: false,
        cut_players: vec![],
    };
    c.options(&items, config);
    c.players(&items);
    c.colours_and_state(&items);
    c.board(&items);
    c.rules(&items);
    // In the order of the files and of the text, as a reader goes through them.
    c.diags.sort_by_key(|d| d.span.map(|s| (0, s.file, s.start)).unwrap_or((1, 0, 0)));
    if c.diags.is_empty() { Ok(c.game) } else { Err(Failure { diagnostics: c.diags, sources }) }
}

/// Checks a rule file with its defaults and with each of its variants, and
/// returns every distinct problem found.
pub fn check_file(path: &str) -> Result<Game, Failure> {
    let base = compile_file(path, &Config::default()).and_then(setup_runs)?;
    let mut failure: Option<Failure> = None;
    // What is said already, so that a mistake every variant shares is said once.
    let mut said: std::collections::HashSet<(String, Option<Span>)> = std::collections::HashSet::new();
    for v in &base.variants {
        let cfg = Config { variants: vec![v.name.clone()], settings: vec![] };
        if let Err(f) = compile_file(path, &cfg).and_then(setup_runs) {
            match &mut failure {
                None => {
                    said.extend(f.diagnostics.iter().map(|d| (d.message.clone(), d.span)));
                    failure = Some(f);
                }
                Some(acc) => {
                    for d in f.diagnostics {
                        if said.insert((d.message.clone(), d.span)) {
                            acc.diagnostics.push(d);
                        }
                    }
                }
            }
        }
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(base),
    }
}

/// A compiled game whose `setup` also runs without error.
fn setup_runs(game: Game) -> Result<Game, Failure> {
    let game = std::sync::Arc::new(game);
    match crate::engine::Engine::new(game.clone()) {
        Ok(_) => Ok(std::sync::Arc::try_unwrap(game).unwrap_or_else(|g| (*g).clone())),
        Err(h) => {
            let text = match h {
                crate::engine::Halt::Illegal => "a statement of it is not possible".to_string(),
                crate::engine::Halt::Error(e) => e,
                crate::engine::Halt::At(e, _) => e,
            };
            let mut d = Diagnostic::global(format!("the setup fails: {text}"));
            if let Some(span) = game.setup_span {
                d = Diagnostic::error(span, format!("the setup fails: {text}")).label("when this runs");
            }
            Err(Failure { diagnostics: vec![d], sources: game.sources.clone() })
        }
    }
}
