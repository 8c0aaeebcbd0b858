//! cargo fuzz run metadata (see fuzz/README.md); the body is `harness::metadata`.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::metadata(data));
