//! Map-only jobs (`reduces = 0`) on a live cluster: each map's output is one
//! block of the output file, in map order, exactly what the sequential
//! computation gives per input block; failed attempts leave no block behind.

mod common;

use common::*;
use mrsched_runtime::client::next_block;
use mrsched_runtime::maponly::sequential_map_only;
use mrsched_runtime::program::Program;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);
const BLOCK: u64 = 4 * 1024;

fn job_toml(input: &str, output: &str, program: &str) -> String {
    format!("input = \"{input}\"\noutput = \"{output}\"\nreduces = 0\n[program]\n{program}\n")
}

/// The input cut into blocks as `dfs put` cuts it.
fn blocks_of(text: &str) -> Vec<Vec<u8>> {
    let mut r = std::io::BufReader::new(text.as_bytes());
    let mut v = Vec::new();
    loop {
        let b = next_block(&mut r, BLOCK).unwrap();
        if b.is_empty() {
            return v;
        }
        v.push(b);
    }
}

/// Each output block's bytes, read one by one.
async fn output_blocks(c: &TestCluster, name: &str) -> Vec<Vec<u8>> {
    let f = c.alice.stat(name).await.unwrap();
    let http = reqwest::Client::new();
    let mut v = Vec::new();
    for (id, bytes, _) in f.blocks {
        let b = http
            .get(format!("{}/api/dfs/blocks/{id}", c.url))
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(b.len() as u64, bytes);
        v.push(b.to_vec());
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn map_only_grep_and_streaming_write_one_block_per_map() {
    let c = TestCluster::start(3, None).await;
    let text = corpus(2000);
    put(&c.alice, "corpus", &text, BLOCK).await;
    let input = blocks_of(&text);
    assert!(input.len() >= 4, "several blocks: {}", input.len());

    let grep = c
        .alice
        .submit(
            "grep.toml",
            &job_toml(
                "corpus",
                "fair-lines",
                "kind = \"grep\"\npattern = \"fair\"",
            ),
            false,
        )
        .await
        .unwrap();
    let upper = c
        .alice
        .submit(
            "upper.toml",
            &job_toml(
                "corpus",
                "upper",
                "kind = \"streaming\"\nmapper = \"tr a-z A-Z\"",
            ),
            false,
        )
        .await
        .unwrap();
    for id in [grep.id, upper.id] {
        let j = c.alice.wait(id, WAIT).await.unwrap();
        assert_eq!(j.status, "succeeded", "{j:?}");
        assert_eq!((j.maps_done, j.reduces), (input.len() as u32, 0));
    }
    // grep: every line containing the pattern with a count of 1, in input
    // order, block by block.
    let want_grep: Vec<Vec<u8>> = input
        .iter()
        .map(|b| {
            String::from_utf8_lossy(b)
                .lines()
                .filter(|l| l.contains("fair"))
                .map(|l| format!("{l}\t1\n"))
                .collect::<String>()
                .into_bytes()
        })
        .collect();
    let got = output_blocks(&c, "fair-lines").await;
    assert_eq!(got, want_grep);
    let refs: Vec<&[u8]> = input.iter().map(|b| b.as_slice()).collect();
    let prog = Program::Grep {
        pattern: "fair".into(),
    };
    assert_eq!(got, sequential_map_only(&prog, &refs).unwrap());
    // streaming with only a mapper: its output lines, block by block.
    let want_upper: Vec<Vec<u8>> = input.iter().map(|b| b.to_ascii_uppercase()).collect();
    assert_eq!(output_blocks(&c, "upper").await, want_upper);
    assert_eq!(
        c.alice.read("upper").await.unwrap(),
        text.to_ascii_uppercase().into_bytes()
    );
    // Output blocks are replicated like reduce output (replication 2).
    let f = c.alice.stat("upper").await.unwrap();
    assert!(f.blocks.iter().all(|b| b.2.len() == 2), "{f:?}");
    assert_only_listed_blocks(&c, 3).await;
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_map_only_map_that_fails_once_leaves_exactly_one_block_per_map() {
    let c = TestCluster::start(2, None).await;
    let text = corpus(1200);
    put(&c.alice, "corpus", &text, BLOCK).await;
    let input = blocks_of(&text);
    let marks = c.dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    // The first attempt of each map writes half its output, then fails.
    let mapper = format!(
        "in=$(cat); h=$(printf %s \\\"$in\\\" | cksum | cut -d' ' -f1); \
         if [ ! -e {m}/$h ]; then touch {m}/$h; printf '%s\\\\n' \\\"$in\\\" | head -n 5 | tr a-z A-Z; exit 3; fi; \
         printf '%s\\\\n' \\\"$in\\\" | tr a-z A-Z",
        m = marks.display()
    );
    let s = c
        .alice
        .submit(
            "flaky.toml",
            &job_toml(
                "corpus",
                "flaky-out",
                &format!("kind = \"streaming\"\nmapper = \"{mapper}\""),
            ),
            false,
        )
        .await
        .unwrap();
    let j = c.alice.wait(s.id, WAIT).await.unwrap();
    assert_eq!(j.status, "succeeded", "{j:?}");
    let atts = c.alice.attempts(s.id).await.unwrap();
    let failed = atts.iter().filter(|a| a.state == "failed").count();
    assert_eq!(failed, input.len(), "each map failed once: {atts:?}");
    let f = c.alice.stat("flaky-out").await.unwrap();
    assert_eq!(f.blocks.len(), input.len(), "one block per map");
    let want: Vec<Vec<u8>> = input.iter().map(|b| b.to_ascii_uppercase()).collect();
    assert_eq!(output_blocks(&c, "flaky-out").await, want);
    assert_only_listed_blocks(&c, 2).await;
    c.stop();
}
