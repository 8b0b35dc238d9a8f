//! Sums of the counts of fixed sets of sites, in a game of one colour:
//! `count(every pit of p)`, `count(every pit)`, asked at every move by
//! most games' ends and rounds. A set's shape is chosen once, when the
//! program is lowered: a masked window of counts where its sites lie close
//! together, else a run or a list.

use super::Program;
use super::sets::read_set;
use crate::engine::game::SiteId;
use crate::engine::vm::{SetV, Vm};

/// Sites summed as a window of this many counts.
pub(crate) const WINDOW: usize = 8;
/// Sites summed as a wide window (two rows and the stores between them).
const WIDE: usize = 16;

/// The sites of a fixed set: the number of the set (for the banks), and
/// its sites. Sites in increasing order within [`WINDOW`] consecutive
/// counts are summed as a window of that many counts, those not in the set
/// masked off: no loop and one bounds check (a loop over six counts, a
/// dependent chain, was most of the time of the commonest end condition,
/// `any(p in players: count(every pit of p) == 0)`). Within [`WIDE`]
/// counts, as a wide window (`count(every pit) == 0` of a board of two
/// rows of seven, its stores between them, asked at every move). A longer
/// run is summed as one slice; other sites one by one.
pub(crate) enum Sites {
    Window(u16, usize, [i32; WINDOW]),
    Wide(u16, usize, [i32; WIDE]),
    Run(u16, usize, usize),
    List(u16, Box<[SiteId]>),
}

impl Sites {
    /// `counts`: how many counts the board has (its sites, in a game of
    /// one colour).
    pub(crate) fn new(id: u16, sites: &[SiteId], counts: usize) -> Sites {
        let (Some(&a), Some(&z)) = (sites.first(), sites.last()) else { return Sites::List(id, sites.into()) };
        let (a, b) = (a as usize, z as usize + 1);
        // In increasing order, each site once: a mask counts each once.
        if sites.windows(2).all(|w| w[0] < w[1]) {
            if b - a <= WINDOW && counts >= WINDOW {
                let (w, mask) = window_mask(sites, a.min(counts - WINDOW));
                return Sites::Window(id, w, mask);
            }
            if b - a <= WIDE && counts >= WIDE {
                let (w, mask) = window_mask(sites, a.min(counts - WIDE));
                return Sites::Wide(id, w, mask);
            }
            if b - a == sites.len() {
                return Sites::Run(id, a, b);
            }
        }
        Sites::List(id, sites.into())
    }

    /// How many counters the sites hold, in a game of one colour.
    #[inline(always)]
    pub(crate) fn count(&self, p: &Program, vm: &mut Vm) -> i64 {
        let id = match self {
            Sites::Window(id, ..) | Sites::Wide(id, ..) | Sites::Run(id, ..) | Sites::List(id, _) => *id,
        };
        if !vm.banks.is_empty() {
            read_set(p, vm, SetV::Fixed(id));
        }
        self.sum(&vm.pos.counts)
    }

    /// How many counters the sites hold of `counts`, one a site.
    #[inline(always)]
    pub(crate) fn sum(&self, counts: &[i32]) -> i64 {
        match self {
            Sites::Window(_, w, mask) => window_sum(counts, *w, mask),
            Sites::Wide(_, w, mask) => window_sum(counts, *w, mask),
            // In 32 bits, as the counts are (no game holds 2^31 counters:
            // `put` keeps them to MAX_COUNT), which vectorises.
            Sites::Run(_, a, b) => counts[*a..*b].iter().sum::<i32>() as i64,
            Sites::List(_, sites) => sites.iter().map(|&s| counts[s as usize] as i64).sum(),
        }
    }
}

/// The window of `N` counts from `w` (at most the first of `sites`), and
/// the mask that keeps the counts of `sites` in it.
fn window_mask<const N: usize>(sites: &[SiteId], w: usize) -> (usize, [i32; N]) {
    let mut mask = [0; N];
    for &s in sites {
        mask[s as usize - w] = -1;
    }
    (w, mask)
}

/// The counts of the window of `N` counts from `w` that `mask` keeps.
#[inline(always)]
pub(crate) fn window_sum<const N: usize>(counts: &[i32], w: usize, mask: &[i32; N]) -> i64 {
    let window: &[i32; N] = counts[w..w + N].try_into().expect("a window");
    window.iter().zip(mask).map(|(c, m)| c & m).sum::<i32>() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each shape of set sums what its sites hold, one by one, each as
    /// often as the set names it; and sets are summed by the cheapest shape
    /// that can.
    #[test]
    fn a_set_sums_its_sites_by_its_shape() {
        let counts: Vec<i32> = (0..40).map(|i| i * 7 % 11 + i).collect();
        let by_hand = |sites: &[SiteId]| sites.iter().map(|&s| counts[s as usize] as i64).sum::<i64>();
        let cases: [(&[SiteId], &str); 10] = [
            (&[0, 1, 2, 3, 4, 5], "window"),
            (&[8, 9, 10, 11, 12, 13, 14], "window"),
            // Pits either side of a store: a gap in the window.
            (&[0, 1, 2, 4, 5, 6], "window"),
            (&[36, 39], "window"),
            (&[0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14], "wide"),
            (&[24, 39], "wide"),
            (&(3..30).collect::<Vec<_>>(), "run"),
            (&[0, 2, 4, 6, 8, 10, 12, 14, 16, 18], "list"),
            (&[5, 2, 9], "list"),
            // A site named twice is counted twice.
            (&[3, 3, 4], "list"),
        ];
        for (sites, shape) in cases {
            let set = Sites::new(0, sites, counts.len());
            let got = match set {
                Sites::Window(..) => "window",
                Sites::Wide(..) => "wide",
                Sites::Run(..) => "run",
                Sites::List(..) => "list",
            };
            assert_eq!((got, set.sum(&counts)), (shape, by_hand(sites)), "{sites:?}");
        }
        // A board narrower than a window sums its sites another way.
        let small = [1, 2, 3, 4, 5];
        let set = Sites::new(0, &[0, 2, 4], small.len());
        assert!(matches!(set, Sites::List(..)));
        assert_eq!(set.sum(&small), 9);
    }
}
