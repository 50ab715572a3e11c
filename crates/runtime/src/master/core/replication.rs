//! Re-replication: bringing every block back to its file's replication
//! after a worker is lost or a replica is found corrupt.
//!
//! The master knows every committed file's blocks and their holders. A
//! holder counts while its worker is alive (not declared lost); a worker
//! that comes back registers with the blocks it still holds and counts
//! again. When a block has fewer live holders than its file's replication
//! (capped by the live workers), the master sends a [`BlockCopy`] in the
//! heartbeat reply of a worker that does not hold it: the worker copies
//! the block from a live holder's data server (checked against its
//! checksum) and reports `BlockCopied` or `BlockCopyFailed`; a failed copy
//! is retried on another worker.
//!
//! * **Targets** follow HDFS's rack rule: while all live replicas are on
//!   one rack and another rack has a candidate, the copy goes there (two
//!   racks survive a rack's loss); otherwise the least loaded candidate
//!   (copies in flight, then blocks held). Sources are live holders,
//!   same rack as the target first.
//! * **Throttle**: at most `streams` copies in flight per worker (as
//!   source or target) and `max_copies` in the cluster, so that running
//!   jobs keep their disks and network. A copy not reported within
//!   `copy_timeout` (or whose source or target is lost) is forgotten and
//!   planned again.
//! * **Over-replication** (a lost worker returning with its old blocks
//!   after they were copied elsewhere) is kept: the extra replica serves
//!   reads and covers the next loss; nothing is deleted.
//! * **Lost blocks**: a block with no holder on a live worker cannot be
//!   read. A running job that still needs it (a map not done) fails with
//!   `file NAME: block I (id ID) has no replica left`, instead of retrying
//!   its map until the attempt limit.
//!
//! Replicas gained and dropped are journaled, so block locations are right
//! after a master restart; workers' registrations (what they hold) then
//! correct whatever the last unsynced second lost. The state's datasets
//! keep the placement at first read (locality preferences); map launches
//! use the current holders.

use super::*;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::collections::{BTreeMap, HashSet};

/// How hard re-replication may work.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicationSettings {
    /// Copies in flight per worker, as source or target
    /// (`--rereplication-streams`).
    pub streams: u32,
    /// Copies in flight in the whole cluster (`--rereplication-max-copies`).
    pub max_copies: u32,
    /// A copy not reported within this is planned again.
    pub copy_timeout: Duration,
}

impl Default for ReplicationSettings {
    fn default() -> Self {
        ReplicationSettings {
            streams: 2,
            max_copies: 8,
            copy_timeout: Duration::from_secs(120),
        }
    }
}

#[derive(Clone, Debug)]
struct InFlight {
    block: u64,
    src: u32,
    dst: u32,
    since: Instant,
}

/// Copies in flight and counters.
#[derive(Debug, Default)]
pub struct Replicator {
    inflight: Vec<InFlight>,
    /// Workers a copy of the block failed on (not tried again until the
    /// block is back at full replication or nothing else is left).
    failed: BTreeMap<u64, Vec<u32>>,
    /// Something changed: scan at the next tick.
    pub(super) dirty: bool,
    last_scan: Option<Instant>,
    /// Copies completed (journaled: counts since the cluster started).
    pub blocks_copied: u64,
    /// Bytes copied (journaled: counts since the cluster started).
    pub bytes_copied: u64,
    /// Copies that failed since this master started.
    pub copies_failed: u64,
    /// Replicas found corrupt since this master started.
    pub corrupt: u64,
}

/// The node to receive a new replica of a block held on `holders`, from
/// `candidates` (which hold none): another rack while every holder is on
/// one rack and another rack has a candidate, then the lowest `load`, then
/// the lowest id. Candidates that are `full` (no copy stream free) are not
/// chosen; when the rack rule leaves only full ones the answer is `None`
/// (wait for a stream there rather than keep every replica on one rack).
pub fn choose_target<R: PartialEq>(
    holders: &[u32],
    candidates: &[u32],
    rack: impl Fn(u32) -> R,
    load: impl Fn(u32) -> u64,
    full: impl Fn(u32) -> bool,
) -> Option<u32> {
    let one_rack = holders.windows(2).all(|w| rack(w[0]) == rack(w[1]));
    let off_rack: Vec<u32> = match holders.first() {
        Some(&h) if one_rack => candidates
            .iter()
            .copied()
            .filter(|&c| rack(c) != rack(h))
            .collect(),
        _ => Vec::new(),
    };
    let pool = if off_rack.is_empty() {
        candidates
    } else {
        &off_rack[..]
    };
    pool.iter()
        .copied()
        .filter(|&c| !full(c))
        .min_by_key(|&c| (load(c), c))
}

