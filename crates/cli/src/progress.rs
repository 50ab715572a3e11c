//! A progress bar on stderr for long runs (hidden when stderr is not a
//! terminal, so scripts and JSON consumers see nothing).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar from 0 to 1000 (per mille of jobs ended).
pub fn bar(label: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:40}] {percent:>3}% {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb
}
