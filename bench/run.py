#!/usr/bin/env python3
"""The benchmark runner of issue 6: runs every workload against this library and a
reference libnetcdf in the same run (alternating, repeated), with zarr-python +
zarrs and tensorstore for context and the machine's limits, and writes a Markdown
table to bench/results/<date>[-quick].md (raw numbers beside it as .json).

Usage (bench/run.sh wraps this with the project's venv):
    bench/run.sh [--quick] [--shape D0,D1,D2] [--reps N] [--reference LIBFILE] [--ours DIR]
                 [--scratch DIR] [--also-scratch DIR|none ...] [--only W1,W2,W3,W4,W4formats,W5,W6agg,limits,context]
                 [--codecs none,zstd1,...] [--w5-rows N] [--w5-codecs none,zlib,zstd] [--w5-places disk]
                 [--no-s3-context | --s3-context] [--s3-script PATH] [--build-only]

The local workloads (W1, W2, W4's directory part, and the limits that depend on
the file system) run on every place: --scratch (the ordinary disk by default)
and each --also-scratch (/dev/shm by default), disk places first; the table's
`place` column names each row's (S3 for W3 and W4's S3 part).

W5 (parallel I/O with MPI, not in the default --only) runs bench/mpi_w5 under
mpirun on the first place and on S3; see w5() and bench/README.md.

Every workload but W5 is one process of bench/ncbench (C, netCDF API only), linked once
and pointed at a library with LD_LIBRARY_PATH; the process times its own work
(open/create to close) and reports wall, CPU (user+sys, all threads) and peak RSS.
Speed is never asserted: the targets of issue 6 are printed beside each ratio.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
CODECS = ["none", "zlib1+shuffle", "zstd1", "blosc-lz4-1+shuffle"]

PRESETS = {
    # shape, chunks, small chunks (W3), random reads, W2 variables, repetitions, limits MiB
    "full": dict(shape=(256, 1024, 1024), chunks=(16, 256, 256), small=(1, 256, 256), nrandom=1000,
                 nvars=2000, reps=3, limits_mib=512, s3_shape=(64, 1024, 1024), context_codecs=CODECS,
                 s3_open_vars=500, s3_cases=[("4 MiB", "none"), ("4 MiB", "zstd1"), ("256 KiB", "none"),
                                             ("256 KiB", "zstd1")],
                 w4_shards=(16, 1024, 1024), w4_codecs=["none", "zstd1"], w5_rows=131072, w6="full"),
    "quick": dict(shape=(16, 1024, 512), chunks=(16, 256, 256), small=(1, 256, 256), nrandom=100,
                  nvars=200, reps=2, limits_mib=32, s3_shape=(16, 1024, 512), context_codecs=["none"],
                  s3_open_vars=200, s3_cases=[("4 MiB", "none")], s3_context=False,
                  w4_shards=(16, 512, 512), w4_codecs=["none"], w5_rows=8192, w6="quick"),
}


T0 = time.monotonic()


def log(*a):
    print(f"[{time.monotonic() - T0:6.1f}s]", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- build

def build(args):
    out = os.path.join(ROOT, "target", "bench")
    os.makedirs(out, exist_ok=True)
    if args.ours is None:
        log("building the library (cargo build --release)")
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
        args.ours = os.path.join(ROOT, "target", "release")
    cc = os.environ.get("CC", "cc")
    flags = ["-O2", "-Wall", "-Wextra", "-Werror"]
    # Linked against our library's file itself, so the program asks for its
    # SONAME (libnetcdf.so.22), which both libraries' directories provide: a
    # bare -lnetcdf could pick up the system's libnetcdf.so (Debian's 4.9.0,
    # libnetcdf.so.19) when the directory has no libnetcdf.so.
    lib = next((os.path.join(args.ours, n) for n in ("libnetcdf.so.22", "libnetcdf.so")
                if os.path.exists(os.path.join(args.ours, n))), None)
    if lib is None:
        sys.exit(f"{args.ours}: no libnetcdf.so.22 or libnetcdf.so there")
    ncbench = os.path.join(out, "ncbench")
    subprocess.run([cc, *flags, "-I", os.path.join(ROOT, "include"), "-o", ncbench,
                    os.path.join(BENCH, "ncbench.c"), lib, "-lm"], check=True)
    needed = subprocess.run(["readelf", "-d", ncbench], capture_output=True, text=True).stdout
    if "[libnetcdf.so.22]" not in needed:
        sys.exit(f"{ncbench} does not ask for libnetcdf.so.22 (linked against {lib}); the reference could not "
                 "be swapped in")
    limits = os.path.join(out, "limits")
    limits_cmd = [cc, "-O3", "-Wall", "-Wextra", "-Werror", "-o", limits, os.path.join(BENCH, "limits.c"),
                  "-ldeflate", "-lzstd", "-lblosc", "-lz", "-lm", "-lpthread"]
    # With ISA-L (what our library encodes deflate level 1 with) when it is installed.
    r = subprocess.run([*limits_cmd, "-DHAVE_ISAL", "-lisal"], stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        r = subprocess.run(limits_cmd)
    if r.returncode != 0:
        log("limits not built (apt-get install libdeflate-dev libzstd-dev libblosc-dev)")
        limits = None
    build_w5(out, lib, flags)
    # The reference: a directory holding libnetcdf.so.22 -> the reference library,
    # searched before the library's own directory (its $ORIGIN dependencies).
    refdir = os.path.join(out, "ref")
    if args.reference:
        os.makedirs(refdir, exist_ok=True)
        link = os.path.join(refdir, "libnetcdf.so.22")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.realpath(args.reference), link)
    return ncbench, limits, refdir


W5_SYSTEM = "/usr/lib/x86_64-linux-gnu/netcdf/mpi"  # Debian's parallel netcdf-c (libnetcdf-mpi-dev)


def build_w5(out, lib, flags):
    """bench/mpi_w5 twice: against this library (asking for its SONAME, like
    ncbench) and against Debian's parallel netcdf-c; each left out, with a log
    line, when its compiler or library is missing."""
    if not shutil.which("mpicc"):
        log("mpi_w5 not built (no mpicc: apt-get install libopenmpi-dev openmpi-bin)")
        return
    src = os.path.join(BENCH, "mpi_w5.c")
    subprocess.run(["mpicc", *flags, "-I", os.path.join(ROOT, "include"), "-o", os.path.join(out, "mpi_w5"), src,
                    lib], check=True)
    if os.path.exists(os.path.join(W5_SYSTEM, "include", "netcdf_par.h")):
        subprocess.run(["mpicc", *flags, "-DW5_SYSTEM_NETCDF", "-I", os.path.join(W5_SYSTEM, "include"), "-o",
                        os.path.join(out, "mpi_w5_hdf5"), src, "-L" + W5_SYSTEM, "-Wl,-rpath," + W5_SYSTEM,
                        "-lnetcdf"], check=True)
    else:
        log(f"mpi_w5_hdf5 not built (no {W5_SYSTEM}: apt-get install libnetcdf-mpi-dev)")


def default_reference():
    venv = os.environ.get("NCZ_VENV", os.path.expanduser("~/.cache/nczarr-venv"))
    found = sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "netcdf4.libs",
                                          "libnetcdf-*.so*")))
    return found[0] if found else None


# ---------------------------------------------------------------- running

def parse(stdout, prefix="RESULT "):
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return json.loads(line[len(prefix):])
    return None


def run_proc(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {timeout} s"}
    r = parse(p.stdout)
    if r is None:
        err = (p.stderr.strip().splitlines() or ["no output"])[-1][:160]
        return {"status": f"exit {p.returncode}: {err}"}
    if r["status"] == "ok" and p.returncode != 0:
        r["status"] = f"exit {p.returncode}"
    return r


class Runner:
    def __init__(self, args, ncbench, refdir, limits_bin=None):
        self.args = args
        self.ncbench = ncbench
        self.limits_bin = limits_bin
        self.results = []  # every row of the table, in order
        venv_site = os.path.dirname(os.path.realpath(args.reference)) if args.reference else ""
        plugins = os.path.join(os.path.dirname(venv_site), "netCDF4", "plugins")
        base = dict(os.environ)
        base.pop("LD_LIBRARY_PATH", None)
        self.env = {
            "ours": dict(base, LD_LIBRARY_PATH=args.ours),
            "netcdf-c": dict(base, LD_LIBRARY_PATH=refdir + ":" + venv_site),
        }
        if os.path.isdir(plugins):
            self.env["netcdf-c"]["HDF5_PLUGIN_PATH"] = plugins
        self.python = args.python
        self.w5 = []  # W5's rows (their own table)

    def version(self, lib):
        p = subprocess.run([self.ncbench, "version"], env=self.env[lib], capture_output=True, text=True)
        return p.stdout.strip() or p.stderr.strip()[:80]

    def nc(self, lib, *cmd, env_extra=None, timeout=900):
        env = dict(self.env[lib], **(env_extra or {}))
        return run_proc([self.ncbench, *map(str, cmd)], env, timeout)

    def ctx(self, *cmd, env_extra=None, timeout=900):
        env = dict(os.environ, **(env_extra or {}))
        return run_proc([self.python, os.path.join(BENCH, "context.py"), *map(str, cmd)], env, timeout)

    def alternate(self, fns, reps=None):
        """fns: {name: callable() -> result}. Runs reps rounds (default --reps),
        alternating the order; returns {name: [results]}."""
        out = {k: [] for k in fns}
        names = list(fns)
        for rep in range(reps or self.args.reps):
            for name in (names if rep % 2 == 0 else names[::-1]):
                out[name].append(fns[name]())
        return out


def summarise(runs):
    """Median wall/CPU/RSS of the successful runs; the first failure's status otherwise."""
    ok = [r for r in runs if r.get("status", "").startswith("ok")]
    if not ok:
        return {"status": runs[0].get("status", "?") if runs else "not run"}
    return {
        "status": ok[0]["status"],
        "n": len(ok),
        "wall": statistics.median(r["wall"] for r in ok),
        "cpu": statistics.median(r["user"] + r["sys"] for r in ok),
        "rss_mib": statistics.median(r["rss_kib"] for r in ok) / 1024,
        "buffer_mib": statistics.median(r.get("buffer_kib", 0) for r in ok) / 1024,
        "bytes": ok[0].get("bytes", 0),
        "requests": ok[0].get("requests"),
        "server_cpu": (statistics.median(r["server_cpu"] for r in ok)
                       if all("server_cpu" in r for r in ok) else None),
    }


# ---------------------------------------------------------------- places

MEMORY_FS = ("tmpfs", "ramfs")


def mount_of(path):
    """(mount point, file system type, source) of the mount that holds path (which
    need not exist yet: its nearest existing ancestor is looked up)."""
    p = os.path.abspath(path)
    while not os.path.exists(p):
        p = os.path.dirname(p)
    p = os.path.realpath(p)
    best = ("/", "?", "?")
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if len(fields) < 5 or len(rest) < 2:
                    continue
                mnt = fields[4].replace("\\040", " ")
                inside = p == mnt or p.startswith(mnt.rstrip("/") + "/")
                # (>=: of mounts stacked on one point, the last one is the visible one)
                if inside and len(mnt) >= len(best[0]):
                    best = (mnt, rest[0], rest[1])
    except OSError:
        pass
    return best


def default_disk_scratch():
    """The ordinary disk: the first of /var/tmp, /tmp and the repository's target/
    that is not on a file system in memory (/tmp is a tmpfs on some systems;
    /var/tmp is meant to be on disk)."""
    for d in ("/var/tmp", "/tmp", os.path.join(ROOT, "target")):
        if os.path.isdir(d) and mount_of(d)[1] not in MEMORY_FS:
            return d
    return os.path.join(ROOT, "target")


