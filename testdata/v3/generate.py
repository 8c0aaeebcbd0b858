#!/usr/bin/env python3
"""Write the Zarr v3 test datasets of testdata/v3/ with zarr-python 3 and
xarray, and beside each its expected.json: what the netCDF view of it must
hold (tests/zarr_v3.rs reads both).

    $HOME/.cache/nczarr-venv/bin/python testdata/v3/generate.py [OUTDIR]

Written by zarr-python 3.1.6, numcodecs 0.16.6, xarray 2026.9.0, numpy 2.
Data are arange-based and deterministic. expected.json:
    {"vars": {"/g/name": {"type": NC_TYPE, "dims": [[name, len], ...],
                           "values": [flattened, C order; "NaN" for NaN]}},
     "hidden": ["/name", ...],          # arrays the library must not show
     "atts": {"/g/name or /g/": {att: value}}}
"""
import json
import os
import shutil
import sys
import warnings
import zipfile

import numpy as np
import zarr
import zarr.codecs as zc

warnings.simplefilter("ignore")

NC = {"i1": 1, "S1c": 2, "i2": 3, "i4": 4, "f4": 5, "f8": 6, "u1": 7, "u2": 8, "u4": 9,
      "i8": 10, "u8": 11, "str": 12, "b1": 7}


def nctype(dt):
    dt = np.dtype(dt) if not isinstance(dt, str) else dt
    if dt == "str" or getattr(dt, "kind", "") in "OTSU":
        return 12
    return NC[dt.kind + str(dt.itemsize)] if dt.kind != "b" else 7


def flat(a):
    out = []
    for x in np.asarray(a).ravel().tolist():
        if isinstance(x, float) and x != x:
            out.append("NaN")
        elif isinstance(x, float) and x in (float("inf"), float("-inf")):
            out.append("Infinity" if x > 0 else "-Infinity")
        elif isinstance(x, bytes):
            out.append(x.rstrip(b"\0").decode())
        elif isinstance(x, bool):
            out.append(int(x))
        else:
            out.append(x)
    return out


class Expect:
    def __init__(self):
        self.vars, self.hidden, self.atts = {}, [], {}

    def var(self, path, arr, dims, values):
        self.vars[path] = {"type": nctype(arr.dtype if arr.dtype != object else "str"),
                           "dims": dims, "values": flat(values)}

    def save(self, d):
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump({"vars": self.vars, "hidden": self.hidden, "atts": self.atts}, f, indent=1,
                      sort_keys=True)
            f.write("\n")


def anon(shape):
    return [["_Anonymous_Dim_%d" % n, n] for n in shape]


def defaults(out):
    """zarr-python defaults: zstd, dimension_names, strings, fills, missing
    chunks, partial edge chunks, a scalar, groups, unsupported types."""
    d = os.path.join(out, "zp3_defaults.zarr")
    e = Expect()
    g = zarr.open_group(d, mode="w", attributes={"title": "defaults", "count": 3,
                                                  "ratios": [0.5, 1.5], "names": ["a", "b"]})
    e.atts["/"] = {"title": "defaults", "count": 3, "ratios": [0.5, 1.5], "names": ["a", "b"]}
    a = g.create_array("i32", shape=(5, 7), chunks=(2, 3), dtype="i4", fill_value=-1,
                       dimension_names=["y", "x"], attributes={"units": "m"})
    full = np.full((5, 7), -1, "i4")
    full[:3, :] = np.arange(21).reshape(3, 7)
    a[:3, :] = full[:3, :]
    e.var("/i32", a, [["y", 5], ["x", 7]], full)
    e.atts["/i32"] = {"units": "m"}
    for name, dt, fill in [("i8", "i1", -5), ("u8", "u1", 200), ("i16", "i2", 0), ("u16", "u2", 7),
                           ("u32", "u4", 1), ("i64", "i8", -2**40), ("u64", "u8", 2**40),
                           ("f32", "f4", 0.25), ("f64", "f8", -1.5)]:
        x = g.create_array(name, shape=(7,), chunks=(3,), dtype=dt, fill_value=fill,
                           dimension_names=["x"])
        v = np.full((7,), fill, dt)
        v[:4] = np.arange(4, dtype=dt) + 1
        x[:4] = v[:4]
        e.var("/" + name, x, [["x", 7]], v)
    b = g.create_array("flags", shape=(6,), dtype="bool", fill_value=True)
    b[:3] = [False, True, False]
    e.var("/flags", b, anon([6]), [0, 1, 0, 1, 1, 1])
    n = g.create_array("fnan", shape=(10,), chunks=(4,), dtype="f4", fill_value=np.nan)
    n[:3] = [1, 2, 3]
    e.var("/fnan", n, anon([10]), [1, 2, 3] + [float("nan")] * 7)
    inf = g.create_array("finf", shape=(3,), dtype="f8", fill_value=float("-inf"))
    e.var("/finf", inf, anon([3]), [float("-inf")] * 3)
    s = g.create_array("str", shape=(4,), dtype=str, dimension_names=["s"])
    s[:] = ["a", "bb", "ccc", "été"]
    e.var("/str", s, [["s", 4]], ["a", "bb", "ccc", "été"])
    sc = g.create_array("scalar", shape=(), dtype="i2", fill_value=0)
    sc[...] = 42
    e.var("/scalar", sc, [], [42])
    em = g.create_array("empty", shape=(2, 3), dtype="f8", fill_value=5.5)
    e.var("/empty", em, anon([2, 3]), [5.5] * 6)
    for name, dt in [("half", "f2"), ("cplx", "c8"), ("when", "M8[s]")]:
        g.create_array(name, shape=(2,), dtype=dt)
        e.hidden.append("/" + name)
    g1 = g.create_group("g1", attributes={"kind": "group one"})
    e.atts["/g1/"] = {"kind": "group one"}
    a1 = g1.create_array("a", shape=(2, 3), dtype="f8", dimension_names=["gy", "gx"])
    a1[:] = np.arange(6).reshape(2, 3) / 4
    e.var("/g1/a", a1, [["gy", 2], ["gx", 3]], np.arange(6) / 4)
    g2 = g1.create_group("g2")
    b2 = g2.create_array("b", shape=(3,), dtype="u2", dimension_names=["gx"], fill_value=9)
    b2[1:] = [1, 2]
    e.var("/g1/g2/b", b2, [["gx", 3]], [9, 1, 2])
    zarr.consolidate_metadata(d)
    e.save(d)
    # The same dataset as a zip archive (keys at the archive's root).
    zp = os.path.join(out, "zp3_defaults.zarr.zip")
    with zipfile.ZipFile(zp, "w", zipfile.ZIP_STORED) as z:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f == "expected.json":
                    continue
                p = os.path.join(root, f)
                z.write(p, os.path.relpath(p, d))


