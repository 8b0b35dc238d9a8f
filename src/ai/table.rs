//! The solver's table of bounds, kept within a memory budget: buckets of
//! four entries addressed by the position's hash, one line of the
//! processor's cache each, grown by doubling while the budget allows the
//! old and the new table at once, and last to what it leaves beside the old;
//! then, when a bucket is full, the entry that took less work to find gives
//! way.
//! The table is a cache: an entry lost is searched again, so a small budget
//! costs time, never exactness.
//!
//! Several searches may read and write it at once. An entry is two words,
//! the first kept XORed with a mix of the second, so a read that meets two
//! halves of different writes finds a key that matches nothing (but with a
//! chance of one in 2^48): it reads as a miss, not as bounds of another
//! position. Growing moves every entry, so it
//! happens only when no other search is using the table (see
//! [`BoundedTable::grow`]): [`insert`](BoundedTable::insert) only asks for
//! it.

use std::cell::UnsafeCell;
use std::mem::size_of;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::SeqCst};

use super::solve::INF;

/// Bounds on a position's value, and its best move's place in its list of
/// legal moves (`u8::MAX`: none yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub lower: i32,
    pub upper: i32,
    pub best: u8,
}

/// One entry, two words. The first: the position's whole 64-bit hash (never
/// 0; 0 marks an empty slot), kept in the table XORed with a mix of the
/// second. The second: the lower and the upper bound in 25 bits each (see
/// [`pack_bound`]), the best move's place (8 bits) and how much work found
/// the bounds (6 bits: the bits of the number of positions searched, what a
/// full bucket keeps).
///
/// The bucket is chosen from the hash's high bits, so in a table of 2^b
/// buckets 64 - b bits tell the entries of a bucket apart (37 in the 8 GiB
/// table of the largest solves): a position missing from a full bucket is
/// taken for another once in some 30 billion such misses. Past that the
/// limit is the hash itself, which two of a billion positions share with a
/// chance of about one in forty.
type Slot = [u64; 2];

/// Bits of each bound; a bound at or past `BOUND_LIMIT` either way stands
/// for no bound at all (±[`INF`]).
const BOUND_BITS: u32 = 25;
const BOUND_MASK: u64 = (1 << BOUND_BITS) - 1;
const BOUND_LIMIT: i32 = (1 << (BOUND_BITS - 1)) - 1;
const BEST_AT: u32 = 2 * BOUND_BITS;
const WORK_AT: u32 = BEST_AT + 8;

/// Entries a bucket holds: one line of the cache.
const BUCKET: usize = 4;

#[derive(Default)]
#[repr(align(64))]
struct Bucket([[AtomicU64; 2]; BUCKET]);

impl Bucket {
    /// The entry in slot `i`, as written (the first word un-XORed).
    fn slot(&self, i: usize) -> Slot {
        let [a, b] = &self.0[i];
        let second = b.load(Relaxed);
        [a.load(Relaxed) ^ spread(second), second]
    }

    fn put(&self, i: usize, s: Slot) {
        self.0[i][1].store(s[1], Relaxed);
        self.0[i][0].store(s[0] ^ spread(s[1]), Relaxed);
    }
}

