//! YARN's `queuePlacementPolicy`: which queue a job goes to.
//!
//! Operators route jobs by rules rather than by the queue a job names; the
//! rules are tried in order when a job is admitted, and the first that
//! gives a queue wins. The model has no group database, so `primaryGroup`
//! uses the `[fair] user_groups` map, else the user's own name.

use std::collections::BTreeMap;

/// One rule of `queuePlacementPolicy`, tried in order.
#[derive(Clone, Debug, PartialEq)]
pub enum PlaceRule {
    /// The queue the job names (its `pool`), unless it names none or
    /// `default`; with `create = false` only an existing queue.
    Specified {
        /// May create the queue.
        create: bool,
    },
    /// The queue named after the user.
    User {
        /// May create the queue.
        create: bool,
    },
    /// The queue named after the user's primary group (the `[fair]`
    /// `user_groups` map, else the user's own name).
    PrimaryGroup {
        /// May create the queue.
        create: bool,
    },
    /// This queue (pool path).
    Default {
        /// Pool path.
        queue: String,
    },
    /// The job is rejected.
    Reject,
}

impl PlaceRule {
    /// Whether the rule always places the job (no later rule is reached).
    pub fn terminal(&self) -> bool {
        match self {
            PlaceRule::Specified { create }
            | PlaceRule::User { create }
            | PlaceRule::PrimaryGroup { create } => *create,
            PlaceRule::Default { .. } | PlaceRule::Reject => true,
        }
    }
}

/// A YARN queue name (`root.a.b` or `a.b`) as a pool path (`a.b`).
pub fn pool_path(queue: &str) -> &str {
    queue.strip_prefix("root.").unwrap_or(queue)
}

/// The pool path a job of `user` naming `pool` goes to under `rules`, or
/// `None` when a `reject` rule (or no rule) takes it. `exists` says whether
/// a pool exists now (declared, or created by an earlier job): a rule with
/// `create = false` only takes an existing one. A `specified` rule skips a
/// job naming `default` or nothing, as YARN's does; dots in user and group
/// names become `_dot_`.
pub fn place(
    rules: &[PlaceRule],
    user: &str,
    pool: Option<&str>,
    groups: &BTreeMap<String, String>,
    exists: impl Fn(&str) -> bool,
) -> Option<String> {
    for rule in rules {
        let (q, create) = match rule {
            PlaceRule::Specified { create } => match pool.map(pool_path) {
                Some(q) if q != "default" => (q.to_string(), *create),
                _ => continue,
            },
            PlaceRule::User { create } => (user.replace('.', "_dot_"), *create),
            PlaceRule::PrimaryGroup { create } => (
                groups
                    .get(user)
                    .map(String::as_str)
                    .unwrap_or(user)
                    .replace('.', "_dot_"),
                *create,
            ),
            PlaceRule::Default { queue } => return Some(queue.clone()),
            PlaceRule::Reject => return None,
        };
        if create || exists(&q) {
            return Some(q);
        }
    }
    None
}
