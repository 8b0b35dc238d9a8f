//! The passes of MTD(f), with one thread or several, and the look at the
//! limits every 16,384 positions: time, positions, Ctrl-C, and with several
//! threads, whether another search ended the pass and whether the table is
//! due to grow.

use super::{Solver, Unsolved};
use crate::engine::{Engine, Halt};

impl Solver<'_> {
    /// Positions searched by every thread.
    pub(super) fn all_nodes(&self) -> u64 {
        self.nodes + self.sh.helper_nodes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// One pass of MTD(f): is the value of `e` at least `beta`? With more
    /// than one thread, helpers search the same pass through the shared
    /// table, and the first to finish gives the answer.
    pub(super) fn pass(&mut self, e: &mut Engine, beta: i32) -> Result<i32, Unsolved> {
        let sh = self.sh;
        if sh.threads() == 1 {
            return self.node(e, beta - 1, beta, 0).map_err(|h| self.halt(h));
        }
        sh.begin_pass();
        std::thread::scope(|scope| {
            for id in 1..sh.threads() {
                let mut he = e.clone();
                let (reach, relative, limits, start) = (self.reach.clone(), self.relative, self.limits, self.start);
                scope.spawn(move || {
                    // A helper that panicked (which the engine never should)
                    // ends the pass with the reason: the main search would
                    // otherwise wait for it, at the table's next growth.
                    let search = std::panic::AssertUnwindSafe(|| {
                        let mut quiet = |_: &str| {};
                        let mut h = Solver::new(sh, id, reach, relative, (start, limits), &mut quiet);
                        h.beta = beta;
                        let r = h.node(&mut he, beta - 1, beta, 0);
                        if he.bank_read() {
                            sh.note_bank_read();
                        }
                        let counted = h.nodes - h.nodes % (1 << 14);
                        sh.helper_nodes.fetch_add(h.nodes - counted, std::sync::atomic::Ordering::Relaxed);
                        sh.tt.count(h.uncounted);
                        match r {
                            Ok(g) => sh.finish(Ok(g)),
                            Err(_) if sh.aborted() => {}
                            Err(halt) => {
                                let why = h.halt(halt);
                                sh.finish(Err(why));
                            }
                        }
                    });
                    if let Err(panic) = std::panic::catch_unwind(search) {
                        let what = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        sh.finish(Err(Unsolved::Failed(format!("a search thread failed: {what}"))));
                    }
                    sh.helper_done(id);
                });
            }
            let r = self.node(e, beta - 1, beta, 0);
            sh.tt.count(std::mem::take(&mut self.uncounted));
            match r {
                Ok(g) => sh.finish(Ok(g)),
                Err(_) if sh.aborted() && self.gave_up.is_none() => {}
                Err(h) => {
                    let why = self.halt(h);
                    sh.finish(Err(why));
                }
            }
        });
        // The helpers are done: the table is the main search's alone.
        sh.end_pass();
        sh.grow_if_wanted();
        sh.outcome().unwrap_or_else(|| Err(Unsolved::Failed("a pass ended without a value".into())))
    }

    /// Gives up the search: the error that unwinds it, and why.
    pub(super) fn give_up(&mut self, why: Unsolved) -> Halt {
        let h = Halt::Error(why.to_string());
        self.gave_up = Some(why);
        h
    }

    /// Whether the time or positions allowed have run out, or Ctrl-C was
    /// pressed: looked at every 16,384 positions.
    /// With several threads, also whether another search ended the pass
    /// (an error with no reason kept), and the table's growth: the main
    /// search grows it, helpers wait meanwhile.
    pub(super) fn stop(&mut self) -> Option<Halt> {
        const EVERY: u64 = 1 << 14;
        if !self.nodes.is_multiple_of(EVERY) {
            return None;
        }
        if self.sh.threads() > 1 {
            self.sh.tt.count(std::mem::take(&mut self.uncounted));
            let over = || Some(Halt::Error("the pass is over".into()));
            if self.id > 0 {
                #[cfg(test)]
                if tests::FAIL_HELPERS.load(std::sync::atomic::Ordering::Relaxed) {
                    panic!("a test's failpoint");
                }
                // Helpers leave the limits to the main search.
                self.sh.helper_nodes.fetch_add(EVERY, std::sync::atomic::Ordering::Relaxed);
                let parked = self.sh.park_if_growing(self.id);
                return if parked && !self.sh.aborted() { None } else { over() };
            }
            if self.sh.aborted() {
                return over();
            }
            self.sh.grow_if_wanted();
        }
        let nodes = self.all_nodes();
        let why = if crate::ai::interrupted() {
            "interrupted".to_string()
        } else if self.limits.max_positions.is_some_and(|n| nodes >= n) {
            format!("no value within {nodes} positions searched (--max-positions)")
        } else if self.limits.time.is_some_and(|t| self.start.elapsed() >= t) {
            format!("no value within {:.1} s (--time), {nodes} positions searched", self.start.elapsed().as_secs_f64())
        } else {
            return None;
        };
        Some(self.give_up(Unsolved::Stopped(why)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Limits, Unsolved, solve_limited};
    use crate::engine::Engine;
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

    /// Makes every helper panic at its first look at the limits (no other
    /// test of this crate's own solves with more than one thread).
    pub(super) static FAIL_HELPERS: AtomicBool = AtomicBool::new(false);

    #[test]
    fn a_helper_that_panics_ends_the_solve_with_the_reason() {
        // Two rows of five, three counters each, stores on the track, an
        // extra turn and a capture: about 200,000 positions to solve.
        let rules = r#"
game "Two rows of five"
players south, north
pit s[1..5] owner south
store S owner south
pit n[1..5] owner north
store N owner north
track round cyclic: s[1..5], S, n[1..5], N
relation opposite: s[i] <-> n[6 - i] for i in 1..5
setup { put 3 in every pit }
move sow "{hole}" {
  choose hole in every pit of mover where count(hole) > 0
  sow hole along round skip it is store and owner(it) != mover
}
rule extra after sow { if last == store(mover) { again } }
rule capture after sow {
  if last is pit and owner(last) == mover and count(last) == 1 and count(opposite(last)) > 0 {
    take opposite(last) to store(mover)
    take last to store(mover)
  }
}
end empty when any(p in players: count(every pit of p) == 0) {
  for p in players { take every pit of p to store(p) }
}
when stuck: end
score p: count(store(p))
"#;
        let cfg = crate::compile::Config { variants: vec![], settings: vec![] };
        let game =
            crate::compile::compile_source("test", rules, &cfg).unwrap_or_else(|f| panic!("{}", f.render(false)));
        let e = Engine::new(std::sync::Arc::new(game)).unwrap();
        // A table that grows: the main search waits for the helpers then.
        let limits = Limits { memory: 4 << 20, time: None, max_positions: None, threads: 2 };
        FAIL_HELPERS.store(true, Relaxed);
        let r = solve_limited(&e, limits, &mut |_| {});
        FAIL_HELPERS.store(false, Relaxed);
        match r {
            Err(Unsolved::Failed(why)) => assert!(why.contains("a search thread failed: a test's failpoint"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
