//! Rebuilding the master from its journal.
//!
//! Replay is idempotent, so that a journal holding a record twice (written
//! by an older master that journaled replayed submissions again) or a
//! restart at any point gives the same state: replay writes nothing to the
//! journal; a submission carries the id it was given and one whose id
//! exists already is skipped; an event record (one with a time) seen
//! before, byte for byte, is skipped; the rest (files, kills, node losses,
//! evictions) are idempotent in themselves. Ids come from the journal: a
//! submission that cannot be replayed still takes its id, as a rejected
//! job without tasks with the reason, so no later job changes id.
//!
//! Running attempts are not journaled, but whether a lost map output must
//! be made again depends on them (reduces past their copy phase no longer
//! need it). Where the journal shows the job finishing without that map,
//! the replay looks ahead: it takes the reduces the journal finishes later
//! as running at the loss (`Core::prelaunch`), or drops a lost output
//! without a re-run (`moot_losses`), so a job that ended stays ended.

use super::*;
use mrsched_state::ReducePhase;

impl Core {
    pub(super) fn replay(&mut self, records: Vec<Record>) -> Result<(), ApiError> {
        let mut pending_nodes = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let moot = moot_losses(&records);
        let ahead = Ahead::of(&records);
        let mut pre = BTreeMap::new();
        for (i, r) in records.into_iter().enumerate() {
            if let Record::NodeLost { t, .. } = &r {
                self.advance(Time(*t));
                self.prelaunch(&ahead, i, &mut pre);
            }
            if let (Record::OutputLost { job, task, .. }, true) = (&r, moot.contains(&i)) {
                // The state cannot know that the reduces were past their
                // copy phase then (running attempts are not journaled):
                // the output is gone, the map did not run again.
                if let Some(Some(o)) = self
                    .b
                    .jobs
                    .get_mut(*job as usize)
                    .map(|m| m.map_out.get_mut(*task as usize))
                {
                    *o = None;
                }
                continue;
            }
            if r.time().is_some() {
                let bytes = serde_json::to_vec(&r).unwrap_or_default();
                if !seen.insert(bytes) {
                    continue;
                }
            }
            if let Record::Node {
                name,
                rack,
                map_slots,
                reduce_slots,
            } = &r
            {
                let known = pending_nodes
                    .iter()
                    .chain(&self.b.nodes)
                    .any(|n: &NodeInfo| n.name == *name);
                if known {
                    // The same node twice: applied already.
                    continue;
                }
                pending_nodes.push(NodeInfo {
                    name: name.clone(),
                    rack: rack.clone(),
                    addr: String::new(),
                    session: 0,
                    last_seen: Instant::now(),
                    map_slots: *map_slots,
                    reduce_slots: *reduce_slots,
                });
                continue;
            }
            if self.formed.is_none() && !pending_nodes.is_empty() {
                self.form(std::mem::take(&mut pending_nodes))?;
            }
            let done = match &r {
                Record::ReduceDone { job, task, .. } => pre.remove(&(*job, *task)),
                _ => None,
            };
            let res = match done {
                Some(a)
                    if self
                        .formed
                        .as_ref()
                        .is_some_and(|f| f.st.attempt(a).is_some()) =>
                {
                    self.finish_prelaunched(r, a)
                }
                _ => self.replay_one(r),
            };
            if let Err(e) = res {
                eprintln!("mrsched master: journal replay: {}", e.message);
                self.replay_errors.push(e.message);
            }
        }
        // Reduces launched ahead whose end did not replay: pending again.
        if let Some(f) = self.formed.as_mut() {
            for a in pre.into_values() {
                let _ = f.st.kill_attempt(a);
            }
        }
        self.settle();
        if self.formed.is_none() && !pending_nodes.is_empty() {
            self.form(pending_nodes)?;
        }
        Ok(())
    }

    /// A journalled job, or an error naming it: a record that names a job
    /// the replay did not create is reported, never a panic.
    fn replayed_job(&mut self, job: u32) -> Result<&mut JobMeta, ApiError> {
        self.b.jobs.get_mut(job as usize).ok_or_else(|| {
            ApiError::internal(format!(
                "the journal names job {job}, which it never submitted"
            ))
        })
    }

