//! Idempotent submission: a client that sends `Idempotency-Key: K` with a
//! submission and sends it again (its connection broke before the answer,
//! the master restarted) gets the job the first request created, not a
//! second job. The key is journaled in the same durable transaction as the
//! submission (a `SubmitKey` record), so it survives restarts exactly as
//! long as the job does. Keys are per user: another user's key never
//! matches.

use super::*;

/// The longest key taken.
pub const MAX_KEY: usize = 200;

/// Check a client's key: 1 to [`MAX_KEY`] visible ASCII characters.
pub fn check_key(key: &str) -> Result<(), ApiError> {
    if key.is_empty() || key.len() > MAX_KEY || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::bad(format!(
            "Idempotency-Key: must be 1 to {MAX_KEY} visible ASCII characters"
        )));
    }
    Ok(())
}

impl Core {
    /// Submit a job file once per `(user, key)`: a repeated key answers
    /// with the job it created (its id and admission), creating nothing.
    pub fn submit_keyed(
        &mut self,
        user: &User,
        label: &str,
        text: &str,
        json: bool,
        key: &str,
    ) -> Result<Submitted, ApiError> {
        check_key(key)?;
        if let Some(&id) = self.keys.get(&(user.name.clone(), key.to_string())) {
            let f = self.formed.as_ref().ok_or_else(not_formed)?;
            let j = f.st.job(JobId(id));
            let reason = match j.status {
                JobStatus::Rejected => j.reason.clone(),
                _ => None,
            };
            return Ok(Submitted {
                id,
                status: if reason.is_some() {
                    "rejected".into()
                } else {
                    "running".into()
                },
                reason,
            });
        }
        if !self.held.is_empty() {
            return Err(ApiError::conflict(format!(
                "a job set is being released ({} job(s) still held until their release times); submit after it",
                self.held.len()
            )));
        }
        let r = self.submit_inner(user, label, text, json, None);
        if let Ok(s) = &r {
            self.keys.insert((user.name.clone(), key.to_string()), s.id);
            self.journal.push(Record::SubmitKey {
                user: user.name.clone(),
                key: key.to_string(),
                job: s.id,
            });
        }
        self.commit()?;
        r
    }

    /// Replay a `SubmitKey` record.
    pub(super) fn replay_key(&mut self, user: String, key: String, job: u32) {
        self.keys.insert((user, key), job);
    }
}
