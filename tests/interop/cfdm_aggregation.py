"""Write a CF-1.13 aggregation with cfdm and print cfdm's own reading of it.

Usage: cfdm_aggregation.py DIR

In DIR: two netCDF-4 fragment files written by cfdm (air temperature over
time 0..2 and 2..5, latitude 4), and master.nc, the aggregation cfdm
writes of the two concatenated (`cfa` with relative URIs). Then the
master is read back with cfdm and its data printed, one value a line
(`repr` of a float32, `--` for a masked value), after a line
`shape N M`. tests/aggregation_netcdf.rs compares these with what this
library reads from the same master.
"""

import os
import sys
from pathlib import Path

import cfdm
import numpy as np


def field(t0, n):
    f = cfdm.Field(properties={"standard_name": "air_temperature", "units": "K"})
    T = f.set_construct(cfdm.DomainAxis(n))
    Y = f.set_construct(cfdm.DomainAxis(4))
    vals = np.arange(t0 * 4, (t0 + n) * 4, dtype="f4").reshape(n, 4) * 1.5 + 200.25
    if t0 == 2:
        vals = np.ma.masked_array(vals, mask=np.zeros(vals.shape, bool))
        vals[1, 2] = np.ma.masked
    f.set_data(cfdm.Data(vals), axes=[T, Y])
    t = cfdm.DimensionCoordinate(
        properties={"standard_name": "time", "units": "days since 2000-01-01"},
        data=cfdm.Data(np.arange(t0, t0 + n, dtype="f8")),
    )
    f.set_construct(t, axes=[T])
    y = cfdm.DimensionCoordinate(
        properties={"standard_name": "latitude", "units": "degrees_north"},
        data=cfdm.Data([10.0, 20.0, 30.0, 40.0]),
    )
    f.set_construct(y, axes=[Y])
    f.nc_set_variable("tas")
    return f


def main(d):
    d = Path(d).resolve()
    # cfdm 1.13.3 writes fragment URIs relative to the master's directory
    # (as CF-1.13 says) but, reading, resolves them against the working
    # directory (observed): run where the master is.
    os.chdir(d)
    frags = [d / "frag0.nc", d / "frag1.nc"]
    cfdm.write(field(0, 2), str(frags[0]))
    cfdm.write(field(2, 3), str(frags[1]))
    fs = [cfdm.read(str(p), cfa_write="field")[0] for p in frags]
    axis = fs[0].get_data_axes().index(fs[0].domain_axis("time", key=True))
    g = cfdm.Field.concatenate(fs, axis=axis)
    master = d / "master.nc"
    cfdm.write(g, str(master), cfa={"constructs": "field", "uri": "relative"})
    back = cfdm.read(str(master))
    (tas,) = [f for f in back if f.nc_get_variable() == "tas"]
    a = np.ma.masked_invalid(np.ma.asarray(tas.data.array))
    print("cfdm", cfdm.__version__)
    print("shape", *a.shape)
    for v in a.ravel():
        print("--" if v is np.ma.masked else repr(np.float32(v).item()))


if __name__ == "__main__":
    main(sys.argv[1])
