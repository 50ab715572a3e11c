//! Ready List Malleable Packing (seed 000 §3.3 and Appendix B.3).
//!
//! Given a priority order that is also a topological order, repeat until
//! every cell is done: give every *ready* cell (all predecessors complete)
//! its minimum, pour the remaining slots into the ready cells in priority
//! order up to their maxima, run until the first ready cell completes, and
//! start a new interval. The result has at most one partially filled cell
//! per interval; lower-priority cells get only their minima.
//!
//! Choices where the pseudo-code is garbled: the slack of line 7 is
//! computed over the ready list `L_1` (cells that are not ready cannot use
//! slots); when the ready cells' minima exceed `S` (possible only when one
//! job's minimum is counted in several ready cells of a semi-shared scan)
//! they are normalised again for that interval; cells finishing at the same
//! instant all leave the ready list at once (the paper removes one per
//! iteration, which only adds zero-length intervals).

use super::problem::{normalize_minima, Interval, Problem, Schedule};

/// Relative tolerance under which remaining work counts as done.
const DONE: f64 = 1e-9;

/// Pack `p` in priority order `order` (every cell exactly once; a
/// topological order of the precedence).
pub fn pack(p: &Problem, order: &[u32]) -> Schedule {
    let n = p.cells.len();
    debug_assert_eq!(order.len(), n, "the order must list every cell");
    let mut rank = vec![u32::MAX; n];
    for (r, &c) in order.iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    let mut remaining: Vec<f64> = p.cells.iter().map(|c| c.work.max(0.0)).collect();
    let mut waiting: Vec<u32> = p.preds.iter().map(|v| v.len() as u32).collect();
    let mut cell_end = vec![f64::INFINITY; n];
    // Ready cells sorted by rank (few at a time: a sorted vector is fastest).
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&c| waiting[c as usize] == 0)
        .collect();
    ready.sort_by_key(|&c| rank[c as usize]);
    let mut t = p.now;
    let mut intervals = Vec::new();
    let mut alloc: Vec<u32> = Vec::new();
    let mut done_now: Vec<u32> = Vec::new();
    loop {
        // Cells with nothing left complete at once.
        done_now.clear();
        for &c in &ready {
            if remaining[c as usize] <= DONE * p.cells[c as usize].work.max(1.0) {
                done_now.push(c);
            }
        }
        if !done_now.is_empty() {
            finish(
                p,
                &done_now,
                t,
                &rank,
                &mut ready,
                &mut waiting,
                &mut cell_end,
                &mut remaining,
            );
            continue;
        }
        if ready.is_empty() {
            break;
        }
        // Minima, then the slack in priority order (B.3 lines 5-12).
        let mins: Vec<u32> = ready.iter().map(|&c| p.cells[c as usize].min).collect();
        let mins = normalize_minima(&mins, p.slots);
        alloc.clear();
        alloc.extend_from_slice(&mins);
        let mut slack = p.slots.saturating_sub(mins.iter().sum());
        for (i, &c) in ready.iter().enumerate() {
            if slack == 0 {
                break;
            }
            let extra = slack.min(p.cells[c as usize].max.saturating_sub(alloc[i]));
            alloc[i] += extra;
            slack -= extra;
        }
        // The first ready cell to complete (ties: priority order).
        let mut dt = f64::INFINITY;
        for (i, &c) in ready.iter().enumerate() {
            if alloc[i] > 0 {
                dt = dt.min(remaining[c as usize] / alloc[i] as f64);
            }
        }
        if !dt.is_finite() {
            // No ready cell can get a slot (S = 0): the rest never completes.
            break;
        }
        let end = t + dt;
        intervals.push(Interval {
            start: t,
            end,
            alloc: ready
                .iter()
                .zip(&alloc)
                .filter(|(_, &a)| a > 0)
                .map(|(&c, &a)| (c, a))
                .collect(),
        });
        done_now.clear();
        for (i, &c) in ready.iter().enumerate() {
            let r = &mut remaining[c as usize];
            *r -= alloc[i] as f64 * dt;
            if alloc[i] > 0 && *r <= DONE * p.cells[c as usize].work.max(1.0) {
                done_now.push(c);
            }
        }
        if done_now.is_empty() {
            // Rounding: the arg-min cell must finish.
            let (i, &c) = ready
                .iter()
                .enumerate()
                .filter(|(i, _)| alloc[*i] > 0)
                .min_by(|a, b| {
                    (remaining[*a.1 as usize] / alloc[a.0] as f64)
                        .total_cmp(&(remaining[*b.1 as usize] / alloc[b.0] as f64))
                })
                .expect("some ready cell has slots");
            let _ = i;
            done_now.push(c);
        }
        t = end;
        finish(
            p,
            &done_now,
            t,
            &rank,
            &mut ready,
            &mut waiting,
            &mut cell_end,
            &mut remaining,
        );
    }
    let mut job_end = vec![p.now; p.jobs.len()];
    for (c, cell) in p.cells.iter().enumerate() {
        for &j in &cell.members {
            let e = &mut job_end[j as usize];
            *e = e.max(cell_end[c]);
        }
    }
    Schedule {
        order: order.to_vec(),
        intervals,
        cell_end,
        job_end,
    }
}

