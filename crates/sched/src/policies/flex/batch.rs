//! BATCH windows (seed 000 §4): the batching baseline the paper built in
//! the spirit of AKO (prior-work.md §5).
//!
//! Every dataset's arrivals are batched at the end of a fixed window `W`;
//! the window starts are offset evenly across the `D` datasets ("to space
//! the batch arrivals as equally as possible"), dataset `d` using windows
//! `[o_d + kW, o_d + (k+1)W)` with `o_d = d W / D`. A job arriving in a
//! window is released, together with the rest of its batch, at the window's
//! end; a batch is scanned once for all its jobs, and FLEX schedules the
//! batches. A job arriving exactly on a boundary waits a whole window.

/// Batch windows for `datasets` datasets.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BatchWindows {
    /// Window length `W`, seconds.
    pub window: f64,
    /// Number of datasets `D` (for the offsets).
    pub datasets: u32,
}

impl BatchWindows {
    /// The offset of dataset `d`'s windows.
    pub fn offset(&self, d: u32) -> f64 {
        if self.datasets == 0 {
            0.0
        } else {
            (d % self.datasets) as f64 * self.window / self.datasets as f64
        }
    }

    /// The window index and release time of a job of dataset `d` arriving
    /// at `t` (seconds).
    pub fn release(&self, d: u32, t: f64) -> (i64, f64) {
        let o = self.offset(d);
        let k = ((t - o) / self.window).floor() as i64;
        (k, o + (k + 1) as f64 * self.window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_offset_evenly() {
        let w = BatchWindows {
            window: 120.0,
            datasets: 20,
        };
        assert_eq!(w.offset(0), 0.0);
        assert_eq!(w.offset(1), 6.0);
        assert_eq!(w.offset(19), 114.0);
        // Dataset 0: [0, 120) released at 120; exactly 120 waits until 240.
        assert_eq!(w.release(0, 5.0), (0, 120.0));
        assert_eq!(w.release(0, 120.0), (1, 240.0));
        // Dataset 1: windows [6, 126) ...; a job at 3 s is in [-114, 6).
        assert_eq!(w.release(1, 3.0), (-1, 6.0));
        assert_eq!(w.release(1, 7.0), (0, 126.0));
        // 100 minutes hold 50 windows per dataset (50 or 51 releases).
        let releases = (0..6000)
            .map(|s| w.release(7, s as f64).0)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        assert!(releases == 50 || releases == 51, "{releases}");
    }
}