/// The second word, mixed so that each of its 64 bits moves the key bits of
/// the first: a read of halves of two writes whose second words differ
/// anywhere (say only in an upper bound's high bits) then matches no key.
/// Empty (0) stays 0.
fn spread(w: u64) -> u64 {
    let w = (w ^ (w >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    w ^ (w >> 32)
}

fn key(s: &Slot) -> u64 {
    s[0]
}

fn work_of(s: &Slot) -> u8 {
    (s[1] >> WORK_AT) as u8
}

/// A bound in [`BOUND_BITS`] bits. A bound too large for them is weakened,
/// never made stronger: a lower bound past the limit is kept as the
/// largest that fits, one below it as none (-INF); an upper bound the other
/// way round. So what is read back is always true of the position, if
/// sometimes less than was found (a cost in time, never in exactness; no
/// shipped game's values come near 2^24).
// Written with plain comparisons: a form with `min` and `max` under a test
// of `lower` computed unclamped bounds when built with optimisation by
// rustc 1.95 inside this crate (not reproduced alone); the test
// `bounds_read_back_as_kept_or_weaker_never_stronger` guards it.
fn pack_bound(v: i32, lower: bool) -> u64 {
    let v = if v <= -BOUND_LIMIT {
        if lower { -BOUND_LIMIT } else { -(BOUND_LIMIT - 1) }
    } else if v >= BOUND_LIMIT {
        if lower { BOUND_LIMIT - 1 } else { BOUND_LIMIT }
    } else {
        v
    };
    v as u32 as u64 & BOUND_MASK
}

fn unpack_bound(bits: u64, lower: bool) -> i32 {
    // Sign-extend the field.
    let v = ((bits << (64 - BOUND_BITS)) as i64 >> (64 - BOUND_BITS)) as i32;
    if lower && v == -BOUND_LIMIT {
        -INF
    } else if !lower && v == BOUND_LIMIT {
        INF
    } else {
        v
    }
}

fn pack(b: Bounds, work: u8) -> u64 {
    pack_bound(b.lower, true)
        | pack_bound(b.upper, false) << BOUND_BITS
        | (b.best as u64) << BEST_AT
        | (work.min(63) as u64) << WORK_AT
}

fn unpack(s: &Slot) -> Bounds {
    Bounds {
        lower: unpack_bound(s[1], true),
        upper: unpack_bound(s[1] >> BOUND_BITS, false),
        best: (s[1] >> BEST_AT) as u8,
    }
}

pub(crate) struct BoundedTable {
    /// Changed only by [`grow`](Self::grow), when nothing else reads it.
    buckets: UnsafeCell<Vec<Bucket>>,
    /// The most buckets the budget holds (at least one): a growth keeps the
    /// old buckets and the new within it.
    budget_buckets: usize,
    used: AtomicUsize,
    /// Whether an insert found the table due to grow.
    grow_wanted: AtomicBool,
}

// SAFETY: the buckets are atomics, read and written through shared
// references; the vector itself is replaced only by `grow`, whose caller
// promises that no other thread is using the table meanwhile.
unsafe impl Sync for BoundedTable {}

/// Bytes one entry of the table takes.
pub const ENTRY_BYTES: usize = size_of::<Slot>();

const FIRST_BUCKETS: usize = 1 << 14;

/// Empty buckets for a table, in huge pages where the system allows.
fn empty(n: usize) -> Vec<Bucket> {
    let mut v = Vec::with_capacity(n);
    huge_pages(v.spare_capacity_mut());
    v.resize_with(n, Bucket::default);
    v
}

/// Asks Linux to back a large table with huge pages, before it is first
/// touched: its positions are scattered all over it, and with small pages
/// nearly every probe also missed the processor's table of pages.
/// Elsewhere, or if the system says no, nothing changes.
fn huge_pages<T>(memory: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let bytes = std::mem::size_of_val(memory);
        if bytes < 8 << 20 {
            return;
        }
        let start = memory.as_mut_ptr() as usize;
        let (from, to) = ((start + PAGE - 1) & !(PAGE - 1), (start + bytes) & !(PAGE - 1));
        // SAFETY: the range lies inside `memory`, which the caller owns; the
        // advice changes only how the kernel backs those pages, never what
        // they hold.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

impl BoundedTable {
    /// A table that will take at most `budget` bytes, growing included.
    pub fn new(budget: usize) -> BoundedTable {
        let budget_buckets = (budget / size_of::<Bucket>()).max(1);
        BoundedTable {
            buckets: UnsafeCell::new(empty(FIRST_BUCKETS.min(budget_buckets))),
            budget_buckets,
            used: AtomicUsize::new(0),
            grow_wanted: AtomicBool::new(false),
        }
    }

    fn buckets(&self) -> &[Bucket] {
        // SAFETY: only `grow` changes the vector, and its caller promises
        // that no reference from here is alive then.
        unsafe { &*self.buckets.get() }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.used.load(Relaxed)
    }

    /// Bytes the table takes now.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.buckets())
    }

    fn key(hash: u64) -> u64 {
        hash.max(1)
    }

    /// The bucket of a key among `n`: the key scaled to `0..n` (so its high
    /// bits choose), so that `n` need not be a power of two.
    fn place(key: u64, n: usize) -> usize {
        ((key as u128 * n as u128) >> u64::BITS) as usize
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let b = self.buckets();
        &b[Self::place(key, b.len())]
    }

    /// How many buckets the next growth makes: twice as many, or what the
    /// budget leaves beside the old ones; `None` if that is no more.
    fn larger(&self, len: usize) -> Option<usize> {
        let n = (len * 2).min(self.budget_buckets.saturating_sub(len));
        (n > len).then_some(n)
    }

    pub fn get(&self, hash: u64) -> Option<Bounds> {
        let k = Self::key(hash);
        let b = self.bucket(k);
        (0..BUCKET).map(|i| b.slot(i)).find(|s| key(s) == k).map(|s| unpack(&s))
    }

    /// Asks for a position's bucket to be fetched from memory ahead of a
    /// [`get`](Self::get) (a hint: nothing is read).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let at = self.bucket(Self::key(hash)) as *const Bucket as *const i8;
            // SAFETY: a prefetch is a hint that reads nothing and cannot
            // fault, and SSE is part of every x86_64 processor.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(at) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// Keeps `bounds` for the position, found by searching `work` positions.
    /// When the table is due to grow, it says so (see
    /// [`grow_wanted`](Self::grow_wanted)) and replaces as if full. True if
    /// the entry took an empty slot: the caller counts it, now or later, by
    /// [`count`](Self::count) (a count every thread wrote at each insert
    /// would pass between their caches all the time).
    #[must_use]
    pub fn insert(&self, hash: u64, bounds: Bounds, work: u64) -> bool {
        let k = Self::key(hash);
        let bucket = self.bucket(k);
        let slots: [Slot; BUCKET] = std::array::from_fn(|i| bucket.slot(i));
        // Grown, while the budget allows, at three quarters full, or sooner
        // (from half) rather than lose an entry to a full bucket.
        let (used, len) = (self.len(), self.buckets().len());
        let full = slots.iter().all(|s| s[0] != 0 && key(s) != k);
        if (used * 4 >= len * BUCKET * 3 || (used * 2 >= len * BUCKET && full)) && self.larger(len).is_some() {
            self.grow_wanted.store(true, Relaxed);
        }
        // The work in bits: enough to tell a big search from a small one.
        let work = (u64::BITS - work.leading_zeros()) as u8;
        let slot = [k, pack(bounds, work)];
        let i = match slots.iter().position(|s| key(s) == k || s[0] == 0) {
            Some(i) => i,
            // Full: the entry that took least work to find gives way.
            None => (0..BUCKET).min_by_key(|&i| work_of(&slots[i])).unwrap_or(0),
        };
        bucket.put(i, slot);
        slots[i][0] == 0
    }

    /// Counts `n` entries that took empty slots.
    pub fn count(&self, n: usize) {
        self.used.fetch_add(n, Relaxed);
    }

    /// Whether an insert found the table due to grow: the caller should
    /// [`grow`](Self::grow) it when no other search is using it.
    pub fn grow_wanted(&self) -> bool {
        // Acquire: a search that sees the wish cleared sees the grown table.
        self.grow_wanted.load(Acquire)
    }

    /// More buckets (see [`larger`](Self::larger)); each entry moves to its
    /// bucket in the larger table. A bucket of a table twice as large takes
    /// entries from one bucket of the smaller only, so there is room; of a
    /// table less than twice as large, from two at most: if more than four
    /// entries meet, those that took most work to find stay.
    ///
    /// # Safety
    /// No other thread may use the table during the call, and no reference
    /// to its buckets may be alive (none outlives a call of the methods
    /// above).
    pub unsafe fn grow(&self) {
        // SAFETY: the caller promises this is the only use of the table.
        let buckets = unsafe { &mut *self.buckets.get() };
        let Some(n) = self.larger(buckets.len()) else {
            self.grow_wanted.store(false, SeqCst);
            return;
        };
        let old = std::mem::replace(buckets, empty(n));
        let mut used = 0;
        for s in old.iter().flat_map(|b| (0..BUCKET).map(move |i| b.slot(i))).filter(|s| s[0] != 0) {
            let bucket = &buckets[Self::place(key(&s), n)];
            match (0..BUCKET).find(|&i| bucket.slot(i)[0] == 0) {
                Some(i) => {
                    bucket.put(i, s);
                    used += 1;
                }
                None => {
                    let i = (0..BUCKET).min_by_key(|&i| work_of(&bucket.slot(i))).unwrap_or(0);
                    if work_of(&bucket.slot(i)) < work_of(&s) {
                        bucket.put(i, s);
                    }
                }
            }
        }
        drop(old);
        self.used.store(used, Relaxed);
        // Last: a search parked for the growth may go on once this is seen.
        self.grow_wanted.store(false, SeqCst);
    }
}

/// A memory size as written on the command line: `512M`, `2G`, `1.5G`,
/// `300000K`, or a number of bytes.
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let bad = || format!("`{text}` is not a size: a number of bytes, or with K, M or G (512M, 2G)");
    let (number, scale) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let v: f64 = number.trim().parse().map_err(|_| bad())?;
    let bytes = v * scale as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes <= usize::MAX as f64 / 2.0) {
        return Err(bad());
    }
    Ok(bytes as usize)
}

