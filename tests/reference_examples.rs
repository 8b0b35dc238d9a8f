//! The language reference (grammar/README.md) quotes shipped rule files:
//! every line of every `mancala` example not marked "written for this
//! reference" stands, as written, in some file of `rules/` (or is a part of
//! one such line: an expression quoted alone).

#[test]
fn the_reference_quotes_shipped_rule_files() {
    let reference = std::fs::read_to_string("grammar/README.md").unwrap();
    let mut shipped: Vec<String> = Vec::new();
    for entry in std::fs::read_dir("rules").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "mancala") {
            shipped.extend(std::fs::read_to_string(&path).unwrap().lines().map(|l| l.trim().to_string()));
        }
    }
    let mut examples = 0;
    let blocks = reference.split("```mancala\n").skip(1);
    let mut unquoted = Vec::new();
    for rest in blocks {
        let block = rest.split("```").next().unwrap();
        if block.lines().next().is_some_and(|l| l.starts_with('#') && l.contains("written for this reference")) {
            continue;
        }
        examples += 1;
        for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
            // A line, or a part of one (an expression quoted alone).
            if !shipped.iter().any(|s| s.contains(line)) {
                unquoted.push(line.to_string());
            }
        }
    }
    assert!(examples > 40, "read {examples} examples");
    assert!(
        unquoted.is_empty(),
        "lines of the reference's examples found in no shipped rule file:\n{}",
        unquoted.join("\n")
    );
}
