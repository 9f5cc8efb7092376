#!/usr/bin/env python3
"""Draws docs/benchmarks.png and writes the summary tables from the benchmark results.

Reads, from the results directory (default BenchmarkDotNet.Artifacts/results):
  - StreamAllocationBenchmark.json (the allocation report),
  - InterleavedRatios.json (speedup and efficiency measured in one process), and
  - the BenchmarkDotNet full JSON reports (*-report-full.json) of DocumentEncryptBenchmarks,
    DocumentDecryptBenchmarks, FeedPageDecryptBenchmarks and ContainerBenchmarks, whichever exist.
Writes a PNG chart and a Markdown summary (allocation, throughput with speedup and efficiency, feed page,
container, the targets of performance.md met or missed).

Needs Python 3 and matplotlib. When matplotlib is missing the script installs Debian's python3-matplotlib
with apt-get (as root, or through sudo), since the Python package index may not be reachable.

Usage: eng/plot-benchmarks.py [--results DIR] [--chart PNG] [--summary MD]
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

SIZES = [1024, 4096, 8192, 65536, 1048576]
SHAPES = ["Published", "Mixed"]
TARGET_SPEEDUP = {"Encrypt": 5.0, "Decrypt": 6.0}
TARGET_EFFICIENCY = 0.30
TARGET_SIZE, TARGET_SHAPE = 8192, "Mixed"


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    system_python = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system_python) and os.path.exists(system_python):
        # Debian's package installs for the system interpreter: run there.
        probe = subprocess.run([system_python, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode == 0:
            os.execv(system_python, [system_python] + sys.argv)
    apt = shutil.which("apt-get")
    if apt is None:
        sys.exit("matplotlib is missing and apt-get is not available: install matplotlib for this Python.")
    prefix = [] if os.geteuid() == 0 else (["sudo"] if shutil.which("sudo") else None)
    if prefix is None:
        sys.exit("matplotlib is missing: run 'apt-get install python3-matplotlib' as root.")
    install = prefix + [apt, "install", "-y", "-q", "python3-matplotlib"]
    print("matplotlib is missing; installing Debian's python3-matplotlib:", " ".join(install), flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(install, env=env).returncode != 0:
        subprocess.run(prefix + [apt, "update", "-q"], env=env, check=True)
        subprocess.run(install, env=env, check=True)
    if os.path.realpath(sys.executable) != os.path.realpath(system_python) and os.path.exists(system_python):
        os.execv(system_python, [system_python] + sys.argv)
    import importlib
    importlib.invalidate_caches()


def label(size):
    if size >= 1048576 and size % 1048576 == 0:
        return f"{size // 1048576} MB"
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024} KB"
    return f"{size} B"


def load_allocation(results):
    path = os.path.join(results, "StreamAllocationBenchmark.json")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as file:
        rows = json.load(file)
    for row in rows:
        # The nominal (plaintext) size: the input of an encryption, the output of a decryption.
        row["size"] = row["documentBytes"] if row["operation"] == "encrypt" else row["outputBytes"]
    return rows


def load_ratios(results):
    """Interleaved ratio rows keyed like the document rows: {(operation, shape, size): (speedup, efficiency)}."""
    path = os.path.join(results, "InterleavedRatios.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as file:
        rows = json.load(file)
    ratios = {}
    for row in rows:
        shape = row["shape"].capitalize()
        size = row["documentBytes"]
        for operation, prefix in (("Encrypt", "Encrypt"), ("Decrypt", "Decrypt")):
            stream = row[f"stream{prefix}Ns"]
            ratios[(operation, shape, size)] = {
                "newtonsoft": row[f"newtonsoft{prefix}Ns"], "stream": stream, "crypto": row[f"cryptoOnly{prefix}Ns"],
                "speedup": row[f"newtonsoft{prefix}Ns"] / stream, "efficiency": row[f"cryptoOnly{prefix}Ns"] / stream,
            }
    return ratios


def load_benchmarks(results):
    """{type: [{method, params, mean (ns), allocated (B)}]} from every full JSON report."""
    benchmarks = {}
    host = None
    for path in sorted(glob.glob(os.path.join(results, "*-report-full.json"))):
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
        host = host or report.get("HostEnvironmentInfo")
        for case in report.get("Benchmarks", []):
            statistics = case.get("Statistics") or {}
            if "Mean" not in statistics:
                continue
            params = dict(item.split("=", 1) for item in case["Parameters"].split("&") if "=" in item)
            memory = case.get("Memory") or {}
            benchmarks.setdefault(case["Type"], []).append({
                "method": case["Method"],
                "params": params,
                "mean": statistics["Mean"],
                "stddev": statistics.get("StandardDeviation", 0.0),
                "allocated": memory.get("BytesAllocatedPerOperation"),
            })
    return benchmarks, host


def find(cases, method, **params):
    for case in cases:
        if case["method"] == method and all(case["params"].get(k) == str(v) for k, v in params.items()):
            return case
    return None


def document_rows(benchmarks):
    """One row per operation, shape and size with both processors, the crypto-only time and the ratios."""
    rows = []
    for operation, type_name in (("Encrypt", "DocumentEncryptBenchmarks"), ("Decrypt", "DocumentDecryptBenchmarks")):
        cases = benchmarks.get(type_name, [])
        for shape in SHAPES:
            for size in SIZES:
                stream = find(cases, operation, Shape=shape, Size=size, Processor="Stream")
                newtonsoft = find(cases, operation, Shape=shape, Size=size, Processor="Newtonsoft")
                crypto = find(cases, "CryptoOnly", Shape=shape, Size=size, Processor="Stream")
                if stream is None and newtonsoft is None:
                    continue
                rows.append({
                    "operation": operation, "shape": shape, "size": size,
                    "stream": stream, "newtonsoft": newtonsoft, "crypto": crypto,
                    "speedup": newtonsoft["mean"] / stream["mean"] if stream and newtonsoft else None,
                    "efficiency": crypto["mean"] / stream["mean"] if stream and crypto else None,
                    "mbps": size / stream["mean"] * 1e3 if stream else None,
                    "newtonsoft_mbps": size / newtonsoft["mean"] * 1e3 if newtonsoft else None,
                })
    return rows


def fmt_us(case):
    return "n/a" if case is None else f"{case['mean'] / 1000:,.1f}"


def fmt_ratio(value):
    return "n/a" if value is None else f"{value:.2f}"


def fmt_bytes(value):
    return "n/a" if value is None else f"{int(value):,}"


def summary_markdown(allocation, benchmarks, host, rows, ratios):
    lines = []
    if host:
        lines += ["### Machine (from the BenchmarkDotNet run)", "",
                  f"- CPU: {host.get('ProcessorName')}, {host.get('PhysicalCoreCount')} physical / {host.get('LogicalCoreCount')} logical cores",
                  f"- OS: {host.get('OsVersion')}", f"- .NET: {host.get('RuntimeVersion')}, SDK {host.get('DotNetCliVersion')}",
                  f"- BenchmarkDotNet {host.get('BenchmarkDotNetVersion')}", ""]
    if allocation:
        lines += ["### Allocation (bytes per operation, StreamAllocationBenchmark)", "",
                  "| Shape | Size | Newtonsoft encrypt | Newtonsoft decrypt | Stream encrypt (IBufferWriter / Stream) | Stream decrypt (IBufferWriter / Stream) |",
                  "|---|---|---:|---:|---:|---:|"]
        index = {(r["processor"], r["api"], r["operation"], r["shape"], r["size"]): r["allocatedBytesPerOp"] for r in allocation}
        for shape in SHAPES:
            for size in SIZES:
                key = shape.lower()
                if ("stream", "bufferWriter", "encrypt", key, size) not in index:
                    continue
                get = lambda p, a, o: fmt_bytes(index.get((p, a, o, key, size)))
                lines.append(f"| {shape} | {label(size)} | {get('newtonsoft', 'bufferWriter', 'encrypt')} | {get('newtonsoft', 'bufferWriter', 'decrypt')} | "
                             f"{get('stream', 'bufferWriter', 'encrypt')} / {get('stream', 'stream', 'encrypt')} | "
                             f"{get('stream', 'bufferWriter', 'decrypt')} / {get('stream', 'stream', 'decrypt')} |")
        lines.append("")
    if rows:
        lines += ["### Documents (mean µs per operation; speedup = Newtonsoft ÷ Stream; efficiency = crypto-only ÷ Stream)", "",
                  "| Operation | Shape | Size | Newtonsoft | Stream | Crypto-only | Speedup | Efficiency | Stream MB/s | Newtonsoft MB/s |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            stream_mbps = "n/a" if r["mbps"] is None else f"{r['mbps']:,.0f}"
            newtonsoft_mbps = "n/a" if r["newtonsoft_mbps"] is None else f"{r['newtonsoft_mbps']:,.0f}"
            lines.append(f"| {r['operation']} | {r['shape']} | {label(r['size'])} | {fmt_us(r['newtonsoft'])} | {fmt_us(r['stream'])} | {fmt_us(r['crypto'])} | "
                         f"{fmt_ratio(r['speedup'])} | {fmt_ratio(r['efficiency'])} | {stream_mbps} | {newtonsoft_mbps} |")
        lines.append("")
    if ratios:
        lines += ["### Interleaved ratios (InterleavedRatios: fastest of short rounds, all cases in one process; µs per operation)", "",
                  "| Operation | Shape | Size | Newtonsoft | Stream | Crypto-only | Speedup | Efficiency |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        for operation in ("Encrypt", "Decrypt"):
            for shape in SHAPES:
                for size in SIZES:
                    r = ratios.get((operation, shape, size))
                    if r:
                        lines.append(f"| {operation} | {shape} | {label(size)} | {r['newtonsoft'] / 1000:,.1f} | {r['stream'] / 1000:,.1f} | "
                                     f"{r['crypto'] / 1000:,.1f} | {r['speedup']:.2f} | {r['efficiency']:.2f} |")
        lines.append("")
    pages = benchmarks.get("FeedPageDecryptBenchmarks", [])
    if pages:
        lines += ["### Feed page of 100 documents (mean ms per page)", "",
                  "| Shape | Document size | Newtonsoft | Stream | Speedup |", "|---|---|---:|---:|---:|"]
        for shape in SHAPES:
            for size in (1024, 8192):
                stream = find(pages, "DecryptFeedPage", Shape=shape, DocumentSize=size, Processor="Stream")
                newtonsoft = find(pages, "DecryptFeedPage", Shape=shape, DocumentSize=size, Processor="Newtonsoft")
                if stream and newtonsoft:
                    lines.append(f"| {shape} | {label(size)} | {newtonsoft['mean'] / 1e6:,.2f} | {stream['mean'] / 1e6:,.2f} | {newtonsoft['mean'] / stream['mean']:.2f} |")
        lines.append("")
    container = benchmarks.get("ContainerBenchmarks", [])
    if container:
        lines += ["### Container path (mixed document through WithEncryptor over an echo container; mean µs and bytes allocated per operation)", "",
                  "| Method | Size | Plain container | Newtonsoft | Stream | Speedup | Plain B/op | Newtonsoft B/op | Stream B/op |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for method in ("CreateItemStream", "ReadItemStream"):
            for size in (1024, 8192, 65536):
                plain = find(container, "Plain" + method, Size=size, Processor="Stream")
                stream = find(container, method, Size=size, Processor="Stream")
                newtonsoft = find(container, method, Size=size, Processor="Newtonsoft")
                if stream and newtonsoft:
                    plain_us = fmt_us(plain) if plain else "n/a"
                    plain_bytes = fmt_bytes(plain["allocated"]) if plain else "n/a"
                    lines.append(f"| {method} | {label(size)} | {plain_us} | {fmt_us(newtonsoft)} | {fmt_us(stream)} | {newtonsoft['mean'] / stream['mean']:.2f} | "
                                 f"{plain_bytes} | {fmt_bytes(newtonsoft['allocated'])} | {fmt_bytes(stream['allocated'])} |")
        lines.append("")
    lines += targets(allocation, rows, ratios)
    return "\n".join(lines) + "\n"


def targets(allocation, rows, ratios):
    lines = ["### Targets (performance.md)", ""]
    stream_rows = [r for r in allocation if r["processor"] == "stream"]
    if stream_rows:
        worst_writer = max(r["allocatedBytesPerOp"] for r in stream_rows if r["api"] == "bufferWriter")
        worst_stream = max(r["allocatedBytesPerOp"] for r in stream_rows if r["api"] == "stream")
        lines.append(f"- Allocation, IBufferWriter, every size: target 0 B, worst {worst_writer:,} B: {'met' if worst_writer == 0 else 'MISSED'}")
        lines.append(f"- Allocation, Stream, every size: target ≤ 256 B, worst {worst_stream:,} B: {'met' if worst_stream <= 256 else 'MISSED'}")
    sources = [("interleaved", {k: v for k, v in ratios.items()}),
               ("BenchmarkDotNet", {(r["operation"], r["shape"], r["size"]): r for r in rows})]
    for operation in ("Encrypt", "Decrypt"):
        goal = TARGET_SPEEDUP[operation]
        for measure, target, unit in (("speedup", goal, "×"), ("efficiency", TARGET_EFFICIENCY, "")):
            found = [(name, source[(operation, TARGET_SHAPE, TARGET_SIZE)][measure]) for name, source in sources
                     if (operation, TARGET_SHAPE, TARGET_SIZE) in source and source[(operation, TARGET_SHAPE, TARGET_SIZE)][measure] is not None]
            if found:
                measured = ", ".join(f"{value:.2f}{unit} ({name})" for name, value in found)
                # Each timing gets its own verdict: a target met by one and missed by the other is reported as such.
                verdict = ", ".join(f"{'met' if value >= target else 'MISSED'} ({name})" for name, value in found)
                what = "speedup vs Newtonsoft" if measure == "speedup" else "efficiency"
                lines.append(f"- {operation} {what}, 8 KB mixed: target ≥ {target:g}{unit}, measured {measured}: {verdict}")
    return lines + [""]


def draw(allocation, rows, ratios, chart):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 2, figsize=(13, 9.5))
    ticks = SIZES
    tick_labels = [label(s) for s in SIZES]
    colors = {"Encrypt": "tab:blue", "Decrypt": "tab:orange"}
    markers = {"Mixed": "o", "Published": "s"}

    ax = axes[0][0]
    if allocation:
        for operation in ("encrypt", "decrypt"):
            for processor, style in (("newtonsoft", "--"), ("stream", "-")):
                for api, marker in (("bufferWriter", "o"), ("stream", "^")):
                    points = sorted((r["size"], r["allocatedBytesPerOp"]) for r in allocation
                                    if r["shape"] == "mixed" and r["operation"] == operation and r["processor"] == processor and r["api"] == api)
                    if points:
                        ax.plot([p[0] for p in points], [p[1] for p in points], style, marker=marker,
                                color=colors[operation.capitalize()], alpha=0.9 if processor == "stream" else 0.6,
                                label=f"{processor.capitalize()} {operation} ({'IBufferWriter' if api == 'bufferWriter' else 'Stream'})")
        ax.axhline(256, color="gray", linewidth=0.8, linestyle=":")
        ax.text(1100, 300, "Stream API budget 256 B", color="gray", fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylim(-0.5, 1e8)
        ax.legend(fontsize=7, ncol=2, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no allocation report", ha="center", transform=ax.transAxes)
    ax.set_title("Bytes allocated per operation, mixed documents (0 = none)")
    ax.set_ylabel("bytes per operation (symlog)")

    def ratio_lines(ax, measure):
        # Solid: the interleaved report (one process); hollow markers: BenchmarkDotNet (one process per case).
        for r_operation in ("Encrypt", "Decrypt"):
            for shape in SHAPES:
                alpha = 1.0 if shape == "Mixed" else 0.5
                points = sorted((size, r[measure]) for (operation, r_shape, size), r in ratios.items() if operation == r_operation and r_shape == shape)
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], "-", marker=markers[shape], color=colors[r_operation],
                            alpha=alpha, label=f"{r_operation}, {shape.lower()}")
                points = [(r["size"], r[measure]) for r in rows if r["operation"] == r_operation and r["shape"] == shape and r[measure]]
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], linestyle="none", marker=markers[shape], markerfacecolor="none",
                            color=colors[r_operation], alpha=alpha, label=None if ratios else f"{r_operation}, {shape.lower()} (BenchmarkDotNet)")

    ax = axes[0][1]
    ratio_lines(ax, "speedup")
    for r_operation in ("Encrypt", "Decrypt"):
        ax.axhline(TARGET_SPEEDUP[r_operation], color=colors[r_operation], linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_title("Speedup over Newtonsoft (Newtonsoft time ÷ Stream time); lines: interleaved,\nhollow: BenchmarkDotNet; dotted: targets at 8 KB mixed (5× encrypt, 6× decrypt)", fontsize=10)
    ax.set_ylabel("×")
    if rows or ratios:
        ax.legend(fontsize=8)

    ax = axes[1][0]
    for r_operation in ("Encrypt", "Decrypt"):
        for processor, key, style in (("Stream", "mbps", "-"), ("Newtonsoft", "newtonsoft_mbps", "--")):
            points = [(r["size"], r[key]) for r in rows if r["operation"] == r_operation and r["shape"] == "Mixed" and r[key]]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", color=colors[r_operation],
                        alpha=1.0 if processor == "Stream" else 0.6, label=f"{processor} {r_operation.lower()}")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_title("Throughput, mixed documents (plaintext MB/s, BenchmarkDotNet means)")
    ax.set_ylabel("MB/s")
    if rows:
        ax.legend(fontsize=8)

    ax = axes[1][1]
    ratio_lines(ax, "efficiency")
    ax.axhline(TARGET_EFFICIENCY, color="gray", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_title("Efficiency: crypto-only time ÷ Stream processor time; lines: interleaved,\nhollow: BenchmarkDotNet; dotted: target 0.30 at 8 KB mixed", fontsize=10)
    if rows or ratios:
        ax.legend(fontsize=8)

    for row_axes in axes:
        for ax in row_axes:
            ax.set_xticks(ticks)
            ax.set_xticklabels(tick_labels)
            ax.set_xlabel("document size")
            ax.grid(True, which="major", alpha=0.3)
    figure.suptitle("Encryption.Custom: Stream processor vs Newtonsoft baseline (one run, same machine)")
    figure.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(chart)), exist_ok=True)
    figure.savefig(chart, dpi=110)
    print(f"Wrote {chart}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="BenchmarkDotNet.Artifacts/results")
    parser.add_argument("--chart", default="docs/benchmarks.png")
    parser.add_argument("--summary", default="BenchmarkDotNet.Artifacts/results/benchmark-summary.md")
    args = parser.parse_args()
    # First: it may re-run this script under the system interpreter.
    ensure_matplotlib()

    allocation = load_allocation(args.results)
    ratios = load_ratios(args.results)
    benchmarks, host = load_benchmarks(args.results)
    if not allocation and not benchmarks and not ratios:
        sys.exit(f"No results in {args.results}: run eng/benchmark.sh first.")
    rows = document_rows(benchmarks)

    summary = summary_markdown(allocation, benchmarks, host, rows, ratios)
    os.makedirs(os.path.dirname(os.path.abspath(args.summary)), exist_ok=True)
    with open(args.summary, "w", encoding="utf-8") as file:
        file.write(summary)
    print(summary)
    print(f"Wrote {args.summary}")
    draw(allocation, rows, ratios, args.chart)


if __name__ == "__main__":
    main()