impl Core {
    /// Holders of a block on workers that are not declared lost.
    pub fn live_holders(&self, replicas: &[u32]) -> Vec<u32> {
        match &self.formed {
            Some(f) => replicas
                .iter()
                .copied()
                .filter(|&r| (r as usize) < self.b.nodes.len() && f.st.slots(NodeId(r)).alive)
                .collect(),
            None => Vec::new(),
        }
    }

    /// Add or remove `node` as a holder of `block`, in its file and in the
    /// jobs reading it. True if anything changed.
    pub(super) fn set_holder(&mut self, block: u64, node: u32, present: bool) -> bool {
        let mut changed = false;
        let mut edit = |reps: &mut Vec<u32>| {
            let has = reps.contains(&node);
            if present && !has {
                reps.push(node);
                changed = true;
            } else if !present && has {
                reps.retain(|&r| r != node);
                changed = true;
            }
        };
        for fm in self.b.files.values_mut() {
            for b in fm.blocks.iter_mut().filter(|b| b.id == block) {
                edit(&mut b.replicas);
            }
        }
        for m in &mut self.b.jobs {
            for (id, reps) in m.blocks.iter_mut() {
                if *id == block {
                    edit(reps);
                }
            }
        }
        changed
    }

    fn committed_block(&self, block: u64) -> Option<(&str, usize)> {
        self.b
            .files
            .iter()
            .filter(|(_, f)| f.writer.is_none())
            .find_map(|(n, f)| {
                f.blocks
                    .iter()
                    .position(|b| b.id == block)
                    .map(|i| (n.as_str(), i))
            })
    }

    /// A worker found its replica of `block` corrupt (and deleted it).
    pub(super) fn replica_corrupt(&mut self, node: u32, block: u64) {
        self.b.repl.dirty = true;
        if self.set_holder(block, node, false) {
            // Counted once per replica, however many readers found it.
            self.b.repl.corrupt += 1;
            self.journal.push(Record::ReplicaDropped { block, node });
        }
        let name = self.b.nodes.get(node as usize).map(|n| n.name.clone());
        eprintln!(
            "mrsched master: replica of block {block} on {} failed its checksum; re-replicating",
            name.unwrap_or_default()
        );
    }

    /// A re-replication copy landed on `node`.
    pub(super) fn copy_done(&mut self, node: u32, block: u64, bytes: u64) {
        self.b
            .repl
            .inflight
            .retain(|c| !(c.block == block && c.dst == node));
        self.b.repl.dirty = true;
        if self.committed_block(block).is_none() {
            // The file went away while it was copied.
            if let Some(o) = self.b.out.get_mut(node as usize) {
                o.delete_blocks.push(block);
            }
            return;
        }
        if self.set_holder(block, node, true) {
            self.b.repl.blocks_copied += 1;
            self.b.repl.bytes_copied += bytes;
            self.journal
                .push(Record::ReplicaAdded { block, node, bytes });
        }
    }

    /// A re-replication copy to `node` failed.
    pub(super) fn copy_failed(&mut self, node: u32, block: u64, error: &str) {
        self.b
            .repl
            .inflight
            .retain(|c| !(c.block == block && c.dst == node));
        self.b.repl.copies_failed += 1;
        self.b.repl.failed.entry(block).or_default().push(node);
        self.b.repl.dirty = true;
        eprintln!("mrsched master: copy of block {block} failed: {error}; retrying elsewhere");
    }

    /// A worker registered with `held` blocks: make its replicas in the
    /// namespace exactly those (a worker returning with its old blocks
    /// holds them again; one that lost its disk holds none).
    pub(super) fn reconcile_blocks(&mut self, node: u32, held: &[u64]) {
        let held: HashSet<u64> = held.iter().copied().collect();
        let mut changes = Vec::new();
        for f in self.b.files.values().filter(|f| f.writer.is_none()) {
            for b in &f.blocks {
                let has = b.replicas.contains(&node);
                let holds = held.contains(&b.id);
                if has != holds {
                    changes.push((b.id, holds));
                }
            }
        }
        for (block, present) in changes {
            if self.set_holder(block, node, present) {
                self.journal.push(if present {
                    Record::ReplicaAdded {
                        block,
                        node,
                        bytes: 0,
                    }
                } else {
                    Record::ReplicaDropped { block, node }
                });
            }
        }
        // Copies it was sent in an earlier session are forgotten.
        self.b.repl.inflight.retain(|c| c.dst != node);
        if let Some(o) = self.b.out.get_mut(node as usize) {
            o.copies.clear();
        }
        self.b.repl.dirty = true;
    }

