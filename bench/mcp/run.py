#!/usr/bin/env python3
"""The MCP server on the real path, against its peers, interleaved in one run:

- cold start: spawn `abgen-host mcp` → its first `tools/call` answered, with V8's code cache
  where the worker keeps it by default (the plugin's state root, under a HOME of the
  benchmark's own) and with none (an empty state root each time), against `node -e 0`
  (Node's own start-up), and against the floor of any cold render: Node starting, loading
  React's server build and rendering once (`cold-floor.mjs`), as it is and as a worker bundle
  of its own served by V8's code cache;
- spawn → first `tools/list` answered, against the official TypeScript SDK's `McpServer`
  (bench/mcp/sdk-server.mjs, the same tools);
- a warm `tools/call` of a small route over one connection, against the SDK server running the
  same handler in process (both driven by the SDK's own Client, bench/mcp/client.mjs);
- 200 concurrent calls of a route that awaits 50 ms, against the ideal for the pool size;
- the resident memory of the server and its workers, idle after one call.

Usage: python3 bench/mcp/run.py [--rounds N] [--no-build]
Builds the release binaries, builds fixtures/projects/valid-mcp-calls into a temporary
artifact, then times each contender N times (order alternating) and prints a Markdown report
to stdout. Needs the npm workspace installed and Node 20+.
"""

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from session import INITIALIZE, INITIALIZED, STATE_VARIABLES, clear_node_start_variables

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
HOME = tempfile.mkdtemp(prefix="abgen-bench-mcp-home-")


def environment(state=None):
    """This environment with the benchmark's own HOME and no state directory named, so the
    worker keeps its code cache under the plugin's default state root; or with `state` as the
    plugin's state root."""
    env = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES}
    env["HOME"] = HOME
    if state is not None:
        env["AGENT_BUNDLE_STATE_ROOT"] = state
    return env


def first_reply(command, request, state=None, linger=0):
    """Seconds from spawning `command` to the answer of `request` (sent after initialize); the
    server is left running `linger` seconds more before its input closes."""
    started = time.perf_counter()
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=environment(state))
    server.stdin.write("".join(json.dumps(m) + "\n"
                               for m in [INITIALIZE, INITIALIZED, request]).encode())
    server.stdin.flush()
    for line in server.stdout:
        reply = json.loads(line)
        if reply.get("id") == request["id"]:
            elapsed = time.perf_counter() - started
            assert "result" in reply and not reply["result"].get("isError"), reply
            break
    else:
        raise SystemExit(f"{command[0]} never answered {request['method']}")
    time.sleep(linger)
    server.stdin.close()
    server.wait(timeout=30)
    return elapsed


def first_call(ours, state=None, linger=0):
    return first_reply(ours, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "quick", "arguments": {"n": 1}}}, state, linger)


def first_list(command):
    return first_reply(command, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})


