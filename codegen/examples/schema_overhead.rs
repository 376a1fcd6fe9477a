//! What static schema translation adds to `abgen check`, measured in one process:
//! `schema_overhead DIR [ROUNDS]` runs, each round, the whole check of `DIR` (which translates
//! every tool's schemas) and then the schema stage alone (translation and host-profile checks,
//! as `check` runs them) on the check's own modules, and prints
//! the medians and the overhead `schemas / (check - schemas)`. Used by `bench/schema/README.md`
//! on the synthetic project of `bench/check` (`gen-projects --routes 1000`).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use abgen::check::{CheckOptions, check_project};
use abgen::project::FsReader;
use abgen::schema::{RouteSchema, TranslateOptions, translate_routes};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// CPU time of this process so far (every thread, user + system), from `/proc/self/stat` in
/// clock ticks of 10 ms (Linux's USER_HZ); zero where that file does not exist. On a shared,
/// loaded machine CPU time varies less than wall time.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may contain spaces) start after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".to_owned()));
    let rounds: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(15)
        .max(1);
    let options = CheckOptions {
        root: root.clone(),
        targets: None,
    };
    let (mut checks, mut schemas) = (Vec::new(), Vec::new());
    let (mut check_cpu, mut schema_cpu) = (Duration::ZERO, Duration::ZERO);
    let mut translated = 0;
    for _ in 0..rounds {
        let (started, cpu) = (Instant::now(), cpu_time());
        let checked = check_project(&options);
        checks.push(started.elapsed());
        check_cpu += cpu_time().saturating_sub(cpu);
        let (started, cpu) = (Instant::now(), cpu_time());
        let targets: Vec<&str> = checked
            .graph
            .iter()
            .flat_map(|graph| graph.targets.iter().map(|target| target.as_str()))
            .collect();
        // Translation checks each route against the host profiles in the route's own task.
        let translate = TranslateOptions {
            targets: &targets,
            discard: false,
        };
        let alone = translate_routes(
            &root,
            &FsReader,
            &checked.modules,
            &checked.sources,
            translate,
        );
        schemas.push(started.elapsed());
        schema_cpu += cpu_time().saturating_sub(cpu);
        translated = alone
            .routes
            .values()
            .flat_map(|route| [&route.input, &route.output])
            .filter(|side| matches!(side, RouteSchema::Static(_)))
            .count();
    }
    let (check, schema) = (median(checks), median(schemas));
    let without = check.saturating_sub(schema);
    let overhead = schema.as_secs_f64() / without.as_secs_f64().max(f64::EPSILON);
    let mut out = std::io::stdout().lock();
    writeln!(out, "rounds: {rounds}")?;
    writeln!(out, "schemas printed statically: {translated}")?;
    writeln!(out, "check with schemas (median): {check:.2?}")?;
    writeln!(out, "schema stage alone (median): {schema:.2?}")?;
    writeln!(out, "check without schemas: {without:.2?}")?;
    writeln!(out, "overhead (median wall time): {:.1}%", overhead * 100.0)?;
    let cpu_overhead = schema_cpu.as_secs_f64()
        / check_cpu
            .saturating_sub(schema_cpu)
            .as_secs_f64()
            .max(f64::EPSILON);
    writeln!(
        out,
        "CPU time over all rounds: check {check_cpu:.2?}, schema stage {schema_cpu:.2?}, overhead {:.1}%",
        cpu_overhead * 100.0
    )
}
