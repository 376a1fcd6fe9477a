#!/usr/bin/env python3
"""Benchmark driver for `abgen check` (python3 standard library only).

Builds the release binaries, generates synthetic projects, and measures in one interleaved run:
  abgen  -- `abgen check --root DIR`
  floor  -- `parse-floor DIR`: read + oxc-parse the same files in parallel, nothing else
  ts     -- `node ts-walk.mjs DIR`: the TypeScript compiler API peer (createSourceFile + walk)
Each contender runs several rounds, the order rotating every round because the machine is
shared and noisy; we report the median wall time, the minimum, CPU time and peak RSS (from
os.wait4 rusage of each child). With 1,000 and 10,000 routes, a growth pass then runs abgen
alone at both sizes, alternating, for the growth target (see `measure_growth`). Timing never
fails the run; a contender that exits non-zero or finds the wrong number of routes does.

  python3 bench/check/run.py            # 100, 1,000, 10,000 routes -> bench/check/results.md
  python3 bench/check/run.py --quick    # 100 and 1,000 routes, fewer rounds (CI)
  python3 bench/check/run.py --sizes 1000 --baseline REV=BINARY   # and an earlier abgen, interleaved
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EVENT_ROUTES = 5  # fixed event routes every generated project has (see src/generate.rs)

TARGETS = {
    "floor_ratio_max": 2.0,  # at 1,000 routes: abgen <= 2x the parse floor
    "ts_speedup_min": 20.0,  # at 1,000 routes: abgen >= 20x faster than the TS peer
    "linear_ratio_max": 11.0,  # t(10,000) / t(1,000): linear, with 10% slack for noise
    "rss_max_mb": 500.0,  # at 10,000 routes
}


@dataclass
class Sample:
    wall_ms: float
    cpu_ms: float
    rss_mb: float
    stderr: str


@dataclass
class Contender:
    name: str
    argv: list[str]
    samples: list[Sample] = field(default_factory=list)
    failure: str | None = None
    # Instructions of one run under callgrind (every thread), when valgrind is there.
    instructions: int | None = None

    def median(self, attr: str) -> float:
        return statistics.median(getattr(s, attr) for s in self.samples)

    def minimum(self, attr: str) -> float:
        return min(getattr(s, attr) for s in self.samples)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve()


def run_once(argv: list[str], cwd: Path) -> tuple[int, Sample, str]:
    """Runs argv to completion; output goes to temp files so no pipe stalls the child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    rss_kib = usage.ru_maxrss / 1024 if sys.platform == "darwin" else usage.ru_maxrss
    sample = Sample(wall * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3, rss_kib / 1024, stderr)
    return child.returncode, sample, stdout


def validate(contender: Contender, code: int, stdout: str, stderr: str, routes: int) -> str | None:
    """None when the run did the whole job, else why not."""
    if code != 0:
        lines = (stdout + stderr).strip().splitlines()
        return f"exit {code}: " + " | ".join(lines[:1] + lines[-1:])[:300]
    if contender.name == "floor":
        if "errors=0" not in stdout or f"files={routes + EVENT_ROUTES + 1} " not in stdout:
            return f"unexpected floor output: {stdout.strip()}"
    if contender.name == "ts" and f"tools={routes} " not in stdout:
        return f"unexpected ts-walk output: {stdout.strip()}"
    return None


def git_rev() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (working tree has uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass

    def version(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "unknown"

    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "memory": mem,
        "os": f"{platform.system()} {platform.release()}",
        "rustc": version(["rustc", "-V"]),
        "node": version(["node", "--version"]),
        "typescript": version(["node", "-p", "require('typescript').version"]),
    }


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def build(skip: bool) -> None:
    if skip:
        return
    log("building release binaries (abgen, gen-projects, parse-floor)...")
    subprocess.run(["cargo", "build", "--release", "-p", "abgen", "-p", "abgen-bench-check"],
                   cwd=ROOT, check=True)


def ensure_typescript() -> None:
    probe = ["node", "-p", "require('typescript').version"]
    found = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True)
    if found.returncode != 0:
        log("typescript is not installed; running npm install at the repository root...")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
        found = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True, check=True)
    if found.stdout.strip() != "5.9.3":
        log(f"warning: typescript {found.stdout.strip()} installed; the peer is pinned at 5.9.3")