def client(*args):
    """One run of bench/mcp/client.mjs; its JSON line."""
    done = subprocess.run(["node", os.path.join(HERE, "client.mjs"), *map(str, args)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def descendants(pid):
    """`pid` and every process below it, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def idle_rss(ours):
    """KiB resident in the server and in its workers, one second after one answered call."""
    server = subprocess.Popen(ours, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "quick", "arguments": {"n": 1}}}
    server.stdin.write("".join(json.dumps(m) + "\n" for m in [INITIALIZE, INITIALIZED, call])
                       .encode())
    server.stdin.flush()
    for line in server.stdout:
        if json.loads(line).get("id") == 1:
            break
    time.sleep(1)
    processes = descendants(server.pid)
    own = rss_kib(server.pid)
    workers = sum(rss_kib(pid) for pid in processes if pid != server.pid)
    server.stdin.close()
    server.wait(timeout=30)
    return own, workers, len(processes) - 1


def timed(command, env=None):
    """Seconds from spawning `command` to its exit."""
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    return time.perf_counter() - started


def node_start():
    return timed(["node", "-e", "0"])


def cold_floor(script):
    return timed(["node", "--conditions=react-server", script], environment())


def bundle_cold_floor(scratch):
    """cold-floor.mjs bundled as the real worker is (the runtime package's bundler, V8's code
    cache under the plugin's state root), in an artifact of its own; the bundle's path."""
    floor = os.path.join(scratch, "floor")
    os.makedirs(os.path.join(floor, "runtime"))
    with open(os.path.join(floor, "abgen.manifest.json"), "w") as manifest:
        json.dump({"digest": "f100" * 16}, manifest)
    bundle = os.path.join(floor, "runtime", "worker.mjs")
    script = ("import { readFileSync } from 'node:fs';"
              "import { bundleFlightEntry } from './packages/runtime/scripts/bundle.mjs';"
              f"await bundleFlightEntry({{ contents: readFileSync({json.dumps(os.path.join(HERE, 'cold-floor.mjs'))}, 'utf8'),"
              f" resolveDir: {json.dumps(HERE)}, outfile: {json.dumps(bundle)} }});")
    subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, check=True)
    return bundle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    unset = clear_node_start_variables()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p", "abgen",
                        "-p", "abgen-runtime"], cwd=ROOT, check=True)
    abgen = os.path.join(ROOT, "target/release/abgen")
    host = os.path.join(ROOT, "target/release/abgen-host")
    workers = os.cpu_count()
    concurrent_calls, nap_ms = 200, 50
    scratch = tempfile.mkdtemp(prefix="abgen-bench-mcp-")
    try:
        project = os.path.join(scratch, "project")
        shutil.copytree(os.path.join(ROOT, "fixtures/projects/valid-mcp-calls"), project,
                        ignore=shutil.ignore_patterns("check.snap", ".agent-bundle"))
        artifact = os.path.join(scratch, "artifact")
        # The copy lives outside the repository: its packages come from the workspace's.
        modules = os.environ.get("ABGEN_NODE_MODULES", os.path.join(ROOT, "node_modules"))
        subprocess.run([abgen, "build", "--root", project, "--out", artifact], check=True,
                       env={**os.environ, "ABGEN_HOST": host, "ABGEN_NODE_MODULES": modules},
                       stdout=subprocess.DEVNULL)
        ours = [host, "mcp", "--server", "desk", "--artifact", artifact,
                "--workers", str(workers)]
        sdk = ["node", os.path.join(HERE, "sdk-server.mjs")]
        # Warm the page cache and write the code cache: a worker writes it again once its first
        # render has answered, which a session leaves it time for (abgen-host kills its workers
        # when it exits), so the warm-up server lives on a second after its call.
        first_call(ours, linger=1)
        first_list(sdk)
        node_start()
        floor_bundle = bundle_cold_floor(scratch)
        plain_floor = os.path.join(HERE, "cold-floor.mjs")
        cold_floor(plain_floor)
        cold_floor(floor_bundle)
        time.sleep(0.5)
        timings = {name: [] for name in
                   ["cached", "call", "node", "floor", "plain-floor", "list", "sdk-list", "warm",
                    "sdk-warm", "concurrent"]}
        contenders = [
            ("cached", lambda: first_call(ours)),
            ("call", lambda: first_call(ours, tempfile.mkdtemp(dir=scratch))),
            ("node", node_start),
            ("floor", lambda: cold_floor(floor_bundle)),
            ("plain-floor", lambda: cold_floor(plain_floor)),
            ("list", lambda: first_list(ours)),
            ("sdk-list", lambda: first_list(sdk)),
        ]
        for round_ in range(args.rounds):
            for name, run in contenders if round_ % 2 == 0 else reversed(contenders):
                timings[name].append(run())
        # The client-driven runs are longer: fewer rounds, still alternating.
        for round_ in range(max(3, args.rounds // 5)):
            pair = [("warm", ours), ("sdk-warm", sdk)]
            for name, command in pair if round_ % 2 == 0 else reversed(pair):
                timings[name].append(client("warm", 200, "--", *command)["medianMs"] / 1000)
            timings["concurrent"].append(
                client("concurrent", concurrent_calls, nap_ms, "--", *ours)["wallMs"] / 1000)
        own_kib, worker_kib, worker_count = idle_rss(ours)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(HOME, ignore_errors=True)
    ms = {name: statistics.median(values) * 1000 for name, values in timings.items()}
    low = {name: min(values) * 1000 for name, values in timings.items()}
    ideal = math.ceil(concurrent_calls / workers) * nap_ms
    node_version = subprocess.run(["node", "--version"], capture_output=True,
                                  text=True).stdout.strip()
    print("# The MCP server against its peers\n")
    print(f"`python3 bench/mcp/run.py --rounds {args.rounds}`, {time.strftime('%Y-%m-%d')}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
          f"Node {node_version}{''.join(f', {name} unset for the run' for name in unset)}; "
          f"the server runs {workers} workers.\n")
    print("| measure | ours (median, min) | peer (median, min) | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    rows = [
        ("spawn → first `tools/call` answered, code cache in the plugin's state root", "cached",
         "node", "`node -e 0`", ms["cached"] / ms["node"], "≤ 1.3× `node -e 0`"),
        ("the same with an empty state root (no code cache)", "call", "node", "`node -e 0`",
         ms["call"] / ms["node"], "≤ 1.3× `node -e 0`"),
        ("the floor of any cold render: Node, React's server build with V8's code cache, one "
         "render (`cold-floor.mjs` bundled as the worker is)", "floor", "node", "`node -e 0`",
         ms["floor"] / ms["node"], "—"),
        ("the same floor with React loaded from source (`cold-floor.mjs` as it is)",
         "plain-floor", "node", "`node -e 0`", ms["plain-floor"] / ms["node"], "—"),
        ("spawn → first `tools/call` answered (cached), against that floor", "cached", "floor",
         "the floor", ms["cached"] / ms["floor"], "—"),
        ("spawn → first `tools/list` answered", "list", "sdk-list", "SDK `McpServer`",
         ms["sdk-list"] / ms["list"], "≥ 30× faster than the SDK"),
        ("warm `tools/call` of `quick` (one connection, SDK client)", "warm", "sdk-warm",
         "SDK `McpServer`, handler in process", ms["warm"] / ms["sdk-warm"], "≤ 1.5× the SDK"),
    ]
    for label, ours_name, peer_name, peer_label, ratio, goal in rows:
        print(f"| {label} | {ms[ours_name]:.2f} ms, {low[ours_name]:.2f} ms | {peer_label}: "
              f"{ms[peer_name]:.2f} ms, {low[peer_name]:.2f} ms | {ratio:.2f}× | {goal} |")
    print(f"| {concurrent_calls} concurrent calls awaiting {nap_ms} ms | "
          f"{ms['concurrent']:.0f} ms, {low['concurrent']:.0f} ms | ideal for {workers} "
          f"workers: {ideal} ms | {ms['concurrent'] / ideal:.2f}× | ≤ 1.5× the ideal |")
    print(f"\nIdle after one call: `abgen-host` {own_kib / 1024:.1f} MiB resident, its "
          f"{worker_count} workers {worker_kib / 1024:.1f} MiB together.")


if __name__ == "__main__":
    sys.exit(main())
