//! What the searches of one solve share when they run on several threads:
//! the table of bounds, the positions being searched now, whether the pass
//! is over, and the handshake that lets the table grow.
//!
//! Every thread searches the same pass of MTD(f) from the same position,
//! through the same table (a "lazy SMP" search). At a position whose first
//! move is searched, a thread leaves for later the moves whose positions
//! another thread is searching now, so the threads spread over the tree
//! rather than walk it in step (after Weill's ABDADA). Whichever finishes
//! the pass first gives its value; the others stop. The order the moves are
//! searched in never changes a value, only how soon it is found.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};

use super::solve::Unsolved;
use super::table::BoundedTable;

/// A helper's state: searching, or out of the search; any other value is
/// the growth it is parked for.
const RUNNING: u64 = u64::MAX - 1;
const DONE: u64 = u64::MAX;

/// Positions being searched: slots a hash picks, each holding the hash.
const BUSY_SLOTS: usize = 1 << 16;

pub(crate) struct Shared {
    pub tt: BoundedTable,
    /// Whether the pass is over: the searches still going stop.
    abort: AtomicBool,
    /// The pass's outcome, from the first search to end it.
    outcome: Mutex<Option<Result<i32, Unsolved>>>,
    /// Empty with one thread.
    busy: Vec<AtomicU64>,
    /// Growths of the table so far, and each helper's state.
    grows: AtomicU64,
    helpers: Vec<AtomicU64>,
    /// Positions the helpers have searched.
    pub helper_nodes: AtomicU64,
    /// Whether a helper's play read a bank (see `Engine::set_banks`).
    bank_read: AtomicBool,
}

impl Shared {
    pub fn new(memory: usize, threads: usize) -> Shared {
        let busy = if threads > 1 { (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect() } else { Vec::new() };
        Shared {
            tt: BoundedTable::new(memory),
            abort: AtomicBool::new(false),
            outcome: Mutex::new(None),
            busy,
            grows: AtomicU64::new(0),
            helpers: (1..threads).map(|_| AtomicU64::new(DONE)).collect(),
            helper_nodes: AtomicU64::new(0),
            bank_read: AtomicBool::new(false),
        }
    }

    /// Threads searching, the main one included.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// After a pass, the helpers joined: searches alone (the principal
    /// variation) must not take the pass's end for theirs.
    pub fn end_pass(&self) {
        self.abort.store(false, SeqCst);
    }

    /// Before a pass: no outcome, every helper about to search.
    pub fn begin_pass(&self) {
        self.abort.store(false, SeqCst);
        *self.outcome.lock().unwrap_or_else(|p| p.into_inner()) = None;
        for h in &self.helpers {
            h.store(RUNNING, SeqCst);
        }
    }

    /// Ends the pass with `outcome`, unless a search ended it first.
    pub fn finish(&self, outcome: Result<i32, Unsolved>) {
        let mut o = self.outcome.lock().unwrap_or_else(|p| p.into_inner());
        if o.is_none() {
            *o = Some(outcome);
        }
        self.abort.store(true, SeqCst);
    }

    pub fn note_bank_read(&self) {
        self.bank_read.store(true, SeqCst);
    }

    pub fn bank_read(&self) -> bool {
        self.bank_read.load(SeqCst)
    }

    pub fn aborted(&self) -> bool {
        self.abort.load(Relaxed)
    }

    /// The pass's outcome (taken).
    pub fn outcome(&self) -> Option<Result<i32, Unsolved>> {
        self.outcome.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// A helper leaves the search.
    pub fn helper_done(&self, id: usize) {
        self.helpers[id - 1].store(DONE, SeqCst);
    }

    fn busy_slot(&self, hash: u64) -> &AtomicU64 {
        &self.busy[(hash as usize) & (BUSY_SLOTS - 1)]
    }

    /// Marks a position as being searched (with several threads).
    pub fn enter(&self, hash: u64) {
        if !self.busy.is_empty() {
            self.busy_slot(hash).store(hash, Relaxed);
        }
    }

    /// Its search is over.
    pub fn leave(&self, hash: u64) {
        if !self.busy.is_empty() {
            // A hint: not an atomic exchange, which costs more at every node.
            let slot = self.busy_slot(hash);
            if slot.load(Relaxed) == hash {
                slot.store(0, Relaxed);
            }
        }
    }

    /// Whether a thread is searching the position now (a hint: a slot
    /// another position took says no).
    pub fn is_busy(&self, hash: u64) -> bool {
        !self.busy.is_empty() && self.busy_slot(hash).load(Relaxed) == hash
    }

    /// The main search grows the table when it is due to: once every helper
    /// is parked (or out of the search), so that nothing else reads it.
    /// Gives up the wait if the pass ends meanwhile.
    pub fn grow_if_wanted(&self) {
        if !self.tt.grow_wanted() {
            return;
        }
        let now = self.grows.load(SeqCst);
        while !self.helpers.iter().map(|h| h.load(SeqCst)).all(|state| state == DONE || state == now) {
            if self.aborted() {
                return;
            }
            std::thread::yield_now();
        }
        // SAFETY: every helper is parked or out of the search, and the
        // main search is here, between two uses of the table.
        unsafe { self.tt.grow() };
        self.grows.store(now + 1, SeqCst);
    }

    /// A helper parks while the table grows, if it is due to. False if the
    /// pass ended meanwhile: then the helper must not touch the table again
    /// (the main search may be growing it), only unwind.
    #[must_use]
    pub fn park_if_growing(&self, id: usize) -> bool {
        if !self.tt.grow_wanted() {
            return true;
        }
        let now = self.grows.load(SeqCst);
        self.helpers[id - 1].store(now, SeqCst);
        // The table clears its wish only once grown.
        while self.grows.load(SeqCst) == now && self.tt.grow_wanted() {
            if self.aborted() {
                return false;
            }
            std::thread::yield_now();
        }
        self.helpers[id - 1].store(RUNNING, SeqCst);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_ended_by_one_search_stops_the_others_and_then_no_longer_stops_the_main_one() {
        let sh = Shared::new(1 << 20, 2);
        sh.begin_pass();
        assert!(!sh.aborted());
        sh.finish(Ok(3));
        sh.finish(Ok(5));
        // The first outcome stands, and the other searches stop.
        assert!(sh.aborted());
        assert_eq!(sh.outcome(), Some(Ok(3)));
        // After the pass the main search goes on alone (the principal
        // variation): it must not stop as if the pass were ending again.
        sh.end_pass();
        assert!(!sh.aborted());
    }
}
