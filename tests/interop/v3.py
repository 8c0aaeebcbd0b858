#!/usr/bin/env python3
"""Zarr v3 interop: what zarr-python 3, xarray, tensorstore and zarrs write
reads through this library (our ncvals, and Debian's unchanged ncdump), and
what this library writes as v3 reads in zarr-python 3, xarray and
tensorstore with the same values; nccopy converts v2 -> v3 -> v2.

Run by tests/interop/run.sh after check.py:
    v3.py --bin DIR --lib DIR --work DIR
(--bin holds ncwrite and ncvals linked with our library, --lib our
libnetcdf.so*). One line per check (PASS / FAIL / SKIP name), then
`interop-v3: N passed, M failed, K skipped`; exit status 1 if anything failed.

Check families:
  zarr3->ours/DATASET      testdata/v3/generate.py's datasets (zarr-python 3,
                           xarray), written now, read by ncvals against their
                           expected.json
  zarr3->ncdump/DATASET    Debian's ncdump prints them (exit 0, every variable)
  zarr3->python3-netcdf4/DATASET  Debian's python3-netcdf4 reads their values
  tensorstore->ours, zarrs->ours   sharded arrays those libraries write
  ours->zarr3/MODE, ours->xarray/MODE, ours->tensorstore/MODE
                           ncwrite (ours) as v3, read back by each
  nccopy/v2->v3->v2        Debian's nccopy on our library, both ways
  nccopy/v2->sharded-v3->v2  the same with shards= (zarr-python 3 and
                           tensorstore read the sharded copy)
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import traceback
import warnings

import numpy as np

warnings.simplefilter("ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = {"pass": 0, "fail": 0, "skip": 0}
OPT = None


def check(name, fn, *args):
    try:
        fn(*args)
        print("PASS", name)
        RESULTS["pass"] += 1
    except Skip as e:
        print("SKIP", name + ":", e)
        RESULTS["skip"] += 1
    except Exception as e:  # noqa: BLE001 - every failure is reported
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print("FAIL", name + ":", msg[:300])
        if os.environ.get("NCZ_INTEROP_TRACE") == "1":
            traceback.print_exc()
        RESULTS["fail"] += 1


class Skip(Exception):
    pass


def env_ours():
    return dict(os.environ, LD_LIBRARY_PATH=OPT.lib, HOME=OPT.work, NCRCENV_IGNORE="1")


def run(argv, what):
    p = subprocess.run(argv, env=env_ours(), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"{what}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def url(path, mode):
    return "file://" + os.path.abspath(path) + "#mode=" + mode


def ncvals(u):
    """Our view of a dataset: {"/g/var": var entry of ncvals}."""
    doc = json.loads(run([os.path.join(OPT.bin, "ncvals"), u], "ncvals " + u))
    out = {}
    for gpath, g in doc["groups"].items():
        for name, v in g["variables"].items():
            out[(gpath.rstrip("/") + "/" + name)] = v
    return out


def num(x):
    """A number of expected.json or ncvals ("NaN", "Infinity", "-Infinity"
    included); other strings stay strings."""
    if isinstance(x, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(x, x)
    return x


def same_values(got, want, what):
    got, want = list(got), list(want)
    if len(got) != len(want):
        raise AssertionError(f"{what}: {len(got)} values, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, str) or isinstance(g, str):
            ok = g == w
        else:
            g, w = float(g), float(w)
            ok = (math.isnan(g) and math.isnan(w)) or g == w
        if not ok:
            raise AssertionError(f"{what}[{i}]: got {g!r}, expected {w!r}")


def values_of(v):
    """ncvals values as a flat list (char: the bytes)."""
    if v["type"] == "char":
        return list(v["values"].encode("utf-8"))
    if v["type"] == "string":
        return ["" if x is None else x for x in v["values"]]
    return [num(x) for x in v["values"]]


def flat(a):
    a = np.asarray(a)
    if a.dtype.kind in "OTU":
        return [str(x) for x in a.ravel().tolist()]
    if a.dtype.kind == "S":
        return [x.rstrip(b"\0").decode() for x in a.ravel().tolist()]
    return [float(x) if a.dtype.kind == "f" else int(x) for x in a.ravel().tolist()]


# ----- what others write, we read -----

def generate():
    gen = os.path.join(OPT.work, "gen")
    if os.path.isdir(gen):
        shutil.rmtree(gen)
    os.makedirs(gen)
    subprocess.run([sys.executable, os.path.join(ROOT, "testdata", "v3", "generate.py"), gen], check=True,
                   capture_output=True, timeout=600)
    return gen


TYPES = {1: "byte", 2: "char", 3: "short", 4: "int", 5: "float", 6: "double", 7: "ubyte", 8: "ushort",
         9: "uint", 10: "int64", 11: "uint64", 12: "string"}


def check_expected(u, expected_path):
    exp = json.load(open(expected_path))
    got = ncvals(u)
    for path, w in exp["vars"].items():
        v = got.get(path)
        if v is None:
            raise AssertionError(f"{path} missing")
        if v["type"] != TYPES[w["type"]]:
            raise AssertionError(f"{path}: type {v['type']}, expected {TYPES[w['type']]}")
        if v["shape"] != [d[1] for d in w["dims"]]:
            raise AssertionError(f"{path}: shape {v['shape']}")
        if v["dims"] != [d[0] for d in w["dims"]]:
            raise AssertionError(f"{path}: dims {v['dims']}")
        same_values(values_of(v), [num(x) for x in w["values"]], path)
    for h in exp["hidden"]:
        if h in got:
            raise AssertionError(f"{h} must be hidden")


def zarr3_to_ours(gen):
    for ds in ["zp3_defaults.zarr", "zp3_codecs.zarr", "zp3_shards.zarr", "xr3_defaults.zarr"]:
        d = os.path.join(gen, ds)
        check(f"zarr3->ours/{ds}", check_expected, url(d, "zarr,file"), os.path.join(d, "expected.json"))
        check(f"zarr3->ours/{ds}/plain-path", check_expected, d, os.path.join(d, "expected.json"))
        check(f"zarr3->ncdump/{ds}", debian_ncdump, d, os.path.join(d, "expected.json"))
        check(f"zarr3->python3-netcdf4/{ds}", debian_netcdf4, d, os.path.join(d, "expected.json"))
    z = os.path.join(gen, "zp3_defaults.zarr.zip")
    check("zarr3->ours/zip", check_expected, url(z, "zarr,zip"),
          os.path.join(gen, "zp3_defaults.zarr", "expected.json"))


def debian_ncdump(path, expected_path):
    ncdump = "/usr/bin/ncdump"
    if not os.path.exists(ncdump):
        raise Skip("no /usr/bin/ncdump (netcdf-bin)")
    out = run([ncdump, path], "ncdump " + path)
    for p in json.load(open(expected_path))["vars"]:
        name = p.rsplit("/", 1)[1]
        if f" {name}" not in out:
            raise AssertionError(f"ncdump does not show {p}")


def debian_netcdf4(path, expected_path):
    """Debian's python3-netcdf4 (its own Python, our library underneath)
    reads every expected variable with the expected raw values."""
    py = "/usr/bin/python3"
    probe = subprocess.run([py, "-c", "import netCDF4"], env=env_ours(), capture_output=True)
    if probe.returncode != 0:
        raise Skip("no python3-netcdf4 for /usr/bin/python3")
    prog = (
        "import json, sys, netCDF4\n"
        "ds = netCDF4.Dataset(sys.argv[1])\n"
        "ds.set_auto_maskandscale(False)\n"
        "out = {}\n"
        "for p in json.load(open(sys.argv[2]))['vars']:\n"
        "    g, name = p.rsplit('/', 1)\n"
        "    grp = ds[g] if g else ds\n"
        "    v = grp.variables[name][...]\n"
        "    out[p] = [x if isinstance(x, str) else float(x) for x in v.ravel().tolist()]\n"
        "print(json.dumps(out))\n"
    )
    got = json.loads(run([py, "-c", prog, url(path, "zarr,file"), expected_path], "python3-netcdf4"))
    for p, w in json.load(open(expected_path))["vars"].items():
        same_values(got[p], [num(x) for x in w["values"]], p)


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def tensorstore_to_ours():
    if not have("tensorstore"):
        raise Skip("tensorstore is not installed (bench/install-deps.sh installs it)")
    import tensorstore as ts
    d = os.path.join(OPT.work, "ts_sharded.zarr")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "zarr.json"), "w") as f:
        json.dump({"zarr_format": 3, "node_type": "group", "attributes": {}}, f)
    vals = (np.arange(11 * 13 * 5, dtype="f4").reshape(11, 13, 5) / 3)
    specs = {
        "end": {"index_location": "end"},
        "start": {"index_location": "start"},
    }
    for name, extra in specs.items():
        codec = {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 4, 5],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "zstd", "configuration": {"level": 3}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            **extra}}
        arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": os.path.join(d, name)},
                       "metadata": {"shape": [11, 13, 5], "data_type": "float32",
                                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 8, 5]}},
                                    "codecs": [codec], "fill_value": -1.0,
                                    "dimension_names": ["z", "y", "x"]},
                       "create": True, "delete_existing": True}).result()
        arr.write(vals).result()
    # Only part of a third array: missing inner chunks and shards read as fill.
    arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": os.path.join(d, "sparse")},
                   "metadata": {"shape": [11, 13, 5], "data_type": "float32",
                                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 8, 5]}},
                                "codecs": [{"name": "sharding_indexed", "configuration": {
                                    "chunk_shape": [2, 4, 5], "codecs": [{"name": "bytes"}]}}],
                                "fill_value": -1.0},
                   "create": True, "delete_existing": True}).result()
    arr[1:3, 5:6, :].write(vals[1:3, 5:6, :]).result()
    got = ncvals(url(d, "zarr,file"))
    for name in specs:
        same_values(values_of(got["/" + name]), flat(vals), name)
        if got["/" + name]["dims"] != ["z", "y", "x"]:
            raise AssertionError(f"{name}: dims {got['/' + name]['dims']}")
    sparse = np.full(vals.shape, -1.0, "f4")
    sparse[1:3, 5:6, :] = vals[1:3, 5:6, :]
    same_values(values_of(got["/sparse"]), flat(sparse), "sparse")


def zarrs_to_ours():
    if not have("zarrs"):
        raise Skip("zarrs (zarrs-python) is not installed (bench/install-deps.sh installs it)")
    import zarr
    d = os.path.join(OPT.work, "zarrs_sharded.zarr")
    shutil.rmtree(d, ignore_errors=True)
    vals = np.arange(20 * 30, dtype="i8").reshape(20, 30) - 300
    with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
        g = zarr.open_group(d, mode="w")
        a = g.create_array("a", shape=(20, 30), shards=(8, 16), chunks=(4, 4), dtype="i8", fill_value=0,
                           dimension_names=["r", "c"])
        a[:] = vals
    got = ncvals(url(d, "zarr,file"))
    same_values(values_of(got["/a"]), flat(vals), "a")


# ----- what we write, others read -----

def write_ours(mode):
    d = os.path.join(OPT.work, "ours_" + mode.replace(",", "_") + ".zarr")
    shutil.rmtree(d, ignore_errors=True)
    run([os.path.join(OPT.bin, "ncwrite"), url(d, mode)], "ncwrite")
    return d


def ours_to_zarr3(mode):
    import zarr
    d = write_ours(mode)
    mine = ncvals(url(d, mode))
    g = zarr.open_group(d, mode="r", zarr_format=3)
    seen = 0
    for path, v in mine.items():
        a = g[path.lstrip("/")]
        if list(a.shape) != v["shape"]:
            raise AssertionError(f"{path}: shape {a.shape}")
        names = list(a.metadata.dimension_names or [])
        if names != v["dims"]:
            raise AssertionError(f"{path}: dimension_names {names}, expected {v['dims']}")
        same_values(flat(a[...]), values_of(v), path)
        seen += 1
    if seen < 10:
        raise AssertionError(f"only {seen} arrays")


def ours_to_xarray(mode):
    import xarray as xr
    d = write_ours(mode)
    mine = ncvals(url(d, mode))
    for gpath in sorted({p.rsplit("/", 1)[0] for p in mine}):
        ds = xr.open_zarr(d, group=gpath.lstrip("/") or None, consolidated="consolidated" in mode,
                          mask_and_scale=False, decode_times=False, zarr_format=3)
        for path, v in mine.items():
            if path.rsplit("/", 1)[0] != gpath:
                continue
            x = ds[path.rsplit("/", 1)[1]]
            if list(x.dims) != v["dims"]:
                raise AssertionError(f"{path}: dims {x.dims}")
            same_values(flat(x.values), values_of(v), path)


def ours_to_tensorstore(mode):
    if not have("tensorstore"):
        raise Skip("tensorstore is not installed (bench/install-deps.sh installs it)")
    import tensorstore as ts
    d = write_ours(mode)
    mine = ncvals(url(d, mode))
    for path, v in mine.items():
        if v["type"] == "string":
            continue  # tensorstore has no variable-length strings
        arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": d + path}}).result()
        same_values(flat(arr.read().result()), values_of(v), path)


def nccopy_round_trip():
    nccopy = "/usr/bin/nccopy"
    if not os.path.exists(nccopy):
        raise Skip("no /usr/bin/nccopy (netcdf-bin)")
    v2 = write_ours("nczarr,file")
    v3 = os.path.join(OPT.work, "copied_v3.zarr")
    back = os.path.join(OPT.work, "copied_back.zarr")
    for p in (v3, back):
        shutil.rmtree(p, ignore_errors=True)
    run([nccopy, url(v2, "nczarr,file"), url(v3, "nczarr,v3,file")], "nccopy v2 -> v3")
    if not os.path.exists(os.path.join(v3, "zarr.json")) or os.path.exists(os.path.join(v3, ".zgroup")):
        raise AssertionError("nccopy did not write v3")
    run([nccopy, url(v3, "nczarr,file"), url(back, "nczarr,v2,file")], "nccopy v3 -> v2")
    a, b, c = ncvals(url(v2, "nczarr,file")), ncvals(url(v3, "nczarr,file")), ncvals(url(back, "nczarr,file"))
    for other, what in [(b, "v3"), (c, "back in v2")]:
        if sorted(other) != sorted(a):
            raise AssertionError(f"{what}: variables {sorted(other)}")
        for p, v in a.items():
            w = other[p]
            # (nccopy picks its own chunk sizes, in v2 as in v3.)
            for k in ("type", "dims", "shape", "codecs"):
                if v.get(k) != w.get(k):
                    raise AssertionError(f"{what} {p}: {k} {w.get(k)!r}, expected {v.get(k)!r}")
            # (A NULL string has no v3 form: it reads back as "".)
            same_values(values_of(w), values_of(v), f"{what} {p}")
    # The v3 copy reads in zarr-python too.
    import zarr
    g = zarr.open_group(v3, mode="r", zarr_format=3)
    same_values(flat(g["temp"][...]), values_of(a["/temp"]), "zarr-python reads the v3 copy")


def nccopy_sharded():
    """nccopy v2 -> v3 with the shards= mode key: sharded arrays that
    zarr-python 3 and tensorstore read with our values; and back to v2."""
    nccopy = "/usr/bin/nccopy"
    if not os.path.exists(nccopy):
        raise Skip("no /usr/bin/nccopy (netcdf-bin)")
    v2 = write_ours("nczarr,file")
    v3 = os.path.join(OPT.work, "sharded_v3.zarr")
    back = os.path.join(OPT.work, "sharded_back.zarr")
    for p in (v3, back):
        shutil.rmtree(p, ignore_errors=True)
    run([nccopy, url(v2, "nczarr,file"), url(v3, "nczarr,v3,shards=200,file")], "nccopy v2 -> sharded v3")
    meta = json.load(open(os.path.join(v3, "temp", "zarr.json")))
    if meta["codecs"][0]["name"] != "sharding_indexed":
        raise AssertionError("temp is not sharded: " + json.dumps(meta["codecs"]))
    mine = ncvals(url(v2, "nczarr,file"))
    import zarr
    g = zarr.open_group(v3, mode="r", zarr_format=3)
    for path, v in mine.items():
        same_values(flat(g[path.lstrip("/")][...]), values_of(v), "zarr-python " + path)
    if have("tensorstore"):
        import tensorstore as ts
        for path, v in mine.items():
            if v["type"] != "string":
                arr = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": v3 + path}}).result()
                same_values(flat(arr.read().result()), values_of(v), "tensorstore " + path)
    run([nccopy, url(v3, "nczarr,file"), url(back, "nczarr,v2,file")], "nccopy sharded v3 -> v2")
    again = ncvals(url(back, "nczarr,file"))
    for path, v in mine.items():
        same_values(values_of(again[path]), values_of(v), "back in v2 " + path)


def main():
    global OPT
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    OPT = ap.parse_args()
    os.makedirs(OPT.work, exist_ok=True)
    gen = None
    try:
        gen = generate()
        print("PASS setup/generate")
        RESULTS["pass"] += 1
    except Exception as e:  # noqa: BLE001
        print("FAIL setup/generate:", e)
        RESULTS["fail"] += 1
    if gen:
        zarr3_to_ours(gen)
    check("tensorstore->ours/sharded", tensorstore_to_ours)
    check("zarrs->ours/sharded", zarrs_to_ours)
    for mode in ["nczarr,v3,file", "zarr,v3,file", "zarr,v3,consolidated,file"]:
        check(f"ours->zarr3/{mode}", ours_to_zarr3, mode)
        check(f"ours->xarray/{mode}", ours_to_xarray, mode)
        check(f"ours->tensorstore/{mode}", ours_to_tensorstore, mode)
    check("nccopy/v2->v3->v2", nccopy_round_trip)
    check("nccopy/v2->sharded-v3->v2", nccopy_sharded)
    print(f"interop-v3: {RESULTS['pass']} passed, {RESULTS['fail']} failed, {RESULTS['skip']} skipped")
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
