//! The Flight benchmark driver (bench/flight/run.sh runs it).
//!
//! `decode <stream.flight> [runs]`: our decoder over a recorded stream fed in 64 KiB pieces (as the
//! worker's frames arrive), final document checked, median and best time as one JSON line.
//! `render <worker.mjs> [runs]`: a small route rendered through the real Node worker, cold (start
//! the process, render, stop) and warm (one process kept alive), as one JSON line.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use abgen_runtime::document::{DocumentLimits, RenderEvent, RenderEventKind, Status};
use abgen_runtime::flight::FlightDecoder;
use abgen_runtime::worker::{
    RenderRequest, RouteKind, WORKER_PROTOCOL, Worker, WorkerConfig, WorkerIdentity, locate_node,
};
use serde_json::json;

const PIECE_BYTES: usize = 64 * 1024;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = |index: usize, default: usize| -> usize {
        args.get(index)
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    let line = match args.first().map(String::as_str) {
        Some("decode") => decode(
            &PathBuf::from(args.get(1).ok_or("decode needs a file")?),
            runs(2, 50),
        )?,
        Some("render") => render(
            &PathBuf::from(args.get(1).ok_or("render needs a worker")?),
            runs(2, 20),
        )?,
        _ => return Err(
            "usage: abgen-bench-flight decode <stream.flight> [runs] | render <worker.mjs> [runs]"
                .into(),
        ),
    };
    writeln!(std::io::stdout(), "{line}")?;
    Ok(())
}

fn decode_once(bytes: &[u8]) -> Vec<RenderEvent> {
    let limits = DocumentLimits {
        max_events: 100_000,
        ..DocumentLimits::default()
    };
    let mut decoder = FlightDecoder::new("bench:catalog", limits);
    let mut events = Vec::new();
    for piece in bytes.chunks(PIECE_BYTES) {
        events.extend(decoder.push(piece));
    }
    events.extend(decoder.finish());
    events
}

fn decode(path: &PathBuf, runs: usize) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let events = decode_once(&bytes);
    match events.last().map(|event| &event.kind) {
        Some(RenderEventKind::Complete { document }) if document.status == Status::Success => {}
        other => return Err(format!("the benchmark stream did not decode: {other:?}").into()),
    }
    for _ in 0..3 {
        decode_once(&bytes);
    }
    let times = timed(runs, || {
        decode_once(&bytes);
    });
    let median = median(&times);
    Ok(json!({
        "bytes": bytes.len(),
        "events": events.len(),
        "runs": runs,
        "bestMs": millis(times[0]),
        "medianMs": millis(median),
        "mbPerSecond": bytes.len() as f64 / 1e6 / median.as_secs_f64(),
    }))
}

fn render(entry: &PathBuf, runs: usize) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let config = WorkerConfig {
        node: locate_node()?,
        entry: entry.clone(),
        expected: WorkerIdentity {
            protocol: WORKER_PROTOCOL,
            react: "19.3.1".into(),
            artifact: "test-artifact-digest".into(),
        },
        hello_timeout: Duration::from_secs(20),
    };
    let request = |id: u64| RenderRequest {
        id,
        route: "tool:demo/result".into(),
        kind: RouteKind::Tool,
        input: json!({"mode": "error-root"}),
        context: Default::default(),
        limits: Default::default(),
    };
    let render_on = |worker: &mut Worker, id: u64| {
        let mut complete = false;
        let outcome = worker.render_events(
            &request(id),
            DocumentLimits::default(),
            Duration::from_secs(20),
            |event| {
                complete |= event.is_complete();
            },
        );
        assert!(
            outcome.is_ok() && complete,
            "the bench render failed: {outcome:?}"
        );
    };
    let mut id = 0;
    let cold = timed(runs, || {
        let mut worker = Worker::start(&config).expect("the worker starts");
        id += 1;
        render_on(&mut worker, id);
    });
    let mut worker = Worker::start(&config)?;
    render_on(&mut worker, 0);
    let warm = timed(runs, || {
        id += 1;
        render_on(&mut worker, id);
    });
    Ok(json!({
        "route": "tool:demo/result (a root <Agent.Error>, no await)",
        "runs": runs,
        "coldMedianMs": millis(median(&cold)),
        "coldBestMs": millis(cold[0]),
        "warmMedianMs": millis(median(&warm)),
        "warmBestMs": millis(warm[0]),
    }))
}

/// Runs `body` `runs` times; the durations, sorted.
fn timed(runs: usize, mut body: impl FnMut()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            body();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn median(times: &[Duration]) -> Duration {
    times[times.len() / 2]
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
