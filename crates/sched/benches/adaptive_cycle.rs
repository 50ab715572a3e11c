//! One control cycle of the Adaptive / Reverse-Adaptive scheduler: status,
//! estimates (s_req or s_fit by reverse scheduling), the max-min placement
//! matrix and the predictions, with 500 goal jobs on 1,000 nodes.
//!
//! Setup: 1,000 nodes of 8 map slots under a day-shaped f(t) (10%-70% of
//! every node, 2 h period, 60 s steps); 500 jobs of 200 maps of 30 s each
//! with goals spread over the next two hours; half the cluster's free slots
//! busy with their maps. Target: a cycle well under the 10 s control period
//! (under 50 ms, so that the loop costs less than 0.5% of a core).
//!
//! Run: `cargo bench -p mrsched-sched --bench adaptive_cycle`.

use mrsched_model::{Cluster, JobId, JobSpec, Locality, NodeId, Time};
use mrsched_sched::policies::adaptive::{Adaptive, AdaptiveOptions};
use mrsched_sched::Scheduler;
use mrsched_state::{ClusterState, Launch, StateEvent};

fn main() {
    divan::main();
}

const NODES: u32 = 1000;
const JOBS: u32 = 500;

fn state() -> ClusterState {
    let c = Cluster::from_toml_str(
        "bench",
        &format!(
            "[[nodes]]\ncount = {NODES}\nracks = 20\nmap_slots = 8\nreduce_slots = 2\n\
             [[capacity]]\nkind = \"sine\"\nmin_fraction = 0.1\nmax_fraction = 0.7\n\
             period_s = 7200\nstep_s = 60\n"
        ),
    )
    .expect("valid cluster");
    let mut st = ClusterState::new(c.clone());
    let now = Time::from_secs(600);
    st.advance_to(now);
    for n in 0..NODES {
        let (m, r) = c.taken_at(NodeId(n), now);
        st.set_taken(NodeId(n), m, r);
    }
    for i in 0..JOBS {
        let mut spec = JobSpec::explicit(&format!("j{i}"), now, &[30.0; 200], &[], 1.0);
        spec.goal = Some(Time::from_secs(60 + 14 * i as u64));
        let j = st.submit(spec);
        st.admit(j).expect("admit");
    }
    // Fill half of every node's free slots, jobs round-robin.
    let mut j = 0;
    for n in 0..NODES {
        let node = NodeId(n);
        for _ in 0..st.free_map_slots(node) / 2 {
            let job = JobId(j % JOBS);
            j += 1;
            if let Some((t, _)) = st.find_map_task(job, node, Locality::OffRack) {
                st.launch(node, &Launch::map(job, t)).expect("launch");
            }
        }
    }
    st.advance_to(now + Time::from_secs(5));
    st.take_events();
    st
}

fn fresh(opts: AdaptiveOptions, st: &ClusterState) -> Adaptive {
    let mut s = Adaptive::new(opts, st.cluster());
    for &j in st.active_jobs() {
        s.on_event(st, &StateEvent::JobAdmitted(j));
    }
    s
}

#[divan::bench(args = ["adaptive", "reverse-adaptive"], sample_count = 20)]
fn control_cycle(bencher: divan::Bencher, which: &str) {
    let st = state();
    let opts = match which {
        "adaptive" => AdaptiveOptions::adaptive(),
        _ => AdaptiveOptions::reverse_adaptive(),
    };
    bencher
        .with_inputs(|| fresh(opts.clone(), &st))
        .bench_local_refs(|s| s.run_cycle(&st));
}