def measure(size: int, project: Path, rounds: int, bins: Path,
            baseline: tuple[str, Path] | None = None) -> list[Contender]:
    contenders = [
        Contender("abgen", [str(bins / "abgen"), "check", "--root", str(project)]),
        Contender("floor", [str(bins / "parse-floor"), str(project)]),
        Contender("ts", ["node", str(HERE / "ts-walk.mjs"), str(project)]),
    ]
    if baseline:
        # Another build of abgen (an earlier revision's), timed in the same rounds as the rest.
        label, binary = baseline
        contenders.append(Contender(f"abgen@{label}", [str(binary), "check", "--root", str(project)]))
    # Warm-up: fills the page cache and proves each contender does the whole job.
    for contender in contenders:
        try:
            code, sample, stdout = run_once(contender.argv, ROOT)
        except OSError as error:
            contender.failure = f"cannot run {contender.argv[0]}: {error}"
        else:
            contender.failure = validate(contender, code, stdout, sample.stderr, size)
        if contender.failure:
            log(f"  {contender.name}: FAILED ({contender.failure})")
    abgen = contenders[0]
    if not abgen.failure:
        abgen.failure = verify_abgen_routes(bins, project, size)
        if abgen.failure:
            log(f"  abgen: FAILED ({abgen.failure})")
    live = [c for c in contenders if not c.failure]
    for round_index in range(rounds):
        shift = round_index % len(live) if live else 0
        order = live[shift:] + live[:shift]
        if round_index % 2:
            order.reverse()
        for contender in order:
            _, sample, _ = run_once(contender.argv, ROOT)
            contender.samples.append(sample)
        log(f"  {size} routes: round {round_index + 1}/{rounds} done (load {loadavg()})")
    if size <= CALLGRIND_MAX_ROUTES:
        for contender in live:
            if contender.name in ("abgen", "floor") or contender.name.startswith("abgen@"):
                contender.instructions = callgrind_instructions(contender.argv)
    return contenders


def measure_growth(results: dict[int, list[Contender]], workdir: Path,
                   rounds: int) -> tuple[Contender, Contender] | None:
    """`abgen check` of the 1,000- and 10,000-route projects, alternating, with no peer between
    them: the growth target is abgen's own. Among the peers, the run after the TypeScript
    walker's comes on memory that process has just freed, and on a VM whose balloon device
    reports free pages to its host, abgen's first touch of those pages (2 MiB at a time: its
    allocator asks for huge pages) waits for the host; that moved the 10,000-route median by
    up to a quarter from run to run (`README.md`)."""
    live = {size: next((c for c in results.get(size, []) if c.name == "abgen" and not c.failure), None)
            for size in (1000, 10000)}
    if not all(live.values()):
        return None
    pass_contenders = (Contender("1,000 routes", live[1000].argv), Contender("10,000 routes", live[10000].argv))
    for round_index in range(rounds):
        order = pass_contenders if round_index % 2 == 0 else tuple(reversed(pass_contenders))
        for contender in order:
            contender.samples.append(run_once(contender.argv, ROOT)[1])
    log(f"  growth pass: {rounds} rounds done (load {loadavg()})")
    return pass_contenders


# Sizes whose abgen and floor runs are also counted under callgrind (about 50 times slower than
# a plain run, so not the 10,000-route project).
CALLGRIND_MAX_ROUTES = 1000


def callgrind_instructions(argv: list[str]) -> int | None:
    """Instructions of one run of `argv` under `valgrind --tool=callgrind`, all threads: unlike
    wall time, the same for the same binary and input however loaded the machine is."""
    if shutil.which("valgrind") is None:
        return None
    completed = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in completed.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip())
    return None


def verify_abgen_routes(bins: Path, project: Path, size: int) -> str | None:
    """Untimed: proves `check` read every route, through `abgen inspect --json --routes`.

    The JSON is read in a separate Python process: a child's peak RSS as `wait4` reports it
    includes the driver's own at fork time, so the driver must stay small.
    """
    counter = (
        "import json, subprocess, sys\n"
        "found = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "if found.returncode != 0:\n"
        "    print(f'abgen inspect exit {found.returncode}: {found.stderr.strip()[-300:]}'); sys.exit()\n"
        "routes = json.loads(found.stdout)\n"
        "kinds = [route.get('kind') for route in routes]\n"
        "print(kinds.count('tool'), kinds.count('event'))\n"
    )
    argv = [str(bins / "abgen"), "inspect", "--root", str(project), "--json", "--routes"]
    found = subprocess.run([sys.executable, "-c", counter, *argv], cwd=ROOT, capture_output=True, text=True)
    answer = found.stdout.strip()
    if found.returncode != 0 or answer != f"{size} {EVENT_ROUTES}":
        detail = answer or found.stderr.strip()[-300:]
        return f"abgen inspect did not list {size} tools and {EVENT_ROUTES} events: {detail}"
    return None


