//! The paper's own scheduling model, driven exactly (seed 000 §4).
//!
//! Section 4 studies the algorithms at the level of their model: malleable
//! map-only jobs on `S` slots with linear speedup, each job scanning one
//! dataset of known size, a new schedule "upon each new arrival", "followed
//! precisely until the next arrival". This module is that driver. It keeps,
//! for every job, the fraction of its dataset it still has to scan; at each
//! arrival (BATCH: at each batch release) it turns the remaining work into
//! atoms, builds the subjobs with the same [`Decomposer`] and solves them
//! with the same [`solve`] the cluster scheduler uses, then follows the
//! intervals of the schedule until the next event.
//!
//! Atoms per sharing mode: FLEX, one per job (its remaining fraction);
//! CIRCUMFLEX, the segments between consecutive remaining fractions of a
//! dataset's active jobs (cyclic piggybacking keeps the remaining sets
//! nested, so segment `k` is needed by every job with at least that much
//! left); BATCH, one per batch (its jobs move together). A segment of
//! `a` of dataset `d` (size `s_d` slot-seconds) needed by `n` jobs costs
//! `s_d a (f + (1 - f) n)`: the scan once, each job's compute.

use super::batch::BatchWindows;
use super::metric::{JobTerms, Metric};
use super::order::{solve, SolveError};
use super::problem::{PlanJob, Schedule};
use super::subjobs::{Decomposer, Need, Sharing};

/// Remaining fractions below this are zero (floating-point noise).
const EPS: f64 = 1e-9;

/// A job of the fluid model.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FluidJob {
    /// Arrival, seconds.
    pub arrival: f64,
    /// The dataset it scans.
    pub dataset: u32,
    /// Weight.
    pub weight: f64,
    /// Relative deadline, seconds.
    pub deadline: Option<f64>,
}

/// The model: slots, dataset sizes, scan fraction and the scheme.
#[derive(Clone, Debug)]
pub struct FluidModel {
    /// Map slots `S`.
    pub slots: u32,
    /// Time to scan each dataset alone on one slot (slot-seconds).
    pub sizes: Vec<f64>,
    /// The scan fraction `f` of map work.
    pub scan_fraction: f64,
    /// FLEX, CIRCUMFLEX or BATCH.
    pub sharing: Sharing,
    /// The metric optimised.
    pub metric: Metric,
    /// BATCH window `W`, seconds.
    pub batch_window: f64,
    /// Every job's maximum slots `M_j` (`u32::MAX`: the whole cluster, the
    /// paper's setting).
    pub max_slots: u32,
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FluidRun {
    /// Completion time of every job.
    pub completion: Vec<f64>,
    /// Slot-seconds worked.
    pub work: f64,
    /// Schedules computed.
    pub resolves: u32,
    /// Per dataset: the largest number of concurrent subjobs (CIRCUMFLEX)
    /// or of jobs in one batch (BATCH); 1 for FLEX.
    pub max_concurrency: Vec<u32>,
}

impl FluidRun {
    /// Response times.
    pub fn response(&self, jobs: &[FluidJob]) -> Vec<f64> {
        jobs.iter()
            .zip(&self.completion)
            .map(|(j, c)| c - j.arrival)
            .collect()
    }
}

impl FluidModel {
    /// A job's time alone on the cluster: its dataset on all the slots it
    /// may use, `min(S, M_j)`.
    pub fn standalone(&self, j: &FluidJob) -> f64 {
        self.sizes[j.dataset as usize] / self.slots.min(self.max_slots).max(1) as f64
    }

    fn terms(&self, j: &FluidJob) -> JobTerms {
        JobTerms {
            arrival: j.arrival,
            weight: j.weight,
            standalone: self.standalone(j),
            deadline: j.deadline,
        }
    }