def scratch_places(args):
    """The places where the local workloads run, disk first: [{label, root, dir,
    fstype, mount, source}], label "disk" or "tmpfs" (with a number when two
    places are of one kind); dir is this run's directory under root."""
    roots = [args.scratch] + [d for d in (args.also_scratch or []) if d and d != "none"]
    places, seen = [], set()
    for root in roots:
        key = os.path.realpath(root)
        if key in seen:
            continue
        seen.add(key)
        mnt, fstype, source = mount_of(root)
        places.append(dict(root=root, mount=mnt, fstype=fstype, source=source,
                           kind="tmpfs" if fstype in MEMORY_FS else "disk"))
    places.sort(key=lambda pl: pl["kind"] != "disk")  # stable: disk places first, in the order given
    count = {}
    for pl in places:
        count[pl["kind"]] = count.get(pl["kind"], 0) + 1
        pl["label"] = pl["kind"] if count[pl["kind"]] == 1 else f"{pl['kind']}-{count[pl['kind']]}"
        pl["dir"] = os.path.join(pl["root"], f"nczarr-bench-{os.getpid()}")
    return places


def at_place(R, place, fn, *a):
    """Runs a workload and marks the rows it added with the place they ran on."""
    first = len(R.results)
    fn(R, *a)
    for row in R.results[first:]:
        row.setdefault("place", place)


# ---------------------------------------------------------------- workloads

def url(path, mode):
    return f"file://{path}#mode={mode}"


def rm(path):
    shutil.rmtree(path, ignore_errors=True)


def w1(R, p, scratch, with_context):
    """W1 on one scratch directory: each codec written by both libraries (and the
    context engines), then read four ways from one store; for no codec, also
    ours writing with the mode key `durable` (its own row, beside tensorstore,
    which syncs what it writes, and the plain-C durable-write floor)."""
    shape, chunks, nrandom = p["shape"], p["chunks"], p["nrandom"]
    dims = [str(v) for v in shape]
    for codec in p.get("codecs", CODECS):
        tag = codec.replace("+", "_")
        stores = {lib: os.path.join(scratch, f"w1-{lib}-{tag}.zarr") for lib in ("ours", "netcdf-c")}
        log(f"W1 {codec}: write")
        writes = R.alternate({lib: (lambda lib=lib: R.nc(lib, "w1write", url(stores[lib], "nczarr,file"), codec,
                                                          *dims, *chunks)) for lib in stores})
        ctx = {}
        ctx_store = os.path.join(scratch, f"w1-zarrs-{tag}.zarr")
        with_ctx = with_context and (codec in p["context_codecs"])
        durable_store = os.path.join(scratch, f"w1-ours-durable-{tag}.zarr")
        ours_durable = lambda: R.nc("ours", "w1write", url(durable_store, "nczarr,file,durable"), codec, *dims, *chunks)
        durable = {}
        if with_ctx:
            ctx["zarrs"] = [R.ctx("w1write", "zarrs", ctx_store, codec, *dims, *chunks) for _ in range(R.args.reps)]
            ts_store = os.path.join(scratch, f"w1-ts-{tag}.zarr")
            ts_write = lambda: R.ctx("w1write", "tensorstore", ts_store, codec, *dims, *chunks)
            if codec == "none":
                # tensorstore syncs every file it writes (file_io_sync): its runs
                # alternate with ours in durable mode, and both rows show them.
                log(f"W1 {codec}: write, durable")
                durable = R.alternate({"ours": lambda: durable_run(ours_durable, durable_store),
                                       "tensorstore": lambda: durable_run(ts_write, ts_store)})
                ctx["tensorstore"] = durable["tensorstore"]
            else:
                ctx["tensorstore"] = [ts_write() for _ in range(R.args.reps)]
            rm(ts_store)
        elif codec == "none":
            log(f"W1 {codec}: write, durable")
            durable = {"ours": [durable_run(ours_durable, durable_store) for _ in range(R.args.reps)]}
        rm(durable_store)
        R.results.append(dict(w="W1", case=f"write {codec}", codec=codec, op="write",
                              ours=summarise(writes["ours"]), ref=summarise(writes["netcdf-c"]),
                              ctx={k: summarise(v) for k, v in ctx.items()}))
        if durable:
            R.results.append(dict(w="W1", case=f"write {codec}, durable", codec=codec, op="durable",
                                  ours=summarise(durable["ours"]),
                                  ref={"status": "– (netcdf-c has no durable mode)"},
                                  ctx={k: summarise(v) for k, v in durable.items() if k != "ours"}))
        # Reads: both libraries read the same store, the reference's when it wrote one.
        src = None
        for lib in ("netcdf-c", "ours"):
            if summarise(writes[lib]).get("wall") is not None:
                src = stores[lib]
                break
        for mode in ("full", "full-alloc", "slab", "random"):
            log(f"W1 {codec}: read {mode}")
            if src is None:
                first = summarise(writes["ours"])["status"]
                res = {"ours": {"status": f"no store ({first})"},
                       "netcdf-c": {"status": f"no store ({summarise(writes['netcdf-c'])['status']})"}}
            else:
                runs = R.alternate({lib: (lambda lib=lib: R.nc(lib, "w1read", url(src, "nczarr,file"), mode, *dims,
                                                                nrandom)) for lib in stores})
                res = {k: summarise(v) for k, v in runs.items()}
            c = {}
            if with_ctx and os.path.isdir(ctx_store):
                c["zarrs"] = summarise([R.ctx("w1read", "zarrs", ctx_store, mode, *dims, nrandom)
                                        for _ in range(R.args.reps)])
                if codec == "zlib1+shuffle":
                    c["tensorstore"] = {"status": "unsupported: tensorstore's zarr v2 driver has no filters (shuffle)"}
                elif mode != "full-alloc":  # tensorstore always allocates: its "full" is the allocating read
                    c["tensorstore"] = summarise([R.ctx("w1read", "tensorstore", ctx_store, mode, *dims, nrandom)
                                                  for _ in range(R.args.reps)])
            R.results.append(dict(w="W1", case=f"read {mode} {codec}", codec=codec, op=mode,
                                  ours=res["ours"], ref=res["netcdf-c"], ctx=c,
                                  src="netcdf-c" if src == stores["netcdf-c"] else "ours"))
        for s in stores.values():
            rm(s)
        rm(ctx_store)


# The least runs of W2's nczarr and zarr creates (see `w2`).
W2_REPS = 7


def w2(R, p, scratch):
    """W2 on one scratch directory. Every create goes to a path of its own and
    nothing is removed until every create and open here is done: on ext4
    without a journal (this machine's disk), creating files soon after many
    were removed nearby is slow for whoever creates them (the allocator steps
    over recently freed inodes one by one), which would measure the removal
    of the previous store rather than the create. The file-system floor (the
    same objects from plain C, `limits ... metadata-once`) runs alternately
    with the two libraries' nczarr creates, a fresh process each time as
    theirs, and its median is the one the target is judged on. The create
    over the previous store (its removal part of the create) comes last.

    Each of the three first makes one create that is not counted: on these
    virtual machines the first few short processes after a pause (or after
    a large removal) ran up to half again as long, for the floor and the
    libraries alike, and the medians of three runs then measured that. For
    the same reason the nczarr and zarr creates (a fraction of a second
    each) take at least W2_REPS runs."""
    nvars = p["nvars"]
    os.makedirs(scratch, exist_ok=True)
    made = []
    floor = []
    last = {}
    kinds = (("nczarr", "nczarr,file", {}), ("zarr", "zarr,file", {}),
             ("consolidated", "nczarr,consolidated,file", {"NCZARR_CONSOLIDATED": "1"}))
    log("W2: one create each, not counted")
    for lib in ("ours", "netcdf-c"):
        path = os.path.join(scratch, f"w2-{lib}-warm-up.zarr")
        made.append(path)
        R.nc(lib, "w2create", url(path, kinds[0][1]), nvars)
    if R.limits_bin:
        floor_once(R, scratch, made)
    for kind, mode, extra in kinds:
        log(f"W2 {kind}: create {nvars}")
        count = {}

        def fresh(lib, kind=kind, mode=mode, extra=extra, count=count):
            count[lib] = count.get(lib, 0) + 1
            path = os.path.join(scratch, f"w2-{lib}-{kind}-{count[lib]}.zarr")
            made.append(path)
            last[(lib, kind)] = path
            return R.nc(lib, "w2create", url(path, mode), nvars, env_extra=extra)

        fns = {lib: (lambda lib=lib: fresh(lib)) for lib in ("ours", "netcdf-c")}
        if kind == "nczarr" and R.limits_bin:
            fns["floor"] = lambda: floor_once(R, scratch, made)
        runs = R.alternate(fns, reps=R.args.reps if kind == "consolidated" else max(R.args.reps, W2_REPS))
        floor.extend(r["wall"] for r in runs.pop("floor", []) if r.get("wall") is not None)
        cre = {k: summarise(v) for k, v in runs.items()}
        R.results.append(dict(w="W2", case=f"create {nvars} vars {kind}", op="create", kind=kind, nvars=nvars,
                              ours=cre["ours"], ref=cre["netcdf-c"], ctx={},
                              floor_alt=statistics.median(floor) if floor else None))
        src_lib = "netcdf-c" if cre["netcdf-c"].get("wall") is not None else "ours"
        src = last[(src_lib, kind)]
        log(f"W2 {kind}: open")
        runs = R.alternate({lib: (lambda lib=lib: R.nc(lib, "w2open", url(src, mode), env_extra=extra))
                            for lib in ("ours", "netcdf-c")})
        op = {k: summarise(v) for k, v in runs.items()}
        R.results.append(dict(w="W2", case=f"open+inquire {nvars} vars {kind}", op="open", kind=kind,
                              ours=op["ours"], ref=op["netcdf-c"], ctx={}, src=src_lib))
    # NC_CLOBBER over each library's last nczarr store: the old tree's
    # removal is part of the create.
    kind, mode, extra = kinds[0]
    log(f"W2 {kind}: create {nvars} over the previous store")
    runs = R.alternate({lib: (lambda lib=lib: R.nc(lib, "w2create", url(last[(lib, kind)], mode), nvars,
                                                    env_extra=extra)) for lib in ("ours", "netcdf-c")})
    cre = {k: summarise(v) for k, v in runs.items()}
    R.results.append(dict(w="W2", case=f"create {nvars} vars {kind} over the previous store",
                          op="create-clobber", kind=kind, nvars=nvars, ours=cre["ours"],
                          ref=cre["netcdf-c"], ctx={}))
    for path in made:
        rm(path)
    rm(scratch)


def floor_once(R, scratch, made):
    """One run of the W2 floor (`limits DIR 0 metadata-once`) on a fresh path
    (kept, in `made`): {"status": "ok", "wall": seconds} or the failure."""
    path = os.path.join(scratch, f"w2-floor-{len(made)}")
    made.append(path)
    pr = subprocess.run([R.limits_bin, path, "0", "metadata-once"], capture_output=True, text=True)
    for line in pr.stdout.splitlines():
        if line.startswith("LIMIT "):
            return {"status": "ok", "wall": json.loads(line[6:])["secs"]}
    return {"status": f"limits exit {pr.returncode}: {pr.stderr.strip()[-200:]}"}


