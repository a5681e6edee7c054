"""Benchmark: peak memory of a confusion cube from large integer label arrays.

The memory case: 10^8-row
int64 label arrays ``true`` and ``pred`` (xarray DataArrays, numpy-backed, dims
``("group", "sample")``, 100 groups), counted with
``pred.ordinal.confusion(true, dim="sample")``. Target: the memory the call
needs above the data (the two input arrays, 1.6 GB) is at most the size of one
int64 column (8 bytes a row, 800 MB).

Every measurement runs in a fresh Python process (this script starts itself
with ``--child``), which

1. imports everything and makes one small call, so that lazy imports and caches
   are not counted;
2. builds the two arrays in place, block by block (no temporaries of the data's
   size), then records its resident set size (RSS) and resets the kernel's
   peak-RSS mark (``/proc/self/clear_refs``);
3. makes the call once with ``tracemalloc`` tracing (numpy reports its buffers
   to it): the traced peak is the memory allocated during the call, and the
   largest allocations at that peak are listed;
4. checks the cube against per-group ``numpy.bincount`` counts.

A second child makes the same call without ``tracemalloc`` and reports the
growth of the peak RSS over the RSS before the call (the kernel's view,
including memory numpy or pandas allocate outside Python's allocator) and the
call's time.

    python benchmarks/bench_memory.py > benchmarks/results_memory.md
    python benchmarks/bench_memory.py --smoke     # 10^5 rows, the checks only (seconds)
"""

from __future__ import annotations

import argparse
import gc
import json
import linecache
import os
import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np
from machine_info import machine

from ordframe._core import compiling

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

K = 5
BLOCK = 1 << 20


def status(field: str) -> int | None:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``), or None where there is no such file."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (``VmHWM``) to the current RSS (Linux 4.0 on)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def make_arrays(rows: int, groups: int, seed: int):
    """int64 true and predicted class codes, filled in place block by block."""
    rng = np.random.default_rng(seed)
    true = np.empty(rows, np.int64)
    pred = np.empty(rows, np.int64)
    for start in range(0, rows, BLOCK):
        stop = min(rows, start + BLOCK)
        true[start:stop] = rng.integers(0, K, stop - start)
        np.clip(true[start:stop] + rng.choice([-2, -1, 0, 0, 0, 1, 2], stop - start), 0, K - 1, out=pred[start:stop])
    return true.reshape(groups, -1), pred.reshape(groups, -1)


