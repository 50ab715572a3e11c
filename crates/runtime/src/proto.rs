//! The wire protocol: JSON bodies of the master's and workers' HTTP APIs.
//!
//! Workers talk to the master with the cluster secret in the
//! [`SECRET_HEADER`] header; users send `Authorization: Bearer <token>`.
//! Bulk data (blocks, map output partitions) travels as raw bytes.

use crate::program::Program;
use serde::{Deserialize, Serialize};

/// Header carrying the cluster secret (worker <-> master, worker <-> worker).
pub const SECRET_HEADER: &str = "x-mrsched-secret";

/// A worker introduces itself.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Register {
    /// Unique, stable name (kept in the worker's work directory).
    pub name: String,
    /// Rack name.
    pub rack: String,
    /// Map slots.
    pub map_slots: u32,
    /// Reduce slots.
    pub reduce_slots: u32,
    /// Base URL of the worker's data server (blocks, shuffle).
    pub addr: String,
    /// Map outputs the worker holds: `(job, attempt key)`.
    pub outputs: Vec<(u32, String)>,
    /// Blocks the worker holds.
    pub blocks: Vec<u64>,
}

/// The master's answer to [`Register`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Registered {
    /// The worker's node id.
    pub node: u32,
    /// Session number; heartbeats carry it.
    pub session: u64,
    /// Heartbeat interval, milliseconds.
    pub heartbeat_ms: u64,
}

/// How a map attempt actually read its block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadFrom {
    /// From the worker's own disk.
    Local,
    /// From another worker.
    Remote,
}

/// What a worker reports about an attempt.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Report {
    /// A map attempt finished; per job it served, the bytes of each
    /// partition file and the records emitted.
    MapDone {
        /// Attempt key.
        key: String,
        /// `(job, partition bytes, records)` for every job served.
        outputs: Vec<(u32, Vec<u64>, u64)>,
        /// Where the block came from.
        read: ReadFrom,
        /// Input bytes read.
        input_bytes: u64,
        /// Output blocks written for the map-only jobs it served.
        #[serde(default)]
        blocks: Vec<MapOnlyBlock>,
    },
    /// A reduce attempt fetched every map's partition.
    CopyDone {
        /// Attempt key.
        key: String,
    },
    /// A reduce attempt wrote its output block.
    ReduceDone {
        /// Attempt key.
        key: String,
        /// The output block written.
        block: u64,
        /// Output bytes.
        bytes: u64,
        /// Workers (node ids) that hold a replica of the output block.
        replicas: Vec<u32>,
    },
    /// An attempt failed.
    Failed {
        /// Attempt key.
        key: String,
        /// Why.
        error: String,
    },
    /// A reducer could not fetch a map's output.
    FetchFailed {
        /// The job.
        job: u32,
        /// The map task.
        map: u32,
        /// The attempt key of the output it tried.
        key: String,
        /// The reducer's attempt key.
        #[serde(default)]
        reducer: String,
        /// It could not connect to the output's worker at all (refused,
        /// unreachable, timed out), rather than getting an error answer.
        #[serde(default)]
        connect: bool,
    },
    /// A block replica on this worker failed its checksum; the worker
    /// deleted it.
    BlockCorrupt {
        /// The block.
        block: u64,
    },
    /// A re-replication copy ([`BlockCopy`]) is stored here.
    BlockCopied {
        /// The block.
        block: u64,
        /// Bytes copied.
        bytes: u64,
    },
    /// A re-replication copy failed.
    BlockCopyFailed {
        /// The block.
        block: u64,
        /// Why.
        error: String,
    },
}

/// A re-replication command: copy a block from another worker.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BlockCopy {
    /// The block.
    pub block: u64,
    /// Data-server URL of the worker to copy it from.
    pub from: String,
}

/// A heartbeat.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Node id.
    pub node: u32,
    /// Session from [`Registered`].
    pub session: u64,
    /// Reports since the last acknowledged heartbeat.
    pub reports: Vec<Report>,
}

/// A launch sent to a worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskLaunch {
    /// Attempt key, unique in the cluster's life (master generation and
    /// attempt id).
    pub key: String,
    /// The task(s): one job for a reduce or a plain map; several for a
    /// shared scan (a map attempt with riders).
    pub jobs: Vec<TaskJob>,
    /// For maps: the block to read.
    pub block: Option<BlockSource>,
    /// For reduces: what to fetch and where to write.
    pub reduce: Option<ReduceTask>,
    /// Map output buffer, bytes (the spill threshold).
    pub sort_buffer: u64,
    /// For maps of map-only jobs: where each such job's output block goes.
    #[serde(default)]
    pub map_only: Vec<MapOnlyOutput>,
}

