#!/usr/bin/env python3
"""Times `abgen build` for all four targets against `abgen check` on the same synthetic project.

The project is the benchmark project of bench/check (`gen-projects --routes N`), with its five
event routes limited to the hosts that run hooks (`targets: ['claude', 'codex', 'cursor']`), so
that a portable build is possible at all. The JS bundling step is excluded: the build ships a
prebuilt stand-in worker through ABGEN_WORKER_BUNDLE and a stand-in runtime through ABGEN_HOST,
so what is timed is abgen's own work (check, host matrix, documents, manifest, staging, swap).

Usage: python3 bench/build/run.py [--routes 1000] [--rounds 7] [--no-build] [--baseline ABGEN]
                                  [--out FILE]
Writes bench/build/results.md by default. Exits non-zero only when a command fails.

--baseline ABGEN times a second `abgen` binary (an earlier build, copied aside) in the same rounds:
each round runs `check`, one build, `check`, the other build (the two builds' order alternating),
so both builds follow a `check` alike and their ratios to `check` compare across one run, which
this machine's noise between runs does not allow.
"""

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent
RELEASE = ROOT / "target" / "release"
TARGETS = "claude,codex,cursor,portable"
HOOK_HOSTS = "targets: ['claude', 'codex', 'cursor']"


def run(command, env=None):
    completed = subprocess.run(command, env=env, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{completed.stdout}{completed.stderr}")
    return completed


def limit_event_routes(project):
    for path in sorted((project / "src" / "events").rglob("*.ts*")):
        text = path.read_text()
        text = re.sub(r"(events\.[\w.]+\()\{\}", r"\1{ " + HOOK_HOSTS + " }", text)
        text = re.sub(r"(events\.[\w.]+\()\{ (?!targets)", r"\1{ " + HOOK_HOSTS + ", ", text)
        path.write_text(text)


def timed(command, env):
    start = time.perf_counter()
    run(command, env)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--routes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--baseline", type=Path, help="an earlier abgen binary to time beside this one")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "build" / "results.md")
    args = parser.parse_args()
    if not args.no_build:
        run(["cargo", "build", "--release", "--locked", "-p", "abgen", "-p", "abgen-bench-check"])
    with tempfile.TemporaryDirectory(prefix="abgen-bench-build-") as temp:
        temp = Path(temp)
        project = temp / "project"
        run([RELEASE / "gen-projects", "--routes", str(args.routes), "--out", project])
        limit_event_routes(project)
        (temp / "worker.mjs").write_text("// stand-in worker: bundling is not timed\n")
        (temp / "abgen-host").write_text("#!/bin/sh\nexit 2\n")
        # The project's imports resolve from the repository's node_modules, as `abgen dev`'s
        # benchmark does: the generated project has none of its own.
        env = dict(os.environ, ABGEN_WORKER_BUNDLE=str(temp / "worker.mjs"), ABGEN_HOST=str(temp / "abgen-host"),
                   ABGEN_NODE_MODULES=str(ROOT / "node_modules"))
        check = [RELEASE / "abgen", "check", "--root", project]
        build = [RELEASE / "abgen", "build", "--root", project, "--target", TARGETS, "--out", temp / "artifact"]
        run(check, env)
        built = run(build, env)
        files = re.search(r"\((\d+) files\)", built.stdout)
        times = {"check": [], "build": [], "baseline": []}
        baseline = [args.baseline, *build[1:]] if args.baseline else None
        if baseline:
            run(baseline, env)
        for round_index in range(args.rounds):
            if baseline:
                builds = [("build", build), ("baseline", baseline)]
                if round_index % 2:
                    builds.reverse()
                order = [("check", check), builds[0], ("check", check), builds[1]]
            else:
                order = [("check", check), ("build", build)]
                if round_index % 2:
                    order.reverse()
            for name, command in order:
                times[name].append(timed(command, env))
    check_ms = statistics.median(times["check"]) * 1000
    build_ms = statistics.median(times["build"]) * 1000
    ratio = build_ms / check_ms
    baseline_row = baseline_summary = ""
    if baseline:
        baseline_ms = statistics.median(times["baseline"]) * 1000
        per_round = statistics.median(a / b for a, b in zip(times["build"], times["baseline"]))
        baseline_row = (f"| `abgen build`, the same, by the baseline (`{args.baseline.name}`) | "
                        f"{baseline_ms:.0f} ms ({min(times['baseline']) * 1000:.0f} ms) |\n")
        baseline_summary = (f"\nBaseline build / check: **{baseline_ms / check_ms:.2f}×**. This build against "
                            f"the baseline's, median of the rounds' ratios: **{per_round:.3f}×**. Each round "
                            "ran `check`, one build, `check`, the other build.\n")
    revision = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    report = f"""# `abgen build` (all four targets) against `abgen check`

Command: `python3 bench/build/run.py --routes {args.routes} --rounds {args.rounds}{f" --baseline {args.baseline.name}" if baseline else ""}` at `{revision}`,
{time.strftime('%Y-%m-%d')}, {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, load
{os.getloadavg()[0]:.2f}. Project: `gen-projects --routes {args.routes}` ({args.routes} tools, 5 event routes
limited to the hook hosts), built with `--target {TARGETS}` into {files.group(1) if files else '?'} files.
JS bundling excluded (prebuilt stand-in worker). Median wall time (minimum in parentheses), interleaved
rounds.

| command | wall |
| --- | --- |
| `abgen check` | {check_ms:.0f} ms ({min(times['check']) * 1000:.0f} ms) |
| `abgen build --target {TARGETS}` | {build_ms:.0f} ms ({min(times['build']) * 1000:.0f} ms) |
{baseline_row}
Build / check: **{ratio:.2f}×** (target ≤ 2×).
{baseline_summary}"""
    args.out.write_text(report)
    sys.stdout.write(report)


if __name__ == "__main__":
    main()