/// The default budget: half of the machine's memory (1 GiB where it cannot
/// be read).
pub fn default_budget() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib.saturating_mul(1024))
    });
    total.map_or(1 << 30, |t| t / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNKNOWN: Bounds = Bounds { lower: -INF, upper: INF, best: u8::MAX };

    #[test]
    fn keeps_within_its_budget_and_finds_what_it_kept() {
        let t = BoundedTable::new(64 * ENTRY_BYTES);
        assert_eq!(t.budget_buckets * BUCKET, 64);
        let b = |v: i32| Bounds { lower: v, upper: v, best: 1 };
        let insert = |h: u64| {
            if t.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15), b(h as i32), h) {
                t.count(1);
            }
            if t.grow_wanted() {
                // SAFETY: the only use of the table is here.
                unsafe { t.grow() };
            }
        };
        for h in 1..=40u64 {
            insert(h);
        }
        assert!(t.buckets().len() * BUCKET <= 64 && t.bytes() <= 64 * ENTRY_BYTES);
        // Whatever is found is what was stored for it.
        for h in 1..=40u64 {
            if let Some(got) = t.get(h.wrapping_mul(0x9E37_79B9_7F4A_7C15)) {
                assert_eq!(got, b(h as i32));
            }
        }
        // A full table replaces: more entries than slots, never more held.
        for h in 41..=1000u64 {
            insert(h);
        }
        assert!(t.len() <= 64);
        // The last one stored is always found (it replaced the lesser work).
        assert_eq!(t.get(1000u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)), Some(b(1000)));
    }

    #[test]
    fn grows_within_its_budget_old_and_new_table_together() {
        // 2.5 MiB: from 16,384 buckets (1 MiB), doubling would need 3 MiB
        // with the old table; it grows to the 24,576 that the budget leaves.
        let t = BoundedTable::new(40_960 * size_of::<Bucket>());
        let hash = |h: u64| h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let b = |v: u64| Bounds { lower: v as i32, upper: v as i32 + 1, best: 2 };
        let mut h = 0;
        let before = loop {
            h += 1;
            if t.insert(hash(h), b(h), h) {
                t.count(1);
            }
            if t.grow_wanted() {
                break t.len();
            }
        };
        assert_eq!(t.buckets().len(), FIRST_BUCKETS);
        // SAFETY: the only use of the table is here.
        unsafe { t.grow() };
        assert_eq!(t.buckets().len(), 24_576);
        assert!(FIRST_BUCKETS + t.buckets().len() <= t.budget_buckets);
        // Entries that met more than four to a bucket were lost, few of them;
        // those kept are found with their own bounds.
        assert!(t.len() * 10 >= before * 9, "{} of {before} kept", t.len());
        let found = (1..=h).filter(|&k| t.get(hash(k)).inspect(|got| assert_eq!(*got, b(k))).is_some()).count();
        assert_eq!(found, t.len());
        // No further growth: another would not fit beside the old table.
        assert_eq!(t.larger(t.buckets().len()), None);
    }

    #[test]
    fn halves_of_two_writes_read_as_a_miss() {
        // Two entries whose second words differ only in the work's high
        // bits, the last bits of the word.
        let bounds = Bounds { lower: -3, upper: INF, best: 1 };
        let x = [5u64, pack(bounds, 3)];
        let y = [9u64, pack(bounds, 35)];
        assert_eq!(x[1] ^ y[1], 32 << WORK_AT);
        let b = Bucket::default();
        b.put(0, y);
        // The first word of a write of `x`, the second still `y`'s.
        b.0[0][0].store(x[0] ^ spread(x[1]), Relaxed);
        let torn = b.slot(0);
        assert_ne!(key(&torn), key(&x));
        assert_ne!(key(&torn), key(&y));
        b.put(0, x);
        assert_eq!(b.slot(0), x);
    }

    #[test]
    fn bounds_read_back_as_kept_or_weaker_never_stronger() {
        let round = |lower: i32, upper: i32| {
            let s = [1, pack(Bounds { lower, upper, best: 7 }, 20)];
            assert_eq!((unpack(&s).best, work_of(&s)), (7, 20));
            (unpack(&s).lower, unpack(&s).upper)
        };
        for (l, u) in [(-INF, INF), (0, 0), (-48, 12), (-INF, -5), (5, INF), (-BOUND_LIMIT + 1, BOUND_LIMIT - 1)] {
            assert_eq!(round(l, u), (l, u));
        }
        // Past the limit: a lower bound drops to what fits or to none, an
        // upper bound rises; an exact value out there becomes bounds.
        assert_eq!(round(BOUND_LIMIT + 9, BOUND_LIMIT + 9), (BOUND_LIMIT - 1, INF));
        assert_eq!(round(-BOUND_LIMIT - 9, -BOUND_LIMIT - 9), (-INF, -BOUND_LIMIT + 1));
        assert_eq!(round(-BOUND_LIMIT, BOUND_LIMIT), (-INF, INF));
        // The work is kept in its six bits, the most saturating.
        assert_eq!(work_of(&[1, pack(UNKNOWN, 64)]), 63);
    }

    #[test]
    fn positions_that_share_a_bucket_and_low_bits_are_told_apart() {
        // The same low 48 bits and the same high 14 (the bucket among the
        // first 16,384): only bit 49 differs.
        let t = BoundedTable::new(1 << 20);
        let (a, b) = (0x1234_5678_9ABC_DEF0u64, 0x1234_5678_9ABC_DEF0u64 ^ 1 << 49);
        assert_eq!(BoundedTable::place(a, FIRST_BUCKETS), BoundedTable::place(b, FIRST_BUCKETS));
        let kept = Bounds { lower: 4, upper: 4, best: 0 };
        let _ = t.insert(a, kept, 100);
        assert_eq!(t.get(a), Some(kept));
        assert_eq!(t.get(b), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("1.5g"), Ok(3 << 29));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        for bad in ["", "G", "-1G", "0", "lots", "1e400"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
