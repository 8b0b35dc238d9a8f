//! Functions of one site, tabulated. An expression whose only variable is
//! one site (a local variable, `last` or `origin`) and that reads nothing
//! else that changes during play (no counts, no state): `x is pit and
//! index(x) > 8`, a rule file's `row(x)` or `col(x)`. Its value at every
//! site is worked out on first use and looked up after, one read instead
//! of a closure per node. A site where it goes wrong has no value in the
//! table: there it is evaluated as before, and goes wrong as it would have.
//!
//! So are functions of one site or number and the mover (a rule file's
//! `at(mover, 3, c)`, for the column `c` a sum over a row runs over),
//! in a table for each player. A number is looked up from 0 to the number
//! of sites (the range of a row's or column's index); any other is
//! evaluated.
//!
//! A sum of the counts of such a function over a fixed range of numbers
//! (a rule file's `row-count(p, r)`, `sum(c in 0..holes - 1: count(at(p,
//! r, c)))`): the range's sites found once, from the table, for each
//! player, then their counts summed, with no closure for each number.
//!
//! A function of the mover alone, that reads nothing else that changes
//! during play (Bao's `front(mover)`, `if p == south then front-south else
//! front-north`; Gabata's `start(mover)`): folded for each player when the
//! program is made, and read by the mover (in place where it is an
//! operand, as `store(mover)` is); a set so folded is a set for each
//! player, as `every pit of mover` is, and its count is summed in place.
//! Only what folds whole to a value for every player is read so; anything
//! else is lowered as written (its parts may be read so).
//!
//! And a family's members by their key (`loop[mover]`), looked up in an
//! array by the key as the program holds it, not searched for; by a player
//! always there (the mover, its opponent, `next`), read in place; by a
//! number and a constant (`s[holes + 1 - i]`), the key worked out in place.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::expr::{Leaf, Opnd, dec, enc};
use super::{Fx, Lower, Program, fold};
use crate::engine::game::{BinOp, Builtin, Expr, PlayerId, SiteId, Type, Value};
use crate::engine::vm::{Fault, Res, Vm};

/// No value in the table: evaluated at each use.
const MISSING: i64 = i64::MIN;

/// Nodes below which a lookup saves nothing worth a table.
const SMALLEST: usize = 3;

/// The same for a table by number or by mover: below this, the
/// comparisons read in place (`owner(last) == mover`) are as quick.
const SMALLEST_BY_MOVER: usize = 6;

/// What a `step` weighs against a node (see [`weight`]).
const STEP_WEIGHT: usize = 4;

/// The largest key a family's array of members is made for.
const KEYS: i64 = 4096;

/// A family's members in an array by key (see [`Lower::family`]).
pub(super) type Members = Arc<[Option<i64>]>;

