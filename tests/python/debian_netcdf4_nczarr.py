"""Debian's python3-netcdf4 (1.6.2, built for libnetcdf.so.19) writing and
reading NCZarr through this library.

Run with Debian's /usr/bin/python3 and this library's directory first on
LD_LIBRARY_PATH (scripts/run-python-debian.sh does both). Checks first that
the process really loaded this library, then: dimensions (one unlimited),
variables of several types, attributes, nested groups, NC_STRING variables
and attributes, fill values (default and explicit, masked on read),
chunking, filter introspection (var.filters()), appending along the
unlimited dimension after reopening, and renames.

Usage: python3 debian_netcdf4_nczarr.py <scratch directory>
"""
import os
import sys

import numpy as np
import netCDF4


def fail(msg):
    print(f"debian_netcdf4_nczarr: FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def loaded_libnetcdf():
    with open("/proc/self/maps") as f:
        for line in f:
            if "libnetcdf.so" in line:
                return line.split()[-1]
    return None


def main():
    scratch = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    os.makedirs(scratch, exist_ok=True)
    libvers = netCDF4.getlibversion()
    where = loaded_libnetcdf()
    print(f"netCDF4 {netCDF4.__version__}, library '{libvers}' from {where}")
    check("nczarr" in libvers, f"not this library: {libvers!r}")
    libdir = os.environ.get("LD_LIBRARY_PATH", "").split(":")[0]
    if libdir:
        check(where is not None and os.path.dirname(os.path.realpath(where)) == os.path.realpath(libdir),
              f"libnetcdf loaded from {where}, not from {libdir}")

    path = os.path.join(scratch, "py.zarr")
    url = f"file://{path}#mode=nczarr,file"

    # --- write ---
    with netCDF4.Dataset(url, "w", format="NETCDF4") as ds:
        ds.title = "python3-netcdf4 on NCZarr"
        ds.version = np.int32(3)
        ds.setncattr_string("tags", ["a", "bc"])
        ds.createDimension("time", None)
        ds.createDimension("x", 6)
        t = ds.createVariable("t", "f8", ("time", "x"), chunksizes=(2, 3), fill_value=-99.5)
        t.units = "K"
        t.factor = np.float32(0.125)
        t[0:2, :] = np.arange(12, dtype="f8").reshape(2, 6) + 0.5
        i = ds.createVariable("i", "i2", ("x",))  # default fill value
        i[0:3] = [1, -2, 3]
        u = ds.createVariable("u", "u8", ("x",))
        u[:] = np.arange(6, dtype="u8") * 10**15
        g = ds.createGroup("sub")
        g2 = g.createGroup("deeper")
        s = g.createVariable("s", str, ("x",))
        s[0] = "hello"
        s[1] = "wörld"
        s[2] = ""
        b = g2.createVariable("b", "i1", ("x",))
        b[:] = np.array([-128, -1, 0, 1, 2, 127], dtype="i1")
        g2.note = "in a nested group"

    # --- reopen, append along the unlimited dimension ---
    # Mode "a" must be given the plain directory: netCDF4-python 1.6.2 decides
    # between open and create with os.path.exists(), which is False for a
    # URL, so "a" on a URL would create (and clobber) the dataset. A plain
    # path to a Zarr directory opens as Zarr in this library.
    with netCDF4.Dataset(path, "a") as ds:
        t = ds["t"]
        check(t.shape == (2, 6), f"t.shape {t.shape}")
        t[2, :] = np.full(6, 7.25)
        ds.renameVariable("u", "big")

    # --- read and verify ---
    with netCDF4.Dataset(url, "r") as ds:
        check(ds.data_model == "NETCDF4", f"data_model {ds.data_model}")
        check(ds.title == "python3-netcdf4 on NCZarr", "title")
        check(ds.version == 3, "version attribute")
        check(list(ds.tags) == ["a", "bc"], f"string attribute {ds.tags!r}")
        check(len(ds.dimensions["time"]) == 3 and ds.dimensions["time"].isunlimited(), "time dimension")
        t = ds["t"]
        check(t.units == "K" and t.factor == np.float32(0.125), "t attributes")
        check(t.chunking() == [2, 3], f"t chunking {t.chunking()}")
        check(t._FillValue == -99.5, "t fill value")
        filters = t.filters()
        check(not filters.get("zlib") and not filters.get("shuffle") and not filters.get("fletcher32"),
              f"t.filters() {filters}")
        expect = np.vstack([np.arange(12, dtype="f8").reshape(2, 6) + 0.5, np.full((1, 6), 7.25)])
        check(np.array_equal(t[:], expect), f"t values {t[:]}")
        i = ds["i"][:]
        check(list(i[:3]) == [1, -2, 3], f"i values {i}")
        check(np.ma.is_masked(i[3]) and i.mask[3:].all(), "i default fill is masked")
        check(ds["i"].filters().get("zlib") is False, "i.filters()")
        big = ds["big"][:]
        check(big.dtype == np.uint64 and int(big[5]) == 5 * 10**15, f"big {big}")
        check("u" not in ds.variables, "rename")
        g = ds.groups["sub"]
        s = g["s"][:]
        check(list(s[:3]) == ["hello", "wörld", ""], f"strings {s}")
        g2 = g.groups["deeper"]
        check(g2.note == "in a nested group", "nested group attribute")
        check(list(g2["b"][:]) == [-128, -1, 0, 1, 2, 127], "byte values")
        check(g2.path == "/sub/deeper", f"group path {g2.path}")

    # a netCDF-4 file in the same process goes to the system libnetcdf
    # (delegation), while the Zarr dataset stays open beside it
    nc_path = os.path.join(scratch, "beside.nc")
    with netCDF4.Dataset(nc_path, "w", format="NETCDF4") as nc:
        nc.createDimension("x", 3)
        v = nc.createVariable("v", "i4", ("x",), zlib=True)
        v[:] = [4, 5, 6]
        nc.title = "hdf5 beside zarr"
        nc.createGroup("g").createVariable("s", str, ("x",))[:] = np.array(["a", "bb", "ccc"], dtype=object)
    with netCDF4.Dataset(url, "r") as zds, netCDF4.Dataset(nc_path, "r") as nc:
        check(nc.data_model == "NETCDF4", f"delegated data model {nc.data_model}")
        check(list(nc["v"][:]) == [4, 5, 6], "delegated values")
        check(nc["v"].filters().get("zlib") is True, "delegated filters")
        check(nc.title == "hdf5 beside zarr", "delegated attribute")
        check(list(nc.groups["g"]["s"][:]) == ["a", "bb", "ccc"], "delegated group strings")
        check("t" in zds.variables, "the Zarr dataset beside it")
    with netCDF4.Dataset(os.path.join(scratch, "classic.nc"), "w", format="NETCDF3_CLASSIC") as nc:
        nc.createDimension("n", 2)
        nc.createVariable("h", "i2", ("n",))[:] = [7, 8]
    with netCDF4.Dataset(os.path.join(scratch, "classic.nc")) as nc:
        check(nc.file_format == "NETCDF3_CLASSIC" and list(nc["h"][:]) == [7, 8], "delegated classic file")

    # errors come back as exceptions with netcdf-c's messages
    try:
        netCDF4.Dataset(f"file://{scratch}/missing.zarr#mode=nczarr,file", "r")
        fail("opening a missing dataset succeeded")
    except OSError:
        pass
    print("debian_netcdf4_nczarr: OK")


if __name__ == "__main__":
    main()
