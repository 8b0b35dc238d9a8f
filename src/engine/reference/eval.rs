//! The reference executor's expressions, evaluated node by node.

use super::*;

impl RefEngine {
    pub(super) fn set_len(&self, v: Value) -> Res<usize> {
        match v {
            Value::Site(_) => Ok(1),
            Value::Set(s) => Ok(self.game.sets[s as usize].len()),
            Value::Mask(m) => Ok(m.count_ones() as usize),
            other => Err(type_halt("a set of sites", other)),
        }
    }

    pub(super) fn set_item(&self, v: Value, k: usize) -> Res<SiteId> {
        match v {
            Value::Site(s) => Ok(s),
            Value::Set(s) => Ok(self.game.sets[s as usize][k]),
            Value::Mask(mut m) => {
                for _ in 0..k {
                    m &= m - 1;
                }
                Ok(m.trailing_zeros() as SiteId)
            }
            other => Err(type_halt("a set of sites", other)),
        }
    }

    /// The value of an expression. The common nodes are here, their
    /// operands of the commonest shapes read in place (see
    /// [`value_of`](Self::value_of)); the rest are in
    /// [`eval_cold`](Self::eval_cold), so that this function, called once a
    /// node, stays small.
    pub(super) fn eval(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        Ok(match e {
            Expr::Const(v) => *v,
            Expr::Local(s) => self.locals[*s as usize],
            Expr::Builtin(b) => match b {
                Builtin::Mover => Value::Player(f.mover),
                Builtin::Next => Value::Player(f.next),
                Builtin::Last => match f.last {
                    Some(s) => Value::Site(s),
                    None => {
                        return Err(Fault::error("`last` is used before any sowing of this move".into()));
                    }
                },
                Builtin::Ply => Value::Int(self.pos.turn.ply as i64),
                Builtin::Repetitions => Value::Int(self.repetitions() as i64),
                Builtin::Origin => match f.origin {
                    Some(s) => Value::Site(s),
                    None => {
                        return Err(Fault::error("`origin` is used before any sowing of this move".into()));
                    }
                },
                Builtin::Rounds => Value::Int(self.pos.turn.round as i64),
                Builtin::Starter => Value::Player(self.pos.turn.starter),
                Builtin::LastColour => match f.last_colour {
                    Some(c) => Value::Player(c),
                    None => {
                        return Err(Fault::error("`last-colour` is used before any sowing of this move".into()));
                    }
                },
            },
            Expr::Count(x, colour) => {
                let v = self.value_of(x, f)?;
                let colour = match colour {
                    Some(c) => Some(self.eval(c, f)?.player()?),
                    None => None,
                };
                let one = |e: &RefEngine, s: SiteId| match colour {
                    Some(c) => e.colour_count(s, c) as i64,
                    None => e.site_count(s) as i64,
                };
                if !self.banks.is_empty() {
                    self.read_all(v);
                }
                match v {
                    Value::Site(s) => Value::Int(one(self, s)),
                    Value::Set(set) => Value::Int(self.game.sets[set as usize].iter().map(|&s| one(self, s)).sum()),
                    Value::Mask(m) => {
                        Value::Int((0..64).filter(|b| m & (1 << b) != 0).map(|b| one(self, b as SiteId)).sum())
                    }
                    other => return Err(type_halt("a site", other)),
                }
            }
            Expr::State(v) => {
                let var = &self.game.state[*v as usize];
                match self.pos.vars[var.offset] {
                    // A value never set is false, 0 or none (grammar/README.md).
                    Value::None if var.ty == Type::Bool => Value::Bool(false),
                    Value::None if var.ty == Type::Int => Value::Int(0),
                    x => x,
                }
            }
            Expr::SiteState(v, x) => {
                let s = self.site_of(x, f)? as usize;
                self.check_kind(*v, s)?;
                let var = &self.game.state[*v as usize];
                match self.pos.vars[var.offset + s] {
                    // A per-site value never set is false, 0 or no value.
                    Value::None if var.ty == Type::Bool => Value::Bool(false),
                    Value::None if var.ty == Type::Int => Value::Int(0),
                    x => x,
                }
            }
            Expr::Owner(x) => {
                let s = self.site_of(x, f)?;
                match self.game.territory {
                    // Territory: the owner kept as state, for its kind of site.
                    Some((var, kind)) if self.game.sites[s as usize].kind == kind => {
                        match self.pos.vars[self.game.state[var as usize].offset + s as usize] {
                            v @ Value::Player(_) => v,
                            _ => Value::None,
                        }
                    }
                    _ => self.game.sites[s as usize].owner.map(Value::Player).unwrap_or(Value::None),
                }
            }
            Expr::OwnedSite(kind, p) => {
                let p = self.player_of(p, f)?;
                let k = kind.index();
                self.game.owned[k].get(p as usize).copied().flatten().map(Value::Site).unwrap_or(Value::None)
            }
            Expr::Relation(r, x) => {
                let s = self.site_of(x, f)?;
                match self.game.relations[*r as usize].1[s as usize] {
                    Some(t) => Value::Site(t),
                    None => {
                        return Err(Fault::error(format!(
                            "relation `{}` names no site for `{}`",
                            self.game.relations[*r as usize].0, self.game.sites[s as usize].name
                        )));
                    }
                }
            }
            Expr::IsKind(x, k) => {
                let s = self.site_of(x, f)?;
                Value::Bool(self.game.sites[s as usize].kind == *k)
            }
            Expr::KindSet(kind, p) => {
                let p = self.player_of(p, f)?;
                match self.game.territory {
                    // Territory: the sites of the kind the player owns now.
                    Some((var, k)) if k == *kind => {
                        let offset = self.game.state[var as usize].offset;
                        let mut mask = 0u64;
                        for s in (0..self.game.sites.len()).filter(|&s| self.game.sites[s].kind == k) {
                            if self.pos.vars[offset + s] == Value::Player(p) {
                                if s >= 64 {
                                    return Err(Fault::error(
                                        "a player's sites, when their owners change, can be only among the first 64"
                                            .into(),
                                    ));
                                }
                                mask |= 1 << s;
                            }
                        }
                        Value::Mask(mask)
                    }
                    _ => Value::Set(self.game.kind_sets[kind.index()][p as usize]),
                }
            }
            Expr::Not(x) => Value::Bool(!self.value_of(x, f)?.truthy()),
            Expr::Bin(op, a, b) => {
                match op {
                    BinOp::And => {
                        return Ok(Value::Bool(self.value_of(a, f)?.truthy() && self.value_of(b, f)?.truthy()));
                    }
                    BinOp::Or => {
                        return Ok(Value::Bool(self.value_of(a, f)?.truthy() || self.value_of(b, f)?.truthy()));
                    }
                    _ => {}
                }
                let x = self.value_of(a, f)?;
                let y = self.value_of(b, f)?;
                match op {
                    BinOp::Eq => Value::Bool(x == y),
                    BinOp::Ne => Value::Bool(x != y),
                    // Sites compare by the order they are declared in.
                    _ if matches!((x, y), (Value::Site(_), Value::Site(_))) => {
                        let (Value::Site(x), Value::Site(y)) = (x, y) else { unreachable!() };
                        Value::Bool(match op {
                            BinOp::Lt => x < y,
                            BinOp::Le => x <= y,
                            BinOp::Gt => x > y,
                            _ => x >= y,
                        })
                    }
                    _ => {
                        let (x, y) = (x.int()?, y.int()?);
                        match op {
                            BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
                            BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
                            BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
                            BinOp::Div | BinOp::Mod if y == 0 => {
                                return Err(Fault::error("division by zero".into()));
                            }
                            BinOp::Div => Value::Int(x.checked_div_euclid(y).ok_or_else(overflow)?),
                            BinOp::Mod => Value::Int(x.checked_rem_euclid(y).ok_or_else(overflow)?),
                            BinOp::Lt => Value::Bool(x < y),
                            BinOp::Le => Value::Bool(x <= y),
                            BinOp::Gt => Value::Bool(x > y),
                            _ => Value::Bool(x >= y),
                        }
                    }
                }
            }
            _ => return self.eval_cold(e, f),
        })
    }

