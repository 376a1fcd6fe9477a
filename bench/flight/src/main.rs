//! The Flight benchmark driver (bench/flight/run.sh runs it).
//!
//! `decode <stream.flight> [runs]`: our decoder over a recorded stream fed in 64 KiB pieces (as the
//! worker's frames arrive), final document checked, median and best time as one JSON line.
//! `render <worker.mjs> [runs]`: a small route rendered through the real Node worker, cold (start
//! the process, render, stop) and warm (one process kept alive), as one JSON line.
//! `decode-once <stream.flight>`: one decode, for callgrind.
//! `synthetic <boundaries> <bytes> <out.flight>`: writes one stream of the growth table.
//! `growth [runs]`: synthetic streams, one JSON line each: a fixed ~1 MB document split over 1,
//! 10, 100 and 1,000 Suspense boundaries, then 40 boundaries over 0.25 to 4 MB; decode time
//! per byte should stay flat along both (linear in bytes).

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
        // One decode and nothing else, for `valgrind --tool=callgrind` (instruction counts).
        Some("decode-once") => {
            let bytes = std::fs::read(args.get(1).ok_or("decode-once needs a file")?)?;
            let events = decode_once(&bytes);
            let complete = matches!(
                events.last().map(|event| &event.kind),
                Some(RenderEventKind::Complete { document }) if document.status == Status::Success
            );
            if !complete {
                return Err("the stream did not decode".into());
            }
            json!({"bytes": bytes.len(), "events": events.len()})
        }
        // A synthetic stream of the growth table written to a file, for `decode-once`.
        Some("synthetic") => {
            let boundaries = runs(1, 1000);
            let bytes = synthetic_stream(boundaries, runs(2, 1 << 20));
            std::fs::write(args.get(3).ok_or("synthetic needs an output file")?, &bytes)?;
            json!({"boundaries": boundaries, "bytes": bytes.len()})
        }
        Some("growth") => {
            for line in growth(runs(1, 9))? {
                writeln!(std::io::stdout(), "{line}")?;
            }
            return Ok(());
        }
        Some("render") => render(
            &PathBuf::from(args.get(1).ok_or("render needs a worker")?),
            runs(2, 20),
        )?,
        _ => return Err(
            "usage: abgen-bench-flight decode <stream.flight> [runs] | decode-once <stream.flight> | synthetic <boundaries> <bytes> <out> | render <worker.mjs> [runs] | growth [runs]"
                .into(),
        ),
    };
    writeln!(std::io::stdout(), "{line}")?;
    Ok(())
}

fn decode_once(bytes: &[u8]) -> Vec<RenderEvent> {
    let limits = DocumentLimits {
        max_events: 100_000,
        max_bytes: 64 << 20,
        max_nodes: usize::MAX,
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
        server: None,
    };
    let request = |id: u64| RenderRequest {
        id,
        route: "tool:demo/result".into(),
        kind: RouteKind::Tool,
        invocation: None,
        input: json!({"mode": "error-root"}),
        context: Default::default(),
        providers: Default::default(),
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

/// A production-shaped Flight stream: a result holding `boundaries` Suspense boundaries (each with
/// a progress fallback), then one row per boundary resolving it, with Agent.Json records (about
/// `total_bytes` in all, spread evenly), the way a route streams sections as they are ready.
fn synthetic_stream(boundaries: usize, total_bytes: usize) -> Vec<u8> {
    let mut stream = String::new();
    stream.push_str("1:\"$Sreact.suspense\"\n");
    let first_content = 2;
    let suspense: Vec<String> = (0..boundaries)
        .map(|index| {
            format!(
                r#"["$","$1","{index}",{{"fallback":["$","agent-progress",null,{{"message":"section {index}"}}],"children":"$L{:x}"}}]"#,
                first_content + index
            )
        })
        .collect();
    stream.push_str(&format!(
        r##"0:["$","agent-result",null,{{"children":[["$","agent-markdown",null,{{"children":"# Report"}}],[{}]]}}]"##,
        suspense.join(",")
    ));
    stream.push('\n');
    let record = |index: usize| {
        format!(
            r#"{{"id":"item-{index}","title":"A title for item number {index}","tags":["alpha","beta"],"size":{index},"ok":true}}"#
        )
    };
    let per_boundary = total_bytes / boundaries;
    let mut next = 0;
    for index in 0..boundaries {
        let mut records = Vec::new();
        let mut bytes = 0;
        while bytes < per_boundary {
            let text = record(next);
            next += 1;
            bytes += text.len() + 1;
            records.push(text);
        }
        stream.push_str(&format!(
            r#"{:x}:["$","agent-json",null,{{"value":{{"section":{index},"items":[{}]}}}}]"#,
            first_content + index,
            records.join(",")
        ));
        stream.push('\n');
    }
    stream.into_bytes()
}

fn growth(runs: usize) -> Result<Vec<serde_json::Value>, Box<dyn std::error::Error>> {
    let shapes = [1, 10, 100, 1000]
        .map(|boundaries| (boundaries, 1 << 20))
        .into_iter()
        .chain([1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22].map(|bytes| (40, bytes)));
    let mut lines = Vec::new();
    for (boundaries, total_bytes) in shapes {
        let bytes = synthetic_stream(boundaries, total_bytes);
        let events = decode_once(&bytes);
        match events.last().map(|event| &event.kind) {
            Some(RenderEventKind::Complete { document }) if document.status == Status::Success => {}
            other => return Err(format!("the synthetic stream did not decode: {other:?}").into()),
        }
        let times = timed(runs, || {
            decode_once(&bytes);
        });
        let median = median(&times);
        lines.push(json!({
            "boundaries": boundaries,
            "bytes": bytes.len(),
            "events": events.len(),
            "runs": runs,
            "medianMs": millis(median),
            "nsPerByte": median.as_secs_f64() * 1e9 / bytes.len() as f64,
        }));
    }
    Ok(lines)
}