/// Where a map of a map-only job writes its output block.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MapOnlyOutput {
    /// The job.
    pub job: u32,
    /// Output block id (fresh for every attempt).
    pub block: u64,
    /// Further workers to copy the block to: `(node, URL)`.
    pub replicas: Vec<(u32, String)>,
}

/// A map-only job's output block written by a map attempt.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MapOnlyBlock {
    /// The job.
    pub job: u32,
    /// The block.
    pub block: u64,
    /// Its bytes.
    pub bytes: u64,
    /// Workers (node ids) that hold a replica, the writer included.
    pub replicas: Vec<u32>,
}

/// One job's part of a launch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskJob {
    /// Job id.
    pub job: u32,
    /// Task index.
    pub task: u32,
    /// The program.
    pub program: Program,
    /// The job's reduce count (partitions).
    pub reduces: u32,
}

/// Where a map's block is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BlockSource {
    /// Block id.
    pub id: u64,
    /// Data-server URLs of replica holders, the launching node first when
    /// it holds one.
    pub sources: Vec<String>,
}

/// A reduce task's shuffle and output.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReduceTask {
    /// The partition it reduces.
    pub partition: u32,
    /// Output block id.
    pub output_block: u64,
    /// Further workers to copy the output block to: `(node, URL)`.
    pub replicas: Vec<(u32, String)>,
}

/// The master's answer to a heartbeat.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HeartbeatReply {
    /// The master does not know this session (it restarted, or declared
    /// the worker lost): register again.
    pub reregister: bool,
    /// Attempts to start.
    pub launches: Vec<TaskLaunch>,
    /// Attempts to stop.
    pub kills: Vec<String>,
    /// Reduce attempts that may start computing (copy-compute splitting).
    pub computes: Vec<String>,
    /// Jobs whose map outputs can be deleted.
    pub delete_jobs: Vec<u32>,
    /// Blocks to delete.
    pub delete_blocks: Vec<u64>,
    /// Blocks to copy from other workers (re-replication).
    #[serde(default)]
    pub copies: Vec<BlockCopy>,
}

/// Finished map outputs of a job, for its reducers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MapOutputs {
    /// Number of maps.
    pub total: u32,
    /// `(map, attempt key, data-server URL)` of every available output.
    pub done: Vec<(u32, String, String)>,
    /// The job is no longer running.
    pub ended: bool,
}

/// A job as users see it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobView {
    /// Id.
    pub id: u32,
    /// Name.
    pub name: String,
    /// Owner.
    pub user: String,
    /// Pool.
    pub pool: String,
    /// Program kind.
    pub program: String,
    /// `submitted`, `running`, `succeeded`, `failed`, `killed`, `rejected`.
    pub status: String,
    /// Why it was rejected, failed or killed.
    pub reason: Option<String>,
    /// Maps done / total.
    pub maps_done: u32,
    /// Maps in total.
    pub maps: u32,
    /// Maps running.
    pub maps_running: u32,
    /// Reduces done.
    pub reduces_done: u32,
    /// Reduces in total.
    pub reduces: u32,
    /// Reduces running.
    pub reduces_running: u32,
    /// Seconds since the cluster started, at submission.
    pub submitted_s: f64,
    /// At the end, if ended.
    pub finished_s: Option<f64>,
    /// Output file in the block store.
    pub output: String,
    /// Node-local / rack-local / off-rack maps done (as scheduled).
    pub locality: [u32; 3],
    /// Maps that read their block from their own disk / from another worker.
    pub reads: [u32; 2],
    /// Seconds since the cluster started, at its first launch.
    #[serde(default)]
    pub started_s: Option<f64>,
    /// Deadline, seconds after submission (hard, admission-controlled).
    #[serde(default)]
    pub deadline_s: Option<f64>,
    /// Completion-time goal, seconds after submission.
    #[serde(default)]
    pub goal_s: Option<f64>,
}

/// One attempt of a job, running or ended.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AttemptView {
    /// Attempt id.
    pub id: u64,
    /// `map` or `reduce`.
    pub kind: String,
    /// Task index.
    pub task: u32,
    /// Worker name.
    pub node: String,
    /// `node`, `rack` or `off-rack` (maps; reduces are `-`).
    pub locality: String,
    /// `running`, `succeeded`, `failed`, `killed` or `lost`.
    pub state: String,
    /// Seconds since the cluster started, at launch.
    pub start_s: f64,
    /// At the end, if ended.
    pub end_s: Option<f64>,
}

