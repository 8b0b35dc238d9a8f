//! The fuzz campaign: rule files generated from the grammar, and the shipped
//! files with parts derived anew, lines moved or numbers made extreme, each
//! checked and, when it checks, played (see `cases.rs`), and played side
//! by side by the compiled executor and the reference one, which must give
//! the same answers (see `differ.rs`).
//!
//! The cases run in a worker process (this test binary again), which keeps
//! within a memory limit; this process watches it. A worker that panics,
//! aborts (memory), stops making progress (a hang) or finds the executors
//! differing (a panic) is a failure: the case
//! is written to `target/tmp/fuzz/`, and the campaign goes on from the next
//! case with a new worker. The test fails if any case failed.
//!
//! - `cargo test --test fuzz`: the seeded slice CI runs (2,000 cases).
//! - `MANCALA_FUZZ_CASES=1000000 cargo test --release --test fuzz -- --nocapture`:
//!   a long campaign (`MANCALA_FUZZ_SEED` picks another one,
//!   `MANCALA_FUZZ_JOBS=2` runs two workers at once; the README has the last
//!   long campaign's size and result).
//! - `MANCALA_FUZZ_CASE=N` (with the campaign's seed): writes case N and runs
//!   it in this process, to see a failure happen (case N is made from the
//!   rule files as they are: after they change, the file a failure wrote
//!   runs with `MANCALA_FUZZ_FILE=PATH MANCALA_FUZZ_CASE=N`).

mod cases;
mod differ;
mod grammar;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SLICE: u64 = 2_000;
/// A case that makes no progress for this long is a hang.
const HANG: Duration = Duration::from_secs(30);

