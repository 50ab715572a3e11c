//! Map-only jobs on the master: each map attempt of a job with no reduces
//! gets a fresh output block (placed like a reduce's, the writer first);
//! the block becomes part of the output file only if that attempt is the
//! one that finishes the map. Blocks of attempts that fail, are killed, are
//! lost or finish too late (a duplicate of a map already done) are deleted
//! on every worker that was to hold them, so the file ends with exactly one
//! block per map, in map order (`JobMeta::reduce_out`, indexed by map).

use super::*;

impl Book {
    /// Ask `nodes` to delete block `id`.
    fn delete_block_on(&mut self, id: u64, nodes: impl IntoIterator<Item = u32>) {
        for r in nodes {
            if let Some(o) = self.out.get_mut(r as usize) {
                o.delete_blocks.push(id);
            }
        }
    }

    /// Output blocks and their replica holders for the map-only jobs a map
    /// attempt serves (none for jobs with reduces).
    pub(super) fn map_only_launch(
        &mut self,
        st: &ClusterState,
        att: &Attempt,
    ) -> Vec<MapOnlyOutput> {
        let mut out = Vec::new();
        let mut planned = Vec::new();
        for t in att.tasks() {
            if self.jobs[t.job.idx()].reduces != 0 {
                continue;
            }
            let block = self.new_block();
            let mut nodes = vec![att.node.0];
            let reps = self.place(st, Some(att.node), self.settings.replication);
            nodes.extend(reps.into_iter().filter(|&r| r != att.node.0));
            out.push(MapOnlyOutput {
                job: t.job.0,
                block,
                replicas: nodes[1..]
                    .iter()
                    .map(|&r| (r, self.nodes[r as usize].addr.clone()))
                    .collect(),
            });
            planned.push((t.job.0, block, nodes));
        }
        if !planned.is_empty() {
            self.map_blocks.insert(att.id, planned);
        }
        out
    }

    /// An attempt ended: one that did not succeed leaves no output block.
    pub(super) fn map_only_ended(&mut self, att: &Attempt) {
        let Some(planned) = self.map_blocks.remove(&att.id) else {
            return;
        };
        if att.status != AttemptStatus::Succeeded {
            for (_, block, nodes) in planned {
                self.delete_block_on(block, nodes);
            }
        }
    }

    /// Whether `block` is part of a job's output.
    fn block_used(&self, block: u64) -> bool {
        self.jobs
            .iter()
            .any(|m| m.reduce_out.iter().flatten().any(|(id, _, _)| *id == block))
    }
}

/// `(job, map, block, bytes, replicas)` of an accepted map-only block.
pub(super) type Accepted = (u32, u32, u64, u64, Vec<u32>);

impl Core {
    /// The map-only blocks of a `MapDone` report from a running attempt
    /// `a` on `node`, before its map is finished: blocks of its own launch
    /// for maps not yet done are entered in their jobs' outputs (and
    /// returned for the journal); anything else is deleted.
    pub(super) fn map_only_done(
        &mut self,
        a: AttemptId,
        node: NodeId,
        blocks: Vec<MapOnlyBlock>,
    ) -> Vec<Accepted> {
        let f = self.formed.as_ref().expect("formed");
        let planned = self.b.map_blocks.get(&a).cloned().unwrap_or_default();
        let att = f.st.attempt(a).cloned();
        let mut kept = Vec::new();
        for b in blocks {
            let plan = planned
                .iter()
                .find(|(j, id, _)| *j == b.job && *id == b.block);
            let task = att
                .as_ref()
                .and_then(|x| x.tasks().find(|t| t.job.0 == b.job).map(|t| t.index));
            let ok = match (plan, task) {
                (Some(_), Some(task)) => {
                    let job = f.st.job(JobId(b.job));
                    job.status == JobStatus::Running
                        && job.maps[task as usize].status != TaskStatus::Done
                        && self.b.jobs[b.job as usize].reduce_out[task as usize].is_none()
                }
                _ => false,
            };
            let holders: Vec<u32> = match plan {
                Some((_, _, nodes)) => b
                    .replicas
                    .iter()
                    .copied()
                    .filter(|r| nodes.contains(r))
                    .collect(),
                None => b.replicas.clone(),
            };
            let mut reps = vec![node.0];
            reps.extend(holders.into_iter().filter(|&r| r != node.0));
            match (ok, task) {
                (true, Some(task)) => {
                    self.b.jobs[b.job as usize].reduce_out[task as usize] =
                        Some((b.block, b.bytes, reps.clone()));
                    kept.push((b.job, task, b.block, b.bytes, reps));
                }
                _ => self.b.delete_block_on(b.block, reps),
            }
        }
        kept
    }

    /// The map could not be finished after all: forget and delete its
    /// blocks.
    pub(super) fn map_only_revert(&mut self, kept: Vec<Accepted>) {
        for (j, task, block, _, reps) in kept {
            self.b.jobs[j as usize].reduce_out[task as usize] = None;
            self.b.delete_block_on(block, reps);
        }
    }

    /// A report from an attempt that no longer runs (killed, a job's end, a
    /// duplicate): its blocks are garbage unless already part of an output
    /// (a repeated report).
    pub(super) fn map_only_late(&mut self, node: NodeId, blocks: Vec<MapOnlyBlock>) {
        for b in blocks {
            if self.b.block_used(b.block) {
                continue;
            }
            self.b
                .delete_block_on(b.block, std::iter::once(node.0).chain(b.replicas));
        }
    }
}
