#!/usr/bin/env python3
"""Times the `bin/abgen-host` launcher of an `abgen build --platform` artifact against running
its platform's binary directly, on `abgen-host --version`, the cheapest real path (argument
parsing, no artifact read): what the launcher adds to every hook and MCP start.

The artifact is the curator built with `abgen build --target claude --platform linux-x64-gnu`
and the release `abgen-host` stripped as its npm platform package ships it, so the launcher is
the one users get. Contenders, interleaved round by round with the order alternated:

  direct    bin/linux-x64-gnu/abgen-host --version
  launcher  bin/abgen-host --version  (sh reads the platform, then execs the line above)
  sh        /bin/sh -c :               (the shell's own start, the floor of any sh launcher)

Each run is one posix_spawn and waitpid with stdout and stderr on /dev/null. With strace on
PATH, the launcher is also traced once to count the processes it starts (it must start none).

Usage: python3 bench/launcher/run.py [--rounds 2001] [--abgen PATH] [--no-build] [--out FILE]
Writes bench/launcher/results.md by default. Exits non-zero only when a command fails or the
launcher's answer differs from the direct one.
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent
PLATFORM = "linux-x64-gnu"
# The warm-hook budget (bench/hook: a warm hook's median must stay within 5 ms).
WARM_HOOK_BUDGET_MS = 5.0


def run(command, env=None, cwd=None):
    completed = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{completed.stdout}{completed.stderr}")
    return completed


def build_artifact(abgen, host, temp):
    """The curator built for Claude with `--platform linux-x64-gnu`; returns the artifact."""
    project = temp / "curator"
    shutil.copytree(
        ROOT / "examples" / "curator",
        project,
        ignore=shutil.ignore_patterns("node_modules", "artifact", ".agent-bundle"),
    )
    artifact = temp / "artifact"
    env = dict(os.environ, ABGEN_HOST=str(host), ABGEN_NODE_MODULES=str(ROOT / "node_modules"))
    run([abgen, "build", "--target", "claude", "--platform", PLATFORM, "--root", project,
         "--out", artifact], env=env)
    return artifact


def spawn_ns(argv, devnull):
    """(wall, CPU) nanoseconds of one run; CPU is the child's user+sys from wait4."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)} exited with {status}")
    return elapsed, round((usage.ru_utime + usage.ru_stime) * 1e9)


def processes_started(launcher):
    """(processes the launcher forked, programs it executed), from one strace run."""
    if shutil.which("strace") is None:
        return None
    with tempfile.NamedTemporaryFile() as trace:
        run(["strace", "-f", "-qq", "-e", "trace=fork,vfork,clone,clone3,execve", "-o", trace.name,
             launcher, "--version"])
        lines = Path(trace.name).read_text().splitlines()
    forks = sum(1 for line in lines if any(f"{call}(" in line for call in
                                           ("fork", "vfork", "clone", "clone3")))
    execs = [line.split('execve("', 1)[1].split('"', 1)[0] for line in lines if 'execve("' in line]
    return forks, execs


