//! The master's journal: an append-only log of everything needed to rebuild
//! its state after a restart, in an embedded transactional store (redb).
//!
//! What is logged: the cluster's nodes, committed and removed files, every
//! submission with its admission decision, every finished or failed task
//! attempt, node losses and returns, lost or evicted map outputs, user
//! kills, block replicas gained and dropped, jobs the master failed, and
//! job sets (their held jobs, with release times and ids). On
//! start the master replays the log into a fresh cluster state and
//! scheduler, in order and at the recorded times, which re-creates jobs,
//! finished work and failure counts exactly; attempts that were running at
//! the crash are simply pending again. The records of a user request
//! (submission, kill, file) are committed in one durable transaction before
//! the answer; those of heartbeats (finished attempts, lost outputs and
//! nodes) are committed at once but synced to disk at most every second, so
//! a crash can cost at most the last second of finished work, which runs
//! again; a commit that ends a job waits for the disk, so that no job seen
//! ended runs again. Replay is idempotent (`master::core::replay`): a
//! submission carries its job id, and records applied twice are skipped.

use mrsched_state::DatasetBlocks;
use redb::{Database, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::path::Path;

const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// One journal record. Times are the cluster clock, microseconds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Record {
    /// A node of the cluster (in node id order).
    Node {
        /// Name.
        name: String,
        /// Rack.
        rack: String,
        /// Map slots.
        map_slots: u32,
        /// Reduce slots.
        reduce_slots: u32,
    },
    /// A file was committed to the block store.
    File {
        /// Name.
        name: String,
        /// Owner.
        owner: String,
        /// `(block id, bytes, replica nodes)`.
        blocks: Vec<(u64, u64, Vec<u32>)>,
        /// Replicas each block should have (0 in journals from before it
        /// was recorded: the most replicas any block had).
        #[serde(default)]
        replication: u32,
    },
    /// A file was removed.
    FileRemoved {
        /// Name.
        name: String,
    },
    /// A job was submitted.
    Submit {
        /// When.
        t: u64,
        /// Submitting user.
        user: String,
        /// Job file label (for error messages).
        label: String,
        /// Job file text.
        text: String,
        /// `true` for JSON, else TOML.
        json: bool,
        /// Datasets registered for this submission: `(file, blocks)`.
        datasets: Vec<(String, DatasetBlocks)>,
        /// `None`: admitted; `Some(reason)`: rejected.
        rejected: Option<String>,
        /// The job id it was given (absent in journals written before ids
        /// were recorded: replay order then decides).
        #[serde(default)]
        id: Option<u32>,
    },
    /// A map attempt finished.
    MapDone {
        /// When.
        t: u64,
        /// Where.
        node: u32,
        /// Its `(job, map)` tasks, the driver first.
        tasks: Vec<(u32, u32)>,
        /// Attempt key (names its output files on the worker).
        key: String,
        /// Map-only jobs' output blocks: `(job, map, block, bytes,
        /// replicas)`.
        #[serde(default)]
        blocks: Vec<(u32, u32, u64, u64, Vec<u32>)>,
    },
    /// A reduce attempt finished.
    ReduceDone {
        /// When.
        t: u64,
        /// Where.
        node: u32,
        /// Job.
        job: u32,
        /// Reduce task.
        task: u32,
        /// Output block.
        block: u64,
        /// Output bytes.
        bytes: u64,
        /// Replica nodes of the output block.
        replicas: Vec<u32>,
    },
    /// An attempt failed (counts towards the task's attempt limit).
    Failed {
        /// When.
        t: u64,
        /// Where.
        node: u32,
        /// Map (`true`) or reduce.
        map: bool,
        /// Its `(job, task)` tasks, the driver first.
        tasks: Vec<(u32, u32)>,
        /// Why.
        reason: String,
        /// Attempt key (absent in older journals).
        #[serde(default)]
        key: Option<String>,
    },
    /// A node was declared lost.
    NodeLost {
        /// When.
        t: u64,
        /// Which.
        node: u32,
    },
    /// A lost node came back.
    NodeBack {
        /// When.
        t: u64,
        /// Which.
        node: u32,
    },
    /// One map output went missing.
    OutputLost {
        /// When.
        t: u64,
        /// Job.
        job: u32,
        /// Map.
        task: u32,
        /// Node that held it.
        node: u32,
    },
    /// The scheduler evicted a job's map outputs on a node.
    Evicted {
        /// When.
        t: u64,
        /// Job.
        job: u32,
        /// Node.
        node: u32,
    },
    /// A user killed a job.
    Killed {
        /// When.
        t: u64,
        /// Job.
        job: u32,
        /// Reason shown to users.
        reason: String,
    },
    /// A block gained a replica (a re-replication copy, or a worker that
    /// came back with it).
    ReplicaAdded {
        /// Block id.
        block: u64,
        /// Node.
        node: u32,
        /// Bytes copied (0: the worker already held it).
        #[serde(default)]
        bytes: u64,
    },
    /// A block lost a replica (found corrupt, or gone from its worker).
    ReplicaDropped {
        /// Block id.
        block: u64,
        /// Node.
        node: u32,
    },
    /// The master failed a job (an input block with no replica left).
    JobFailed {
        /// When.
        t: u64,
        /// Job.
        job: u32,
        /// Reason shown to users.
        reason: String,
    },
    /// A job set was accepted: its jobs are held until their release
    /// times, with the ids `first..first + jobs.len()` in order.
    JobSet {
        /// When it was accepted (the scheduler's announcement).
        t: u64,
        /// Id of its first job.
        first: u32,
        /// The held jobs, in release (id) order.
        jobs: Vec<HeldRecord>,
    },
    /// The idempotency key a user sent with the submission of `job` (in
    /// the same transaction as its `Submit`).
    SubmitKey {
        /// The submitting user (the token's).
        user: String,
        /// The key.
        key: String,
        /// The job it created.
        job: u32,
    },
    /// A held job could not be submitted at its release: it takes its id
    /// as a rejected job without tasks.
    Unreleased {
        /// When.
        t: u64,
        /// Its id.
        id: u32,
        /// The user it was to be submitted as.
        user: String,
        /// Job file label.
        label: String,
        /// Why (shown as the rejection reason).
        reason: String,
    },
}

