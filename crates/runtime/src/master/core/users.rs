//! The user API: submissions, job views, kills, pools, the run report.

use super::*;

impl Core {
    /// Submit a job file.
    pub fn submit(
        &mut self,
        user: &User,
        label: &str,
        text: &str,
        json: bool,
    ) -> Result<Submitted, ApiError> {
        if !self.held.is_empty() {
            return Err(ApiError::conflict(format!(
                "a job set is being released ({} job(s) still held until their release times); submit after it",
                self.held.len()
            )));
        }
        let r = self.submit_inner(user, label, text, json, None);
        if r.is_ok() {
            // An input block with no replica left fails it before a map
            // tries to read it.
            let now = self.now();
            self.fail_jobs_without_blocks(now);
            self.settle();
        }
        self.commit()?;
        r
    }

    pub(super) fn submit_inner(
        &mut self,
        user: &User,
        label: &str,
        text: &str,
        json: bool,
        replay: Option<(Admission, Vec<(String, DatasetBlocks)>)>,
    ) -> Result<Submitted, ApiError> {
        let Some(f) = self.formed.as_mut() else {
            return Err(ApiError::unavailable(format!(
                "the cluster has not formed yet ({} of {} workers registered)",
                self.regs.len(),
                self.b.settings.workers
            )));
        };
        let format = if json { Format::Json } else { Format::Toml };
        let src = Source::new(label, text, format);
        let jf = JobFile::parse(&src).map_err(|e| ApiError::bad(e.to_string()))?;
        let owner = match &jf.user {
            Some(u) if *u != user.name && !user.admin => {
                return Err(ApiError::forbidden(format!(
                    "{label}: user: `{}` may not submit jobs as `{u}`",
                    user.name
                )))
            }
            Some(u) => u.clone(),
            None => user.name.clone(),
        };
        if replay.is_none() {
            quota::check_queued(&self.b, &f.st, &owner, 1)?;
        }
        let inputs: Vec<String> = jf.input.names().iter().map(|s| s.to_string()).collect();
        for i in &inputs {
            match self.b.files.get(i) {
                Some(fm) if fm.writer.is_none() => {}
                Some(_) => {
                    return Err(ApiError::bad(
                        src.error("input", format!("`{i}` is still being written by a job"))
                            .to_string(),
                    ))
                }
                None => {
                    return Err(ApiError::bad(
                        src.error(
                            "input",
                            format!("no file `{i}` in the block store (see `mrsched dfs ls`)"),
                        )
                        .to_string(),
                    ))
                }
            }
        }
        if self.b.files.contains_key(&jf.output) && replay.is_none() {
            return Err(ApiError::bad(
                src.error(
                    "output",
                    format!(
                        "`{}` already exists (remove it with `mrsched dfs rm`)",
                        jf.output
                    ),
                )
                .to_string(),
            ));
        }
        // Checked: from here on the job is created whole.
        let mut new_datasets = Vec::new();
        let replayed_datasets = replay.as_ref().map(|r| r.1.clone());
        let mut input_ids = Vec::new();
        let mut maps = Vec::new();
        let mut blocks = Vec::new();
        for i in &inputs {
            let fm = self.b.files.get_mut(i).expect("checked");
            let ds = match fm.dataset {
                Some(d) => d,
                None => {
                    let db = match replayed_datasets
                        .as_ref()
                        .and_then(|v| v.iter().find(|(n, _)| n == i))
                    {
                        Some((_, db)) => db.clone(),
                        None => {
                            let reps: Vec<Vec<NodeId>> = fm
                                .blocks
                                .iter()
                                .map(|b| b.replicas.iter().map(|&r| NodeId(r)).collect())
                                .collect();
                            let sizes = fm
                                .blocks
                                .iter()
                                .map(|b| b.bytes as f64 / 1_048_576.0)
                                .collect();
                            DatasetBlocks::new(i, sizes, &reps)
                        }
                    };
                    new_datasets.push((i.clone(), db.clone()));
                    let d = f.st.add_dataset(db);
                    fm.dataset = Some(d);
                    d
                }
            };
            input_ids.push(ds);
            for (bi, b) in fm.blocks.iter().enumerate() {
                maps.push(MapSpec {
                    block: Some(BlockRef {
                        dataset: ds,
                        index: bi as u32,
                    }),
                    input_mb: b.bytes as f64 / 1_048_576.0,
                    time: jf.map_time_s.map(Time::from_secs_f64),
                });
                blocks.push((b.id, b.replicas.clone()));
            }
        }
        let secs = |s: Option<f64>| s.map(Time::from_secs_f64);
        let spec = JobSpec {
            name: jf.display_name(),
            user: owner.clone(),
            pool: jf.pool.clone(),
            priority: jf.priority,
            weight: jf.weight,
            arrival: f.st.now(),
            input: input_ids,
            maps: maps.into(),
            reduces: vec![
                ReduceSpec {
                    time: jf.reduce_time_s.map(Time::from_secs_f64),
                };
                jf.reduces as usize
            ],
            cost: CostParams {
                map_cpu_s_per_mb: 0.05,
                map_output_ratio: 1.0,
                reduce_cpu_s_per_mb: 0.05,
                reduce_output_ratio: 1.0,
            },
            deadline: secs(jf.deadline_s),
            goal: secs(jf.goal_s),
            expected_map: None,
            min_slots: jf.min_slots,
            max_slots: jf.max_slots,
            shuffle_delay_factor: 0.0,
            locality_wait: None,
            class: jf.class.clone(),
            scan_fraction: 0.0,
            reduce_slowstart: jf.reduce_slowstart,
            task_weights: None,
        };
        let nmaps = spec.maps.len();
        self.b.jobs.push(JobMeta {
            user: owner.clone(),
            name: spec.name.clone(),
            program: jf.program.clone(),
            output: jf.output.clone(),
            reduces: jf.reduces,
            blocks,
            map_out: vec![None; nmaps],
            // A map-only job's output has one block per map.
            reduce_out: vec![
                None;
                if jf.reduces == 0 {
                    nmaps
                } else {
                    jf.reduces as usize
                }
            ],
            reads: [0, 0],
            ended: Vec::new(),
        });
        let replayed = replay.is_some();
        let (j, decision) = match replay {
            None => f
                .driver
                .submit(&mut f.st, f.sched.as_mut(), &mut self.b, spec),
            Some((recorded, _)) => {
                let j = f.st.submit(spec);
                f.driver.deliver(&mut f.st, f.sched.as_mut(), &mut self.b);
                // The scheduler sees the arrival; the journal's decision stands.
                let _ = f.sched.on_submit(&f.st, j);
                f.driver
                    .decide(&mut f.st, f.sched.as_mut(), &mut self.b, j, &recorded);
                (j, recorded)
            }
        };
        debug_assert_eq!(j.idx() + 1, self.b.jobs.len());
        if decision == Admission::Admit {
            self.b.files.insert(
                jf.output.clone(),
                FileMeta {
                    owner: owner.clone(),
                    blocks: Vec::new(),
                    dataset: None,
                    writer: Some(j.0),
                    replication: self
                        .b
                        .settings
                        .replication
                        .min(self.b.nodes.len() as u32)
                        .max(1),
                },
            );
        }
        let rejected = match &decision {
            Admission::Admit => None,
            Admission::Reject(r) => Some(r.clone()),
        };
        // A replayed submission is in the journal already: journaling it
        // again would replay it twice after the next restart.
        if !replayed {
            self.journal.push(Record::Submit {
                t: f.st.now().0,
                user: owner,
                label: label.to_string(),
                text: text.to_string(),
                json,
                datasets: new_datasets,
                rejected: rejected.clone(),
                id: Some(j.0),
            });
        }
        self.b.repl.dirty = true;
        self.settle();
        Ok(Submitted {
            id: j.0,
            status: if rejected.is_some() {
                "rejected".into()
            } else {
                "running".into()
            },
            reason: rejected,
        })
    }