impl Lower<'_> {
    /// `f[x]`: the member of family `f` whose key is `x`. Keys of a type
    /// whose values the program holds as the numbers 0, 1, 2 ... (players,
    /// sites, numbers) find their member in an array; any other key, or
    /// one with no member, is looked for in the family and goes wrong as
    /// it would have.
    pub(super) fn family(&mut self, f: u16, x: &Expr) -> Fx {
        let key_ty = self.ty(x);
        let offset = self.offset_key(x);
        let x = self.opnd(x);
        let fam = f as usize;
        let dense = self.members(f, key_ty);
        // A key `k + x`, `k - x`, `x + k` or `x - k` (`s[holes + 1 - i]`):
        // worked out here, not by a closure of its own (half the cost of
        // the look-up); should it go wrong, as the closure does it.
        if let Some((v, sign, k)) = offset {
            return Box::new(move |p, vm| {
                let key = v.get(vm).ok().and_then(|v| v.checked_mul(sign)?.checked_add(k));
                let key = match key {
                    Some(key) => key,
                    None => x.get(p, vm)?,
                };
                member(p, &dense, fam, key_ty, key)
            });
        }
        Box::new(move |p, vm| {
            let k = x.get(p, vm)?;
            member(p, &dense, fam, key_ty, k)
        })
    }

    /// A number that is a leaf plus or minus a constant, as the leaf, its
    /// sign (1 or -1) and the constant: `k - x` is `(x, -1, k)`.
    fn offset_key(&self, e: &Expr) -> Option<(Leaf, i64, i64)> {
        let Expr::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) = e.unspanned() else { return None };
        if self.ty(e) != Type::Int {
            return None;
        }
        let (sign, x, k) = match (fixed_int(a), fixed_int(b)) {
            (Some(k), None) => (if *op == BinOp::Sub { -1 } else { 1 }, b, k),
            (None, Some(k)) if *op == BinOp::Add => (1, a, k),
            (None, Some(k)) => (1, a, k.checked_neg()?),
            _ => return None,
        };
        Some((self.leaf(x)?, sign, k))
    }

    /// Family `f`'s members in an array by keys of type `key_ty` (made
    /// once for the family).
    fn members(&mut self, f: u16, key_ty: Type) -> Members {
        let fam = f as usize;
        match &self.members[fam] {
            Some((ty, dense)) if *ty == key_ty => dense.clone(),
            _ => {
                let dense = members_by_key(&self.g.families[fam].members, key_ty);
                self.members[fam] = Some((key_ty, dense.clone()));
                dense
            }
        }
    }

    /// `f[x]` of a family with a member for every player and `x` the mover,
    /// its opponent or `next` (always a player): its members by player,
    /// read in place (`loop[mover]`, the track a four-row game sows along,
    /// asked at every lap); `None` for any other.
    pub(super) fn family_by_player(&mut self, f: u16, x: &Expr) -> Option<Opnd> {
        let leaf @ (Leaf::Mover | Leaf::Opponent | Leaf::Next) = self.leaf(x)? else { return None };
        let dense = self.members(f, Type::Player);
        let table: Option<Box<[i64]>> = (0..self.g.players.len()).map(|k| dense.get(k).copied().flatten()).collect();
        Some(Opnd::ByPlayer(table?, leaf))
    }

    /// The value of `e` for each player, if `e` is a function of the mover
    /// alone that folds whole for every player (see the module's comment);
    /// `None` for a constant, a variable or a built-in name alone.
    fn by_mover(&self, e: &Expr) -> Option<Box<[Value]>> {
        if !self.tables || matches!(e.unspanned(), Expr::Const(_) | Expr::Local(_) | Expr::Builtin(_)) {
            return None;
        }
        let mut vars = Vec::new();
        if !variables(e, &mut vars) || vars[..] != [Expr::Builtin(Builtin::Mover)] {
            return None;
        }
        (0..self.g.players.len())
            .map(|pl| {
                let mut x = e.clone();
                as_player(&mut x, pl as PlayerId);
                fold::expr(self.g, &mut x);
                match x.unspanned() {
                    Expr::Const(v) => Some(*v),
                    _ => None,
                }
            })
            .collect()
    }

    /// A value (not a set) that is a function of the mover alone, as its
    /// value for each player, read by the mover.
    pub(super) fn mover_table(&self, e: &Expr) -> Option<Box<[i64]>> {
        if self.ty(e) == Type::Set {
            return None;
        }
        Some(self.by_mover(e)?.iter().map(|v| enc(*v)).collect())
    }

    /// An operand that is a function of the mover alone, read in place by
    /// the mover: a value's table, or the count of a site or a set so
    /// folded (`count(front(mover))`); `None` for any other.
    pub(super) fn mover_opnd(&self, e: &Expr) -> Option<Opnd> {
        if let Some(table) = self.mover_table(e) {
            return Some(Opnd::ByPlayer(table, Leaf::Mover));
        }
        let Expr::Count(x, None) = e else { return None };
        if let Some(ids) = self.sets_by_mover(x) {
            return Some(Opnd::CountOf(ids, Leaf::Mover));
        }
        if self.ty(x) != Type::Site {
            return None;
        }
        Some(Opnd::CountByMover(self.mover_table(x)?))
    }

    /// A set that is a function of the mover alone, as the fixed set it is
    /// for each player.
    pub(super) fn sets_by_mover(&self, e: &Expr) -> Option<Box<[u16]>> {
        if self.ty(e) != Type::Set {
            return None;
        }
        let sets = self.by_mover(e)?;
        sets.iter().map(|v| if let Value::Set(id) = v { Some(*id) } else { None }).collect()
    }

    /// Where the program reads the site `e` is a function of, alone (see
    /// the module's comment).
    pub(super) fn site_function(&self, e: &Expr) -> Option<Leaf> {
        if !self.tables || self.ty(e) == Type::Set {
            return None;
        }
        let var = first_variable(e)?;
        let leaf = match &var {
            Expr::Local(s) if self.slots[*s as usize] == Type::Site => Leaf::Local(*s as usize),
            Expr::Builtin(Builtin::Last) => Leaf::Last,
            Expr::Builtin(Builtin::Origin) => Leaf::Origin,
            _ => return None,
        };
        self.g.reads_only_site(e, &var).then_some(leaf)
    }

    /// The terms of a chain of `and`s or `or`s (`op`), each run of terms
    /// that are functions of the same site alone joined again into one
    /// (`x is pit and index(x) > 7 and count(x) > 0`: the first two): one
    /// look-up in a table for the run, which is what the chain asks of
    /// that site, in its order. Nothing is joined when functions are not
    /// tabulated.
    pub(super) fn joined_terms<'e>(&self, op: BinOp, terms: &[&'e Expr]) -> Vec<Cow<'e, Expr>> {
        // The variable: a local's slot, or one of the built-in names.
        let key = |l: Leaf| match l {
            Leaf::Local(s) => Some(s),
            Leaf::Origin => Some(usize::MAX),
            _ => None,
        };
        // Each term, and the site it is a function of alone (if it is one).
        let mut out: Vec<(Cow<'e, Expr>, Option<Option<usize>>)> = Vec::with_capacity(terms.len());
        for &t in terms {
            let var = self.site_function(t).map(key);
            match out.last_mut() {
                Some((prev, Some(v))) if var == Some(*v) => {
                    let first = std::mem::replace(prev, Cow::Owned(Expr::Const(Value::Int(0)))).into_owned();
                    *prev = Cow::Owned(Expr::Bin(op, Box::new(first), Box::new(t.clone())));
                }
                _ => out.push((Cow::Borrowed(t), var)),
            }
        }
        out.into_iter().map(|(e, _)| e).collect()
    }

    /// What a table of `e` is looked up by: the site or number it is a
    /// function of, and whether it reads the mover too (see the module's
    /// comment); `None` for any other expression.
    fn table_key(&self, e: &Expr) -> Option<(Leaf, bool)> {
        if let Some(leaf) = self.site_function(e) {
            return Some((leaf, false));
        }
        if !self.tables || self.ty(e) == Type::Set || weight(e) < SMALLEST_BY_MOVER {
            return None;
        }
        let mut vars = Vec::new();
        if !variables(e, &mut vars) {
            return None;
        }
        let is_mover = |v: &Expr| matches!(v, Expr::Builtin(Builtin::Mover));
        let mover = vars.iter().any(is_mover);
        let [var] = &vars.iter().filter(|v| !is_mover(v)).collect::<Vec<_>>()[..] else {
            return None;
        };
        let leaf = match var {
            Expr::Local(s) if matches!(self.slots[*s as usize], Type::Site | Type::Int) => Leaf::Local(*s as usize),
            Expr::Builtin(Builtin::Last) => Leaf::Last,
            Expr::Builtin(Builtin::Origin) => Leaf::Origin,
            _ => return None,
        };
        self.g.reads_only_var(e, var, mover).then_some((leaf, mover))
    }

    /// Whether [`Lower::site_table`] makes a table of `e`.
    pub(super) fn is_site_table(&self, e: &Expr) -> bool {
        nodes(e) >= SMALLEST && self.table_key(e).is_some()
    }

    /// `e` as a lookup in a table by its site (or number, and the mover),
    /// if it is a function of those alone (see the module's comment).
    pub(super) fn site_table(&mut self, e: &Expr) -> Option<Fx> {
        if nodes(e) < SMALLEST {
            return None;
        }
        let (leaf, mover) = self.table_key(e)?;
        // The function itself, evaluated where the table has no value.
        self.tables = false;
        let f = self.x(e);
        self.tables = true;
        let n = self.g.sites.len();
        let table: OnceLock<Box<[i64]>> = OnceLock::new();
        if !mover {
            return Some(Box::new(move |p, vm| {
                if let Ok(v) = leaf.get(vm)
                    && (0..n as i64).contains(&v)
                {
                    let r = table.get_or_init(|| tabulate(p, vm, &f, leaf, n, 1))[v as usize];
                    if r != MISSING {
                        return Ok(r);
                    }
                }
                f(p, vm)
            }));
        }
        let players = self.g.players.len();
        Some(Box::new(move |p, vm| {
            if let Ok(v) = leaf.get(vm)
                && (0..n as i64).contains(&v)
                && let Some(&r) = table
                    .get_or_init(|| tabulate(p, vm, &f, leaf, n, players))
                    .get(vm.f.mover as usize * n + v as usize)
                && r != MISSING
            {
                return Ok(r);
            }
            f(p, vm)
        }))
    }

    /// `sum(v in lo..hi: count(x))` (`slot`: `v`'s) as a [`CountedRange`],
    /// if `x` is a site worked out from `v` alone, or `v` and the mover,
    /// and the range lies within the numbers a table holds; `None` for any
    /// other sum.
    pub(super) fn counted_range(&mut self, slot: usize, (lo, hi): (i64, i64), x: &Expr) -> Option<CountedRange> {
        let n = self.g.sites.len();
        if !(0 <= lo && lo <= hi && (hi as usize) < n) || self.ty(x) != Type::Site {
            return None;
        }
        let (leaf, mover) = self.table_key(x)?;
        if leaf != Leaf::Local(slot) {
            return None;
        }
        self.tables = false;
        let f = self.x(x);
        self.tables = true;
        let players = if mover { self.g.players.len() } else { 1 };
        let range = (lo as usize, hi as usize);
        Some(CountedRange { f, leaf, players, n, range, rows: OnceLock::new() })
    }
}

