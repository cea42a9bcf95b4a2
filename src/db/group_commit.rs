//! Group commit: a tenant's queued writes run one after another in a single
//! transaction, each inside its own SAVEPOINT, and are answered once it commits.
//!
//! SQLite has one writer per file, so concurrent writes run in turn anyway; what
//! costs is each commit (WAL page writes) and each handoff between threads. A
//! dedicated thread per open tenant takes every write that queued while the last
//! batch ran and commits them together. A refused write rolls back to its own
//! savepoint and leaves the others untouched; a failed commit fails them all, so no
//! write is ever acknowledged before it is durable.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use rocket::tokio::sync::oneshot;
use rusqlite::{Transaction, TransactionBehavior};
use uuid::Uuid;

use super::outbox::outbox_last_seq;
use super::tenant::commit_and_announce;
use super::SqlitePool;
use crate::error::ApiError;
use crate::events::bus::EventBus;

/// Most writes committed together; bounds how long the first of them waits.
const MAX_BATCH: usize = 64;

/// A queued write: runs its work and says how to answer once the batch's fate is known.
type Job = Box<dyn FnOnce(&Transaction) -> Finish + Send>;

/// Answers a job's requester; given the commit's error if the batch failed to commit.
type Answer = Box<dyn FnOnce(Option<&ApiError>) + Send>;

struct Finish {
    succeeded: bool,
    answer: Answer,
}

