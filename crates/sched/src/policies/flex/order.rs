//! Step 1 of FLEX and CIRCUMFLEX: the priority order (seed 000 §3.2).
//!
//! * Minisum weighted response time (and stretch, and lateness, which
//!   differs by a constant): the **Generalized Smith's Rule** (B.1). Each
//!   chain offers the prefix from its head with the smallest ratio of summed
//!   processing time to summed weight; the chain with the smallest such
//!   ratio has that prefix scheduled. With one cell per chain this is
//!   Smith's rule `p_j / w_j`. A cell's weight is the summed weight of the
//!   jobs it completes (in a chain, subjob `(d, k)` completes the k-th job).
//! * Minimax, any non-decreasing penalty and any precedence: **Backwards
//!   Dynamic Programming** (B.2), Lawler's rule. With `P` the total
//!   processing time, among the cells with no unscheduled successor put last
//!   the one whose penalty at `P` is smallest, subtract its time, repeat.
//!   (The OCR of B.2 reads "no predecessor"; a backward pass needs "no
//!   successor", prior-work.md §2.3.) A cell's penalty at `P` is the largest
//!   penalty of the jobs it would complete there, i.e. its jobs that no
//!   later-placed cell serves.
//! * The other minisum metrics (tardy jobs, tardiness, SLA costs): FLEX's
//!   rule is not published (prior-work.md §2.3 [NOT FOUND]); we build several
//!   candidate orders (Smith, earliest due date, weighted modified due date,
//!   Moore-Hodgson), pack each and keep the best under the true metric
//!   (prior-work.md §2.3 [INFERRED]).
//!
//! All orders are topological orders of the precedence. Processing times
//! are `work / S`: the single machine of speed `S` the interim schedule
//! runs on (prior-work.md §2.3).

use super::metric::{Metric, OrderRule};
use super::packing::pack;
use super::problem::{Problem, Schedule};
use std::fmt;

/// Why no schedule could be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// A minisum metric on subjobs whose precedence is not a set of chains
    /// (semi-shared scans): the Generalized Smith's Rule needs chains
    /// (seed 000 §3.3), only minimax metrics can be optimised there.
    NotChains {
        /// The metric asked for.
        metric: String,
    },
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::NotChains { metric } => write!(
                f,
                "the minisum metric `{metric}` needs chain precedence, but jobs read overlapping \
                 sets of datasets (semi-shared scans); only minimax metrics (objective = \"max\") \
                 can be optimised there (seed 000 §3.3)"
            ),
        }
    }
}

impl std::error::Error for SolveError {}

/// Per-cell weights for Smith's rule: each job's Smith weight goes to the
/// cells that complete it (split evenly when several can).
pub fn cell_weights(p: &Problem, metric: &Metric) -> Vec<f64> {
    let mut w = vec![0.0; p.cells.len()];
    for (j, finals) in p.final_cells().iter().enumerate() {
        let wj = metric.smith_weight(&p.jobs[j].terms);
        if finals.is_empty() {
            continue;
        }
        let share = wj / finals.len() as f64;
        for &c in finals {
            w[c as usize] += share;
        }
    }
    w
}