/// Cells `done` complete at `t`: leave the ready list, release successors.
#[allow(clippy::too_many_arguments)]
fn finish(
    p: &Problem,
    done: &[u32],
    t: f64,
    rank: &[u32],
    ready: &mut Vec<u32>,
    waiting: &mut [u32],
    cell_end: &mut [f64],
    remaining: &mut [f64],
) {
    for &c in done {
        cell_end[c as usize] = t;
        remaining[c as usize] = 0.0;
    }
    ready.retain(|c| !done.contains(c));
    for &c in done {
        for &s in &p.succs[c as usize] {
            let w = &mut waiting[s as usize];
            *w -= 1;
            if *w == 0 {
                let pos = ready.partition_point(|&x| rank[x as usize] < rank[s as usize]);
                ready.insert(pos, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::flex::metric::JobTerms;
    use crate::policies::flex::problem::PlanJob;

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

    /// Three independent jobs, S = 10, hand-computed (FLEX, no precedence).
    #[test]
    fn hand_checked_packing() {
        // Job 0: 30 slot-s, [2, 4]; job 1: 40, [1, 10]; job 2: 10, [0, 10].
        let p = Problem::independent(
            0.0,
            10,
            vec![pj(2, 4), pj(1, 10), pj(0, 10)],
            vec![(30.0, vec![0]), (40.0, vec![1]), (10.0, vec![2])],
        );
        let s = pack(&p, &[0, 1, 2]);
        // Interval 1: mins 2,1,0 -> slack 7: job 0 +2 (to 4), job 1 +5 (to 6),
        // job 2 gets 0. Job 0 ends at 30/4 = 7.5 (job 1: 40/6 = 6.67 first!).
        assert_eq!(s.intervals[0].alloc, vec![(0, 4), (1, 6)]);
        let t1 = 40.0 / 6.0;
        assert!((s.intervals[0].end - t1).abs() < 1e-9);
        // Interval 2: job 0 (30 - 4 t1 left) gets 4, job 2 gets 6.
        assert_eq!(s.intervals[1].alloc, vec![(0, 4), (2, 6)]);
        let r0 = 30.0 - 4.0 * t1;
        let t2 = t1 + (r0 / 4.0).min(10.0 / 6.0);
        assert!((s.intervals[1].end - t2).abs() < 1e-9);
        assert!((s.cell_end[0] - 7.5).abs() < 1e-9);
        // Then job 2 alone with 10 slots.
        let r2 = 10.0 - 6.0 * (7.5 - t1);
        assert!((s.cell_end[2] - (7.5 + r2 / 10.0)).abs() < 1e-9);
        assert_eq!(s.job_end, s.cell_end);
    }

    #[test]
    fn chain_precedence_waits_for_predecessors() {
        let mut p = Problem::independent(
            0.0,
            4,
            vec![pj(0, 4), pj(0, 4)],
            vec![(8.0, vec![0, 1]), (4.0, vec![1]), (4.0, vec![0])],
        );
        p.add_edge(0, 1);
        // Priority: the successor first, but it is not ready until cell 0 ends.
        let s = pack(&p, &[0, 2, 1]);
        assert_eq!(s.intervals[0].alloc, vec![(0, 4)]);
        assert!((s.cell_end[0] - 2.0).abs() < 1e-12);
        assert!((s.cell_end[2] - 3.0).abs() < 1e-12);
        assert!((s.cell_end[1] - 4.0).abs() < 1e-12);
        assert_eq!(s.job_end, vec![3.0, 4.0]);
    }

    #[test]
    fn empty_and_zero_work_cells() {
        let p = Problem::independent(5.0, 4, vec![pj(0, 4)], vec![(0.0, vec![0])]);
        let s = pack(&p, &[0]);
        assert!(s.intervals.is_empty());
        assert_eq!(s.cell_end, vec![5.0]);
        let p = Problem::independent(5.0, 0, vec![pj(0, 4)], vec![(1.0, vec![0])]);
        let s = pack(&p, &[0]);
        assert!(s.cell_end[0].is_infinite());
    }
}
