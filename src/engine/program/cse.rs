//! Parts written more than once in one expression, worked out once.
//!
//! A `define` called with the same arguments twice, or one that uses its
//! own argument's function more than once, writes the same part again:
//! Bao's `first-captures(x, t)` asks `landing(x, t)` (a `step` by the count
//! of `x`) three times in one chain of `and`s, Omweso's `cw-captures` its
//! `cw-landing` three times. Where a part recurs at a place that is only
//! reached once its first place has been worked out in the same evaluation
//! (later in a chain of `and`s or `or`s, in a branch of an `if` whose
//! condition holds it, after the node around both), the first place keeps
//! its value in a local slot ([`Expr::Keep`]) and the later ones read it
//! from there ([`Expr::Kept`]).
//!
//! An expression changes nothing while it is worked out, and a part kept
//! draws no random number, calls no hook and asks no `can-move`, so it has
//! one value throughout, as long as the variables it reads keep theirs: a
//! quantifier or filter that binds one of them again ends what is kept of
//! it. What the right of an `and` or `or`, a branch of an `if` or the body
//! of a quantifier works out is kept only inside it (it may not run, or
//! runs for another value); what one operand of any other node works out
//! is kept for after the node, not for the operands beside it (they may
//! be worked out in any order). `before(x)` is worked out in another
//! position and is left as written. Parts that read no variable are left
//! to the memos (`memo.rs`), functions of one site alone to the tables
//! (`tables.rs`), and a sowing's clauses as written (the sowing works some
//! of them out once a lap, out of their expression's order). Only the
//! executor's program is changed, as by `fold.rs`; an error comes where it
//! came, from the first place.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::memo::Slots;
use super::tables::{first_variable, nodes};
use crate::engine::game::{BinOp, Domain, Expr, Game, Value};

/// Expressions larger than this are left as written (the search is
/// quadratic in the worst case).
const MOST_NODES: usize = 4096;

/// Slots are bytes; the memos' scan keeps them as 256 bits.
const SLOTS: usize = 256;

/// Parts smaller than this are as cheap to work out as to read.
const SMALLEST: usize = 3;

/// Parts this large are kept whatever they hold.
const LARGE: usize = 8;

#[derive(Clone, Copy)]
enum Mark {
    Keep(u8),
    Read(u8),
}

/// Keeps the recurring parts of every expression of `g`'s rules but a
/// sowing's (the sowing statements are left whole), in slots after the
/// rules' own; `tables` is the game as compiled (for what a part reads).
pub(super) fn game(tables: &Game, g: &mut Game) {
    let first = g.locals.max(1) + 4;
    let mut next = first;
    super::fold::each_root(g, &mut |e| {
        let marks = {
            let mut scan = Scan { g: tables, avail: Vec::new(), marks: HashMap::new(), next: &mut next };
            if nodes(e) <= MOST_NODES {
                scan.visit(e);
            }
            scan.marks
        };
        if !marks.is_empty() {
            apply(e, &marks);
        }
    });
    // The program's locals are the rules' `locals.max(1) + 4`.
    g.locals = g.locals.max(1) + (next - first);
}

/// A part worked out on every path to where the search is.
struct Entry<'e> {
    e: &'e Expr,
    hash: u64,
    free: Slots,
    /// Its slot, once a later place reads it.
    slot: Option<u8>,
    /// Worked out by an operand beside the one searched (not yet usable).
    hidden: bool,
    /// A variable it reads has been bound again since.
    dead: bool,
}

struct Scan<'g, 'e, 'n> {
    g: &'g Game,
    avail: Vec<Entry<'e>>,
    marks: HashMap<*const Expr, Mark>,
    next: &'n mut usize,
}

impl<'e> Scan<'_, 'e, '_> {
    /// Goes through `e` in the order it is worked out.
    fn visit(&mut self, e: &'e Expr) {
        let part = self.candidate(e);
        if let Some((hash, _)) = part
            && let Some(k) = self.avail.iter().rposition(|a| !a.hidden && !a.dead && a.hash == hash && a.e == e)
            && let Some(slot) = self.slot(k)
        {
            self.marks.insert(e as *const Expr, Mark::Read(slot));
            return;
        }
        self.inside(e);
        if let Some((hash, free)) = part {
            self.avail.push(Entry { e, hash, free, slot: None, hidden: false, dead: false });
        }
    }