/// A job of a set, held until its release time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldRecord {
    /// The user it is submitted as.
    pub user: String,
    /// Whether the submitting user was an admin.
    pub admin: bool,
    /// Job file label.
    pub label: String,
    /// Job file text.
    pub text: String,
    /// `true` for JSON, else TOML.
    pub json: bool,
    /// Release time on the cluster clock, microseconds.
    pub release: u64,
}

impl Record {
    /// The record's time, for records of events (`None` for the cluster's
    /// nodes and the block store's namespace).
    pub fn time(&self) -> Option<u64> {
        match self {
            Record::Node { .. }
            | Record::File { .. }
            | Record::FileRemoved { .. }
            | Record::SubmitKey { .. }
            | Record::ReplicaAdded { .. }
            | Record::ReplicaDropped { .. } => None,
            Record::Submit { t, .. }
            | Record::MapDone { t, .. }
            | Record::ReduceDone { t, .. }
            | Record::Failed { t, .. }
            | Record::NodeLost { t, .. }
            | Record::NodeBack { t, .. }
            | Record::OutputLost { t, .. }
            | Record::Evicted { t, .. }
            | Record::Killed { t, .. }
            | Record::JobSet { t, .. }
            | Record::Unreleased { t, .. }
            | Record::JobFailed { t, .. } => Some(*t),
        }
    }
}

/// Told the duration of every transaction that writes records, and
/// whether it waited for the disk (the master's metrics).
pub type CommitObserver = Box<dyn Fn(bool, std::time::Duration) + Send>;

/// The journal store.
pub struct Journal {
    db: Database,
    next: u64,
    buf: Vec<Record>,
    /// Records committed without waiting for the disk since the last
    /// durable commit.
    unsynced: bool,
    observer: Option<CommitObserver>,
}

/// A journal error (the store could not be opened or written).
#[derive(Debug, thiserror::Error)]
#[error("journal: {0}")]
pub struct JournalError(pub String);

fn je(e: impl std::fmt::Display) -> JournalError {
    JournalError(e.to_string())
}

