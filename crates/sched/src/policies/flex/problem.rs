//! The allocation problem FLEX and CIRCUMFLEX solve at every epoch, and the
//! schedule they produce (seed 000 Appendix A.3-A.4).
//!
//! `S` slots; jobs with metric terms and minimum / maximum slots; subjobs
//! ("cells": for FLEX one per job, for CIRCUMFLEX one per cyclic
//! piggybacking subjob, for BATCH one per batch) with remaining work in
//! slot-seconds, the jobs they serve, and precedence between them. A job
//! completes when the last cell it belongs to completes. Speedup is linear
//! between a cell's minimum and maximum slots (prior-work.md §2.1).

use super::metric::JobTerms;
use crate::share::{fair_shares, Claim};

/// A job as the allocation layer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanJob {
    /// Metric terms (arrival, weight, time alone, deadline).
    pub terms: JobTerms,
    /// Minimum slots (FAIR / FLEX guarantee).
    pub min: u32,
    /// Maximum slots.
    pub max: u32,
}

/// A subjob: remaining work shared by a set of jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Indices into [`Problem::jobs`] of the jobs this work serves, sorted.
    pub members: Vec<u32>,
    /// Remaining work, slot-seconds.
    pub work: f64,
    /// Minimum slots: the largest (normalised) minimum of its jobs.
    pub min: u32,
    /// Maximum slots: the smallest maximum of its jobs, and no more than
    /// the cell's remaining tasks.
    pub max: u32,
    /// The dataset of its first block (statistics), if it reads data.
    pub dataset: Option<u32>,
    /// Blocks (tasks) in the cell; 0 when the work is fluid.
    pub blocks: u32,
}

/// One allocation problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problem {
    /// The current time, seconds.
    pub now: f64,
    /// Slots `S`.
    pub slots: u32,
    /// Jobs.
    pub jobs: Vec<PlanJob>,
    /// Cells.
    pub cells: Vec<Cell>,
    /// Immediate predecessors of each cell (Hasse diagram).
    pub preds: Vec<Vec<u32>>,
    /// Immediate successors of each cell.
    pub succs: Vec<Vec<u32>>,
}

impl Problem {
    /// A problem with no precedence: one cell per `(work, members)`.
    /// Cell bounds come from the members' bounds (see [`Problem::set_bounds`]).
    pub fn independent(
        now: f64,
        slots: u32,
        jobs: Vec<PlanJob>,
        cells: Vec<(f64, Vec<u32>)>,
    ) -> Problem {
        let n = cells.len();
        let mut p = Problem {
            now,
            slots,
            jobs,
            cells: cells
                .into_iter()
                .map(|(work, members)| Cell {
                    members,
                    work,
                    min: 0,
                    max: u32::MAX,
                    dataset: None,
                    blocks: 0,
                })
                .collect(),
            preds: vec![Vec::new(); n],
            succs: vec![Vec::new(); n],
        };
        p.set_bounds();
        p
    }

    /// Add the precedence `a` before `b`.
    pub fn add_edge(&mut self, a: usize, b: usize) {
        self.succs[a].push(b as u32);
        self.preds[b].push(a as u32);
    }

    /// Metric terms of every job.
    pub fn terms(&self) -> Vec<JobTerms> {
        self.jobs.iter().map(|j| j.terms).collect()
    }

    /// Total remaining work.
    pub fn total_work(&self) -> f64 {
        self.cells.iter().map(|c| c.work).sum()
    }

    /// Whether the precedence is a set of disjoint chains (what the
    /// Generalized Smith's Rule needs, seed 000 §3.3).
    pub fn is_chains(&self) -> bool {
        self.preds.iter().all(|p| p.len() <= 1) && self.succs.iter().all(|s| s.len() <= 1)
    }

