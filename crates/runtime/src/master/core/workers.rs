//! The worker API: registration, heartbeats, map output locations, and
//! the periodic tick (timers, lost workers).

use super::*;

impl Core {
    /// A worker registers (first time, after a restart of either side, or
    /// after it was declared lost).
    pub fn register(&mut self, reg: Register) -> Result<Registered, ApiError> {
        let session = self.session();
        let heartbeat_ms = self.heartbeat_ms();
        let info = NodeInfo {
            name: reg.name.clone(),
            rack: reg.rack.clone(),
            addr: reg.addr.clone(),
            session,
            last_seen: self.clock(),
            map_slots: reg.map_slots,
            reduce_slots: reg.reduce_slots,
        };
        if reg.map_slots == 0 {
            return Err(ApiError::bad("a worker needs at least one map slot"));
        }
        if self.formed.is_none() {
            let idx = match self.regs.iter().position(|n| n.name == reg.name) {
                Some(i) => {
                    self.regs[i] = info;
                    i
                }
                None => {
                    self.regs.push(info);
                    self.regs.len() - 1
                }
            };
            if self.regs.len() as u32 >= self.b.settings.workers {
                let nodes = std::mem::take(&mut self.regs);
                for n in &nodes {
                    self.journal.push(Record::Node {
                        name: n.name.clone(),
                        rack: n.rack.clone(),
                        map_slots: n.map_slots,
                        reduce_slots: n.reduce_slots,
                    });
                }
                self.form(nodes)?;
                self.commit()?;
            }
            return Ok(Registered {
                node: idx as u32,
                session,
                heartbeat_ms,
            });
        }
        let now = self.now();
        let Some(n) = self.b.nodes.iter().position(|x| x.name == reg.name) else {
            let names: Vec<&str> = self.b.nodes.iter().map(|n| n.name.as_str()).collect();
            return Err(ApiError::conflict(format!(
                "the cluster formed with workers {}; `{}` is not one of them (start the master with a new --dir to form a larger cluster)",
                names.join(", "),
                reg.name
            )));
        };
        let node = NodeId(n as u32);
        self.advance(now);
        let seen = self.clock();
        {
            let old = &mut self.b.nodes[n];
            old.addr = reg.addr.clone();
            old.session = session;
            old.last_seen = seen;
        }
        self.forget_health(n);
        let out = &mut self.b.out[n];
        out.launches.clear();
        out.kills.clear();
        out.computes.clear();
        let f = self.formed.as_mut().expect("formed");
        let busy = f.st.attempts_on(node).next().is_some();
        if !f.st.slots(node).alive {
            f.st.node_recovered(node);
            self.journal.push(Record::NodeBack {
                t: now.0,
                node: n as u32,
            });
        } else if busy {
            // It came back without its running attempts: they are lost.
            f.st.node_lost(node);
            f.st.node_recovered(node);
            self.journal.push(Record::NodeLost {
                t: now.0,
                node: n as u32,
            });
            self.journal.push(Record::NodeBack {
                t: now.0,
                node: n as u32,
            });
            for m in &mut self.b.jobs {
                for o in m.map_out.iter_mut() {
                    if o.as_ref().is_some_and(|(_, x)| *x == n as u32) {
                        *o = None;
                    }
                }
            }
        } else {
            // Same node, new session (the master restarted): check that the
            // map outputs the journal says it holds are still there.
            let held: std::collections::HashSet<(u32, &str)> =
                reg.outputs.iter().map(|(j, k)| (*j, k.as_str())).collect();
            for (j, m) in self.b.jobs.iter_mut().enumerate() {
                // Map-only jobs keep no map output on workers.
                if f.st.job(JobId(j as u32)).status != JobStatus::Running || m.reduces == 0 {
                    continue;
                }
                for (t, o) in m.map_out.iter_mut().enumerate() {
                    let missing = matches!(o, Some((k, x)) if *x == n as u32 && !held.contains(&(j as u32, k.as_str())));
                    if missing {
                        *o = None;
                        f.st.map_output_lost(JobId(j as u32), t as u32, node);
                        self.journal.push(Record::OutputLost {
                            t: now.0,
                            job: j as u32,
                            task: t as u32,
                            node: n as u32,
                        });
                    }
                }
            }
        }
        self.reconcile_blocks(n as u32, &reg.blocks);
        self.settle();
        self.commit()?;
        Ok(Registered {
            node: n as u32,
            session,
            heartbeat_ms,
        })
    }

