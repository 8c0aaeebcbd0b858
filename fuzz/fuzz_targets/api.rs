//! cargo fuzz run api (see fuzz/README.md); the body is `harness::api`.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::api(data));
