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
    let (flat, r) = place_dataset_flat(cluster, dataset, writer, rng);
    flat.chunks(r.max(1)).map(|c| c.to_vec()).collect()
}

/// [`place_dataset`] as one list, block after block, with the number of
/// replicas per block (the dataset's replication, capped by the node count).
pub fn place_dataset_flat(
    cluster: &Cluster,
    dataset: &Dataset,
    writer: Option<NodeId>,
    rng: &mut Rng,
) -> (Vec<NodeId>, usize) {
    let r = (dataset.replication as usize).min(cluster.nodes.len());
    let mut flat = Vec::with_capacity(dataset.blocks_mb.len() * r);
    place_blocks(cluster, dataset.blocks_mb.len(), r, writer, rng, &mut flat);
    (flat, r)
}

/// Place `blocks` blocks of `replication` replicas each, appending the
/// replicas block after block to `out` (no allocation per block).
/// Replication is capped by the node count.
pub fn place_blocks(
    cluster: &Cluster,
    blocks: usize,
    replication: usize,
    writer: Option<NodeId>,
    rng: &mut Rng,
    out: &mut Vec<NodeId>,
) {
    let r = replication.min(cluster.nodes.len());
    for _ in 0..blocks {
        let start = out.len();
        place_one(cluster, r, writer, rng, out);
        debug_assert_eq!(out.len() - start, r);
    }
}

/// Replica nodes for one block.
pub fn place_block(
    cluster: &Cluster,
    replication: usize,
    writer: Option<NodeId>,
    rng: &mut Rng,
) -> Vec<NodeId> {
    let r = replication.min(cluster.nodes.len());
    let mut out = Vec::with_capacity(r);
    place_one(cluster, r, writer, rng, &mut out);
    out
}

/// Append `r` (at most the node count) distinct replicas of one block.
fn place_one(
    cluster: &Cluster,
    r: usize,
    writer: Option<NodeId>,
    rng: &mut Rng,
    out: &mut Vec<NodeId>,
) {
    let base = out.len();
    let n = cluster.nodes.len() as u32;
    if r == 0 {
        return;
    }
    let first = writer.unwrap_or_else(|| NodeId(rng.random_range(0..n)));
    out.push(first);
    if r >= 2 {
        let rack = cluster.rack_of(first);
        let second = if cluster.racks.len() > 1 {
            draw(rng, n, &out[base..], |x| cluster.rack_of(x) != rack)
                .or_else(|| scan(rng, n, &out[base..], |x| cluster.rack_of(x) != rack))
        } else {
            None
        };
        let second = second
            .or_else(|| draw(rng, n, &out[base..], |_| true))
            .or_else(|| scan(rng, n, &out[base..], |_| true));
        out.extend(second);
    }
    if r >= 3 && out.len() - base == 2 {
        let rack2 = &cluster.racks[cluster.rack_of(out[base + 1]).idx()].nodes;
        let third = pick_from(rng, rack2, &out[base..])
            .or_else(|| draw(rng, n, &out[base..], |_| true))
            .or_else(|| scan(rng, n, &out[base..], |_| true));
        out.extend(third);
    }
    while out.len() - base < r {
        match draw(rng, n, &out[base..], |_| true).or_else(|| scan(rng, n, &out[base..], |_| true))
        {
            Some(x) => out.push(x),
            None => break,
        }
    }
}

/// A few random probes for a node not in `taken` satisfying `ok`.
#[inline]
fn draw(rng: &mut Rng, n: u32, taken: &[NodeId], ok: impl Fn(NodeId) -> bool) -> Option<NodeId> {
    for _ in 0..32 {
        let x = NodeId(rng.random_range(0..n));
        if !taken.contains(&x) && ok(x) {
            return Some(x);
        }
    }
    None
}

/// A uniform choice among every node not in `taken` satisfying `ok`.
fn scan(rng: &mut Rng, n: u32, taken: &[NodeId], ok: impl Fn(NodeId) -> bool) -> Option<NodeId> {
    let cands: Vec<NodeId> = (0..n)
        .map(NodeId)
        .filter(|x| !taken.contains(x) && ok(*x))
        .collect();
    if cands.is_empty() {
        None
    } else {
        Some(cands[rng.random_range(0..cands.len())])
    }
}

/// A random node of `among` not in `taken`, or `None`.
fn pick_from(rng: &mut Rng, among: &[NodeId], taken: &[NodeId]) -> Option<NodeId> {
    for _ in 0..8 {
        let x = among[rng.random_range(0..among.len())];
        if !taken.contains(&x) {
            return Some(x);
        }
    }
    let free = among.iter().filter(|x| !taken.contains(x)).count();
    if free == 0 {
        return None;
    }
    let k = rng.random_range(0..free);
    among.iter().filter(|x| !taken.contains(x)).nth(k).copied()
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
