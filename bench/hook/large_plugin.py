#!/usr/bin/env python3
"""A hook delivery of a large plugin against the same delivery of a small one, in one run.

Both plugins are benchmark projects of bench/check (`gen-projects --routes N`: N tools over ten
MCP servers and the same five event routes), built by `abgen build` with the real `abgen-host`:
1,000 routes (a 13.5 MB manifest) and 5. Each delivery is what a host pays: spawn
`bin/abgen-host hook --host claude --event session/start`, write Claude's SessionStart payload,
read the answer. Two paths, each timed on both plugins:

- `warm`: answered by the warm socket of a running `abgen-host mcp` of that artifact's first
  server (its own `XDG_RUNTIME_DIR`), the route rendered on the MCP session's kernel; the
  warm-up delivery must be logged as answered by the warm runtime, and every timed one must
  leave nothing on stderr;
- `no runtime`: no server up, and the route declares no fallback, so the hook reads the manifest
  and answers honestly with nothing.

The manifest's size should not show: the goal is the large plugin within 1.2× the small one
on each path. `node -e 0` runs in the same rounds for scale.

Usage: python3 bench/hook/large_plugin.py [--routes N] [--rounds N] [--no-build]
                                          [--host LABEL=PATH ...]
`--host` adds contenders: the large plugin's artifact with another `abgen-host` binary (say the
revision before a change) in its `bin/`, on both paths. Prints a Markdown report to stdout.
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELEASE = os.path.join(ROOT, "target", "release")
PAYLOAD = os.path.join(ROOT, "fixtures", "hosts", "claude", "SessionStart.json")
SMALL_ROUTES = 5


def build_plugin(scratch, name, routes):
    project = os.path.join(scratch, f"{name}-project")
    subprocess.run([os.path.join(RELEASE, "gen-projects"), "--routes", str(routes),
                    "--out", project], check=True, stdout=subprocess.DEVNULL)
    artifact = os.path.join(scratch, name)
    modules = os.environ.get("ABGEN_NODE_MODULES", os.path.join(ROOT, "node_modules"))
    subprocess.run([os.path.join(RELEASE, "abgen"), "build", "--root", project, "--out", artifact],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "ABGEN_HOST": os.path.join(RELEASE, "abgen-host"),
                        "ABGEN_NODE_MODULES": modules})
    return artifact


class Delivery:
    """One contender: a hook of `artifact` with `runtime` as its XDG_RUNTIME_DIR."""

    def __init__(self, artifact, runtime, payload, warm):
        self.artifact, self.runtime, self.payload, self.warm = artifact, runtime, payload, warm

    def run(self):
        env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
        env["XDG_RUNTIME_DIR"] = self.runtime
        started = time.perf_counter()
        done = subprocess.run([os.path.join(self.artifact, "bin", "abgen-host"), "hook",
                               "--host", "claude", "--event", "session/start"],
                              input=self.payload, capture_output=True, env=env)
        elapsed = time.perf_counter() - started
        if done.returncode != 0 or (self.warm and done.stderr):
            raise SystemExit(f"{self.artifact}: {done.returncode} {done.stderr!r}")
        if not self.warm and b"no warm runtime" not in done.stderr:
            raise SystemExit(f"{self.artifact}: answered without a runtime? {done.stderr!r}")
        return elapsed


def start_server(artifact, runtime):
    """`abgen-host mcp` of the first server of `artifact`, initialized, its stdin held open."""
    os.makedirs(runtime, exist_ok=True)
    with open(os.path.join(artifact, "abgen.manifest.json")) as manifest:
        first = json.load(manifest)["servers"][0]["id"]
    server = subprocess.Popen([os.path.join(artifact, "bin", "abgen-host"), "mcp",
                               "--server", first],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env={**os.environ, "XDG_RUNTIME_DIR": runtime})
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "claude-code", "version": "2.1.332"}}}
    server.stdin.write((json.dumps(initialize) + "\n").encode())
    server.stdin.flush()
    if b'"result"' not in server.stdout.readline():
        raise SystemExit(f"{artifact}: initialize was not answered")
    return server


def await_warm(delivery, log):
    """Delivers until the warm runtime answers (its socket opens after `initialize`)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        open(log, "w").close()
        env = {**os.environ, "XDG_RUNTIME_DIR": delivery.runtime, "ABGEN_HOOK_LOG": log}
        subprocess.run([os.path.join(delivery.artifact, "bin", "abgen-host"), "hook",
                        "--host", "claude", "--event", "session/start"],
                       input=delivery.payload, capture_output=True, env=env)
        with open(log) as lines:
            if any(json.loads(line)["answeredBy"] == "warm" for line in lines):
                return
        time.sleep(0.05)
    raise SystemExit(f"{delivery.artifact}: the warm runtime never answered")