/// A worker as users see it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WorkerView {
    /// Name.
    pub name: String,
    /// Rack.
    pub rack: String,
    /// Registered and heartbeating (false: lost).
    pub alive: bool,
    /// Map slots in use / in all.
    pub maps: [u32; 2],
    /// Reduce slots in use / in all.
    pub reduces: [u32; 2],
    /// Block-store blocks it holds a replica of.
    pub blocks: u32,
    /// Seconds since its last heartbeat.
    pub heartbeat_age_s: f64,
    /// Alive but suspected (missed a heartbeat, or fetches could not
    /// connect to it): it gets no new launches.
    #[serde(default)]
    pub suspected: bool,
    /// Why it was declared lost, while it is.
    #[serde(default)]
    pub lost_reason: Option<String>,
}

/// Running slots of every pool over the last hour, sampled every few
/// seconds.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PoolHistory {
    /// Sample times, seconds since the cluster started.
    pub t_s: Vec<f64>,
    /// Per pool, running slots (maps and reduces) at each sample.
    pub pools: std::collections::BTreeMap<String, Vec<u32>>,
}

/// The answer to a submission.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Submitted {
    /// The job id.
    pub id: u32,
    /// `running` or `rejected`.
    pub status: String,
    /// The scheduler's reason for a rejection.
    pub reason: Option<String>,
}

/// One job of a job set: a job file's text and its release time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobSetEntry {
    /// Names the file in error messages.
    pub label: String,
    /// The job file's text.
    pub text: String,
    /// JSON rather than TOML.
    #[serde(default)]
    pub json: bool,
    /// Release time, seconds after the set's submission.
    #[serde(default)]
    pub release_s: f64,
}

/// A job set (seed 001 §6.1): every job with its release time, handed to
/// the scheduler at once (`Scheduler::on_announce`) and each job held until
/// its release.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobSetRequest {
    /// The jobs.
    pub jobs: Vec<JobSetEntry>,
}

/// One accepted job of a set.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HeldJob {
    /// The id the job will have when released.
    pub id: u32,
    /// Its label.
    pub label: String,
    /// Release time, seconds after the set's submission.
    pub release_s: f64,
}

pub use mrsched_sched::{PoolView, PoolsView};

/// A file in the block store.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileView {
    /// Name.
    pub name: String,
    /// Bytes.
    pub bytes: u64,
    /// Blocks: `(id, bytes, replica node names)`.
    pub blocks: Vec<(u64, u64, Vec<String>)>,
    /// Replicas each block should have (0: not known, an older master).
    #[serde(default)]
    pub replication: u32,
    /// Replicas of each block on live workers, in block order.
    #[serde(default)]
    pub live: Vec<u32>,
}

impl FileView {
    /// Blocks with fewer live replicas than the target (lost ones
    /// included).
    pub fn under_replicated(&self) -> usize {
        let want = self.replication.max(1);
        self.live.iter().filter(|&&n| n < want).count()
    }

    /// `(index, id)` of blocks without a live replica.
    pub fn lost_blocks(&self) -> Vec<(usize, u64)> {
        self.live
            .iter()
            .zip(&self.blocks)
            .enumerate()
            .filter(|(_, (n, _))| **n == 0)
            .map(|(i, (_, b))| (i, b.0))
            .collect()
    }
}

/// The block store's replication state (`GET /api/dfs/replication`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ReplicationView {
    /// Blocks of committed files.
    pub blocks: u64,
    /// Blocks with fewer live replicas than their file's replication
    /// (lost ones included).
    pub under_replicated: u64,
    /// Blocks with no live replica: `(file, index, id)`.
    pub lost: Vec<(String, u32, u64)>,
    /// Re-replication copies in flight.
    pub copies_in_flight: u32,
    /// Copies completed since this master started.
    pub blocks_copied: u64,
    /// Bytes copied since this master started.
    pub bytes_copied: u64,
    /// Copies that failed since this master started (retried elsewhere).
    pub copies_failed: u64,
    /// Replicas found corrupt by their checksum since this master started.
    pub corrupt_replicas: u64,
}

/// Start of an upload.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CreateFile {
    /// File name.
    pub name: String,
    /// Replicas per block.
    pub replication: u32,
    /// The block size the client cuts the file with: bounds each block's
    /// body (plus a line's slack). Without it, the master's block limit.
    #[serde(default)]
    pub block_size: Option<u64>,
}

/// The cluster's state for `mrsched local` and health checks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Health {
    /// Workers registered and alive.
    pub workers: u32,
    /// Workers the cluster waits for before it forms.
    pub expected: u32,
    /// Jobs can be submitted.
    pub ready: bool,
}

/// An error answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: String,
}
