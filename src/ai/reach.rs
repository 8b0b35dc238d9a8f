//! Futility bounds for the solver: how far the final margin can still move
//! from a position, when the score is a sum of counts each times a fixed
//! factor (Irving, Donkers and Uiterwijk's "futility pruning", for any rule
//! file whose score allows it).

use super::solve::INF;
use crate::engine::Engine;
use crate::engine::game::SiteId;

/// How far the margin can still move, when the score is a sum of counts,
/// each times a fixed factor, plus a fixed part. Then the margin is such a
/// sum too, with a factor `coef` for each count (worked out by scoring
/// positions of one counter), and every counter still free to move can
/// change it by at most the largest factor of its colour less its own, and
/// by at least the smallest less its own (0 among them: a counter that
/// leaves the game counts for nobody). A search for a value outside those
/// bounds is settled at once: Irving, Donkers and Uiterwijk's "futility
/// pruning", here for any rule file whose score allows it. The
/// counters of banks (when the table leaves them out) never move, or the
/// solve starts again (see [`Engine::set_banks`]).
#[derive(Clone)]
pub(crate) struct Reach {
    coef: Vec<i32>,
    /// The margin of a board without counters.
    constant: i64,
    /// Whether the counters at each place of the counts can move.
    free: Vec<bool>,
    /// The largest and smallest factor of each place's colour.
    most: Vec<i32>,
    least: Vec<i32>,
}

impl Reach {
    pub fn new(e: &mut Engine, banks: &[SiteId]) -> Option<Reach> {
        if !e.game.is_linear_and_fixed(&e.game.score.1) {
            return None;
        }
        let colours = e.game.colours;
        let base = e.position().clone();
        let mut zero = base.clone();
        zero.counts.iter_mut().for_each(|c| *c = 0);
        let mut probe = e.clone();
        probe.set_banks(&[]);
        let mut margin_of = |pos: &crate::engine::Position| -> Option<i64> {
            probe.set_position(pos.clone()).ok()?;
            Some(probe.score_of(0).ok()? - probe.score_of(1).ok()?)
        };
        let none = margin_of(&zero)?;
        let mut coef = Vec::with_capacity(zero.counts.len());
        for i in 0..zero.counts.len() {
            let mut one = zero.clone();
            one.counts[i] = 1;
            coef.push(i32::try_from(margin_of(&one)? - none).ok()?);
        }
        let mut most = vec![0; colours];
        let mut least = vec![0; colours];
        for (i, &c) in coef.iter().enumerate() {
            most[i % colours] = most[i % colours].max(c);
            least[i % colours] = least[i % colours].min(c);
        }
        let free = (0..coef.len()).map(|i| !banks.contains(&((i / colours) as SiteId))).collect();
        let most = (0..coef.len()).map(|i| most[i % colours]).collect();
        let least = (0..coef.len()).map(|i| least[i % colours]).collect();
        Some(Reach { coef, constant: none, free, most, least })
    }

    /// The least and most the final margin can be: less the margin now
    /// when `relative`, else as they are.
    pub fn bounds(&self, pos: &crate::engine::Position, relative: bool) -> (i32, i32) {
        let (mut lo, mut hi, mut now) = (0i64, 0i64, self.constant);
        for (i, &c) in pos.counts.iter().enumerate() {
            let c = c as i64;
            now += c * self.coef[i] as i64;
            if self.free[i] {
                lo += c * (self.least[i] - self.coef[i]) as i64;
                hi += c * (self.most[i] - self.coef[i]) as i64;
            }
        }
        let base = if relative { 0 } else { now };
        let clamp = |v: i64| v.clamp(-(INF as i64), INF as i64) as i32;
        (clamp(base + lo), clamp(base + hi))
    }
}

#[cfg(test)]
mod tests {
    use super::Reach;
    use crate::engine::{Position, Turn};

    fn position(counts: Vec<i32>) -> Position {
        Position { counts, vars: vec![], turn: Turn::default() }
    }

    #[test]
    fn the_margin_can_move_by_each_free_counter_s_room_to_the_extreme_factors() {
        // Two pits (factors 1 and -1), two stores (3 and -3) left out as banks,
        // and 5 for a board with no counters.
        let reach = Reach {
            coef: vec![1, -1, 3, -3],
            constant: 5,
            free: vec![true, true, false, false],
            most: vec![3; 4],
            least: vec![-3; 4],
        };
        // 2 counters in the first pit: each can gain 2 or lose 4; 1 in the
        // second: gain 4 or lose 2; the stores' 10 and 7 do not move.
        let pos = position(vec![2, 1, 10, 7]);
        assert_eq!(reach.bounds(&pos, true), (2 * -4 - 2, 2 * 2 + 4));
        // Absolute: the margin now is 5 + 2 - 1 + 30 - 21 = 15.
        assert_eq!(reach.bounds(&pos, false), (15 - 10, 15 + 8));
    }
}
