//! Per-user bounds on submissions (see `master::limits`): a user's jobs
//! that are submitted and not finished count against
//! `Limits::max_queued_jobs_per_user`; over it a submission is refused with
//! 429 before anything is created.

use super::*;

/// Jobs of `user` submitted and not finished.
pub(super) fn queued_jobs(b: &Book, st: &ClusterState, user: &str) -> u32 {
    b.jobs
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            m.user == user
                && matches!(
                    st.job(JobId(*i as u32)).status,
                    JobStatus::Submitted | JobStatus::Running
                )
        })
        .count() as u32
}

/// Refuse `more` new jobs of `user` when they would exceed the limit.
pub(super) fn check_queued(
    b: &Book,
    st: &ClusterState,
    user: &str,
    more: u32,
) -> Result<(), ApiError> {
    let max = b.settings.limits.max_queued_jobs_per_user;
    let have = queued_jobs(b, st, user);
    if have + more > max {
        return Err(ApiError {
            status: 429,
            message: format!(
                "user `{user}` has {have} job(s) submitted and not finished; the limit is {max} per user (--max-queued-jobs-per-user): wait for some to finish or kill them"
            ),
        });
    }
    Ok(())
}
