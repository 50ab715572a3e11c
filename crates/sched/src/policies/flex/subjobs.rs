//! From remaining scan work to subjobs (seed 000 §2.2, §3.1, Figures 3-4).
//!
//! The remaining work is given as *atoms*: a block (or, in the fluid model
//! of the experiments, a piece of a dataset) and the jobs that still need
//! it, i.e. whose per-block "scanned" bit is off. How atoms become subjobs
//! ("cells") depends on how scans are shared:
//!
//! * **none** (FLEX): every job scans for itself; one cell per job, the sum
//!   of its own per-block work.
//! * **cyclic** (CIRCUMFLEX): one physical scan of a block serves every job
//!   that still needs it, so blocks with the same set of needing jobs form
//!   one subjob: the cells of the Venn partition of the remaining work. For
//!   jobs reading one dataset each the sets are nested (each scan since a
//!   job arrived served it and every earlier job), and the cells of dataset
//!   `d` are exactly the paper's subjobs `(d, 1) ... (d, K_d)` with
//!   concurrency `K_d - k + 1`. Precedence: a cell whose job set strictly
//!   contains another's comes first ("from more overlapped to less
//!   overlapped", the interchange argument of §3.1 and §3.3); for nested
//!   sets this is the chain `(d, 1) < (d, 2) < ...`.
//! * **batch** (BATCH): jobs share scans only within their batch; one cell
//!   per batch, no precedence.
//!
//! A cell's work per atom is one attempt: the task overhead, the longest
//! scan among the sharing jobs (the scan is paid once: `f` of the work) and
//! every sharing job's compute part (`1 - f` each), the simulator's cost of
//! a shared attempt.

use super::problem::{Cell, PlanJob, Problem};
use rustc_hash::FxHashMap;
use serde::Deserialize;

/// How jobs reading the same data share scans.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// No sharing (FLEX).
    None,
    /// Cyclic piggybacking (CIRCUMFLEX).
    Cyclic,
    /// Batches released at window ends (BATCH).
    Batch,
}

/// One job's need of an atom: its scan part (shared) and compute part (its
/// own), slot-seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Need {
    /// Index of the job in the problem's job list.
    pub job: u32,
    /// Reading the data.
    pub scan: f64,
    /// Running the job's map function on it.
    pub compute: f64,
}

/// Builds a [`Problem`]'s cells from atoms.
pub struct Decomposer {
    sharing: Sharing,
    overhead: f64,
    count_blocks: bool,
    batch_of: Vec<u32>,
    index: FxHashMap<Box<[u32]>, u32>,
    cells: Vec<Cell>,
    cell_atoms: Option<Vec<Vec<u32>>>,
    key: Vec<u32>,
    group: Vec<Need>,
}

/// The cells built, with the atoms each contains when tracked.
pub struct Decomposition {
    /// The problem.
    pub problem: Problem,
    /// Atoms of each cell (empty unless tracking was asked for).
    pub cell_atoms: Vec<Vec<u32>>,
}

impl Decomposer {
    /// A decomposer for `sharing`; `overhead` is the per-attempt overhead in
    /// seconds; `count_blocks` caps each cell's slots by its atom count
    /// (atoms are tasks; false in the fluid model).
    pub fn new(sharing: Sharing, overhead: f64, count_blocks: bool) -> Decomposer {
        Decomposer {
            sharing,
            overhead,
            count_blocks,
            batch_of: Vec::new(),
            index: FxHashMap::default(),
            cells: Vec::new(),
            cell_atoms: None,
            key: Vec::new(),
            group: Vec::new(),
        }
    }

    /// Batch number of every job (by job index), for [`Sharing::Batch`].
    pub fn with_batches(mut self, batch_of: Vec<u32>) -> Decomposer {
        self.batch_of = batch_of;
        self
    }

    /// Remember which atoms each cell holds.
    pub fn track_atoms(mut self) -> Decomposer {
        self.cell_atoms = Some(Vec::new());
        self
    }

    /// Add atom `atom` of `dataset`: `needs` lists every job that still
    /// needs it, sorted by job; `left` is the fraction of its work still to
    /// do (1 unless an attempt on it is under way).
    pub fn add(&mut self, atom: u32, dataset: Option<u32>, needs: &[Need], left: f64) {
        match self.sharing {
            Sharing::None => {
                for n in needs {
                    let w = self.overhead + n.scan + n.compute;
                    self.key.clear();
                    self.key.push(n.job);
                    self.push(atom, dataset, w * left);
                }
            }
            Sharing::Cyclic => {
                if needs.is_empty() {
                    return;
                }
                self.key.clear();
                self.key.extend(needs.iter().map(|n| n.job));
                let w = self.shared_work(needs);
                self.push(atom, dataset, w * left);
            }
            Sharing::Batch => {
                let mut g = std::mem::take(&mut self.group);
                g.clear();
                g.extend_from_slice(needs);
                let batch_of = std::mem::take(&mut self.batch_of);
                let b = |j: u32| batch_of.get(j as usize).copied().unwrap_or(j);
                g.sort_by_key(|n| (b(n.job), n.job));
                let mut i = 0;
                while i < g.len() {
                    let bi = b(g[i].job);
                    let mut k = i;
                    while k < g.len() && b(g[k].job) == bi {
                        k += 1;
                    }
                    self.key.clear();
                    self.key.extend(g[i..k].iter().map(|n| n.job));
                    let w = self.shared_work(&g[i..k]);
                    self.push(atom, dataset, w * left);
                    i = k;
                }
                self.group = g;
                self.batch_of = batch_of;
            }
        }
    }

