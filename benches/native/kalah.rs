//! A hand-written Kalah(6,4) under `rules/kalah.mancala --variant standard`:
//! the yardstick the interpreter is measured against (`benches/playout.rs`)
//! and checked against (`tests/perft.rs`). It is not part of the engine.
#![allow(dead_code)]

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Kalah(6,4), `standard`: holes s1..s6 = 0..5, South's store 6, n1..n6 =
/// 7..12, North's store 13, sown counter-clockwise in index order.
#[derive(Clone, Copy)]
pub struct Native {
    pub b: [u8; 14],
    pub south_to_move: bool,
    pub over: bool,
}

impl Native {
    pub fn new() -> Native {
        let mut b = [4u8; 14];
        b[6] = 0;
        b[13] = 0;
        Native { b, south_to_move: true, over: false }
    }

    /// The mover's non-empty pits, in order from their left.
    pub fn moves(&self, out: &mut [u8; 6]) -> usize {
        if self.over {
            return 0;
        }
        let first = if self.south_to_move { 0 } else { 7 };
        let mut n = 0;
        for p in first..first + 6 {
            if self.b[p] > 0 {
                out[n] = p as u8;
                n += 1;
            }
        }
        n
    }

    pub fn play(&mut self, pit: u8) {
        let (own, other) = if self.south_to_move { (6, 13) } else { (13, 6) };
        let mut seeds = self.b[pit as usize];
        self.b[pit as usize] = 0;
        let mut at = pit as usize;
        while seeds > 0 {
            at = if at == 13 { 0 } else { at + 1 };
            if at == other {
                continue;
            }
            self.b[at] += 1;
            seeds -= 1;
        }
        let own_pit = if self.south_to_move { at < 6 } else { (7..13).contains(&at) };
        if at != own {
            // A last stone alone in an own pit takes the pit opposite, and itself.
            if own_pit && self.b[at] == 1 && self.b[12 - at] > 0 {
                self.b[own] += self.b[12 - at] + 1;
                self.b[12 - at] = 0;
                self.b[at] = 0;
            }
            self.south_to_move = !self.south_to_move;
        }
        let south: u8 = self.b[0..6].iter().sum();
        let north: u8 = self.b[7..13].iter().sum();
        if south == 0 || north == 0 {
            self.b[6] += south;
            self.b[13] += north;
            self.b[0..6].fill(0);
            self.b[7..13].fill(0);
            self.over = true;
        }
    }

    /// One random game to its end: the stores and the plies.
    pub fn playout(rng: &mut ChaCha8Rng) -> ([u8; 2], u32) {
        let mut k = Native::new();
        let mut moves = [0u8; 6];
        let mut plies = 0;
        loop {
            let n = k.moves(&mut moves);
            if n == 0 {
                return ([k.b[6], k.b[13]], plies);
            }
            k.play(moves[rng.gen_range(0..n as u64) as usize]);
            plies += 1;
        }
    }

    /// Positions `depth` plies below (a move that earns another turn is one ply).
    pub fn perft(&self, depth: usize) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = [0u8; 6];
        let n = self.moves(&mut moves);
        if depth == 1 {
            return n as u64;
        }
        moves[..n]
            .iter()
            .map(|&m| {
                let mut k = *self;
                k.play(m);
                k.perft(depth - 1)
            })
            .sum()
    }
}
