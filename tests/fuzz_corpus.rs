//! Every committed fuzz corpus file (fuzz/corpus/<target>/) replayed
//! through its target's body, so what fuzzing once found stays fixed.
//! Coverage-guided runs: fuzz/README.md.

// The harness's unsafe blocks call exports of the C API with pointers to its
// own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

#[path = "../fuzz/harness.rs"]
mod harness;

#[test]
fn every_corpus_file_replays_without_a_crash() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut replayed = 0;
    for (name, body) in harness::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("readable corpus entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no corpus", dir.display());
        for f in files {
            let data = std::fs::read(&f).expect("readable corpus file");
            eprintln!("{name}: {}", f.display());
            body(&data);
            replayed += 1;
        }
    }
    eprintln!("{replayed} corpus files replayed");
}