/// A sum of counts over a fixed range of numbers, each number's site a
/// function of it (and the mover) alone ([`Lower::counted_range`]): for
/// each player (one, if the sites do not depend on the mover), the sites
/// of the range, or none where the function is not a site at some number.
pub(super) struct CountedRange {
    f: Fx,
    leaf: Leaf,
    players: usize,
    n: usize,
    range: (usize, usize),
    rows: OnceLock<Box<[Row]>>,
}

/// A player's sites of a [`CountedRange`]; `None`: summed as written.
type Row = Option<Box<[SiteId]>>;

impl CountedRange {
    /// The sum, its steps' fuel spent at once (short exactly when a step
    /// each would have been); `None` where it is summed as written: a
    /// range whose function is not a site at every number (it goes wrong
    /// there, with its message), a game of colours or that watches banks.
    #[inline]
    pub(super) fn sum(&self, p: &Program, vm: &mut Vm) -> Option<Res<i64>> {
        if vm.colours != 1 || !vm.banks.is_empty() {
            return None;
        }
        let rows = self.rows.get_or_init(|| self.rows(p, vm));
        let row = rows.get(if self.players > 1 { vm.f.mover as usize } else { 0 })?.as_deref()?;
        if let Err(e) = vm.spend(row.len() as u64) {
            return Some(Err(e));
        }
        let counts = &vm.pos.counts;
        Some(Ok(row.iter().map(|&s| counts[s as usize] as i64).sum()))
    }

