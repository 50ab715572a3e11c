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
//! covers every job that will run. Held jobs are not journaled: a master
//! restart forgets the jobs of a set that were not yet released.

use super::*;
use crate::proto::{HeldJob, JobSetRequest};
use mrsched_model::limits::num;
use std::sync::Arc;

/// A job waiting for its release.
#[derive(Clone, Debug)]
pub struct Held {
    user: User,
    label: String,
    text: String,
    json: bool,
    release: Time,
    id: u32,
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
            spec.user = jf.user.clone().unwrap_or_else(|| user.name.clone());
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
                Err(e) => eprintln!(
                    "mrsched master: job set: {} could not be submitted at its release: {}",
                    h.label, e.message
                ),
            }
        }
    }
}
