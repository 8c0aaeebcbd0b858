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

/// Drop `value` on the pool, off the caller's thread (the model of a
/// dataset of many variables, freed after `nc_close` has returned). A
/// panic in a drop is caught and dropped with it: nothing waits for this.
pub fn drop_later<T: Send + 'static>(value: T) {
    WORKERS.spawn(move || {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(value)));
    });
}

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

/// Run jobs that spend their time waiting for a device or a server rather
/// than computing (an `fdatasync` each, or the requests of a remote
/// fragment of an aggregation): up to `max_threads` at once, the caller
/// and short-lived threads of their own. The pool has one thread per core,
/// but a disk serves many waiting requests together (it merges their cache
/// flushes): 256 `fdatasync`s take 5 ms each one after the other on an ext4
/// virtual disk, and about as long as one `syncfs` (40-50 ms in all) with 32
/// in flight. Results in job order. A thread that cannot be started is
/// done without; a panic in a job is the caller's.
pub fn run_waiting<J: Send, R: Send>(jobs: Vec<J>, max_threads: usize, f: impl Fn(J) -> R + Sync) -> Vec<R> {
    let n = jobs.len();
    let threads = max_threads.min(n);
    if threads <= 1 {
        return jobs.into_iter().map(f).collect();
    }
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate());
    let done = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<R>>>());
    // A poisoned lock means a job panicked; that panic reaches the caller
    // when the scope ends, and the iterator and slots stay valid meanwhile.
    let work = || {
        loop {
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
            let Some((i, job)) = next else { break };
            let r = f(job);
            done.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            let started = std::thread::Builder::new()
                .name("nczarr-wait".to_string())
                .stack_size(256 << 10)
                .spawn_scoped(s, work);
            if started.is_err() {
                break;
            }
        }
        work();
    });
    done.into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
        .collect()
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

    #[test]
    fn waiting_jobs_overlap_and_keep_their_order() {
        let out = run_waiting((0..100u64).collect(), 8, |i| i * 3);
        assert_eq!(out, (0..100u64).map(|i| i * 3).collect::<Vec<_>>());
        assert_eq!(run_waiting(vec![5u8], 8, |x| x), vec![5]);
        assert_eq!(run_waiting(Vec::<u8>::new(), 8, |x| x), Vec::<u8>::new());
        // Eight jobs that each wait for all eight to have started: done only
        // if eight run at once.
        let started = std::sync::atomic::AtomicUsize::new(0);
        let t0 = std::time::Instant::now();
        let out = run_waiting(vec![(); 8], 8, |()| {
            started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            while started.load(std::sync::atomic::Ordering::SeqCst) < 8 {
                assert!(
                    t0.elapsed() < std::time::Duration::from_secs(20),
                    "jobs did not overlap"
                );
                std::thread::yield_now();
            }
            std::thread::current().id()
        });
        let distinct: std::collections::HashSet<_> = out.into_iter().collect();
        assert_eq!(distinct.len(), 8);
    }
}
