//! What the master's network-free tests share: their settings, a worker's
//! registration, a user and a finished map's report. Each test module
//! changes only the settings it is about.

use super::*;

/// Two workers, FIFO, 100 ms heartbeats, a minute's silence before a worker
/// is lost, 2 replicas, a 1 MB sort buffer, reduces after every map.
pub(crate) fn settings() -> MasterSettings {
    MasterSettings {
        workers: 2,
        heartbeat: Duration::from_millis(100),
        worker_timeout: Duration::from_secs(60),
        replication: 2,
        sort_buffer: 1 << 20,
        reduce_slowstart: 1.0,
        seed: 3,
        ..Default::default()
    }
}

/// Worker `name` on rack `r`, 2 map slots and 1 reduce slot, holding
/// nothing.
pub(crate) fn reg(name: &str) -> Register {
    Register {
        name: name.into(),
        rack: "r".into(),
        map_slots: 2,
        reduce_slots: 1,
        addr: format!("http://{name}"),
        outputs: Vec::new(),
        blocks: Vec::new(),
    }
}

/// A user who is not an admin.
pub(super) fn alice() -> User {
    User {
        name: "alice".into(),
        admin: false,
    }
}

/// Map attempt `key` finished, read locally, with no output of its own.
pub(super) fn map_done(key: String) -> Report {
    Report::MapDone {
        key,
        outputs: Vec::new(),
        read: ReadFrom::Local,
        input_bytes: 10,
        blocks: Vec::new(),
    }
}
