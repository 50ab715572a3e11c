//! Guarantees against brute-force optima on tiny instances, feasibility of
//! every plan, and the policy inside a cluster state.

use super::coge::{coge, middle_order, pgc_violations, CogeOptions};
use super::improve::{improve, LsOptions};
use super::instance::{Instance, Schedule};
use super::listsched::{list_schedule, list_schedule_placed, t_mars, Intervals, Placement};
use super::planner::{plan, Algorithm, PlanOptions};
use super::tasklp::{task_relaxation, Cuts, Objective, TaskLpOptions};
use proptest::prelude::*;

/// Best schedule by `objective` over every task order and machine choice
/// (each task starts at max(ready, machine free)): these semi-active
/// schedules include an optimal one.
fn brute_force(inst: &Instance, objective: &dyn Fn(&Schedule) -> f64) -> f64 {
    let n = inst.tasks.len();
    let mut best = f64::INFINITY;
    let mut sch = Schedule {
        start: vec![0.0; n],
        machine: vec![0; n],
    };
    let mut used = vec![false; n];
    let mut e = inst.machine_free.clone();
    fn rec(
        inst: &Instance,
        k: usize,
        used: &mut Vec<bool>,
        e: &mut Vec<f64>,
        sch: &mut Schedule,
        best: &mut f64,
        objective: &dyn Fn(&Schedule) -> f64,
    ) {
        let n = inst.tasks.len();
        if k == n {
            *best = best.min(objective(sch));
            return;
        }
        for t in 0..n {
            if used[t] {
                continue;
            }
            let task = &inst.tasks[t];
            let job = &inst.jobs[task.job];
            let mut ready = task.release;
            if !inst.is_map(t) {
                if job.maps.iter().any(|&u| !used[u]) {
                    continue;
                }
                for &u in &job.maps {
                    ready = ready.max(sch.start[u] + inst.tasks[u].p + inst.tasks[u].delay);
                }
            }
            used[t] = true;
            for m in 0..inst.machines {
                // Symmetric idle machines: try only the first.
                if (0..m).any(|x| e[x] == e[m]) {
                    continue;
                }
                let old = e[m];
                let s = ready.max(old);
                sch.start[t] = s;
                sch.machine[t] = m;
                e[m] = s + task.p;
                rec(inst, k + 1, used, e, sch, best, objective);
                e[m] = old;
            }
            used[t] = false;
        }
    }
    rec(inst, 0, &mut used, &mut e, &mut sch, &mut best, objective);
    best
}

/// A tiny instance: maps shorter than reduces (seed 001 §3.1 assumption).
fn tiny() -> impl Strategy<Value = Instance> {
    let job = (
        0.0..6.0f64,
        1.0..40.0f64,
        prop::collection::vec(1.0..5.0f64, 1..3),
        prop::collection::vec(5.0..9.0f64, 0..2),
        0.0..0.5f64,
    );
    (1usize..3, prop::collection::vec(job, 1..3)).prop_map(|(m, jobs)| {
        let mut inst = Instance::new(m);
        for (r, w, maps, reds, f) in jobs {
            let r = r.round();
            inst.add_job(r, w, &maps, &reds, f);
        }
        inst
    })
}