impl Journal {
    /// Open (or create) the journal at `path`.
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        Journal::with(Database::create(path).map_err(je)?)
    }

    /// A journal in memory (tests: replaying many journals quickly).
    #[cfg(test)]
    pub fn in_memory() -> Result<Journal, JournalError> {
        let backend = redb::backends::InMemoryBackend::new();
        Journal::with(
            Database::builder()
                .create_with_backend(backend)
                .map_err(je)?,
        )
    }

    fn with(db: Database) -> Result<Journal, JournalError> {
        let tx = db.begin_write().map_err(je)?;
        {
            tx.open_table(LOG).map_err(je)?;
            tx.open_table(META).map_err(je)?;
        }
        tx.commit().map_err(je)?;
        let next = {
            let rx = db.begin_read().map_err(je)?;
            let t = rx.open_table(LOG).map_err(je)?;
            let last = t.last().map_err(je)?;
            last.map(|(k, _)| k.value() + 1).unwrap_or(0)
        };
        Ok(Journal {
            db,
            next,
            buf: Vec::new(),
            unsynced: false,
            observer: None,
        })
    }

    /// Every record, in order.
    pub fn records(&self) -> Result<Vec<Record>, JournalError> {
        let rx = self.db.begin_read().map_err(je)?;
        let t = rx.open_table(LOG).map_err(je)?;
        let mut out = Vec::new();
        for item in t.iter().map_err(je)? {
            let (_, v) = item.map_err(je)?;
            out.push(serde_json::from_slice(v.value()).map_err(je)?);
        }
        Ok(out)
    }

    /// A counter or setting.
    pub fn meta(&self, key: &str) -> Result<Option<u64>, JournalError> {
        let rx = self.db.begin_read().map_err(je)?;
        let t = rx.open_table(META).map_err(je)?;
        Ok(t.get(key).map_err(je)?.map(|v| v.value()))
    }

    /// Set a counter or setting (durably, at once).
    pub fn set_meta(&mut self, key: &str, value: u64) -> Result<(), JournalError> {
        let tx = self.db.begin_write().map_err(je)?;
        {
            let mut t = tx.open_table(META).map_err(je)?;
            t.insert(key, value).map_err(je)?;
        }
        tx.commit().map_err(je)
    }

    /// Report the duration of every later transaction that writes records
    /// (empty commits are not transactions and are not reported).
    pub fn observe_commits(&mut self, f: CommitObserver) {
        self.observer = Some(f);
    }

    /// Queue a record for the next [`Journal::commit`].
    pub fn push(&mut self, r: Record) {
        self.buf.push(r);
    }

    /// Records queued and not yet committed.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Write the queued records in one durable transaction: on disk when
    /// this returns.
    pub fn commit(&mut self) -> Result<(), JournalError> {
        self.write(true)
    }

    /// Write the queued records in one transaction without waiting for the
    /// disk. A crash may lose it (and every later lazy one) but never leaves
    /// a partial or reordered log: the store reverts to the last durable
    /// commit. For records whose loss only costs re-running work (finished
    /// attempts reported by heartbeats); answers to users use
    /// [`Journal::commit`].
    pub fn commit_lazy(&mut self) -> Result<(), JournalError> {
        self.write(false)
    }

    /// Make lazily committed records durable (a no-op when there are none).
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if self.unsynced || !self.buf.is_empty() {
            self.write(true)?;
        }
        Ok(())
    }

    fn write(&mut self, durable: bool) -> Result<(), JournalError> {
        if self.buf.is_empty() && !(durable && self.unsynced) {
            return Ok(());
        }
        let t0 = std::time::Instant::now();
        let mut tx = self.db.begin_write().map_err(je)?;
        tx.set_durability(if durable {
            redb::Durability::Immediate
        } else {
            redb::Durability::Eventual
        });
        {
            let mut t = tx.open_table(LOG).map_err(je)?;
            for r in &self.buf {
                let v = serde_json::to_vec(r).map_err(je)?;
                t.insert(self.next, v.as_slice()).map_err(je)?;
                self.next += 1;
            }
        }
        tx.commit().map_err(je)?;
        if let Some(f) = &self.observer {
            f(durable, t0.elapsed());
        }
        self.buf.clear();
        self.unsynced = !durable;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_reopening_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.redb");
        {
            let mut j = Journal::open(&path).unwrap();
            j.push(Record::NodeLost { t: 1, node: 0 });
            j.push(Record::NodeBack { t: 2, node: 0 });
            j.commit().unwrap();
            j.set_meta("generation", 3).unwrap();
            // Not committed: lost with the process.
            j.push(Record::NodeLost { t: 3, node: 1 });
        }
        let mut j = Journal::open(&path).unwrap();
        assert_eq!(
            format!("{:?}", j.records().unwrap()),
            format!(
                "{:?}",
                vec![
                    Record::NodeLost { t: 1, node: 0 },
                    Record::NodeBack { t: 2, node: 0 }
                ]
            )
        );
        assert_eq!(j.meta("generation").unwrap(), Some(3));
        assert_eq!(j.meta("nothing").unwrap(), None);
        j.push(Record::Killed {
            t: 4,
            job: 0,
            reason: "r".into(),
        });
        j.commit().unwrap();
        assert_eq!(j.records().unwrap().len(), 3);
        // Lazy commits are readable at once and durable after a sync.
        j.push(Record::NodeBack { t: 5, node: 1 });
        j.commit_lazy().unwrap();
        assert_eq!(j.records().unwrap().len(), 4);
        j.sync().unwrap();
        drop(j);
        assert_eq!(Journal::open(&path).unwrap().records().unwrap().len(), 4);
    }

    #[test]
    fn commits_that_write_are_reported_with_their_durability() {
        use std::sync::{Arc, Mutex};
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::open(&dir.path().join("j.redb")).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        j.observe_commits(Box::new(move |durable, d| {
            s.lock().unwrap().push((durable, d))
        }));
        // Nothing queued: no transaction, nothing reported.
        j.commit().unwrap();
        j.commit_lazy().unwrap();
        assert!(seen.lock().unwrap().is_empty());
        j.push(Record::NodeLost { t: 1, node: 0 });
        j.commit_lazy().unwrap();
        j.sync().unwrap();
        j.push(Record::NodeBack { t: 2, node: 0 });
        j.commit().unwrap();
        let kinds: Vec<bool> = seen.lock().unwrap().iter().map(|x| x.0).collect();
        assert_eq!(kinds, vec![false, true, true]);
    }
}
