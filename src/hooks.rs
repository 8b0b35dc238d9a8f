//! rhai hooks: the rules a game needs that the language does not say
//! declaratively. One rhai engine serves every hook of a game on each
//! thread (threads sharing one engine took turns: a match of a game with
//! hooks ran on one core of two). Every engine is set up alike:
//! no module or file access, no `eval`, nothing printed, and limits on
//! operations, call depth, expression depth and the size of strings, arrays
//! and maps, so that a hook that loops for ever or recurses without end stops
//! with an error. Each hook is compiled once, when the rule file is loaded.

use rhai::{AST, Dynamic, Engine, Position, Scope};

use crate::diagnostics::{Diagnostic, Span, escape_controls};
use crate::engine::game::{Game, Type, Value};

/// Most rhai operations one call of a hook may take.
pub const MAX_OPERATIONS: u64 = 200_000;
/// Longest one call of a hook may run: operations are bounded, but one
/// operation on a huge or deeply nested value can take long.
pub const MAX_TIME: std::time::Duration = std::time::Duration::from_secs(1);

thread_local! {
    /// When the hook running on this thread must stop.
    static DEADLINE: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

pub struct Hooks {
    /// The engine that compiles the hooks (and calls them on this thread).
    engine: Engine,
    /// What `track_sites` answers, to set up the engines of other threads.
    tracks: Option<Vec<(String, Vec<String>)>>,
    /// Tells these hooks' engines apart from other games' on a thread.
    id: u64,
    pub defs: Vec<HookDef>,
}

thread_local! {
    /// This thread's engine for the hooks it last called, by their id.
    static THREAD_ENGINE: std::cell::RefCell<Option<(u64, Engine)>> = const { std::cell::RefCell::new(None) };
}

fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("defs", &self.defs.iter().map(|d| &d.name).collect::<Vec<_>>()).finish()
    }
}

pub struct HookDef {
    pub name: String,
    pub params: Vec<(String, Type)>,
    pub returns: Type,
    /// Where the rhai code is in the rule file.
    pub code_span: Span,
    code: String,
    /// The characters the wrapper puts before the code on its first line.
    prefix: usize,
    ast: AST,
}

/// The rhai name of a hook or parameter (rhai names have no `-`).
fn rhai_name(name: &str) -> String {
    name.replace('-', "_")
}

fn engine() -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(MAX_OPERATIONS);
    e.set_max_call_levels(32);
    e.set_max_expr_depths(64, 32);
    e.set_max_string_size(10_000);
    e.set_max_array_size(10_000);
    e.set_max_map_size(1_000);
    e.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    e.disable_symbol("eval");
    // `sleep` would hang a move for as long as it asks; `curry` keeps its
    // arguments outside the limits on sizes (a function pointer curried
    // into itself doubles at each step).
    e.disable_symbol("curry");
    let no_sleep = || -> Result<(), Box<rhai::EvalAltResult>> { Err("hooks cannot sleep".into()) };
    e.register_fn("sleep", move |_: rhai::INT| no_sleep());
    e.register_fn("sleep", move |_: rhai::FLOAT| no_sleep());
    // A hook's answer may hang on its arguments alone: the engine keeps its
    // results by them (`engine::hook_results`), and the same seed must give
    // the same game. `timestamp` would read the clock.
    e.register_fn("timestamp", || -> Result<rhai::INT, Box<rhai::EvalAltResult>> {
        Err("hooks cannot read the clock".into())
    });
    e.on_progress(|ops| {
        let late = ops % 256 == 0 && DEADLINE.get().is_some_and(|d| std::time::Instant::now() > d);
        late.then(|| Dynamic::from("time"))
    });
    e.on_print(|_| {});
    e.on_debug(|_, _, _| {});
    e
}

impl Hooks {
    pub fn new() -> Hooks {
        Hooks { engine: engine(), tracks: None, id: next_id(), defs: Vec::new() }
    }

    /// Hooks that can read the game's tracks: `track_sites(NAME)` is the
    /// sites of a track, in order.
    pub fn with_tracks(tracks: Vec<(String, Vec<String>)>) -> Hooks {
        let mut h = Hooks::new();
        h.engine = engine_with_tracks(tracks.clone());
        h.tracks = Some(tracks);
        h
    }

    /// Calls `f` with this thread's engine for these hooks, set up on first use.
    fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        THREAD_ENGINE.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.as_ref().is_none_or(|(id, _)| *id != self.id) {
                let e = match &self.tracks {
                    Some(t) => engine_with_tracks(t.clone()),
                    None => engine(),
                };
                *slot = Some((self.id, e));
            }
            let (_, e) = slot.as_ref().expect("set just above");
            f(e)
        })
    }
}

/// An engine whose `track_sites(NAME)` is the sites of a track, in order.
fn engine_with_tracks(tracks: Vec<(String, Vec<String>)>) -> Engine {
    let mut e = engine();
    e.register_fn("track_sites", move |name: &str| -> rhai::Array {
        tracks
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.iter().map(|x| Dynamic::from(x.clone())).collect())
            .unwrap_or_default()
    });
    e
}