    fn shared_work(&self, needs: &[Need]) -> f64 {
        let scan = needs.iter().map(|n| n.scan).fold(0.0, f64::max);
        let compute: f64 = needs.iter().map(|n| n.compute).sum();
        self.overhead + scan + compute
    }

    fn push(&mut self, atom: u32, dataset: Option<u32>, work: f64) {
        let c = match self.index.get(self.key.as_slice()) {
            Some(&c) => c,
            None => {
                let c = self.cells.len() as u32;
                self.index.insert(self.key.clone().into_boxed_slice(), c);
                self.cells.push(Cell {
                    members: self.key.clone(),
                    work: 0.0,
                    min: 0,
                    max: u32::MAX,
                    dataset,
                    blocks: 0,
                });
                if let Some(a) = &mut self.cell_atoms {
                    a.push(Vec::new());
                }
                c
            }
        };
        let cell = &mut self.cells[c as usize];
        cell.work += work;
        if self.count_blocks {
            cell.blocks += 1;
        }
        if let Some(a) = &mut self.cell_atoms {
            a[c as usize].push(atom);
        }
    }

    /// The problem: cells, their bounds and (cyclic sharing) precedence.
    pub fn finish(self, now: f64, slots: u32, jobs: Vec<PlanJob>) -> Decomposition {
        let n = self.cells.len();
        let mut p = Problem {
            now,
            slots,
            jobs,
            cells: self.cells,
            preds: vec![Vec::new(); n],
            succs: vec![Vec::new(); n],
        };
        if self.sharing == Sharing::Cyclic {
            for (a, b) in overlap_precedence(&p.cells, p.jobs.len()) {
                p.add_edge(a as usize, b as usize);
            }
        }
        p.set_bounds();
        Decomposition {
            problem: p,
            cell_atoms: self.cell_atoms.unwrap_or_default(),
        }
    }
}

/// Whether sorted `a` strictly contains sorted `b`.
fn strict_superset(a: &[u32], b: &[u32]) -> bool {
    if a.len() <= b.len() {
        return false;
    }
    let mut i = 0;
    for &x in b {
        while i < a.len() && a[i] < x {
            i += 1;
        }
        if i == a.len() || a[i] != x {
            return false;
        }
        i += 1;
    }
    true
}

