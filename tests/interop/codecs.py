"""Codec interop: compressed data moves both ways between this library and
netCDF4-python (netcdf-c 4.10.1 with the wheel's plugins) and zarr-python.
Decoded values are compared, never compressed bytes.

usage: codecs.py --bin DIR --lib DIR --work DIR
  DIR/nccodecs (linked with this library) writes and reads the datasets.
Prints one PASS/FAIL line per check and exits non-zero on any failure.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import numcodecs
import zarr
import netCDF4

NY, NX = 20, 30
FAILS = []


def ok(name, cond, detail=""):
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else ": " + detail))
    if not cond:
        FAILS.append(name)


def expected(dtype):
    k = np.arange(NY * NX).reshape(NY, NX)
    if np.dtype(dtype).kind == "f":
        return (k * 0.25).astype(dtype)
    return (k * 7 - 900).astype(dtype)


def ours_read(opt, url):
    env = dict(os.environ, LD_LIBRARY_PATH=opt.lib)
    p = subprocess.run([os.path.join(opt.bin, "nccodecs"), "read", url], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    out = {}
    for line in p.stdout.splitlines():
        f = line.split()
        out[f[0]] = (int(f[1]), np.array([float(x) for x in f[2:]]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    opt = ap.parse_args()
    plugins = os.path.join(os.path.dirname(netCDF4.__file__), "plugins")
    env = dict(os.environ, LD_LIBRARY_PATH=opt.lib)

    # 1. Ours -> netCDF4-python and zarr-python.
    a = os.path.join(opt.work, "codecs_ours.zarr")
    shutil.rmtree(a, ignore_errors=True)
    url = "file://" + a + "#mode=nczarr,file"
    p = subprocess.run([os.path.join(opt.bin, "nccodecs"), "write", url], env=env, capture_output=True, text=True)
    ok("ours writes every codec", p.returncode == 0, p.stderr)
    # Codecs netcdf-c has plugins for (the others exist only in numcodecs).
    nc_readable = {"deflate0", "deflate9", "shuffle_deflate", "fletcher_shuffle_deflate", "int_shuffle_zstd",
                   "zstd_neg5", "zstd22", "bzip2_9", "blosc_blosclz", "blosc_lz4", "blosc_lz4hc",
                   "blosc_zlib", "blosc_zstd", "fletcher32"}
    ds = netCDF4.Dataset(url)
    for name, v in ds.variables.items():
        if name in nc_readable:
            got = v[:]
            ok(f"netCDF4-python reads ours: {name}", np.array_equal(np.asarray(got), expected(v.dtype)),
               str(got[:1]))
    ds.close()
    g = zarr.open_group(a, mode="r", zarr_format=2)
    for name, arr in g.arrays():
        got = arr[:]
        ok(f"zarr-python reads ours: {name}", np.array_equal(got, expected(arr.dtype)), str(got[:1, :4]))

    # 2. zarr-python -> ours, every numcodecs codec.
    b = os.path.join(opt.work, "codecs_zarr.zarr")
    shutil.rmtree(b, ignore_errors=True)
    g = zarr.open_group(b, mode="w", zarr_format=2)
    cases = {
        "zlib": ("<f8", None, numcodecs.Zlib(level=3)),
        "gzip": ("<f4", None, numcodecs.GZip(level=6)),
        "bz2": ("<i4", None, numcodecs.BZ2(level=5)),
        "zstd": ("<f8", None, numcodecs.Zstd(level=5)),
        "zstd_neg": ("<i8", None, numcodecs.Zstd(level=-3)),
        "zstd_checksum": ("<f4", None, numcodecs.Zstd(level=2, checksum=True)),
        "lz4": ("<f8", None, numcodecs.LZ4(acceleration=2)),
        "blosc_auto": ("<f8", None, numcodecs.Blosc(cname="zstd", clevel=3, shuffle=-1)),
        "blosc_bit_u1": ("|u1", None, numcodecs.Blosc(cname="lz4hc", clevel=5, shuffle=2)),
        "blosc_zlib_block": ("<i2", None, numcodecs.Blosc(cname="zlib", clevel=4, shuffle=1, blocksize=128)),
        "blosc_blosclz": (">f4", None, numcodecs.Blosc(cname="blosclz", clevel=9, shuffle=0)),
        "shuffle4_of_f8": ("<f8", [numcodecs.Shuffle(elementsize=4)], numcodecs.Zlib(level=1)),
        "delta": ("<i4", [numcodecs.Delta(dtype="<i4", astype="<i2")], numcodecs.Zlib(level=1)),
        "delta_f8": ("<f8", [numcodecs.Delta(dtype="<f8")], None),
        "crc32": ("<f4", [numcodecs.CRC32()], numcodecs.Zstd(level=1)),
        "adler32": ("<i4", [numcodecs.Adler32()], None),
        "crc32c_end": ("<f8", [numcodecs.CRC32C()], numcodecs.BZ2(level=1)),
        "fletcher32": ("<f4", [numcodecs.Fletcher32()], numcodecs.Zlib(level=9)),
        "three": ("<f8", [numcodecs.Shuffle(elementsize=8), numcodecs.Fletcher32()], numcodecs.Zstd(level=1)),
    }
    for name, (dt, filters, comp) in cases.items():
        arr = g.create_array(name, shape=(NY, NX), chunks=(8, 16), dtype=dt, filters=filters,
                             compressors=comp, fill_value=0)
        arr[:] = expected(dt)
        arr.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    got = ours_read(opt, "file://" + b + "#mode=zarr,file")
    for name, (dt, _, _) in cases.items():
        st, vals = got.get(name, (None, None))
        ok(f"ours reads zarr-python: {name}", st == 0 and np.array_equal(vals, expected(dt).ravel().astype("f8")),
           f"status {st}")

    # 3. netCDF4-python (netcdf-c 4.10.1 + plugins) -> ours.
    c = os.path.join(opt.work, "codecs_nc4.zarr")
    shutil.rmtree(c, ignore_errors=True)
    curl = "file://" + c + "#mode=nczarr,file"
    ds = netCDF4.Dataset(curl, "w")
    ds.createDimension("y", NY)
    ds.createDimension("x", NX)
    nc4 = {
        "zlib_shuffle": dict(compression="zlib", complevel=4, shuffle=True),
        "zlib_fletcher": dict(compression="zlib", complevel=2, shuffle=False, fletcher32=True),
        "zstd": dict(compression="zstd", complevel=4, shuffle=False),
        "bzip2": dict(compression="bzip2", complevel=6, shuffle=False),
        "blosc_lz4": dict(compression="blosc_lz4", complevel=5, shuffle=True),
        "blosc_zstd": dict(compression="blosc_zstd", complevel=2, shuffle=False),
    }
    for name, kw in nc4.items():
        for dt in ("f4", "i4"):
            v = ds.createVariable(f"{name}_{dt}", dt, ("y", "x"), chunksizes=(8, 16), **kw)
            v[:] = expected(dt)
    ds.close()
    got = ours_read(opt, curl)
    for name in nc4:
        for dt in ("f4", "i4"):
            st, vals = got.get(f"{name}_{dt}", (None, None))
            ok(f"ours reads netCDF4-python: {name}_{dt}",
               st == 0 and np.array_equal(vals, expected(dt).ravel().astype("f8")), f"status {st}")

    # 4. A corrupt compressed chunk is NC_EFILTER (-132), never a crash.
    for var in ("deflate9", "zstd22", "blosc_lz4", "bzip2_9", "lz4", "fletcher32"):
        d = os.path.join(opt.work, "codecs_corrupt.zarr")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(a, d)
        chunk = os.path.join(d, var, "0.0")
        data = bytearray(open(chunk, "rb").read())
        for i in range(4, len(data), 7):
            data[i] ^= 0x5A
        open(chunk, "wb").write(bytes(data))
        got = ours_read(opt, "file://" + d + "#mode=nczarr,file")
        ok(f"corrupt chunk of {var} is NC_EFILTER", got[var][0] == -132, f"status {got[var][0]}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    os.environ.setdefault("HDF5_PLUGIN_PATH", os.path.join(os.path.dirname(netCDF4.__file__), "plugins"))
    sys.exit(main())