def expected_counts(true: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return np.stack([np.bincount(t * K + p, minlength=K * K).reshape(K, K) for t, p in zip(true, pred)])


def child(rows: int, groups: int, seed: int, trace: bool, top: int) -> dict:
    import xarray as xr

    import ordframe  # noqa: F401  (registers the accessors)

    small = xr.DataArray(np.arange(2 * K).reshape(2, K) % K, dims=("group", "sample"))
    small.ordinal.confusion(small, dim="sample")  # lazy imports and caches, not counted

    true, pred = make_arrays(rows, groups, seed)
    true_da = xr.DataArray(true, dims=("group", "sample"))
    pred_da = xr.DataArray(pred, dims=("group", "sample"))
    gc.collect()
    rss_before = status("VmRSS")
    peak_reset = reset_peak()
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    result = {"data_bytes": true.nbytes + pred.nbytes, "rss_before": rss_before, "peak_reset": peak_reset}

    if trace:
        tracemalloc.start(25)
        tracemalloc.reset_peak()
        cube = pred_da.ordinal.confusion(true_da, dim="sample")
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result.update(traced_peak=peak, traced_after=current)
    else:
        start = time.perf_counter()
        cube = pred_da.ordinal.confusion(true_da, dim="sample")
        result["seconds"] = time.perf_counter() - start
        result["hwm_after"] = status("VmHWM")
        result["maxrss_after"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        result["maxrss_before"] = maxrss_before
        repeats = []  # later calls reuse memory the first call faulted in
        for _ in range(3):
            start = time.perf_counter()
            pred_da.ordinal.confusion(true_da, dim="sample")
            repeats.append(time.perf_counter() - start)
        result["repeat_seconds"] = min(repeats)
        # The floor: one bincount over precomputed combined codes (made after the memory was read).
        combined = (np.arange(groups).repeat(true.shape[1]) * K + true.reshape(-1)) * K + pred.reshape(-1)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            np.bincount(combined, minlength=groups * K * K)
            times.append(time.perf_counter() - start)
        result["bincount_seconds"] = min(times)
        del combined

    assert cube.dims == ("group", "true", "pred"), cube.dims
    assert list(cube.coords["true"].values) == list(range(K)) == list(cube.coords["pred"].values)
    np.testing.assert_array_equal(cube.values, expected_counts(true, pred))
    result["checked"] = True
    return result


def peak_allocations(rows: int, groups: int, seed: int, top: int) -> list[tuple[int, str]]:
    """The largest live allocations at the moment of the traced peak (found by a second traced call).

    tracemalloc cannot snapshot at its peak, so the call is made again with a
    profile hook that snapshots the traced memory whenever it reaches a new
    high inside an ordframe function.
    """
    import xarray as xr

    import ordframe  # noqa: F401

    small = xr.DataArray(np.arange(2 * K).reshape(2, K) % K, dims=("group", "sample"))
    small.ordinal.confusion(small, dim="sample")
    true, pred = make_arrays(rows, groups, seed)
    true_da, pred_da = xr.DataArray(true, dims=("group", "sample")), xr.DataArray(pred, dims=("group", "sample"))
    gc.collect()
    best = {"current": -1, "snapshot": None}

    def hook(frame, event, arg):
        if event in ("return", "c_return"):
            current, _ = tracemalloc.get_traced_memory()
            if current > best["current"] + 2**20:
                best["current"] = current
                best["snapshot"] = tracemalloc.take_snapshot()

    tracemalloc.start(25)
    sys.setprofile(hook)
    try:
        pred_da.ordinal.confusion(true_da, dim="sample")
    finally:
        sys.setprofile(None)
        tracemalloc.stop()
    if best["snapshot"] is None:
        return []
    stats = best["snapshot"].statistics("traceback")
    out = []
    for stat in stats[:top]:
        if stat.size < 2**20:
            break
        frames = list(stat.traceback)  # oldest first
        ours = [f for f in frames if f"{os.sep}ordframe{os.sep}" in f.filename] or frames
        stdlib = os.path.dirname(os.__file__)
        call = ours[-1]
        innermost = next((f for f in reversed(frames) if not f.filename.startswith(stdlib + os.sep)), frames[-1])
        where = f"{short(call.filename)}:{call.lineno} `{linecache.getline(call.filename, call.lineno).strip()}`"
        if innermost is not call:
            code = linecache.getline(innermost.filename, innermost.lineno).strip()
            where += f" -> {short(innermost.filename)}:{innermost.lineno} `{code}`"
        out.append((stat.size, where))
    return out


def short(filename: str) -> str:
    """A path inside the repository or an installed package (files elsewhere: the file name)."""
    if "site-packages" + os.sep in filename:
        return filename.split("site-packages" + os.sep, 1)[1]
    path = os.path.relpath(filename)
    return os.path.basename(filename) if path.startswith("..") else path


def run_child(args, mode: str) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, "--rows", str(args.rows), "--groups", str(args.groups)]
    cmd += ["--seed", str(args.seed), "--top", str(args.top)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mb(n: float | None) -> str:
    return "n/a" if n is None else f"{n / 1e6:,.0f} MB"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**8, help="rows of each label array")
    parser.add_argument("--groups", type=int, default=100, help="size of the group dim (must divide --rows)")
    parser.add_argument("--seed", type=int, default=0, help="random number generator seed of the data")
    parser.add_argument("--top", type=int, default=8, help="allocations listed")
    parser.add_argument("--child", choices=["trace", "rss", "peak"], help=argparse.SUPPRESS)
    parser.add_argument("--smoke", action="store_true", help="10^5 rows: the checks only (seconds)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows = 10**5
        run_child(args, "rss")
        run_child(args, "trace")
        peak_allocations(args.rows, args.groups, args.seed, args.top)
        print("bench_memory smoke: the cubes of both fresh processes equal per-group bincounts")
        return
    assert args.rows % args.groups == 0, "--groups must divide --rows"

    if args.child == "peak":
        print(json.dumps(peak_allocations(args.rows, args.groups, args.seed, args.top)))
        return
    if args.child:
        print(json.dumps(child(args.rows, args.groups, args.seed, args.child == "trace", args.top)))
        return

    load_before = os.getloadavg()
    rss = run_child(args, "rss")
    trace = run_child(args, "trace")
    load_after = os.getloadavg()
    data = trace["data_bytes"]
    column = 8 * args.rows
    traced = trace["traced_peak"]
    rss_growth = None
    if rss["peak_reset"] and rss["hwm_after"] is not None:
        rss_growth = rss["hwm_after"] - rss["rss_before"]
    maxrss_growth = rss["maxrss_after"] - rss["maxrss_before"]
    worst = max(traced, rss_growth if rss_growth is not None else 0)
    verdict = "met" if worst <= column else "NOT met"

    out = ["# Benchmark: peak memory of a confusion cube from 10^8-row integer label arrays", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f'Case: `true` and `pred` int64 `xarray.DataArray`s (numpy-backed) of dims `("group", "sample")`, '
        f"{args.groups} groups x {args.rows // args.groups:,} samples = {args.rows:,} rows each, K = {K} classes "
        f'(codes 0..{K - 1}, no `labels=`); `pred.ordinal.confusion(true, dim="sample")`. '
        f"Data: {mb(data)} (two arrays); one int64 column: {mb(column)}. "
        "Each measurement ran in a fresh process after a small warm-up call; the cube was checked equal to "
        "per-group `numpy.bincount` counts.",
        "",
        "Target: peak memory above the data at most the size of one int64 column.",
        "",
        "| measurement | memory above the data | / one int64 column | target <= 1 |",
        "|---|---|---|---|",
        f"| tracemalloc peak during the call | {mb(traced)} | {traced / column:.2f} | "
        f"{'met' if traced <= column else 'NOT met'} |",
    ]
    if rss_growth is not None:
        out.append(
            f"| peak RSS (`VmHWM`, reset before the call) minus RSS before the call | {mb(rss_growth)} | "
            f"{rss_growth / column:.2f} | {'met' if rss_growth <= column else 'NOT met'} |"
        )
    out += [
        f"| `ru_maxrss` growth (process-lifetime peak, so a lower bound) | {mb(maxrss_growth)} | "
        f"{maxrss_growth / column:.2f} | (lower bound) |",
        "",
        f"Verdict: **{verdict}** (the larger of the tracemalloc and RSS measurements, "
        f"{mb(worst)} = {worst / column:.2f} int64 columns).",
        "",
        f"Still allocated after the call (tracemalloc): {mb(trace['traced_after'])} (the cube is "
        f"{mb(args.groups * K * K * 8)}).",
        "",
        f"Time (the RSS process, reported only): the measured call {rss['seconds']:.2f} s (the first at this size: "
        f"it includes faulting in fresh memory); the minimum of 3 later calls {rss['repeat_seconds']:.2f} s; "
        f"one `numpy.bincount` over precomputed combined int64 codes of the same rows (minimum of 3) "
        f"{rss['bincount_seconds']:.2f} s, i.e. {rss['seconds'] / rss['bincount_seconds']:.1f}x (first call) and "
        f"{rss['repeat_seconds'] / rss['bincount_seconds']:.1f}x (later calls) the bincount.",
    ]
    if worst > column:
        top = run_child(args, "peak")
        out += [
            "",
            "## Largest allocations alive at the traced peak",
            "",
            "| size | allocated by (the last ordframe line on the stack -> where the buffer was made) |",
            "|---|---|",
        ] + [f"| {mb(size)} | {where} |" for size, where in top]
    out += [
        "",
        "Reproduce with `python benchmarks/bench_memory.py > benchmarks/results_memory.md`; `--help` lists "
        "`--rows`, `--groups` and `--seed` (of the random number generator).",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
