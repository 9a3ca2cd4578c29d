//! # sim-batch: many runs
//!
//! Batches: many runs of worlds × seeds × SDF overrides, each checked, each written to a
//! folder of its own, and a summary of them all (see `docs/batch.md`).
//!
//! - [`sweep`]: the sweep file (TOML), read and checked whole before anything runs, and
//!   expanded into [`RunSpec`]s;
//! - [`run`]: one run in this process ([`run_one`]), its `metrics.json` and recording;
//! - [`checks`]: what a run is checked for;
//! - [`summary`]: the summary table, CSV and Parquet;
//! - [`execute`]: the executors, a local pool of worker processes and Ray tasks: each hands
//!   a [`RunSpec`] to a worker that calls [`run_one`], so every executor writes the same
//!   files for the same run.

pub mod checks;
pub mod execute;
pub mod run;
pub mod summary;
pub mod sweep;

pub use checks::{Check, Verdict};
pub use run::{Metrics, Status, run_one};
pub use sweep::{Length, RunSpec, Sweep, SweepError};