    /// A heartbeat: apply reports, schedule the node, answer with its
    /// messages.
    pub fn heartbeat(&mut self, hb: Heartbeat) -> Result<HeartbeatReply, ApiError> {
        let rereg = HeartbeatReply {
            reregister: true,
            ..Default::default()
        };
        if self.formed.is_none() {
            let known = self.regs.iter().any(|r| r.session == hb.session);
            return Ok(if known {
                HeartbeatReply::default()
            } else {
                rereg
            });
        }
        let n = hb.node as usize;
        let valid = self.b.nodes.get(n).is_some_and(|x| x.session == hb.session)
            && self
                .formed
                .as_ref()
                .expect("formed")
                .st
                .slots(NodeId(hb.node))
                .alive;
        if !valid {
            return Ok(rereg);
        }
        let t_all = Instant::now();
        let now = self.now();
        self.advance(now);
        self.b.nodes[n].last_seen = self.clock();
        self.heard_from(n);
        for r in hb.reports {
            self.apply_report(NodeId(hb.node), r, now);
            self.settle();
        }
        let t0 = Instant::now();
        let recovering = self.recovering();
        let suspected = self.is_suspected(hb.node);
        let f = self.formed.as_mut().expect("formed");
        let scheduled = if recovering || suspected {
            // Nothing is launched until every worker is back (see
            // `Core::recovering`), nor on a suspected worker.
            Ok(0)
        } else {
            f.driver
                .heartbeat(&mut f.st, f.sched.as_mut(), &mut self.b, NodeId(hb.node))
        };
        if let Err(e) = scheduled {
            self.b.refused.push(e.to_string());
            eprintln!("mrsched master: {e}");
        }
        let ns = t0.elapsed().as_nanos() as u64;
        self.b.heartbeat_ns.record(ns);
        self.b.metrics.schedule(ns);
        self.settle();
        self.commit_lazy()?;
        self.b
            .heartbeat_total_ns
            .record(t_all.elapsed().as_nanos() as u64);
        let o = std::mem::take(&mut self.b.out[n]);
        Ok(HeartbeatReply {
            reregister: false,
            launches: o.launches,
            kills: o.kills,
            computes: o.computes,
            delete_jobs: o.delete_jobs,
            delete_blocks: o.delete_blocks,
            copies: o.copies,
        })
    }

