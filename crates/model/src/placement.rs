//! Where block replicas live: HDFS's default placement policy.
//!
//! The first replica goes on the writer's node (a random node when the
//! writer is outside the cluster), the second on a node of another rack, the
//! third on another node of the second replica's rack, and any further ones
//! on random distinct nodes. With one rack, replicas are on distinct random
//! nodes. This spreads every dataset across the cluster, which is what makes
//! locality a scheduling problem (seed 002 §4).

use crate::cluster::Cluster;
use crate::ids::NodeId;
use crate::rng::Rng;
use crate::workload::Dataset;
use rand::Rng as _;

/// Replica nodes of every block of `dataset`, in replica order.
pub fn place_dataset(
    cluster: &Cluster,
    dataset: &Dataset,
    writer: Option<NodeId>,
    rng: &mut Rng,
) -> Vec<Vec<NodeId>> {
    dataset
        .blocks_mb
        .iter()
        .map(|_| place_block(cluster, dataset.replication as usize, writer, rng))
        .collect()
}

/// Replica nodes for one block.
pub fn place_block(
    cluster: &Cluster,
    replication: usize,
    writer: Option<NodeId>,
    rng: &mut Rng,
) -> Vec<NodeId> {
    let n = cluster.nodes.len();
    let r = replication.min(n);
    let mut out: Vec<NodeId> = Vec::with_capacity(r);
    if r == 0 {
        return out;
    }
    let first = writer.unwrap_or_else(|| NodeId(rng.random_range(0..n as u32)));
    out.push(first);
    let multi_rack = cluster.racks.len() > 1;
    if r >= 2 {
        let second = if multi_rack {
            let rack = cluster.rack_of(first);
            pick(rng, cluster, &out, |c, x| c.rack_of(x) != rack)
        } else {
            None
        }
        .or_else(|| pick(rng, cluster, &out, |_, _| true));
        if let Some(s) = second {
            out.push(s);
        }
    }
    if r >= 3 && out.len() == 2 {
        let rack2 = &cluster.racks[cluster.rack_of(out[1]).idx()].nodes;
        let third = pick_from(rng, rack2, &out).or_else(|| pick(rng, cluster, &out, |_, _| true));
        if let Some(t) = third {
            out.push(t);
        }
    }
    while out.len() < r {
        match pick(rng, cluster, &out, |_, _| true) {
            Some(x) => out.push(x),
            None => break,
        }
    }
    out
}

/// A random node of `among` not in `taken`, or `None`.
fn pick_from(rng: &mut Rng, among: &[NodeId], taken: &[NodeId]) -> Option<NodeId> {
    let free = among.iter().filter(|x| !taken.contains(x)).count();
    if free == 0 {
        return None;
    }
    let k = rng.random_range(0..free);
    among.iter().filter(|x| !taken.contains(x)).nth(k).copied()
}

/// A random node not in `taken` satisfying `ok`, or `None`.
fn pick(
    rng: &mut Rng,
    cluster: &Cluster,
    taken: &[NodeId],
    ok: impl Fn(&Cluster, NodeId) -> bool,
) -> Option<NodeId> {
    let n = cluster.nodes.len() as u32;
    // A few random probes first (cheap on large clusters), then a scan.
    for _ in 0..16 {
        let x = NodeId(rng.random_range(0..n));
        if !taken.contains(&x) && ok(cluster, x) {
            return Some(x);
        }
    }
    let cands: Vec<NodeId> = (0..n)
        .map(NodeId)
        .filter(|x| !taken.contains(x) && ok(cluster, *x))
        .collect();
    if cands.is_empty() {
        None
    } else {
        Some(cands[rng.random_range(0..cands.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn hdfs_rules_hold() {
        let c = Cluster::from_toml_str("c", "[[nodes]]\ncount = 20\nracks = 4\nmap_slots = 1\n")
            .unwrap();
        let mut rng = stream(1, "placement");
        for _ in 0..200 {
            let b = place_block(&c, 3, None, &mut rng);
            assert_eq!(b.len(), 3);
            assert_ne!(c.rack_of(b[0]), c.rack_of(b[1]), "second replica off-rack");
            assert_eq!(c.rack_of(b[1]), c.rack_of(b[2]), "third on second's rack");
            assert!(b[0] != b[1] && b[1] != b[2] && b[0] != b[2]);
        }
        let w = place_block(&c, 3, Some(NodeId(7)), &mut rng);
        assert_eq!(w[0], NodeId(7));
    }

    #[test]
    fn small_clusters_and_one_rack() {
        let c = Cluster::from_toml_str("c", "[[nodes]]\ncount = 2\nmap_slots = 1\n").unwrap();
        let mut rng = stream(1, "placement");
        let b = place_block(&c, 3, None, &mut rng);
        assert_eq!(b.len(), 2, "replication is capped by node count");
        assert_ne!(b[0], b[1]);
    }
}
