"""Run the official MCP conformance suite's client mode against ``conformance/everything_client.py``.

    python conformance/run_client.py [--spec-version default --spec-version 2026-07-28]

Two runs of every client scenario (``--suite all``): one at the revision the suite picks for each
scenario (2025-11-25 for most, 2026-07-28 for those only it has), then one with every scenario at
2026-07-28 (the stateless era; a scenario of both revisions then runs there too).  Within a run
the suite starts every scenario's client at once; the two runs go one after the other, since on
two cores running them together only made each client wait longer for the processor.
Each run is judged by the suite itself against ``expected-client-failures.yaml`` (a failure not
listed fails the run, and so does a listed scenario that passes).  Prints the checks passed and
failed per scenario group (``auth/*`` and the rest) and exits 1 if a run failed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import NODE_BIN, SUITE, suite_environment

HERE = Path(__file__).resolve().parent
CLIENT = HERE / "everything_client.py"
BASELINE = HERE / "expected-client-failures.yaml"
RUNS = ("default", "2026-07-28")  # "default": no --spec-version (each scenario at the suite's choice)
# Seconds a scenario's client may take (the suite's default is 30): every scenario's client starts at
# once, so on two busy cores one may wait its turn for a while; the client gives up sooner itself.
SCENARIO_TIMEOUT = 120
RESULT = re.compile(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed")


def start(version: str, output: Path) -> subprocess.Popen[str]:
    command = [
        str(NODE_BIN / "node"),
        str(SUITE),
        "client",
        "--suite",
        "all",
        "--command",
        f"{sys.executable} {CLIENT}",
        "--expected-failures",
        str(BASELINE),
        "-o",
        str(output),
        "--timeout",
        str(SCENARIO_TIMEOUT * 1000),
    ]
    if version != "default":
        command += ["--spec-version", version]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=suite_environment()
    )


def group_of(scenario: str) -> str:
    return "auth" if scenario.startswith("auth/") else "core"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec-version", action="append", choices=RUNS)
    args = parser.parse_args()
    began = time.monotonic()
    summary: dict[str, dict[str, dict[str, int]]] = {}
    run_seconds: dict[str, float] = {}
    failed_runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for version in args.spec_version or RUNS:
            started = time.monotonic()
            process = start(version, Path(tmp) / version)
            try:
                output, _ = process.communicate(timeout=900)
            except subprocess.TimeoutExpired:
                process.kill()
                output, _ = process.communicate()
                failed_runs.append(f"{version} (timed out)")
            groups: dict[str, dict[str, int]] = {}
            for line in output.splitlines():
                found = RESULT.match(line)
                if found:
                    group = groups.setdefault(group_of(found.group(1)), {"scenarios": 0, "passed": 0, "failed": 0})
                    group["scenarios"] += 1
                    group["passed"] += int(found.group(2))
                    group["failed"] += int(found.group(3))
                    if int(found.group(3)):
                        print(f"  {version}: {line}")
            if not groups:
                print(output[-4000:])
                failed_runs.append(f"{version} (no results)")
            elif process.returncode != 0 and f"{version} (timed out)" not in failed_runs:
                print("\n".join(output.splitlines()[-40:]))
                failed_runs.append(version)
            summary[version] = groups
            run_seconds[version] = round(time.monotonic() - started, 1)
            for name, group in sorted(groups.items()):
                print(
                    f"conformance client {version} {name}: {group['scenarios']} scenarios, "
                    f"{group['passed']} passed, {group['failed']} failed"
                )
    print(json.dumps({"runs": summary, "seconds": round(time.monotonic() - began, 1), "run_seconds": run_seconds}))
    if failed_runs:
        print(f"failed (against {BASELINE.name}): {', '.join(failed_runs)}")
    return 1 if failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