    pub(super) fn apply_report(&mut self, node: NodeId, r: Report, now: Time) {
        let f = self.formed.as_mut().expect("formed");
        let running = |key: &str, b: &Book, st: &ClusterState| {
            b.attempt_of(key)
                .filter(|a| st.attempt(*a).is_some_and(|x| x.node == node))
        };
        match r {
            Report::MapDone {
                key, read, blocks, ..
            } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    self.map_only_late(node, blocks);
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                if att.kind != TaskKind::Map {
                    return;
                }
                let tasks: Vec<(u32, u32)> = att.tasks().map(|t| (t.job.0, t.index)).collect();
                for &(j, t) in &tasks {
                    self.b.jobs[j as usize].map_out[t as usize] = Some((key.clone(), node.0));
                }
                let kept = self.map_only_done(a, node, blocks);
                let f = self.formed.as_mut().expect("formed");
                if f.st.finish_map(a).is_ok() {
                    let m = &mut self.b.jobs[att.job.idx()];
                    m.reads[(read == ReadFrom::Remote) as usize] += 1;
                    self.journal.push(Record::MapDone {
                        t: now.0,
                        node: node.0,
                        tasks,
                        key,
                        blocks: kept,
                    });
                } else {
                    self.map_only_revert(kept);
                }
            }
            Report::CopyDone { key } => {
                if let Some(a) = running(&key, &self.b, &f.st) {
                    let _ = f.st.finish_copy(a);
                }
            }
            Report::ReduceDone {
                key,
                block: written,
                bytes,
                replicas,
            } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    // Too late (the job ended, the attempt was killed): the
                    // block it wrote is garbage, unless this is a repeated
                    // report of a reduce that did finish.
                    let used = self.b.jobs.iter().any(|m| {
                        m.reduce_out
                            .iter()
                            .flatten()
                            .any(|(id, _, _)| *id == written)
                    });
                    if used {
                        return;
                    }
                    for r in std::iter::once(node.0).chain(replicas) {
                        if let Some(o) = self.b.out.get_mut(r as usize) {
                            o.delete_blocks.push(written);
                        }
                    }
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                let Some(&block) = self.b.reduce_blocks.get(&a) else {
                    return;
                };
                if att.kind != TaskKind::Reduce {
                    return;
                }
                let mut reps = vec![node.0];
                reps.extend(replicas.into_iter().filter(|r| *r != node.0));
                self.b.jobs[att.job.idx()].reduce_out[att.task as usize] =
                    Some((block, bytes, reps.clone()));
                if f.st.finish_reduce(a).is_ok() {
                    self.journal.push(Record::ReduceDone {
                        t: now.0,
                        node: node.0,
                        job: att.job.0,
                        task: att.task,
                        block,
                        bytes,
                        replicas: reps,
                    });
                } else {
                    self.b.jobs[att.job.idx()].reduce_out[att.task as usize] = None;
                }
            }
            Report::Failed { key, error } => {
                let Some(a) = running(&key, &self.b, &f.st) else {
                    return;
                };
                let att = f.st.attempt(a).expect("running").clone();
                let tasks: Vec<(u32, u32)> = att.tasks().map(|t| (t.job.0, t.index)).collect();
                if f.st.fail_attempt(a, &error).is_ok() {
                    self.journal.push(Record::Failed {
                        t: now.0,
                        node: node.0,
                        map: att.kind == TaskKind::Map,
                        tasks,
                        reason: error,
                        key: Some(key),
                    });
                }
            }
            Report::FetchFailed {
                job,
                map,
                key,
                reducer,
                connect,
            } => {
                let Some(m) = self.b.jobs.get_mut(job as usize) else {
                    return;
                };
                let Some(Some((k, holder))) = m.map_out.get(map as usize).cloned() else {
                    return;
                };
                if k != key {
                    return;
                }
                if connect {
                    self.connect_failed(holder, reducer);
                }
                let f = self.formed.as_mut().expect("formed");
                let m = &mut self.b.jobs[job as usize];
                m.map_out[map as usize] = None;
                f.st.map_output_lost(JobId(job), map, NodeId(holder));
                self.journal.push(Record::OutputLost {
                    t: now.0,
                    job,
                    task: map,
                    node: holder,
                });
            }
            Report::BlockCorrupt { block } => self.replica_corrupt(node.0, block),
            Report::BlockCopied { block, bytes } => self.copy_done(node.0, block, bytes),
            Report::BlockCopyFailed { block, error } => self.copy_failed(node.0, block, &error),
        }
    }

    /// Where a job's finished map outputs are, for its reducers. A done map
    /// whose output is nowhere (its worker was lost while no reducer needed
    /// it, and a reducer runs again) is sent to run again.
    pub fn map_outputs(&mut self, job: u32) -> Result<MapOutputs, ApiError> {
        let now = self.now();
        self.advance(now);
        let f = self.formed.as_mut().ok_or_else(not_formed)?;
        let j =
            f.st.get_job(JobId(job))
                .ok_or_else(|| ApiError::not_found(format!("no job {job}")))?;
        let m = &self.b.jobs[job as usize];
        let mut done = Vec::new();
        let mut missing = Vec::new();
        for (i, t) in j.maps.iter().enumerate() {
            if t.status != TaskStatus::Done {
                continue;
            }
            match &m.map_out[i] {
                // Its worker has not registered since the master started:
                // it will soon, with its outputs.
                Some((_, n))
                    if self.b.nodes[*n as usize].session == 0 && f.st.slots(NodeId(*n)).alive => {}
                Some((k, n)) if f.st.slots(NodeId(*n)).alive => {
                    done.push((i as u32, k.clone(), self.b.nodes[*n as usize].addr.clone()))
                }
                _ => missing.extend(t.node.map(|n| (i as u32, n))),
            }
        }
        let out = MapOutputs {
            total: j.maps.len() as u32,
            done,
            ended: j.status != JobStatus::Running,
        };
        if !missing.is_empty() && !out.ended {
            for (t, n) in missing {
                f.st.map_output_lost(JobId(job), t, n);
                self.b.jobs[job as usize].map_out[t as usize] = None;
                self.journal.push(Record::OutputLost {
                    t: now.0,
                    job,
                    task: t,
                    node: n.0,
                });
            }
            self.settle();
            self.commit_lazy()?;
        }
        Ok(out)
    }

    pub(super) fn forget_outputs_on(&mut self, node: u32) {
        for m in &mut self.b.jobs {
            for o in m.map_out.iter_mut() {
                if o.as_ref().is_some_and(|(_, x)| *x == node) {
                    *o = None;
                }
            }
        }
    }

    /// Periodic work: the clock, scheduler timers, lost workers, samples.
    pub fn tick(&mut self) -> Result<(), ApiError> {
        if self.formed.is_none() {
            return Ok(());
        }
        let now = self.now();
        self.advance(now);
        let at = self.clock();
        let mut lost = Vec::new();
        for (i, why) in self.detect_lost(at) {
            let f = self.formed.as_mut().expect("formed");
            let n = &mut self.b.nodes[i];
            f.st.node_lost(NodeId(i as u32));
            n.session = 0;
            self.journal.push(Record::NodeLost {
                t: now.0,
                node: i as u32,
            });
            lost.push(i as u32);
            eprintln!("mrsched master: worker {} lost ({why})", n.name);
        }
        for n in lost {
            self.forget_outputs_on(n);
            self.b.repl.dirty = true;
        }
        let f = self.formed.as_mut().expect("formed");
        let due: Vec<JobId> = self
            .b
            .wakeups
            .iter()
            .filter(|(t, _)| *t <= now)
            .map(|x| x.1)
            .collect();
        self.b.wakeups.retain(|(t, _)| *t > now);
        for j in due {
            f.st.release_reduces(j);
        }
        self.release_held(now);
        let f = self.formed.as_mut().expect("formed");
        if f.sched.next_timer().is_some_and(|t| t <= now) {
            f.driver
                .fire_timer(&mut f.st, f.sched.as_mut(), &mut self.b);
        }
        if self
            .last_sample
            .is_none_or(|s| s.elapsed() >= Duration::from_secs(1))
        {
            self.last_sample = Some(Instant::now());
            self.journal.sync()?;
            let u = f.st.usage();
            self.b.samples.push(Sample {
                t_s: now.as_secs_f64(),
                busy_slots: u.busy,
                available_slots: u.available,
                running_jobs: f.st.active_jobs().len() as u32,
                intermediate_mb: f.st.intermediate_mb(),
            });
            self.sample_pools(now);
        }
        self.replication_tick(now);
        self.settle();
        self.commit_lazy()
    }
}
