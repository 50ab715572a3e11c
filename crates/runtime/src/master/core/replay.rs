//! Rebuilding the master from its journal.

use super::*;
use mrsched_state::ReducePhase;

impl Core {
    pub(super) fn replay(&mut self, records: Vec<Record>) -> Result<(), ApiError> {
        let mut pending_nodes = Vec::new();
        for r in records {
            if let Record::Node {
                name,
                rack,
                map_slots,
                reduce_slots,
            } = &r
            {
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
            if let Err(e) = self.replay_one(r) {
                eprintln!("mrsched master: journal replay: {}", e.message);
            }
        }
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
                self.b.files.insert(
                    name,
                    FileMeta {
                        owner,
                        blocks: blocks
                            .into_iter()
                            .map(|(id, bytes, replicas)| BlockMeta {
                                id,
                                bytes,
                                replicas,
                            })
                            .collect(),
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
            } => {
                self.advance(Time(t));
                let u = User {
                    name: user,
                    admin: true,
                };
                let decision = match rejected {
                    None => Admission::Admit,
                    Some(r) => Admission::Reject(r),
                };
                self.submit_inner(&u, &label, &text, json, Some((decision, datasets)))?;
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
            } => {
                self.advance(Time(t));
                let f = self.formed.as_mut().ok_or_else(not_formed)?;
                let (j, task) = tasks[0];
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

fn missing(job: u32, kind: &str, task: u32) -> ApiError {
    ApiError::internal(format!(
        "the journal names {kind} task {task} of job {job}, which has no such task"
    ))
}
