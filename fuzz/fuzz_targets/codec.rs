//! cargo fuzz run codec (see fuzz/README.md); the body is `harness::codec`.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::codec(data));
