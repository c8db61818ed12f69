//! Where a route's point read of a read model runs: in place on the async thread while the reads
//! come from memory, on a fixed set of disk threads ([`DISK_THREADS`]) while they go to the disk.
//!
//! A point read served from the page cache takes some microseconds, less than the hand-off to
//! the blocking pool, which cost the item GET a third of its throughput on a catalog that fits
//! in memory. A read that goes to the disk blocks its tokio worker, and every connection that
//! worker serves waits with it: with a worker a core, at most as many reads are in flight as
//! there are cores, where a disk answers several times as many random reads a second at a queue
//! depth of 64 as at 2 (BENCHMARKS.md, issue 17: a GET of a 10,000,000-item catalog larger than
//! the machine's memory kept the server's threads on the CPU a seventh of the time).
//!
//! So one read in [`SAMPLE_EVERY`] is watched: whether its thread read from the disk meanwhile
//! (the kernel's count of the thread's block reads, which a page-cache hit leaves alone; the
//! time a read takes was no signal, a thread preempted mid-read under load looked as slow as a
//! disk read). Each window of [`WINDOW`] watched reads decides where the next ones run: in place
//! until more than one in [`TO_POOL_PER`] went to the disk, then on the disk threads until fewer
//! than one in [`BACK_PER`] does.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::error::ApiError;

/// One read in this many is watched.
pub(crate) const SAMPLE_EVERY: u32 = 8;
/// The watched reads each decision is made over.
pub(crate) const WINDOW: u32 = 1024;
/// More disk reads than a window's `1 / TO_POOL_PER` move the reads to the disk threads.
pub(crate) const TO_POOL_PER: u32 = 20;
/// Fewer than a window's `1 / BACK_PER` bring them back in place.
pub(crate) const BACK_PER: u32 = 100;

/// Threads point reads run on while they go to the disk. A disk answers most of what it can at
/// this queue depth (this machine's: 89k random reads/s at 16 against 127k at 64), and a fixed
/// set of threads keeps the server's memory fixed: on tokio's blocking pool, which starts a
/// thread whenever none is idle, a read for each of 64 connections grew it by a hundred threads
/// and the server's RSS by 200 MiB.
pub(crate) const DISK_THREADS: usize = 16;

/// A read handed to the disk threads.
type Job = Box<dyn FnOnce() + Send>;

/// Where point reads run now, and the current window's counts.
#[derive(Debug, Default)]
pub struct PointReads {
    /// The disk threads' queue, made when reads first go to the disk.
    disk_threads: OnceLock<crossbeam::channel::Sender<Job>>,
    on_pool: AtomicBool,
    /// Reads run, for the sampling.
    reads: AtomicU32,
    /// Watched reads in the current window, and those of them that read from the disk.
    watched: AtomicU32,
    from_disk: AtomicU32,
}

impl PointReads {
    /// Whether reads run on the disk threads now.
    pub fn on_pool(&self) -> bool {
        self.on_pool.load(Ordering::Relaxed)
    }

    /// Runs `read` with `context` where reads run now.
    pub(crate) async fn run<C, T, E, F>(&self, context: &C, read: F) -> Result<T, ApiError>
    where
        C: Clone + Send + 'static,
        F: FnOnce(&C) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: Into<ApiError> + Send + 'static,
    {
        let watch = self
            .reads
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SAMPLE_EVERY);
        if !self.on_pool() {
            let (out, disk) = watched(watch, || read(context));
            if let Some(disk) = disk {
                self.record(disk);
            }
            return out.map_err(Into::into);
        }
        let context = context.clone();
        let (done, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The route may have gone (its client hung up): the answer is not wanted then.
            let _ = done.send(watched(watch, || read(&context)));
        });
        self.disk_threads()
            .send(job)
            .map_err(|_| ApiError::Internal("the disk threads are gone".to_owned()))?;
        let (out, disk) = answer
            .await
            .map_err(|_| ApiError::Internal("a point read failed on a disk thread".to_owned()))?;
        if let Some(disk) = disk {
            self.record(disk);
        }
        out.map_err(Into::into)
    }

    /// The disk threads' queue; the first call starts them. A read that panics is dropped with
    /// its answer (the route answers 500), and its thread goes on.
    fn disk_threads(&self) -> &crossbeam::channel::Sender<Job> {
        self.disk_threads.get_or_init(|| {
            let (queue, jobs) = crossbeam::channel::unbounded::<Job>();
            for n in 0..DISK_THREADS {
                let jobs = jobs.clone();
                let started = std::thread::Builder::new()
                    .name(format!("point-read-{n}"))
                    .spawn(move || {
                        for job in jobs {
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        }
                    });
                if let Err(e) = started {
                    tracing::error!(error = %e, "cannot start a point-read thread");
                }
            }
            queue
        })
    }

    /// Counts one watched read; the last of a window decides where the next window's run.
    pub(crate) fn record(&self, from_disk: bool) {
        if from_disk {
            self.from_disk.fetch_add(1, Ordering::Relaxed);
        }
        if self.watched.fetch_add(1, Ordering::Relaxed) + 1 < WINDOW {
            return;
        }
        // Reads counted while the window closes land in this window or the next: the decision
        // needs a rate, not an exact count.
        self.watched.store(0, Ordering::Relaxed);
        let from_disk = self.from_disk.swap(0, Ordering::Relaxed);
        let on_pool = self.on_pool();
        if !on_pool && from_disk > WINDOW / TO_POOL_PER {
            self.on_pool.store(true, Ordering::Relaxed);
            tracing::info!(
                from_disk,
                watched = WINDOW,
                "point reads go to the disk: moved to the disk threads"
            );
        } else if on_pool && from_disk < WINDOW / BACK_PER {
            self.on_pool.store(false, Ordering::Relaxed);
            tracing::info!(
                from_disk,
                watched = WINDOW,
                "point reads come from memory: run in place again"
            );
        }
    }
}

