//! `abgen dev proxy` as a host keeps it connected, driven by the official MCP TypeScript SDK
//! client (`codegen/tests/support/dev-proxy.mjs`) while `abgen dev` rebuilds a copy of
//! `fixtures/projects/valid-mcp-calls` with the real `abgen-host`: progress is forwarded under
//! the host's token, an admitted call finishes on its epoch, the rebuild reaches the host as
//! `notifications/tools/list_changed` and new calls go to the new epoch, each epoch runs from
//! its own pinned copy of the artifact (gone with the epoch), and a vanished epoch ("AB8024")
//! or development server ("AB8025") fails closed with its code. Needs the npm workspace
//! installed and Node 20+.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{copy_project, host_binary, repo};

#[test]
fn the_proxy_keeps_the_host_connected_across_rebuilds_and_fails_closed() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let project = temp.join("project");
    copy_project(&repo().join("fixtures/projects/valid-mcp-calls"), &project);
    let out = temp.join("out");
    let runtime = temp.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    let mut dev = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(["dev", "--root"])
        .arg(&project)
        .arg("--out")
        .arg(&out)
        .env("ABGEN_HOST", host_binary())
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("NO_COLOR", "1")
        .env_remove("ABGEN_WORKER_BUNDLE")
        .env_remove("ABGEN_FAILPOINT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("abgen dev starts");
    // The first build's line; the rest of the output is read (and dropped) on a thread.
    let mut lines = BufReader::new(dev.stdout.take().unwrap()).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    assert!(first.starts_with("built "), "{first}");
    std::thread::spawn(move || lines.for_each(drop));

    let output = Command::new("node")
        .arg(repo().join("codegen/tests/support/dev-proxy.mjs"))
        .arg(env!("CARGO_BIN_EXE_abgen"))
        .arg(&project)
        .arg(&out)
        .arg(dev.id().to_string())
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("NO_COLOR", "1")
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = dev.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = dev.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(output.status.success(), "dev-proxy.mjs failed:\n{stderr}");
    let seen: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"));
    assert_eq!(seen["after"], "Answers at once, rebuilt.", "{seen}");
    let progress: Vec<f64> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(progress.last(), Some(&3.0), "{seen}");
    assert!(progress.windows(2).all(|pair| pair[0] < pair[1]), "{seen}");
    let events: Vec<&str> = seen["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        events.first().copied(),
        Some("tools/list_changed"),
        "the new epoch took over before the admitted call answered: {seen}"
    );
    assert!(events.contains(&"nap answered"), "{seen}");
    assert_eq!(
        seen["pinsAfter"].as_array().map(Vec::len),
        Some(1),
        "{seen}"
    );
    let epoch_gone = seen["epochGone"].as_str().unwrap();
    assert!(
        epoch_gone.contains("[AB8024]") && epoch_gone.contains("is gone"),
        "{epoch_gone}"
    );
    let dev_gone = seen["devGone"].as_str().unwrap();
    assert!(
        dev_gone.contains("[AB8025]") && dev_gone.contains("`abgen dev` is not running"),
        "{dev_gone}"
    );
    // Each failure is also reported once on the proxy's standard error, as a diagnostic.
    let proxy_stderr = seen["proxyStderr"].as_str().unwrap();
    assert_eq!(
        proxy_stderr.matches("error[AB8024]").count(),
        1,
        "{proxy_stderr}"
    );
    assert_eq!(
        proxy_stderr.matches("error[AB8025]").count(),
        1,
        "{proxy_stderr}"
    );
    // The proxy ended with its host and took its last pin with it.
    let epochs = project.join(".agent-bundle/dev/epochs");
    let pins_left = std::fs::read_dir(&epochs).map_or(0, Iterator::count);
    assert_eq!(pins_left, 0, "pins left in {}", epochs.display());
    // SIGTERM ended `abgen dev` within its bound, cleanly.
    assert!(status.is_some_and(|status| status.success()), "{status:?}");
    assert!(!project.join(".agent-bundle/dev.json").exists());
}