/// The precedence "more overlapped before less overlapped": `A < B` when
/// A's job set strictly contains B's, reduced to its Hasse diagram (only
/// immediate edges). Edges are listed in order of `(A, B)`.
pub fn overlap_precedence(cells: &[Cell], jobs: usize) -> Vec<(u32, u32)> {
    let mut by_job: Vec<Vec<u32>> = vec![Vec::new(); jobs];
    for (c, cell) in cells.iter().enumerate() {
        for &j in &cell.members {
            by_job[j as usize].push(c as u32);
        }
    }
    // below[a]: every cell strictly contained in a. A superset of b holds
    // b's first job, so only the cells of that job need checking.
    let mut below: Vec<Vec<u32>> = vec![Vec::new(); cells.len()];
    for (b, cell) in cells.iter().enumerate() {
        let Some(&j) = cell.members.first() else {
            continue;
        };
        for &a in &by_job[j as usize] {
            if a as usize != b && strict_superset(&cells[a as usize].members, &cell.members) {
                below[a as usize].push(b as u32);
            }
        }
    }
    let mut edges = Vec::new();
    for (a, bs) in below.iter().enumerate() {
        for &b in bs {
            // Immediate unless some c lies strictly between a and b.
            let between = bs.iter().any(|&c| {
                c != b && strict_superset(&cells[c as usize].members, &cells[b as usize].members)
            });
            if !between {
                edges.push((a as u32, b));
            }
        }
    }
    edges.sort_unstable();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::flex::metric::JobTerms;

    fn jobs(n: usize) -> Vec<PlanJob> {
        (0..n)
            .map(|i| PlanJob {
                terms: JobTerms {
                    arrival: i as f64,
                    weight: 1.0,
                    standalone: 1.0,
                    deadline: None,
                },
                min: 0,
                max: u32::MAX,
            })
            .collect()
    }

    fn need(job: u32) -> Need {
        Need {
            job,
            scan: 1.0,
            compute: 0.0,
        }
    }

    /// Figure 3: three jobs part-way through a dataset, a fourth arrives.
    /// Blocks still needed by jobs {0,1,2,3}, {1,2,3}, {2,3}, {3}.
    fn figure3(sharing: Sharing) -> Decomposition {
        let mut d = Decomposer::new(sharing, 0.0, true).track_atoms();
        let sets: [&[u32]; 4] = [&[0, 1, 2, 3], &[1, 2, 3], &[2, 3], &[3]];
        // 12 blocks: 4 still needed by all, 3 by the last three, 3 by the
        // last two, 2 by the newcomer only; listed out of order.
        let owner = [0, 1, 3, 2, 0, 1, 2, 0, 3, 1, 2, 0];
        for (b, &s) in owner.iter().enumerate() {
            let needs: Vec<Need> = sets[s].iter().map(|&j| need(j)).collect();
            d.add(b as u32, Some(0), &needs, 1.0);
        }
        d.finish(0.0, 4, jobs(4))
    }

    #[test]
    fn figure3_subjobs_form_a_chain() {
        let d = figure3(Sharing::Cyclic);
        let p = &d.problem;
        // Cells in order of first block: {0..3}, {1..3}, {3}, {2,3}.
        let members: Vec<&[u32]> = p.cells.iter().map(|c| c.members.as_slice()).collect();
        assert_eq!(members, vec![&[0, 1, 2, 3][..], &[1, 2, 3], &[3], &[2, 3]]);
        // Concurrency K_d - k + 1 = 4, 3, 2, 1 and one scan per block.
        assert_eq!(
            p.cells.iter().map(|c| c.blocks).collect::<Vec<_>>(),
            vec![4, 3, 2, 3]
        );
        assert_eq!(
            p.cells.iter().map(|c| c.work).collect::<Vec<_>>(),
            vec![4.0, 3.0, 2.0, 3.0]
        );
        assert_eq!(d.cell_atoms[0], vec![0, 4, 7, 11]);
        // Chain (d,1) < (d,2) < (d,3) < (d,4).
        assert!(p.is_chains());
        assert_eq!(p.chains(), vec![vec![0, 1, 3, 2]]);
        // Job k completes with subjob (d, k).
        assert_eq!(p.final_cells(), vec![vec![0], vec![1], vec![3], vec![2]]);
    }

    #[test]
    fn without_sharing_each_job_scans_everything_it_needs() {
        let d = figure3(Sharing::None);
        let p = &d.problem;
        assert_eq!(p.cells.len(), 4);
        let work: Vec<f64> = p.cells.iter().map(|c| c.work).collect();
        // Job 0 needs 4 blocks, job 1 7, job 2 10, job 3 12.
        assert_eq!(work, vec![4.0, 7.0, 10.0, 12.0]);
        assert!(p.preds.iter().all(|v| v.is_empty()));
    }

    #[test]
    fn batches_share_only_inside_a_batch() {
        let mut d = Decomposer::new(Sharing::Batch, 0.0, true).with_batches(vec![0, 0, 1]);
        for b in 0..3 {
            d.add(b, Some(0), &[need(0), need(1), need(2)], 1.0);
        }
        let p = d.finish(0.0, 4, jobs(3)).problem;
        let members: Vec<&[u32]> = p.cells.iter().map(|c| c.members.as_slice()).collect();
        assert_eq!(members, vec![&[0, 1][..], &[2]]);
        assert_eq!(p.cells[0].work, 3.0);
    }

    #[test]
    fn shared_work_pays_scan_once_and_compute_per_rider() {
        let mut d = Decomposer::new(Sharing::Cyclic, 1.0, true);
        let n = |job| Need {
            job,
            scan: 6.0,
            compute: 4.0,
        };
        d.add(0, Some(0), &[n(0), n(1), n(2)], 1.0);
        let p = d.finish(0.0, 1, jobs(3)).problem;
        // 1 + 6 + 3 x 4, as the simulator costs a shared attempt.
        assert_eq!(p.cells[0].work, 19.0);
    }

    /// Figure 4: three overlapping arrivals (jobs A, B, C reading
    /// overlapping sets of datasets); A scanned its own part before the
    /// others came, leaving six subsets of the Venn diagram.
    #[test]
    fn figure4_semi_shared_precedence() {
        let (a, b, c) = (0u32, 1u32, 2u32);
        let regions: [&[u32]; 6] = [&[a, b, c], &[a, b], &[a, c], &[b, c], &[b], &[c]];
        let mut d = Decomposer::new(Sharing::Cyclic, 0.0, true);
        for (i, r) in regions.iter().enumerate() {
            // Each region is a dataset of two blocks.
            for blk in 0..2 {
                let needs: Vec<Need> = r.iter().map(|&j| need(j)).collect();
                d.add((2 * i + blk) as u32, Some(i as u32), &needs, 1.0);
            }
        }
        let p = d.finish(0.0, 4, jobs(3)).problem;
        assert_eq!(p.cells.len(), 6);
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (x, s) in p.succs.iter().enumerate() {
            for &y in s {
                edges.push((x as u32, y));
            }
        }
        edges.sort_unstable();
        // ABC before AB, AC, BC; AB before B; BC before B and C; AC before C.
        assert_eq!(
            edges,
            vec![(0, 1), (0, 2), (0, 3), (1, 4), (2, 5), (3, 4), (3, 5)]
        );
        assert!(!p.is_chains());
        // Job B completes with its last cell, B alone.
        assert_eq!(p.final_cells()[b as usize], vec![4]);
    }
}