    /// The chains, each in precedence order, in order of their first cell
    /// (only meaningful when [`Problem::is_chains`]).
    pub fn chains(&self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for c in 0..self.cells.len() {
            if self.preds[c].is_empty() {
                let mut chain = vec![c as u32];
                let mut cur = c;
                while let Some(&n) = self.succs[cur].first() {
                    chain.push(n);
                    cur = n as usize;
                }
                out.push(chain);
            }
        }
        out
    }

    /// For every job, the cells that can complete it: its cells with no
    /// successor (transitively) that also serves it. In a chain this is the
    /// single cell whose completion ends the job.
    pub fn final_cells(&self) -> Vec<Vec<u32>> {
        // later[c]: jobs served by some successor of c, built in reverse
        // topological order.
        let n = self.cells.len();
        let mut waiting: Vec<u32> = self.succs.iter().map(|s| s.len() as u32).collect();
        let mut stack: Vec<u32> = (0..n as u32)
            .filter(|&c| waiting[c as usize] == 0)
            .collect();
        let mut later: Vec<Vec<u32>> = vec![Vec::new(); n];
        while let Some(c) = stack.pop() {
            let c = c as usize;
            let mut v: Vec<u32> = Vec::new();
            for &s in &self.succs[c] {
                v.extend_from_slice(&self.cells[s as usize].members);
                v.extend_from_slice(&later[s as usize]);
            }
            v.sort_unstable();
            v.dedup();
            later[c] = v;
            for &q in &self.preds[c] {
                let w = &mut waiting[q as usize];
                *w -= 1;
                if *w == 0 {
                    stack.push(q);
                }
            }
        }
        let mut out = vec![Vec::new(); self.jobs.len()];
        for (c, cell) in self.cells.iter().enumerate() {
            for &j in &cell.members {
                if later[c].binary_search(&j).is_err() {
                    out[j as usize].push(c as u32);
                }
            }
        }
        out
    }

    /// Normalise the jobs' minima to fit `S` and derive each cell's bounds:
    /// minimum = the largest minimum of its jobs, maximum = the smallest
    /// maximum of its jobs (seed 000 A.1), capped by its block count and by
    /// `S`, and never below the minimum or below 1.
    pub fn set_bounds(&mut self) {
        let mins: Vec<u32> = self.jobs.iter().map(|j| j.min).collect();
        let mins = normalize_minima(&mins, self.slots);
        for (j, m) in self.jobs.iter_mut().zip(mins) {
            j.min = m;
        }
        for cell in &mut self.cells {
            let mut lo = 0u32;
            let mut hi = self.slots.max(1);
            for &j in &cell.members {
                let pj = &self.jobs[j as usize];
                lo = lo.max(pj.min);
                hi = hi.min(pj.max.max(1));
            }
            if cell.blocks > 0 {
                hi = hi.min(cell.blocks);
            }
            let hi = hi.max(1);
            cell.max = hi;
            cell.min = lo.min(hi);
        }
    }

    /// Check the invariants every builder must keep (tests, debugging).
    pub fn check(&self) -> Result<(), String> {
        if self.preds.len() != self.cells.len() || self.succs.len() != self.cells.len() {
            return Err("precedence lists do not match the cells".into());
        }
        for (c, cell) in self.cells.iter().enumerate() {
            if !(cell.work.is_finite() && cell.work >= 0.0) {
                return Err(format!("cell {c} has work {}", cell.work));
            }
            if cell.members.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("cell {c} members are not sorted and unique"));
            }
            if cell.members.iter().any(|&j| j as usize >= self.jobs.len()) {
                return Err(format!("cell {c} names an unknown job"));
            }
            if cell.min > cell.max {
                return Err(format!("cell {c} min {} > max {}", cell.min, cell.max));
            }
        }
        Ok(())
    }
}

