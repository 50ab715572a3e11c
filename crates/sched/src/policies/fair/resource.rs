//! YARN resource amounts (`minResources`, `maxResources`) and how they
//! become slots.
//!
//! YARN sizes queues in memory and vcores; the model has slots. An amount is
//! read in any of YARN's spellings and turned into slots at scheduler build
//! time, when the container size and the cluster are known: whole
//! containers for absolute amounts, a part of the cluster's slots for
//! percentages (`docs/policies/fair.md`).

/// A YARN resource amount: memory and vcores, absolute or percentages of
/// the cluster. A component left out (possible in the `memory-mb=X` form)
/// does not limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// Megabytes, or percent of the cluster's memory.
    pub memory: Option<f64>,
    /// Vcores, or percent of the cluster's vcores.
    pub vcores: Option<f64>,
    /// Whether the amounts are percentages.
    pub percent: bool,
}

fn amount(t: &str, percent: bool) -> Result<f64, String> {
    match t.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && (!percent || v <= 100.0) => Ok(v),
        _ if percent => Err(format!("`{}%` is not a percentage from 0 to 100", t.trim())),
        _ => Err(format!("`{}` is not an amount >= 0", t.trim())),
    }
}

impl Resource {
    /// Parse the forms YARN accepts: `X mb, Y vcores`, `memory-mb=X,
    /// vcores=Y`, `X%`, `X% memory, Y% cpu` and `memory-mb=X%, vcores=Y%`.
    pub fn parse(text: &str) -> Result<Resource, String> {
        let t = text.trim().to_ascii_lowercase();
        if t.is_empty() {
            return Err("an empty resource (expected `X mb, Y vcores`)".into());
        }
        let mut r = Resource {
            memory: None,
            vcores: None,
            percent: false,
        };
        if t.contains('=') {
            let mut percent = None;
            for part in t.split(',') {
                let Some((k, v)) = part.split_once('=') else {
                    return Err(format!("`{}` is not `name=value`", part.trim()));
                };
                let v = v.trim();
                let (num, pct) = match v.strip_suffix('%') {
                    Some(n) => (n, true),
                    None => (v, false),
                };
                if percent.is_some_and(|p| p != pct) {
                    return Err("mixes percentages and amounts".into());
                }
                percent = Some(pct);
                let x = amount(num, pct)?;
                let slot = match k.trim() {
                    "memory-mb" | "memory" => &mut r.memory,
                    "vcores" => &mut r.vcores,
                    other => {
                        return Err(format!(
                            "unknown resource `{other}` (expected memory-mb and vcores)"
                        ))
                    }
                };
                if slot.replace(x).is_some() {
                    return Err(format!("`{}` is given twice", k.trim()));
                }
            }
            r.percent = percent.unwrap_or(false);
            return Ok(r);
        }
        if let Some(n) = t.strip_suffix('%').filter(|n| !n.contains(',')) {
            let x = amount(n, true)?;
            return Ok(Resource {
                memory: Some(x),
                vcores: Some(x),
                percent: true,
            });
        }
        let mut pct = None;
        for part in t.split(',') {
            let part = part.trim();
            let end = part
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(part.len());
            let (num, unit) = part.split_at(end);
            let unit = unit.trim();
            let (slot, p) = match unit {
                "mb" => (&mut r.memory, false),
                "vcores" | "vcore" => (&mut r.vcores, false),
                "% memory" | "%memory" => (&mut r.memory, true),
                "% cpu" | "%cpu" => (&mut r.vcores, true),
                _ => {
                    return Err(format!(
                        "`{part}`: expected `X mb`, `Y vcores`, `X% memory` or `Y% cpu`"
                    ))
                }
            };
            if pct.is_some_and(|q| q != p) {
                return Err("mixes percentages and amounts".into());
            }
            pct = Some(p);
            let x = amount(num, p)?;
            if slot.replace(x).is_some() {
                return Err(format!("`{unit}` is given twice"));
            }
        }
        if r.memory.is_none() || r.vcores.is_none() {
            return Err("needs both memory and vcores: `X mb, Y vcores`".into());
        }
        r.percent = pct.unwrap_or(false);
        Ok(r)
    }

    /// Slots `[maps, reduces]`: absolute amounts are the whole containers of
    /// `container` (MB, vcores) they hold, the same for both kinds;
    /// percentages are that part of the cluster's slots `cap`, rounded down.
    pub fn slots(&self, container: [f64; 2], cap: [f64; 2]) -> [f64; 2] {
        let parts = [self.memory, self.vcores];
        if self.percent {
            let f = parts.iter().flatten().fold(100.0f64, |a, b| a.min(*b)) / 100.0;
            [(f * cap[0]).floor(), (f * cap[1]).floor()]
        } else {
            let n = parts
                .iter()
                .zip(container)
                .filter_map(|(v, c)| v.map(|v| v / c))
                .fold(f64::INFINITY, f64::min);
            [n.floor(), n.floor()]
        }
    }
}
