"""Read with cfdm an aggregation this library wrote, and print its data.

Usage: cfdm_read_written.py MASTER VARIABLE

MASTER is a Zarr master (NCZarr directory) whose VARIABLE is a CF-1.13
aggregation variable with NCZarr fragments, written by
tests/aggregation_write.rs through the C API. cfdm reads the master and its
fragments through zarr-python. Printed: `cfdm VERSION`, `shape N M ...`,
then the values one a line (`repr` of a float, `--` for a masked one), and
last `coordinate NAME v1 v2 ...` for each dimension coordinate.
"""

import os
import sys
from pathlib import Path

import cfdm
import numpy as np


def main(master, name):
    master = Path(master).resolve()
    # cfdm 1.13.3 resolves relative fragment URIs against the working
    # directory (observed): run where the master is.
    os.chdir(master.parent)
    fields = cfdm.read(master.name)
    (f,) = [x for x in fields if x.nc_get_variable() == name]
    a = np.ma.asarray(f.data.array)
    print("cfdm", cfdm.__version__)
    print("shape", *a.shape)
    for v in a.ravel():
        print("--" if v is np.ma.masked else repr(float(v)))
    for key, c in f.dimension_coordinates().items():
        print("coordinate", c.nc_get_variable(), *[repr(float(x)) for x in c.data.array])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
