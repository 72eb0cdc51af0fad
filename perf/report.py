#!/usr/bin/python3
"""Turns bench_all's JSON output into docs/performance.md and its chart.

    perf/report.py BENCH.json [--md docs/performance.md] [--png docs/performance.png]

`make bench` runs it after `bench_all --benchmark_repetitions=N
--benchmark_report_aggregates_only=true --benchmark_out=BENCH.json`. Rows are
named "<message>/<system>/<operation>" (perf/bench_all.cc). Every figure in the
document is a median over the repetitions (the "_median" aggregate; without
repetitions, the median of the plain runs), CPU time per operation, and
bytes_per_second, which Google Benchmark also derives from CPU time.

Only Debian's python3 and python3-matplotlib are used (tools/install-deps.sh
--bench installs both); without matplotlib the document is written without the
chart.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from collections import defaultdict

OPS = ("serialize", "deserialize", "verify")

# Display order and names. FlatBuffers' unpack (object API) is shown as its own
# row, "FlatBuffers (unpack)", whose deserialize column is the unpack figure.
SYSTEMS = [
    ("fbe_interp_standard", "fbe-c interpreter, standard"),
    ("fbe_interp_final", "fbe-c interpreter, final"),
    ("fbe_jit_standard", "fbe-c JIT, standard"),
    ("fbe_jit_final", "fbe-c JIT, final"),
    ("fbe_aot_standard", "fbe-c AOT, standard"),
    ("fbe_aot_final", "fbe-c AOT, final"),
    ("fbe_static_standard", "fbe-c static C, standard"),
    ("fbe_static_final", "fbe-c static C, final"),
    ("protobuf", "protobuf C++"),
    ("protobuf-c", "protobuf-c"),
    ("flatbuffers", "FlatBuffers (read in place)"),
    ("flatbuffers_unpack", "FlatBuffers (unpack)"),
    ("capnp", "Cap'n Proto (read in place)"),
    ("msgpack", "msgpack-c"),
    ("fbe_json", "fbe-c JSON (every backend)"),
    ("rapidjson", "RapidJSON"),
]
NAMES = dict(SYSTEMS)

# The reference FBE README's figures, measured on this machine (ns per
# operation, -O2): size, serialize, deserialize, verify; None = the library has
# no such operation.
REFERENCE = {
    "FBE C++ standard": (252, 97, 105, 28),
    "FBE C++ final": (152, 63, 94, 43),
    "protobuf C++ 3.21": (138, 97, 223, None),
    "FlatBuffers 2.0.8": (320, 191, 58, 52),
    "Cap'n Proto 0.9.2": (240, 247, 206, None),
    "msgpack-c 4": (124, 201, 367, None),
    "RapidJSON": (349, 683, 1170, None),
    # Not in the README: the reference's own JSON (its rapidjson-based
    # to_json/from_json, parse included) on the README account, from the JSON issue.
    "FBE C++ JSON": (349, 727, 1219, None),
}
# Which reference row each of our rows is compared with.
REFERENCE_OF = {
    "fbe_interp_standard": "FBE C++ standard",
    "fbe_jit_standard": "FBE C++ standard",
    "fbe_aot_standard": "FBE C++ standard",
    "fbe_static_standard": "FBE C++ standard",
    "fbe_interp_final": "FBE C++ final",
    "fbe_jit_final": "FBE C++ final",
    "fbe_aot_final": "FBE C++ final",
    "fbe_static_final": "FBE C++ final",
    "protobuf": "protobuf C++ 3.21",
    "flatbuffers": "FlatBuffers 2.0.8",
    "capnp": "Cap'n Proto 0.9.2",
    "msgpack": "msgpack-c 4",
    "fbe_json": "FBE C++ JSON",
    "rapidjson": "RapidJSON",
}

PACKAGES = [
    ("gcc", "C compiler"),
    ("g++", "C++ compiler (bench_all, the C++ peers)"),
    ("llvm-19-dev", "the JIT and AOT code generator"),
    ("libbenchmark-dev", "Google Benchmark"),
    ("libprotobuf-dev", "protobuf C++"),
    ("protobuf-compiler", "protoc"),
    ("libprotobuf-c-dev", "protobuf-c"),
    ("protobuf-c-compiler", "protoc-c"),
    ("libflatbuffers-dev", "FlatBuffers"),
    ("flatbuffers-compiler", "flatc"),
    ("libcapnp-dev", "Cap'n Proto"),
    ("capnproto", "capnp compile"),
    ("libmsgpack-dev", "msgpack-c"),
    ("rapidjson-dev", "RapidJSON"),
    ("python3-matplotlib", "the chart"),
]

TIME_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    """{(message, system, op): {"ns": median CPU ns, "bps": median bytes/s,
    "size": bytes, "reps": n}} and the JSON context."""
    with open(path) as f:
        doc = json.load(f)
    medians = {}
    cvs = []
    plain = defaultdict(list)
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred"):
            print("report: %s failed: %s" % (b["name"], b.get("error_message")), file=sys.stderr)
            continue
        run = b.get("run_name", b["name"])
        parts = run.split("/")
        if len(parts) != 3:
            continue
        key = tuple(parts)
        if key[1] == "flatbuffers" and key[2] == "unpack":
            key = (key[0], "flatbuffers_unpack", "deserialize")
        ns = b["cpu_time"] * TIME_SCALE[b.get("time_unit", "ns")]
        row = {"ns": ns, "bps": b.get("bytes_per_second"), "size": b.get("size"),
               "reps": b.get("repetitions", 1)}
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = row
            elif b.get("aggregate_name") == "cv":
                cvs.append(b["cpu_time"])  # a fraction, whatever time_unit says
        else:
            plain[key].append(row)
    for key, rows in plain.items():
        if key not in medians:
            medians[key] = {
                "ns": statistics.median(r["ns"] for r in rows),
                "bps": statistics.median(r["bps"] or 0 for r in rows),
                "size": rows[0]["size"],
                "reps": len(rows),
            }
    return medians, doc.get("context", {}), cvs


def cpu_info():
    model, logical = None, 0
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k, v = k.strip(), v.strip()
                if k == "model name" and model is None:
                    model = v
                elif k == "processor":
                    logical += 1
                elif k == "flags" and not flags:
                    flags = v
    except OSError:
        pass
    virt = " (virtual machine)" if " hypervisor" in " " + flags else ""
    return (model or platform.processor() or "unknown") + virt, logical or os.cpu_count()


def package_version(name):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name],
                             capture_output=True, text=True, check=False)
        return out.stdout.strip() or "not installed"
    except OSError:
        return "unknown (no dpkg-query)"


def fmt_ns(v):
    if v is None:
        return "—"
    return "%.0f" % v if v >= 10 else "%.1f" % v


def fmt_time(ns):
    """ns below a millisecond, else ms (the large message)."""
    return fmt_ns(ns) + " ns" if ns < 1e6 else "%.1f ms" % (ns / 1e6)


def fmt_ratio(v):
    return "—" if v is None else "%.2f" % v


def fmt_rate(bps):
    if not bps:
        return "—"
    mb = bps / 1e6
    return "{:,.0f}".format(mb) if mb >= 10 else "%.1f" % mb


def present(medians, message):
    return [s for s, _ in SYSTEMS if any((message, s, op) in medians for op in OPS)]


def size_of(medians, message, system):
    for op in OPS:
        r = medians.get((message, system, op))
        if r and r["size"]:
            return int(r["size"])
    if system == "flatbuffers_unpack":
        return size_of(medians, message, "flatbuffers")
    return None


def ns_of(medians, message, system, op):
    r = medians.get((message, system, op))
    return r["ns"] if r else None


def readme_table(medians):
    lines = ["| System | Message size, bytes | Serialize, ns | Deserialize, ns | Verify, ns |",
             "|---|---:|---:|---:|---:|"]
    for s in present(medians, "readme"):
        lines.append("| %s | %s | %s | %s | %s |" % (
            NAMES[s], size_of(medians, "readme", s) or "—",
            *(fmt_ns(ns_of(medians, "readme", s, op)) for op in OPS)))
    return lines


def ratio_tables(medians):
    """This run over the reference figures: per row, and the machine factor (the
    median of the peers' ratios) that the FBE rows are then divided by."""
    peer_ratios = []
    rows = []
    for s in present(medians, "readme"):
        ref_name = REFERENCE_OF.get(s)
        if not ref_name:
            continue
        ref = REFERENCE[ref_name]
        ratios = []
        for i, op in enumerate(OPS):
            ours, theirs = ns_of(medians, "readme", s, op), ref[i + 1]
            ratios.append(ours / theirs if ours and theirs else None)
        rows.append((s, ref_name, ratios))
        if not s.startswith("fbe_"):
            peer_ratios += [r for r in ratios if r]
    factor = statistics.median(peer_ratios) if peer_ratios else None
    spread = (min(peer_ratios), max(peer_ratios)) if peer_ratios else None
    lines = ["| Row | Compared with | Serialize | Deserialize | Verify |" +
             (" Serialize ÷ machine factor | Deserialize ÷ machine factor | Verify ÷ machine factor |"
              if factor else ""),
             "|---|---|---:|---:|---:|" + ("---:|---:|---:|" if factor else "")]
    for s, ref_name, ratios in rows:
        line = "| %s | %s | %s |" % (NAMES[s], ref_name, " | ".join(fmt_ratio(r) for r in ratios))
        if factor:
            if s.startswith("fbe_"):
                line += " %s |" % " | ".join(fmt_ratio(r / factor if r else None) for r in ratios)
            else:
                line += " | | |"
        lines.append(line)
    return lines, factor, len(peer_ratios), spread


def same_run_table(medians):
    """Each fbe-c row against protobuf C++ of the same run: how many times faster."""
    base = {op: ns_of(medians, "readme", "protobuf", op) for op in OPS}
    if not base["serialize"]:
        return []
    lines = ["| Row | Serialize | Deserialize |", "|---|---:|---:|"]
    for s in present(medians, "readme"):
        if not s.startswith("fbe_") or s == "fbe_json":
            continue
        cells = []
        for op in ("serialize", "deserialize"):
            ours = ns_of(medians, "readme", s, op)
            cells.append("%.1f×" % (base[op] / ours) if ours and base[op] else "—")
        lines.append("| %s | %s |" % (NAMES[s], " | ".join(cells)))
    return lines


def json_table(medians):
    """fbe-c's JSON against RapidJSON of the same run, both messages."""
    lines = ["| Message | fbe-c to JSON | RapidJSON write | ratio | fbe-c from JSON | "
             "RapidJSON parse (DOM only) | ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for message, label in (("readme", "README account"), ("large", "100,000 orders")):
        cells = []
        for op in ("serialize", "deserialize"):
            ours = ns_of(medians, message, "fbe_json", op)
            theirs = ns_of(medians, message, "rapidjson", op)
            if not ours or not theirs:
                return []
            cells += [fmt_time(ours), fmt_time(theirs), "%.2f" % (ours / theirs)]
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    return lines


def large_table(medians):
    lines = ["| System | Message size, bytes | Serialize, MB/s | Deserialize, MB/s | Verify, MB/s |",
             "|---|---:|---:|---:|---:|"]
    for s in present(medians, "large"):
        cells = []
        for op in OPS:
            r = medians.get(("large", s, op))
            cells.append(fmt_rate(r["bps"]) if r else "—")
        size = size_of(medians, "large", s)
        lines.append("| %s | %s | %s |" % (NAMES[s], "{:,}".format(size) if size else "—",
                                          " | ".join(cells)))
    return lines


def reference_table():
    lines = ["| System | Message size, bytes | Serialize, ns | Deserialize, ns | Verify, ns |",
             "|---|---:|---:|---:|---:|"]
    for name, (size, *ops) in REFERENCE.items():
        lines.append("| %s | %d | %s |" % (name, size, " | ".join(fmt_ns(v) for v in ops)))
    return lines


def chart(medians, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: no matplotlib (apt-get install python3-matplotlib): no chart", file=sys.stderr)
        return False
    colors = {"serialize": "#4878d0", "deserialize": "#ee854a", "verify": "#6acc64"}
    fig, axes = plt.subplots(1, 2, figsize=(15, 7.5))
    for ax, message, title, unit in (
            (axes[0], "readme", "README account: time per operation (ns, lower is better)", "ns"),
            (axes[1], "large", "Account with 100,000 orders: throughput (MB/s, higher is better)",
             "MB/s")):
        systems = present(medians, message)
        height = 0.27
        for i, op in enumerate(OPS):
            ys, xs = [], []
            for j, s in enumerate(systems):
                r = medians.get((message, s, op))
                if not r:
                    continue
                ys.append(j + (i - 1) * height)
                xs.append(r["ns"] if unit == "ns" else (r["bps"] or 0) / 1e6)
            ax.barh(ys, xs, height=height, color=colors[op], label=op if ax is axes[0] else None)
            for y, x in zip(ys, xs):
                ax.text(x, y, " %s" % (fmt_ns(x) if unit == "ns" else fmt_rate(x * 1e6)),
                        va="center", fontsize=7)
        ax.set_yticks(range(len(systems)))
        ax.set_yticklabels([NAMES[s] for s in systems], fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 3)  # room for the value labels right of the bars
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(unit + " (log scale)")
        ax.grid(axis="x", which="both", alpha=0.3)
    fig.suptitle("fbe-c and the peers of the reference FBE README, one bench_all run "
                 "(medians; compare ratios, not absolute numbers)", fontsize=11)
    fig.legend(loc="upper center", ncol=3, fontsize=9, bbox_to_anchor=(0.5, 0.955), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


ROW_NOTES = """\
## What each row measures

perf/bench_all.cc and perf/peers/bench_*.cc say the same next to the code.
Serialize starts from a value built once before timing: the library's own
message object where it has one (fbe-c's host struct, protobuf's and protobuf-c's
messages), otherwise the plain C++ struct of perf/peers/account.h. Output and
scratch buffers are reused across iterations, as a program sending many messages
would. Before anything is timed, every row checks that its bytes decode back to
exactly the README account; the fbe-c rows also that they are the golden bytes
(`readme.bin`, `readme.final.bin`), and RapidJSON that its text is the golden
`readme.json`.

| System | Serialize | Deserialize | Verify |
|---|---|---|---|
| fbe-c (every backend) | host struct (`fbec header` layout) → `fbe_serialize` into a reused `fbe_buffer` | `fbe_deserialize` into a host struct; strings copied into an arena reset each time | `fbe_verify` |
| protobuf C++ | populated `Account` → `SerializeToString` into a reused string | `ParseFromString` into one reused `Account` (protobuf recycles sub-messages and strings) | — (parsing is the check) |
| protobuf-c | populated C message → `get_packed_size` + `pack` | `account__unpack` (malloc) + `free_unpacked` | — |
| FlatBuffers | plain C++ struct → `FlatBufferBuilder` (reused, `Clear()`) | read in place: `GetAccount` and every field through the accessors, nothing copied | `Verifier` + `VerifyAccountBuffer` |
| FlatBuffers (unpack) | — | object API: `UnPackTo` a reused `AccountT` (owned strings, vectors) | — |
| Cap'n Proto | plain C++ struct → `MallocMessageBuilder` on a reused zeroed segment → `writeMessage` | read in place: `FlatArrayMessageReader` and every field (bounds-checked on access) | — (no separate verify) |
| msgpack-c | plain C++ struct → `msgpack_packer` into a reused `msgpack_sbuffer` (structs as arrays, the layout of msgpack-c's `MSGPACK_DEFINE`) | `msgpack_unpack_next` into a `msgpack_object` tree (a fresh zone each call) | — |
| fbe-c JSON | host struct → `fbe_json_write` (compact) into a reused `fbe_buffer`, the golden `readme.json` text | `fbe_json_read` with a reused reader into a host struct; strings and orders in an arena reset each time | — |
| RapidJSON | plain C++ struct → `Writer<StringBuffer>` (the same text as the golden readme.json) | `Document::Parse` into the DOM, pool allocator with a reused first 64 KiB | — |

The large message is the same account with 100,000 orders (order *i* has id
*i*+1 and the other fields of README order *i* mod 3). FlatBuffers and Cap'n
Proto "deserialize" only point at the buffer: that is what they are for, and it is
why their deserialize column is not the same work as the others'.
"""

WHY = """\
## Why these dependencies

* **The peers** are the libraries the reference FBE README compares itself
  with, so that its table can be reproduced side by side; each is Debian
  bookworm's package, compiled and linked the Debian way, and each schema
  (`perf/peers/account.proto`, `account.fbs`, `account.capnp`) is compiled at
  build time by that package's own compiler (`protoc`, `protoc-c`, `flatc`,
  `capnp compile`). **protobuf-c** is added to the reference's list because it
  is the C peer of a C library. **msgpack-c** is used through its C API
  (`libmsgpack-dev`), the C library the reference's "msgpack-c 4" row names.
* Every peer is optional: `perf/CMakeLists.txt` looks for each one and skips it
  with a CMake message when its packages are missing, so building and testing
  fbe-c never needs them; `tools/install-deps.sh --bench` (run by `make bench`)
  installs them.
* **Google Benchmark** (already fbe-c's benchmark harness) runs every row in one
  binary, `perf/bench_all`, with the same compiler and flags.
* **python3 + python3-matplotlib** (Debian) write this page and the chart:
  python3 reads the benchmark JSON with its standard library, and matplotlib
  draws a labelled PNG without any template or second tool (gnuplot would need
  a data file and a script of its own).
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--md", default="docs/performance.md")
    ap.add_argument("--png", default="docs/performance.png")
    args = ap.parse_args()

    medians, ctx, cvs = load(args.json)
    if not medians:
        sys.exit("report: no benchmark rows in " + args.json)
    reps = max(r["reps"] for r in medians.values())
    model, logical = cpu_info()
    load_avg = ctx.get("load_avg") or []
    for path in (args.md, args.png):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    have_chart = chart(medians, args.png)
    ratio_lines, factor, n_factor, spread = ratio_tables(medians)
    peers = ctx.get("fbe_peers", "").split()

    out = []
    w = out.append
    w("# Performance")
    w("")
    w("<!-- Written by perf/report.py from one `make bench` run; do not edit by hand. -->")
    w("")
    w("fbe-c's codecs next to the libraries the reference FBE README compares "
      "against, on the same message: the README account (golden case `readme`: "
      "id, name, state, wallet, optional asset, three orders) and the same account "
      "with 100,000 orders. All rows come from **one run of one binary**, "
      "`perf/bench_all`, built with the same compiler and flags (`make bench`).")
    w("")
    w("**Absolute numbers vary between machines, and on a shared machine between "
      "runs; ratios between rows of the same run are what to compare.** Every "
      "figure is the **median of %d repetitions** (Google Benchmark "
      "`--benchmark_repetitions=%d`), CPU time per operation; throughput is bytes "
      "of the encoded message per CPU second (MB = 10^6 bytes)." % (reps, reps))
    w("")
    if cvs:
        w("Spread over the repetitions of this run: the coefficient of variation "
          "(standard deviation ÷ mean) of a row's CPU time was %.1f%% for the median "
          "row and %.1f%% for the worst." % (100 * statistics.median(cvs), 100 * max(cvs)))
        w("")
    if have_chart:
        w("![bench_all: time per operation and large-message throughput](%s)" %
          os.path.relpath(args.png, os.path.dirname(os.path.abspath(args.md)) or "."))
        w("")
    w("## README account")
    w("")
    out.extend(readme_table(medians))
    w("")
    differ = []
    for sys_key, ref_name in REFERENCE_OF.items():
        size = size_of(medians, "readme", sys_key)
        if size and size != REFERENCE[ref_name][0]:
            differ.append("%s %d bytes (reference: %d)" % (NAMES[sys_key], size,
                                                           REFERENCE[ref_name][0]))
    if differ:
        w("Sizes that differ from the reference's: %s. The other sizes equal the "
          "reference's (the same data in the same encodings)." % "; ".join(differ))
        w("")
    w("FlatBuffers and Cap'n Proto read in place: their deserialize is field access "
      "over the buffer, not a copy into memory of their own (see below). "
      "\"—\": the library has no such operation.")
    w("")
    same = same_run_table(medians)
    if same:
        w("### fbe-c against protobuf C++, same run")
        w("")
        w("How many times faster than protobuf C++ in this run (its time ÷ the row's time):")
        w("")
        out.extend(same)
        w("")
    js = json_table(medians)
    if js:
        w("### JSON against RapidJSON, same run")
        w("")
        w("fbe-c's JSON row (`fbe_json_write` / `fbe_json_read`, the same code for "
          "every backend) next to RapidJSON on the same text, time per operation; ratio "
          "below 1: fbe-c is faster. RapidJSON's deserialize stops at its DOM, while "
          "fbe-c's fills the host struct, as the reference's `from_json` does after "
          "its own rapidjson parse.")
        w("")
        out.extend(js)
        w("")
    w("### Against the reference C++ figures")
    w("")
    w("The reference FBE README's figures, measured earlier on this machine (ns, -O2):")
    w("")
    out.extend(reference_table())
    w("")
    w("This run divided by those figures (below 1: faster than the reference "
      "figure). The peers' ratios show how this run's machine compares with the "
      "one the reference figures came from: their median, the **machine factor**, "
      "%s. The last three columns divide fbe-c's ratios by it: an estimate of "
      "fbe-c against the reference C++ FBE on an equally loaded machine." %
      ("was **%.2f** (median of %d peer ratios, which range from %.2f to %.2f: a "
       "rough correction, since the reference's code for each peer is not ours)" %
       (factor, n_factor, spread[0], spread[1]) if factor
       else "could not be computed (no peer rows)"))
    w("")
    out.extend(ratio_lines)
    w("")
    w("## Large message: 100,000 orders")
    w("")
    out.extend(large_table(medians))
    w("")
    w(ROW_NOTES)
    w("## The machine and the build")
    w("")
    w("| | |")
    w("|---|---|")
    w("| CPU | %s, %d logical CPUs; %s MHz (Google Benchmark) |" %
      (model, logical, ctx.get("mhz_per_cpu", "?")))
    caches = ", ".join("L%d %s %d KiB" % (c["level"], c["type"].lower(), c["size"] // 1024)
                       for c in ctx.get("caches", []))
    if caches:
        w("| Caches | %s |" % caches)
    if load_avg:
        w("| Load average when the run started | %s (1, 5, 15 min; %d CPUs, shared) |" %
          (", ".join("%.2f" % x for x in load_avg), ctx.get("num_cpus", logical)))
    w("| Date | %s |" % ctx.get("date", "?"))
    w("| C compiler | %s |" % ctx.get("fbe_c_compiler", "?"))
    w("| C++ compiler | %s |" % ctx.get("fbe_cxx_compiler", "?"))
    w("| Flags | `%s` (fbe-c libraries, bench_all, generated peer code; the JIT and "
      "the AOT object use LLVM -O2) |" % " ".join(ctx.get("fbe_build_flags", "?").split()))
    w("| JIT target | the host CPU and its features (`fbe_jit_compile` defaults) |")
    w("| AOT target | `fbec aot` defaults: the x86-64 baseline CPU, as a shipped object |")
    w("| Peers built in | %s |" % (", ".join(peers) if peers else "none"))
    w("| Google Benchmark library | built as %s by Debian: it warns that timings may be "
      "affected, but the timed loop (`for (auto _ : state)`) is inlined from its header "
      "and compiled with the flags above; the library only starts and stops the timers "
      "around it, the same for every row |" % ctx.get("library_build_type", "?"))
    w("")
    w("Debian packages (`dpkg-query`):")
    w("")
    w("| Package | Version | For |")
    w("|---|---|---|")
    for name, what in PACKAGES:
        w("| %s | %s | %s |" % (name, package_version(name), what))
    w("")
    w(WHY)
    w("## Reproduce")
    w("")
    w("```sh")
    w("make bench                     # build/release; installs the peers' packages")
    w("make bench BUILD=build-bench   # another build directory")
    w("make bench BENCH_REPS=10 BENCH_FLAGS=--benchmark_filter=readme/")
    w("```")
    w("")
    w("The raw JSON is `$(BUILD)/release/bench_all.json`; `perf/report.py` turns it "
      "into this page. Row names are `<message>/<system>/<operation>`, so "
      "`--benchmark_filter` selects by any of the three.")
    w("")
    with open(args.md, "w") as f:
        f.write("\n".join(out))
    print("report: wrote %s%s" % (args.md, " and " + args.png if have_chart else ""))


if __name__ == "__main__":
    main()