/// Generalized Smith's Rule (B.1) on chains with cell weights `w`.
/// Ties between chains go to the chain listed first; within a chain the
/// longest prefix of minimal ratio is taken.
pub fn generalized_smith(p: &Problem, w: &[f64]) -> Vec<u32> {
    let chains = p.chains();
    let mut head = vec![0usize; chains.len()];
    let prefix = |chain: &[u32], from: usize| -> (f64, usize) {
        let (mut sp, mut sw) = (0.0, 0.0);
        let mut best = (f64::INFINITY, from);
        for (k, &c) in chain.iter().enumerate().skip(from) {
            sp += p.cells[c as usize].work;
            sw += w[c as usize];
            let r = ratio(sp, sw);
            if r <= best.0 {
                best = (r, k);
            }
        }
        best
    };
    let mut best: Vec<(f64, usize)> = chains.iter().map(|ch| prefix(ch, 0)).collect();
    let mut order = Vec::with_capacity(p.cells.len());
    loop {
        let mut pick: Option<usize> = None;
        for (i, ch) in chains.iter().enumerate() {
            if head[i] >= ch.len() {
                continue;
            }
            if pick.is_none_or(|b| best[i].0 < best[b].0) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        let end = best[i].1;
        order.extend_from_slice(&chains[i][head[i]..=end]);
        head[i] = end + 1;
        if head[i] < chains[i].len() {
            best[i] = prefix(&chains[i], head[i]);
        }
    }
    order
}

/// `p / w` with the conventions: no work first (ratio 0), no weight last.
fn ratio(p: f64, w: f64) -> f64 {
    if p <= 0.0 {
        0.0
    } else if w <= 0.0 {
        f64::INFINITY
    } else {
        p / w
    }
}

/// Backwards Dynamic Programming (B.2): Lawler's rule for the minimax
/// `metric` under any precedence. Ties put the later-created cell last.
pub fn backwards_dp(p: &Problem, metric: &Metric) -> Vec<u32> {
    let n = p.cells.len();
    let speed = p.slots.max(1) as f64;
    let mut left = p.total_work() / speed;
    let mut open_succ: Vec<u32> = p.succs.iter().map(|s| s.len() as u32).collect();
    let mut eligible: Vec<u32> = (0..n as u32)
        .filter(|&c| open_succ[c as usize] == 0)
        .collect();
    let mut closed = vec![false; p.jobs.len()];
    let mut rev = Vec::with_capacity(n);
    while !eligible.is_empty() {
        let at = p.now + left.max(0.0);
        let mut best: Option<(f64, usize)> = None;
        for (i, &c) in eligible.iter().enumerate() {
            let cost = p.cells[c as usize]
                .members
                .iter()
                .filter(|&&j| !closed[j as usize])
                .map(|&j| metric.penalty_or_neg_inf(&p.jobs[j as usize].terms, at))
                .fold(f64::NEG_INFINITY, f64::max);
            let better = match best {
                None => true,
                Some((b, bi)) => cost < b || (cost == b && c > eligible[bi]),
            };
            if better {
                best = Some((cost, i));
            }
        }
        let c = eligible.swap_remove(best.expect("eligible is not empty").1);
        rev.push(c);
        left -= p.cells[c as usize].work / speed;
        for &j in &p.cells[c as usize].members {
            closed[j as usize] = true;
        }
        for &q in &p.preds[c as usize] {
            let o = &mut open_succ[q as usize];
            *o -= 1;
            if *o == 0 {
                eligible.push(q);
            }
        }
    }
    rev.reverse();
    rev
}

/// Forward list scheduling on the single machine: repeatedly run the
/// available cell (predecessors done) with the smallest `key(cell, t)`;
/// ties to the lower index.
pub fn dispatch(p: &Problem, mut key: impl FnMut(u32, f64) -> f64) -> Vec<u32> {
    let n = p.cells.len();
    let speed = p.slots.max(1) as f64;
    let mut waiting: Vec<u32> = p.preds.iter().map(|v| v.len() as u32).collect();
    let mut avail: Vec<u32> = (0..n as u32)
        .filter(|&c| waiting[c as usize] == 0)
        .collect();
    let mut t = p.now;
    let mut order = Vec::with_capacity(n);
    while !avail.is_empty() {
        let mut best = (f64::INFINITY, usize::MAX);
        for (i, &c) in avail.iter().enumerate() {
            let k = key(c, t);
            if best.1 == usize::MAX || k < best.0 || (k == best.0 && c < avail[best.1]) {
                best = (k, i);
            }
        }
        let c = avail.swap_remove(best.1);
        order.push(c);
        t += p.cells[c as usize].work / speed;
        for &s in &p.succs[c as usize] {
            let w = &mut waiting[s as usize];
            *w -= 1;
            if *w == 0 {
                avail.push(s);
            }
        }
    }
    order
}

/// Due dates and weights for candidate orders: a cell's own due date is the
/// earliest (first pseudo-) deadline of the jobs it completes; a cell also
/// inherits the earliest due date and largest weight of its successors
/// (work that blocks an urgent job is urgent).
fn effective_due_and_weight(p: &Problem, metric: &Metric) -> (Vec<f64>, Vec<f64>) {
    let n = p.cells.len();
    let mut due = vec![f64::INFINITY; n];
    let mut w = vec![0.0f64; n];
    let factor = metric.first_due_factor();
    for (j, finals) in p.final_cells().iter().enumerate() {
        let t = &p.jobs[j].terms;
        let d = t.deadline.map_or(f64::INFINITY, |d| t.arrival + factor * d);
        let wj = metric.smith_weight(t);
        for &c in finals {
            due[c as usize] = due[c as usize].min(d);
            w[c as usize] = w[c as usize].max(wj);
        }
    }
    // Reverse topological order: successors before predecessors.
    let topo = dispatch(p, |c, _| c as f64);
    for &c in topo.iter().rev() {
        for &s in &p.succs[c as usize] {
            due[c as usize] = due[c as usize].min(due[s as usize]);
            w[c as usize] = w[c as usize].max(w[s as usize]);
        }
    }
    (due, w)
}

/// Candidate orders for the minisum metrics without a published rule.
pub fn candidate_orders(p: &Problem, metric: &Metric) -> Vec<Vec<u32>> {
    let speed = p.slots.max(1) as f64;
    let cw = cell_weights(p, metric);
    let mut out = Vec::new();
    if p.is_chains() {
        out.push(generalized_smith(p, &cw));
    }
    let (due, w) = effective_due_and_weight(p, metric);
    // Earliest due date.
    let edd = dispatch(p, |c, _| due[c as usize]);
    // Weighted modified due date (tardiness): max(p, d - t) / w.
    out.push(dispatch(p, |c, t| {
        let pc = p.cells[c as usize].work / speed;
        let wc = w[c as usize];
        if wc <= 0.0 {
            f64::INFINITY
        } else {
            pc.max(due[c as usize] - t) / wc
        }
    }));
    out.push(moore_hodgson(p, &edd, &due, &cw));
    out.push(edd);
    out
}

/// Moore-Hodgson on an EDD sequence (tardy jobs): whenever a completing
/// cell is late, move the on-time completing cell with the largest
/// processing time per weight (with its scheduled descendants) to the end.
fn moore_hodgson(p: &Problem, edd: &[u32], due: &[f64], w: &[f64]) -> Vec<u32> {
    let speed = p.slots.max(1) as f64;
    let pt = |c: u32| p.cells[c as usize].work / speed;
    let mut on_time: Vec<u32> = Vec::new();
    let mut late: Vec<u32> = Vec::new();
    let mut t = p.now;
    for &c in edd {
        on_time.push(c);
        t += pt(c);
        if w[c as usize] > 0.0 && t > due[c as usize] + 1e-9 {
            let victim = on_time
                .iter()
                .copied()
                .filter(|&x| w[x as usize] > 0.0)
                .max_by(|&a, &b| {
                    (pt(a) / w[a as usize])
                        .total_cmp(&(pt(b) / w[b as usize]))
                        .then(b.cmp(&a))
                })
                .expect("c itself qualifies");
            let mut drop = vec![false; p.cells.len()];
            drop[victim as usize] = true;
            let mut stack = p.succs[victim as usize].clone();
            while let Some(s) = stack.pop() {
                if !drop[s as usize] {
                    drop[s as usize] = true;
                    stack.extend_from_slice(&p.succs[s as usize]);
                }
            }
            late.extend(on_time.iter().copied().filter(|&x| drop[x as usize]));
            on_time.retain(|&x| !drop[x as usize]);
            t = p.now + on_time.iter().map(|&x| pt(x)).sum::<f64>();
        }
    }
    // Late cells keep their EDD (topological) order.
    let pos: Vec<usize> = {
        let mut v = vec![0; p.cells.len()];
        for (i, &c) in edd.iter().enumerate() {
            v[c as usize] = i;
        }
        v
    };
    late.sort_by_key(|&c| pos[c as usize]);
    on_time.extend(late);
    on_time
}

/// Order and pack: the whole allocation step for `metric`.
pub fn solve(p: &Problem, metric: &Metric) -> Result<Schedule, SolveError> {
    let not_chains = || SolveError::NotChains {
        metric: metric.name(),
    };
    match metric.order_rule() {
        OrderRule::Smith => {
            if !p.is_chains() {
                return Err(not_chains());
            }
            let w = cell_weights(p, metric);
            Ok(pack(p, &generalized_smith(p, &w)))
        }
        OrderRule::Lawler => Ok(pack(p, &backwards_dp(p, metric))),
        OrderRule::Candidates => {
            if !p.is_chains() {
                return Err(not_chains());
            }
            let terms = p.terms();
            let mut best: Option<(f64, Schedule)> = None;
            for order in candidate_orders(p, metric) {
                let s = pack(p, &order);
                let v = metric.evaluate(&terms, &s.job_end);
                if best.as_ref().is_none_or(|(b, _)| v < *b - 1e-9) {
                    best = Some((v, s));
                }
            }
            Ok(best.map(|b| b.1).unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::flex::metric::{JobTerms, MetricKind, Objective};
    use crate::policies::flex::problem::PlanJob;

    fn pj(arrival: f64, weight: f64, deadline: Option<f64>) -> PlanJob {
        PlanJob {
            terms: JobTerms {
                arrival,
                weight,
                standalone: 1.0,
                deadline,
            },
            min: 0,
            max: u32::MAX,
        }
    }

    /// Single-machine value of an order (S = 1): sum or max of penalties.
    fn single_machine(p: &Problem, order: &[u32], m: &Metric) -> f64 {
        let mut t = p.now;
        let mut end = vec![0.0; p.cells.len()];
        for &c in order {
            t += p.cells[c as usize].work / p.slots as f64;
            end[c as usize] = t;
        }
        let mut job_end = vec![p.now; p.jobs.len()];
        for (c, cell) in p.cells.iter().enumerate() {
            for &j in &cell.members {
                job_end[j as usize] = f64::max(job_end[j as usize], end[c]);
            }
        }
        m.evaluate(&p.terms(), &job_end)
    }

    #[test]
    fn smith_rule_by_hand() {
        // p = 3, 1, 2; w = 1, 1, 4: ratios 3, 1, 0.5 -> order 2, 1, 0.
        let p = Problem::independent(
            0.0,
            1,
            vec![pj(0.0, 1.0, None), pj(0.0, 1.0, None), pj(0.0, 4.0, None)],
            vec![(3.0, vec![0]), (1.0, vec![1]), (2.0, vec![2])],
        );
        let mut m = Metric::avg_response_time();
        m.weighted = true;
        let w = cell_weights(&p, &m);
        assert_eq!(w, vec![1.0, 1.0, 4.0]);
        assert_eq!(generalized_smith(&p, &w), vec![2, 1, 0]);
    }

    #[test]
    fn generalized_smith_takes_chain_prefixes() {
        // Chain A: a1 (p 4, w 0) then a2 (p 1, w 5): prefix ratio 5/5 = 1.
        // Chain B: b1 (p 3, w 2): ratio 1.5. Best: a1, a2 then b1, although
        // a1 alone (ratio infinite) would come last under plain Smith.
        let mut p = Problem::independent(
            0.0,
            1,
            vec![pj(0.0, 5.0, None), pj(0.0, 2.0, None)],
            vec![(4.0, vec![0]), (1.0, vec![0]), (3.0, vec![1])],
        );
        p.add_edge(0, 1);
        let w = vec![0.0, 5.0, 2.0];
        assert_eq!(generalized_smith(&p, &w), vec![0, 1, 2]);
        // Make chain B better: ratio 0.5.
        let w = vec![0.0, 5.0, 6.0];
        assert_eq!(generalized_smith(&p, &w), vec![2, 0, 1]);
    }

    #[test]
    fn lawler_by_hand_maximum_lateness() {
        // Jobs (p, due): (2, 2), (1, 5), (3, 4); total 6. Last: the job with
        // the smallest lateness at 6: job 1 (6-5 = 1). Then P = 5: job 0
        // (5-2 = 3) or job 2 (5-4 = 1): job 2. Order 0, 2, 1; Lmax = 1.
        let p = Problem::independent(
            0.0,
            1,
            vec![
                pj(0.0, 1.0, Some(2.0)),
                pj(0.0, 1.0, Some(5.0)),
                pj(0.0, 1.0, Some(4.0)),
            ],
            vec![(2.0, vec![0]), (1.0, vec![1]), (3.0, vec![2])],
        );
        let m = Metric::new(MetricKind::Lateness, Objective::Max);
        let o = backwards_dp(&p, &m);
        assert_eq!(o, vec![0, 2, 1]);
        assert_eq!(single_machine(&p, &o, &m), 1.0);
    }

    #[test]
    fn solve_refuses_minisum_on_non_chains() {
        let mut p = Problem::independent(
            0.0,
            2,
            vec![pj(0.0, 1.0, None), pj(0.0, 1.0, None)],
            vec![(1.0, vec![0, 1]), (1.0, vec![0]), (1.0, vec![1])],
        );
        p.add_edge(0, 1);
        p.add_edge(0, 2);
        let e = solve(&p, &Metric::avg_response_time()).unwrap_err();
        assert!(e.to_string().contains("semi-shared"), "{e}");
        assert!(solve(&p, &Metric::max_stretch()).is_ok());
    }

    #[test]
    fn candidates_beat_or_match_each_rule_for_tardy_jobs() {
        // Moore-Hodgson's classic instance: EDD has 2 tardy, optimum 1.
        // (p, d): (1, 2), (3, 3), (2, 4): EDD completes at 1, 4, 6 -> jobs 1
        // and 2 late; dropping job 1 (longest) gives 1, 3 -> one late.
        let p = Problem::independent(
            0.0,
            1,
            vec![
                pj(0.0, 1.0, Some(2.0)),
                pj(0.0, 1.0, Some(3.0)),
                pj(0.0, 1.0, Some(4.0)),
            ],
            vec![(1.0, vec![0]), (3.0, vec![1]), (2.0, vec![2])],
        );
        let m = Metric::new(MetricKind::TardyJobs, Objective::Sum);
        let s = solve(&p, &m).unwrap();
        assert_eq!(m.evaluate(&p.terms(), &s.job_end), 1.0);
    }

    /// Random chains (cyclic piggybacking shaped: cell k of a chain serves
    /// jobs k.. of that chain) with random work and weights.
    fn random_chain_problem(seed: u64, dag: bool) -> Problem {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |m: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % m
        };
        let chains = 1 + next(3) as usize;
        let mut jobs = Vec::new();
        let mut cells = Vec::new();
        let mut edges = Vec::new();
        for _ in 0..chains {
            let k = 1 + next(3) as usize;
            let first_job = jobs.len() as u32;
            for _ in 0..k {
                jobs.push(pj(
                    next(5) as f64,
                    1.0 + next(4) as f64,
                    Some(1.0 + next(12) as f64),
                ));
            }
            let first_cell = cells.len();
            for i in 0..k {
                let members: Vec<u32> = (first_job + i as u32..first_job + k as u32).collect();
                cells.push((1.0 + next(6) as f64, members));
                if i > 0 {
                    edges.push((first_cell + i - 1, first_cell + i));
                }
            }
        }
        if dag && cells.len() >= 3 {
            // An extra cross edge makes a general DAG (only for minimax).
            edges.push((0, cells.len() - 1));
        }
        let mut p = Problem::independent(0.0, 1, jobs, cells);
        for (a, b) in edges {
            if !p.succs[a].contains(&(b as u32)) {
                p.add_edge(a, b);
            }
        }
        p
    }

    #[test]
    fn generalized_smith_matches_brute_force() {
        for seed in 0..300 {
            let p = random_chain_problem(seed, false);
            for stretch in [false, true] {
                let mut m = if stretch {
                    Metric::avg_stretch()
                } else {
                    Metric::avg_response_time()
                };
                m.weighted = true;
                let o = generalized_smith(&p, &cell_weights(&p, &m));
                let got = single_machine(&p, &o, &m);
                let best = crate::policies::flex::tests::topo_orders(&p)
                    .iter()
                    .map(|o| single_machine(&p, o, &m))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    (got - best).abs() < 1e-9,
                    "seed {seed}: GSR {got} vs brute force {best}"
                );
            }
        }
    }

    #[test]
    fn backwards_dp_matches_brute_force() {
        let kinds = [
            MetricKind::ResponseTime,
            MetricKind::Stretch,
            MetricKind::Lateness,
            MetricKind::Tardiness,
            MetricKind::TardyJobs,
        ];
        for seed in 0..300 {
            let p = random_chain_problem(seed, seed % 2 == 0);
            for k in kinds {
                let mut m = Metric::new(k, Objective::Max);
                m.weighted = seed % 3 == 0;
                let o = backwards_dp(&p, &m);
                let got = single_machine(&p, &o, &m);
                let best = crate::policies::flex::tests::topo_orders(&p)
                    .iter()
                    .map(|o| single_machine(&p, o, &m))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    (got - best).abs() < 1e-9,
                    "seed {seed} {k:?}: BDP {got} vs brute force {best}"
                );
            }
        }
    }
}
