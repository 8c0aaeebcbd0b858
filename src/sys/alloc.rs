//! The allocator of the library's own memory (everything Rust allocates;
//! memory handed to C callers, which they free with `free()` or
//! `nc_free_string`, comes from the C library's `malloc` in `ffi`).
//!
//! By default mimalloc: metadata, paths and bookkeeping are many small
//! objects made on the pool's threads and freed on others, where glibc's
//! malloc grew its per-thread arenas one `mprotect` at a time (about 300 in
//! a create of 2000 arrays, against 14 here), and that create took about
//! 2 ms longer on tmpfs (medians of 21-31, alternated). Built with the
//! local-dynamic TLS model (the library is loaded with `dlopen` by Python)
//! and without transparent huge pages (so memory is taken a page at a
//! time, as with malloc: with them a small program's resident memory
//! doubled).
//!
//! `NCZARR_ALLOCATOR=system` takes the C library's `malloc` instead, read
//! once, at the library's first allocation: valgrind's memcheck sees only
//! what goes through `malloc`, so the valgrind tests set it (a use after
//! free in mimalloc's own pages would go unseen).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::CStr;
use std::sync::atomic::{AtomicU8, Ordering};

const UNSET: u8 = 0;
const MIMALLOC: u8 = 1;
const SYSTEM: u8 = 2;

/// Which allocator this process uses, fixed at the first allocation.
static CHOICE: AtomicU8 = AtomicU8::new(UNSET);

/// The allocator: chosen once and never changed, so every block is freed by
/// the allocator that made it.
fn choice() -> u8 {
    let c = CHOICE.load(Ordering::Relaxed);
    if c != UNSET {
        return c;
    }
    // (std::env would allocate: the allocator cannot use it.)
    // SAFETY: the name is NUL-terminated; the value getenv returns is read
    // at once, while no thread of ours changes the environment.
    let v = unsafe { libc::getenv(c"NCZARR_ALLOCATOR".as_ptr()) };
    // SAFETY: a non-null getenv result is a NUL-terminated string.
    let system = !v.is_null() && unsafe { CStr::from_ptr(v) }.to_bytes() == b"system";
    let c = if system { SYSTEM } else { MIMALLOC };
    // Threads that race here read the same environment; whichever stores
    // first, every thread uses what was stored.
    match CHOICE.compare_exchange(UNSET, c, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => c,
        Err(stored) => stored,
    }
}

/// The library's global allocator (see the module notes).
pub struct Allocator;

// SAFETY: each method hands the caller's layout and pointer to one of two
// allocators that uphold GlobalAlloc's contract, always the same one
// (`choice` never changes once made), so a block is reallocated and freed
// by the allocator that made it.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if choice() == SYSTEM {
            // SAFETY: the caller's contract for `alloc` (non-zero size), passed on.
            unsafe { System.alloc(layout) }
        } else {
            // SAFETY: as above.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if choice() == SYSTEM {
            // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
            unsafe { System.alloc_zeroed(layout) }
        } else {
            // SAFETY: as above.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if choice() == SYSTEM {
            // SAFETY: `ptr` came from `System` (the choice is fixed), with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        } else {
            // SAFETY: `ptr` came from mimalloc (the choice is fixed), with `layout`.
            unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if choice() == SYSTEM {
            // SAFETY: `ptr` came from `System` with `layout`; the caller's
            // contract for `new_size`, passed on.
            unsafe { System.realloc(ptr, layout, new_size) }
        } else {
            // SAFETY: `ptr` came from mimalloc with `layout`; as above.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_is_made_once_and_blocks_round_trip() {
        let c = choice();
        assert!(c == MIMALLOC || c == SYSTEM);
        assert_eq!(choice(), c);
        let mut v: Vec<u64> = (0..10_000).collect();
        v.extend(0..10_000u64);
        v.shrink_to_fit();
        assert_eq!(v.iter().sum::<u64>(), 2 * (0..10_000u64).sum::<u64>());
        let z = vec![0u8; 1 << 20];
        assert!(z.iter().all(|&b| b == 0));
    }
}