class RequestLog:
    """Counts the requests the S3 server served, by kind, from radosgw's access
    log (its `beast:` lines): every engine is counted the same way, by the server.
    A line ends with the request's Range header (`bytes=A-B`, `-` when none)
    before `latency=`, and holds the bytes sent and received after the status."""

    PAT = None

    def __init__(self, server_dir):
        import re
        self.path = os.path.join(server_dir, "log", "client.rgw.a.log")
        RequestLog.PAT = re.compile(r'beast: .*"([A-Z]+) (\S+) HTTP/[0-9.]+" (\d+) (\d+) .* (\S+) latency=')
        # W4: a ranged GET of exactly this many bytes is a shard index fetch
        # (the index is 16 bytes per inner chunk + 4; no inner chunk of the
        # W4 stores, whole or in part, has that length).
        self.index_len = None

    def mark(self):
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    @staticmethod
    def range_len(r):
        """Bytes a Range header asks for (bytes=A-B, bytes=-N); None when open-ended or absent."""
        if not r.startswith("bytes="):
            return None
        a, _, b = r[6:].partition("-")
        if a == "":
            return int(b) if b.isdigit() else None
        return int(b) - int(a) + 1 if a.isdigit() and b.isdigit() else None

    def since(self, pos):
        counts = {}
        try:
            with open(self.path, "rb") as f:
                f.seek(pos)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return counts

        def add(k, n=1):
            counts[k] = counts.get(k, 0) + n

        for m in RequestLog.PAT.finditer(text):
            method, target, size, rng = m.group(1), m.group(2), int(m.group(4)), m.group(5)
            kind = "LIST" if method == "GET" and ("list-type=" in target or "prefix=" in target) else method
            add(kind)
            name = target.split("?", 1)[0].rsplit("/", 1)[-1]
            if method in ("GET", "PUT") and kind != "LIST" and (name.startswith(".z") or name == "zarr.json"):
                add(method + " metadata")
            if kind == "GET":
                add("GET bytes", size)
                if rng.startswith("bytes="):
                    add("GET ranged")
                    if self.index_len is not None and self.range_len(rng) == self.index_len:
                        add("GET index")
        return counts


SERVER_PROCESSES = ("radosgw", "ceph-osd", "ceph-mon", "ceph-mgr")


def server_cpu_seconds():
    """CPU seconds (user + system) used so far by the S3 server's processes."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        if name in SERVER_PROCESSES:
            fields = stat[stat.rfind(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def counted(reqlog, fn):
    """Run fn() and attach the server's request counts and CPU seconds of that run to its result."""
    def run():
        pos = reqlog.mark()
        cpu0 = server_cpu_seconds()
        r = fn()
        r["server_cpu"] = server_cpu_seconds() - cpu0
        time.sleep(0.2)  # radosgw writes its access log line after the response
        r["requests"] = reqlog.since(pos)
        return r
    return run


def fmt_requests(c):
    if not c:
        return ""
    order = ["GET", "PUT", "LIST", "HEAD", "POST", "DELETE"]
    parts = [f"{k} {c[k]}" for k in order if c.get(k)] + [f"{k} {v}" for k, v in c.items()
                                                           if k not in order and " " not in k]
    return ", ".join(parts) + ("" if c.get("HEAD") else ", HEAD 0")


def s3_env(R):
    script = R.args.s3_script or os.path.join(ROOT, "scripts", "s3-server.sh")
    if not os.path.exists(script):
        return None, f"skipped: {os.path.relpath(script, ROOT)} not present (S3 storage not merged yet)"
    # Ports and state of our own, so a server another job runs on the defaults is left alone.
    senv = dict(os.environ)
    senv.setdefault("S3TS_DIR", os.path.join(ROOT, "target", "bench", "s3-server"))
    senv.setdefault("S3TS_PORT", "7590")
    senv.setdefault("S3TS_MON_PORT", "16889")
    # (OSD ports apart from the test server's 16900-16999, which may run beside it.)
    senv.setdefault("S3TS_OSD_PORTS", "17200-17299")
    # The in-memory OSD must hold every store W3 writes (about 2.2 GiB with the
    # Python engines): a full OSD blocks PUTs for good, which looked like a
    # context engine hanging in earlier runs.
    senv.setdefault("NCZ_S3_MEMSTORE_BYTES", str(5 << 30))
    R.s3_server_env = senv
    try:
        p = subprocess.run(["bash", script, "start"], capture_output=True, text=True, cwd=ROOT, timeout=300,
                           env=senv)
        if p.returncode != 0:
            # Once more after a stop: a start right after the test suite's
            # server stopped failed once (exit 250, no message); the next worked.
            # The script says which stage failed and prints the end of its logs.
            log(f"S3 server start failed (exit {p.returncode}):\n{p.stderr.rstrip()}")
            log("stopping it and trying once more")
            subprocess.run(["bash", script, "stop"], capture_output=True, cwd=ROOT, timeout=120, env=senv)
            p = subprocess.run(["bash", script, "start"], capture_output=True, text=True, cwd=ROOT, timeout=300,
                               env=senv)
    except subprocess.TimeoutExpired:
        return None, f"skipped: {os.path.basename(script)} start timed out"
    if p.returncode != 0:
        log(f"S3 server start failed again (exit {p.returncode}):\n{p.stderr.rstrip()}")
        lines = p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or [f"exit {p.returncode}"]
        why = next((l for l in lines if "start FAILED" in l), lines[-1])
        return None, f"skipped: {os.path.basename(script)} start failed: {why[:120]}"
    env = {}
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[7:]
        if "=" in line and line.split("=", 1)[0].isidentifier():
            k, v = line.split("=", 1)
            env[k] = v.strip("'\"")
    if "S3_ENDPOINT" not in env or "S3_BUCKET" not in env:
        return None, "skipped: the S3 server script printed no S3_ENDPOINT/S3_BUCKET"
    return (script, env), None


# The engines W3 compares with on S3: (name in the table, context.py engine,
# store suffix). Each writes its own store; every one reads the first's.
S3_PEERS = (("zarrs+s3fs", "zarrs", "zarrs"), ("zarrs+obstore", "zarrs-obstore", "zarrs-ob"),
            ("zarr-python+obstore", "zarr-obstore", "zarr-ob"), ("tensorstore", "tensorstore", "ts"))


def w3(R, p):
    got, why = s3_env(R)
    if got is None:
        R.results.append(dict(w="W3", case="(all)", op="s3", place="S3", ours={"status": why}, ref={"status": why},
                              ctx={}))
        return
    script, env = got
    reqlog = RequestLog(R.s3_server_env["S3TS_DIR"])
    try:
        endpoint, bucket = env["S3_ENDPOINT"].rstrip("/"), env["S3_BUCKET"]
        w3_open(R, reqlog, endpoint, bucket, env, p["s3_open_vars"])
        dims = [str(v) for v in p["s3_shape"]]
        # The quick preset runs no Python engine on S3 (each is a process start per
        # repetition); its raw-GET rate is taken on our store instead.
        peers = S3_PEERS if p.get("s3_context", True) else ()
        for chunks, label in ((p["chunks"], "4 MiB chunks"), (p["small"], "256 KiB chunks")):
            for codec in [c for size, c in p["s3_cases"] if label.startswith(size + " ")]:
                w3_case(R, reqlog, env, f"{endpoint}/{bucket}", bucket, peers, dims, chunks, label, codec, p)
    finally:
        subprocess.run(["bash", script, "stop"], capture_output=True, cwd=ROOT, env=R.s3_server_env)


def w3_case(R, reqlog, env, base, bucket, peers, dims, chunks, label, codec, p):
    """One W3 case: every engine writes its own store, then ours and netcdf-c read
    ours (netcdf-c's when it could write one) and the peers and the raw GETs read
    the first peer's; engines alternate order every repetition, and the server
    counts each one's requests. The case's stores are removed at its end."""
    key = f"bench-{label.split()[0]}-{codec.replace('+', '_')}"
    u = {lib: f"{base}/{key}-{lib}.zarr#mode=nczarr,s3" for lib in ("ours", "netcdf-c")}
    store = {name: f"s3://{bucket}/{key}-{suffix}.zarr" for name, _, suffix in peers}
    engine = {name: eng for name, eng, _ in peers}
    log(f"W3 {codec}, {label}: write")
    fns = {lib: counted(reqlog, lambda lib=lib: R.nc(lib, "w1write", u[lib], codec, *dims, *chunks, env_extra=env))
           for lib in u}
    for name in store:
        # (A tensorstore write that stalls is stopped sooner than the default 900 s.)
        fns[name] = counted(reqlog, lambda name=name: R.ctx("w1write", engine[name], store[name], codec, *dims,
                                                             *chunks, env_extra=env,
                                                             timeout=240 if name == "tensorstore" else 900))
    writes = {k: summarise(v) for k, v in R.alternate(fns).items()}
    R.results.append(dict(w="W3", case=f"write {codec}, {label}", op="write", codec=codec, place="S3",
                          ours=writes["ours"], ref=writes["netcdf-c"], ctx={k: writes[k] for k in store}))
    # The peers read the first store one of them wrote (without peers: ours).
    src_peer = next((k for k in store if writes[k].get("wall") is not None), None)
    s3ctx = store[src_peer] if src_peer else f"s3://{bucket}/{key}-ours.zarr"
    for k in store:
        if k != src_peer:
            R.ctx("delete", store[k], env_extra=env)
    src = u["netcdf-c"] if writes["netcdf-c"].get("wall") is not None else u["ours"]
    log(f"W3 {codec}, {label}: read")
    fns = {lib: counted(reqlog, lambda lib=lib: R.nc(lib, "w1read", src, "full", *dims, p["nrandom"],
                                                      env_extra=env)) for lib in u}
    for name in store:
        fns[name] = counted(reqlog, lambda name=name: R.ctx("w1read", engine[name], s3ctx, "full", *dims,
                                                             p["nrandom"], env_extra=env))
    fns["raw GET"] = counted(reqlog, lambda: R.ctx("rawget", s3ctx, env_extra=env))
    runs = {k: summarise(v) for k, v in R.alternate(fns).items()}
    R.results.append(dict(w="W3", case=f"read full {codec}, {label}", op="full", codec=codec, place="S3",
                          ours=runs["ours"], ref=runs["netcdf-c"],
                          ctx={k: runs[k] for k in list(store) + ["raw GET"]}))
    # Emptied, so that the in-memory OSD holds one case at a time.
    for where in [s3ctx] + [f"s3://{bucket}/{key}-{lib}.zarr" for lib in u]:
        R.ctx("delete", where, env_extra=env)
    s3_gc(R)


def w3_open(R, reqlog, endpoint, bucket, env, nvars=500):
    """Opening a 500-variable dataset on S3 (and inquiring every variable): the
    requests it costs, against the metadata objects the dataset has."""
    for kind, mode, extra in (("nczarr", "nczarr,s3", {}),
                              ("consolidated", "nczarr,consolidated,s3", {"NCZARR_CONSOLIDATED": "1"})):
        u = f"{endpoint}/{bucket}/bench-open{nvars}-{kind}.zarr#mode={mode}"
        log(f"W3 open {nvars} vars {kind}")
        made = counted(reqlog, lambda: R.nc("ours", "w2create", u, nvars, env_extra=dict(env, **extra)))()
        objects = made.get("requests", {}).get("PUT metadata")
        runs = [counted(reqlog, lambda: R.nc("ours", "w2open", u, env_extra=dict(env, **extra)))()
                for _ in range(R.args.reps)]
        R.results.append(dict(w="W3", case=f"open+inquire {nvars} vars {kind}", op="open", kind=kind, place="S3",
                              objects=objects, ours=summarise(runs), ref={"status": "NC_ENOTBUILT (no S3)"}, ctx={}))


# ---------------------------------------------------------------- W4: Zarr v3 with sharding

def w4_index_len(p):
    """Bytes of a W4 shard's index: 16 per inner chunk, and 4 of crc32c."""
    n = 1
    for s, c in zip(p["w4_shards"], p["chunks"]):
        n *= s // c
    return 16 * n + 4


