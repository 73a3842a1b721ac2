"""Measurement helpers: CPU of a server and of the client over a phase, RSS units, percentiles, machine load."""

from __future__ import annotations

import os
import resource

from client import cpu_seconds, perf
from results import Results


def mib(kib: int) -> float:
    return kib / 1024


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def self_cpu() -> float:
    """CPU seconds (user + system) of this process: the load client's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """The CPU a server (``pid``; None: not measured) and this client use from now to ``read()``."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.server0 = cpu_seconds(pid) if pid else 0.0
        self.client0 = self_cpu()

    def read(self) -> tuple[float, float]:
        """(server CPU seconds, client CPU seconds) since the meter was made."""
        server = (cpu_seconds(self.pid) - self.server0) if self.pid else 0.0
        return server, self_cpu() - self.client0


def tree_cpu(pids: list[int]) -> float:
    """CPU seconds of these processes and of every process under them now (a gateway's stdio
    upstream, say), to the nanosecond where the kernel says (``schedstat``; ``stat`` counts in
    ticks of 10 ms); a process gone meanwhile counts nothing."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            children.setdefault(int(stat[stat.rindex(b")") + 2 :].split()[1]), []).append(int(entry))
    total, todo = 0.0, list(pids)
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            total += _precise_cpu(pid)
        except OSError:
            pass
    return total


def _precise_cpu(pid: int) -> float:
    try:
        threads = os.listdir(f"/proc/{pid}/task")
        total = 0
        for thread in threads:
            with open(f"/proc/{pid}/task/{thread}/schedstat") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except FileNotFoundError:  # (no schedstat in this kernel; or the process is gone: stat says which)
        return cpu_seconds(pid)


def machine_cpu() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole machine since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def own_cpu() -> float:
    """CPU seconds of this runner and of every server it has reaped."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


class MachineLoad:
    """CPU used by other processes while the run goes on: a quiet machine gives steadier figures."""

    def __init__(self) -> None:
        self.busy0, self.steal0 = machine_cpu()
        self.own0 = own_cpu()
        self.wall0 = perf()

    def record(self, results: Results) -> None:
        """Put the run's foreign CPU and steal in ``results.load``; a note if they were high."""
        busy1, steal1 = machine_cpu()
        foreign = max(0.0, (busy1 - self.busy0) - (own_cpu() - self.own0))
        wall = perf() - self.wall0
        steal = steal1 - self.steal0
        results.load = {
            "foreign_cpu_s": foreign,
            "foreign_cores": foreign / wall,
            "steal_s": steal,
            "wall_s": wall,
            "loadavg_end": open("/proc/loadavg").read().split()[:3],
        }
        if foreign / wall > 0.1 or steal / wall > 0.05:
            results.note(
                f"other processes used {foreign:.0f} CPU-s ({100 * foreign / wall:.0f}% of one core on "
                f"average; steal {steal:.0f} s) while this ran on {os.cpu_count()} cores: the figures "
                "are noisier than on a quiet machine"
            )