def ts_walk_ms(contender: Contender) -> float | None:
    """The peer's in-process time after `typescript` was imported (excludes Node start and load)."""
    values = []
    for sample in contender.samples:
        for token in sample.stderr.split():
            if token.startswith("walk_ms="):
                values.append(float(token.split("=", 1)[1]))
    return statistics.median(values) if values else None


def fmt_ms(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def fmt_rss(rss: float, rss_floor: float) -> str:
    return f"≤ {rss_floor:.1f}" if rss <= rss_floor + 0.5 else f"{rss:.1f}"


def report(results: dict[int, list[Contender]], growth_pass: tuple[Contender, Contender] | None,
           args: argparse.Namespace, info: dict[str, str], load_before: str, load_after: str,
           command: str, rss_floor: float) -> tuple[str, bool]:
    lines: list[str] = []
    add = lines.append
    add("# `abgen check` benchmark results")
    add("")
    add(f"- Command: `{command}`")
    add(f"- Date (UTC): {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M')}")
    add(f"- Git revision: {git_rev()}")
    add(f"- Machine: {info['nproc']} CPUs ({info['cpu']}), {info['memory']} RAM, {info['os']}")
    add(f"- Load average (1/5/15 min): {load_before} before, {load_after} after "
        "(other builds were running on the same machine: treat absolute times as noisy, ratios as "
        "the result)")
    add(f"- Toolchains: {info['rustc']}; node {info['node']}; typescript {info['typescript']}")
    add(f"- Method: {args.rounds} interleaved rounds per size after one warm-up run each (warm page "
        "cache), order rotated every round; wall = median (min in parentheses); CPU = user+sys "
        "median; RSS = peak resident set of the child process (max over rounds).")
    add("")
    add(f"- Peak RSS below the driver floor ({rss_floor:.1f} MB: what `wait4` reports for `true`, since "
        "Linux keeps the forked driver's high-water mark across exec) reads as ≤ that floor.")
    add("")
    add("| routes | contender | wall ms | CPU ms | peak RSS MB |")
    add("| ---: | --- | ---: | ---: | ---: |")
    for size, contenders in results.items():
        for c in contenders:
            if c.failure or not c.samples:
                add(f"| {size:,} | {c.name} | failed: {c.failure} | | |")
                continue
            add(f"| {size:,} | {c.name} | {fmt_ms(c.median('wall_ms'))} ({fmt_ms(c.minimum('wall_ms'))}) "
                f"| {fmt_ms(c.median('cpu_ms'))} | {fmt_rss(max(s.rss_mb for s in c.samples), rss_floor)} |")
    add("")
    add("| routes | abgen / floor (wall) | abgen / floor (CPU) | ts / abgen (wall) | "
        "ts in-process walk / abgen | abgen µs per route |")
    add("| ---: | ---: | ---: | ---: | ---: | ---: |")

    def get(size: int, name: str) -> Contender | None:
        for c in results.get(size, []):
            if c.name == name and c.samples and not c.failure:
                return c
        return None

    for size in results:
        abgen, floor, ts = get(size, "abgen"), get(size, "floor"), get(size, "ts")
        cells = []
        if abgen and floor:
            cells.append(f"{abgen.median('wall_ms') / floor.median('wall_ms'):.2f}×")
            cells.append(f"{abgen.median('cpu_ms') / floor.median('cpu_ms'):.2f}×")
        else:
            cells += ["n/a", "n/a"]
        walk = ts_walk_ms(ts) if ts else None
        if abgen and ts:
            cells.append(f"{ts.median('wall_ms') / abgen.median('wall_ms'):.1f}×")
            cells.append(f"{walk / abgen.median('wall_ms'):.1f}×" if walk else "n/a")
        else:
            cells += ["n/a", "n/a"]
        cells.append(f"{abgen.median('wall_ms') * 1e3 / size:.1f}" if abgen else "n/a")
        add(f"| {size:,} | " + " | ".join(cells) + " |")
    add("")

    baselines = sorted({c.name for cs in results.values() for c in cs if c.name.startswith("abgen@")})
    for name in baselines:
        add(f"| routes | abgen / {name} (wall) | abgen / {name} (CPU) | abgen / {name} (peak RSS) "
            f"| abgen / {name} (instructions) |")
        add("| ---: | ---: | ---: | ---: | ---: |")
        for size in results:
            abgen, earlier = get(size, "abgen"), get(size, name)
            if not (abgen and earlier):
                add(f"| {size:,} | n/a | n/a | n/a | n/a |")
                continue
            rss = max(s.rss_mb for s in abgen.samples) / max(s.rss_mb for s in earlier.samples)
            instructions = (f"{abgen.instructions / earlier.instructions:.3f}×"
                            if abgen.instructions and earlier.instructions else "n/a")
            add(f"| {size:,} | {abgen.median('wall_ms') / earlier.median('wall_ms'):.2f}× "
                f"| {abgen.median('cpu_ms') / earlier.median('cpu_ms'):.2f}× | {rss:.2f}× | {instructions} |")
        add("")

    counted = [(size, get(size, "abgen"), get(size, "floor")) for size in results]
    counted = [(size, a, f) for size, a, f in counted if a and f and a.instructions and f.instructions]
    if counted:
        add("| routes | abgen instructions (callgrind) | floor instructions | abgen / floor (instructions) |")
        add("| ---: | ---: | ---: | ---: |")
        for size, a, f in counted:
            add(f"| {size:,} | {a.instructions / 1e6:,.1f} M | {f.instructions / 1e6:,.1f} M "
                f"| {a.instructions / f.instructions:.2f}× |")
        add("")

    if growth_pass:
        g1, g10 = growth_pass
        add(f"Growth pass ({len(g1.samples)} rounds of `abgen check` alone, 1,000 and 10,000 routes "
            "alternating): " + ", ".join(f"{g.name} {fmt_ms(g.median('wall_ms'))} ms "
                                         f"({fmt_ms(g.minimum('wall_ms'))}), CPU {fmt_ms(g.median('cpu_ms'))} ms"
                                         for g in (g1, g10)) + ".")
        add("")
    add("## Targets")
    add("")
    verdicts: list[tuple[str, str, str]] = []
    all_met = True

    def verdict(name: str, measured: str, met: bool | None) -> None:
        nonlocal all_met
        if met is False:
            all_met = False
        state = "not measured" if met is None else ("met" if met else "**missed**")
        verdicts.append((name, measured, state))

    a1, f1, t1 = get(1000, "abgen"), get(1000, "floor"), get(1000, "ts")
    # The verdicts read abgen's run among the peers. Beside it, for what the VM's page
    # reporting costs abgen there (see `measure_growth`), the same ratio with the growth
    # pass's 1,000-route median, a run that follows no peer.
    alone = growth_pass[0].median("wall_ms") if growth_pass else None

    def with_alone(among: float, alone_ratio: float | None, digits: int) -> str:
        text = f"{among:.{digits}f}×"
        return text if alone_ratio is None else f"{text} ({alone_ratio:.{digits}f}× with the growth pass's run)"

    if a1 and f1:
        ratio = a1.median("wall_ms") / f1.median("wall_ms")
        alone_ratio = alone / f1.median("wall_ms") if alone else None
        verdict("1,000 routes: abgen ≤ 2× floor", with_alone(ratio, alone_ratio, 2),
                ratio <= TARGETS["floor_ratio_max"])
    else:
        verdict("1,000 routes: abgen ≤ 2× floor", "n/a", None)
    if a1 and t1:
        speedup = t1.median("wall_ms") / a1.median("wall_ms")
        alone_speedup = t1.median("wall_ms") / alone if alone else None
        verdict("1,000 routes: abgen ≥ 20× faster than the TS peer", with_alone(speedup, alone_speedup, 1),
                speedup >= TARGETS["ts_speedup_min"])
    else:
        verdict("1,000 routes: abgen ≥ 20× faster than the TS peer", "n/a", None)
    a10 = get(10000, "abgen")
    if a10 and a1:
        mixed = a10.median("wall_ms") / a1.median("wall_ms")
        mixed_cpu = a10.median("cpu_ms") / a1.median("cpu_ms")
        if growth_pass:
            g1, g10 = growth_pass
            growth = g10.median("wall_ms") / g1.median("wall_ms")
            cpu_growth = g10.median("cpu_ms") / g1.median("cpu_ms")
            measured = (f"{growth:.2f}× (CPU {cpu_growth:.2f}×) in the growth pass; {mixed:.2f}× "
                        f"(CPU {mixed_cpu:.2f}×) among the peers")
        else:
            growth, measured = mixed, f"{mixed:.2f}× (CPU {mixed_cpu:.2f}×)"
        verdict("1,000 → 10,000 routes: linear (time ratio ≤ 11)", measured,
                growth <= TARGETS["linear_ratio_max"])
        rss = max(s.rss_mb for s in a10.samples)
        verdict("10,000 routes: peak RSS < 500 MB", f"{rss:.0f} MB", rss < TARGETS["rss_max_mb"])
    else:
        verdict("10,000 routes: linear growth", "n/a (not run)" if 10000 not in results else "n/a", None)
        verdict("10,000 routes: peak RSS < 500 MB", "n/a (not run)" if 10000 not in results else "n/a", None)
    add("| target | measured | verdict |")
    add("| --- | ---: | --- |")
    for name, measured, state in verdicts:
        add(f"| {name} | {measured} | {state} |")
    add("")
    return "\n".join(lines), all_met


def update_readme(text: str) -> None:
    """Copies the ratio and target tables of a committed-results run into bench/README.md."""
    readme = HERE.parent / "README.md"
    begin, end = "<!-- LATEST-RESULTS -->", "<!-- /LATEST-RESULTS -->"
    try:
        current = readme.read_text()
    except OSError:
        return
    if begin not in current or end not in current:
        return
    date = next((line for line in text.splitlines() if line.startswith("- Date")), "")
    summary = text[text.index("| routes | abgen / floor"):].replace("## Targets\n\n", "")
    block = f"{begin}\n{date.removeprefix('- ')}\n\n{summary.strip()}\n{end}"
    head, rest = current.split(begin, 1)
    readme.write_text(head + block + rest.split(end, 1)[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 routes, 3 rounds (CI)")
    parser.add_argument("--sizes", help="comma-separated route counts (default 100,1000,10000)")
    parser.add_argument("--rounds", type=int, help="timed rounds per size (default 7; --quick 3)")
    parser.add_argument("--out", type=Path, help="Markdown results file (default bench/check/results.md; "
                        "--quick: target/bench-check/results-quick.md)")
    parser.add_argument("--workdir", type=Path, help="where to generate projects (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--baseline", metavar="LABEL=BINARY",
                        help="also time another abgen binary (an earlier revision's) in the same rounds, "
                        "as the contender abgen@LABEL")
    args = parser.parse_args()
    baseline = None
    if args.baseline:
        label, separator, binary = args.baseline.partition("=")
        if not separator or not label or not Path(binary).is_file():
            parser.error(f"--baseline takes LABEL=BINARY with an existing binary, not {args.baseline!r}")
        baseline = (label, Path(binary).resolve())
    # The generated projects' imports resolve from the repository's node_modules (`check`
    # resolves imports; the projects have none of their own), as bench/dev and bench/build do.
    os.environ["ABGEN_NODE_MODULES"] = str(ROOT / "node_modules")
    # The TypeScript peer's wall time includes Node's start, which NODE_EXTRA_CA_CERTS lengthens
    # on Node 20 by about 40 ms, a cost of the machine and not of the peer's method (see
    # bench/mcp/session.py): the run goes without it.
    unset_for_the_run = os.environ.pop("NODE_EXTRA_CA_CERTS", None) is not None

    sizes = [int(s.replace("_", "").replace(",", "")) for s in args.sizes.split(",")] if args.sizes else (
        [100, 1000] if args.quick else [100, 1000, 10000])
    if args.rounds is None:
        args.rounds = 3 if args.quick else 7
    out = args.out or (target_dir() / "bench-check" / "results-quick.md" if args.quick else HERE / "results.md")
    command = "python3 bench/check/run.py " + " ".join(sys.argv[1:])

    build(args.no_build)
    ensure_typescript()
    bins = target_dir() / "release"
    info = machine()
    if unset_for_the_run:
        info["node"] += ", NODE_EXTRA_CA_CERTS unset for the run"
    load_before = loadavg()

    workdir = Path(tempfile.mkdtemp(prefix="abgen-bench-check-", dir=args.workdir))
    results: dict[int, list[Contender]] = {}
    growth_pass = None
    try:
        for size in sizes:
            project = workdir / f"routes-{size}"
            subprocess.run([str(bins / "gen-projects"), "--routes", str(size), "--out", str(project)],
                           check=True, stdout=subprocess.DEVNULL)
            log(f"measuring {size:,} routes in {project}")
            results[size] = measure(size, project, args.rounds, bins, baseline)
        growth_pass = measure_growth(results, workdir, args.rounds)
    finally:
        if args.keep:
            log(f"projects kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    rss_floor = max(run_once(["true"], ROOT)[1].rss_mb for _ in range(3))
    text, all_met = report(results, growth_pass, args, info, load_before, loadavg(), command.strip(),
                           rss_floor)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    if out.resolve() == (HERE / "results.md").resolve():
        update_readme(text)
    log(f"wrote {out}" + ("" if all_met else " (some targets missed; timing never fails the run)"))
    failed = [f"{size}:{c.name}" for size, cs in results.items() for c in cs if c.failure]
    if failed:
        log("contenders that did not complete: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