/// The sending side of a tenant's write queue. Dropping it ends its thread and
/// waits for that, so once a tenant is dropped none of its connections is open
/// (its file may then be replaced).
pub struct WriteQueue {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for WriteQueue {
    fn drop(&mut self) {
        // Closing the channel ends the thread once its batch is answered.
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            // A job's closure may hold the last reference to its tenant, dropped
            // on the commit thread itself, which cannot wait for itself.
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

impl WriteQueue {
    /// Starts the thread that commits `tenant_id`'s queued writes on `writer`,
    /// setting `committed` after each commit.
    pub fn start(
        tenant_id: Uuid,
        writer: SqlitePool,
        events: Arc<EventBus>,
        committed: Arc<AtomicBool>,
    ) -> Self {
        let (jobs, queued) = channel();
        let thread = std::thread::Builder::new()
            .name(format!("commit-{}", &tenant_id.simple().to_string()[..8]))
            .spawn(move || {
                while let Ok(first) = queued.recv() {
                    let mut batch = vec![first];
                    batch.extend(queued.try_iter().take(MAX_BATCH - 1));
                    // Its outcome has gone to each write's requester.
                    let _ = commit_batch(tenant_id, &writer, &events, &committed, batch);
                }
            })
            .expect("cannot start a tenant's commit thread");
        WriteQueue {
            jobs: Some(jobs),
            thread: Some(thread),
        }
    }

    /// Queues `work` and waits, without blocking an async worker, for its batch to commit.
    pub async fn write<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Transaction) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let (reply, result) = oneshot::channel();
        let job = job(work, move |outcome| {
            // The requester may have gone away; its write still stands.
            let _ = reply.send(outcome);
        });
        self.jobs
            .as_ref()
            .ok_or_else(|| ApiError::internal("the tenant's commit thread has stopped"))?
            .send(job)
            .map_err(|_| ApiError::internal("the tenant's commit thread has stopped"))?;
        result
            .await
            .map_err(|_| ApiError::internal("the write did not complete"))?
    }
}

/// Wraps `work` as a job that hands its outcome, or the batch's commit error, to `answer`.
fn job<T, F>(work: F, answer: impl FnOnce(Result<T, ApiError>) + Send + 'static) -> Job
where
    F: FnOnce(&Transaction) -> Result<T, ApiError> + Send + 'static,
    T: Send + 'static,
{
    Box::new(move |tx| {
        let outcome = work(tx);
        Finish {
            succeeded: outcome.is_ok(),
            answer: Box::new(move |commit_error| {
                answer(match commit_error {
                    Some(err) => Err(err.clone()),
                    None => outcome,
                })
            }),
        }
    })
}

/// Runs and commits one batch, then answers each of its writes.
fn commit_batch(
    tenant_id: Uuid,
    writer: &SqlitePool,
    events: &EventBus,
    committed: &AtomicBool,
    batch: Vec<Job>,
) -> Result<(), ApiError> {
    let mut finished = Vec::with_capacity(batch.len());
    let outcome = run_batch(tenant_id, writer, events, committed, batch, &mut finished);
    if let Err(err) = &outcome {
        log::error!("tenant {tenant_id}: a batch of writes failed to commit: {err}");
    }
    for finish in finished {
        (finish.answer)(outcome.as_ref().err());
    }
    outcome
}

/// Runs `batch` in one transaction and commits it, pushing each finished job to
/// `finished`. Jobs not reached when an error stops the batch are dropped, which
/// answers their requesters with an error.
fn run_batch(
    tenant_id: Uuid,
    writer: &SqlitePool,
    events: &EventBus,
    committed: &AtomicBool,
    batch: Vec<Job>,
    finished: &mut Vec<Finish>,
) -> Result<(), ApiError> {
    let mut conn = writer.get()?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let last_seq = outbox_last_seq(&tx)?;
    for job in batch {
        tx.prepare_cached("SAVEPOINT job")?.execute([])?;
        match catch_unwind(AssertUnwindSafe(|| job(&tx))) {
            Ok(finish) => {
                if !finish.succeeded {
                    tx.prepare_cached("ROLLBACK TO job")?.execute([])?;
                }
                finished.push(finish);
            }
            // The job's requester sees its reply channel dropped: an internal error.
            Err(_) => {
                log::error!("tenant {tenant_id}: a write panicked and was rolled back");
                tx.prepare_cached("ROLLBACK TO job")?.execute([])?;
            }
        }
        tx.prepare_cached("RELEASE job")?.execute([])?;
    }
    commit_and_announce(tx, tenant_id, last_seq, events, committed)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::sync::mpsc;

    use super::*;
    use crate::db::migrations::{migrate, Schema};

    /// A migrated tenant file with a scratch table, its writer pool and an event bus.
    fn tenant_file(dir: &std::path::Path) -> (SqlitePool, Arc<EventBus>) {
        let writer = r2d2::Pool::builder()
            .max_size(1)
            .build(r2d2_sqlite::SqliteConnectionManager::file(dir.join("t.db")))
            .unwrap();
        let mut conn = writer.get().unwrap();
        migrate(&mut conn, Schema::Tenant, None).unwrap();
        conn.execute_batch(
            "CREATE TABLE notes (text TEXT NOT NULL); \
             CREATE TABLE parents (id INTEGER PRIMARY KEY); \
             CREATE TABLE children (parent_id INTEGER \
                 REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED); \
             PRAGMA foreign_keys = ON;",
        )
        .unwrap();
        drop(conn);
        (writer, Arc::new(EventBus::default()))
    }

    fn note(
        text: &'static str,
        then: Result<(), ApiError>,
    ) -> impl FnOnce(&Transaction) -> Result<(), ApiError> + Send {
        move |tx| {
            tx.execute("INSERT INTO notes (text) VALUES (?1)", [text])?;
            then
        }
    }

    fn notes(writer: &SqlitePool) -> Vec<String> {
        let conn = writer.get().unwrap();
        let mut stmt = conn
            .prepare("SELECT text FROM notes ORDER BY rowid")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    }

    /// Runs `works` as one batch and returns each one's answer, `None` when it never came.
    type Work = Box<dyn FnOnce(&Transaction) -> Result<(), ApiError> + Send>;
    type Answers = Vec<Option<Result<(), ApiError>>>;

    fn run(
        writer: &SqlitePool,
        events: &EventBus,
        works: Vec<Work>,
    ) -> (Result<(), ApiError>, Answers) {
        let (batch, answers): (Vec<Job>, Vec<mpsc::Receiver<_>>) = works
            .into_iter()
            .map(|work| {
                let (send, receive) = mpsc::channel();
                let job = job(work, move |outcome| send.send(outcome).unwrap());
                (job, receive)
            })
            .unzip();
        let committed = commit_batch(Uuid::nil(), writer, events, &AtomicBool::new(false), batch);
        (
            committed,
            answers.iter().map(|a| a.try_recv().ok()).collect(),
        )
    }

    #[test]
    fn a_refused_or_panicking_write_undoes_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, events) = tenant_file(dir.path());
        let (committed, answers) = run(
            &writer,
            &events,
            vec![
                Box::new(note("first", Ok(()))),
                Box::new(note("refused", Err(ApiError::bad_request("no", "refused")))),
                Box::new(|tx: &Transaction| {
                    tx.execute("INSERT INTO notes (text) VALUES ('panicked')", [])?;
                    panic!("a bug in one write");
                }),
                Box::new(note("last", Ok(()))),
            ],
        );
        assert!(committed.is_ok());
        assert!(matches!(answers[0], Some(Ok(()))));
        assert!(matches!(&answers[1], Some(Err(e)) if e.code == "no"));
        assert!(answers[2].is_none(), "a panicked write gets no answer");
        assert!(matches!(answers[3], Some(Ok(()))));
        assert_eq!(notes(&writer), ["first", "last"]);
    }