    #[cold]
    fn rows(&self, p: &Program, vm: &mut Vm) -> Box<[Row]> {
        let table = tabulate(p, vm, &self.f, self.leaf, self.n, self.players);
        let (lo, hi) = self.range;
        let site = |v: i64| (0..self.n as i64).contains(&v).then_some(v as SiteId);
        table.chunks(self.n).map(|values| values[lo..=hi].iter().map(|&v| site(v)).collect()).collect()
    }
}

/// The number `e` is, if it is a constant (once folded).
pub(super) fn fixed_int(e: &Expr) -> Option<i64> {
    match e.unspanned() {
        Expr::Const(Value::Int(k)) => Some(*k),
        _ => None,
    }
}

/// `e` with every `mover` in it the player `pl`.
fn as_player(e: &mut Expr, pl: PlayerId) {
    if matches!(e, Expr::Builtin(Builtin::Mover)) {
        *e = Expr::Const(Value::Player(pl));
        return;
    }
    e.each_child_mut(&mut |c| as_player(c, pl));
}

/// The variables `e` reads (locals and built-in names), each once; false,
/// and the search given up, at a third or at a part no table is made of
/// (a count, state, a loop: see `Game::reads_only_var`).
fn variables(e: &Expr, out: &mut Vec<Expr>) -> bool {
    match e {
        Expr::Local(_) | Expr::Builtin(_) => {
            if !out.contains(e) {
                out.push(e.clone());
            }
            return out.len() <= 2;
        }
        Expr::Count(..) | Expr::State(_) | Expr::SiteState(..) | Expr::Quant(..) | Expr::Filter(..) => return false,
        _ => {}
    }
    let mut ok = true;
    e.each_child(&mut |c| ok = ok && variables(c, out));
    ok
}