/// How a share of the campaign is watched; `plant` makes the worker fail on
/// purpose (`panic@N`, `abort@N`, `hang@N`), to test the watching.
#[derive(Clone, Copy)]
struct Watch<'a> {
    seed: u64,
    hang: Duration,
    plant: &'a str,
}
/// A worker's address space: far more than any case needs.
const MEMORY: u64 = 4 << 30;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok())
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn campaign() {
    let seed = env_u64("MANCALA_FUZZ_SEED").unwrap_or(1);
    if let Ok(range) = std::env::var("MANCALA_FUZZ_WORKER") {
        return worker(seed, &range);
    }
    if let Ok(path) = std::env::var("MANCALA_FUZZ_FILE") {
        let text = std::fs::read_to_string(&path).unwrap();
        let i = env_u64("MANCALA_FUZZ_CASE").unwrap_or(0);
        eprintln!("{path}, played as case {i}");
        cases::run(&text, i, &mut cases::Tally::default());
        return;
    }
    let corpus = cases::Corpus::load();
    if let Some(i) = env_u64("MANCALA_FUZZ_CASE") {
        let text = corpus.case(seed, i);
        let path = dir().join(format!("case-{seed}-{i}.mancala"));
        std::fs::write(&path, &text).unwrap();
        eprintln!("case {i} of campaign {seed}: {}", path.display());
        cases::run(&text, i, &mut cases::Tally::default());
        return;
    }
    let total = env_u64("MANCALA_FUZZ_CASES").unwrap_or(SLICE);
    let jobs = env_u64("MANCALA_FUZZ_JOBS").unwrap_or(1).max(1);
    let started = Instant::now();
    // Each job supervises a worker over its share of the cases.
    let shares: Vec<(u64, u64)> = (0..jobs).map(|j| (total * j / jobs, total * (j + 1) / jobs)).collect();
    let results: Vec<([u64; 6], Vec<String>)> = std::thread::scope(|scope| {
        let corpus = &corpus;
        let handles: Vec<_> = shares
            .into_iter()
            .map(|(from, to)| scope.spawn(move || run_share(corpus, Watch { seed, hang: HANG, plant: "" }, from, to)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut tally = [0u64; 6];
    let mut failures: Vec<String> = Vec::new();
    for (t, f) in results {
        add(&mut tally, t);
        failures.extend(f);
    }
    let [refused, checked, plies, ended, halted, compared] = tally;
    eprintln!(
        "fuzz campaign {seed}: {total} files in {:.0?}: {refused} refused with diagnostics, {checked} checked and played \
         ({plies} plies, {ended} games ended, {halted} stopped by a rule error; {compared} plies compared with the \
         reference executor); {} failures (panics, aborts, hangs, the executors differing)",
        started.elapsed(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Cases `from..to`, a worker at a time: after a failure a new worker goes
/// on from the next case.
fn run_share(corpus: &cases::Corpus, watch: Watch, from: u64, to: u64) -> ([u64; 6], Vec<String>) {
    let seed = watch.seed;
    let mut failures = Vec::new();
    let mut tally = [0u64; 6];
    let mut next = from;
    while next < to {
        match supervise(watch, next, to) {
            Ok(t) => {
                add(&mut tally, t);
                next = to;
            }
            Err((at, why, t)) => {
                add(&mut tally, t);
                let path = dir().join(format!("case-{seed}-{at}.mancala"));
                std::fs::write(&path, corpus.case(seed, at)).unwrap();
                failures.push(format!(
                    "case {at}: {why}\n  the file: {}\n  again: MANCALA_FUZZ_FILE={} MANCALA_FUZZ_CASE={at} cargo test --test fuzz -- --nocapture",
                    path.display(),
                    path.display()
                ));
                next = at + 1;
            }
        }
    }
    (tally, failures)
}

fn add(tally: &mut [u64; 6], t: [u64; 6]) {
    for (a, b) in tally.iter_mut().zip(t) {
        *a += b;
    }
}

/// Runs cases `from..to` in a worker. Ok with the tallies when all ran;
/// else the case that failed, how, and the tallies of those before it.
fn supervise(watch: Watch, from: u64, to: u64) -> Result<[u64; 6], (u64, String, [u64; 6])> {
    // Names no other worker of this process uses, whatever test runs it.
    static WORKERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WORKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let progress = dir().join(format!("progress-{}-{n}", std::process::id()));
    let log = dir().join(format!("worker-{}-{n}.log", std::process::id()));
    std::fs::write(&progress, format!("{from} 0 0 0 0 0 0\n")).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["campaign", "--exact", "--nocapture", "--test-threads", "1"])
        .env("MANCALA_FUZZ_WORKER", format!("{from}:{to}:{}", progress.display()))
        .env("MANCALA_FUZZ_SEED", watch.seed.to_string())
        .env("MANCALA_FUZZ_PLANT", watch.plant)
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("the worker starts");
    let read = || -> (u64, [u64; 6]) {
        let text = std::fs::read_to_string(&progress).unwrap_or_default();
        let v: Vec<u64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        match v.as_slice() {
            [at, a, b, c, d, e, f] => (*at, [*a, *b, *c, *d, *e, *f]),
            _ => (from, [0; 6]),
        }
    };
    let (mut seen, mut since) = (from, Instant::now());
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (at, t) = read();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let _ = (std::fs::remove_file(&progress), std::fs::remove_file(&log));
            if status.success() {
                return Ok(t);
            }
            let tail: String = {
                // The panic's message, if there was one.
                let from = text.find("panicked at").unwrap_or(text.len());
                text[from..].lines().take_while(|l| !l.starts_with("note:")).collect::<Vec<_>>().join("\n  ")
            };
            return Err((at, format!("the worker died ({status}):\n  {tail}"), t));
        }
        let (at, t) = read();
        if at != seen {
            (seen, since) = (at, Instant::now());
        } else if since.elapsed() > watch.hang {
            let _ = child.kill();
            let _ = child.wait();
            let _ = (std::fs::remove_file(&progress), std::fs::remove_file(&log));
            return Err((at, format!("no answer within {:?} (a hang)", watch.hang), t));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The worker: runs its cases, writing before each the number of the case
/// and the tallies so far, so that the supervisor knows which one failed.
fn worker(seed: u64, range: &str) {
    let mut parts = range.splitn(3, ':');
    let from: u64 = parts.next().unwrap().parse().unwrap();
    let to: u64 = parts.next().unwrap().parse().unwrap();
    let progress = parts.next().unwrap();
    limit_memory();
    let corpus = cases::Corpus::load();
    let plant = std::env::var("MANCALA_FUZZ_PLANT").unwrap_or_default();
    let mut tally = cases::Tally::default();
    // Written aside and renamed, so that the supervisor never reads half a line.
    let aside = format!("{progress}.new");
    let write = |at: u64, t: &cases::Tally| {
        let line =
            format!("{at} {} {} {} {} {} {}\n", t.refused, t.checked, t.played_plies, t.ended, t.halted, t.compared);
        std::fs::write(&aside, line).unwrap();
        std::fs::rename(&aside, progress).unwrap();
    };
    for i in from..to {
        write(i, &tally);
        match plant.split_once('@') {
            Some((what, n)) if n.parse() == Ok(i) => match what {
                "panic" => panic!("planted"),
                "abort" => std::process::abort(),
                _ => loop {
                    std::thread::sleep(Duration::from_secs(1));
                },
            },
            _ => {}
        }
        let text = corpus.case(seed, i);
        cases::run(&text, i, &mut tally);
    }
    write(to, &tally);
}

fn limit_memory() {
    let limit = libc::rlimit { rlim_cur: MEMORY, rlim_max: MEMORY };
    // SAFETY: setrlimit only reads the struct passed by reference.
    let r = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    assert_eq!(r, 0, "the worker's memory limit could not be set");
}

#[test]
fn the_watch_finds_a_panic_an_abort_and_a_hang() {
    if std::env::var("MANCALA_FUZZ_WORKER").is_ok() {
        return;
    }
    let corpus = cases::Corpus::load();
    let watch = Watch { seed: 7, hang: Duration::from_secs(3), plant: "" };
    for (plant, at, how) in [("panic@3", 3, "planted"), ("abort@5", 5, "SIGABRT"), ("hang@7", 7, "a hang")] {
        let (tally, failures) = run_share(&corpus, Watch { plant, ..watch }, 0, 10);
        assert_eq!(failures.len(), 1, "{plant}: {failures:?}");
        assert!(
            failures[0].starts_with(&format!("case {at}: ")) && failures[0].contains(how),
            "{plant}: {}",
            failures[0]
        );
        // The other nine cases ran, each refused or checked.
        assert_eq!(tally[0] + tally[1], 9, "{plant}");
    }
}