    /// Replay of a journaled replica change.
    pub(super) fn replay_replica(&mut self, block: u64, node: u32, added: Option<u64>) {
        self.set_holder(block, node, added.is_some());
        if let Some(bytes) = added.filter(|&b| b > 0) {
            self.b.repl.blocks_copied += 1;
            self.b.repl.bytes_copied += bytes;
        }
    }

    /// The tick's part: forget stale copies, plan new ones, fail jobs whose
    /// input lost a block. Scans when something changed, else every second.
    pub(super) fn replication_tick(&mut self, now: Time) {
        let Some(f) = self.formed.as_ref() else {
            return;
        };
        let timeout = self.b.settings.rereplication.copy_timeout;
        let usable = |n: u32| {
            f.st.slots(NodeId(n)).alive
                && self.b.nodes.get(n as usize).is_some_and(|x| x.session != 0)
        };
        let before = self.b.repl.inflight.len();
        let keep: Vec<InFlight> = self
            .b
            .repl
            .inflight
            .iter()
            .filter(|c| usable(c.src) && usable(c.dst) && c.since.elapsed() < timeout)
            .cloned()
            .collect();
        if keep.len() != before {
            self.b.repl.inflight = keep;
            self.b.repl.dirty = true;
        }
        let due = self
            .b
            .repl
            .last_scan
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
        if !self.b.repl.dirty && !due {
            return;
        }
        self.b.repl.dirty = false;
        self.b.repl.last_scan = Some(Instant::now());
        self.plan_copies();
        self.fail_jobs_without_blocks(now);
    }

    fn plan_copies(&mut self) {
        let Some(f) = self.formed.as_ref() else {
            return;
        };
        let s = &self.b.settings.rereplication;
        let n = self.b.nodes.len();
        let alive: Vec<bool> = (0..n).map(|i| f.st.slots(NodeId(i as u32)).alive).collect();
        let usable: Vec<bool> = (0..n)
            .map(|i| alive[i] && self.b.nodes[i].session != 0 && !self.b.nodes[i].addr.is_empty())
            .collect();
        let live_count = alive.iter().filter(|&&a| a).count() as u32;
        let mut held = vec![0u64; n];
        let mut busy = vec![0u32; n];
        for c in &self.b.repl.inflight {
            busy[c.src as usize] += 1;
            busy[c.dst as usize] += 1;
        }
        let mut total = self.b.repl.inflight.len() as u32;
        let mut under = Vec::new();
        for fm in self.b.files.values().filter(|f| f.writer.is_none()) {
            let want = fm.replication.min(live_count) as usize;
            for b in &fm.blocks {
                for &r in &b.replicas {
                    if let Some(h) = held.get_mut(r as usize) {
                        *h += 1;
                    }
                }
                let live: Vec<u32> = b
                    .replicas
                    .iter()
                    .copied()
                    .filter(|&r| alive.get(r as usize) == Some(&true))
                    .collect();
                if live.len() < want {
                    under.push((b.id, live, want));
                }
            }
        }
        let failed = &mut self.b.repl.failed;
        let under_ids: HashSet<u64> = under.iter().map(|u| u.0).collect();
        failed.retain(|b, _| under_ids.contains(b));
        let rack = |x: u32| f.st.cluster().rack_of(NodeId(x));
        let mut plans = Vec::new();
        for (block, live, want) in under {
            let going: Vec<u32> = self
                .b
                .repl
                .inflight
                .iter()
                .chain(plans.iter())
                .filter(|c| c.block == block)
                .map(|c| c.dst)
                .collect();
            let mut missing = want.saturating_sub(live.len() + going.len());
            while missing > 0 && total < s.max_copies {
                let sources: Vec<u32> = live
                    .iter()
                    .copied()
                    .filter(|&h| usable[h as usize] && busy[h as usize] < s.streams)
                    .collect();
                if sources.is_empty() {
                    break;
                }
                let tried = failed.get(&block).cloned().unwrap_or_default();
                let pick = |skip_failed: bool| {
                    let cands: Vec<u32> = (0..n as u32)
                        .filter(|&c| {
                            usable[c as usize]
                                && !live.contains(&c)
                                && !going.contains(&c)
                                && !plans
                                    .iter()
                                    .any(|p: &InFlight| p.block == block && p.dst == c)
                                && (!skip_failed || !tried.contains(&c))
                        })
                        .collect();
                    choose_target(
                        &live,
                        &cands,
                        rack,
                        |c| (busy[c as usize] as u64) << 32 | held[c as usize],
                        |c| busy[c as usize] >= s.streams,
                    )
                };
                // Every other worker failed it once: try them again.
                let Some(dst) = pick(true).or_else(|| pick(false)) else {
                    break;
                };
                let src = *sources
                    .iter()
                    .min_by_key(|&&h| (rack(h) != rack(dst), busy[h as usize], h))
                    .expect("sources checked non-empty");
                busy[src as usize] += 1;
                busy[dst as usize] += 1;
                held[dst as usize] += 1;
                total += 1;
                missing -= 1;
                plans.push(InFlight {
                    block,
                    src,
                    dst,
                    since: Instant::now(),
                });
            }
        }
        for p in plans {
            let from = self.b.nodes[p.src as usize].addr.clone();
            self.b.out[p.dst as usize].copies.push(BlockCopy {
                block: p.block,
                from,
            });
            self.b.repl.inflight.push(p);
        }
    }

