#!/usr/bin/env python3
"""Cold start of the MCP server on the real path: from spawning `abgen-host mcp` to the answer
of its first `tools/call`, against `node -e 0` (Node's own start-up, the floor of any render),
interleaved in one run.

Usage: python3 bench/mcp/run.py [--rounds N] [--no-build]
Builds the release binaries, builds fixtures/projects/valid-mcp-calls into a temporary
artifact, then times each contender N times (order alternating) and prints a Markdown report
to stdout. Needs the npm workspace installed and Node 20+.
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


def first_call(host, artifact, state=None):
    """Seconds from spawn to the first tools/call's response; with `state`, the plugin's state
    directory (where the worker keeps V8's code cache), else none (the cache is off)."""
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "quick", "arguments": {"n": 1}}},
    ]
    env = {k: v for k, v in os.environ.items()
           if k not in ("ABGEN_STATE_DIR", "CLAUDE_PLUGIN_DATA", "PLUGIN_DATA")}
    if state is not None:
        env["ABGEN_STATE_DIR"] = state
    started = time.perf_counter()
    server = subprocess.Popen(
        [host, "mcp", "--server", "desk", "--artifact", artifact],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    server.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    server.stdin.flush()
    for line in server.stdout:
        reply = json.loads(line)
        if reply.get("id") == 1:
            elapsed = time.perf_counter() - started
            assert not reply["result"].get("isError"), reply
            break
    else:
        raise SystemExit("the server never answered the call")
    server.stdin.close()
    server.wait(timeout=30)
    return elapsed


def node_start():
    started = time.perf_counter()
    subprocess.run(["node", "-e", "0"], check=True)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p", "abgen",
                        "-p", "abgen-runtime"], cwd=ROOT, check=True)
    abgen = os.path.join(ROOT, "target/release/abgen")
    host = os.path.join(ROOT, "target/release/abgen-host")
    scratch = tempfile.mkdtemp(prefix="abgen-bench-mcp-")
    try:
        project = os.path.join(scratch, "project")
        shutil.copytree(os.path.join(ROOT, "fixtures/projects/valid-mcp-calls"), project,
                        ignore=shutil.ignore_patterns("check.snap", ".agent-bundle"))
        artifact = os.path.join(scratch, "artifact")
        subprocess.run([abgen, "build", "--root", project, "--out", artifact], check=True,
                       env={**os.environ, "ABGEN_HOST": host}, stdout=subprocess.DEVNULL)
        state = os.path.join(scratch, "state")
        first_call(host, artifact)  # warm the page cache
        first_call(host, artifact, state)  # and write the code cache
        node_start()
        times = {"cached": [], "uncached": [], "node": []}
        contenders = [("cached", lambda: first_call(host, artifact, state)),
                      ("uncached", lambda: first_call(host, artifact)),
                      ("node", node_start)]
        for round_ in range(args.rounds):
            shift = round_ % len(contenders)
            for name, run in contenders[shift:] + contenders[:shift]:
                times[name].append(run())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    best = {name: min(values) * 1000 for name, values in times.items()}
    print("# MCP cold start\n")
    print(f"`python3 bench/mcp/run.py --rounds {args.rounds}`, {time.strftime('%Y-%m-%d')}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
          f"Node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}.\n")
    rows = [("cached", "spawn `abgen-host mcp` → first `tools/call` answered, code cache in the state directory"),
            ("uncached", "the same without a state directory (no code cache)"),
            ("node", "`node -e 0`")]
    print("| contender | median | min | median / `node -e 0` |")
    print("| --- | --- | --- | --- |")
    for name, label in rows:
        print(f"| {label} | {median[name]:.1f} ms | {best[name]:.1f} ms | {median[name] / median['node']:.2f}× |")
    print(f"\nRatio (medians), with the code cache: **{median['cached'] / median['node']:.2f}×** "
          f"`node -e 0` (goal ≤ 1.3×); without it {median['uncached'] / median['node']:.2f}×.")


if __name__ == "__main__":
    sys.exit(main())