    /// Run `jobs` (sorted by arrival).
    pub fn run(&self, jobs: &[FluidJob]) -> Result<FluidRun, SolveError> {
        let n = jobs.len();
        let windows = BatchWindows {
            window: self.batch_window,
            datasets: self.sizes.len() as u32,
        };
        // When each job becomes visible, and its batch.
        let mut visible: Vec<(f64, usize)> = Vec::with_capacity(n);
        let mut batch = vec![0u32; n];
        {
            let mut ids: rustc_hash::FxHashMap<(u32, i64), u32> = Default::default();
            for (i, j) in jobs.iter().enumerate() {
                if self.sharing == Sharing::Batch {
                    let (k, r) = windows.release(j.dataset, j.arrival);
                    let next = ids.len() as u32;
                    batch[i] = *ids.entry((j.dataset, k)).or_insert(next);
                    visible.push((r, i));
                } else {
                    batch[i] = i as u32;
                    visible.push((j.arrival, i));
                }
            }
        }
        visible.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));

        let mut out = FluidRun {
            completion: vec![f64::INFINITY; n],
            max_concurrency: vec![
                if self.sharing == Sharing::None { 1 } else { 0 };
                self.sizes.len()
            ],
            ..Default::default()
        };
        let mut left = vec![1.0f64; n];
        let mut active: Vec<usize> = Vec::new();
        let mut plan: Option<Plan> = None;
        let mut t = visible.first().map_or(0.0, |v| v.0);
        let mut i = 0;
        while i < visible.len() {
            let te = visible[i].0;
            if let Some(p) = &plan {
                self.follow(p, t, te, &mut left, &mut active, &mut out);
            }
            t = te;
            while i < visible.len() && visible[i].0 == te {
                active.push(visible[i].1);
                i += 1;
            }
            if self.sharing == Sharing::Batch {
                self.note_batches(jobs, &active, &batch, &left, &mut out);
            }
            plan = Some(self.plan(jobs, &active, &batch, &left, t)?);
            out.resolves += 1;
            if self.sharing == Sharing::Cyclic {
                let p = plan.as_ref().expect("just planned");
                let mut per = vec![0u32; self.sizes.len()];
                for d in &p.cell_dataset {
                    per[*d as usize] += 1;
                }
                for (m, c) in out.max_concurrency.iter_mut().zip(per) {
                    *m = (*m).max(c);
                }
            }
        }
        if let Some(p) = &plan {
            self.follow(p, t, f64::INFINITY, &mut left, &mut active, &mut out);
        }
        Ok(out)
    }

    /// Largest batch per dataset: jobs with a full dataset still to scan
    /// that share a batch (just released).
    fn note_batches(
        &self,
        jobs: &[FluidJob],
        active: &[usize],
        batch: &[u32],
        left: &[f64],
        out: &mut FluidRun,
    ) {
        let mut count: rustc_hash::FxHashMap<u32, (u32, u32)> = Default::default();
        for &j in active {
            if left[j] >= 1.0 - EPS {
                let e = count.entry(batch[j]).or_insert((jobs[j].dataset, 0));
                e.1 += 1;
            }
        }
        for (_, (d, c)) in count {
            let m = &mut out.max_concurrency[d as usize];
            *m = (*m).max(c);
        }
    }

    /// Build and solve the allocation problem for the active jobs.
    fn plan(
        &self,
        jobs: &[FluidJob],
        active: &[usize],
        batch: &[u32],
        left: &[f64],
        now: f64,
    ) -> Result<Plan, SolveError> {
        let f = self.scan_fraction;
        let plan_jobs: Vec<PlanJob> = active
            .iter()
            .map(|&j| PlanJob {
                terms: self.terms(&jobs[j]),
                min: 0,
                max: self.max_slots,
            })
            .collect();
        let batches: Vec<u32> = active.iter().map(|&j| batch[j]).collect();
        let mut dec = Decomposer::new(self.sharing, 0.0, false)
            .with_batches(batches)
            .track_atoms();
        let mut amounts: Vec<f64> = Vec::new();
        let mut atom_dataset: Vec<u32> = Vec::new();
        let mut needs: Vec<Need> = Vec::new();
        let need = |local: usize, d: u32, a: f64| {
            let s = self.sizes[d as usize] * a;
            Need {
                job: local as u32,
                scan: f * s,
                compute: (1.0 - f) * s,
            }
        };
        match self.sharing {
            Sharing::None | Sharing::Batch => {
                // One atom per job (BATCH: its batch's cell gathers the jobs,
                // which move together).
                for (local, &j) in active.iter().enumerate() {
                    let d = jobs[j].dataset;
                    let a = left[j];
                    let atom = amounts.len() as u32;
                    amounts.push(a);
                    atom_dataset.push(d);
                    if self.sharing == Sharing::Batch {
                        // Members of a batch form one atom: add it once, at
                        // the first member.
                        let first = active
                            .iter()
                            .position(|&x| batch[x] == batch[j])
                            .expect("j itself");
                        if first != local {
                            continue;
                        }
                        needs.clear();
                        for (l2, &x) in active.iter().enumerate() {
                            if batch[x] == batch[j] {
                                needs.push(need(l2, d, a));
                            }
                        }
                        dec.add(atom, Some(d), &needs, 1.0);
                    } else {
                        dec.add(atom, Some(d), &[need(local, d, a)], 1.0);
                    }
                }
            }
            Sharing::Cyclic => {
                // Per dataset, the segments between consecutive remaining
                // fractions (nested sets, §3.1).
                let mut by_ds: Vec<Vec<(f64, usize)>> = vec![Vec::new(); self.sizes.len()];
                for (local, &j) in active.iter().enumerate() {
                    by_ds[jobs[j].dataset as usize].push((left[j], local));
                }
                for (d, mut list) in by_ds.into_iter().enumerate() {
                    if list.is_empty() {
                        continue;
                    }
                    list.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    let mut prev = 0.0;
                    let mut k = 0;
                    while k < list.len() {
                        let level = list[k].0;
                        // Jobs within EPS of this level share it.
                        let mut e = k;
                        while e < list.len() && list[e].0 <= level + EPS {
                            e += 1;
                        }
                        let a = level - prev;
                        if a > EPS {
                            needs.clear();
                            let mut locals: Vec<usize> = list[k..].iter().map(|x| x.1).collect();
                            locals.sort_unstable();
                            needs.extend(locals.iter().map(|&l| need(l, d as u32, a)));
                            let atom = amounts.len() as u32;
                            amounts.push(a);
                            atom_dataset.push(d as u32);
                            dec.add(atom, Some(d as u32), &needs, 1.0);
                        }
                        prev = level.max(prev);
                        k = e;
                    }
                }
            }
        }
        let decomposition = dec.finish(now, self.slots, plan_jobs);
        let schedule = solve(&decomposition.problem, &self.metric)?;
        let p = decomposition.problem;
        let cell_amount: Vec<f64> = decomposition
            .cell_atoms
            .iter()
            .map(|atoms| atoms.iter().map(|&a| amounts[a as usize]).sum::<f64>())
            .collect();
        let cell_dataset: Vec<u32> = decomposition
            .cell_atoms
            .iter()
            .map(|atoms| atoms.first().map_or(0, |&a| atom_dataset[a as usize]))
            .collect();
        Ok(Plan {
            jobs: active.to_vec(),
            cell_members: p.cells.iter().map(|c| c.members.clone()).collect(),
            cell_work: p.cells.iter().map(|c| c.work).collect(),
            cell_amount,
            cell_dataset,
            schedule,
        })
    }

    /// Follow `plan` from `t0` to `t1`: progress, work, completions.
    fn follow(
        &self,
        plan: &Plan,
        t0: f64,
        t1: f64,
        left: &mut [f64],
        active: &mut Vec<usize>,
        out: &mut FluidRun,
    ) {
        for iv in &plan.schedule.intervals {
            if iv.end <= t0 {
                continue;
            }
            if iv.start >= t1 {
                break;
            }
            let dt = iv.end.min(t1) - iv.start.max(t0);
            if dt <= 0.0 {
                continue;
            }
            for &(c, s) in &iv.alloc {
                let c = c as usize;
                out.work += s as f64 * dt;
                let frac = if plan.cell_work[c] > 0.0 {
                    s as f64 * dt / plan.cell_work[c]
                } else {
                    1.0
                };
                let amount = frac * plan.cell_amount[c];
                for &m in &plan.cell_members[c] {
                    let j = plan.jobs[m as usize];
                    left[j] = (left[j] - amount).max(0.0);
                }
            }
        }
        // Jobs whose last subjob ended by t1 are complete.
        for (local, &j) in plan.jobs.iter().enumerate() {
            let end = plan.schedule.job_end[local];
            if end <= t1 && out.completion[j].is_infinite() {
                out.completion[j] = end;
                left[j] = 0.0;
            }
        }
        active.retain(|&j| out.completion[j].is_infinite());
    }
}