def s3_gc(R):
    """Have radosgw free deleted and replaced objects now: its garbage
    collector waits two hours by default, and W4's 1 GiB stores, written
    three times by each engine, would fill the in-memory OSD before that."""
    conf = os.path.join(R.s3_server_env["S3TS_DIR"], "ceph.conf")
    try:
        subprocess.run(["radosgw-admin", "-c", conf, "gc", "process", "--include-all"], capture_output=True,
                       timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        log(f"radosgw-admin gc process: {e}")


def w4_dir(R, p, scratch, label):
    """W4 on a scratch directory: the W1 array as Zarr v3 with sharding, ours
    against zarrs and tensorstore reading the same store; then the same data as
    v3 without shards against v2 (ours)."""
    for codec in p["w4_codecs"]:
        place = dict(label=label, s3=False, env=None, with_ctx=True, wrap=lambda fn: fn, after_write=lambda: None,
                     write_url=lambda name: url(os.path.join(scratch, name), "nczarr,v3,file"),
                     read_url=lambda name: url(os.path.join(scratch, name), "nczarr,file"),
                     ctx=lambda name: os.path.join(scratch, name),
                     remove=lambda name: rm(os.path.join(scratch, name)))
        w4_sharded(R, p, codec, place)
        w4_formats(R, p, scratch, codec)


def w4_s3(R, p):
    """W4 on the S3 server: the sharded array, ours against zarrs (through
    obstore) and tensorstore, with every engine's requests."""
    got, why = s3_env(R)
    if got is None:
        R.results.append(dict(w="W4", case="(all)", op="s3", place="S3", ours={"status": why}, ref={"status": why},
                              ctx={}))
        return
    script, env = got
    reqlog = RequestLog(R.s3_server_env["S3TS_DIR"])
    reqlog.index_len = w4_index_len(p)
    try:
        endpoint, bucket = env["S3_ENDPOINT"].rstrip("/"), env["S3_BUCKET"]

        def remove(name):
            R.ctx("delete", f"s3://{bucket}/{name}", env_extra=env)
            s3_gc(R)

        for codec in p["w4_codecs"]:
            place = dict(label="S3", s3=True, env=env, with_ctx=p.get("s3_context", True),
                         wrap=lambda fn: counted(reqlog, fn), after_write=lambda: s3_gc(R),
                         write_url=lambda name: f"{endpoint}/{bucket}/{name}#mode=nczarr,v3,s3",
                         read_url=lambda name: f"{endpoint}/{bucket}/{name}#mode=nczarr,s3",
                         ctx=lambda name: f"s3://{bucket}/{name}", remove=remove)
            w4_sharded(R, p, codec, place)
    finally:
        subprocess.run(["bash", script, "stop"], capture_output=True, cwd=ROOT, env=R.s3_server_env)


def w4_sharded(R, p, codec, pl):
    """One codec of W4 in one place (a scratch directory or S3): each engine writes its
    own sharded store (timed), then every engine reads ours."""
    dims = [str(v) for v in p["shape"]]
    inner, shards, nrandom = p["chunks"], p["w4_shards"], p["nrandom"]
    env, label = pl["env"], pl["label"]
    names = {k: f"w4-{k}-{codec}.zarr" for k in ("ours", "netcdf-c", "zarrs", "tensorstore")}
    engine = {"zarrs": "zarrs-obstore" if pl["s3"] else "zarrs", "tensorstore": "tensorstore"}
    log(f"W4 {label} {codec}: write")

    def write(lib):
        def run():
            if lib == "ours":
                r = R.nc("ours", "w1write", pl["write_url"](names[lib]), codec, *dims, *inner, *shards,
                         env_extra=env)
            else:
                r = R.ctx("w4write", engine[lib], pl["ctx"](names[lib]), codec, *dims, *inner, *shards,
                          env_extra=env, timeout=600 if pl["s3"] else 900)
            return r
        return lambda: (pl["wrap"](run)(), pl["after_write"]())[0]

    libs = ["ours"] + (["zarrs", "tensorstore"] if pl["with_ctx"] else [])
    writes = {k: summarise(v) for k, v in R.alternate({lib: write(lib) for lib in libs}).items()}
    # netcdf-c once: it has neither Zarr v3 nor the shards call (nor S3, in the wheel).
    ref_write = summarise([R.nc("netcdf-c", "w1write", pl["write_url"](names["netcdf-c"]), codec, *dims, *inner,
                                *shards, env_extra=env)])
    pl["remove"](names["netcdf-c"])
    R.results.append(dict(w="W4", case=f"write {codec}", codec=codec, op="write", place=label,
                          ours=writes["ours"], ref=ref_write, ctx={k: writes[k] for k in libs if k != "ours"}))
    src = next((k for k in ("ours", "zarrs") if k in writes and writes[k].get("wall") is not None), None)
    for k in libs:
        if k != src and k != "ours":
            pl["remove"](names[k])
    for mode in ("full", "slab", "random"):
        log(f"W4 {label} {codec}: read {mode}")
        if src is None:
            R.results.append(dict(w="W4", case=f"read {mode} {codec}", codec=codec, op=mode, place=label,
                                  ours={"status": f"no store ({writes['ours']['status']})"}, ref={"status": "–"},
                                  ctx={}))
            continue

        def read(lib):
            if lib == "ours":
                run = lambda: R.nc("ours", "w1read", pl["read_url"](names[src]), mode, *dims, nrandom, env_extra=env)
            else:
                run = lambda: R.ctx("w4read", engine[lib], pl["ctx"](names[src]) + "/field", mode, *dims, nrandom,
                                    env_extra=env)
            return pl["wrap"](run)

        runs = {k: summarise(v) for k, v in R.alternate({lib: read(lib) for lib in libs}).items()}
        ref = summarise([R.nc("netcdf-c", "w1read", pl["read_url"](names[src]), mode, *dims, nrandom,
                              env_extra=env)])
        R.results.append(dict(w="W4", case=f"read {mode} {codec}", codec=codec, op=mode, place=label,
                              ours=runs["ours"], ref=ref, ctx={k: runs[k] for k in libs if k != "ours"},
                              src=src, nrandom=nrandom))
    for k in ("ours", "zarrs"):
        if k in writes:
            pl["remove"](names[k])


def w4_formats(R, p, scratch, codec):
    """The same data as Zarr v3 without shards and as v2 (W1's chunks), both
    written by ours, read whole and as a slab, alternately. Each format is
    written twice, in the order v2 v3 v3 v2, and its reads are the runs of
    both copies: where a store's files happen to lie in memory moves one
    copy's read by up to a quarter (measured: two copies of the same v2 data),
    and the mirrored order gives both formats the same share of early and
    late stores."""
    dims = [str(v) for v in p["shape"]]
    mode_of = {"v3": "nczarr,v3,file", "v2": "nczarr,file"}
    order = [("v2", "a"), ("v3", "a"), ("v3", "b"), ("v2", "b")]
    path = {k: os.path.join(scratch, f"w4-{k[0]}{k[1]}-{codec}.zarr") for k in order}
    made = {k: summarise([R.nc("ours", "w1write", url(path[k], mode_of[k[0]]), codec, *dims, *p["chunks"])])
            for k in order}
    # Both formats store the same bytes per chunk: where a v3 chunk equals the
    # v2 copy's chunk of the same index, it becomes a hard link to it, so the
    # two formats read the same pages and the ratio measures the code only.
    shared = {c: share_chunks(path[("v2", c)], path[("v3", c)]) for c in ("a", "b")}
    for mode in ("full", "slab"):
        log(f"W4 v3 unsharded vs v2 {codec}: read {mode}")
        if any(m.get("wall") is None for m in made.values()):
            runs = {f: {"status": f"no store ({m['status']})"} for (f, _), m in made.items()}
        else:
            # (Reads of a few hundred ms, two formats a few percent apart at
            # most: more rounds than the other workloads, at little cost.)
            copies = R.alternate({k: (lambda k=k: R.nc("ours", "w1read", url(path[k], "nczarr,file"), mode, *dims))
                                  for k in order}, reps=max(R.args.reps, 5))
            runs = {f: summarise([r for k, v in copies.items() if k[0] == f for r in v]) for f in mode_of}
        R.results.append(dict(w="W4", case=f"v3 unsharded vs v2, read {mode} {codec}", codec=codec,
                              op="v3v2", ours=runs["v3"], ref={"status": "–"}, ctx={"v2 (ours)": runs["v2"]},
                              shared=shared))
    for k in order:
        rm(path[k])


def durable_run(write, store):
    """One durable write (`write()`) as the limits' durable floor measures its
    own: into a fresh path, with nothing of earlier runs left to write back
    (the previous store removed and everything synced before the clock
    starts), so the row is the cost of this write's own syncs."""
    rm(store)
    os.sync()
    return write()


def share_chunks(v2_store, v3_store, var="field"):
    """Replace each chunk file of the v3 store (`c/i/j/k`) that is byte for byte
    the v2 store's chunk of the same index (`i.j.k`) by a hard link to it.
    Returns (linked, chunks)."""
    v3_root = os.path.join(v3_store, var, "c")
    linked = total = 0
    for dirpath, _, files in os.walk(v3_root):
        for name in files:
            total += 1
            v3_file = os.path.join(dirpath, name)
            idx = os.path.relpath(v3_file, v3_root).split(os.sep)
            v2_file = os.path.join(v2_store, var, ".".join(idx))
            try:
                with open(v2_file, "rb") as a, open(v3_file, "rb") as b:
                    same = a.read() == b.read()
            except OSError:
                same = False
            if same:
                tmp = v3_file + ".link"
                os.link(v2_file, tmp)
                os.replace(tmp, v3_file)
                linked += 1
    return linked, total


def pipeline_mib(p):
    """The size of the limits' pipelines: W1's array when it is of whole 16-plane
    rows of chunks (N x 1024 x 1024), at most the preset's limits size, in 64 MiB
    steps, at least 64 MiB."""
    w1_mib = p["shape"][0] * p["shape"][1] * p["shape"][2] * 4 >> 20
    return max(64, min(p["limits_mib"], w1_mib) // 64 * 64)


def limits(R, limits_bin, p, scratch, parts):
    """The limits program's measurements: parts "cpu" (memcpy, codecs: once) or
    "fs" (page cache, metadata, pipelines, durable writes: on each scratch place).
    {(name, threads): MiB/s, seconds for the metadata floor, or a status string}."""
    if limits_bin is None:
        return {}
    log(f"limits ({parts}) on {scratch}" if parts == "fs" else f"limits ({parts})")
    os.makedirs(scratch, exist_ok=True)
    pr = subprocess.run([limits_bin, scratch, str(p["limits_mib"]), parts, str(pipeline_mib(p))],
                        capture_output=True, text=True)
    if pr.returncode != 0:
        log(f"limits ({parts}) exit {pr.returncode}: {pr.stderr.strip()[-300:]}")
    out = {}
    for line in pr.stdout.splitlines():
        if line.startswith("LIMIT "):
            d = json.loads(line[6:])
            out[(d["name"], d["threads"])] = d.get("mib_s", d.get("secs", d.get("status")))
    return out


def limits_at(lims, place):
    """The limits that apply to a row on `place`: the file-system independent ones
    and that place's."""
    return {**lims.get(None, {}), **lims.get(place, {})}


# ---------------------------------------------------------------- W6: CF aggregation

# W6 (issue 15): the W1 field as one NCZarr dataset and as a CF aggregation of
# 64 NCZarr fragments (a 4 x 4 x 4 grid) with the same chunks and codec.
W6 = {"full": dict(shape=(256, 1024, 1024), chunks=(16, 256, 256), frag=(64, 256, 256)),
      "quick": dict(shape=(16, 1024, 256), chunks=(4, 256, 64), frag=(4, 256, 64))}
W6_CODECS = ["none", "zstd1"]


def w6_fragment_accesses_fs(R, master_path, env_extra=None):
    """Opening the master and inquiring every variable (ncbench w2open) under
    strace: how many file-system calls name a path inside its fragments'
    directory (the write side puts them in `<master>_<var>/`)."""
    if not shutil.which("strace"):
        return None
    trace = master_path + ".strace"
    env = dict(R.env["ours"], **(env_extra or {}))
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=%file", "-o", trace, R.ncbench, "w2open",
                    url(master_path, "nczarr,file")], env=env, capture_output=True, timeout=300)
    frag_dir = master_path + "_field/"
    try:
        with open(trace) as f:
            n = sum(1 for line in f if frag_dir in line)
    finally:
        os.unlink(trace)
    return n