    /// A job's view.
    pub fn job_view(&self, id: u32) -> Result<JobView, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let j =
            f.st.get_job(JobId(id))
                .ok_or_else(|| ApiError::not_found(format!("no job {id} (see `mrsched jobs`)")))?;
        let m = &self.b.jobs[id as usize];
        let mut loc = [0u32; 3];
        for t in j.maps.iter().filter(|t| t.status == TaskStatus::Done) {
            let l = t.locality.level().min(2);
            loc[l] += 1;
        }
        Ok(JobView {
            id,
            name: m.name.clone(),
            user: m.user.clone(),
            pool: j.spec.pool_name().to_string(),
            program: m.program.kind().to_string(),
            status: status_name(j.status).to_string(),
            reason: j.reason.clone(),
            maps_done: j.map_counts.done,
            maps: j.maps.len() as u32,
            maps_running: j.map_counts.running,
            reduces_done: j.reduce_counts.done,
            reduces: j.reduces.len() as u32,
            reduces_running: j.reduce_counts.running,
            submitted_s: j.submitted.as_secs_f64(),
            finished_s: j.finish.map(|t| t.as_secs_f64()),
            output: m.output.clone(),
            locality: loc,
            reads: m.reads,
            started_s: j.first_launch.map(|t| t.as_secs_f64()),
            deadline_s: j.spec.deadline.map(|t| t.as_secs_f64()),
            goal_s: j.spec.goal.map(|t| t.as_secs_f64()),
        })
    }

    /// Every job.
    pub fn jobs(&self) -> Result<Vec<JobView>, ApiError> {
        (0..self.b.jobs.len() as u32)
            .map(|i| self.job_view(i))
            .collect()
    }

    /// A user kills a job.
    pub fn kill(&mut self, user: &User, id: u32) -> Result<JobView, ApiError> {
        let now = self.now();
        let owner = self
            .b
            .jobs
            .get(id as usize)
            .map(|m| m.user.clone())
            .ok_or_else(|| ApiError::not_found(format!("no job {id} (see `mrsched jobs`)")))?;
        if owner != user.name && !user.admin {
            return Err(ApiError::forbidden(format!(
                "job {id} belongs to `{owner}`; `{}` may not kill it",
                user.name
            )));
        }
        self.advance(now);
        let reason = format!("killed by {}", user.name);
        let f = self.formed_mut()?;
        f.st.kill_job(JobId(id), &reason)
            .map_err(|e| ApiError::conflict(e.to_string()))?;
        self.journal.push(Record::Killed {
            t: now.0,
            job: id,
            reason,
        });
        self.settle();
        self.commit()?;
        self.job_view(id)
    }

    /// Pools with their running work.
    pub fn pools(&self) -> Result<PoolsView, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        Ok(PoolsView::build(
            &f.st,
            f.sched.as_ref(),
            &self.b.settings.scheduler.label,
        ))
    }

    /// The run's metrics, as the simulator reports them.
    pub fn report(&self) -> Result<RunReport, ApiError> {
        let f = self.formed.as_ref().ok_or_else(not_formed)?;
        let mut stats = f.sched.stats();
        stats.insert("heartbeats".into(), self.b.heartbeat_ns.count() as f64);
        stats.insert(
            "heartbeat_sched_mean_us".into(),
            self.b.heartbeat_ns.mean_ns() / 1e3,
        );
        stats.insert(
            "heartbeat_sched_p99_us".into(),
            self.b.heartbeat_ns.quantile_ns(0.99) as f64 / 1e3,
        );
        stats.insert(
            "heartbeat_total_mean_us".into(),
            self.b.heartbeat_total_ns.mean_ns() / 1e3,
        );
        stats.insert(
            "heartbeat_total_p99_us".into(),
            self.b.heartbeat_total_ns.quantile_ns(0.99) as f64 / 1e3,
        );
        stats.insert("refused_launches".into(), self.b.refused.len() as f64);
        let info = RunInfo {
            scheduler: self.b.settings.scheduler.label.clone(),
            cluster: "live".into(),
            workload: "live".into(),
            seed: self.b.settings.seed,
            samples: self.b.samples.clone(),
            decisions: Some(self.b.decisions.clone()),
            events: 0,
            standalone: None,
            scheduler_stats: stats,
            pools: Some(mrsched_sched::pools::placed_pools(&f.st, f.sched.as_ref())),
        };
        Ok(RunReport::build(&f.st, &info))
    }
}
