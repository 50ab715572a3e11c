//! Job sets: seed 001 §6.1's job set generator "submits the whole set at
//! the beginning", jobs carry release times and weights, and the offline
//! MSJO algorithms plan once with full information. The master checks every
//! file of the set, announces the set to the scheduler
//! (`Scheduler::on_announce`, as the simulator does before the first
//! arrival), and holds each job until its release time, when it is
//! submitted like any other job (the same checks, journal record and
//! admission). The announced specs carry each job's map count, predicted
//! times, weight and release time: all an offline planner reads.
//!
//! A set is accepted only on an idle cluster (no running or held job), so
//! the announced jobs get the next job ids in release order and the plan
//! covers every job that will run. The set is journaled whole (a `JobSet`
//! record, durably, before the answer): after a restart the replay
//! announces it again at the same point of the log and holds the jobs not
//! yet released until their recorded release times. A held job that cannot
//! be submitted at its release (its input was removed meanwhile) still
//! takes its id, as a rejected job with the reason, so later ids never
//! shift.

use super::*;
use crate::journal::HeldRecord;
use crate::proto::{HeldJob, JobSetRequest};
use mrsched_model::limits::num;
use std::sync::Arc;

/// A job waiting for its release.
#[derive(Clone, Debug)]
pub struct Held {
    user: User,
    pub(super) label: String,
    text: String,
    json: bool,
    pub(super) release: Time,
    pub(super) id: u32,
}

impl Core {
    /// Check a job set, announce it to the scheduler and hold its jobs
    /// until their release times. Nothing is held when any file is bad.
    pub fn submit_set(
        &mut self,
        user: &User,
        set: JobSetRequest,
    ) -> Result<Vec<HeldJob>, ApiError> {
        let Some(f) = self.formed.as_ref() else {
            return Err(not_formed());
        };
        if set.jobs.is_empty() {
            return Err(ApiError::bad("a job set needs at least one job"));
        }
        quota::check_queued(&self.b, &f.st, &user.name, set.jobs.len() as u32)?;
        let busy = f.st.active_jobs().len() + self.held.len();
        if busy > 0 {
            return Err(ApiError::conflict(format!(
                "a job set is planned for an idle cluster: {busy} job(s) still running or held"
            )));
        }
        let lim = mrsched_model::Limits::current();
        let now = f.st.now();
        let mut errors = Vec::new();
        let mut checked = Vec::new();
        let mut outputs = BTreeMap::new();
        for e in &set.jobs {
            let src = Source::new(
                e.label.as_str(),
                e.text.as_str(),
                if e.json { Format::Json } else { Format::Toml },
            );
            let jf = match JobFile::parse(&src) {
                Ok(jf) => jf,
                Err(err) => {
                    errors.push(err.to_string());
                    continue;
                }
            };
            if !(e.release_s.is_finite() && e.release_s >= 0.0) {
                errors.push(format!(
                    "{}: release_s: must be zero or more seconds, got {}",
                    e.label, e.release_s
                ));
                continue;
            }
            if e.release_s > lim.max_time_s {
                errors.push(format!(
                    "{}: release_s: {} s is beyond the limit of {} s",
                    e.label,
                    num(e.release_s),
                    lim.max_time_s
                ));
                continue;
            }
            if let Some(u) = &jf.user {
                if *u != user.name && !user.admin {
                    return Err(ApiError::forbidden(format!(
                        "{}: user: `{}` may not submit jobs as `{u}`",
                        e.label, user.name
                    )));
                }
            }
            let mut blocks = 0usize;
            for i in jf.input.names() {
                match self.b.files.get(i) {
                    Some(fm) if fm.writer.is_none() => blocks += fm.blocks.len(),
                    _ => errors.push(
                        src.error("input", format!("no file `{i}` in the block store"))
                            .to_string(),
                    ),
                }
            }
            if self.b.files.contains_key(&jf.output) {
                errors.push(
                    src.error("output", format!("`{}` already exists", jf.output))
                        .to_string(),
                );
            }
            if let Some(other) = outputs.insert(jf.output.clone(), e.label.clone()) {
                errors.push(
                    src.error(
                        "output",
                        format!("`{}` is also the output of {other}", jf.output),
                    )
                    .to_string(),
                );
            }
            checked.push((e, jf, blocks));
        }
        if !errors.is_empty() {
            return Err(ApiError::bad(errors.join("\n")));
        }
        // Release order (stable: the set's order breaks ties) is job id order.
        checked.sort_by(|a, b| a.0.release_s.total_cmp(&b.0.release_s));
        let first = self.b.jobs.len() as u32;
        let mut specs = Vec::new();
        let mut held = Vec::new();
        for (k, (e, jf, blocks)) in checked.into_iter().enumerate() {
            let release = now + Time::from_secs_f64(e.release_s);
            let owner = jf.user.clone().unwrap_or_else(|| user.name.clone());
            let spec = announced_spec(&jf, blocks, release, &owner);
            specs.push(Arc::new(spec));
            held.push(Held {
                user: User {
                    name: jf.user.clone().unwrap_or_else(|| user.name.clone()),
                    admin: user.admin,
                },
                label: e.label.clone(),
                text: e.text.clone(),
                json: e.json,
                release,
                id: first + k as u32,
            });
        }
        self.journal.push(Record::JobSet {
            t: now.0,
            first,
            jobs: held.iter().map(Held::record).collect(),
        });
        let f = self.formed.as_mut().expect("formed");
        f.sched.on_announce(&f.st, &specs);
        let view = held
            .iter()
            .map(|h| HeldJob {
                id: h.id,
                label: h.label.clone(),
                release_s: (h.release - now).as_secs_f64(),
            })
            .collect();
        self.held.extend(held);
        self.release_held(now);
        self.commit()?;
        Ok(view)
    }

