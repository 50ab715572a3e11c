//! `mrsched local`: a master and N workers on loopback, as child processes
//! in separate work directories, stopped cleanly on Ctrl-C. The embedded
//! default that needs no set-up.

use crate::client::Client;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// What `mrsched local` starts.
#[derive(Clone, Debug)]
pub struct LocalConfig {
    /// The `mrsched` binary to run as master and workers.
    pub exe: PathBuf,
    /// Work directory (`master/`, `worker-<k>/`, `secret`, `users.toml`,
    /// `metrics-token`).
    pub dir: PathBuf,
    /// Workers.
    pub workers: u32,
    /// Master port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// Racks the workers are spread over.
    pub racks: u32,
    /// Map slots per worker.
    pub map_slots: u32,
    /// Reduce slots per worker.
    pub reduce_slots: u32,
    /// Extra arguments for the master (`--scheduler`, intervals ...).
    pub master_args: Vec<String>,
    /// Serve `/metrics` without a token; otherwise scrapes need the token
    /// kept in `<dir>/metrics-token` (created if missing).
    pub metrics_unauthenticated: bool,
}

/// The running local cluster.
pub struct LocalCluster {
    /// The master's URL.
    pub url: String,
    /// The API token of the local admin user.
    pub token: String,
    /// The admin user's name.
    pub user: String,
    /// The token for scraping `/metrics` (`None`: no token needed).
    pub metrics_token: Option<String>,
    master: Child,
    workers: Vec<Child>,
}

/// Read or create the cluster secret at `path`.
pub fn ensure_secret(path: &Path) -> Result<String, String> {
    if let Ok(s) = std::fs::read_to_string(path) {
        if !s.trim().is_empty() {
            return Ok(s.trim().to_string());
        }
    }
    let s = crate::master::random_token();
    write_private(path, &s)?;
    Ok(s)
}

/// Write a file readable by its owner only.
pub fn write_private(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    Ok(())
}

/// Read or create a users file with one admin user; returns (user, token).
pub fn ensure_users(path: &Path, user: &str) -> Result<(String, String), String> {
    if let Ok(text) = std::fs::read_to_string(path) {
        // Find the first admin's token (the file this function writes).
        let v: toml::Table =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(toml::Value::Table(users)) = v.get("users") {
            for (name, u) in users {
                if let Some(t) = u.get("token").and_then(|t| t.as_str()) {
                    return Ok((name.clone(), t.to_string()));
                }
            }
        }
    }
    let token = crate::master::random_token();
    let text = format!("# API users of this cluster: name, token, admin.\n[users.\"{user}\"]\ntoken = \"{token}\"\nadmin = true\n");
    write_private(path, &text)?;
    Ok((user.to_string(), token))
}

fn terminate(c: &mut Child) {
    // SIGTERM first (the processes stop their servers cleanly), SIGKILL if
    // they do not exit.
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(c.id().to_string())
        .status();
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(_)) = c.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = c.kill();
    let _ = c.wait();
}

impl LocalCluster {
    /// Start the master and workers, and wait until the cluster has formed.
    pub async fn start(cfg: &LocalConfig) -> Result<LocalCluster, String> {
        std::fs::create_dir_all(&cfg.dir).map_err(|e| format!("{}: {e}", cfg.dir.display()))?;
        let secret_path = cfg.dir.join("secret");
        ensure_secret(&secret_path)?;
        let users_path = cfg.dir.join("users.toml");
        let me = std::env::var("USER")
            .ok()
            .filter(|u| crate::jobfile::valid_name(u))
            .unwrap_or_else(|| "admin".into());
        let (user, token) = ensure_users(&users_path, &me)?;
        let mdir = cfg.dir.join("master");
        let _ = std::fs::remove_file(mdir.join("addr"));
        let metrics_path = cfg.dir.join("metrics-token");
        let (metrics_args, metrics_token) = if cfg.metrics_unauthenticated {
            (vec![OsString::from("--metrics-unauthenticated")], None)
        } else {
            let t = ensure_secret(&metrics_path)?;
            (
                vec!["--metrics-token-file".into(), metrics_path.into()],
                Some(t),
            )
        };
        let master = Command::new(&cfg.exe)
            .arg("master")
            .arg("--dir")
            .arg(&mdir)
            .arg("--listen")
            .arg(format!("127.0.0.1:{}", cfg.port))
            .arg("--workers")
            .arg(cfg.workers.to_string())
            .arg("--secret-file")
            .arg(&secret_path)
            .arg("--users")
            .arg(&users_path)
            .args(&cfg.master_args)
            .args(&metrics_args)
            .spawn()
            .map_err(|e| format!("cannot start the master ({}): {e}", cfg.exe.display()))?;
        let mut lc = LocalCluster {
            url: String::new(),
            token,
            user,
            metrics_token,
            master,
            workers: Vec::new(),
        };
        let t0 = Instant::now();
        lc.url = loop {
            if let Ok(u) = std::fs::read_to_string(mdir.join("addr")) {
                break u;
            }
            if let Ok(Some(s)) = lc.master.try_wait() {
                return Err(format!("the master exited at start-up ({s})"));
            }
            if t0.elapsed() > Duration::from_secs(30) {
                lc.stop();
                return Err("the master did not start within 30 s".into());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        for k in 0..cfg.workers {
            let child = Command::new(&cfg.exe)
                .arg("worker")
                .arg("--master")
                .arg(&lc.url)
                .arg("--dir")
                .arg(cfg.dir.join(format!("worker-{k}")))
                .arg("--name")
                .arg(format!("worker-{k}"))
                .arg("--rack")
                .arg(format!("rack-{}", k % cfg.racks.max(1)))
                .arg("--map-slots")
                .arg(cfg.map_slots.to_string())
                .arg("--reduce-slots")
                .arg(cfg.reduce_slots.to_string())
                .arg("--secret-file")
                .arg(&secret_path)
                .spawn();
            match child {
                Ok(c) => lc.workers.push(c),
                Err(e) => {
                    lc.stop();
                    return Err(format!("cannot start worker {k}: {e}"));
                }
            }
        }
        let client = Client::new(&lc.url, None);
        loop {
            if let Ok(h) = client.health().await {
                if h.ready && h.workers >= cfg.workers {
                    break;
                }
            }
            if let Some((who, status)) = lc.exited().into_iter().next() {
                lc.stop();
                return Err(format!(
                    "{who} exited at start-up ({status}); see its messages above (a work directory keeps the cluster it was first started with: use a new --dir for another number of workers)"
                ));
            }
            if t0.elapsed() > Duration::from_secs(60) {
                lc.stop();
                return Err("the cluster did not form within 60 s".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(lc)
    }

    /// Children that have exited, as `(what, status)`.
    pub fn exited(&mut self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        if let Ok(Some(s)) = self.master.try_wait() {
            v.push(("master".to_string(), s.to_string()));
        }
        for (k, w) in self.workers.iter_mut().enumerate() {
            if let Ok(Some(s)) = w.try_wait() {
                v.push((format!("worker-{k}"), s.to_string()));
            }
        }
        v
    }

    /// Stop every process: workers first, then the master.
    pub fn stop(&mut self) {
        for w in &mut self.workers {
            terminate(w);
        }
        terminate(&mut self.master);
    }
}
