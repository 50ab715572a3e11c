//! The master's resource-bound flags (`mrsched master` and `mrsched
//! local`), kept apart from the other cluster settings; see
//! `mrsched_runtime::master::limits` for what each bound does.

use clap::Args;
use mrsched_runtime::master::limits::Limits;
use std::time::Duration;

/// Resource bounds of the master's API.
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Jobs a user may have submitted and not finished; more are refused
    /// (HTTP 429).
    #[arg(long, default_value_t = 100)]
    pub max_queued_jobs_per_user: u32,
    /// Bytes of one uploaded file (`dfs put`); a larger upload is aborted
    /// (HTTP 413).
    #[arg(long, default_value_t = 1 << 40)]
    pub max_upload_bytes: u64,
    /// Bytes of one block (and the largest `--block-size` of `dfs put`).
    #[arg(long, default_value_t = 1 << 30)]
    pub max_block_bytes: u64,
    /// Bytes of a user request body other than a block (JSON, job files).
    #[arg(long, default_value_t = 1 << 20)]
    pub max_request_bytes: u64,
    /// A request body that stops arriving for this long is cut, seconds.
    #[arg(long, default_value_t = 30.0)]
    pub body_timeout_s: f64,
    /// An upload idle this long (its client went away) is aborted and its
    /// blocks deleted, seconds.
    #[arg(long, default_value_t = 300.0)]
    pub upload_timeout_s: f64,
}

impl LimitArgs {
    /// The flags, for a master started by `mrsched local`.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            "--max-queued-jobs-per-user".into(),
            self.max_queued_jobs_per_user.to_string(),
            "--max-upload-bytes".into(),
            self.max_upload_bytes.to_string(),
            "--max-block-bytes".into(),
            self.max_block_bytes.to_string(),
            "--max-request-bytes".into(),
            self.max_request_bytes.to_string(),
            "--body-timeout-s".into(),
            self.body_timeout_s.to_string(),
            "--upload-timeout-s".into(),
            self.upload_timeout_s.to_string(),
        ]
    }

    /// The bounds, checked.
    pub fn limits(&self) -> Result<Limits, String> {
        let secs = |v: f64, flag: &str| {
            if v.is_finite() && v > 0.0 && v <= 1e6 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(format!(
                    "{flag} must be a positive number of seconds (at most 1000000), got {v}"
                ))
            }
        };
        for (v, flag) in [
            (
                self.max_queued_jobs_per_user as u64,
                "--max-queued-jobs-per-user",
            ),
            (self.max_upload_bytes, "--max-upload-bytes"),
            (self.max_block_bytes, "--max-block-bytes"),
            (self.max_request_bytes, "--max-request-bytes"),
        ] {
            if v == 0 {
                return Err(format!("{flag} must be at least 1"));
            }
        }
        let d = Limits::default();
        Ok(Limits {
            max_queued_jobs_per_user: self.max_queued_jobs_per_user,
            max_upload_bytes: self.max_upload_bytes,
            max_block_bytes: self.max_block_bytes,
            max_request_bytes: self.max_request_bytes,
            max_worker_request_bytes: d.max_worker_request_bytes,
            body_timeout: secs(self.body_timeout_s, "--body-timeout-s")?,
            upload_timeout: secs(self.upload_timeout_s, "--upload-timeout-s")?,
        })
    }
}