/// A computed schedule and what is needed to follow it.
struct Plan {
    jobs: Vec<usize>,
    cell_members: Vec<Vec<u32>>,
    cell_work: Vec<f64>,
    cell_amount: Vec<f64>,
    cell_dataset: Vec<u32>,
    schedule: Schedule,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(arrival: f64, dataset: u32) -> FluidJob {
        FluidJob {
            arrival,
            dataset,
            weight: 1.0,
            deadline: None,
        }
    }

    fn model(sharing: Sharing, f: f64) -> FluidModel {
        FluidModel {
            slots: 10,
            sizes: vec![100.0, 50.0],
            scan_fraction: f,
            sharing,
            metric: Metric::avg_response_time(),
            batch_window: 20.0,
            max_slots: u32::MAX,
        }
    }

    #[test]
    fn flex_is_preemptive_shortest_remaining_first() {
        // Job 0 (100 slot-s = 10 s on 10 slots) at 0; job 1 (50 = 5 s) at 2:
        // job 1 has less left (5 s vs 8 s) and preempts: ends at 7, job 0 at 15.
        let jobs = [job(0.0, 0), job(2.0, 1)];
        let r = model(Sharing::None, 1.0).run(&jobs).unwrap();
        assert!((r.completion[1] - 7.0).abs() < 1e-9, "{:?}", r.completion);
        assert!((r.completion[0] - 15.0).abs() < 1e-9);
        assert!((r.work - 150.0).abs() < 1e-9);
    }

