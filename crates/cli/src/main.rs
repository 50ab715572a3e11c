//! `mrsched`: simulate, compare and reproduce multi-user MapReduce
//! schedulers.
//!
//! The binary is a thin layer: it parses arguments, resolves built-in names
//! or files into clusters, workloads and scheduler configurations, runs the
//! simulator or an experiment, and prints a table, JSON or CSV. Exit codes:
//! 0 success, 1 a run failed, 2 bad input (files, arguments).

mod args;
mod commands;
mod live;
mod live_limits;
mod progress;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let code = match commands::run(cli) {
        Ok(()) => 0,
        Err(e) => {
            for line in e.message.lines() {
                eprintln!("error: {line}");
            }
            e.code
        }
    };
    std::process::exit(code);
}
