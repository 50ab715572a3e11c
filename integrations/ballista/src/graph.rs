//! Ballista's execution graphs seen as the mirror's views, and the binding
//! of one chosen piece of work to an executor.
//!
//! Written against Ballista 55.0.0. `bind_one` and `stage_has_input_collapse`
//! are private there, so their rules are restated here; check them on every
//! upgrade (`ballista-scheduler/src/cluster/mod.rs`).

use crate::options::user_and_pool;
use ballista_core::config::BallistaConfig;
use ballista_core::execution_plans::{RangeShuffleReaderExec, ShuffleReaderExec};
use ballista_core::serde::protobuf::task_status;
use ballista_core::serde::scheduler::TaskKey;
use ballista_scheduler::state::execution_graph::{
    create_task_info, ExecutionGraphBox, TaskDescription,
};
use ballista_scheduler::state::execution_stage::{ExecutionStage, RunningStage};
use datafusion::physical_plan::ExecutionPlan;
use mrsched_mirror::{JobView, PendingPartition, StageState, StageView, TaskState, TaskView, Work};
use std::sync::Arc;

/// Whether a stage's plan collapses its input partitions into one below the
/// shuffle writer: such a stage must run as one task over all its
/// partitions, or its result is partial (Ballista 55's
/// `stage_has_input_collapse`: walk single-child operators from the root's
/// child, stop at shuffle readers, true at the first single-partition
/// output).
pub fn stage_has_input_collapse(root: &Arc<dyn ExecutionPlan>) -> bool {
    fn walk(node: &Arc<dyn ExecutionPlan>) -> bool {
        if node.downcast_ref::<ShuffleReaderExec>().is_some()
            || node.downcast_ref::<RangeShuffleReaderExec>().is_some()
        {
            return false;
        }
        if node.properties().output_partitioning().partition_count() == 1 {
            return true;
        }
        match node.children().as_slice() {
            [child] => walk(child),
            _ => false,
        }
    }
    match root.children().as_slice() {
        [child] => walk(child),
        _ => false,
    }
}

/// The partitions waiting in a running stage, in order (the queue is drained
/// and put back as it was).
fn pending_partitions(rs: &mut RunningStage) -> Vec<usize> {
    let all = rs.pending.next_slice(usize::MAX);
    rs.pending.reschedule(all.clone());
    all
}

/// Where a partition's shuffle input is: `(executor id, bytes)` per
/// upstream output location.
fn inputs_of(rs: &RunningStage, partition: usize) -> Vec<(String, u64)> {
    let mut v = Vec::new();
    let mut stages: Vec<&usize> = rs.inputs.keys().collect();
    stages.sort();
    for s in stages {
        if let Some(locs) = rs.inputs[s].partition_locations.get(&partition) {
            for l in locs {
                let bytes = l.partition_stats.num_bytes().unwrap_or(0).max(1);
                v.push((l.executor_meta.id.clone(), bytes));
            }
        }
    }
    v
}

fn task_view(id: usize, status: &task_status::Status) -> TaskView {
    let (executor, state) = match status {
        task_status::Status::Running(r) => (r.executor_id.clone(), TaskState::Running),
        task_status::Status::Successful(s) => (s.executor_id.clone(), TaskState::Succeeded),
        task_status::Status::Failed(_) => (String::new(), TaskState::Failed),
    };
    TaskView {
        id,
        executor,
        state,
    }
}

