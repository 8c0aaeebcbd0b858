#!/usr/bin/env python3
"""Write quantized variables with netcdf-c 4.10.1 (the libnetcdf in the
netCDF4 wheel) through several write patterns and record the stored bits.

    python3 testdata/quantize/gen_reference.py > testdata/quantize/reference.json

tests/correctness_api.rs makes the same writes with this library and
compares every stored value bit for bit. netCDF4-python turns v[i] = x into
nc_put_vara (count 1) and v[a:b:s] = xs into nc_put_vars.
"""
import json
import os
import sys
import tempfile

import numpy as np
import netCDF4

VALUES = [-99.123456, 1.2345678, 3.14159265, 0.0, 0.00777, 12345.6789,
          -0.5, 2.7182818, 100.001, 42.42]
N = len(VALUES)
MODES = [("BitGroom", 3), ("GranularBitRound", 3), ("BitRound", 10)]
TYPES = [("f4", np.float32, np.uint32), ("f8", np.float64, np.uint64)]
# (name, [(kind, args)]) - each pattern writes a fresh variable.
PATTERNS = [
    ("whole", [("slab", (0, N, 1), VALUES)]),
    ("var1_at_1", [("one", 1, -99.0)]),
    ("var1_at_4", [("one", 4, 3.3333)]),
    ("var1_each", [("one", i, v) for i, v in enumerate(VALUES)]),
    ("strided_1_3", [("slab", (1, 10, 3), [VALUES[1], VALUES[4], VALUES[7]])]),
    ("slab_5_4", [("slab", (5, 9, 1), VALUES[5:9])]),
]


def main():
    out = {"values": VALUES, "cases": []}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.zarr")
        url = "file://" + path + "#mode=nczarr,file"
        ds = netCDF4.Dataset(url, "w")
        ds.createDimension("n", N)
        names = []
        for mode, nsd in MODES:
            for tname, nptype, _ in TYPES:
                for pname, writes in PATTERNS:
                    name = f"{mode}_{tname}_{pname}"
                    v = ds.createVariable(name, tname, ("n",), significant_digits=nsd,
                                          quantize_mode=mode, chunksizes=(N,))
                    for kind, where, vals in writes:
                        if kind == "one":
                            v[where] = nptype(vals)
                        else:
                            a, b, s = where
                            v[a:b:s] = np.array(vals, dtype=nptype)
                    names.append((name, mode, nsd, tname, pname))
        ds.close()
        ds = netCDF4.Dataset(url, "r")
        for name, mode, nsd, tname, pname in names:
            v = ds[name]
            v.set_auto_maskandscale(False)
            raw = np.asarray(v[:])
            utype = np.uint32 if tname == "f4" else np.uint64
            bits = [f"{int(b):#x}" for b in raw.view(utype)]
            out["cases"].append({"var": name, "mode": mode, "nsd": nsd, "type": tname,
                                 "pattern": pname, "bits": bits})
        ds.close()
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
