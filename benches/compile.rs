//! Loading a rule file: parsing, checking and lowering it to the
//! executor's program, what `mancala check` and `mancala play` do before
//! anything else, for the library's files that take longest and for Kalah.
//!
//! `cargo bench --bench compile` runs them all; `cargo bench --bench compile
//! -- katro` one.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mancala::compile::{Config, compile_file};
use mancala::engine::Engine;

fn loading(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for name in ["katro", "bao", "tea-party", "omweso", "kalah"] {
        let file = format!("rules/{name}.mancala");
        group.bench_function(name, |b| {
            b.iter(|| {
                let game = compile_file(&file, &Config::default()).unwrap_or_else(|f| panic!("{}", f.render(false)));
                black_box(Engine::new(Arc::new(game)).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, loading);
criterion_main!(benches);