    /// The map-output slot of a journalled map task.
    fn map_slot(&mut self, job: u32, task: u32) -> Result<&mut Option<(String, u32)>, ApiError> {
        self.replayed_job(job)?
            .map_out
            .get_mut(task as usize)
            .ok_or_else(|| missing(job, "map", task))
    }

    pub(super) fn replay_one(&mut self, r: Record) -> Result<(), ApiError> {
        match r {
            Record::Node { .. } => {}
            Record::File {
                name,
                owner,
                blocks,
                replication,
            } => {
                let replication = match replication {
                    0 => blocks.iter().map(|b| b.2.len() as u32).max().unwrap_or(1),
                    r => r,
                };
                let blocks: Vec<BlockMeta> = blocks
                    .into_iter()
                    .map(|(id, bytes, replicas)| BlockMeta {
                        id,
                        bytes,
                        replicas,
                    })
                    .collect();
                if self.b.files.get(&name).is_some_and(|f| f.blocks == blocks) {
                    // The same file again: keep it (and its dataset).
                    return Ok(());
                }
                self.b.files.insert(
                    name,
                    FileMeta {
                        owner,
                        blocks,
                        dataset: None,
                        writer: None,
                        replication,
                    },
                );
            }
            Record::FileRemoved { name } => {
                self.b.files.remove(&name);
            }
            Record::Submit {
                t,
                user,
                label,
                text,
                json,
                datasets,
                rejected,
                id,
            } => {
                self.advance(Time(t));
                if let Some(id) = id {
                    if (id as usize) < self.b.jobs.len() {
                        // Applied already.
                        return Ok(());
                    }
                    self.fill_gap(id);
                    self.replay_released(id);
                }
                let u = User {
                    name: user.clone(),
                    admin: true,
                };
                let decision = match rejected {
                    None => Admission::Admit,
                    Some(r) => Admission::Reject(r),
                };
                let before = self.b.jobs.len();
                if let Err(e) =
                    self.submit_inner(&u, &label, &text, json, Some((decision, datasets)))
                {
                    if self.b.jobs.len() == before {
                        let why = format!("could not be replayed: {}", e.message);
                        self.placeholder(&user, &label, why);
                    }
                    return Err(e);
                }
            }
            Record::SubmitKey { user, key, job } => self.replay_key(user, key, job),
            Record::JobSet { t, first, jobs } => {
                self.advance(Time(t));
                self.replay_set(first, jobs);
            }
            Record::Unreleased {
                t,
                id,
                user,
                label,
                reason,
            } => {
                self.advance(Time(t));
                if (id as usize) < self.b.jobs.len() {
                    return Ok(());
                }
                self.fill_gap(id);
                self.replay_released(id);
                self.placeholder(&user, &label, reason);
            }
            Record::MapDone {
                t,
                node,
                tasks,
                key,
                blocks,
            } => {
                self.advance(Time(t));
                for &(j, task) in &tasks {
                    self.map_slot(j, task)?;
                }
                for (j, task, block, bytes, replicas) in blocks {
                    *self
                        .replayed_job(j)?
                        .reduce_out
                        .get_mut(task as usize)
                        .ok_or_else(|| missing(j, "map", task))? = Some((block, bytes, replicas));
                }
                let f = self.formed_mut()?;
                let Some(&(j, task)) = tasks.first() else {
                    return Err(ApiError::internal("a map record without tasks"));
                };
                let riders = tasks[1..].iter().map(|&(j, t)| (JobId(j), t)).collect();
                let l = Launch::Map {
                    job: JobId(j),
                    task,
                    riders,
                };
                let a =
                    f.st.launch(NodeId(node), &l)
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.finish_map(a)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
                for (j, t) in tasks {
                    *self.map_slot(j, t)? = Some((key.clone(), node));
                }
            }
            Record::ReduceDone {
                t,
                node,
                job,
                task,
                block,
                bytes,
                replicas,
            } => {
                self.advance(Time(t));
                *self
                    .replayed_job(job)?
                    .reduce_out
                    .get_mut(task as usize)
                    .ok_or_else(|| missing(job, "reduce", task))? = Some((block, bytes, replicas));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                let a =
                    f.st.launch(NodeId(node), &Launch::reduce(JobId(job), task))
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                // A reduce with an explicit time (MSJO) has no copy phase:
                // it computes from its launch.
                if f.st
                    .attempt(a)
                    .is_some_and(|x| x.phase == ReducePhase::Copying)
                {
                    f.st.finish_copy(a)
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                }
                f.st.take_compute_started();
                f.st.finish_reduce(a)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
            }
            Record::Failed {
                t,
                node,
                map,
                tasks,
                reason,
                ..
            } => {
                self.advance(Time(t));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                let Some(&(j, task)) = tasks.first() else {
                    return Err(ApiError::internal("a failure record without tasks"));
                };
                let l = if map {
                    Launch::Map {
                        job: JobId(j),
                        task,
                        riders: tasks[1..].iter().map(|&(j, t)| (JobId(j), t)).collect(),
                    }
                } else {
                    Launch::reduce(JobId(j), task)
                };
                let a =
                    f.st.launch(NodeId(node), &l)
                        .map_err(|e| ApiError::internal(e.to_string()))?;
                f.st.fail_attempt(a, &reason)
                    .map_err(|e| ApiError::internal(e.to_string()))?;
            }
            Record::NodeLost { t, node } => {
                self.advance(Time(t));
                self.formed_mut()?.st.node_lost(NodeId(node));
                self.forget_outputs_on(node);
            }
            Record::NodeBack { t, node } => {
                self.advance(Time(t));
                self.formed_mut()?.st.node_recovered(NodeId(node));
            }
            Record::OutputLost { t, job, task, node } => {
                self.advance(Time(t));
                self.formed_mut()?
                    .st
                    .map_output_lost(JobId(job), task, NodeId(node));
                *self.map_slot(job, task)? = None;
            }
            Record::Evicted { t, job, node } => {
                self.advance(Time(t));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                f.st.evict_outputs(JobId(job), NodeId(node));
                for o in self.replayed_job(job)?.map_out.iter_mut() {
                    if o.as_ref().is_some_and(|(_, n)| *n == node) {
                        *o = None;
                    }
                }
            }
            Record::Killed { t, job, reason } => {
                self.advance(Time(t));
                let _ = self.formed_mut()?.st.kill_job(JobId(job), &reason);
            }
            Record::ReplicaAdded { block, node, bytes } => {
                self.replay_replica(block, node, Some(bytes));
            }
            Record::ReplicaDropped { block, node } => {
                self.replay_replica(block, node, None);
            }
            Record::JobFailed { t, job, reason } => {
                self.advance(Time(t));
                let _ = self.formed_mut()?.st.fail_job(JobId(job), &reason);
            }
        }
        self.settle();
        Ok(())
    }
}