def codecs(out):
    """Every codec of the v3 pipeline, and the chunk key encodings."""
    d = os.path.join(out, "zp3_codecs.zarr")
    e = Expect()
    g = zarr.open_group(d, mode="w")
    v = np.arange(24, dtype="i4").reshape(4, 6)
    cases = {
        "gzip": dict(compressors=zc.GzipCodec(level=5)),
        "zstd9": dict(compressors=zc.ZstdCodec(level=9, checksum=True)),
        "blosc_lz4": dict(compressors=zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")),
        "blosc_bit": dict(compressors=zc.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")),
        "blosc_none": dict(compressors=zc.BloscCodec(cname="zlib", clevel=1, shuffle="noshuffle")),
        "crc32c": dict(compressors=[zc.ZstdCodec(level=1), zc.Crc32cCodec()]),
        "nocodec": dict(compressors=None),
        "big": dict(compressors=None, serializer=zc.BytesCodec(endian="big")),
        "transpose": dict(filters=[zc.TransposeCodec(order=(1, 0))], compressors=zc.GzipCodec(level=1)),
        "nc_zlib": dict(compressors=zarr.codecs.numcodecs.Zlib(level=2)),
        "nc_shuffle_zstd": dict(compressors=[zarr.codecs.numcodecs.Shuffle(elementsize=4), zc.ZstdCodec(level=3)]),
        "nc_lz4": dict(compressors=zarr.codecs.numcodecs.LZ4()),
        "nc_bz2": dict(compressors=zarr.codecs.numcodecs.BZ2(level=3)),
        "nc_delta": dict(filters=[zarr.codecs.numcodecs.Delta(dtype="i4")], compressors=None),
        "nc_fletcher": dict(compressors=zarr.codecs.numcodecs.Fletcher32()),
        "keys_v2": dict(compressors=None, chunk_key_encoding={"name": "v2", "separator": "."}),
        "keys_dot": dict(compressors=None, chunk_key_encoding={"name": "default", "separator": "."}),
    }
    for name, kw in cases.items():
        a = g.create_array(name, shape=(4, 6), chunks=(3, 4), dtype="i4", fill_value=0, **kw)
        a[:] = v
        e.var("/" + name, a, anon([4, 6]), v)
    t3 = g.create_array("transpose3", shape=(3, 4, 5), chunks=(2, 3, 4), dtype="f4",
                        filters=[zc.TransposeCodec(order=(2, 0, 1))])
    w = np.arange(60, dtype="f4").reshape(3, 4, 5) / 8
    t3[:] = w
    e.var("/transpose3", t3, anon([3, 4, 5]), w)
    e.save(d)


def shards(out):
    """sharding_indexed: index at the end and at the start, with and without
    crc32c, inner codecs of every kind, partial last shards, missing inner
    chunks and shards."""
    d = os.path.join(out, "zp3_shards.zarr")
    e = Expect()
    g = zarr.open_group(d, mode="w")

    def sharded(name, shape, shards, chunks, dt, fill, write, **kw):
        a = g.create_array(name, shape=shape, shards=shards, chunks=chunks, dtype=dt,
                           fill_value=fill, **kw)
        full = np.full(shape, fill, dt)
        for sl in write:
            part = (np.arange(int(np.prod(full[sl].shape))).reshape(full[sl].shape) + 1).astype(dt)
            full[sl] = part
            a[sl] = part
        e.var("/" + name, a, anon(shape), full)

    sharded("default", (10, 10), (4, 10), (2, 5), "i2", 7, [np.s_[:3, :]])
    sharded("whole", (8, 8), (4, 4), (2, 2), "f8", 0.0, [np.s_[:, :]])
    sharded("partial", (9, 7), (4, 4), (2, 2), "i4", -9, [np.s_[:, :]])
    sharded("sparse", (16,), (8,), (2,), "u1", 3, [np.s_[2:4], np.s_[13:14]])
    sharded("absent", (6, 6), (3, 3), (1, 3), "i8", 5, [])
    ix = dict(index_location="start")
    a = g.create_array("start", shape=(6, 4), shards=(6, 4), chunks=(3, 2), dtype="u4", fill_value=1)
    a[:] = np.arange(24, dtype="u4").reshape(6, 4)
    e.var("/start", a, anon([6, 4]), np.arange(24).reshape(6, 4))
    # Custom sharding codecs: index at the start, no crc32c, inner gzip,
    # blosc and transpose.
    for name, inner, index, loc in [
        ("start_nocrc", [zc.BytesCodec(), zc.GzipCodec(level=2)], [zc.BytesCodec()], "start"),
        ("blosc_inner", [zc.BytesCodec(), zc.BloscCodec(cname="lz4")], [zc.BytesCodec(), zc.Crc32cCodec()], "end"),
        ("transposed_inner", [zc.TransposeCodec(order=(1, 0)), zc.BytesCodec(endian="big")],
         [zc.BytesCodec(endian="big"), zc.Crc32cCodec()], "end"),
    ]:
        codec = zc.ShardingCodec(chunk_shape=(2, 3), codecs=inner, index_codecs=index, index_location=loc)
        arr = g.create_array(name, shape=(5, 9), chunks=(4, 6), serializer=codec, compressors=None,
                             dtype="i4", fill_value=-3)
        vals = np.arange(45, dtype="i4").reshape(5, 9)
        arr[:] = vals
        e.var("/" + name, arr, anon([5, 9]), vals)
    t = g.create_array("cube", shape=(5, 6, 7), shards=(4, 6, 4), chunks=(2, 3, 2), dtype="f4",
                       fill_value=np.nan)
    vals = np.arange(210, dtype="f4").reshape(5, 6, 7) / 2
    t[:] = vals
    e.var("/cube", t, anon([5, 6, 7]), vals)
    e.save(d)


def xarray_defaults(out):
    """xarray to_zarr defaults (v3, consolidated): CF time coordinates,
    string coordinates, _FillValue, scale_factor/add_offset."""
    import pandas as pd
    import xarray as xr
    d = os.path.join(out, "xr3_defaults.zarr")
    e = Expect()
    temp = (np.arange(12, dtype="f8").reshape(3, 4) / 10 + 270)
    temp[1, 2] = np.nan
    ds = xr.Dataset(
        {"temp": (("time", "station"), temp, {"units": "K"}),
         "code": (("station",), np.array(["ab", "c", "déf", "g"]))},
        coords={"time": pd.date_range("2000-01-01", periods=3, freq="D"),
                "station": [10, 20, 30, 40]},
        attrs={"title": "xarray defaults"})
    ds["temp"].encoding.update({"scale_factor": 0.01, "add_offset": 270.0, "dtype": "i2",
                                "_FillValue": -999})
    ds.to_zarr(d, mode="w")
    e.atts["/"] = {"title": "xarray defaults"}
    packed = np.round((temp - 270.0) / 0.01)
    packed = np.where(np.isnan(packed), -999, packed).astype("i2")
    e.vars["/temp"] = {"type": 3, "dims": [["time", 3], ["station", 4]], "values": flat(packed)}
    e.atts["/temp"] = {"units": "K", "scale_factor": 0.01, "add_offset": 270.0, "_FillValue": -999}
    e.vars["/time"] = {"type": 10, "dims": [["time", 3]], "values": [0, 1, 2]}
    e.atts["/time"] = {"units": "days since 2000-01-01 00:00:00", "calendar": "proleptic_gregorian"}
    e.vars["/station"] = {"type": 10, "dims": [["station", 4]], "values": [10, 20, 30, 40]}
    e.vars["/code"] = {"type": 12, "dims": [["station", 4]], "values": ["ab", "c", "déf", "g"]}
    e.save(d)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name in ["zp3_defaults.zarr", "zp3_defaults.zarr.zip", "zp3_codecs.zarr", "zp3_shards.zarr",
                 "xr3_defaults.zarr"]:
        p = os.path.join(out, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    defaults(out)
    codecs(out)
    shards(out)
    xarray_defaults(out)


if __name__ == "__main__":
    main()
