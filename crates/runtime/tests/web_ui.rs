//! The web UI, as a person and as an attacker meet it: pages rendered by
//! headless Chromium from a live cluster with two users' jobs (DOM and a
//! screenshot), a kill through the page as the job's owner and a refused
//! one as another user; and over plain HTTP, the sign-in, the cookie's
//! attributes, refusals without a session or with a wrong CSRF token, and
//! escaping of job names.

mod common;

use common::browser;
use common::*;
use mrsched_model::Cluster;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

fn fair() -> mrsched_runtime::master::core::SchedulerFactory {
    Arc::new(|c: &Cluster| {
        mrsched_sched::SchedulerConfig::resolve("fair")
            .unwrap()
            .build(c)
            .unwrap()
    })
}

fn job(name: &str, output: &str, mapper: &str) -> String {
    format!(
        "name = \"{name}\"\ninput = \"corpus\"\noutput = \"{output}\"\nreduces = 1\n\
         [program]\nkind = \"streaming\"\nmapper = \"{mapper}\"\nreducer = \"cat\"\n"
    )
}

/// A client that does not follow redirects, so a test sees them.
fn raw() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Sign in with `token` through `?token=`; the session cookie (`name=value`).
async fn sign_in(url: &str, token: &str) -> String {
    let r = raw()
        .get(format!("{url}/jobs?token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/jobs", "the token leaves the URL");
    let c = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(c.contains("HttpOnly"), "{c}");
    assert!(c.contains("SameSite=Strict"), "{c}");
    assert!(!c.contains(token), "the cookie is not the token: {c}");
    c.split(';').next().unwrap().to_string()
}

async fn get(url: &str, cookie: &str) -> (u16, String) {
    let r = raw()
        .get(url)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The page's CSRF token, from its `<meta name="csrf-token">`.
fn csrf_of(page: &str) -> String {
    let key = "name=\"csrf-token\" content=\"";
    let at = page.find(key).expect("csrf meta") + key.len();
    page[at..at + 48].to_string()
}

async fn post_kill(url: &str, id: u32, cookie: &str, form: &str) -> (u16, String) {
    let r = raw()
        .post(format!("{url}/jobs/{id}/kill"))
        .header("cookie", cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_refuse_strangers_and_forms_need_their_csrf_token() {
    let c = TestCluster::start(2, None).await;
    put(&c.alice, "corpus", &corpus(400), 4 * 1024).await;
    let s = c
        .alice
        .submit(
            "x",
            &job(
                "<script>alert(1)<img src=x onerror=alert(2)>",
                "o1",
                "sleep 30; cat",
            ),
            false,
        )
        .await
        .unwrap();
    // No session: every page answers 401 with the sign-in form; a wrong
    // token in the URL too.
    for p in ["/", "/jobs", "/jobs/0", "/workers", "/blocks"] {
        let r = raw().get(format!("{}{p}", c.url)).send().await.unwrap();
        assert_eq!(r.status(), 401, "{p}");
        assert!(r.text().await.unwrap().contains("name=\"token\""), "{p}");
    }
    let r = raw()
        .get(format!("{}/?token=not-a-token-at-all", c.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().get("set-cookie").is_none());
    // A forged cookie is no session.
    let (code, _) = get(&format!("{}/jobs", c.url), "mrsched_session=0123").await;
    assert_eq!(code, 401);

    let alice = sign_in(&c.url, ALICE).await;
    let r = raw()
        .get(format!("{}/jobs", c.url))
        .header("cookie", &alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let page = r.text().await.unwrap();
    // The job's name is text, never markup.
    assert!(page.contains("&lt;script&gt;alert(1)&lt;img src=x onerror=alert(2)&gt;"));
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains("<img src=x"), "{page}");
    let (_, jp) = get(&format!("{}/jobs/{}", c.url, s.id), &alice).await;
    assert!(!jp.contains("<script>alert"));
    assert!(jp.contains("id=\"kill\""), "the owner sees the kill button");

    // Kills without the right CSRF token are refused; the job runs on.
    let (code, body) = post_kill(&c.url, s.id, &alice, "").await;
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("CSRF"), "{body}");
    let (code, _) = post_kill(&c.url, s.id, &alice, &format!("csrf={}", "0".repeat(48))).await;
    assert_eq!(code, 403);
    // Without a session, even with a token that is someone's CSRF token.
    let csrf = csrf_of(&jp);
    let (code, _) = post_kill(&c.url, s.id, "", &format!("csrf={csrf}")).await;
    assert_eq!(code, 401);
    assert_eq!(c.alice.job(s.id).await.unwrap().status, "running");

    // Bob, with his own valid CSRF token, may not kill alice's job.
    let bob = sign_in(&c.url, BOB).await;
    let (_, bp) = get(&format!("{}/jobs/{}", c.url, s.id), &bob).await;
    assert!(
        !bp.contains("id=\"kill\""),
        "no kill button for another user"
    );
    let (code, body) = post_kill(&c.url, s.id, &bob, &format!("csrf={}", csrf_of(&bp))).await;
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("belongs to"), "{body}");
    // Alice's token is not bob's session's.
    let (code, _) = post_kill(&c.url, s.id, &bob, &format!("csrf={csrf}")).await;
    assert_eq!(code, 403);
    assert_eq!(c.alice.job(s.id).await.unwrap().status, "running");

    // Alice, with her page's token, may.
    let (code, _) = post_kill(&c.url, s.id, &alice, &format!("csrf={csrf}")).await;
    assert_eq!(code, 303);
    assert_eq!(c.alice.job(s.id).await.unwrap().status, "killed");

    // Signing out ends the session.
    let r = raw()
        .post(format!("{}/logout", c.url))
        .header("cookie", &alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let (code, _) = get(&format!("{}/jobs", c.url), &alice).await;
    assert_eq!(code, 401);
    c.stop();
}

/// The `<tr>` of a table row whose attribute `attr` is `value`.
fn row<'a>(dom: &'a str, attr: &str, value: &str) -> &'a str {
    let key = format!("{attr}=\"{value}\"");
    let at = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no row {key} in {dom}"));
    let end = dom[at..].find("</tr>").unwrap() + at;
    &dom[at..end]
}

/// The texts of a row's cells.
fn cells(row: &str) -> Vec<String> {
    row.split("<td")
        .skip(1)
        .map(|c| {
            let body = &c[c.find('>').unwrap() + 1..];
            let body = &body[..body.find("</td>").unwrap_or(body.len())];
            // Strip inner tags (links, spans).
            let mut out = String::new();
            let mut tag = false;
            for ch in body.chars() {
                match ch {
                    '<' => tag = true,
                    '>' => tag = false,
                    _ if !tag => out.push(ch),
                    _ => {}
                }
            }
            out.trim().to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_sees_pools_jobs_and_workers_and_kills_a_job_in_the_browser() {
    if let Some(why) = browser::missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let c = TestCluster::start(2, Some(fair())).await;
    put(&c.alice, "corpus", &corpus(2400), 4 * 1024).await;
    // A quick job of alice's ends first; then both users run slow jobs.
    let quick = c
        .alice
        .submit("q", &job("quick <b>wc", "q-out", "cat"), false)
        .await
        .unwrap();
    let done = c.alice.wait(quick.id, WAIT).await.unwrap();
    assert_eq!(done.status, "succeeded");
    let slow_a = c
        .alice
        .submit("a", &job("alice-slow", "a-out", "sleep 20; cat"), false)
        .await
        .unwrap();
    let slow_b = c
        .bob
        .submit("b", &job("bob-slow", "b-out", "sleep 20; cat"), false)
        .await
        .unwrap();
    // Four map slots, two pools wanting more than two each: 2 apiece.
    let t0 = Instant::now();
    let pools = loop {
        let p = c.alice.pools().await.unwrap();
        let fair_of = |n: &str| p.pools.iter().find(|x| x.name == n).map(|x| x.fair_share);
        if fair_of("alice") == Some(2.0) && fair_of("bob") == Some(2.0) {
            break p;
        }
        assert!(t0.elapsed() < WAIT, "shares never settled: {p:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(pools.pools.len(), 2, "{pools:?}");

    // The pools page, rendered: a row per pool with its fair share and
    // running maps, and the chart.
    let dom = browser::dump_dom(&format!("{}/?token={ALICE}", c.url));
    for p in ["alice", "bob"] {
        let cells = cells(row(&dom, "data-pool", p));
        assert_eq!(cells[0], p);
        assert_eq!(cells[8], "2.0", "{p}'s fair share: {cells:?}");
        let running: u32 = cells[2].parse().unwrap();
        assert!(running <= 4, "{cells:?}");
    }
    assert!(dom.contains("<svg"), "the chart is drawn");
    assert!(dom.contains("Running slots, last hour"));

    // The jobs page: the finished job with its counts, the running ones
    // with their owners; the name with markup in it shows as text.
    let dom = browser::dump_dom(&format!("{}/jobs?token={BOB}", c.url));
    let fin = cells(row(&dom, "data-job", &quick.id.to_string()));
    assert_eq!(fin[1], "quick &lt;b&gt;wc", "{fin:?}");
    assert_eq!(fin[4], "succeeded");
    assert_eq!(fin[5], format!("{0}/{0}", done.maps));
    assert_eq!(fin[6], "1/1");
    let loc: Vec<u32> = fin[7].split('/').map(|x| x.parse().unwrap()).collect();
    assert_eq!(
        loc.iter().sum::<u32>(),
        done.maps,
        "locality counts every map"
    );
    assert!(!dom.contains("<b>wc"), "markup in a name is text");
    for (id, user) in [(slow_a.id, "alice"), (slow_b.id, "bob")] {
        let r = cells(row(&dom, "data-job", &id.to_string()));
        assert_eq!((r[2].as_str(), r[4].as_str()), (user, "running"), "{r:?}");
    }
    assert!(dom.contains("Finished (1)"), "one finished job");

    // The workers page.
    let dom = browser::dump_dom(&format!("{}/workers?token={ALICE}", c.url));
    for w in ["w0", "w1"] {
        let r = cells(row(&dom, "data-worker", w));
        assert_eq!(r[2], "alive", "{r:?}");
        assert!(r[5].parse::<u32>().unwrap() > 0, "{w} holds blocks: {r:?}");
    }

    // A screenshot of the pools page: the size asked for, and not blank.
    let shot = browser::shot_dir().join("pools.png");
    browser::screenshot(&format!("{}/?token={ALICE}", c.url), &shot, 1280, 900);
    assert_eq!(browser::png_size(&shot), (1280, 900));
    let bytes = std::fs::metadata(&shot).unwrap().len();
    assert!(
        bytes > 20_000,
        "a page with tables and a chart: {bytes} bytes"
    );

    // Bob, in a browser, sees no kill button on alice's job, and a forged
    // post of the form with his own token is refused.
    let d = browser::Driver::start().await;
    d.goto(&format!("{}/jobs/{}?token={BOB}", c.url, slow_a.id))
        .await;
    assert!(d.url().await.ends_with(&format!("/jobs/{}", slow_a.id)));
    assert_eq!(d.text("#status").await.as_deref(), Some("running"));
    assert!(d.find("#kill").await.is_none());
    let status = d
        .script(&format!(
            "const t = document.querySelector('meta[name=csrf-token]').content;\
             return fetch('/jobs/{}/kill', {{method: 'POST', body: new URLSearchParams({{csrf: t}})}})\
             .then(r => r.status);",
            slow_a.id
        ))
        .await;
    assert_eq!(status, 403);
    assert_eq!(c.alice.job(slow_a.id).await.unwrap().status, "running");
    drop(d);

    // Alice kills her job with the button.
    let d = browser::Driver::start().await;
    d.goto(&format!("{}/jobs/{}?token={ALICE}", c.url, slow_a.id))
        .await;
    let kill = d.find("#kill").await.expect("the owner's kill button");
    d.click(&kill).await;
    let t0 = Instant::now();
    while d.text("#status").await.as_deref() != Some("killed") {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the page shows the kill"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(c.alice.job(slow_a.id).await.unwrap().status, "killed");
    assert_eq!(c.bob.job(slow_b.id).await.unwrap().status, "running");
    // The page refreshes itself: bob's job is killed through the API and
    // alice's open jobs page shows it without a reload.
    d.goto(&format!("{}/jobs", c.url)).await;
    let marker = d.script("window.__same_page = 1; return 1;").await;
    assert_eq!(marker, 1);
    c.bob.kill(slow_b.id).await.unwrap();
    let t0 = Instant::now();
    loop {
        let r = d
            .text(&format!("tr[data-job='{}'] td.status", slow_b.id))
            .await;
        if r.as_deref() == Some("killed") {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "refreshed: {r:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(d.script("return window.__same_page;").await, 1, "no reload");
    drop(d);
    c.stop();
}