/// Scale minima down proportionally when they sum to more than `slots`
/// (HFS's rule, prior-work.md §2.5, via [`fair_shares`]), rounding by
/// largest remainder so the result is integral and sums to at most `slots`.
pub fn normalize_minima(mins: &[u32], slots: u32) -> Vec<u32> {
    let total: u64 = mins.iter().map(|&m| m as u64).sum();
    if total <= slots as u64 {
        return mins.to_vec();
    }
    let claims: Vec<Claim> = mins
        .iter()
        .map(|&m| Claim {
            demand: m as f64,
            min: m as f64,
            weight: 1.0,
        })
        .collect();
    let scaled = fair_shares(&claims, slots as f64);
    let mut out: Vec<u32> = scaled.iter().map(|x| x.floor() as u32).collect();
    let used: u32 = out.iter().sum();
    let mut rest = slots.saturating_sub(used);
    let mut order: Vec<usize> = (0..mins.len()).collect();
    // Largest remainder first; ties to the earlier job.
    order.sort_by(|&a, &b| {
        let ra = scaled[a] - scaled[a].floor();
        let rb = scaled[b] - scaled[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for i in order {
        if rest == 0 {
            break;
        }
        if out[i] < mins[i] {
            out[i] += 1;
            rest -= 1;
        }
    }
    out
}

/// One interval of a malleable schedule: slots per cell from `start` to
/// `end`.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
    /// `(cell, slots)` with slots > 0, in priority order.
    pub alloc: Vec<(u32, u32)>,
}

/// A malleable schedule (the output of Ready List Malleable Packing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    /// The priority order the packing used (a topological order).
    pub order: Vec<u32>,
    /// Consecutive intervals.
    pub intervals: Vec<Interval>,
    /// Completion time of every cell (infinite if it can never run).
    pub cell_end: Vec<f64>,
    /// Completion time of every job.
    pub job_end: Vec<f64>,
}

impl Schedule {
    /// The allocation of the first interval: what the assignment layer
    /// honours until the next epoch (seed 000 A.4).
    pub fn first_allocation(&self) -> &[(u32, u32)] {
        self.intervals.first().map_or(&[], |i| i.alloc.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pj(min: u32, max: u32) -> PlanJob {
        PlanJob {
            terms: JobTerms {
                arrival: 0.0,
                weight: 1.0,
                standalone: 1.0,
                deadline: None,
            },
            min,
            max,
        }
    }

    #[test]
    fn minima_are_normalised_by_largest_remainder() {
        assert_eq!(normalize_minima(&[2, 3], 10), vec![2, 3]);
        // 5 + 5 + 2 = 12 > 10: scaled 4.17, 4.17, 1.67 -> 4, 4, 2.
        assert_eq!(normalize_minima(&[5, 5, 2], 10), vec![4, 4, 2]);
        let v = normalize_minima(&[7, 7, 7], 10);
        assert_eq!(v.iter().sum::<u32>(), 10);
        assert!(v.iter().all(|&x| x == 3 || x == 4));
    }

    #[test]
    fn cell_bounds_come_from_members() {
        let mut p = Problem::independent(
            0.0,
            10,
            vec![pj(2, 8), pj(4, 6), pj(0, 3)],
            vec![(5.0, vec![0, 1]), (5.0, vec![1, 2]), (5.0, vec![2])],
        );
        assert_eq!((p.cells[0].min, p.cells[0].max), (4, 6));
        // Member minimum 4 above member maximum 3: clamped.
        assert_eq!((p.cells[1].min, p.cells[1].max), (3, 3));
        assert_eq!((p.cells[2].min, p.cells[2].max), (0, 3));
        p.cells[0].blocks = 2;
        p.set_bounds();
        assert_eq!((p.cells[0].min, p.cells[0].max), (2, 2));
        assert!(p.check().is_ok());
    }

    #[test]
    fn chains_and_final_cells() {
        let mut p = Problem::independent(
            0.0,
            4,
            vec![pj(0, 4), pj(0, 4)],
            vec![(1.0, vec![0, 1]), (1.0, vec![1])],
        );
        p.add_edge(0, 1);
        assert!(p.is_chains());
        assert_eq!(p.chains(), vec![vec![0, 1]]);
        assert_eq!(p.final_cells(), vec![vec![0], vec![1]]);
    }
}
