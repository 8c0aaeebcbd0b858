//! The library's private worker pool: chunk decoding, encoding and
//! conversion, and the parallel parts of storage, run here, so a
//! single-threaded C caller still gets every core. Its size comes from
//! `NCZARR_THREADS` (default: every core).
#![forbid(unsafe_code)]

use std::sync::LazyLock;

use rayon::prelude::*;

/// The library's own worker pool (size from `NCZARR_THREADS`, default: all cores).
static WORKERS: LazyLock<rayon::ThreadPool> = LazyLock::new(|| {
    let n = std::env::var("NCZARR_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("nczarr-{i}"))
        .build()
        .unwrap_or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool"))
});

/// How many threads the pool has.
pub fn threads() -> usize {
    WORKERS.current_num_threads().max(1)
}

/// Run `f` on the worker pool (so that rayon's parallel iterators inside it
/// use the library's threads, `NCZARR_THREADS`).
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    WORKERS.install(f)
}

/// Run per-chunk jobs on the pool (inline for none or a single chunk: a
/// trip to the pool costs two thread wake-ups, more than a small job).
pub fn run_jobs<J: Send, R: Send>(jobs: Vec<J>, f: impl Fn(J) -> R + Sync + Send) -> Vec<R> {
    if jobs.len() <= 1 {
        jobs.into_iter().map(f).collect()
    } else {
        WORKERS.install(|| jobs.into_par_iter().map(f).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_keep_their_order() {
        let out = run_jobs((0..1000u64).collect(), |i| i * i);
        assert_eq!(out, (0..1000u64).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(run_jobs(Vec::<u8>::new(), |x| x), Vec::<u8>::new());
    }

    #[test]
    fn one_job_runs_in_the_caller_and_more_on_the_pool() {
        let here = std::thread::current().id();
        assert_eq!(run_jobs(vec![()], |()| std::thread::current().id()), vec![here]);
        let on = run_jobs(vec![(); 4], |()| rayon::current_thread_index().is_some());
        assert_eq!(on, vec![true; 4]);
        assert!(on_pool(|| rayon::current_thread_index().is_some()));
        assert!(threads() >= 1);
    }
}