def describe(samples):
    ordered = sorted(samples)
    return {
        "median": statistics.median(ordered) / 1000,
        "min": ordered[0] / 1000,
        "p90": ordered[int(len(ordered) * 0.9)] / 1000,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2001)
    parser.add_argument("--abgen", type=Path, help="the abgen that builds the artifact "
                        "[default: target/release/abgen, else target/debug/abgen]")
    parser.add_argument("--no-build", action="store_true",
                        help="use target/release/abgen-host as it is")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "launcher" / "results.md")
    args = parser.parse_args()
    if not args.no_build:
        run(["cargo", "build", "--release", "--locked", "-p", "abgen-runtime", "--bin", "abgen-host"],
            cwd=ROOT)
    abgen = args.abgen
    if abgen is None:
        abgen = next(path for path in (ROOT / "target/release/abgen", ROOT / "target/debug/abgen")
                     if path.is_file())
    with tempfile.TemporaryDirectory() as directory:
        temp = Path(directory)
        host = temp / "abgen-host"
        shutil.copyfile(ROOT / "target" / "release" / "abgen-host", host)
        run(["strip", "--strip-all", host])
        host.chmod(0o755)
        artifact = build_artifact(abgen, host, temp)
        launcher = str(artifact / "bin" / "abgen-host")
        direct = str(artifact / "bin" / PLATFORM / "abgen-host")
        answers = {run([path, "--version"]).stdout for path in (launcher, direct)}
        if len(answers) != 1:
            sys.exit(f"the launcher and the binary answer differently: {answers}")
        traced = processes_started(launcher)
        contenders = {
            "direct": [direct, "--version"],
            "launcher": [launcher, "--version"],
            "sh": ["/bin/sh", "-c", ":"],
        }
        samples = {name: [] for name in contenders}
        cpu = {name: [] for name in contenders}
        devnull = os.open(os.devnull, os.O_WRONLY)
        load_before = os.getloadavg()[0]
        for _ in range(50):
            for argv in contenders.values():
                spawn_ns(argv, devnull)
        names = list(contenders)
        for round_index in range(args.rounds):
            order = names if round_index % 2 == 0 else list(reversed(names))
            for name in order:
                wall, used = spawn_ns(contenders[name], devnull)
                samples[name].append(wall)
                cpu[name].append(used)
        load_after = os.getloadavg()[0]
        os.close(devnull)
    stats = {name: describe(values) for name, values in samples.items()}
    cpu_stats = {name: describe(values) for name, values in cpu.items()}
    # Per round, launcher minus direct: the launcher's own cost without most of the noise the
    # two share.
    added = describe([a - b for a, b in zip(samples["launcher"], samples["direct"])])
    added_cpu = describe([a - b for a, b in zip(cpu["launcher"], cpu["direct"])])
    revision = run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT).stdout.strip()
    command = "python3 bench/launcher/run.py" + (f" --rounds {args.rounds}" if args.rounds != 2001 else "")
    lines = [
        "# launcher results",
        "",
        f"`{command}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, revision {revision}; "
        f"{os.cpu_count()} vCPU, load average {load_before:.1f} at the start and {load_after:.1f} at "
        f"the end{' (other work shared the machine)' if max(load_before, load_after) > 2 else ''}; "
        f"{platform.system()} {platform.release()}, "
        f"/bin/sh is {os.path.realpath('/bin/sh')}; abgen-host release, stripped "
        f"({os.path.getsize(ROOT / 'target/release/abgen-host') // 1024} KiB before stripping).",
        "",
        "| contender | wall median | wall min | wall p90 | ÷ direct (wall median) | CPU median | CPU min |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        row = stats[name]
        lines.append(
            f"| {name} | {row['median']:.0f} µs | {row['min']:.0f} µs | {row['p90']:.0f} µs | "
            f"{row['median'] / stats['direct']['median']:.2f}× | {cpu_stats[name]['median']:.0f} µs | "
            f"{cpu_stats[name]['min']:.0f} µs |"
        )
    share = added["median"] / (WARM_HOOK_BUDGET_MS * 1000) * 100
    lines += [
        "",
        f"{args.rounds} rounds, order alternated each round, after 50 warm-up rounds. The launcher "
        f"adds {added['median']:.0f} µs per run (median of the per-round differences; min "
        f"{added['min']:.0f} µs, p90 {added['p90']:.0f} µs) of wall time, {share:.1f}% of the 5 ms "
        f"warm-hook budget (bench/hook), and {added_cpu['median']:.0f} µs of CPU (user+sys from "
        "wait4, which the machine's load disturbs less). Its answer equals the binary's.",
    ]
    if traced is not None:
        forks, execs = traced
        lines += [
            "",
            f"strace of one launcher run: {forks} processes forked, {len(execs)} programs "
            f"executed ({' then '.join('/'.join(Path(path).parts[-2:]) for path in execs)}).",
        ]
    text = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
