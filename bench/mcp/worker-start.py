#!/usr/bin/env python3
"""The render worker's own cold start, against `node -e 0`, interleaved.

Usage: python3 bench/mcp/worker-start.py ARTIFACT [--rounds N] [--cpu-prof DIR]
Times `node --conditions=react-server ARTIFACT/runtime/worker.mjs` from spawn to its hello on
fd 4 (fd 3 then closes and the worker exits): with V8's code cache where the worker keeps it by
default (the plugin's state root, under a HOME of this script's own, written by a warm-up
start), with an empty state root each time (no cache), and `node -e 0`. With --cpu-prof, one
more cached start is profiled (`node --cpu-prof`) into DIR. Prints one JSON line.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

STATE_VARIABLES = ("ABGEN_STATE_DIR", "CLAUDE_PLUGIN_DATA", "PLUGIN_DATA",
                   "AGENT_BUNDLE_STATE_ROOT", "XDG_STATE_HOME")


def worker_start(worker, home, state=None, node_args=()):
    env = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES}
    env.update({"HOME": home, "NODE_ENV": "production"})
    if state is not None:
        env["AGENT_BUNDLE_STATE_ROOT"] = state
    to_worker_read, to_worker_write = os.pipe()
    from_worker_read, from_worker_write = os.pipe()
    started = time.perf_counter()
    # The worker reads fd 3 and writes fd 4; pass_fds keeps the numbers, so they are moved there.
    child = subprocess.Popen(
        ["node", *node_args, "--conditions=react-server", worker],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=env, pass_fds=(3, 4),
        preexec_fn=lambda: (os.dup2(to_worker_read, 3), os.dup2(from_worker_write, 4)))
    os.close(to_worker_read)
    os.close(from_worker_write)
    if not os.read(from_worker_read, 1):
        raise SystemExit("the worker exited before its hello")
    elapsed = time.perf_counter() - started
    os.close(to_worker_write)
    child.wait(timeout=30)
    os.close(from_worker_read)
    return elapsed


def node_start():
    started = time.perf_counter()
    subprocess.run(["node", "-e", "0"], check=True)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("artifact")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--cpu-prof")
    args = parser.parse_args()
    worker = os.path.join(args.artifact, "runtime/worker.mjs")
    scratch = tempfile.mkdtemp(prefix="abgen-bench-worker-")
    home = os.path.join(scratch, "home")
    try:
        worker_start(worker, home)  # writes the cache under the default state root
        time.sleep(0.5)
        contenders = [
            ("cached", lambda: worker_start(worker, home)),
            ("uncached", lambda: worker_start(worker, home, tempfile.mkdtemp(dir=scratch))),
            ("node", node_start),
        ]
        timings = {name: [] for name, _ in contenders}
        for round_ in range(args.rounds):
            for name, run in contenders if round_ % 2 == 0 else reversed(contenders):
                timings[name].append(run() * 1000)
        if args.cpu_prof:
            worker_start(worker, home, node_args=("--cpu-prof", "--cpu-prof-interval", "100",
                                                  "--cpu-prof-dir", args.cpu_prof))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median = {name: statistics.median(values) for name, values in timings.items()}
    print(json.dumps({
        "rounds": args.rounds,
        "medianMs": median,
        "minMs": {name: min(values) for name, values in timings.items()},
        "cachedOverNode": median["cached"] / median["node"],
        "uncachedOverNode": median["uncached"] / median["node"],
        "load": os.getloadavg()[0],
    }))


if __name__ == "__main__":
    main()