def w6(R, p, codec, pl):
    """One codec of W6 in one place: both stores written by ours, then read
    whole and as W1's slab ([:, 500:524, :]), aggregation and one dataset
    alternating; and the master opened with every variable inquired, counting
    the fragment accesses that makes (there should be none)."""
    w = W6[p["w6"]]
    dims = [str(v) for v in w["shape"]]
    tag = codec.replace("+", "_")
    one, agg = f"w6-one-{tag}.zarr", f"w6-agg-{tag}.zarr"
    env = pl.get("env")
    wrap = pl.get("wrap", lambda fn: fn)
    log(f"W6 {pl['label']} {codec}: write")
    made = {"one": R.nc("ours", "w1write", pl["url"](one), codec, *dims, *w["chunks"], env_extra=env),
            "agg": R.nc("ours", "w6write", pl["url"](agg), codec, *dims, *w["chunks"], *w["frag"], env_extra=env)}
    bad = [f"{k}: {v['status']}" for k, v in made.items() if v.get("status") != "ok"]
    if bad:
        R.results.append(dict(w="W6", case=f"(all) {codec}", op="write", codec=codec, place=pl["label"],
                              ours={"status": "; ".join(bad)}, ref={"status": "–"}, ctx={}))
        return
    for mode in ("full", "slab"):
        log(f"W6 {pl['label']} {codec}: read {mode}")
        runs = R.alternate({k: wrap(lambda k=k: R.nc("ours", "w1read", pl["url"](name), mode, *dims, env_extra=env))
                            for k, name in (("agg", agg), ("one", one))})
        R.results.append(dict(w="W6", case=f"read {mode} {codec}", op=mode, codec=codec, place=pl["label"],
                              ours=summarise(runs["agg"]), ref=summarise(runs["one"]), ctx={}))
    log(f"W6 {pl['label']} {codec}: open the master")
    opened = [wrap(lambda: R.nc("ours", "w2open", pl["url"](agg), env_extra=env))() for _ in range(R.args.reps)]
    R.results.append(dict(w="W6", case=f"open+inquire master {codec}", op="open", codec=codec, place=pl["label"],
                          ours=summarise(opened), ref={"status": "–"}, ctx={},
                          fragment_accesses=pl["accesses"](agg)))
    pl["remove"](one)
    pl["remove"](agg)


def w6_dir(R, p, scratch, label):
    place = dict(label=label, url=lambda name: url(os.path.join(scratch, name), "nczarr,file"),
                 accesses=lambda name: w6_fragment_accesses_fs(R, os.path.join(scratch, name)),
                 remove=lambda name: (rm(os.path.join(scratch, name)), rm(os.path.join(scratch, name) + "_field")))
    for codec in W6_CODECS:
        w6(R, p, codec, place)


def w6_s3(R, p):
    """W6 on the S3 server: the master and its fragments in one bucket
    (relative fragment URIs); fragment accesses at open are the requests whose
    key is under the fragments' prefix."""
    got, why = s3_env(R)
    if got is None:
        R.results.append(dict(w="W6", case="(all)", op="s3", place="S3", ours={"status": why}, ref={"status": why},
                              ctx={}))
        return
    script, env = got
    reqlog = RequestLog(R.s3_server_env["S3TS_DIR"])
    try:
        endpoint, bucket = env["S3_ENDPOINT"].rstrip("/"), env["S3_BUCKET"]
        run = f"w6-{os.getpid()}"

        def accesses(name):
            pos = reqlog.mark()
            R.nc("ours", "w2open", f"{endpoint}/{bucket}/{run}/{name}#mode=nczarr,s3", env_extra=env)
            time.sleep(0.2)  # radosgw writes its access log line after the response
            try:
                with open(reqlog.path, "rb") as f:
                    f.seek(pos)
                    text = f.read().decode("utf-8", "replace")
            except OSError:
                return None
            return sum(1 for m in RequestLog.PAT.finditer(text) if f"{name}_field" in m.group(2))

        place = dict(label="S3", env=env, wrap=lambda fn: counted(reqlog, fn),
                     url=lambda name: f"{endpoint}/{bucket}/{run}/{name}#mode=nczarr,s3",
                     accesses=accesses, remove=lambda name: None)
        for codec in W6_CODECS:
            w6(R, p, codec, place)
    finally:
        subprocess.run(["bash", script, "stop"], capture_output=True, cwd=ROOT, env=R.s3_server_env)


# ---------------------------------------------------------------- targets

def targets(row):
    """[(label, kind, value)] for a row: kind 'ref' (speedup over netcdf-c at least value),
    'zarrs' (speedup over zarrs at least value; None: the ratio shown, no target), 'limit'
    (fraction of the 2-core limit), 'durable' (ours at most value times the plain-C
    durable-write floor), 'abs' (ours under value seconds)."""
    w, op, codec = row["w"], row.get("op"), row.get("codec")
    t = []
    if w == "W1" and op == "full":
        t.append(("ref", 4.0 if codec == "zlib1+shuffle" else 1.8))
        t.append(("zarrs", 1.0))
        t.append(("limit", 0.85))
        t.append(("pipeline", None))
    elif w == "W1" and op == "write":
        t.append(("zarrs", 1.0))
        t.append(("pipeline", None))
        if codec == "zlib1+shuffle":
            t.append(("ref", 5.0))
    elif w == "W1" and op == "durable":
        t.append(("durable", 1.2))
        t.append(("tensorstore", None))
    elif w == "W1" and op == "slab":
        t.append(("ref", 8.0 if codec == "none" else 1.8))
    elif w == "W1" and op == "random":
        t.append(("ref", 2.0 if codec == "none" else 1.0))
    elif w == "W3" and op == "write":
        t.append(("fastest", 1.0))
    elif w == "W3" and op == "full":
        t.append(("fastest", 1.0))
        t.append(("rawget", 0.85))
        if "256 KiB" in row["case"]:
            t.append(("tensorstore", 1.0))
    elif w == "W3" and op == "open":
        t.append(("gets", 3 if row.get("kind") == "consolidated" else None))
    elif w == "W4" and op in ("full", "slab"):
        t.append(("zarrs", 1.0))
        t.append(("tensorstore", 1.0))
    elif w == "W4" and op == "random" and row.get("place") == "S3":
        t.append(("shardgets", 2))
    elif w == "W4" and op == "v3v2":
        t.append(("v2", 1.05))
    elif w == "W6" and op in ("full", "slab"):
        t.append(("one", 1.10))
    elif w == "W6" and op == "open":
        t.append(("untouched", 0))
    elif w == "W2" and op == "create":
        t.append(("ref", 15.0))
        t.append(("floor", 2.0))
    elif w == "W2" and op == "open":
        t.append(("ref", 2.0))
        if row.get("kind") == "consolidated":
            t.append(("abs", 0.010))
    return t


LIMIT_DECODER = {"zlib1+shuffle": "libdeflate-1+shuffle", "zstd1": "zstd-1",
                 "blosc-lz4-1+shuffle": "blosc-lz4-1+shuffle"}


PIPELINE_DECODER = dict(LIMIT_DECODER, none="none")
PIPELINE_ENCODER = {"none": "none", "zstd1": "zstd-1", "blosc-lz4-1+shuffle": "blosc-lz4-1+shuffle"}


def pipeline_seconds(row, lim):
    """The same W1 full read (open, read, decode with the best decoder, copy rows into place)
    or write (gather rows, encode, write a new file) done the plain way in C by `limits` on
    every core: what it costs through files with nothing else done. Not a target: it shows
    what the issue's limit leaves out and how close ours is."""
    b = row["ours"].get("bytes") or row["ref"].get("bytes")
    if row["op"] == "write":
        name = f"write-pipeline {PIPELINE_ENCODER.get(row['codec'], '?')}"
    else:
        name = f"pipeline {PIPELINE_DECODER.get(row['codec'], '?')}"
    rate = [v for (n, _t), v in (lim or {}).items() if n == name]
    return b / 1048576 / rate[0] if b and rate else None


def durable_floor_seconds(row, lim, how):
    """The plain-C durable write of W1's bytes (`limits`: write + fdatasync, or
    O_DIRECT, then fsync of the directories) on every core: seconds, a status
    string when the file system refused, None when not measured."""
    b = row["ours"].get("bytes")
    rate = [v for (n, _t), v in (lim or {}).items() if n == f"durable-write {how} none"]
    if not rate:
        return None
    if isinstance(rate[0], str):
        return rate[0]
    return b / 1048576 / rate[0] if b else None


def limit_seconds(row, lim):
    """The 2-core limit of a W1 full read: decode CPU time of the best decoder over both
    cores plus one copy (for no codec: one page-cache read into the buffer, 2 threads)."""
    b = row["ours"].get("bytes") or row["ref"].get("bytes")
    if not b or not lim:
        return None
    mib = b / 1048576
    copy = lim.get(("memcpy", 2))
    if row["codec"] == "none":
        pc = lim.get(("pagecache read", 2))
        return mib / pc if pc else None
    dec = lim.get((f"decode {LIMIT_DECODER[row['codec']]}", 1))
    if not dec or not copy:
        return None
    return mib / dec / 2 + mib / copy


# ---------------------------------------------------------------- report

# ---------------------------------------------------------------- W5: parallel I/O (MPI)

W5_RANKS = (1, 2, 4)
W5_CODEC_NAMES = {"none": "none", "zstd": "zstd1", "zlib": "zlib1"}


def w5_mpirun(R, np, prog, target, rows, codec, env_extra=None, serial=False, timeout=1800):
    """One mpi_w5 run under mpirun: its RESULT, and with ours the bytes the
    processes sent one another (their NCZARR_MPI_STATS lines, summed) and the
    longest time a process spent waiting at collective points (wait_ms)."""
    env = dict(R.env["ours"], OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none",
               **(env_extra or {}))
    stats = os.path.join(R.w5_dir, f"stats-{os.getpid()}.txt")
    if os.path.exists(stats):
        os.unlink(stats)
    env["NCZARR_MPI_STATS"] = stats
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    for k in ["LD_LIBRARY_PATH", "NCZARR_MPI_STATS", *(env_extra or {})]:
        cmd += ["-x", k]
    cmd += [prog, target, str(rows), codec] + (["serial"] if serial else [])
    r = run_proc(cmd, env, timeout)
    if r.get("status") == "ok" and os.path.exists(stats):
        moved, wait = 0, 0
        with open(stats) as f:
            for line in f:
                fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
                moved += int(fields.get("bytes_sent", 0))
                wait = max(wait, int(fields.get("wait_ms", 0)))
        r["moved"] = moved
        r["wait"] = wait / 1000
    return r


def w5_summary(runs):
    ok = [r for r in runs if r.get("status") == "ok"]
    if not ok:
        return {"status": runs[0].get("status", "?") if runs else "not run"}
    med = lambda k: statistics.median(r[k] for r in ok)
    out = {"status": "ok", "n": len(ok), "write": med("write"), "read": med("read"), "write_cpu": med("write_cpu"),
           "read_cpu": med("read_cpu"), "mib": ok[0]["mib"]}
    if "moved" in ok[0]:
        out["moved"] = ok[0]["moved"]
    if all("wait" in r for r in ok):
        out["wait"] = med("wait")
    return out