/// A running job's graph as the mirror sees it. Stages that became ready
/// are started first (what Ballista's own binding does through
/// `fetch_running_stage`), so their partitions are offered at once.
pub fn job_view(graph: &mut ExecutionGraphBox) -> JobView {
    graph.revive();
    let (user, pool) = user_and_pool(&graph.session_config());
    let id = graph.job_id().to_string();
    let name = graph.job_name().to_string();
    let queued_ms = graph.start_time();
    let running = graph.running_stages();
    let mut stages = Vec::new();
    for sid in running {
        let black: Vec<usize> = graph
            .running_stages()
            .into_iter()
            .filter(|s| *s != sid)
            .collect();
        // A running stage with nothing pending is not returned by
        // `fetch_running_stage`; it is read below from `stages()`.
        if let Some(rs) = graph.fetch_running_stage(&black) {
            if rs.stage_id == sid {
                let pending = pending_partitions(rs)
                    .into_iter()
                    .map(|p| PendingPartition {
                        partition: p,
                        inputs: inputs_of(rs, p),
                    })
                    .collect();
                stages.push(StageView {
                    id: sid,
                    attempt: rs.stage_attempt_num,
                    state: StageState::Running,
                    collapse: stage_has_input_collapse(&rs.plan),
                    pending,
                    tasks: rs
                        .task_infos
                        .iter()
                        .enumerate()
                        .map(|(i, t)| task_view(i, &t.task_status))
                        .collect(),
                });
            }
        }
    }
    for (sid, stage) in graph.stages() {
        if stages.iter().any(|s| s.id == *sid) {
            continue;
        }
        let (attempt, state, tasks) = match stage {
            ExecutionStage::Running(rs) => (
                rs.stage_attempt_num,
                StageState::Running,
                rs.task_infos
                    .iter()
                    .enumerate()
                    .map(|(i, t)| task_view(i, &t.task_status))
                    .collect(),
            ),
            ExecutionStage::Successful(s) => {
                (s.stage_attempt_num, StageState::Succeeded, Vec::new())
            }
            _ => (0, StageState::Waiting, Vec::new()),
        };
        stages.push(StageView {
            id: *sid,
            attempt,
            state,
            collapse: false,
            pending: Vec::new(),
            tasks,
        });
    }
    stages.sort_by_key(|s| s.id);
    JobView {
        id,
        name,
        user,
        pool,
        queued_ms,
        stages,
    }
}

/// Partitions one task may carry (Ballista 55 `bind_one`: the session's
/// `ballista.job.max_partitions_per_task`, 0 or unset: no cap).
pub fn max_partitions_per_task(graph: &ExecutionGraphBox) -> usize {
    graph
        .session_config()
        .options()
        .extensions
        .get::<BallistaConfig>()
        .map(|bc| bc.max_partitions_per_task())
        .filter(|&n| n > 0)
        .unwrap_or(usize::MAX)
}

/// Bind pieces of work of `stage` to `executor` as one task: take their
/// partitions out of the stage's pending queue, record the task and
/// describe it for dispatch. Partitions are packed the way Ballista packs
/// a slice (one thread, one vcore each); a whole collapse stage is one
/// task of one vcore. Returns the task, its id and the work it carries
/// (the rest is no longer pending), or `None` when nothing was.
pub fn bind(
    graph: &mut ExecutionGraphBox,
    stage: usize,
    work: &[Work],
    executor: &str,
) -> Option<(TaskDescription, usize, Vec<Work>)> {
    let session_id = graph.session_id().to_string();
    let job_id = graph.job_id().clone();
    let black: Vec<usize> = graph
        .running_stages()
        .into_iter()
        .filter(|s| *s != stage)
        .collect();
    let rs = graph.fetch_running_stage(&black)?;
    if rs.stage_id != stage {
        return None;
    }
    let all = rs.pending.next_slice(usize::MAX);
    let whole = work.contains(&Work::WholeStage);
    let wanted: Vec<usize> = work
        .iter()
        .filter_map(|w| match w {
            Work::Partition(p) => Some(*p),
            _ => None,
        })
        .collect();
    let (take, rest): (Vec<usize>, Vec<usize>) = if whole {
        (all, Vec::new())
    } else {
        all.into_iter().partition(|x| wanted.contains(x))
    };
    rs.pending.reschedule(rest);
    if take.is_empty() {
        return None;
    }
    let carried: Vec<Work> = if whole {
        vec![Work::WholeStage]
    } else {
        take.iter().map(|p| Work::Partition(*p)).collect()
    };
    // A collapse stage's single output partition drives one thread.
    let vcores = if whole { 1 } else { take.len() as u32 };
    let task_id = rs.task_infos.len();
    let task_attempt = take
        .iter()
        .map(|p| rs.task_failure_numbers.get(*p).copied().unwrap_or(0))
        .max()
        .unwrap_or(0);
    let mut info = create_task_info(executor.to_string(), task_id);
    info.global_input_partition_ids = take.clone();
    info.vcores_consumed = vcores;
    rs.task_infos.push(info);
    let desc = TaskDescription {
        session_id,
        key: TaskKey {
            job_id,
            stage_id: stage,
            task_id,
        },
        stage_attempt_num: rs.stage_attempt_num,
        task_attempt,
        global_input_partition_ids: take,
        vcores_consumed: vcores,
        plan: rs.plan.clone(),
        session_config: rs.session_config.clone(),
    };
    Some((desc, task_id, carried))
}