    /// The parts of `e`, each where it is worked out.
    fn inside(&mut self, e: &'e Expr) {
        match e {
            Expr::Bin(op @ (BinOp::And | BinOp::Or), ..) => {
                // The first term always; each later one only after those
                // before it.
                let mut terms = Vec::new();
                super::memo::terms(*op, e, &mut terms);
                self.visit(terms[0]);
                let m = self.avail.len();
                for t in &terms[1..] {
                    self.visit(t);
                }
                self.avail.truncate(m);
            }
            Expr::Cond(c, a, b) => {
                self.visit(c);
                let m = self.avail.len();
                self.visit(a);
                self.avail.truncate(m);
                self.visit(b);
                self.avail.truncate(m);
            }
            Expr::Spanned(_, x) => self.visit(x),
            Expr::Quant(_, slot, dom, body) => {
                let cond = match &**dom {
                    Domain::Players | Domain::Tracks => None,
                    Domain::Range(a, b) => {
                        self.beside(&[a, b]);
                        None
                    }
                    Domain::Set(s) | Domain::Arrangements(s) => {
                        self.visit(s);
                        None
                    }
                    Domain::Walk { track, from, cond, .. } => {
                        self.beside(&[track, from]);
                        cond.as_deref()
                    }
                };
                self.kill(*slot);
                let m = self.avail.len();
                if let Some(c) = cond {
                    self.visit(c);
                    self.avail.truncate(m);
                }
                self.visit(body);
                self.avail.truncate(m);
            }
            Expr::Filter(set, slot, cond) => {
                self.visit(set);
                self.kill(*slot);
                let m = self.avail.len();
                self.visit(cond);
                self.avail.truncate(m);
            }
            Expr::Before(x) => binders(x, &mut |s| self.kill(s)),
            _ => {
                let mut parts = Vec::new();
                e.each_child(&mut |c| parts.push(c));
                self.beside(&parts);
            }
        }
    }

    /// Operands all worked out, in an order not known: none reads what
    /// another keeps; after them, all of it may be read.
    fn beside(&mut self, parts: &[&'e Expr]) {
        let m = self.avail.len();
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                self.avail[m..].iter_mut().for_each(|a| a.hidden = true);
            }
            self.visit(p);
        }
        self.avail[m..].iter_mut().for_each(|a| a.hidden = false);
    }

    /// Entry `k`'s slot, given out at its first later place.
    fn slot(&mut self, k: usize) -> Option<u8> {
        if let Some(s) = self.avail[k].slot {
            return Some(s);
        }
        if *self.next >= SLOTS {
            return None;
        }
        let s = *self.next as u8;
        *self.next += 1;
        self.avail[k].slot = Some(s);
        self.marks.insert(self.avail[k].e as *const Expr, Mark::Keep(s));
        Some(s)
    }

    /// A variable bound again: what read it is no longer what it was.
    fn kill(&mut self, slot: u8) {
        for a in &mut self.avail {
            if a.free.has(slot) {
                a.dead = true;
            }
        }
    }

    /// `e`'s hash and free variables, if it is a part worth keeping.
    fn candidate(&self, e: &Expr) -> Option<(u64, Slots)> {
        match e {
            Expr::Const(_) | Expr::Local(_) | Expr::Builtin(_) | Expr::State(_) | Expr::Keep(..) | Expr::Kept(..) => {
                return None;
            }
            _ => {}
        }
        let n = nodes(e);
        if n < SMALLEST || !pure(e) || may_be_set(self.g, e) || (n < LARGE && !costly(e)) {
            return None;
        }
        let free = free(e);
        if free.empty() {
            return None;
        }
        if let Some(var) = first_variable(e)
            && self.g.reads_only_site(e, &var)
        {
            return None;
        }
        let mut h = DefaultHasher::new();
        e.hash(&mut h);
        Some((h.finish(), free))
    }
}

/// Puts the marks in place: a kept part wrapped in [`Expr::Keep`], a later
/// place replaced by [`Expr::Kept`] (which holds the part for its type).
fn apply(e: &mut Expr, marks: &HashMap<*const Expr, Mark>) {
    match marks.get(&(e as *const Expr)).copied() {
        Some(Mark::Read(s)) => {
            let part = std::mem::replace(e, Expr::Const(Value::None));
            *e = Expr::Kept(s, Box::new(part));
        }
        mark => {
            e.each_child_mut(&mut |c| apply(c, marks));
            if let Some(Mark::Keep(s)) = mark {
                let part = std::mem::replace(e, Expr::Const(Value::None));
                *e = Expr::Keep(s, Box::new(part));
            }
        }
    }
}

