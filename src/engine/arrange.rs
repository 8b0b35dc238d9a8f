//! Arrangements: the orderings of a multiset of colours, numbered from 0 in
//! lexicographic order of colour (seat order), so that rank 0 sows the
//! colours in seat order. They are counted with the multinomial coefficient,
//! and ranked and unranked one colour at a time without allocating, so a move
//! that chooses among millions of orders needs no list of them.

/// Most colours an arrangement may have.
pub const MAX_COLOURS: usize = 16;

/// The number of orderings of `counts[c]` counters of each colour `c`
/// (n! / (k1! k2! ...)), or `None` if it does not fit in a `u128`.
pub fn multinomial(counts: &[u32]) -> Option<u128> {
    let mut total: u128 = 1;
    let mut n: u128 = 0;
    for &k in counts {
        // total *= C(n + k, k), one factor at a time: each step stays exact.
        for j in 1..=k as u128 {
            n += 1;
            total = mul_div(total, n, j)?;
        }
    }
    Some(total)
}

/// `a * b / c`, exact when `c` divides `a * b`; `None` on overflow.
#[inline]
fn mul_div(a: u128, b: u128, c: u128) -> Option<u128> {
    // Factors below 2^32 (all but huge counts): the product fits in a
    // `u64`, whose division is one instruction where a `u128`'s is a call
    // (`__udivti3`, 8% of the playouts of a game of coloured counters).
    if (a | b) >> 32 == 0 && c >> 64 == 0 {
        return Some(((a as u64 * b as u64) / c as u64) as u128);
    }
    match a.checked_mul(b) {
        Some(p) => Some(p / c),
        None => {
            let (q, r) = (a / c, a % c);
            q.checked_mul(b)?.checked_add(r.checked_mul(b)? / c)
        }
    }
}

/// Walks an arrangement one colour at a time.
#[derive(Clone, Copy)]
pub struct Unrank {
    counts: [u32; MAX_COLOURS],
    colours: usize,
    left: u128,
    total: u128,
    rank: u128,
}

impl Unrank {
    /// The arrangement numbered `rank` of `counts`; `None` if there is no
    /// such arrangement.
    pub fn new(counts: &[u32], rank: u128) -> Option<Unrank> {
        if counts.len() > MAX_COLOURS {
            return None;
        }
        // One colour (most games): one arrangement, and no arithmetic.
        let total = if counts.len() == 1 { 1 } else { multinomial(counts)? };
        if rank >= total {
            return None;
        }
        let mut c = [0; MAX_COLOURS];
        c[..counts.len()].copy_from_slice(counts);
        let left = counts.iter().map(|&k| k as u128).sum();
        Some(Unrank { counts: c, colours: counts.len(), left, total, rank })
    }

    /// The colour of the next counter, or `None` when all are placed.
    pub fn next_colour(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        if self.colours == 1 {
            self.left -= 1;
            return Some(0);
        }
        for c in 0..self.colours {
            let k = self.counts[c] as u128;
            if k == 0 {
                continue;
            }
            // Arrangements that start with colour c.
            let block = mul_div(self.total, k, self.left)?;
            if self.rank < block {
                self.total = block;
                self.counts[c] -= 1;
                self.left -= 1;
                return Some(c);
            }
            self.rank -= block;
        }
        None
    }
}

/// The rank of the arrangement `seq` (a colour per counter) of `counts`;
/// `None` if `seq` is not an arrangement of exactly those counters.
pub fn rank(counts: &[u32], seq: impl IntoIterator<Item = usize>) -> Option<u128> {
    if counts.len() > MAX_COLOURS {
        return None;
    }
    let mut c = [0u32; MAX_COLOURS];
    c[..counts.len()].copy_from_slice(counts);
    let mut total = multinomial(counts)?;
    let mut left: u128 = counts.iter().map(|&k| k as u128).sum();
    let mut r: u128 = 0;
    for s in seq {
        if s >= counts.len() || c[s] == 0 {
            return None;
        }
        for &k in &c[..s] {
            if k > 0 {
                r += mul_div(total, k as u128, left)?;
            }
        }
        total = mul_div(total, c[s] as u128, left)?;
        c[s] -= 1;
        left -= 1;
    }
    (left == 0).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(counts: &[u32]) -> Vec<Vec<usize>> {
        let n = multinomial(counts).unwrap();
        (0..n)
            .map(|r| {
                let mut u = Unrank::new(counts, r).unwrap();
                std::iter::from_fn(|| u.next_colour()).collect()
            })
            .collect()
    }

    #[test]
    fn counts_match_the_multinomial_coefficient() {
        assert_eq!(multinomial(&[4, 4, 3]), Some(11_550));
        assert_eq!(multinomial(&[]), Some(1));
        assert_eq!(multinomial(&[0, 5]), Some(1));
        assert_eq!(multinomial(&[1, 1, 1]), Some(6));
        // 66 beads of six colours do not fit, and say so.
        assert_eq!(multinomial(&[11; 6]), None);
    }

    #[test]
    fn counts_past_two_to_the_64_are_exact() {
        // Both ways of `mul_div`: small factors in a `u64`, large ones in a
        // `u128`. 55! / 11!^5, 20! / (10! 10!) and 39! / 13!^3, worked out
        // elsewhere (Python's `math.factorial`).
        assert_eq!(multinomial(&[11; 5]), Some(125_285_878_026_462_826_569_986_857_692_288_000));
        assert_eq!(multinomial(&[10, 10]), Some(184_756));
        assert_eq!(multinomial(&[13, 13, 13]), Some(84_478_098_072_866_400));
    }

    #[test]
    fn unranking_lists_every_arrangement_once_in_order() {
        let seqs = all(&[2, 1, 2]);
        assert_eq!(seqs.len(), 30);
        let mut sorted = seqs.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, seqs, "distinct and in lexicographic order");
        assert_eq!(seqs[0], vec![0, 0, 1, 2, 2]);
        for (r, s) in seqs.iter().enumerate() {
            assert_eq!(rank(&[2, 1, 2], s.iter().copied()), Some(r as u128));
        }
    }

    #[test]
    fn large_ranks_round_trip() {
        let counts = [9, 8, 9, 7, 8, 6];
        let n = multinomial(&counts).unwrap();
        for r in [0, 1, n / 3, n / 2 + 12345, n - 1] {
            let mut u = Unrank::new(&counts, r).unwrap();
            let seq: Vec<usize> = std::iter::from_fn(|| u.next_colour()).collect();
            assert_eq!(seq.len(), 47);
            assert_eq!(rank(&counts, seq), Some(r));
        }
        assert!(Unrank::new(&counts, n).is_none());
    }

    #[test]
    fn sequences_that_are_not_arrangements_have_no_rank() {
        assert_eq!(rank(&[1, 1], [0]), None);
        assert_eq!(rank(&[1, 1], [0, 0]), None);
        assert_eq!(rank(&[1, 1], [0, 1, 1]), None);
        assert_eq!(rank(&[1, 1], [2, 0]), None);
    }
}
