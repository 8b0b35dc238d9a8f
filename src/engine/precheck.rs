//! Which moves must be tried to know whether they are legal: a look at a
//! move's statements by the compiler, for both executors; and which relays
//! never relay, which the executor's program drops (`program/fold.rs`).

use super::game::{BinOp, Domain, Expr, Game, Param, Relay, Stmt, StmtKind, Value};

/// Whether a move's legality can only be known by making it: a `require`, a
/// `take N` that may ask for more than there is, or a sowing (of an empty
/// source, or off the end of a linear track).
pub(crate) fn needs_trial(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Require(_) => true,
        // A sowing fails when its source is empty or it runs off a linear
        // track; see `precheck` for the common case that needs no trial.
        StmtKind::Sow { .. } => true,
        StmtKind::Take { amount, .. } => amount.is_some(),
        StmtKind::If { branches, otherwise } => branches.iter().flat_map(|b| &b.1).chain(otherwise).any(needs_trial),
        StmtKind::For { body, .. } => body.iter().any(needs_trial),
        _ => false,
    }
}

/// A move whose first statement sows all of a chosen site along a cyclic
/// track (a fixed one, or one of a family of cyclic tracks: `loop[mover]`)
/// can only fail when that site is empty: the executor checks that directly
/// instead of trying the move. So can one whose sowing comes after
/// statements that only set state or name values (`let`, `set`: they cannot
/// refuse a move, nor change a count, nor the chosen site). A relay with a
/// limit on its laps, or statements for each counter that can refuse the
/// move, still need the move tried; but the move is still refused when the
/// site is empty, so when the choice tests nothing else (no `where`, or
/// only `count(x) > 0`) the check replaces that test and spares a trial of
/// each empty site. Returns the choice to check and how many leading
/// statements the check covers (not the sowing, when it needs a trial).
pub(crate) fn precheck(body: &[Stmt], params: &[Param], game: &Game) -> (Option<usize>, usize) {
    let cyclic = |t: &Value| matches!(t, Value::Track(t) if game.tracks[*t as usize].cyclic);
    let cyclic_track = |e: &Expr| match e {
        Expr::Const(t) => cyclic(t),
        Expr::Family(f, _) => game.families[*f as usize].members.values().all(cyclic),
        _ => false,
    };
    let first =
        body.iter().position(|s| !matches!(s.kind, StmtKind::Let { .. } | StmtKind::Set { .. })).unwrap_or(body.len());
    let named = |slot: u8| body[..first].iter().any(|s| matches!(s.kind, StmtKind::Let { var, .. } if var == slot));
    if let Some(Stmt {
        kind: StmtKind::Sow { amount: None, source: Expr::Local(slot), track, relay, each, lap, .. },
        ..
    }) = body.get(first)
        && cyclic_track(track)
        && !named(*slot)
        && let Some(i) = params.iter().position(|p| p.slot == *slot && matches!(p.domain, Domain::Set(_)))
    {
        let tried =
            relay.as_ref().is_some_and(|r| r.max.is_some() && !dead(r)) || each.iter().chain(lap).any(needs_trial);
        if !tried {
            return (Some(i), first + 1);
        }
        // Else the check only pays where it is the choice's whole test.
        if params[i].filter.as_ref().is_none_or(|f| f.is_nonempty_test(*slot)) {
            return (Some(i), first);
        }
    }
    (None, 0)
}

/// Whether a relay never relays: its condition is fixed false by the
/// options (Moruba's `relay while relay and count(last) > 1` with the
/// option off), as written (`false`, `false and x`, `false or false`, `not
/// true`) or once folded, and its limit on laps, worked out before the
/// first lap, is fixed too (one that is not may go wrong there, and must).
/// Its move then need not be tried for it: the compiler (for the rules as
/// written) and the folded program judge alike, so both executors try the
/// same moves and meet the same errors when they do.
pub(crate) fn dead(r: &Relay) -> bool {
    fixed(&r.cond) == Some(false) && r.max.as_ref().is_none_or(|m| matches!(m, Expr::Const(Value::Int(_))))
}

/// The value of a condition fixed whatever the position, where working it
/// out asks nothing that can go wrong: `x and false` asks `x`, so is not.
fn fixed(e: &Expr) -> Option<bool> {
    match e {
        Expr::Const(Value::Bool(b)) => Some(*b),
        Expr::Not(x) => fixed(x).map(|b| !b),
        Expr::Bin(BinOp::And, a, b) => match fixed(a)? {
            false => Some(false),
            true => fixed(b),
        },
        Expr::Bin(BinOp::Or, a, b) => match fixed(a)? {
            true => Some(true),
            false => fixed(b),
        },
        _ => None,
    }
}
