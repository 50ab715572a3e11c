//! Spark's `fairscheduler.xml`, read as is.
//!
//! Spark applications share their executors' cores among pools with this
//! file: `<pool name>` elements holding `schedulingMode` (`FAIR` or `FIFO`
//! among the pool's jobs), `weight` and `minShare`. Spark computes no fair
//! shares: it orders pools needy-first (running below `minShare`), then by
//! running tasks / weight, which is the Fair Scheduler's comparator with
//! `order = "weight"`; so the file becomes [`Allocations`] with MR1
//! semantics and that order ([`AllocFormat::Spark`]).
//!
//! Mapping: `minShare` counts cores, i.e. task slots, and is the minimum for
//! map and for reduce slots alike; pools are flat (Spark has no nesting);
//! pools not in the file run FIFO inside with weight 1 and no minimum, and a
//! job naming no pool runs in `default`, as in Spark.

use super::alloc::{AllocFormat, Allocations, Mode, PoolConf, Xml};
use mrsched_model::InputErrors;
use std::collections::BTreeSet;

const POOL_ELEMENTS: &str = "schedulingMode, weight, minShare";

/// Read a Spark `fairscheduler.xml` (already known to be one: see
/// [`super::alloc::xml_dialect`]).
pub(super) fn read(doc: &roxmltree::Document, mut x: Xml) -> Result<Allocations, InputErrors> {
    let mut a = Allocations {
        file: x.file.to_string(),
        format: AllocFormat::Spark,
        default_mode: Mode::Fifo,
        ..Default::default()
    };
    let mut names = BTreeSet::new();
    for c in doc.root_element().children().filter(|c| c.is_element()) {
        let tag = c.tag_name().name();
        if tag != "pool" {
            x.err(
                c,
                tag,
                format!("unknown element <{tag}> in <allocations> (expected pool)"),
            );
            continue;
        }
        let Some(name) = x.name(c, "pool") else {
            continue;
        };
        let field = format!("pool[{name}]");
        if !names.insert(name.clone()) {
            x.err(c, &field, format!("pool `{name}` is defined twice"));
            continue;
        }
        let mut p = PoolConf::new(name, field.clone(), Some(x.line(c)));
        // Spark's default inside a declared pool is FIFO too.
        p.mode = Some(Mode::Fifo);
        let mut seen = BTreeSet::new();
        for e in c.children().filter(|e| e.is_element()) {
            let t = e.tag_name().name();
            let f = format!("{field}.{t}");
            if !seen.insert(t.to_string()) {
                x.err(e, &f, format!("<{t}> is given twice"));
                continue;
            }
            match t {
                "schedulingMode" => {
                    if let Some(m) = x.mode(e, &f) {
                        p.mode = Some(m);
                    }
                }
                "weight" => {
                    let max = mrsched_model::Limits::current().max_weight;
                    p.weight = x.number(e, &f, "a weight >= 0", max).unwrap_or(1.0);
                }
                "minShare" => {
                    let m = x.count(e, &f).unwrap_or(0) as f64;
                    p.min = [m, m];
                }
                _ => x.err(
                    e,
                    &f,
                    format!("unknown element <{t}> in a Spark <pool> (expected one of: {POOL_ELEMENTS})"),
                ),
            }
        }
        a.pools.push(p);
    }
    x.errs.into_result(a)
}
