//! cargo fuzz run zip (see fuzz/README.md); the body is `harness::zip`.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::zip(data));