def w5(R, p, scratch):
    """W5: a ROWS x 4096 float32 array (2 GiB in the full preset) in 100 x 1024
    chunks, not aligned with the processes' row blocks, written collectively
    and read back by 1, 2 and 4 processes (mpirun --oversubscribe on this
    machine's cores), uncompressed and zstd1, with this library on a directory
    (the first place) and on S3; the same program on Debian's parallel
    netcdf-c (netCDF-4/HDF5 over MPI-IO: it has no zstd, so zlib1 stands in;
    directory only), and one process of this library without the parallel
    layer (nc_create / nc_open). Ours also with zlib1 on the directory, to
    compare the same codec. Cases alternate order every repetition."""
    rows = R.args.w5_rows or p["w5_rows"]
    out = os.path.join(ROOT, "target", "bench")
    ours, hdf5 = os.path.join(out, "mpi_w5"), os.path.join(out, "mpi_w5_hdf5")
    if not os.path.exists(ours):
        R.w5.append(dict(place="–", codec="–", lib="ours", np=0, r={"status": "mpi_w5 not built (no mpicc)"}))
        return
    R.w5_dir = scratch
    os.makedirs(scratch, exist_ok=True)
    zarr = lambda name: url(os.path.join(scratch, name), "nczarr,file")

    def cases(place, target, codecs, with_hdf5, env_extra=None, remove=None):
        remove = remove or (lambda n: rm(os.path.join(scratch, n)))

        def once(np, prog, name, codec, env=None, serial=False, path=None):
            # Each run removes its store: S3's in-memory OSD holds a few only.
            def run():
                r = w5_mpirun(R, np, prog, path or target(name), rows, codec, env, serial=serial)
                if path:
                    if os.path.exists(path):
                        os.unlink(path)
                else:
                    remove(name)
                return r
            return run

        for codec in codecs:
            fns = {}
            for np in W5_RANKS:
                fns[("ours", np)] = once(np, ours, f"w5-{codec}-{np}.zarr", codec, env_extra)
            fns[("one process", 1)] = once(1, ours, f"w5-{codec}-serial.zarr", codec, env_extra, serial=True)
            # The same on one thread (one core), the baseline the process counts
            # would scale from if a process did not use every core already.
            fns[("one process, 1 thread", 1)] = once(1, ours, f"w5-{codec}-serial1.zarr", codec,
                                                     dict(env_extra or {}, NCZARR_THREADS="1"), serial=True)
            # (HDF5 has no zstd: its zlib1 runs, in the zlib case, stand beside ours with zstd1.)
            if with_hdf5 and codec != "zstd" and os.path.exists(hdf5):
                for np in W5_RANKS:
                    fns[("parallel HDF5", np)] = once(np, hdf5, None, codec,
                                                      path=os.path.join(scratch, f"w5-{codec}-{np}.nc"))
            log(f"W5 {place} {codec}: {len(fns)} cases x {R.args.reps}")
            runs = R.alternate(fns)
            for (lib, np), rs in runs.items():
                R.w5.append(dict(place=place, codec=W5_CODEC_NAMES[codec], case=codec, lib=lib, np=np,
                                 r=w5_summary(rs)))

    only = R.args.w5_codecs.split(",") if R.args.w5_codecs else None
    pick = lambda codecs: [c for c in codecs if only is None or c in only]
    cases("disk", zarr, pick(["none", "zlib", "zstd"]), True)
    if R.args.w5_places and "S3" not in R.args.w5_places.split(","):
        return
    got, why = s3_env(R)
    if got is None:
        R.w5.append(dict(place="S3", codec="–", case="–", lib="ours", np=0, r={"status": why}))
        return
    script, env = got
    try:
        endpoint, bucket = env["S3_ENDPOINT"].rstrip("/"), env["S3_BUCKET"]
        s3 = lambda name: f"{endpoint}/{bucket}/{name}#mode=nczarr,s3"
        cenv = {k: v for k, v in env.items() if k.startswith("AWS_")}
        cenv["NCRCENV_IGNORE"] = "1"

        def remove(name):
            R.ctx("delete", f"s3://{bucket}/{name}", env_extra=env)
            s3_gc(R)

        cases("S3", s3, pick(["none", "zstd"]), False, cenv, remove)
    finally:
        subprocess.run(["bash", script, "stop"], capture_output=True, cwd=ROOT, env=R.s3_server_env)