    /// Fail running jobs with a map still to do whose block has no live
    /// holder.
    pub(super) fn fail_jobs_without_blocks(&mut self, now: Time) {
        let Some(f) = self.formed.as_ref() else {
            return;
        };
        let mut doomed = Vec::new();
        for &j in f.st.active_jobs() {
            let Some(job) = f.st.get_job(j) else {
                continue;
            };
            if job.status != JobStatus::Running {
                continue;
            }
            let Some(m) = self.b.jobs.get(j.idx()) else {
                continue;
            };
            for (t, task) in job.maps.iter().enumerate() {
                if task.status == TaskStatus::Done {
                    continue;
                }
                let Some((id, reps)) = m.blocks.get(t) else {
                    continue;
                };
                if self.live_holders(reps).is_empty() {
                    let what = match self.committed_block(*id) {
                        Some((name, i)) => format!("file {name}: block {i} (id {id})"),
                        None => format!("block {id}"),
                    };
                    doomed.push((j, format!("{what} has no replica left")));
                    break;
                }
            }
        }
        for (j, reason) in doomed {
            let f = self.formed.as_mut().expect("formed");
            if f.st.fail_job(j, &reason).is_ok() {
                eprintln!("mrsched master: job {} failed: {reason}", j.0);
                self.journal.push(Record::JobFailed {
                    t: now.0,
                    job: j.0,
                    reason,
                });
            }
        }
    }

    /// The block store's replication state.
    pub fn replication_view(&self) -> ReplicationView {
        let mut v = ReplicationView {
            copies_in_flight: self.b.repl.inflight.len() as u32,
            blocks_copied: self.b.repl.blocks_copied,
            bytes_copied: self.b.repl.bytes_copied,
            copies_failed: self.b.repl.copies_failed,
            corrupt_replicas: self.b.repl.corrupt,
            ..Default::default()
        };
        for (name, fm) in self.b.files.iter().filter(|(_, f)| f.writer.is_none()) {
            for (i, b) in fm.blocks.iter().enumerate() {
                v.blocks += 1;
                let live = self.live_holders(&b.replicas).len() as u32;
                if live < fm.replication.max(1) {
                    v.under_replicated += 1;
                }
                if live == 0 {
                    v.lost.push((name.clone(), i as u32, b.id));
                }
            }
        }
        v
    }

    /// Add the replication metrics to a scrape.
    pub fn register_replication_metrics(&self, r: &mut Registry) {
        let v = self.replication_view();
        let gauge = |x: u64| {
            let g: Gauge = Gauge::default();
            g.set(x as i64);
            g
        };
        let counter = |x: u64| {
            let c: Counter = Counter::default();
            c.inc_by(x);
            c
        };
        r.register(
            "blocks_under_replicated",
            "Blocks of committed files with fewer live replicas than their file's replication (lost ones included)",
            gauge(v.under_replicated),
        );
        r.register(
            "blocks_lost",
            "Blocks with no replica on a live worker",
            gauge(v.lost.len() as u64),
        );
        r.register(
            "rereplication_copies_in_flight",
            "Re-replication copies sent to workers and not yet reported",
            gauge(v.copies_in_flight as u64),
        );
        r.register(
            "rereplicated_blocks",
            "Re-replication copies completed since the cluster started",
            counter(v.blocks_copied),
        );
        r.register(
            "rereplicated_bytes",
            "Bytes copied by re-replication since the cluster started",
            counter(v.bytes_copied),
        );
        r.register(
            "rereplication_failures",
            "Re-replication copies that failed since this master started",
            counter(v.copies_failed),
        );
        r.register(
            "corrupt_replicas",
            "Block replicas found corrupt by their checksum since this master started",
            counter(v.corrupt_replicas),
        );
    }
}

#[cfg(test)]
mod tests;
