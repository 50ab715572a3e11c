//! Session options a query carries to the scheduler: `mrsched.user` and
//! `mrsched.pool`, set with `SET mrsched.pool = 'etl'` in SQL.
//!
//! They travel as a DataFusion config extension: the client registers it
//! ([`session_config`]) so that `SET` accepts the keys, and Ballista sends
//! every option of the session to the scheduler, which registers it too
//! (the scheduler's config producer). A client without the extension sends
//! neither: its queries run as user `default` in the `default` pool.

use ballista::prelude::SessionConfigExt;
use datafusion::config::{ConfigEntry, ConfigExtension, ExtensionOptions};
use datafusion::error::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use mrsched_model::limits::{valid_name, MAX_NAME};
use std::any::Any;

/// mrsched's per-session options. Their entries carry the `mrsched.`
/// prefix, so Ballista's clients send them to the scheduler under the keys
/// the scheduler sets them with (DataFusion's `extensions_options!` lists
/// entries without their prefix, which the scheduler could not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MrschedOptions {
    /// The user the session's queries run as (empty: `default`).
    pub user: String,
    /// The pool the session's queries run in (empty: the user's pool, as
    /// in Hadoop's Fair Scheduler).
    pub pool: String,
}

impl ConfigExtension for MrschedOptions {
    const PREFIX: &'static str = "mrsched";
}

impl ExtensionOptions for MrschedOptions {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn cloned(&self) -> Box<dyn ExtensionOptions> {
        Box::new(self.clone())
    }

    fn set(&mut self, key: &str, value: &str) -> datafusion::error::Result<()> {
        match key {
            "user" => self.user = check_name(key, value)?,
            "pool" => self.pool = check_name(key, value)?,
            _ => {
                return Err(DataFusionError::Configuration(format!(
                "unknown option `mrsched.{key}`: mrsched knows `mrsched.user` and `mrsched.pool`"
            )))
            }
        }
        Ok(())
    }

    fn entries(&self) -> Vec<ConfigEntry> {
        vec![
            ConfigEntry {
                key: "mrsched.user".into(),
                value: Some(self.user.clone()),
                description: "the user the session's queries run as",
            },
            ConfigEntry {
                key: "mrsched.pool".into(),
                value: Some(self.pool.clone()),
                description: "the pool the session's queries run in (default: the user's)",
            },
        ]
    }
}

/// A user or pool name, as the live master accepts them
/// ([`valid_name`]): surrounding blanks are trimmed, and empty means the
/// default.
fn check_name(key: &str, value: &str) -> datafusion::error::Result<String> {
    let v = value.trim();
    if v.is_empty() || valid_name(v) {
        return Ok(v.to_string());
    }
    Err(DataFusionError::Configuration(format!(
        "mrsched.{key} = '{}': a name has at most {MAX_NAME} bytes and no control characters or slashes",
        v.chars().take(40).collect::<String>().escape_debug()
    )))
}

/// The user and pool of a session's configuration: `(user, pool)`, the
/// user `default` when unset and the pool `None` (the user's) when unset.
pub fn user_and_pool(config: &SessionConfig) -> (String, Option<String>) {
    let o = config.options().extensions.get::<MrschedOptions>();
    let user = o
        .map(|o| o.user.trim())
        .filter(|u| !u.is_empty())
        .unwrap_or("default")
        .to_string();
    let pool = o
        .map(|o| o.pool.trim().to_string())
        .filter(|p| !p.is_empty());
    (user, pool)
}

/// A Ballista session configuration with mrsched's options, for `user`.
pub fn session_config(user: &str) -> SessionConfig {
    let o = MrschedOptions {
        user: user.to_string(),
        ..Default::default()
    };
    SessionConfig::new_with_ballista().with_option_extension(o)
}

/// The configuration the scheduler builds every session from: Ballista's,
/// with mrsched's options registered.
pub fn scheduler_session_config() -> SessionConfig {
    SessionConfig::new_with_ballista().with_option_extension(MrschedOptions::default())
}

/// Connect to a Ballista scheduler at `url` (`df://host:port`) as `user`.
pub async fn connect(url: &str, user: &str) -> datafusion::error::Result<SessionContext> {
    use ballista::prelude::SessionContextExt;
    let state = SessionStateBuilder::new()
        .with_config(session_config(user))
        .with_default_features()
        .build();
    SessionContext::remote_with_state(url, state).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_to_the_default_user_and_its_pool() {
        let (u, p) = user_and_pool(&SessionConfig::new());
        assert_eq!((u.as_str(), p), ("default", None));
        let mut c = session_config("ann");
        assert_eq!(user_and_pool(&c), ("ann".to_string(), None));
        c.options_mut().set("mrsched.pool", "etl").unwrap();
        assert_eq!(user_and_pool(&c), ("ann".to_string(), Some("etl".into())));
        assert!(c.options_mut().set("mrsched.queue", "x").is_err());
        // Names: trimmed, no control characters or slashes, not too long;
        // a rejected value leaves the option as it was.
        for bad in ["a/b", "et\nl", "x\ty", "x\u{7}", &"p".repeat(MAX_NAME + 1)] {
            let e = c.options_mut().set("mrsched.pool", bad).unwrap_err();
            assert!(e.to_string().contains("mrsched.pool = '"), "{e}");
        }
        assert_eq!(user_and_pool(&c), ("ann".to_string(), Some("etl".into())));
        c.options_mut().set("mrsched.pool", "  adhoc ").unwrap();
        assert_eq!(user_and_pool(&c).1.as_deref(), Some("adhoc"));
        c.options_mut().set("mrsched.pool", "etl").unwrap();
        // Entries carry the prefix: what a client sends, the scheduler sets.
        let mut server = scheduler_session_config();
        for e in c.options().entries() {
            if let (true, Some(v)) = (e.key.starts_with("mrsched."), e.value) {
                server.options_mut().set(&e.key, &v).unwrap();
            }
        }
        assert_eq!(
            user_and_pool(&server),
            ("ann".to_string(), Some("etl".into()))
        );
    }
}
