//! The hot path (legal moves, apply, undo, the random agent's choice, and
//! random moves drawn and made in one call) allocates nothing once warm. A
//! counting allocator wraps the system one in this test binary, which holds
//! this one test only, so nothing else allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mancala::compile::{Config, compile_file};
use mancala::engine::{Engine, Move};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Counting;
static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Random games with search-like use: at each ply, try every legal move and
/// undo it, then make one.
fn churn(
    e: &mut Engine,
    rng: &mut ChaCha8Rng,
    moves: &mut Vec<Move>,
    plies: usize,
    start: &mancala::engine::Position,
) -> usize {
    let mut made = 0;
    for _ in 0..plies {
        e.legal_moves(moves).unwrap();
        if moves.is_empty() {
            while e.undo() {}
            assert_eq!(e.position(), start);
            continue;
        }
        for &mv in moves.iter() {
            e.apply(mv).unwrap();
            e.undo();
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        e.apply(mv).unwrap();
        made += 1;
    }
    made
}

#[test]
fn legal_moves_apply_and_undo_allocate_nothing_once_warm() {
    let cases: [(&str, &[&str]); 3] =
        [("rules/kalah.mancala", &[]), ("rules/kalah.mancala", &["standard"]), ("rules/cups.mancala", &[])];
    for (rules, variants) in cases {
        let cfg = Config { variants: variants.iter().map(|v| v.to_string()).collect(), settings: vec![] };
        let game = Arc::new(compile_file(rules, &cfg).unwrap());
        let mut e = Engine::new(game).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut moves = Vec::with_capacity(64);
        // Warm up: the undo stack and scratch buffers grow to their size.
        let start = e.position().clone();
        churn(&mut e, &mut rng, &mut moves, 3000, &start);
        while e.undo() {}
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        let made = churn(&mut e, &mut rng, &mut moves, 3000, &start);
        COUNTING.store(false, Ordering::Relaxed);
        let n = ALLOCATIONS.load(Ordering::Relaxed);
        assert!(made > 1000, "{rules}: only {made} moves made");
        assert_eq!(n, 0, "{rules} {variants:?}: {n} allocations in {made} plies of legal moves, apply and undo");

        // The random agent draws from the game itself: no copy of the game
        // (and of its whole history) at every move, nothing allocated.
        let random: mancala::ai::AgentSpec = "random".parse().unwrap();
        let agent = |e: &mut Engine, rng: &mut ChaCha8Rng| {
            let mut made = 0;
            for _ in 0..3000 {
                match mancala::ai::choose(random, e, rng).unwrap() {
                    Some(c) => {
                        e.apply(c.mv).unwrap();
                        made += 1;
                    }
                    None => while e.undo() {},
                }
            }
            made
        };
        // Warm: the buffers a random draw uses grow to their size.
        agent(&mut e, &mut rng);
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        let made = agent(&mut e, &mut rng);
        COUNTING.store(false, Ordering::Relaxed);
        let n = ALLOCATIONS.load(Ordering::Relaxed);
        assert_eq!(n, 0, "{rules} {variants:?}: {n} allocations in {made} moves of the random agent");
    }

    // Random moves drawn and made in one call (`play_random`), in rules
    // whose moves must be tried (a lap limit) as well, and with an `avoid`
    // (Kalah's defaults): a move is left made by its trial or by the
    // `avoid`s' look at it, nothing kept or copied.
    let cases: [(&str, &[&str]); 3] =
        [("rules/jongkak.mancala", &[]), ("rules/kalah.mancala", &["standard"]), ("rules/kalah.mancala", &[])];
    for (rules, variants) in cases {
        let cfg = Config { variants: variants.iter().map(|v| v.to_string()).collect(), settings: vec![] };
        let mut e = Engine::new(Arc::new(compile_file(rules, &cfg).unwrap())).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut play = |e: &mut Engine| {
            let mut made = 0;
            for _ in 0..3000 {
                match e.play_random(&mut rng).unwrap() {
                    Some(_) => made += 1,
                    None => while e.undo() {},
                }
            }
            made
        };
        play(&mut e);
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        let made = play(&mut e);
        COUNTING.store(false, Ordering::Relaxed);
        let n = ALLOCATIONS.load(Ordering::Relaxed);
        assert!(made > 1000, "{rules}: only {made} moves made");
        assert_eq!(n, 0, "{rules} {variants:?}: {n} allocations in {made} moves drawn and made by play_random");
    }
}
