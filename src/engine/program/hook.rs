//! Calls of rhai hooks: the arguments worked out, the result kept by them
//! (see [`crate::engine::hook_results`]: a hook sees nothing but its
//! arguments, so rhai runs once for each different call).

use super::expr::{Opnd, SetOpnd, dec, enc};
use super::{Fx, Lower};
use crate::engine::game::{Expr, Type, Value};
use crate::engine::hook_results::{Call, MOST_ARGS};
use crate::engine::vm::{Fault, none_here};

enum Arg {
    Scalar(Type, Opnd),
    Set(SetOpnd),
}

impl Lower<'_> {
    pub(super) fn hook(&mut self, h: u16, args: &[Expr]) -> Fx {
        let args: Vec<Arg> = args
            .iter()
            .map(|a| match self.ty(a) {
                Type::Set => Arg::Set(self.set(a)),
                ty => Arg::Scalar(ty, self.opnd(a)),
            })
            .collect();
        let returns = self.ty(&Expr::Hook(h, vec![]));
        let kept = args.len() <= MOST_ARGS;
        Box::new(move |p, vm| {
            let mut call: Call = (h, [Value::None; MOST_ARGS]);
            let mut more = Vec::new();
            for (i, a) in args.iter().enumerate() {
                let v = match a {
                    Arg::Scalar(ty, x) => dec(*ty, x.get(p, vm)?),
                    Arg::Set(s) => s.get(p, vm)?.value(),
                };
                match call.1.get_mut(i) {
                    Some(slot) => *slot = v,
                    None => more.push(v),
                }
            }
            let v = match kept.then(|| vm.hook_results.get(&call)).flatten() {
                Some(v) => v,
                None => {
                    let hooks = p.game.hooks.as_ref().ok_or_else(|| Fault::error("no hooks".into()))?;
                    let all: Vec<Value> = call.1[..args.len().min(MOST_ARGS)].iter().copied().chain(more).collect();
                    let v = hooks.call(&p.game, h, &all).map_err(|(m, span)| Fault::at(m, span))?;
                    if kept {
                        vm.hook_results.keep(call, v);
                    }
                    v
                }
            };
            match (v, returns) {
                (Value::None, Type::Int) => Err(none_here("a number")),
                (v, _) => Ok(enc(v)),
            }
        })
    }
}
