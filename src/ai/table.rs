//! The solver's table of bounds, kept within a memory budget: buckets of
//! four entries addressed by the position's hash, grown by doubling while the
//! budget allows, then, when a bucket is full, the entry that took less work
//! to find gives way. The table is a cache: an entry lost is searched again,
//! so a small budget costs time, never exactness.

use std::mem::size_of;

/// Bounds on a position's value, and its best move's place in its list of
/// legal moves (`u8::MAX`: none yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub lower: i32,
    pub upper: i32,
    pub best: u8,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// The position's hash; 0 marks an empty slot.
    key: u64,
    lower: i32,
    upper: i32,
    /// Positions searched to find these bounds: what a full bucket keeps.
    work: u32,
    best: u8,
}

pub(crate) struct BoundedTable {
    slots: Vec<Slot>,
    /// The most slots the budget allows (a power of two, at least a bucket).
    max_slots: usize,
    used: usize,
}

/// Bytes one entry of the table takes.
pub const ENTRY_BYTES: usize = size_of::<Slot>();

const FIRST_SLOTS: usize = 1 << 16;
/// Entries a bucket holds.
const BUCKET: usize = 4;

impl BoundedTable {
    /// A table that will take at most `budget` bytes.
    pub fn new(budget: usize) -> BoundedTable {
        let fit = (budget / ENTRY_BYTES).max(BUCKET);
        // The largest power of two that fits.
        let max_slots = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        BoundedTable { slots: vec![Slot::default(); FIRST_SLOTS.min(max_slots)], max_slots, used: 0 }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.used
    }

    /// Bytes the table takes now.
    pub fn bytes(&self) -> usize {
        self.slots.len() * ENTRY_BYTES
    }

    fn key(hash: u64) -> u64 {
        hash.max(1)
    }

    fn bucket(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - BUCKET)
    }

    pub fn get(&self, hash: u64) -> Option<Bounds> {
        let key = Self::key(hash);
        let b = self.bucket(key);
        self.slots[b..b + BUCKET].iter().find(|s| s.key == key).map(|s| Bounds {
            lower: s.lower,
            upper: s.upper,
            best: s.best,
        })
    }

    /// Keeps `bounds` for the position, found by searching `work` positions.
    pub fn insert(&mut self, hash: u64, bounds: Bounds, work: u64) {
        let key = Self::key(hash);
        // Grown, while the budget allows, at three quarters full, or sooner
        // (from half) rather than lose an entry to a full bucket.
        while self.slots.len() < self.max_slots
            && (self.used * 4 >= self.slots.len() * 3 || (self.used * 2 >= self.slots.len() && self.bucket_full(key)))
        {
            self.grow();
        }
        let slot = Slot {
            key,
            lower: bounds.lower,
            upper: bounds.upper,
            work: work.min(u32::MAX as u64) as u32,
            best: bounds.best,
        };
        let b = self.bucket(key);
        let bucket = &mut self.slots[b..b + BUCKET];
        let i = match bucket.iter().position(|s| s.key == key || s.key == 0) {
            Some(i) => i,
            // Full: the entry that took least work to find gives way.
            None => (0..BUCKET).min_by_key(|&i| bucket[i].work).unwrap_or(0),
        };
        if bucket[i].key == 0 {
            self.used += 1;
        }
        bucket[i] = slot;
    }

    fn bucket_full(&self, key: u64) -> bool {
        let b = self.bucket(key);
        self.slots[b..b + BUCKET].iter().all(|s| s.key != 0 && s.key != key)
    }

    /// Twice the slots; each entry moves to its bucket in the larger table.
    fn grow(&mut self) {
        let larger = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, larger);
        self.used = 0;
        for s in old.into_iter().filter(|s| s.key != 0) {
            // A bucket of the larger table takes entries from one bucket of
            // the smaller only, so there is room.
            let b = self.bucket(s.key);
            let i = (b..b + BUCKET).find(|&i| self.slots[i].key == 0).unwrap_or(b);
            self.slots[i] = s;
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
        assert_eq!(t.max_slots, 64);
        let b = |v: i32| Bounds { lower: v, upper: v, best: 1 };
        for h in 1..=40u64 {
            t.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15), b(h as i32), h);
        }
        assert!(t.slots.len() <= 64 && t.bytes() <= 64 * ENTRY_BYTES);
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
