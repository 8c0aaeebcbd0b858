"""Print cfdm's reading of one variable of an aggregation master.

Usage: cfdm_read.py MASTER VARIABLE

Prints `cfdm <version>`, `shape N...`, then each value on a line: a
float32's `repr`, `--` for a masked value.
tests/aggregation_cfdm.rs compares these with what this library reads
from the same master (masters and fragments it writes by hand).
"""

import os
import sys

import cfdm
import numpy as np


def main(master, name):
    master = os.path.abspath(master)
    # cfdm 1.13.3 resolves relative fragment URIs against the working
    # directory (observed): run where the master is.
    os.chdir(os.path.dirname(master))
    fields = cfdm.read(master)
    (f,) = [f for f in fields if f.nc_get_variable() == name]
    a = np.ma.asarray(f.data.array)
    print("cfdm", cfdm.__version__)
    print("shape", *a.shape)
    for v in a.ravel():
        if v is np.ma.masked:
            print("--")
        else:
            print(repr(np.float32(v).item()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