    /// Submit the held jobs whose release time has come.
    pub(super) fn release_held(&mut self, now: Time) {
        while self.held.front().is_some_and(|h| h.release <= now) {
            let h = self.held.pop_front().expect("front");
            match self.submit_inner(&h.user, &h.label, &h.text, h.json, None) {
                Ok(s) if s.id != h.id => eprintln!(
                    "mrsched master: job set: {} became job {} instead of the announced {}",
                    h.label, s.id, h.id
                ),
                Ok(_) => {}
                Err(e) => {
                    eprintln!(
                        "mrsched master: job set: {} could not be submitted at its release: {}",
                        h.label, e.message
                    );
                    let reason = format!("not submitted at its release: {}", e.message);
                    self.journal.push(Record::Unreleased {
                        t: now.0,
                        id: h.id,
                        user: h.user.name.clone(),
                        label: h.label.clone(),
                        reason: reason.clone(),
                    });
                    self.placeholder(&h.user.name, &h.label, reason);
                }
            }
            // A job entering the cluster is made durable at once.
            self.b.durable = true;
        }
    }

    /// Replay a journaled job set: announce it to the scheduler again and
    /// hold its jobs that were not released yet (their `Submit` records,
    /// later in the log, release them).
    pub(super) fn replay_set(&mut self, first: u32, jobs: Vec<HeldRecord>) {
        let known = self.b.jobs.len() as u32 > first || self.held.iter().any(|h| h.id >= first);
        if known {
            // The same set twice: applied already.
            return;
        }
        let mut specs = Vec::new();
        for (k, r) in jobs.into_iter().enumerate() {
            let src = Source::new(
                r.label.as_str(),
                r.text.as_str(),
                if r.json { Format::Json } else { Format::Toml },
            );
            let release = Time(r.release);
            if let Ok(jf) = JobFile::parse(&src) {
                let blocks = jf
                    .input
                    .names()
                    .iter()
                    .filter_map(|i| self.b.files.get(*i))
                    .map(|f| f.blocks.len())
                    .sum();
                specs.push(Arc::new(announced_spec(&jf, blocks, release, &r.user)));
            }
            self.held.push_back(Held {
                user: User {
                    name: r.user,
                    admin: r.admin,
                },
                label: r.label,
                text: r.text,
                json: r.json,
                release,
                id: first + k as u32,
            });
        }
        if let Some(f) = self.formed.as_mut() {
            f.sched.on_announce(&f.st, &specs);
        }
    }

    /// A replayed submission of held job `id`: it is no longer held.
    pub(super) fn replay_released(&mut self, id: u32) {
        self.held.retain(|h| h.id != id);
    }

    /// Job `id` did not replay (or could not be submitted at its release):
    /// it takes its id as a rejected job without tasks, so that every later
    /// id is the one the journal gave.
    pub(super) fn placeholder(&mut self, user: &str, label: &str, reason: String) {
        let Some(f) = self.formed.as_mut() else {
            return;
        };
        let mut spec = JobSpec::explicit(label, f.st.now(), &[], &[], 1.0);
        spec.user = user.to_string();
        self.b.jobs.push(JobMeta {
            user: user.to_string(),
            name: label.to_string(),
            program: crate::program::Program::Wordcount,
            output: String::new(),
            reduces: 0,
            blocks: Vec::new(),
            map_out: Vec::new(),
            reduce_out: Vec::new(),
            reads: [0, 0],
            ended: Vec::new(),
        });
        let j = f.st.submit(spec);
        f.driver.deliver(&mut f.st, f.sched.as_mut(), &mut self.b);
        f.driver.decide(
            &mut f.st,
            f.sched.as_mut(),
            &mut self.b,
            j,
            &Admission::Reject(reason),
        );
        self.settle();
    }
}

impl Held {
    fn record(&self) -> HeldRecord {
        HeldRecord {
            user: self.user.name.clone(),
            admin: self.user.admin,
            label: self.label.clone(),
            text: self.text.clone(),
            json: self.json,
            release: self.release.0,
        }
    }
}

/// What the scheduler is told of a held job: its map count, predicted
/// times, weight and release time (all an offline planner reads).
fn announced_spec(jf: &JobFile, blocks: usize, release: Time, owner: &str) -> JobSpec {
    let map_s = jf.map_time_s.unwrap_or(0.0);
    let reduce_s = jf.reduce_time_s.unwrap_or(0.0);
    let mut spec = JobSpec::explicit(
        &jf.display_name(),
        release,
        &vec![map_s; blocks],
        &vec![reduce_s; jf.reduces as usize],
        jf.weight,
    );
    if jf.map_time_s.is_none() {
        spec.maps = vec![
            MapSpec {
                block: None,
                input_mb: 0.0,
                time: None
            };
            blocks
        ]
        .into();
    }
    if jf.reduce_time_s.is_none() {
        spec.reduces = vec![ReduceSpec { time: None }; jf.reduces as usize];
    }
    spec.user = owner.to_string();
    spec
}