/// Where each reduce's and each job's maps' finishing records are, for
/// looking ahead from a record.
struct Ahead {
    /// `(job, reduce)` -> its `ReduceDone` records: `(index, node)`.
    reduces: BTreeMap<(u32, u32), Vec<(usize, u32)>>,
    /// Job -> index of its last `MapDone` or map `Failed` record.
    last_map: BTreeMap<u32, usize>,
}

impl Ahead {
    fn of(records: &[Record]) -> Ahead {
        let mut a = Ahead {
            reduces: BTreeMap::new(),
            last_map: BTreeMap::new(),
        };
        for (i, r) in records.iter().enumerate() {
            match r {
                Record::ReduceDone {
                    job, task, node, ..
                } => a.reduces.entry((*job, *task)).or_default().push((i, *node)),
                Record::MapDone { tasks, .. }
                | Record::Failed {
                    map: true, tasks, ..
                } => {
                    for (j, _) in tasks {
                        a.last_map.insert(*j, i);
                    }
                }
                _ => {}
            }
        }
        a
    }

    /// The node of the next `ReduceDone` of `(job, reduce)` after `i`.
    fn reduce_after(&self, i: usize, job: u32, task: u32) -> Option<u32> {
        self.reduces
            .get(&(job, task))?
            .iter()
            .find(|(k, _)| *k > i)
            .map(|x| x.1)
    }
}

