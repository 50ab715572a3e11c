//! Which rack an executor is on: Hadoop's table mapping
//! (`net.topology.table.file.name`), a file of `host rack` lines. Hosts not
//! in the table are on `/default-rack`, as in Hadoop.

use std::collections::HashMap;
use std::fmt;

/// The rack of hosts not in the table.
pub const DEFAULT_RACK: &str = "/default-rack";

/// Host (or executor id) to rack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    racks: HashMap<String, String>,
}

/// A line of a topology file that is not `host rack`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for TopologyError {}

impl Topology {
    /// Every host on the default rack.
    pub fn flat() -> Topology {
        Topology::default()
    }

    /// Parse a table: one `host rack` pair per line, blank lines and `#`
    /// comments ignored. `file` names the source in errors.
    pub fn parse(file: &str, text: &str) -> Result<Topology, TopologyError> {
        let mut racks = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |message: String| TopologyError {
                file: file.to_string(),
                line: i + 1,
                message,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [host, rack] = fields[..] else {
                return Err(err(format!(
                    "expected `host rack` (two fields), found {} field(s): `{line}`",
                    fields.len()
                )));
            };
            if racks.insert(host.to_string(), rack.to_string()).is_some() {
                return Err(err(format!("host `{host}` is listed twice")));
            }
        }
        Ok(Topology { racks })
    }

    /// The rack of an executor: by its host, else by its id, else the
    /// default rack.
    pub fn rack_of<'a>(&'a self, host: &str, id: &str) -> &'a str {
        self.racks
            .get(host)
            .or_else(|| self.racks.get(id))
            .map(|s| s.as_str())
            .unwrap_or(DEFAULT_RACK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_map_to_racks_and_the_rest_to_the_default() {
        let t = Topology::parse("t", "# racks\n10.0.0.1 /r1\n\nexec-b   /r2  # by id\n").unwrap();
        assert_eq!(t.rack_of("10.0.0.1", "x"), "/r1");
        assert_eq!(t.rack_of("10.0.0.9", "exec-b"), "/r2");
        assert_eq!(t.rack_of("10.0.0.9", "y"), DEFAULT_RACK);
    }

    #[test]
    fn malformed_lines_name_the_file_and_line() {
        let e = Topology::parse("top.txt", "a /r1\nb\n").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("top.txt", 2));
        assert!(e.to_string().starts_with("top.txt:2: expected `host rack`"));
        let e = Topology::parse("top.txt", "a /r1\na /r2\n").unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
    }
}
