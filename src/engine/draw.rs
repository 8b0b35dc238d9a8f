//! Drawing a legal move at random without trying every candidate.
//!
//! A move whose legality is only known by making it (a `require`, a relay
//! with a lap limit, a sowing off a linear track) is a *candidate* until it
//! is tried. Drawing uniformly among the candidates not yet refused, trying
//! the one drawn and drawing again when it is refused, gives every legal move
//! the same chance, as drawing from the list of legal moves does, but tries
//! one candidate where most are legal instead of all of them. When no
//! candidate needs trying, the draw is the one a list of the legal moves
//! would give (one number drawn, the same way). With an `avoid`, a legal
//! move whose result it names is set aside and drawn from only if every
//! legal move is.

use super::Move;
use rand::Rng;

/// The candidates drawn from: groups of moves (a move and how many orders
/// of colours it comes in), and the numbers (counted across the groups, in
/// order) of those refused so far, kept sorted.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    pub groups: Vec<(Move, u128)>,
    /// Legal moves drawn and set aside because an `avoid` names their result.
    pub avoided: Vec<Move>,
    refused: Vec<u128>,
    total: u128,
    /// Every group is one move (no orders of colours): the k-th candidate
    /// is the k-th group.
    singles: bool,
}

impl Candidates {
    /// Empties the lists (their space is kept).
    pub(crate) fn clear(&mut self) {
        self.groups.clear();
        self.avoided.clear();
        self.refused.clear();
        self.total = 0;
    }

    /// Call once the groups are listed. The other lists are given room
    /// for a candidate a group (they grow with the groups, so once the
    /// buffers are warm a draw allocates nothing).
    pub(crate) fn counted(&mut self) {
        self.singles = self.groups.iter().all(|g| g.1 == 1);
        self.total = if self.singles {
            self.groups.len() as u128
        } else {
            self.groups.iter().fold(0u128, |t, g| t.saturating_add(g.1))
        };
        self.refused.reserve(self.groups.len());
        self.avoided.reserve(self.groups.len());
    }

    /// A candidate not refused yet, drawn uniformly, with its number; `None`
    /// when every one has been refused.
    pub(crate) fn draw(&self, rng: &mut impl Rng) -> Option<(Move, u128)> {
        let left = self.total - self.refused.len() as u128;
        if left == 0 {
            return None;
        }
        let mut k =
            if left <= u64::MAX as u128 { rng.gen_range(0..left as u64) as u128 } else { rng.gen_range(0..left) };
        // The k-th number not refused: step over the refused ones below it.
        for &r in &self.refused {
            if r <= k {
                k += 1;
            } else {
                break;
            }
        }
        let number = k;
        if self.singles {
            return Some((self.groups[k as usize].0, number));
        }
        self.groups.iter().find_map(|&(mv, size)| {
            if k < size {
                Some((Move { order: mv.order + k, ..mv }, number))
            } else {
                k -= size;
                None
            }
        })
    }

    /// The pass of a player who has no move, drawn as from a list of one
    /// legal move (one number is drawn, so the games that follow are the
    /// ones a list would give).
    pub(crate) fn pass(rng: &mut impl Rng) -> Move {
        rng.gen_range(0..1u64);
        Move::PASS
    }

    /// The candidate with this number was tried and refused.
    pub(crate) fn refuse(&mut self, number: u128) {
        let at = self.refused.partition_point(|&r| r < number);
        self.refused.insert(at, number);
    }

    /// Whether so many have been refused that listing the legal moves is
    /// the cheaper way on ([`REFUSALS`]).
    pub(crate) fn mostly_refused(&self) -> bool {
        self.refused.len() >= REFUSALS
    }
}

/// Refusals after which a draw lists the legal moves instead (each refusal
/// makes the next draw step over one more number: past a few dozen, rules
/// that refuse most of their candidates are better listed once). Drawing
/// from the list is uniform too, so the draw stays uniform.
pub(crate) const REFUSALS: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn mv(def: u16) -> Move {
        Move { def, args: [0; 4], order: 0 }
    }

    #[test]
    fn a_draw_never_returns_a_refused_candidate_and_covers_the_rest_evenly() {
        let mut c = Candidates::default();
        c.groups.extend([(mv(0), 1), (mv(1), 3), (mv(2), 1)]);
        c.counted();
        c.refuse(3);
        c.refuse(0);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut seen = [0u32; 5];
        for _ in 0..3000 {
            let (m, n) = c.draw(&mut rng).unwrap();
            seen[n as usize] += 1;
            // Numbers 1 and 2 are orders 0 and 1 of the second group; 4 is the third.
            match n {
                1 | 2 => assert_eq!((m.def, m.order), (1, n - 1)),
                4 => assert_eq!((m.def, m.order), (2, 0)),
                _ => panic!("drew refused candidate {n}"),
            }
        }
        assert_eq!((seen[0], seen[3]), (0, 0));
        for k in [1, 2, 4] {
            assert!((900..1100).contains(&seen[k]), "{seen:?}");
        }
        c.refuse(2);
        c.refuse(1);
        c.refuse(4);
        assert_eq!(c.draw(&mut rng), None);
    }

    #[test]
    fn moves_of_one_each_are_drawn_by_their_place() {
        let mut c = Candidates::default();
        c.groups.extend((0..5).map(|d| (mv(d), 1)));
        c.counted();
        c.refuse(1);
        c.refuse(3);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..200 {
            let (m, n) = c.draw(&mut rng).unwrap();
            assert!([0, 2, 4].contains(&n), "drew refused {n}");
            assert_eq!(m.def as u128, n);
        }
    }

    #[test]
    fn with_nothing_refused_the_draw_is_a_draw_from_the_list() {
        let mut c = Candidates::default();
        c.groups.extend([(mv(0), 2), (mv(1), 1)]);
        c.counted();
        let mut a = ChaCha8Rng::seed_from_u64(9);
        let mut b = ChaCha8Rng::seed_from_u64(9);
        let list = [(0, 0), (0, 1), (1, 0)];
        for _ in 0..50 {
            let (m, _) = c.draw(&mut a).unwrap();
            assert_eq!((m.def, m.order), list[b.gen_range(0..3u64) as usize]);
        }
    }
}