def node_start():
    started = time.perf_counter()
    subprocess.run(["node", "-e", "0"], check=True)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--routes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--host", action="append", default=[])
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p", "abgen",
                        "-p", "abgen-runtime", "-p", "abgen-bench-check"], cwd=ROOT, check=True)
    with open(PAYLOAD, "rb") as payload_file:
        payload = payload_file.read()
    scratch = tempfile.mkdtemp(prefix="abgen-bench-hook-large-")
    servers = []
    try:
        large = build_plugin(scratch, "large", args.routes)
        small = build_plugin(scratch, "small", SMALL_ROUTES)
        plugins = [(f"{args.routes:,} routes", large), (f"{SMALL_ROUTES} routes", small)]
        for spec in args.host:
            label, binary = spec.split("=", 1)
            copy = os.path.join(scratch, f"large-{len(plugins)}")
            shutil.copytree(large, copy, symlinks=True)
            shutil.copy2(binary, os.path.join(copy, "bin", "abgen-host"))
            plugins.append((f"{args.routes:,} routes, {label}", copy))
        contenders = []
        log = os.path.join(scratch, "hook.log")
        for index, (label, artifact) in enumerate(plugins):
            runtime = os.path.join(scratch, f"runtime-{index}")
            servers.append(start_server(artifact, runtime))
            warm = Delivery(artifact, runtime, payload, warm=True)
            await_warm(warm, log)
            contenders.append((f"warm, {label}", warm))
            cold = Delivery(artifact, os.path.join(scratch, f"none-{index}"), payload, warm=False)
            contenders.append((f"no runtime, {label}", cold))
        for _, delivery in contenders:
            delivery.run()
        times = {label: [] for label, _ in contenders}
        times["node -e 0"] = []
        for round_index in range(args.rounds):
            order = contenders if round_index % 2 == 0 else contenders[::-1]
            for label, delivery in order:
                times[label].append(delivery.run())
            times["node -e 0"].append(node_start())
        size = os.path.getsize(os.path.join(large, "abgen.manifest.json"))
        small_size = os.path.getsize(os.path.join(small, "abgen.manifest.json"))
    finally:
        for server in servers:
            # Closing stdin ends the session; the server removes its socket and ends its workers.
            server.stdin.close()
            server.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)
    revision = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    extra = "".join(f" --host {spec.split('=', 1)[0]}=PATH" for spec in args.host)
    print("# A hook delivery of a large plugin\n")
    print(f"`python3 bench/hook/large_plugin.py --routes {args.routes} --rounds {args.rounds}{extra}` "
          f"at `{revision}`, {time.strftime('%Y-%m-%d %H:%M')} UTC, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}. Manifests of "
          f"{size / 1e6:.1f} MB ({args.routes:,} routes) and {small_size / 1e3:.0f} kB "
          f"({SMALL_ROUTES} routes); `abgen-host hook --host claude --event session/start`.\n")
    print(f"| contender | median | min | median / the same path, {SMALL_ROUTES} routes |")
    print("| --- | ---: | ---: | ---: |")
    for label, samples in times.items():
        path = label.split(",")[0]
        peer = times.get(f"{path}, {SMALL_ROUTES} routes")
        ratio = f"{statistics.median(samples) / statistics.median(peer):.2f}×" if peer else "—"
        print(f"| {label} | {statistics.median(samples) * 1000:.2f} ms | "
              f"{min(samples) * 1000:.2f} ms | {ratio} |")


if __name__ == "__main__":
    sys.exit(main())
