//! The engine knows no game by name: everything game-specific lives in
//! `rules/`. This test reads every source file under `src/`.

#[test]
fn src_names_no_shipped_game() {
    let names = [
        "kalah",
        "cups",
        "bohn",
        "spectral",
        "reaper",
        "tea party",
        "tea-party",
        "cream",
        "sugar",
        "saucer",
        "wari",
        "oware",
    ];
    let mut stack = vec![std::path::PathBuf::from("src")];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
            for n in names {
                assert!(!text.contains(n), "{} mentions `{n}`", path.display());
            }
        }
    }
    assert!(files > 5, "expected to read the sources, read {files} files");
}