/// Runs `read`; when `watch`, also says whether its thread read from the disk meanwhile (`None`
/// where the system does not count it).
fn watched<T>(watch: bool, read: impl FnOnce() -> T) -> (T, Option<bool>) {
    if !watch {
        return (read(), None);
    }
    let before = disk_reads();
    let out = read();
    let disk = before.zip(disk_reads()).map(|(b, a)| a > b);
    (out, disk)
}

/// The calling thread's reads from the disk so far, in the kernel's blocks.
#[cfg(target_os = "linux")]
fn disk_reads() -> Option<i64> {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_THREAD)
        .ok()
        .map(|usage| usage.block_reads())
}

#[cfg(not(target_os = "linux"))]
fn disk_reads() -> Option<i64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(reads: &PointReads, from_disk: u32) {
        for i in 0..WINDOW {
            reads.record(i < from_disk);
        }
    }

    #[test]
    fn reads_move_to_the_pool_past_one_in_twenty_from_disk_and_back_below_one_in_a_hundred() {
        let reads = PointReads::default();
        window(&reads, WINDOW / TO_POOL_PER);
        assert!(!reads.on_pool(), "at the threshold reads stay in place");
        window(&reads, WINDOW / TO_POOL_PER + 1);
        assert!(reads.on_pool());
        // Between the two thresholds nothing changes.
        window(&reads, WINDOW / BACK_PER);
        assert!(
            reads.on_pool(),
            "at the way back's threshold reads stay on the pool"
        );
        window(&reads, WINDOW / BACK_PER - 1);
        assert!(!reads.on_pool());
        window(&reads, WINDOW / BACK_PER);
        assert!(!reads.on_pool());
    }

    #[test]
    fn a_window_decides_only_once_it_is_full() {
        let reads = PointReads::default();
        for _ in 0..WINDOW - 1 {
            reads.record(true);
        }
        assert!(!reads.on_pool());
        reads.record(true);
        assert!(reads.on_pool());
    }

    #[test]
    fn a_read_from_the_page_cache_is_not_from_the_disk_and_one_past_it_is() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("blocks");
        std::fs::write(&path, vec![7u8; 1 << 20]).expect("write");
        // Just written and read once, so in the page cache. (The first read after the write was
        // once counted as a disk read in the full suite on a loaded machine; cause not found.)
        std::fs::read(&path).expect("read");
        let (bytes, disk) = watched(true, || std::fs::read(&path).expect("read"));
        assert_eq!(bytes.len(), 1 << 20);
        assert_eq!(disk, Some(false));
        assert_eq!(watched(false, || 1).1, None);
        // A read with O_DIRECT bypasses the page cache and counts as the disk's wherever the
        // file system allows it (tmpfs does not; then there is nothing to check).
        use std::os::unix::fs::OpenOptionsExt as _;
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_DIRECT)
            .open(&path)
        {
            let (read, disk) = watched(true, || direct_read(&mut file));
            if read.is_ok() {
                assert_eq!(disk, Some(true));
            }
        }
    }

    /// One aligned 4 KiB read (O_DIRECT wants an aligned buffer).
    fn direct_read(file: &mut std::fs::File) -> std::io::Result<usize> {
        use std::io::Read as _;
        let mut buffer = vec![0u8; 8192];
        let at = buffer.as_ptr().align_offset(4096);
        file.read(&mut buffer[at..at + 4096])
    }

    #[tokio::test]
    async fn a_read_runs_in_place_or_on_another_thread_as_decided() {
        let reads = PointReads::default();
        let here = std::thread::current().id();
        let ran_on = |_: &()| Ok::<_, ApiError>(std::thread::current().id());
        assert_eq!(reads.run(&(), ran_on).await.expect("read"), here);
        window(&reads, WINDOW);
        assert!(reads.on_pool());
        assert_ne!(reads.run(&(), ran_on).await.expect("read"), here);
        // A read that panics answers 500, and the threads go on.
        let panicked = reads.run(&(), |_: &()| -> Result<(), ApiError> {
            panic!("a broken read")
        });
        assert!(matches!(panicked.await, Err(ApiError::Internal(_))));
        assert_ne!(reads.run(&(), ran_on).await.expect("read"), here);
        // The read's error is the route's.
        let failed = reads
            .run(&(), |_: &()| {
                Err::<(), _>(ApiError::NotFound("no item".to_owned()))
            })
            .await;
        assert!(matches!(failed, Err(ApiError::NotFound(_))));
    }
}