/// The member of family `fam` whose key is `k` (of type `key_ty`, as the
/// program holds it): from the array by key, else looked for in the
/// family, going wrong if it has none.
#[inline(always)]
fn member(p: &Program, dense: &[Option<i64>], fam: usize, key_ty: Type, k: i64) -> Res<i64> {
    if let Some(&Some(v)) = usize::try_from(k).ok().and_then(|k| dense.get(k)) {
        return Ok(v);
    }
    let key = dec(key_ty, k);
    match p.game.families[fam].members.get(&key) {
        Some(v) => Ok(enc(*v)),
        None => Err(Fault::error(format!("`{}` has no member {}", p.game.families[fam].name, p.game.key_text(key)))),
    }
}

/// A family's members in an array by key, for keys of type `key_ty`: at
/// the number the program holds for each key, its member as the program
/// holds it (`None`: no member).
fn members_by_key(members: &BTreeMap<Value, Value>, key_ty: Type) -> Members {
    // Below this, distinct numbers are distinct keys (a player is held as
    // a byte).
    let distinct = match key_ty {
        Type::Player => 256,
        Type::Site | Type::Int => KEYS,
        _ => 0,
    };
    let held = |key: &Value| Some(enc(*key)).filter(|&k| (0..distinct).contains(&k) && dec(key_ty, k) == *key);
    let len = members.keys().filter_map(held).max().map_or(0, |k| k + 1);
    (0..len).map(|k| members.get(&dec(key_ty, k)).map(|v| enc(*v))).collect()
}

/// The value of `f` with `leaf` at each of the `n` sites (or numbers from
/// 0), for each of `players` movers (one: the mover as it is), by mover
/// first; the variables are given back their values after.
fn tabulate(p: &Program, vm: &mut Vm, f: &Fx, leaf: Leaf, n: usize, players: usize) -> Box<[i64]> {
    let local = match leaf {
        Leaf::Local(s) => Some(s),
        _ => None,
    };
    let (last, origin, mover) = (vm.f.last, vm.f.origin, vm.f.mover);
    let kept = local.map(|s| vm.locals[s]);
    let mut table = Vec::with_capacity(n * players);
    for pl in 0..players {
        if players > 1 {
            vm.f.mover = pl as crate::engine::game::PlayerId;
        }
        for site in 0..n {
            match local {
                Some(s) => vm.locals[s] = site as i64,
                None if leaf == Leaf::Origin => vm.f.origin = site as SiteId,
                None => vm.f.last = site as SiteId,
            }
            table.push(f(p, vm).unwrap_or(MISSING));
        }
    }
    if let (Some(s), Some(v)) = (local, kept) {
        vm.locals[s] = v;
    }
    vm.f.last = last;
    vm.f.origin = origin;
    vm.f.mover = mover;
    table.into_boxed_slice()
}

/// The nodes of an expression, spans aside, a `step` counted as the
/// look-ups it makes (the track, the place on it, the site there) and the
/// arithmetic between: what a table of it saves.
fn weight(e: &Expr) -> usize {
    let mut n = match e {
        Expr::Spanned(..) => 0,
        Expr::Step(..) => STEP_WEIGHT,
        _ => 1,
    };
    e.each_child(&mut |c| n += weight(c));
    n
}

/// The nodes of an expression, spans aside.
pub(super) fn nodes(e: &Expr) -> usize {
    let mut n = !matches!(e, Expr::Spanned(..)) as usize;
    e.each_child(&mut |c| n += nodes(c));
    n
}

/// The first local variable or built-in name `e` reads.
pub(super) fn first_variable(e: &Expr) -> Option<Expr> {
    if matches!(e, Expr::Local(_) | Expr::Builtin(_)) {
        return Some(e.clone());
    }
    let mut found = None;
    e.each_child(&mut |c| {
        if found.is_none() {
            found = first_variable(c);
        }
    });
    found
}