    #[test]
    fn a_failed_commit_fails_every_write_of_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, events) = tenant_file(dir.path());
        let (committed, answers) = run(
            &writer,
            &events,
            vec![
                Box::new(note("kept only if the batch commits", Ok(()))),
                // Deferred, so the broken reference is only refused at COMMIT.
                Box::new(|tx: &Transaction| {
                    tx.execute("INSERT INTO children (parent_id) VALUES (42)", [])?;
                    Ok(())
                }),
            ],
        );
        assert!(committed.is_err());
        assert!(
            answers.iter().all(|a| matches!(a, Some(Err(_)))),
            "{answers:?}"
        );
        assert!(notes(&writer).is_empty());
        let (committed, _) = run(&writer, &events, vec![Box::new(note("next", Ok(())))]);
        assert!(
            committed.is_ok(),
            "the writer is usable after a failed commit"
        );
        assert_eq!(notes(&writer), ["next"]);
    }

    #[test]
    fn concurrent_queued_writes_all_commit_and_answer() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, events) = tenant_file(dir.path());
        let committed = Arc::new(AtomicBool::new(false));
        let queue = Arc::new(WriteQueue::start(
            Uuid::nil(),
            writer.clone(),
            events,
            committed.clone(),
        ));
        let runtime = rocket::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let answers = runtime.block_on(async {
            let writes: Vec<_> = (0..200)
                .map(|i| {
                    let queue = queue.clone();
                    rocket::tokio::spawn(async move {
                        queue
                            .write(move |tx| {
                                tx.execute(
                                    "INSERT INTO notes (text) VALUES (?1)",
                                    [i.to_string()],
                                )?;
                                if i % 10 == 0 {
                                    Err(ApiError::bad_request("tenth", "every tenth is refused"))
                                } else {
                                    Ok(i)
                                }
                            })
                            .await
                    })
                })
                .collect();
            let mut answers = Vec::new();
            for write in writes {
                answers.push(write.await.unwrap());
            }
            answers
        });
        for (i, answer) in answers.iter().enumerate() {
            match answer {
                Ok(n) => assert_eq!(*n, i),
                Err(e) => assert!(i % 10 == 0 && e.code == "tenth", "{i}: {e}"),
            }
        }
        let mut stored: Vec<usize> = notes(&writer).iter().map(|t| t.parse().unwrap()).collect();
        stored.sort_unstable();
        assert_eq!(stored, (0..200).filter(|i| i % 10 != 0).collect::<Vec<_>>());
        assert!(
            committed.load(Ordering::Relaxed),
            "marked for the next checkpoint"
        );
    }
}