impl Hooks {
    /// Compiles a hook; a rhai syntax error is a diagnostic at its place in
    /// the rule file.
    pub fn add(
        &mut self,
        name: &str,
        params: Vec<(String, Type)>,
        returns: Type,
        code: &str,
        code_span: Span,
    ) -> Result<u16, Diagnostic> {
        let head = format!(
            "fn {}({}) {{",
            rhai_name(name),
            params.iter().map(|(p, _)| rhai_name(p)).collect::<Vec<_>>().join(", ")
        );
        let wrapped = format!("{head}{code}\n}}");
        let ast = self.engine.compile(&wrapped).map_err(|e| {
            let span = map_position(code, head.len(), code_span, e.position());
            Diagnostic::error(span, format!("hook `{name}`: rhai syntax error: {}", e.err_type()))
                .label("here")
                .help("hooks are rhai scripts: https://rhai.rs/book/")
        })?;
        self.defs.push(HookDef {
            name: name.to_string(),
            params,
            returns,
            code_span,
            code: code.to_string(),
            prefix: head.len(),
            ast,
        });
        Ok((self.defs.len() - 1) as u16)
    }

    /// Calls a hook with arguments; its result, of the declared type.
    pub fn call(&self, g: &Game, id: u16, args: &[Value]) -> Result<Value, (String, Span)> {
        let def = &self.defs[id as usize];
        let dyn_args: Vec<Dynamic> = args.iter().map(|v| to_dynamic(g, *v)).collect();
        DEADLINE.set(Some(std::time::Instant::now() + MAX_TIME));
        let r = self.with_engine(|e| e.call_fn::<Dynamic>(&mut Scope::new(), &def.ast, rhai_name(&def.name), dyn_args));
        DEADLINE.set(None);
        let r = r.map_err(|e| {
            let pos = e.position();
            let what = match *e {
                rhai::EvalAltResult::ErrorTooManyOperations(_) => {
                    format!("ran for more than {MAX_OPERATIONS} operations (a loop that never ends?)")
                }
                rhai::EvalAltResult::ErrorStackOverflow(_) => "recursed too deeply".to_string(),
                rhai::EvalAltResult::ErrorTerminated(..) => {
                    format!("ran for more than {} s (a loop that never ends?)", MAX_TIME.as_secs())
                }
                ref other => other.to_string(),
            };
            // A hook's error can carry any string the hook made.
            let what = escape_controls(&what).into_owned();
            (format!("hook `{}` failed: {what}", def.name), map_position(&def.code, def.prefix, def.code_span, pos))
        })?;
        from_dynamic(g, def.returns, r)
            .map_err(|m| (format!("hook `{}` returned {}", def.name, escape_controls(&m)), def.code_span))
    }
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks::new()
    }
}

/// The place in the rule file of a rhai position in the wrapped code.
fn map_position(code: &str, prefix: usize, code_span: Span, pos: Position) -> Span {
    let (Some(line), col) = (pos.line(), pos.position().unwrap_or(1)) else {
        // No place (a limit was reached): the hook's first line of code.
        let start = code.len() - code.trim_start().len();
        let end = code[start..].find('\n').map_or(code.len(), |i| start + i);
        return Span::new(code_span.file, code_span.start + start, code_span.start + end);
    };
    let col = col.saturating_sub(1);
    let offset = if line == 1 {
        col.saturating_sub(prefix)
    } else {
        let start = code.split_inclusive('\n').take(line - 1).map(|l| l.len()).sum::<usize>();
        start + col
    };
    let offset = offset.min(code.len());
    let end = (offset + 1).min(code.len()).max(offset);
    Span::new(code_span.file, code_span.start + offset, code_span.start + end)
}

fn to_dynamic(g: &Game, v: Value) -> Dynamic {
    match v {
        Value::None => Dynamic::UNIT,
        Value::Int(i) => Dynamic::from(i),
        Value::Bool(b) => Dynamic::from(b),
        Value::Player(p) => Dynamic::from(g.players[p as usize].clone()),
        Value::Site(s) => Dynamic::from(g.sites[s as usize].name.clone()),
        Value::Track(t) => Dynamic::from(g.tracks[t as usize].name.clone()),
        Value::Set(s) => Dynamic::from_array(
            g.sets[s as usize].iter().map(|&x| Dynamic::from(g.sites[x as usize].name.clone())).collect(),
        ),
        Value::Mask(m) => Dynamic::from_array(
            (0..64u16).filter(|b| m & (1 << b) != 0).map(|b| Dynamic::from(g.sites[b as usize].name.clone())).collect(),
        ),
    }
}

fn from_dynamic(g: &Game, ty: Type, d: Dynamic) -> Result<Value, String> {
    // Nothing (Rhai's `()`, as an `if` without `else` gives): `none` for
    // the types that have it, refused for the others (read as a number or
    // a condition, it would be taken for one: `none` is no `false`).
    if d.is_unit() {
        return match ty {
            Type::Int => Err("nothing (Rhai's `()`, as an `if` without `else` gives), not a number".into()),
            Type::Bool => Err("nothing (Rhai's `()`, as an `if` without `else` gives), not true or false".into()),
            _ => Ok(Value::None),
        };
    }
    let name = || d.clone().into_string().map_err(|t| format!("a {t}, not a name"));
    match ty {
        Type::Int => d.as_int().map(Value::Int).map_err(|t| format!("a {t}, not a number")),
        Type::Bool => d.as_bool().map(Value::Bool).map_err(|t| format!("a {t}, not true or false")),
        Type::Site => {
            let n = name()?;
            g.site_by_name(&n).map(Value::Site).ok_or_else(|| format!("`{n}`, which is no site"))
        }
        Type::Player => {
            let n = name()?;
            g.player_by_name(&n).map(Value::Player).ok_or_else(|| format!("`{n}`, which is no player"))
        }
        Type::Track => {
            let n = name()?;
            g.tracks
                .iter()
                .position(|t| t.name == n)
                .map(|t| Value::Track(t as u16))
                .ok_or_else(|| format!("`{n}`, which is no track"))
        }
        other => Err(format!("a value, but hooks cannot return {}", other.word())),
    }
}
