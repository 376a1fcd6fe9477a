#!/usr/bin/env python3
"""A cold `tools/call` of a large plugin, against `node -e 0`, interleaved in one run.

The plugin is the benchmark project of bench/check (`gen-projects --routes N`: N tools over ten
MCP servers, a 13.5 MB manifest at 1,000 routes), built by `abgen build` with its real worker
bundle. Each round spawns `bin/abgen-host mcp --server billing` (or `--server NAME`), sends `initialize`,
`notifications/initialized` and a `tools/call` of a tool with no required input, and times the
spawn to the call's answer, with V8's code cache in the plugin's state root (under a HOME of the
benchmark's own, written by a warm-up call), as `bench/mcp/run.py` times the small fixture. The
generated tools return nothing their result schema takes, so the answer is an `isError` result
of the render: the route module was imported and rendered all the same.

Usage: python3 bench/mcp/large_plugin.py [--routes N] [--rounds N] [--server NAME] [--no-build]
                                         [--artifact LABEL=DIR ...]
`--artifact` adds a contender: an artifact of the same project built by another abgen (say the
revision before a change), timed in the same rounds. Prints a Markdown report to stdout.
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

from session import INITIALIZE, INITIALIZED, STATE_VARIABLES, clear_node_start_variables

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELEASE = os.path.join(ROOT, "target", "release")
SERVER = "billing"


def first_call(artifact, tool, home):
    """Seconds from spawning the artifact's server to the answer of its first `tools/call`."""
    env = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES}
    env["HOME"] = home
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}}
    started = time.perf_counter()
    server = subprocess.Popen([os.path.join(artifact, "bin", "abgen-host"), "mcp", "--server", SERVER],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env)
    server.stdin.write("".join(json.dumps(m) + "\n"
                               for m in [INITIALIZE, INITIALIZED, call]).encode())
    server.stdin.flush()
    for line in server.stdout:
        reply = json.loads(line)
        if reply.get("id") == 1:
            elapsed = time.perf_counter() - started
            # A render's answer, not a refusal before it: the text names the result's schema.
            text = reply["result"]["content"][0]["text"]
            assert "result value" in text or not reply["result"].get("isError"), reply
            break
    else:
        raise SystemExit(f"{artifact}: no answer to tools/call")
    server.stdin.close()
    server.wait(timeout=30)
    return elapsed


def cli_help(artifact, home):
    """Seconds for the plugin's own command line (`bin/<plugin> --help`) to answer: no render,
    so what it measures is the host's start and its read of the manifest."""
    with open(os.path.join(artifact, "abgen.manifest.json")) as manifest:
        binary = json.load(manifest)["cli"]["bin"]
    env = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES}
    env["HOME"] = home
    started = time.perf_counter()
    subprocess.run([os.path.join(artifact, "bin", binary), "--help"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def node_start():
    started = time.perf_counter()
    subprocess.run(["node", "-e", "0"], check=True)
    return time.perf_counter() - started


def tool_without_input(artifact):
    """A tool of the benchmark server whose input requires nothing."""
    with open(os.path.join(artifact, "abgen.manifest.json")) as manifest:
        routes = json.load(manifest)["routes"]
    for route in routes:
        if route["id"].startswith(f"tool:{SERVER}/"):
            schema = route["schemas"]["input"]["jsonSchema"]
            if not schema.get("required"):
                return route["id"].split("/", 1)[1]
    raise SystemExit("no tool without required input")


def main():
    global SERVER
    parser = argparse.ArgumentParser()
    parser.add_argument("--routes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    # At fewer routes `billing` may have no tool without required input.
    parser.add_argument("--server", default=SERVER)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--artifact", action="append", default=[])
    args = parser.parse_args()
    SERVER = args.server
    unset = clear_node_start_variables()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q", "-p", "abgen",
                        "-p", "abgen-runtime", "-p", "abgen-bench-check"], cwd=ROOT, check=True)
    scratch = tempfile.mkdtemp(prefix="abgen-bench-large-")
    try:
        project = os.path.join(scratch, "project")
        subprocess.run([os.path.join(RELEASE, "gen-projects"), "--routes", str(args.routes),
                        "--out", project], check=True, stdout=subprocess.DEVNULL)
        artifact = os.path.join(scratch, "artifact")
        modules = os.environ.get("ABGEN_NODE_MODULES", os.path.join(ROOT, "node_modules"))
        subprocess.run([os.path.join(RELEASE, "abgen"), "build", "--root", project, "--out", artifact],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "ABGEN_HOST": os.path.join(RELEASE, "abgen-host"),
                            "ABGEN_NODE_MODULES": modules})
        contenders = [("this revision", artifact)]
        contenders += [tuple(spec.split("=", 1)) for spec in args.artifact]
        tool = tool_without_input(artifact)
        home = os.path.join(scratch, "home")
        for _, path in contenders:
            first_call(path, tool, home)  # writes the code cache, as a plugin's first start does
        times = {label: [] for label, _ in contenders}
        times["node -e 0"] = []
        help_times = {label: [] for label, _ in contenders}
        for round_index in range(args.rounds):
            order = contenders if round_index % 2 == 0 else contenders[::-1]
            for label, path in order:
                times[label].append(first_call(path, tool, home))
                help_times[label].append(cli_help(path, home))
            times["node -e 0"].append(node_start())
        size = os.path.getsize(os.path.join(artifact, "abgen.manifest.json"))
        # The loader and, where abgen build split it off, the bundle beside it.
        worker = sum(os.path.getsize(path) for path in (
            os.path.join(artifact, "runtime", name) for name in ("worker.mjs", "worker.bundle.cjs"))
            if os.path.exists(path))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    revision = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    node_median = statistics.median(times["node -e 0"])
    extra = f" --server {SERVER}" if SERVER != "billing" else ""
    extra += "".join(f" --artifact {spec.split('=', 1)[0]}=DIR" for spec in args.artifact)
    print("# A cold `tools/call` of a large plugin\n")
    print(f"`python3 bench/mcp/large_plugin.py --routes {args.routes} --rounds {args.rounds}{extra}` "
          f"at `{revision}`, {time.strftime('%Y-%m-%d %H:%M')} UTC, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, Node {node}"
          f"{''.join(f', {name} unset for the run' for name in unset)}. The plugin: "
          f"`gen-projects --routes {args.routes}`, a manifest of {size / 1e6:.1f} MB and a worker "
          f"bundle of {worker / 1e6:.1f} MB; the call: `{tool}` on `{SERVER}`.\n")
    print("| contender | median | min | median / `node -e 0` |")
    print("| --- | ---: | ---: | ---: |")
    for label, samples in times.items():
        median = statistics.median(samples)
        print(f"| {label} | {median * 1000:.1f} ms | {min(samples) * 1000:.1f} ms | "
              f"{median / node_median:.2f}× |")
    print("\nThe plugin's command line, `bin/<plugin> --help` (no render), in the same rounds:\n")
    print("| contender | median | min |")
    print("| --- | ---: | ---: |")
    for label, samples in help_times.items():
        print(f"| {label} | {statistics.median(samples) * 1000:.1f} ms | {min(samples) * 1000:.1f} ms |")


if __name__ == "__main__":
    sys.exit(main())
