#!/usr/bin/env python3
"""The render worker's own cold start, against `node -e 0`, interleaved.

Usage: python3 bench/mcp/worker-start.py ARTIFACT [--rounds N] [--cpu-prof DIR] [--render ROUTE INPUT]
Times `node --conditions=react-server ARTIFACT/runtime/worker.mjs` from spawn to its hello on
fd 4 (fd 3 then closes and the worker exits): with V8's code cache where the worker keeps it by
default (the plugin's state root, under a HOME of this script's own, written by a warm-up
start), with an empty state root each time (no cache), and `node -e 0`. With --render (say
`--render tool:desk/quick '{"n":1}'` for fixtures/projects/valid-mcp-calls), one more cached
contender sends the worker a render of ROUTE with the JSON INPUT after its hello, as abgen-host
frames it, and is timed to the render's `end`. With --cpu-prof, one more cached start (with the
render, if asked) is profiled (`node --cpu-prof`) into DIR. Prints one JSON line.
"""

import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import tempfile
import time

from session import STATE_VARIABLES, clear_node_start_variables


def frame(header):
    """One frame of the worker protocol (schemas/worker-protocol.schema.json) with no payload."""
    body = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<II", 4 + len(body), len(body)) + body


def render_frame(route, tool_input):
    """A render of `route` as abgen-host sends it, for a client that names no known host."""
    return frame({"type": "render", "id": 1, "route": route, "kind": route.split(":")[0],
                  "input": tool_input,
                  "context": {"host": {"state": "unavailable", "code": "not-reported",
                                       "reason": "the benchmark names no known host"}},
                  "limits": {"maxFlightBytes": 8388608, "maxElapsedMs": 60000}})


def read_frames(fd):
    """The headers of the frames read from `fd` until its end, one at a time."""
    pending = b""
    while True:
        while len(pending) >= 8:
            total, header_len = struct.unpack_from("<II", pending)
            if len(pending) < 4 + total:
                break
            yield json.loads(pending[8:8 + header_len])
            pending = pending[4 + total:]
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        pending += chunk


def worker_start(worker, home, state=None, node_args=(), render=None):
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
    frames = read_frames(from_worker_read)
    if next(frames, {}).get("type") != "hello":
        raise SystemExit("the worker exited before its hello")
    if render is not None:
        os.write(to_worker_write, render)
        for header in frames:
            if header["type"] == "error" or header["type"] == "end":
                break
        if header["type"] != "end":
            raise SystemExit(f"the render did not end: {header}")
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
    parser.add_argument("--render", nargs=2, metavar=("ROUTE", "INPUT"))
    args = parser.parse_args()
    unset = clear_node_start_variables()
    render = render_frame(args.render[0], json.loads(args.render[1])) if args.render else None
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
        if render is not None:
            contenders.append(("rendered", lambda: worker_start(worker, home, render=render)))
        timings = {name: [] for name, _ in contenders}
        for round_ in range(args.rounds):
            for name, run in contenders if round_ % 2 == 0 else reversed(contenders):
                timings[name].append(run() * 1000)
        if args.cpu_prof:
            worker_start(worker, home, node_args=("--cpu-prof", "--cpu-prof-interval", "100",
                                                  "--cpu-prof-dir", args.cpu_prof),
                         render=render)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median = {name: statistics.median(values) for name, values in timings.items()}
    print(json.dumps({
        "rounds": args.rounds,
        "medianMs": median,
        "minMs": {name: min(values) for name, values in timings.items()},
        "cachedOverNode": median["cached"] / median["node"],
        "uncachedOverNode": median["uncached"] / median["node"],
        **({"renderedOverNode": median["rendered"] / median["node"]} if render else {}),
        "load": os.getloadavg()[0],
        "unsetForTheRun": unset,
    }))


if __name__ == "__main__":
    main()