    /// An operand's value: constants, local variables and the mover read
    /// in place, anything else evaluated.
    #[inline(always)]
    pub(super) fn value_of(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        match e {
            Expr::Const(v) => Ok(*v),
            Expr::Local(s) => Ok(self.locals[*s as usize]),
            Expr::Builtin(Builtin::Mover) => Ok(Value::Player(f.mover)),
            _ => self.eval(e, f),
        }
    }

    /// An operand that must be a site.
    #[inline(always)]
    pub(super) fn site_of(&mut self, e: &Expr, f: &Frame) -> Res<SiteId> {
        match (e, f.last) {
            (Expr::Builtin(Builtin::Last), Some(s)) => Ok(s),
            _ => self.value_of(e, f)?.site(),
        }
    }

    /// An operand that must be a player.
    #[inline(always)]
    pub(super) fn player_of(&mut self, e: &Expr, f: &Frame) -> Res<PlayerId> {
        self.value_of(e, f)?.player()
    }

    /// The nodes met less often than those of [`eval`](Self::eval).
    #[inline(never)]
    pub(super) fn eval_cold(&mut self, e: &Expr, f: &Frame) -> Res<Value> {
        Ok(match e {
            // Made only in the executor's program (`program/cse.rs`), never
            // in the rules this executor runs: worked out as written.
            Expr::Keep(_, x) | Expr::Kept(_, x) => self.eval(x, f)?,
            Expr::Member(x, set) => {
                let s = self.site_of(x, f)?;
                let set = self.eval(set, f)?;
                let mut found = false;
                for k in 0..self.set_len(set)? {
                    if self.set_item(set, k)? == s {
                        found = true;
                        break;
                    }
                }
                Value::Bool(found)
            }
            Expr::Filter(set, slot, cond) => {
                let set = self.eval(set, f)?;
                let mut mask = 0u64;
                for k in 0..self.set_len(set)? {
                    let s = self.set_item(set, k)?;
                    if s >= 64 {
                        return Err(Fault::error("a set filtered during play can hold only the first 64 sites".into()));
                    }
                    self.locals[*slot as usize] = Value::Site(s);
                    if self.eval(cond, f)?.truthy() {
                        mask |= 1 << s;
                    }
                }
                Value::Mask(mask)
            }
            Expr::Cond(c, a, b) => {
                if self.eval(c, f)?.truthy() {
                    self.eval(a, f)?
                } else {
                    self.eval(b, f)?
                }
            }
            Expr::OnTrack(x, t) => {
                let s = self.site_of(x, f)?;
                let t = self.eval(t, f)?.track()?;
                Value::Bool(self.game.tracks[t as usize].position[s as usize].is_some())
            }
            Expr::Random(a, b) => {
                let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                if hi < lo {
                    return Err(Fault::error(format!("random({lo}, {hi}): the range is empty")));
                }
                // As wide as 2^64 numbers (the width wraps to 0): any draw.
                let width = (hi.wrapping_sub(lo) as u64).wrapping_add(1);
                let r = self.random();
                Value::Int(lo.wrapping_add(if width == 0 { r } else { r % width } as i64))
            }
            Expr::Opponent(p) => Value::Player(1 - self.player_of(p, f)?),
            // Arithmetic is spanned where it is written: an overflow in it
            // is reported there, as the executor reports it.
            Expr::Spanned(span, x) => match self.eval(x, f) {
                Err(Fault(Some(h))) if matches!(&*h, Halt::Error(m) if m == TOO_LARGE) => {
                    return Err(Fault::at(self.game.too_large(*span), *span));
                }
                v => v?,
            },
            Expr::Before(x) => {
                if !f.moving || self.undo_turns.is_empty() {
                    return Err(Fault::error("`before` is used where no move is being made".into()));
                }
                self.swap_with_saved();
                let r = self.eval(x, f);
                self.swap_with_saved();
                r?
            }
            Expr::Step(x, t, n) => {
                let s = self.site_of(x, f)?;
                let t = self.eval(t, f)?.track()?;
                let n = self.eval(n, f)?.int()?;
                let track = &self.game.tracks[t as usize];
                let Some(at) = track.position[s as usize] else {
                    return Err(Fault::error(format!(
                        "`{}` is not on track `{}`",
                        self.game.sites[s as usize].name, track.name
                    )));
                };
                // Walked place by place: round a cyclic track (forward, as
                // far as `n` comes to), off either end of a linear one to none.
                let len = track.sites.len() as i64;
                let (mut place, dir, walk) = match track.cyclic {
                    true => (at as i64, 1, n.rem_euclid(len)),
                    false => (at as i64, n.signum(), n.unsigned_abs().min(len as u64 + 1) as i64),
                };
                for _ in 0..walk {
                    place += dir;
                    if place == len && track.cyclic {
                        place = 0;
                    }
                }
                match usize::try_from(place).ok().and_then(|k| track.sites.get(k)) {
                    Some(&s) => Value::Site(s),
                    None => Value::None,
                }
            }
            Expr::First(x) => {
                let set = self.eval(x, f)?;
                match self.set_len(set)? {
                    0 => Value::None,
                    _ => Value::Site(self.set_item(set, 0)?),
                }
            }
            Expr::Side(p) => {
                let p = self.player_of(p, f)?;
                let side = self.game.partners.iter().find(|g| g.contains(&p)).map_or(p, |g| g[0]);
                Value::Player(side)
            }
            Expr::Hook(h, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, f)?);
                }
                let g = self.game.clone();
                let hooks = g.hooks.as_ref().ok_or_else(|| Fault::error("no hooks".into()))?;
                hooks.call(&g, *h, &vals).map_err(|(m, span)| Fault::at(m, span))?
            }
            Expr::Index(x) => {
                let s = self.site_of(x, f)?;
                match &self.game.sites[s as usize].family {
                    Some((_, i)) => Value::Int(*i),
                    None => {
                        return Err(Fault::error(format!(
                            "`{}` belongs to no family, so it has no index",
                            self.game.sites[s as usize].name
                        )));
                    }
                }
            }
            Expr::Family(fam, x) => {
                let key = self.eval(x, f)?;
                match self.game.families[*fam as usize].members.get(&key) {
                    Some(v) => *v,
                    None => {
                        return Err(Fault::error(format!(
                            "`{}` has no member {}",
                            self.game.families[*fam as usize].name,
                            self.game.key_text(key)
                        )));
                    }
                }
            }
            Expr::Neg(x) => Value::Int(self.eval(x, f)?.int()?.checked_neg().ok_or_else(overflow)?),
            Expr::Min(a, b) => Value::Int(self.eval(a, f)?.int()?.min(self.eval(b, f)?.int()?)),
            Expr::Max(a, b) => Value::Int(self.eval(a, f)?.int()?.max(self.eval(b, f)?.int()?)),
            Expr::Quant(q, slot, dom, body) if matches!(&**dom, Domain::Walk { .. }) => {
                let Domain::Walk { track, from, backwards, cond } = &**dom else { unreachable!("a walk") };
                let (mut acc, mut any, mut all) = (0i64, false, true);
                let mut frame = *f;
                self.walk((track, from, *backwards, cond.as_deref()), *slot, &mut frame, &mut |r, f| {
                    let v = r.eval(body, f)?;
                    Ok(match q {
                        Quant::Sum => {
                            acc = acc.checked_add(v.int()?).ok_or_else(overflow)?;
                            false
                        }
                        Quant::Any => {
                            any = v.truthy();
                            any
                        }
                        Quant::All => {
                            all = v.truthy();
                            !all
                        }
                    })
                })?;
                match q {
                    Quant::Sum => Value::Int(acc),
                    Quant::Any => Value::Bool(any),
                    Quant::All => Value::Bool(all),
                }
            }
            Expr::Quant(q, slot, dom, body) => {
                // The values the variable takes: players, numbers or sites.
                let (lo, hi, set) = match &**dom {
                    Domain::Players => (0, self.game.players.len() as i64 - 1, None),
                    Domain::Range(a, b) => {
                        let (lo, hi) = (self.eval(a, f)?.int()?, self.eval(b, f)?.int()?);
                        check_range(lo, hi)?;
                        (lo, hi, None)
                    }
                    Domain::Set(s) => {
                        let set = self.eval(s, f)?;
                        (0, self.set_len(set)? as i64 - 1, Some(set))
                    }
                    Domain::Arrangements(_) | Domain::Tracks | Domain::Walk { .. } => {
                        return Err(Fault::error("a quantifier over arrangements or tracks".into()));
                    }
                };
                let mut acc: i64 = 0;
                let mut any = false;
                let mut all = true;
                for v in lo..=hi {
                    self.tick()?;
                    self.locals[*slot as usize] = match (set, &**dom) {
                        (Some(set), _) => Value::Site(self.set_item(set, v as usize)?),
                        (None, Domain::Players) => Value::Player(v as u8),
                        _ => Value::Int(v),
                    };
                    let r = self.eval(body, f)?;
                    match q {
                        Quant::Sum => acc = acc.checked_add(r.int()?).ok_or_else(overflow)?,
                        Quant::Any => {
                            if r.truthy() {
                                any = true;
                                break;
                            }
                        }
                        Quant::All => {
                            if !r.truthy() {
                                all = false;
                                break;
                            }
                        }
                    }
                }
                match q {
                    Quant::Sum => Value::Int(acc),
                    Quant::Any => Value::Bool(any),
                    Quant::All => Value::Bool(all),
                }
            }
            Expr::CanMove(p) => {
                let p = self.player_of(p, f)?;
                Value::Bool(self.can_move(p)?)
            }
            Expr::Const(_)
            | Expr::Local(_)
            | Expr::Builtin(_)
            | Expr::Count(..)
            | Expr::State(_)
            | Expr::SiteState(..)
            | Expr::Owner(_)
            | Expr::OwnedSite(..)
            | Expr::Relation(..)
            | Expr::IsKind(..)
            | Expr::KindSet(..)
            | Expr::Not(_)
            | Expr::Bin(..) => return self.eval(e, f),
        })
    }
}