/// The local variables `e` reads that it does not bind itself.
fn free(e: &Expr) -> Slots {
    fn go(e: &Expr, bound: &mut Vec<u8>, out: &mut Slots) {
        match e {
            Expr::Local(s) | Expr::Kept(s, _) => {
                if !bound.contains(s) {
                    *out = out.with(Slots::one(*s));
                }
            }
            Expr::Quant(_, slot, dom, body) => {
                let cond = match &**dom {
                    Domain::Walk { track, from, cond, .. } => {
                        go(track, bound, out);
                        go(from, bound, out);
                        cond.as_deref()
                    }
                    d => {
                        d.each_expr(&mut |x| go(x, bound, out));
                        None
                    }
                };
                bound.push(*slot);
                if let Some(c) = cond {
                    go(c, bound, out);
                }
                go(body, bound, out);
                bound.pop();
            }
            Expr::Filter(set, slot, cond) => {
                go(set, bound, out);
                bound.push(*slot);
                go(cond, bound, out);
                bound.pop();
            }
            _ => e.each_child(&mut |c| go(c, bound, out)),
        }
    }
    let mut out = Slots::default();
    go(e, &mut Vec::new(), &mut out);
    out
}

/// The slots the quantifiers and filters inside `e` bind.
fn binders(e: &Expr, f: &mut impl FnMut(u8)) {
    match e {
        Expr::Quant(_, slot, ..) | Expr::Filter(_, slot, _) => f(*slot),
        _ => {}
    }
    e.each_child(&mut |c| binders(c, f));
}

/// Draws no number, calls no hook, starts no search, looks at no other
/// position.
fn pure(e: &Expr) -> bool {
    !matches!(e, Expr::Random(..) | Expr::Hook(..) | Expr::CanMove(_) | Expr::Before(_)) && e.all_children(pure)
}

/// Holds a step along a track, a loop, or the first of a set.
fn costly(e: &Expr) -> bool {
    matches!(e, Expr::Step(..) | Expr::Quant(..) | Expr::Filter(..) | Expr::First(_) | Expr::KindSet(..))
        || !e.all_children(|c| !costly(c))
}

/// Whether `e` may be a set of sites (which the locals do not hold; the
/// lowering works a set out at each place anyway).
fn may_be_set(g: &Game, e: &Expr) -> bool {
    match e {
        Expr::Const(v) => matches!(v, Value::Set(_) | Value::Mask(_)),
        Expr::KindSet(..) | Expr::Filter(..) => true,
        Expr::Cond(_, a, b) => may_be_set(g, a) || may_be_set(g, b),
        Expr::Spanned(_, x) => may_be_set(g, x),
        Expr::Family(f, _) => {
            g.families[*f as usize].members.values().any(|v| matches!(v, Value::Set(_) | Value::Mask(_)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Config, compile_file};

    /// The parts kept and the places that read them, in each expression
    /// of tests/engine/repeats.mancala that has any: where they are
    /// sound, and nowhere else (the file's comments say which is which).
    /// With `risky`, so that `ahead(h)` reads a count: without, it is a
    /// function of `h` alone, looked up in a table (`tables.rs`), not kept.
    #[test]
    fn parts_kept_where_sound_and_nowhere_else() {
        let risky = Config { settings: vec![("risky".into(), "true".into())], ..Config::default() };
        let g = compile_file("tests/engine/repeats.mancala", &risky).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let mut f = super::super::fold::game(&g);
        game(&g, &mut f);
        let mut found = Vec::new();
        super::super::fold::each_root(&mut f, &mut |e| {
            let (mut keeps, mut reads) = (0, 0);
            count(e, &mut keeps, &mut reads);
            if keeps + reads > 0 {
                found.push((keeps, reads));
            }
        });
        // The sowing's `where`: `landing(h)` kept in `lands-home` and read
        // twice there and once after; `count(landing(h))` kept in the
        // second term of the `or` and read in the third; `ahead(h)` kept
        // in the `==` and read twice after it. Then, once for each move the
        // rule follows: the `if` condition's first term's part read in its
        // second (not inside `before`), and the `if` inside a `set`: its
        // condition's part read in its branch. Not in `pass`'s `where`, nor
        // across an `if`'s two branches.
        assert_eq!(found, [(3, 6), (1, 1), (1, 1), (1, 1), (1, 1)]);
        // Slots after the rules' own, one for each part kept.
        assert_eq!(f.locals, g.locals.max(1) + 7);
    }

    fn count(e: &Expr, keeps: &mut usize, reads: &mut usize) {
        match e {
            Expr::Keep(..) => *keeps += 1,
            Expr::Kept(..) => *reads += 1,
            _ => {}
        }
        e.each_child(&mut |c| count(c, keeps, reads));
    }
}