impl Core {
    /// Before a node loss at record `i`: the state cannot know which
    /// reduces were running then (running attempts are not journaled), and
    /// without them it would run again the maps whose outputs the node
    /// held although those reduces had them already. For a running job
    /// whose maps finish no more in the journal, launch (and admit to
    /// compute) each reduce that the journal finishes later, on the node
    /// that finishes it, as it was running then; its `ReduceDone` then
    /// finishes that attempt.
    fn prelaunch(&mut self, ahead: &Ahead, i: usize, pre: &mut BTreeMap<(u32, u32), AttemptId>) {
        let Some(f) = self.formed.as_mut() else {
            return;
        };
        let active = f.st.active_jobs().to_vec();
        for j in active {
            if ahead.last_map.get(&j.0).is_some_and(|&k| k > i) {
                continue;
            }
            let job = f.st.job(j);
            let open: Vec<u32> = job
                .reduces
                .iter()
                .enumerate()
                .filter(|(_, t)| t.status == TaskStatus::Pending)
                .map(|(k, _)| k as u32)
                .collect();
            for task in open {
                let Some(node) = ahead.reduce_after(i, j.0, task) else {
                    continue;
                };
                let Ok(a) = f.st.launch(NodeId(node), &Launch::reduce(j, task)) else {
                    continue;
                };
                if f.st
                    .attempt(a)
                    .is_some_and(|x| x.phase == ReducePhase::Copying)
                {
                    let _ = f.st.finish_copy(a);
                }
                f.st.take_compute_started();
                pre.insert((j.0, task), a);
            }
        }
    }

    /// A `ReduceDone` of a reduce launched ahead.
    fn finish_prelaunched(&mut self, r: Record, a: AttemptId) -> Result<(), ApiError> {
        let Record::ReduceDone {
            t,
            job,
            task,
            block,
            bytes,
            replicas,
            ..
        } = r
        else {
            return Ok(());
        };
        self.advance(Time(t));
        *self
            .replayed_job(job)?
            .reduce_out
            .get_mut(task as usize)
            .ok_or_else(|| missing(job, "reduce", task))? = Some((block, bytes, replicas));
        let f = self.formed.as_mut().ok_or_else(not_formed)?;
        f.st.take_compute_started();
        f.st.finish_reduce(a)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        self.settle();
        Ok(())
    }
}

/// Indices of `OutputLost` records that changed nothing but the output's
/// location: no later record finishes the map again, and a later reduce of
/// its job finished (so its reduces no longer needed the output). Replaying
/// them would run the map again, since the replayed state has no running
/// reduce that was past its copy phase; a reducer that does need it later
/// gets it re-run through `map_outputs`.
fn moot_losses(records: &[Record]) -> std::collections::HashSet<usize> {
    let mut maps_later = std::collections::HashSet::new();
    let mut reduces_later = std::collections::HashSet::new();
    let mut out = std::collections::HashSet::new();
    for (i, r) in records.iter().enumerate().rev() {
        match r {
            Record::MapDone { tasks, .. } => maps_later.extend(tasks.iter().copied()),
            Record::ReduceDone { job, .. } => {
                reduces_later.insert(*job);
            }
            Record::OutputLost { job, task, .. }
                if reduces_later.contains(job) && !maps_later.contains(&(*job, *task)) =>
            {
                out.insert(i);
            }
            _ => {}
        }
    }
    out
}

impl Core {
    /// After a restart, until every worker of the cluster has registered
    /// again or been declared lost (at most the worker timeout after the
    /// start): a worker that has not registered has no known address, so
    /// a map launched now could find no source for its block, and a reduce
    /// no replica holder to copy to. The master launches nothing meanwhile
    /// (as HDFS's safe mode waits for block reports).
    pub fn recovering(&self) -> bool {
        let Some(f) = self.formed.as_ref() else {
            return false;
        };
        self.b
            .nodes
            .iter()
            .enumerate()
            .any(|(i, n)| n.session == 0 && f.st.slots(NodeId(i as u32)).alive)
    }

    /// Jobs the journal skips before `id` (a record lost by a damaged
    /// journal) become placeholders, so that `id` is the next one.
    fn fill_gap(&mut self, id: u32) {
        while (self.b.jobs.len() as u32) < id {
            let k = self.b.jobs.len();
            self.replay_errors
                .push(format!("the journal has no submission of job {k}"));
            self.placeholder("unknown", "unknown", "lost from the journal".into());
            if self.b.jobs.len() == k {
                // Not formed: nothing can be created.
                return;
            }
        }
    }
}

fn missing(job: u32, kind: &str, task: u32) -> ApiError {
    ApiError::internal(format!(
        "the journal names {kind} task {task} of job {job}, which has no such task"
    ))
}
