//! The solver's table of bounds, kept within a memory budget: buckets of
//! four entries addressed by the position's hash, one line of the
//! processor's cache each, grown by doubling while the budget allows; then,
//! when a bucket is full, the entry that took less work to find gives way.
//! The table is a cache: an entry lost is searched again, so a small budget
//! costs time, never exactness.

use std::mem::size_of;

/// Bounds on a position's value, and its best move's place in its list of
/// legal moves (`u8::MAX`: none yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub lower: i32,
    pub upper: i32,
    pub best: u8,
}

/// One entry, two words. The first: the low 48 bits of the position's hash
/// (never 0; 0 marks an empty slot), then how much work found the bounds
/// (the bits of the number of positions searched: what a full bucket keeps),
/// then the best move's place. The second: the lower bound, then the upper.
type Slot = [u64; 2];

const KEY_BITS: u32 = 48;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;

/// Entries a bucket holds: one line of the cache.
const BUCKET: usize = 4;

#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Bucket([Slot; BUCKET]);

fn key(s: &Slot) -> u64 {
    s[0] & KEY_MASK
}

fn work_of(s: &Slot) -> u8 {
    (s[0] >> KEY_BITS) as u8
}

fn unpack(s: &Slot) -> Bounds {
    Bounds { lower: s[1] as u32 as i32, upper: (s[1] >> 32) as u32 as i32, best: (s[0] >> 56) as u8 }
}

pub(crate) struct BoundedTable {
    buckets: Vec<Bucket>,
    /// The most buckets the budget allows (a power of two, at least one).
    max_buckets: usize,
    used: usize,
}

/// Bytes one entry of the table takes.
pub const ENTRY_BYTES: usize = size_of::<Slot>();

const FIRST_BUCKETS: usize = 1 << 14;

/// Empty buckets for a table, in huge pages where the system allows.
fn empty(n: usize) -> Vec<Bucket> {
    let mut v = Vec::with_capacity(n);
    huge_pages(v.spare_capacity_mut());
    v.resize(n, Bucket::default());
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
    /// A table that will take at most `budget` bytes.
    pub fn new(budget: usize) -> BoundedTable {
        let fit = (budget / size_of::<Bucket>()).max(1);
        // The largest power of two that fits.
        let max_buckets = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        BoundedTable { buckets: empty(FIRST_BUCKETS.min(max_buckets)), max_buckets, used: 0 }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.used
    }

    /// Bytes the table takes now.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * size_of::<Bucket>()
    }

    fn key(hash: u64) -> u64 {
        (hash & KEY_MASK).max(1)
    }

    fn bucket(&self, key: u64) -> usize {
        (key as usize) & (self.buckets.len() - 1)
    }

    pub fn get(&self, hash: u64) -> Option<Bounds> {
        let k = Self::key(hash);
        self.buckets[self.bucket(k)].0.iter().find(|s| key(s) == k).map(unpack)
    }

    /// Asks for a position's bucket to be fetched from memory ahead of a
    /// [`get`](Self::get) (a hint: nothing is read).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let at = self.buckets.as_ptr().wrapping_add(self.bucket(Self::key(hash))) as *const i8;
            // SAFETY: a prefetch is a hint that reads nothing and cannot
            // fault, and SSE is part of every x86_64 processor.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(at) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// Keeps `bounds` for the position, found by searching `work` positions.
    pub fn insert(&mut self, hash: u64, bounds: Bounds, work: u64) {
        let k = Self::key(hash);
        // Grown, while the budget allows, at three quarters full, or sooner
        // (from half) rather than lose an entry to a full bucket.
        let slots = self.buckets.len() * BUCKET;
        if self.buckets.len() < self.max_buckets
            && (self.used * 4 >= slots * 3 || (self.used * 2 >= slots && self.bucket_full(k)))
        {
            self.grow();
        }
        // The work in bits: enough to tell a big search from a small one.
        let work = (u64::BITS - work.leading_zeros()) as u64;
        let slot = [
            k | work << KEY_BITS | (bounds.best as u64) << 56,
            bounds.lower as u32 as u64 | (bounds.upper as u32 as u64) << 32,
        ];
        let b = self.bucket(k);
        let bucket = &mut self.buckets[b].0;
        let i = match bucket.iter().position(|s| key(s) == k || s[0] == 0) {
            Some(i) => i,
            // Full: the entry that took least work to find gives way.
            None => (0..BUCKET).min_by_key(|&i| work_of(&bucket[i])).unwrap_or(0),
        };
        if bucket[i][0] == 0 {
            self.used += 1;
        }
        bucket[i] = slot;
    }

    fn bucket_full(&self, k: u64) -> bool {
        self.buckets[self.bucket(k)].0.iter().all(|s| s[0] != 0 && key(s) != k)
    }

    /// Twice the buckets; each entry moves to its bucket in the larger table.
    fn grow(&mut self) {
        let larger = empty(self.buckets.len() * 2);
        let old = std::mem::replace(&mut self.buckets, larger);
        self.used = 0;
        for s in old.iter().flat_map(|b| b.0.iter()).filter(|s| s[0] != 0) {
            // A bucket of the larger table takes entries from one bucket of
            // the smaller only, so there is room.
            let b = self.bucket(key(s));
            let bucket = &mut self.buckets[b].0;
            let i = (0..BUCKET).find(|&i| bucket[i][0] == 0).unwrap_or(0);
            bucket[i] = *s;
            self.used += 1;
        }
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

    #[test]
    fn keeps_within_its_budget_and_finds_what_it_kept() {
        let mut t = BoundedTable::new(64 * ENTRY_BYTES);
        assert_eq!(t.max_buckets * BUCKET, 64);
        let b = |v: i32| Bounds { lower: v, upper: v, best: 1 };
        for h in 1..=40u64 {
            t.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15), b(h as i32), h);
        }
        assert!(t.buckets.len() * BUCKET <= 64 && t.bytes() <= 64 * ENTRY_BYTES);
        // Whatever is found is what was stored for it.
        for h in 1..=40u64 {
            if let Some(got) = t.get(h.wrapping_mul(0x9E37_79B9_7F4A_7C15)) {
                assert_eq!(got, b(h as i32));
            }
        }
        // A full table replaces: more entries than slots, never more held.
        for h in 41..=1000u64 {
            t.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15), b(h as i32), h);
        }
        assert!(t.len() <= 64);
        // The last one stored is always found (it replaced the lesser work).
        assert_eq!(t.get(1000u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)), Some(b(1000)));
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
