//! A sowing's tables as the machine keeps them: the next live place after
//! each place of a track, and those made for values of the state its skips
//! read (made by `program/sow/table.rs`).

/// Where a sowing goes from each place on a track, its skip clauses
/// applied: `next[i]` is the place after place `i` (`next[len]`: the first,
/// for a source off the track), `program::sow::OFF` past the end of a
/// linear track; whether each place is skipped, and how many are not.
#[derive(Clone, Default)]
pub(crate) struct SowTable {
    pub next: Vec<u16>,
    pub skipped: Vec<bool>,
    pub live: usize,
    /// The same by site rather than by place, for a track that passes each
    /// site once (empty otherwise): the site after each site of the board
    /// (for a site off the track, the track's first live one).
    pub succ: Vec<u16>,
    /// With `succ`, on a cyclic track: its live sites in order, twice
    /// over. A sowing of `n` counters, at most a lap, from `s` adds one to
    /// each of `ring[from[s]..][..n]`: no chain of look-ups, each waiting
    /// for the one before.
    pub ring: Vec<u16>,
    /// With `ring`: for each site of the board, where the site after it
    /// is in `ring` (in its first half).
    pub from: Vec<u16>,
}

/// A sowing table whose skips read state (see `program/stmt.rs`): made for
/// the values `key` of the state they read, kept until those change.
/// `failed`: a skip went wrong for some site of the track, so the sowing
/// asks its skips site by site, as it reaches them, while the key holds.
#[derive(Clone, Default)]
pub(crate) struct KeptTable {
    /// The values, a word each (see `program/sow/table.rs`'s `state_key`).
    pub key: Vec<u128>,
    /// A number for `key`'s values (equal values, equal numbers).
    pub print: u64,
    /// The state's version when `key` was last found to be its values.
    pub version: u64,
    pub made: bool,
    pub failed: bool,
    pub tab: SowTable,
}

/// The tables a sowing made for values of the state it no longer has, as
/// many as [`SpareTables::MOST`], the one kept longest given up first: a
/// state that goes back to values it had (a round's blocked holes, the same
/// few patterns game after game; a flag set and cleared) finds its table
/// made.
#[derive(Clone, Default)]
pub(crate) struct SpareTables {
    pub tables: Vec<KeptTable>,
    /// The table given up next once there are `MOST`.
    pub next: usize,
    /// The state's values as a key, worked out to look for their table.
    pub key: Vec<u128>,
}

impl SpareTables {
    pub const MOST: usize = 8;

    /// Keeps `table` (made) among the spares, and leaves in its place one
    /// whose buffers may be written over: the one given up, or an empty
    /// one while there are fewer than `MOST`.
    pub fn keep(&mut self, table: &mut KeptTable) {
        if self.tables.len() < Self::MOST {
            self.tables.push(std::mem::take(table));
        } else {
            std::mem::swap(table, &mut self.tables[self.next]);
            self.next = (self.next + 1) % Self::MOST;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spare tables: kept in turn until there are `MOST`, then the one kept
    /// longest given up for each kept, its buffers handed back to be
    /// written over.
    #[test]
    fn spare_tables_give_up_the_one_kept_longest() {
        let table = |k: u128| KeptTable { key: vec![k], made: true, ..KeptTable::default() };
        let mut spare = SpareTables::default();
        let mut handed = Vec::new();
        for k in 0..SpareTables::MOST as u128 + 3 {
            let mut t = table(k);
            spare.keep(&mut t);
            handed.push(t.key.first().copied());
        }
        let keys: Vec<_> = spare.tables.iter().map(|t| t.key[0]).collect();
        let most = SpareTables::MOST as u128;
        // Tables 0, 1 and 2 given up, for `most`, `most + 1` and `most + 2`,
        // in their places.
        let mut want: Vec<_> = (0..most).collect();
        for k in 0..3 {
            want[k as usize] = most + k;
        }
        assert_eq!(keys, want);
        let mut given: Vec<_> = (0..most).map(|_| None).collect();
        given.extend((0..3).map(Some));
        assert_eq!(handed, given);
    }
}
