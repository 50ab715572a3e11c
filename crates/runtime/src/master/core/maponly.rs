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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::master::core::fixtures::{self, reg};

    fn settings() -> MasterSettings {
        MasterSettings {
            max_attempts: 3,
            ..fixtures::settings()
        }
    }

    /// A map-only job through heartbeats: the first attempt of map 0 fails
    /// and a late report of it arrives; the file has one block per map in
    /// map order, the failed attempt's block is deleted on both of its
    /// planned holders, and a reopened journal rebuilds the same file.
    #[test]
    fn map_only_blocks_are_committed_once_in_map_order_and_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.redb");
        let alice = fixtures::alice();
        let want = {
            let mut c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
            let regs = [c.register(reg("a")).unwrap(), c.register(reg("b")).unwrap()];
            let mut blocks = Vec::new();
            for _ in 0..3 {
                let (id, t) = c.new_block(2).unwrap();
                blocks.push(BlockMeta {
                    id,
                    bytes: 10,
                    replicas: t.iter().map(|x| x.0).collect(),
                });
            }
            c.commit_file(&alice, "in", blocks).unwrap();
            let text = "input = \"in\"\noutput = \"out\"\nreduces = 0\n[program]\nkind = \"streaming\"\nmapper = \"cat\"\n";
            let s = c.submit(&alice, "m.toml", text, false).unwrap();
            let mut reports: Vec<Vec<Report>> = vec![Vec::new(), Vec::new()];
            let mut done: BTreeMap<u32, u64> = BTreeMap::new();
            let mut deleted: Vec<(u32, u64)> = Vec::new();
            let mut failed: Option<(String, u64, Vec<u32>)> = None;
            for _ in 0..30 {
                for (i, r) in regs.iter().enumerate() {
                    let reply = c
                        .heartbeat(Heartbeat {
                            node: r.node,
                            session: r.session,
                            reports: std::mem::take(&mut reports[i]),
                        })
                        .unwrap();
                    deleted.extend(reply.delete_blocks.iter().map(|b| (r.node, *b)));
                    for l in reply.launches {
                        assert_eq!(l.map_only.len(), 1, "one output block per map attempt");
                        let mo = &l.map_only[0];
                        assert_eq!(
                            mo.replicas.len(),
                            1,
                            "replication 2: the writer and one more"
                        );
                        let task = l.jobs[0].task;
                        let holders = vec![r.node, mo.replicas[0].0];
                        if task == 0 && failed.is_none() {
                            failed = Some((l.key.clone(), mo.block, holders));
                            reports[i].push(Report::Failed {
                                key: l.key,
                                error: "exit 3".into(),
                            });
                        } else {
                            done.insert(task, mo.block);
                            reports[i].push(Report::MapDone {
                                key: l.key,
                                outputs: Vec::new(),
                                read: ReadFrom::Local,
                                input_bytes: 10,
                                blocks: vec![MapOnlyBlock {
                                    job: s.id,
                                    block: mo.block,
                                    bytes: 5,
                                    replicas: holders,
                                }],
                            });
                        }
                    }
                }
            }
            assert_eq!(c.job_view(s.id).unwrap().status, "succeeded");
            let (key, fb, holders) = failed.expect("map 0 failed once");
            for &n in &holders {
                assert!(deleted.contains(&(n, fb)), "{deleted:?}");
            }
            // A late success report of the failed attempt changes nothing
            // and its block is deleted again.
            let late = c
                .heartbeat(Heartbeat {
                    node: holders[0],
                    session: regs.iter().find(|r| r.node == holders[0]).unwrap().session,
                    reports: vec![Report::MapDone {
                        key,
                        outputs: Vec::new(),
                        read: ReadFrom::Local,
                        input_bytes: 10,
                        blocks: vec![MapOnlyBlock {
                            job: s.id,
                            block: fb,
                            bytes: 5,
                            replicas: holders.clone(),
                        }],
                    }],
                })
                .unwrap();
            assert!(late.delete_blocks.contains(&fb), "{late:?}");
            let file = c.file_view("out").unwrap();
            let ids: Vec<u64> = file.blocks.iter().map(|b| b.0).collect();
            assert_eq!(ids, done.values().copied().collect::<Vec<_>>());
            assert!(!ids.contains(&fb));
            assert!(deleted.iter().all(|(_, b)| !ids.contains(b)));
            assert!(file.blocks.iter().all(|b| b.2.len() == 2));
            c.sync().unwrap();
            file
        };
        let c = Core::open(Journal::open(&path).unwrap(), settings(), None).unwrap();
        assert_eq!(c.file_view("out").unwrap(), want);
    }
}