fn small() -> impl Strategy<Value = Instance> {
    let job = (
        0.0..30.0f64,
        1.0..50.0f64,
        prop::collection::vec(0.5..12.0f64, 0..6),
        prop::collection::vec(0.5..15.0f64, 0..4),
        0.0..1.0f64,
    );
    (
        1usize..5,
        prop::collection::vec(job, 1..6),
        prop::collection::vec(0.0..20.0f64, 4),
    )
        .prop_map(|(m, jobs, free)| {
            let mut inst = Instance::new(m);
            for (r, w, maps, reds, f) in jobs {
                if maps.is_empty() && reds.is_empty() {
                    continue;
                }
                inst.add_job(r, w, &maps, &reds, f);
            }
            for (i, f) in free.iter().take(m).enumerate() {
                inst.machine_free[i] = *f;
            }
            if let Some(j) = inst.jobs.first_mut() {
                j.reduce_ready = 7.0;
            }
            inst
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mars_within_3x_and_lp_below_optimum(inst in tiny()) {
        prop_assume!(inst.tasks.len() <= 6);
        let opt = brute_force(&inst, &|s| s.twjct(&inst));
        let exact = CogeOptions { epsilon: 0.0, ..Default::default() };
        for opts in [exact, CogeOptions::default()] {
            let r = coge(&inst, &opts).unwrap();
            prop_assert!(r.objective <= opt * (1.0 + 1e-6) + 1e-6, "LP {} > OPT {}", r.objective, opt);
            let sch = list_schedule(&inst, &middle_order(&inst, &r.start));
            prop_assert!(sch.check(&inst).is_ok());
            let v = sch.twjct(&inst);
            prop_assert!(v + 1e-6 >= opt);
            prop_assert!(v <= 3.0 * opt + 1e-6, "MarS {} vs OPT {}", v, opt);
        }
    }

    #[test]
    fn t_mars_within_7x_and_task_lp_below_optimum(inst in tiny()) {
        prop_assume!(inst.tasks.len() <= 6);
        let opt = brute_force(&inst, &|s| s.twtct(&inst));
        let r = task_relaxation(&inst, &TaskLpOptions {
            objective: Objective::Tasks, cuts: Cuts::Parallel, epsilon: 0.0, max_rounds: 50, block: 4,
        }).unwrap();
        prop_assert!(r.objective <= opt * (1.0 + 1e-6) + 1e-6, "LP {} > OPT {}", r.objective, opt);
        let c: Vec<f64> = r.start.iter().zip(&inst.tasks).map(|(s, t)| s + t.p).collect();
        for mode in [Intervals::Analysed, Intervals::Packed] {
            let sch = t_mars(&inst, &c, mode);
            prop_assert!(sch.check(&inst).is_ok());
            let v = sch.twtct(&inst);
            prop_assert!(v <= 7.0 * opt + 1e-6, "T-MarS {:?} {} vs OPT {}", mode, v, opt);
        }
    }

    #[test]
    fn lps_stay_below_optimum_when_machines_are_busy(
        inst in tiny(),
        free in prop::collection::vec(0.0..12.0f64, 2),
    ) {
        prop_assume!(inst.tasks.len() <= 6);
        let mut inst = inst;
        for (f, r) in inst.machine_free.iter_mut().zip(&free) {
            *f = r.round();
        }
        let opt = brute_force(&inst, &|s| s.twjct(&inst));
        let r = coge(&inst, &CogeOptions { epsilon: 0.0, ..Default::default() }).unwrap();
        prop_assert!(r.objective <= opt * (1.0 + 1e-6) + 1e-6, "LP {} > OPT {}", r.objective, opt);
        let opt_t = brute_force(&inst, &|s| s.twtct(&inst));
        let t = task_relaxation(&inst, &TaskLpOptions {
            objective: Objective::Tasks, cuts: Cuts::Parallel, epsilon: 0.0, max_rounds: 50, block: 4,
        }).unwrap();
        prop_assert!(t.objective <= opt_t * (1.0 + 1e-6) + 1e-6, "task LP {} > OPT {}", t.objective, opt_t);
        let sch = list_schedule(&inst, &middle_order(&inst, &r.start));
        prop_assert!(sch.check(&inst).is_ok());
    }

    #[test]
    fn every_plan_is_feasible(inst in small()) {
        for a in Algorithm::ALL {
            for intervals in [Intervals::Analysed, Intervals::Packed] {
                let mut o = PlanOptions::new(a);
                o.intervals = intervals;
                o.coge.max_rounds = 4;
                let p = plan(&inst, &o).unwrap();
                if let Err(e) = p.schedule.check(&inst) {
                    prop_assert!(false, "{:?}: {}", a, e);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// MarS+LS starts from MarS's list schedule and accepts strict
    /// improvements only: never worse, always feasible (releases, machine
    /// free times, reduces after their maps plus delays, one task per
    /// machine), and the same plan for the same seed.
    #[test]
    fn local_search_never_loses_to_mars_and_is_deterministic(
        inst in small(),
        seed in 0u64..1_000,
        evaluations in 1usize..300,
    ) {
        let r = coge(&inst, &CogeOptions { max_rounds: 4, ..Default::default() }).unwrap();
        let order = middle_order(&inst, &r.start);
        let mars = list_schedule(&inst, &order).twjct(&inst);
        let opts = LsOptions { evaluations, seed };
        let a = improve(&inst, &order, &opts);
        prop_assert!(a.schedule.check(&inst).is_ok(), "{:?}", a.schedule.check(&inst));
        prop_assert!((a.initial - mars).abs() <= 1e-9 * mars.max(1.0));
        prop_assert!(a.value <= mars + 1e-9 * mars.max(1.0), "LS {} > MarS {}", a.value, mars);
        prop_assert!((a.schedule.twjct(&inst) - a.value).abs() <= 1e-9 * a.value.max(1.0));
        prop_assert!(a.evaluations <= evaluations.max(1));
        // The returned order and rule reproduce the returned schedule.
        prop_assert_eq!(&list_schedule_placed(&inst, &a.order, a.placement), &a.schedule);
        let b = improve(&inst, &order, &opts);
        prop_assert_eq!(&a.order, &b.order);
        prop_assert_eq!(&a.schedule, &b.schedule);
        // A larger budget continues the same search, so it is no worse.
        let c = improve(&inst, &order, &LsOptions { evaluations: evaluations + 100, seed });
        prop_assert!(c.value <= a.value + 1e-9 * a.value.max(1.0));
    }
}

#[test]
fn local_search_swaps_a_heavy_short_job_ahead() {
    // One machine, both jobs released at 0. MarS's order puts the light
    // long job A (weight 1, 10 s) first: A ends at 10, B (weight 10, 1 s)
    // at 11, TWJCT 1 x 10 + 10 x 11 = 120. Swapping them: B ends at 1, A
    // at 11, TWJCT 10 x 1 + 1 x 11 = 21, the optimum.
    let mut inst = Instance::new(1);
    let a = inst.add_job(0.0, 1.0, &[10.0], &[], 0.0);
    let b = inst.add_job(0.0, 10.0, &[1.0], &[], 0.0);
    let (ta, tb) = (inst.jobs[a].maps[0], inst.jobs[b].maps[0]);
    let found = improve(&inst, &[ta, tb], &LsOptions::default());
    assert_eq!(found.initial, 120.0);
    assert_eq!(found.value, 21.0);
    assert_eq!(found.order, vec![tb, ta]);
    assert_eq!(
        (found.schedule.start[tb], found.schedule.start[ta]),
        (0.0, 1.0)
    );
    // With a budget of one evaluation the search is MarS itself.
    let none = improve(
        &inst,
        &[ta, tb],
        &LsOptions {
            evaluations: 1,
            seed: 1,
        },
    );
    assert_eq!(none.value, 120.0);
}

#[test]
fn best_fit_keeps_the_early_machine_for_the_next_tasks() {
    // Two machines, list A-map, A-reduce, B-map, C-map, all released at 0.
    // A's 1 s map has a 10 s delay, so its 1 s reduce waits until 11.
    // Earliest free: the reduce takes the idle machine 1 (until 12), so B
    // (5 s) starts at 1 on machine 0 and C (5 s) at 6, ending at 11.
    // Best fit: the reduce goes behind A's map on machine 0 (free at 1 <=
    // 11), B starts at 0 on machine 1 and C at 5, ending at 10.
    let mut inst = Instance::new(2);
    let a = inst.add_job(0.0, 1.0, &[1.0], &[1.0], 10.0);
    let b = inst.add_job(0.0, 1.0, &[5.0], &[], 0.0);
    let c = inst.add_job(0.0, 1.0, &[5.0], &[], 0.0);
    let (am, ar) = (inst.jobs[a].maps[0], inst.jobs[a].reduces[0]);
    let (tb, tc) = (inst.jobs[b].maps[0], inst.jobs[c].maps[0]);
    let order = [am, ar, tb, tc];
    let early = list_schedule_placed(&inst, &order, Placement::EarliestFree);
    let best = list_schedule_placed(&inst, &order, Placement::BestFit);
    assert!(early.check(&inst).is_ok() && best.check(&inst).is_ok());
    assert_eq!(early, list_schedule(&inst, &order));
    assert_eq!(
        (early.start[ar], early.start[tb], early.start[tc]),
        (11.0, 1.0, 6.0)
    );
    assert_eq!(
        (best.start[ar], best.start[tb], best.start[tc]),
        (11.0, 0.0, 5.0)
    );
    assert_eq!(best.machine[ar], best.machine[am]);
    assert_eq!(early.twjct(&inst), 12.0 + 6.0 + 11.0);
    assert_eq!(best.twjct(&inst), 12.0 + 5.0 + 10.0);
    // The search tries the rule first and keeps it.
    let found = improve(
        &inst,
        &order,
        &LsOptions {
            evaluations: 2,
            seed: 1,
        },
    );
    assert_eq!(found.placement, Placement::BestFit);
    assert_eq!(found.value, 27.0);
}

#[test]
fn pgcs_hold_on_exit_with_epsilon_zero() {
    let mut inst = Instance::new(3);
    for j in 0..6 {
        inst.add_job(
            j as f64 * 2.0,
            10.0 + j as f64,
            &[3.0, 4.0, 2.0, 5.0],
            &[6.0, 7.0],
            0.2,
        );
    }
    let r = coge(
        &inst,
        &CogeOptions {
            epsilon: 0.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.violated, 0);
    assert!(r.rounds > 1, "cuts were needed");
    assert!(pgc_violations(&inst, &middle_order(&inst, &r.start), &r.start).is_empty());
    // Larger epsilon stops no later.
    let loose = coge(&inst, &CogeOptions::default()).unwrap();
    assert!(loose.rounds <= r.rounds);
    assert!(loose.objective <= r.objective + 1e-6);
}

#[test]
fn fig1_joint_assignment_beats_fifo() {
    // Seed 001 Fig. 1: FIFO finishes job 2 at 250 s, joint scheduling at
    // 175 s. MarS finds a schedule with job 2 done by 175 s.
    let mut inst = Instance::new(3);
    inst.add_job(0.0, 1.0, &[75.0; 4], &[100.0; 2], 0.0);
    inst.add_job(0.0, 5.0, &[75.0], &[100.0], 0.0);
    let mut o = PlanOptions::new(Algorithm::Mars);
    o.coge.epsilon = 0.0;
    let p = plan(&inst, &o).unwrap();
    let c = p.schedule.job_completions(&inst);
    assert!((c[1] - 175.0).abs() < 1e-6, "{c:?}");
    assert!(p.schedule.check(&inst).is_ok());
}

/// A re-plan while a machine is busy (seed 001 §5.3, SO-MarS): machine 0
/// runs until 100, machine 1 is free. Job A: one task of 10 s, weight 1;
/// job B: one task of 12 s, weight 10. Both must run on machine 1, so B
/// goes first (sum w C = 10 x 12 + 22 = 142; A first gives 10 + 10 x 22 =
/// 230). A PGC that counts both machines as free from 0 asks nothing of
/// the pair (`10 S_A + 12 S_B >= 22^2 / 4 - 244 / 2 = -1`), so COGE stops
/// at S = 0 and orders A first by middle time (230); with machine 0's free
/// time the pair's cut is `10 S_A + 12 S_B >= 22^2 / 2 - 122 = 120`, the LP
/// reaches the optimum 142 and orders B first.
#[test]
fn busy_machine_changes_the_replan_order() {
    let mut inst = Instance::new(2);
    inst.add_job(0.0, 1.0, &[10.0], &[], 0.0);
    inst.add_job(0.0, 10.0, &[12.0], &[], 0.0);
    inst.machine_free = vec![100.0, 0.0];
    let r = coge(&inst, &CogeOptions::default()).unwrap();
    assert!((r.objective - 142.0).abs() < 1e-6, "LP {}", r.objective);
    let order = middle_order(&inst, &r.start);
    assert_eq!(order, vec![1, 0]);
    let sch = list_schedule(&inst, &order);
    sch.check(&inst).unwrap();
    assert_eq!(sch.machine, vec![1, 1]);
    assert!((sch.twjct(&inst) - 142.0).abs() < 1e-9);
    // The same instance with both machines free: A and B run in parallel
    // and the LP's cut is not needed (sum w C = 10 + 120 = 130).
    inst.machine_free = vec![0.0, 0.0];
    let r = coge(&inst, &CogeOptions::default()).unwrap();
    assert!((r.objective - 130.0).abs() < 1e-6, "LP {}", r.objective);
}

/// Every start is at least the earliest free time, and a machine that
/// never frees takes no work in the bound.
#[test]
fn all_busy_machines_hold_back_every_start() {
    let mut inst = Instance::new(3);
    inst.add_job(0.0, 1.0, &[5.0, 5.0], &[4.0], 0.0);
    inst.machine_free = vec![30.0, 40.0, f64::INFINITY];
    let r = coge(
        &inst,
        &CogeOptions {
            epsilon: 0.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.start.iter().all(|&s| s >= 30.0 - 1e-9), "{:?}", r.start);
    // The optimum runs both maps on machine 0 (30-40) and the reduce at
    // 40-44: 44. The maps' cut is 5 S1 + 5 S2 >= W(10) - 25 with W(10) =
    // (10 + 30)^2 / 2 - 30^2 / 2 = 350 (machine 1, free at 40, gets no
    // work), so S1 + S2 >= 65, the later map ends at 37.5 or after and the
    // reduce at 41.5 or after; with both machines counted free at 0 the
    // LP would allow 9.
    assert!(
        r.objective >= 41.5 - 1e-6 && r.objective <= 44.0 + 1e-6,
        "LP {}",
        r.objective
    );
    let sch = list_schedule(&inst, &middle_order(&inst, &r.start));
    sch.check(&inst).unwrap();
    assert!(sch.machine.iter().all(|&m| m != 2));
    assert!(sch.twjct(&inst) + 1e-9 >= r.objective);
}

/// The two MARES assignments on two machines: job A (released at 0, two
/// tasks of 5 s) and job B (released at 10, tasks of 6 and 4 s). Global
/// LPT (6, 5, 5, 4) gives machine 1 both of A's tasks and machine 0 both
/// of B's: balanced in total (10 and 10) but not over time. Job by job in
/// release order, A's tasks go to both machines and B's 6 s task to the
/// first of the tied machines.
#[test]
fn release_order_assignment_spreads_each_job() {
    use super::listsched::{balanced_assignment, release_order_assignment};
    let mut inst = Instance::new(2);
    inst.add_job(10.0, 1.0, &[6.0, 4.0], &[], 0.0);
    inst.add_job(0.0, 1.0, &[5.0, 5.0], &[], 0.0);
    // Tasks 0, 1: job B (listed first); 2, 3: job A.
    assert_eq!(balanced_assignment(&inst), vec![0, 0, 1, 1]);
    assert_eq!(release_order_assignment(&inst), vec![0, 1, 0, 1]);
    let mut o = PlanOptions::new(Algorithm::Mares);
    o.assignment = super::planner::Assignment::ReleaseOrder;
    let p = plan(&inst, &o).unwrap();
    p.schedule.check(&inst).unwrap();
    assert_eq!(p.schedule.machine, vec![0, 1, 0, 1]);
    // A runs on both machines at once (ends at 5), B from 10: 5 + 16.
    assert!((p.schedule.twjct(&inst) - 21.0).abs() < 1e-9);
    o.assignment = super::planner::Assignment::Lpt;
    let q = plan(&inst, &o).unwrap();
    // A's tasks in sequence on machine 1 (ends at 10), B's on machine 0
    // from 10 (ends at 20): 10 + 20.
    assert!((q.schedule.twjct(&inst) - 30.0).abs() < 1e-9);
}
