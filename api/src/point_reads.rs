//! The threads the item GET's point reads run on: a fixed set of their own ([`READ_THREADS`]),
//! never the async threads that serve the connections.
//!
//! Measured on the 1,000,000-item catalog with every table in the page cache (BENCHMARKS.md,
//! "the GET beside a bare axum server"), reads handed to these threads served 1.2-1.9x the GETs
//! and 1.1-1.8x the 304s a second of reads run in place on the two tokio workers, at less CPU a
//! request (28-44 µs of user time against 52-66): each thread runs a run of like work, the workers
//! the HTTP and these the store's, where in place every request interleaved hyper's code and data
//! with RocksDB's. At one connection the hand-off costs two wake-ups, some tens of µs a GET.
//!
//! A read from the disk is the other reason: in place it blocks its worker and every connection
//! that worker serves, while sixteen threads keep that many reads in flight, and a disk answers
//! several times as many random reads a second at a queue depth of 16 as at 2.
//!
//! One read skips the hand-off: a revalidation's ETag the block cache holds is read in place
//! (`ReadModels::plain_etag_in_memory`, which never touches a table file), and only one that
//! needs a file comes here. That read is a few µs; handing it over and back cost as much, and
//! the 304's p99 fell by a fifth to two fifths without it (BENCHMARKS.md, "a revalidation's ETag
//! read from memory").
//!
//! Not tokio's blocking pool: it starts a thread whenever none is idle, and a read for each of 64
//! connections grew it by a hundred threads and the server's RSS by 200 MiB.

use std::sync::OnceLock;

use crate::error::ApiError;

/// Threads point reads run on. A disk answers most of what it can at this queue depth (this
/// machine's: 89k random reads/s at 16 against 127k at 64), and a fixed set of threads keeps the
/// server's memory fixed.
pub(crate) const READ_THREADS: usize = 16;

/// A read handed to the read threads.
type Job = Box<dyn FnOnce() + Send>;

/// The read threads' queue, made at the first read.
#[derive(Debug, Default)]
pub struct PointReads {
    threads: OnceLock<crossbeam::channel::Sender<Job>>,
}

impl PointReads {
    /// Runs `read` with `context` on a read thread and answers its result.
    pub(crate) async fn run<C, T, E, F>(&self, context: &C, read: F) -> Result<T, ApiError>
    where
        C: Clone + Send + 'static,
        F: FnOnce(&C) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: Into<ApiError> + Send + 'static,
    {
        let context = context.clone();
        let (done, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The route may have gone (its client hung up): the answer is not wanted then.
            let _ = done.send(read(&context));
        });
        self.threads()
            .send(job)
            .map_err(|_| ApiError::Internal("the point-read threads are gone".to_owned()))?;
        answer
            .await
            .map_err(|_| ApiError::Internal("a point read failed on its thread".to_owned()))?
            .map_err(Into::into)
    }

    /// The read threads' queue; the first call starts them. A read that panics is dropped with
    /// its answer (the route answers 500), and its thread goes on.
    fn threads(&self) -> &crossbeam::channel::Sender<Job> {
        self.threads.get_or_init(|| {
            let (queue, jobs) = crossbeam::channel::unbounded::<Job>();
            for n in 0..READ_THREADS {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_read_runs_on_a_read_thread_and_answers_its_result() {
        let reads = PointReads::default();
        let ran_on = |_: &()| Ok::<_, ApiError>(std::thread::current().name().map(str::to_owned));
        let name = reads.run(&(), ran_on).await.expect("read");
        assert!(
            name.as_deref()
                .is_some_and(|n| n.starts_with("point-read-")),
            "ran on {name:?}"
        );
        // The context reaches the read.
        let doubled = reads.run(&21u32, |n: &u32| Ok::<_, ApiError>(n * 2));
        assert_eq!(doubled.await.expect("read"), 42);
        // A read that panics answers 500, and the threads go on.
        let panicked = reads.run(&(), |_: &()| -> Result<(), ApiError> {
            panic!("a broken read")
        });
        assert!(matches!(panicked.await, Err(ApiError::Internal(_))));
        assert!(reads.run(&(), ran_on).await.expect("read").is_some());
        // The read's error is the route's.
        let failed = reads
            .run(&(), |_: &()| {
                Err::<(), _>(ApiError::NotFound("no item".to_owned()))
            })
            .await;
        assert!(matches!(failed, Err(ApiError::NotFound(_))));
    }

    #[tokio::test]
    async fn reads_from_many_tasks_at_once_all_answer() {
        let reads = std::sync::Arc::new(PointReads::default());
        let tasks: Vec<_> = (0..(READ_THREADS as u64) * 8)
            .map(|i| {
                let reads = reads.clone();
                tokio::spawn(async move { reads.run(&i, |i: &u64| Ok::<_, ApiError>(*i)).await })
            })
            .collect();
        for (i, task) in tasks.into_iter().enumerate() {
            assert_eq!(task.await.expect("task").expect("read"), i as u64);
        }
    }
}