def w5_report(R):
    """W5's own table: times per case, then the ratios of the issue's targets."""
    rows = R.w5
    lines = ["", "## W5: parallel write and read (MPI)", ""]
    mib = next((x["r"]["mib"] for x in rows if x["r"].get("mib")), None)
    lines.append(f"A {mib:.0f} MiB float32 array (ROWS x 4096, chunks 100 x 1024, not aligned with the "
                 "processes' row blocks) written collectively, closed, opened and read back by N processes "
                 "(`bench/mpi_w5.c` under `mpirun --oversubscribe` on this machine's cores); the slowest "
                 "process's wall time, CPU summed over processes. `one process`: this library through "
                 "`nc_create`/`nc_open` (no parallel layer), with its worker pool on every core as usual, and with "
                 "`NCZARR_THREADS=1`. `parallel HDF5`: the same program on Debian's "
                 "parallel netcdf-c (netCDF-4/HDF5 over MPI-IO), zlib1 where ours uses zstd1 (that build has "
                 "no zstd). `moved`: bytes of chunk parts the processes sent one another (`NCZARR_MPI_STATS`); "
                 "`wait`: the longest time one process spent in the MPI calls of collective points, write "
                 "or read (its `wait_ms`: waiting for slower processes). Under `mpirun`, Open MPI binds each of 1 "
                 "or 2 processes to one core (`--bind-to core`), so a 1-process run, with or without the "
                 "parallel layer, uses one core whatever its worker pool (which has one thread there). "
                 "Medians of the repetitions." if mib else "")
    lines.append("")
    lines.append("| place | codec | library | processes | write | write CPU | read | read CPU | moved | wait |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for x in rows:
        r = x["r"]
        if r.get("write") is None:
            lines.append(f"| {x['place']} | {x['codec']} | {x['lib']} | {x['np']} | {short_status(r.get('status', '?'))} | | | | | |")
            continue
        moved = f"{r['moved'] / 2**20:.1f} MiB" if "moved" in r else "–"
        wait = fmt_t(r["wait"]) if "wait" in r else "–"
        lines.append(f"| {x['place']} | {x['codec']} | {x['lib']} | {x['np']} | {fmt_t(r['write'])} | "
                     f"{fmt_t(r['write_cpu'])} | {fmt_t(r['read'])} | {fmt_t(r['read_cpu'])} | {moved} | {wait} |")
    lines.append("")
    lines.append("Ratios (above 1: ours faster); targets of issue 17: 2 processes ≥ 1.6x one process for zstd "
                 "writes, where one process is ours at 1 process under `mpirun` (through the parallel layer, "
                 "bound to one core); ahead of parallel HDF5 at every process count.")
    lines.append("")
    get = {(x["place"], x["case"], x["lib"], x["np"]): x["r"] for x in rows if "case" in x}
    for (place, case, lib, np), r in get.items():
        if lib != "ours" or r.get("write") is None:
            continue
        out = []
        base = get.get((place, case, "ours", 1), {})
        if np > 1 and base.get("write"):
            sp = base["write"] / r["write"]
            target = f" (≥1.6): {'PASS' if sp >= 1.6 else 'FAIL'}" if case == "zstd" and np == 2 else ""
            out.append(f"write vs ours at 1 process {sp:.2f}x{target}; read {base['read'] / r['read']:.2f}x")
        one = get.get((place, case, "one process", 1), {})
        if one.get("write"):
            out.append(f"vs one process (no parallel layer): write {one['write'] / r['write']:.2f}x, read "
                       f"{one['read'] / r['read']:.2f}x")
        one1 = get.get((place, case, "one process, 1 thread", 1), {})
        if one1.get("write"):
            out.append(f"vs one process on 1 thread: write {one1['write'] / r['write']:.2f}x, read "
                       f"{one1['read'] / r['read']:.2f}x")
        h = get.get((place, "zlib" if case == "zstd" else case, "parallel HDF5", np), {})
        if h.get("write"):
            ww, rr = h["write"] / r["write"], h["read"] / r["read"]
            out.append(f"vs parallel HDF5 ({W5_CODEC_NAMES['zlib' if case == 'zstd' else case]}): write {ww:.2f}x, read {rr:.2f}x"
                       f" (>1): {'PASS' if ww > 1 and rr > 1 else 'FAIL'}")
        if out:
            lines.append(f"- {place} {W5_CODEC_NAMES[case]}, {np} process{'es' if np > 1 else ''}: " + "; ".join(out))
    return lines


def fmt_t(s):
    if s is None:
        return "–"
    if s < 0.01:
        return f"{s * 1000:.2f} ms"
    if s < 1:
        return f"{s * 1000:.0f} ms"
    return f"{s:.2f} s"


def short_status(st):
    for code in ("NC_ENOFILTER", "NC_ENOTBUILT"):
        if code in st:
            return f"unsupported ({code})"
    return st if len(st) <= 90 else st[:87] + "..."


def cell(r):
    if r.get("wall") is None:
        return short_status(r.get("status", "–"))
    return f"{fmt_t(r['wall'])} / {fmt_t(r['cpu'])} / {r['rss_mib']:.0f}"


def ratio_and_targets(row, lim):
    ours = row["ours"].get("wall")
    out = []
    for kind, want in targets(row):
        if kind == "ref":
            other, label = row["ref"].get("wall"), "netcdf-c"
        elif kind == "zarrs":
            other, label = row["ctx"].get("zarrs", {}).get("wall"), "zarrs"
        elif kind == "limit":
            other, label = limit_seconds(row, lim), "limit"
        elif kind == "tensorstore":
            other, label = row["ctx"].get("tensorstore", {}).get("wall"), "tensorstore"
        elif kind == "fastest":
            walls = [(v["wall"], k) for k, v in row["ctx"].items() if k != "raw GET" and v.get("wall") is not None]
            other, label = min(walls) if walls else (None, "fastest peer")
            label = f"fastest peer ({label})" if walls else label
        elif kind == "rawget":
            other, label = row["ctx"].get("raw GET", {}).get("wall"), "raw GET rate"
        else:
            other, label = None, "abs"
        if kind == "floor":
            # The file system's own cost of the objects: no library can go below it.
            # Two floors: the metadata objects alone, and with the one chunk
            # per variable W2 also writes (the same objects as ours); the
            # target is on the second.
            # The target is judged on the floor with the chunks as measured
            # alternately with the creates (`floor_alt`, medians, a fresh
            # process each); the limits table's best of three in one process
            # is shown beside it.
            nvars = row.get("nvars")
            alt = row.get("floor_alt")
            for name, judged in (("metadata 2000 arrays", False), ("metadata 2000 arrays + chunk", True)):
                fl = [v for (n, t), v in (lim or {}).items() if n == name]
                if ours is None or not nvars:
                    continue
                floors = []
                if judged and alt:
                    floors.append(("alternated with the creates, median", alt * nvars / 2000, True))
                if fl:
                    floors.append(("limits, best of 3 in one process", min(fl) * nvars / 2000, judged and not alt))
                for how, floor, judge in floors:
                    what = "file-system floor" + (" with the chunks" if judged else " of the metadata objects")
                    ref = f"; netcdf-c {row['ref']['wall'] / floor:.1f}x it" if row["ref"].get("wall") else ""
                    verdict = f" (≤{want:g}x): {'PASS' if ours <= want * floor else 'FAIL'}" if judge else ""
                    out.append(f"{what} ({how}) {fmt_t(floor)}: ours {ours / floor:.2f}x it{verdict}{ref}")
            continue
        if kind == "durable":
            fl = durable_floor_seconds(row, lim, "fdatasync")
            direct = durable_floor_seconds(row, lim, "O_DIRECT")
            if fl is None or ours is None:
                out.append(f"durable ÷ plain-C write+fdatasync floor ≤{want:g}: n/a")
            else:
                out.append(f"plain-C write+fdatasync floor {fmt_t(fl)}: ours {ours / fl:.2f}x it (≤{want:g}): "
                           f"{'PASS' if ours <= want * fl else 'FAIL'}")
            if isinstance(direct, str):
                out.append(f"O_DIRECT floor {direct}")
            elif direct is not None:
                out.append(f"O_DIRECT floor {fmt_t(direct)}")
            continue
        if kind == "pipeline":
            p = pipeline_seconds(row, lim)
            if p is not None and ours is not None:
                what = "plain-C write to a fresh directory" if row["op"] == "write" else "plain-C read"
                out.append(f"{what} {fmt_t(p)} (ours at {p / ours:.2f} of its speed)")
            continue
        if kind == "gets":
            req = row["ours"].get("requests") or {}
            gets = req.get("GET", 0) + req.get("LIST", 0)
            limit = want if want is not None else row.get("objects")
            if limit is None or ours is None:
                out.append("requests per metadata object: n/a")
            else:
                ok = gets <= limit and not req.get("HEAD")
                out.append(f"{gets} GET+LIST for {row.get('objects')} metadata objects (≤{limit}, no HEAD): "
                           f"{'PASS' if ok else 'FAIL'}")
            continue
        if kind == "shardgets":
            # Requests of the random reads once each shard's index is in: every
            # GET but the index fetches and the metadata objects read at open.
            req = row["ours"].get("requests") or {}
            n = row.get("nrandom")
            if ours is None or not req or not n:
                out.append(f"ranged GETs per random read ≤{want}: n/a")
            else:
                data = req.get("GET", 0) - req.get("GET index", 0) - req.get("GET metadata", 0)
                out.append(f"{data} GETs of inner chunks for {n} reads = {data / n:.2f} per read, besides "
                           f"{req.get('GET index', 0)} index GETs (≤{want}): {'PASS' if data <= want * n else 'FAIL'}")
            continue
        if kind == "v2":
            v2 = row["ctx"].get("v2 (ours)", {}).get("wall")
            if ours is None or v2 is None:
                out.append(f"v3 ÷ v2 time ≤{want:g}: n/a")
            else:
                linked = sum(n for n, _ in row.get("shared", {}).values())
                total = sum(t for _, t in row.get("shared", {}).values())
                out.append(f"v3 ÷ v2 time {ours / v2:.3f} (≤{want:g}): {'PASS' if ours <= want * v2 else 'FAIL'}"
                           f"; chunk files shared by the two formats {linked} of {total}")
            continue
        if kind == "one":
            one = row["ref"].get("wall")
            if ours is None or one is None:
                out.append(f"aggregation ÷ one dataset ≤{want:g}: n/a")
            else:
                out.append(f"aggregation ÷ one dataset {ours / one:.3f} (≤{want:g}): "
                           f"{'PASS' if ours <= want * one else 'FAIL'}")
            continue
        if kind == "untouched":
            n = row.get("fragment_accesses")
            out.append("fragment accesses at open: n/a" if n is None else
                       f"fragment accesses at open {n} (={want}): {'PASS' if n == want else 'FAIL'}")
            continue
        if kind == "abs":
            if ours is None:
                out.append(f"< {want * 1000:.0f} ms: n/a")
            else:
                out.append(f"{fmt_t(ours)} < {want * 1000:.0f} ms: {'PASS' if ours < want else 'FAIL'}")
            continue
        if want is None:  # the ratio alone, no target
            if ours is not None and other is not None:
                out.append(f"{label} {other / ours:.2f}x")
            continue
        if ours is None or other is None:
            out.append(f"{label} ≥{want:g}: n/a")
            continue
        r = other / ours
        out.append(f"{label} {r:.2f}x (≥{want:g}): {'PASS' if r >= want else 'FAIL'}")
    if row["w"] == "W3" and ours is not None:
        req = row["ours"].get("requests")
        if req:
            out.append(f"requests: {fmt_requests(req)}")
        if row["op"] in ("full", "write"):
            for name, v in row["ctx"].items():
                if v.get("requests") and name != "raw GET":
                    out.append(f"{name} requests: {fmt_requests(v['requests'])}")
            # Client and server share the machine's cores: how busy they kept them.
            for name, v in (("ours", row["ours"]), ("raw GET", row["ctx"].get("raw GET", {}))):
                busy = cores_busy(v)
                if busy is not None:
                    out.append(f"{name}: client {v['cpu']:.2f} s + server {v['server_cpu']:.2f} s CPU = "
                               f"{busy:.0%} of {os.cpu_count()} cores")
    if row["w"] == "W4" and row.get("place") == "S3":
        for name, v in [("ours", row["ours"])] + list(row["ctx"].items()):
            if v.get("requests"):
                out.append(f"{name} requests: {fmt_w4_requests(v['requests'])}")
    if row["w"] in ("W1", "W3", "W4") and ours is not None and row.get("op") != "open":
        # Memory: peak RSS at most the caller's buffer + the chunk cache (64 MiB) + 64 MiB.
        over = row["ours"]["rss_mib"] - row["ours"].get("buffer_mib", 0)
        out.append(f"RSS over buffer {over:.0f} MiB (≤128): {'PASS' if over <= 128 else 'FAIL'}")
    return "; ".join(out) if out else ""


def fmt_w4_requests(c):
    """W4's request counts: GETs split into shard-index fetches, metadata objects
    and ranged reads, with the bytes served."""
    parts = []
    if c.get("GET"):
        parts.append(f"GET {c['GET']} (index {c.get('GET index', 0)}, metadata {c.get('GET metadata', 0)}, "
                     f"ranged {c.get('GET ranged', 0)}; {c.get('GET bytes', 0) / 2**20:.1f} MiB)")
    parts += [f"{k} {c[k]}" for k in ("PUT", "LIST", "POST", "DELETE") if c.get(k)]
    parts.append(f"HEAD {c.get('HEAD', 0)}")
    return ", ".join(parts)


def cores_busy(r):
    """Client plus S3-server CPU seconds of a run over what the machine's cores
    could give in its wall time (1.0: every core busy the whole run)."""
    if r.get("wall") is None or r.get("server_cpu") is None:
        return None
    return (r["cpu"] + r["server_cpu"]) / (r["wall"] * (os.cpu_count() or 1))


def machine_facts():
    f = {}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                f["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    f["cores"] = os.cpu_count()
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                f["memory"] = f"{int(line.split()[1]) / 1048576:.1f} GiB"
    except OSError:
        pass
    f["kernel"] = platform.release()
    f["loadavg"] = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    return f


def pkg_versions(python):
    code = ("from importlib.metadata import version\n"
            "for p in ('zarr','zarrs','tensorstore','numcodecs','numpy','s3fs','obstore'):\n"
            "    try: print(p, version(p))\n"
            "    except Exception: print(p, 'not installed')\n")
    p = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return dict(line.split(" ", 1) for line in p.stdout.splitlines())


def command_line(args):
    """The options of this run, as bench/run.sh takes them (for the report)."""
    parts = ["bench/run.sh"] + (["--quick"] if args.quick else [])
    if args.shape_given:
        parts.append("--shape " + ",".join(map(str, args.shape_given)))
    parts += ["--scratch", args.scratch]
    for d in args.also_scratch or []:
        parts += ["--also-scratch", d]
    if args.only != ONLY_ALL:
        parts += ["--only", args.only]
    if args.codecs:
        parts += ["--codecs", args.codecs]
    if args.w5_rows:
        parts += ["--w5-rows", str(args.w5_rows)]
    if args.w5_codecs:
        parts += ["--w5-codecs", args.w5_codecs]
    if args.w5_places:
        parts += ["--w5-places", args.w5_places]
    if args.reps_given:
        parts += ["--reps", str(args.reps_given)]
    return " ".join(parts)


def limits_table(lims, places, preset):
    """The limits section: the file-system independent measurements once, then
    each place's (page cache, metadata, pipelines, durable writes), disk first."""
    lines = [f"## Machine limits (same run, {preset['limits_mib']} MiB buffers, pipelines on "
             f"{pipeline_mib(preset)} MiB; codecs on 4 MiB chunks of the W1 field, MiB/s of uncompressed data)",
             "", "| place | measurement | 1 thread | all cores |", "|---|---|---|---|"]

    def num(v, fmt):
        return v if isinstance(v, str) else fmt(v)

    for place in [None] + [pl["label"] for pl in places]:
        lim = lims.get(place) or {}
        names = []
        for (n, _t) in lim:
            if n not in names:
                names.append(n)
        where = place or "–"
        for n in names:
            one = lim.get((n, 1))
            many = [v for (m, t), v in lim.items() if m == n and t > 1]
            if n.startswith("ratio"):
                lines.append(f"| {where} | compressed size / raw, {n[6:]} | {one:.3f} | |")
            elif n.startswith("metadata"):
                ms = lambda v: f"{v * 1000:.0f} ms"
                objs = "three small files (the chunk too)" if n.endswith("chunk") else "two small files"
                lines.append(f"| {where} | {n}: mkdir + {objs} each (seconds) | {num(one, ms)} | "
                             f"{num(many[0], ms)} |" if many else f"| {where} | {n} | {num(one, ms)} | |")
            else:
                rate = lambda v: f"{v:.0f}"
                first = "–" if one is None else num(one, rate)
                lines.append(f"| {where} | {n} | {first} | {num(many[0], rate)} |" if many
                             else f"| {where} | {n} | {first} | |")
    return lines


def write_report(args, R, lims, places, facts_start, facts_end, versions, started, elapsed, preset):
    lines = []
    date = started.strftime("%Y-%m-%d %H:%M UTC")
    lines.append(f"# nczarr benchmark ({'quick' if args.quick else 'full'} preset), {date}")
    lines.append("")
    lines.append(f"Command: `{command_line(args)}` (took {elapsed:.0f} s). Places, the same for every library "
                 "and engine (the `place` column; disk rows first):")
    lines.append("")
    for pl in places:
        lines.append(f"- `{pl['label']}`: `{pl['dir']}` ({pl['fstype']} on `{pl['source']}`, mounted at "
                     f"`{pl['mount']}`)")
    if any(row.get("place") == "S3" for row in R.results):
        lines.append("- `S3`: radosgw on loopback (W3, and W4's S3 part)")
    lines.append("")
    lines.append(f"- machine: {facts_start.get('cpu', '?')}, {facts_start['cores']} cores, "
                 f"{facts_start.get('memory', '?')}, Linux {facts_start['kernel']}")
    lines.append(f"- load average (1/5/15 min): {' '.join(facts_start['loadavg'])} at start, "
                 f"{' '.join(facts_end['loadavg'])} at end (the machine is shared: other jobs ran beside this one)")
    lines.append(f"- ours: `{args.ours}` ({R.version('ours')}, git {git_rev()})")
    lines.append(f"- reference: `{args.reference}` ({R.version('netcdf-c')})")
    lines.append("- context: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    lines.append(f"- W1 shape {preset['shape']} float32 "
                 f"({preset['shape'][0] * preset['shape'][1] * preset['shape'][2] * 4 / 2**20:.0f} MiB), "
                 f"chunks {preset['chunks']}; {preset['nrandom']} random 1x16x16 reads; "
                 f"W2 {preset['nvars']} variables; W3 shape {preset['s3_shape']}; "
                 f"medians of {args.reps} runs, alternating ours / netcdf-c")
    lines.append("")
    lines.append("Each cell: wall / CPU (user+sys, all threads) / peak RSS MiB, medians. Ratios are "
                 "other ÷ ours (above 1: ours is faster). Reads of both libraries use the same store "
                 "(netcdf-c's when it could write one). `full` reads into a buffer the caller already "
                 "touched; `full-alloc` allocates it inside the timed part (first touch of fresh memory "
                 "costs 1.5–2.5 s/GiB on these VMs). zarrs = zarr-python with the zarrs codec pipeline, "
                 "on its own Zarr v2 store of the same values, chunks and codecs; tensorstore reads that "
                 "store and always allocates its result. Nobody syncs a plain write (ours by default, "
                 "netcdf-c, zarr-python, zarrs) but tensorstore, which fsyncs every file it writes: the "
                 "`write none, durable` row is ours with the mode key `durable` (nc_close flushes the "
                 "files it wrote and their directories), against tensorstore's writes (the same runs as "
                 "in the `write none` row, alternated with these) and the plain-C floor of a durable write "
                 "(write + fdatasync of each file, fsync of the directories) from the limits of that place.")
    if any(row["w"] == "W6" for row in R.results):
        w6p = W6[preset["w6"]]
        lines.append(f"W6: the W1 field of shape {w6p['shape']} (chunks {w6p['chunks']}) written by ours as one NCZarr "
                     f"dataset and as a CF-1.13 aggregation of NCZarr fragments of {w6p['frag']} (64), same codec; "
                     "`ours` is the aggregation's master read through it, the netcdf-c column the one dataset "
                     "(read by ours too), runs alternating. The open row counts what opening the master and "
                     "inquiring every variable does inside the fragments (file-system calls under strace; "
                     "requests on S3).")
        lines.append("")
    if any(row["w"] == "W3" for row in R.results):
        lines.append("")
        lines.append("W3: zarrs+s3fs and zarrs+obstore = zarr-python with the zarrs codec pipeline through "
                     "s3fs or obstore; zarr-python+obstore = zarr-python with its own codec pipeline through "
                     "`zarr.storage.ObjectStore` over obstore's S3Store. Each peer writes its own store; every "
                     "peer and the raw GETs read the first peer's. Engines alternate order every repetition; "
                     "requests are counted by the server.")
    if any(row["w"] == "W4" for row in R.results):
        lines.append("")
        lines.append(f"W4: the W1 array as Zarr v3 with sharding (`sharding_indexed`, shards {preset['w4_shards']}, "
                     f"inner chunks {preset['chunks']}, index at the end with crc32c), on each place and on the "
                     "S3 server (radosgw on loopback). Each engine writes its own store (timed); "
                     "every engine then reads the store ours wrote: ours with ncbench, zarrs = zarr-python with the "
                     "zarrs codec pipeline (on S3 through obstore), tensorstore with its `zarr3` driver (it always "
                     "allocates its result). netcdf-c runs once per case: it has no Zarr v3 (and the wheel's no S3), "
                     "and its status is shown. Engines alternate order every repetition. S3 requests are counted "
                     f"by the server; a ranged GET of exactly {w4_index_len(preset)} bytes (16 per inner chunk + "
                     "4 of crc32c) is a shard-index fetch, a GET of `zarr.json` a metadata one. `v3 unsharded vs "
                     "v2`: the same data, chunks and codec written by ours as Zarr v3 without shards (ours column) "
                     "and as v2, each twice (written v2 v3 v3 v2), the four stores read alternately (at least 5 "
                     "rounds); each format's median is over both of its copies. Where a v3 chunk's bytes equal the v2 copy's "
                     "chunk of the same index (uncompressed and zstd: every chunk), the v3 file is a hard link to "
                     "the v2 file, so both formats read the same pages and the ratio is the code's alone (copies "
                     "of the same data in different files were measured up to a quarter apart).")
    lines.append("")
    lines.append("| workload | place | case | ours | netcdf-c | zarrs | tensorstore | ratios vs targets |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for row in R.results:
        ctx = row["ctx"]
        extra = [f"{k}: {cell(v)}" for k, v in ctx.items() if k not in ("zarrs", "tensorstore")]
        lines.append(f"| {row['w']} | {row.get('place', '–')} | {row['case']} | {cell(row['ours'])} | "
                     f"{cell(row['ref'])} | "
                     f"{cell(ctx['zarrs']) if 'zarrs' in ctx else '–'} | "
                     f"{cell(ctx['tensorstore']) if 'tensorstore' in ctx else '–'} | "
                     f"{'; '.join(extra + [ratio_and_targets(row, limits_at(lims, row.get('place')))]).strip('; ')} |")
    lines.append("")
    if R.w5:
        lines += w5_report(R)
        lines.append("")
    if lims:
        lines += limits_table(lims, places, preset)
        lines.append("")
        lines.append("The W1 full-read limit is the best decoder's single-core time divided by 2 plus one "
                     "2-thread memcpy (none: one 2-thread page-cache read). `pipeline` is that read done the "
                     "plain way in C on a (MIB/4, 1024, 1024) array of W1's chunks: each thread opens the next "
                     "chunk file, reads it, decodes it with the best decoder and copies its rows into place "
                     "(none: preadv of the rows into place); `pipeline-mmap` maps the file instead of reading "
                     "it. It pays what the limit leaves out: reading the file and the decoder's output "
                     "leaving the cache. `write-pipeline` is the W1 write the same way (gather a chunk's rows, "
                     "encode, write a new file; none: writev of the rows) into a fresh directory. "
                     "`durable-write fdatasync none` is that uncompressed write made durable: fdatasync of each "
                     "file before its close, then fsync of the new directory and of its parent; "
                     "`durable-write O_DIRECT none` writes each chunk with O_DIRECT from an aligned buffer "
                     "(no page cache) and then fsyncs the two directories (O_DIRECT alone does not flush the "
                     "device's cache nor commit the file's allocation; on ext4 the directory fsync's journal "
                     "commit does both); `unsupported` where the file system refuses O_DIRECT.")
    return "\n".join(lines) + "\n"


def git_rev():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "?"


ONLY_ALL = "limits,W1,W2,W3,W4,context"


def parse_shape(text):
    """--shape D0,D1,D2: W1's array (the slab read takes rows 500:524 of D1, the
    random reads 16x16 boxes)."""
    try:
        shape = tuple(int(v) for v in text.split(","))
    except ValueError:
        shape = ()
    if len(shape) != 3 or shape[0] < 1 or shape[1] < 524 or shape[2] < 16:
        raise argparse.ArgumentTypeError(f"{text!r}: three integers D0,D1,D2 with D0 ≥ 1, D1 ≥ 524, D2 ≥ 16")
    return shape


def limits_json(lims):
    out = []
    for place, lim in lims.items():
        for (name, threads), v in lim.items():
            key = "status" if isinstance(v, str) else "secs" if name.startswith("metadata") else "mib_s"
            out.append({"place": place or "all", "name": name, "threads": threads, key: v})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the small preset (a few minutes: every place, and the S3 server start)")
    ap.add_argument("--shape", type=parse_shape, metavar="D0,D1,D2",
                    help="W1's (and W4's) array instead of the preset's, e.g. 64,1024,1024 (256 MiB)")
    ap.add_argument("--reps", type=int, help="repetitions per workload and library (default 3, quick 2)")
    ap.add_argument("--reference", default=default_reference(), help="the reference libnetcdf file")
    ap.add_argument("--ours", help="directory with our libnetcdf.so.22 (default: cargo build --release)")
    ap.add_argument("--scratch", default=default_disk_scratch(),
                    help="the first place where stores go (default: the ordinary disk, the first of /var/tmp, "
                         "/tmp and target/ not on a tmpfs; here %(default)s)")
    ap.add_argument("--also-scratch", action="append", metavar="DIR",
                    help="another place, measured in the same run (repeatable; default /dev/shm; "
                         "'none': the first place only)")
    ap.add_argument("--only", default=ONLY_ALL, help="comma list of parts to run (%(default)s; W4formats: only W4's v3-without-shards "
                    "against v2, on the local places)")
    ap.add_argument("--codecs", help="W1's codecs, a comma list of " + ",".join(CODECS) + " (default: all)")
    ap.add_argument("--no-s3-context", action="store_true",
                    help="W3 without the Python engines (the raw-GET rate is then taken on our store)")
    ap.add_argument("--s3-context", action="store_true",
                    help="W3 and W4 on S3 with the Python engines even in the quick preset")
    ap.add_argument("--s3-script", help="S3 server start/stop script (default scripts/s3-server.sh)")
    ap.add_argument("--python", default=sys.executable, help="Python with zarr, zarrs, tensorstore")
    ap.add_argument("--out", help="results file (default bench/results/<date>[-quick].md)")
    ap.add_argument("--build-only", action="store_true", help="compile the programs and stop")
    ap.add_argument("--w5-codecs", help="W5's codecs, a comma list of none,zlib,zstd (default: all)")
    ap.add_argument("--w5-places", help="W5's places: disk, or disk,S3 (the default)")
    ap.add_argument("--w5-rows", type=int, help="W5's rows of 4096 float32 (preset: 131072 = 2 GiB, quick 8192)")
    args = ap.parse_args()
    if args.also_scratch is None:
        args.also_scratch = ["/dev/shm"]
    if args.reference and not os.path.exists(args.reference):
        sys.exit(f"{args.reference}: not found")
    preset = dict(PRESETS["quick" if args.quick else "full"])
    args.shape_given = args.shape
    if args.shape:
        preset["shape"] = args.shape
    if args.codecs:
        preset["codecs"] = args.codecs.split(",")
        unknown = set(preset["codecs"]) - set(CODECS)
        if unknown:
            sys.exit(f"--codecs: unknown {', '.join(sorted(unknown))} (known: {', '.join(CODECS)})")
    if args.no_s3_context:
        preset["s3_context"] = False
    elif args.s3_context:
        preset["s3_context"] = True
    args.reps_given = args.reps
    args.reps = args.reps or preset["reps"]
    ncbench, limits_bin, refdir = build(args)
    if args.build_only:
        log(f"built {ncbench}" + (f" and {limits_bin}" if limits_bin else " (limits not built)"))
        return
    only = set(args.only.split(","))
    if not args.reference and only != {"W5"}:
        sys.exit("reference libnetcdf not found: pip install netCDF4 into the venv, or pass --reference")
    args.ours = os.path.abspath(args.ours)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.time()
    places = scratch_places(args)
    for pl in places:
        os.makedirs(pl["dir"])
        log(f"place {pl['label']}: {pl['dir']} ({pl['fstype']} on {pl['source']})")
    facts_start = machine_facts()
    R = Runner(args, ncbench, refdir, limits_bin)
    lims = {}  # place label (None: what no file system changes) -> {(name, threads): value}
    try:
        if "limits" in only:
            lims[None] = limits(R, limits_bin, preset, places[0]["dir"], "cpu")
        # Every local workload on each place, disk first; then the S3 ones.
        for pl in places:
            # W2 first: its creates meet no removals of the workloads before.
            if "W2" in only:
                at_place(R, pl["label"], w2, preset, os.path.join(pl["dir"], "w2"))
            if "limits" in only:
                lims[pl["label"]] = limits(R, limits_bin, preset, pl["dir"], "fs")
            if "W1" in only:
                at_place(R, pl["label"], w1, preset, pl["dir"], "context" in only)
            if "W4" in only:
                at_place(R, pl["label"], w4_dir, preset, pl["dir"], pl["label"])
            elif "W4formats" in only:
                for codec in preset["w4_codecs"]:
                    at_place(R, pl["label"], w4_formats, preset, pl["dir"], codec)
            if "W6agg" in only:
                at_place(R, pl["label"], w6_dir, preset, pl["dir"], pl["label"])
        if "W3" in only:
            w3(R, preset)
        if "W4" in only:
            w4_s3(R, preset)
        if "W5" in only:
            w5(R, preset, os.path.join(places[0]["dir"], "w5"))
        if "W6agg" in only:
            w6_s3(R, preset)
    finally:
        for pl in places:
            rm(pl["dir"])
    facts_end = machine_facts()
    versions = pkg_versions(args.python)
    text = write_report(args, R, lims, places, facts_start, facts_end, versions, started, time.time() - t0, preset)
    out = args.out or os.path.join(BENCH, "results",
                                   started.strftime("%Y-%m-%d") + ("-quick" if args.quick else "") + ".md")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"command": command_line(args), "facts_start": facts_start, "facts_end": facts_end,
                   "versions": versions, "preset": preset, "places": places, "limits": limits_json(lims),
                   "rows": R.results, "w5": R.w5}, f, indent=1)
    print(text)
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
