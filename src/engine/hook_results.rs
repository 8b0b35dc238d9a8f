//! The results of the rhai hooks, kept by their arguments. A hook sees only
//! its arguments and the game's tracks (`grammar/README.md`, "hook"), so
//! the same call always answers the same: a result kept is the result the
//! hook would give again, and rules that call a hook at many moves (at
//! every sowing that ends in an empty hole, with the last hole and the
//! track as arguments) run rhai once for each different call instead of
//! once a move. Only answers are kept, never failures (a hook stopped by
//! its time limit may well finish another time).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::game::Value;

/// Calls of more arguments than this are not kept.
pub(crate) const MOST_ARGS: usize = 4;

/// Most results kept; the table starts again empty when it is full, so that
/// a hook of a number called with ever new numbers cannot fill the memory.
const MOST_KEPT: usize = 1 << 16;

/// A call: the hook and its arguments (missing ones `Value::None`).
pub(crate) type Call = (u16, [Value; MOST_ARGS]);

#[derive(Clone, Default)]
pub(crate) struct HookResults {
    kept: HashMap<Call, Value, BuildHasherDefault<CallHasher>>,
}

impl HookResults {
    pub(crate) fn get(&self, call: &Call) -> Option<Value> {
        self.kept.get(call).copied()
    }

    pub(crate) fn keep(&mut self, call: Call, result: Value) {
        if self.kept.len() >= MOST_KEPT {
            self.kept.clear();
        }
        self.kept.insert(call, result);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}

/// A multiplicative hash of the few words of a call (the table's keys are
/// made by the engine, not by an adversary, and std's SipHash would cost
/// more than the lookup saves in games whose hooks are cheap). A call
/// hashes its hook as a `u16`, its values' kinds as `isize`s and their
/// payloads as `u8`, `u16`, `i64` and `u64`: each is one word here (the
/// signed ones reach `write_usize` and `write_u64` by `Hasher`'s defaults).
#[derive(Default)]
pub(crate) struct CallHasher(u64);

impl Hasher for CallHasher {
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_result_is_found_by_its_call_alone() {
        let mut r = HookResults::default();
        let call = |h: u16, s: u16| (h, [Value::Site(s), Value::Track(1), Value::None, Value::None]);
        r.keep(call(0, 3), Value::Site(5));
        assert_eq!(r.get(&call(0, 3)), Some(Value::Site(5)));
        // Another argument, or another hook with the same arguments.
        assert_eq!(r.get(&call(0, 4)), None);
        assert_eq!(r.get(&call(1, 3)), None);
        // Values of different kinds with the same number are different calls.
        let as_int = (0, [Value::Int(3), Value::Track(1), Value::None, Value::None]);
        assert_eq!(r.get(&as_int), None);
    }

    #[test]
    fn a_full_table_starts_again() {
        let mut r = HookResults::default();
        for i in 0..MOST_KEPT as i64 {
            r.keep((0, [Value::Int(i), Value::None, Value::None, Value::None]), Value::Int(i));
        }
        assert_eq!(r.len(), MOST_KEPT);
        r.keep((0, [Value::Int(-1), Value::None, Value::None, Value::None]), Value::Int(7));
        assert_eq!(r.len(), 1);
        assert_eq!(r.get(&(0, [Value::Int(-1), Value::None, Value::None, Value::None])), Some(Value::Int(7)));
    }
}
