//! Background `fdatasync` of the objects a file store writes in durable mode.
//!
//! A put hands its file (still open) to the store's [`Syncer`] once the
//! object is in place and goes on writing the next one; the syncer's
//! threads (started as needed, at most [`MAX_THREADS`], each leaving after a
//! few idle seconds) call `fdatasync` on them. So the disk writes out one
//! object while the workers make the next, and many syncs are in flight at
//! once, which a disk serves together (it merges their cache flushes). A
//! stable flush first waits for every sync handed over ([`Syncer::wait`]).
//!
//! Bounded: at most [`MAX_OUTSTANDING`] files wait or are being synced (so
//! as many descriptors are open); a put that would exceed it waits for room.
//! A sync that fails is reported by `wait` with the object's directory and
//! name, so the flush can sync it again by name and report what still fails.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The most files handed over and not yet synced.
pub const MAX_OUTSTANDING: usize = 64;

/// The most syncing threads of one store.
pub const MAX_THREADS: usize = 16;

/// How long a syncing thread waits for work before it leaves.
const IDLE: Duration = Duration::from_secs(2);

/// An object whose sync failed: its directory, name and error.
pub type Failed = (PathBuf, OsString, io::Error);

/// The sync of one file (replaced in tests).
pub type SyncOp = fn(&File) -> io::Result<()>;

struct Job {
    file: File,
    dir: PathBuf,
    name: OsString,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Handed over and not yet synced (queued or being synced).
    outstanding: usize,
    /// Threads running.
    threads: usize,
    failed: Vec<Failed>,
}

struct Shared {
    state: Mutex<State>,
    /// A job was queued.
    work: Condvar,
    /// A sync finished.
    done: Condvar,
    op: SyncOp,
}

impl Shared {
    /// A poisoned lock only means a thread panicked between two consistent
    /// states (no code here panics while holding it).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sync `job` (the lock not held), then account for it.
    fn run(&self, job: Job) {
        let r = (self.op)(&job.file);
        drop(job.file);
        let mut st = self.lock();
        st.outstanding -= 1;
        if let Err(e) = r {
            st.failed.push((job.dir, job.name, e));
        }
        drop(st);
        self.done.notify_all();
    }

    /// A syncing thread: jobs until none comes for `IDLE`.
    fn serve(&self) {
        let mut st = self.lock();
        loop {
            if let Some(job) = st.queue.pop_front() {
                drop(st);
                self.run(job);
                st = self.lock();
                continue;
            }
            let (next, timeout) = self.work.wait_timeout(st, IDLE).unwrap_or_else(|p| p.into_inner());
            st = next;
            if timeout.timed_out() && st.queue.is_empty() {
                st.threads -= 1;
                return;
            }
        }
    }
}

/// The background syncs of one store.
pub struct Syncer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Syncer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.shared.lock();
        f.debug_struct("Syncer")
            .field("outstanding", &st.outstanding)
            .field("threads", &st.threads)
            .finish()
    }
}

impl Syncer {
    pub fn new(op: SyncOp) -> Syncer {
        Syncer {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                done: Condvar::new(),
                op,
            }),
        }
    }

    /// Sync `file`, the object `name` of `dir`, in the background (waiting
    /// first while [`MAX_OUTSTANDING`] files are). Where no thread can be
    /// started and none runs, it is synced here.
    pub fn submit(&self, file: File, dir: &Path, name: &OsStr) {
        let sh = &self.shared;
        let job = Job {
            file,
            dir: dir.to_path_buf(),
            name: name.to_os_string(),
        };
        let mut st = sh.lock();
        while st.outstanding >= MAX_OUTSTANDING {
            st = sh.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st.outstanding += 1;
        if st.threads < MAX_THREADS && st.threads < st.outstanding {
            let worker = Arc::clone(sh);
            let started = std::thread::Builder::new()
                .name("nczarr-sync".to_string())
                .stack_size(128 << 10)
                .spawn(move || worker.serve());
            if started.is_ok() {
                st.threads += 1;
            } else if st.threads == 0 {
                drop(st);
                sh.run(job);
                return;
            }
        }
        st.queue.push_back(job);
        drop(st);
        sh.work.notify_one();
    }

    /// Wait until every file handed over is synced; the objects whose sync
    /// failed since the last call.
    pub fn wait(&self) -> Vec<Failed> {
        let sh = &self.shared;
        let mut st = sh.lock();
        while st.outstanding > 0 {
            st = sh.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        std::mem::take(&mut st.failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static SYNCED: AtomicUsize = AtomicUsize::new(0);

    fn counting(_: &File) -> io::Result<()> {
        std::thread::sleep(Duration::from_millis(1));
        SYNCED.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn failing(_: &File) -> io::Result<()> {
        Err(io::Error::from_raw_os_error(libc::EIO))
    }

    fn a_file(dir: &Path, i: usize) -> File {
        File::create(dir.join(format!("f{i}"))).unwrap()
    }

    #[test]
    fn wait_returns_once_every_file_is_synced() {
        let dir = tempfile::tempdir().unwrap();
        let s = Syncer::new(counting);
        let n = 3 * MAX_OUTSTANDING;
        for i in 0..n {
            s.submit(a_file(dir.path(), i), dir.path(), OsStr::new("x"));
            let st = s.shared.lock();
            assert!(st.outstanding <= MAX_OUTSTANDING);
            assert!(st.threads <= MAX_THREADS);
        }
        assert!(s.wait().is_empty());
        assert_eq!(SYNCED.load(Ordering::SeqCst), n);
        assert_eq!(s.shared.lock().outstanding, 0);
    }

    #[test]
    fn failures_are_reported_once_with_their_names() {
        let dir = tempfile::tempdir().unwrap();
        let s = Syncer::new(failing);
        for i in 0..5 {
            s.submit(a_file(dir.path(), i), dir.path(), OsStr::new(&format!("o{i}")));
        }
        let mut failed: Vec<String> = s
            .wait()
            .into_iter()
            .map(|(d, n, e)| {
                assert_eq!(d, dir.path());
                assert_eq!(e.raw_os_error(), Some(libc::EIO));
                n.to_string_lossy().into_owned()
            })
            .collect();
        failed.sort();
        assert_eq!(failed, ["o0", "o1", "o2", "o3", "o4"]);
        assert!(s.wait().is_empty());
    }
}