    #[test]
    fn cyclic_piggybacking_shares_the_rest_of_the_scan() {
        // Two jobs on dataset 0 (10 s alone): at 4 the second piggybacks
        // on the remaining 60%; subjob (d,1) ends at 10 (job 0), then the
        // second scans the 40% it missed: 4 s more, ends at 14.
        let jobs = [job(0.0, 0), job(4.0, 0)];
        let r = model(Sharing::Cyclic, 1.0).run(&jobs).unwrap();
        assert!((r.completion[0] - 10.0).abs() < 1e-9, "{:?}", r.completion);
        assert!((r.completion[1] - 14.0).abs() < 1e-9);
        // One scan plus 40%: 140 slot-s instead of 200.
        assert!((r.work - 140.0).abs() < 1e-9);
        assert_eq!(r.max_concurrency, vec![2, 0]);
        // With f = 0.5 the shared part costs 1.5x: (d,1) has 60 MB-equivalent
        // x 1.5 = 90 slot-s from t = 4 on 10 slots: ends at 4 + 9 = 13.
        let r = model(Sharing::Cyclic, 0.5).run(&jobs).unwrap();
        assert!((r.completion[0] - 13.0).abs() < 1e-9, "{:?}", r.completion);
        assert!((r.completion[1] - 17.0).abs() < 1e-9);
    }

    #[test]
    fn per_job_maxima_run_jobs_side_by_side() {
        let jobs = [job(0.0, 0), job(0.0, 1)];
        let mut m = model(Sharing::None, 1.0);
        m.max_slots = 5;
        let r = m.run(&jobs).unwrap();
        assert!((r.completion[1] - 10.0).abs() < 1e-9, "{:?}", r.completion);
        assert!((r.completion[0] - 20.0).abs() < 1e-9);
        assert_eq!(m.standalone(&jobs[0]), 20.0);
    }

    #[test]
    fn batch_waits_for_the_window_and_scans_once() {
        // W = 20, two datasets: dataset 0 windows end at 20, 40 ...
        let jobs = [job(1.0, 0), job(5.0, 0)];
        let r = model(Sharing::Batch, 1.0).run(&jobs).unwrap();
        assert!((r.completion[0] - 30.0).abs() < 1e-9, "{:?}", r.completion);
        assert!((r.completion[1] - 30.0).abs() < 1e-9);
        assert!((r.work - 100.0).abs() < 1e-9);
        assert_eq!(r.max_concurrency, vec![2, 0]);
    }
}
