#!/usr/bin/env python3
"""Write szip-compressed NCZarr variables with netcdf-c 4.10.1 (the netCDF4
wheel, its szip plugin from netCDF4/plugins):

    HDF5_PLUGIN_PATH=$VENV/lib/python3.*/site-packages/netCDF4/plugins \\
        python3 testdata/szip_ref/gen.py testdata/szip_ref/szip.zarr

tests/correctness_api.rs reads them back with this library.
"""
import sys

import numpy as np
import netCDF4

path = sys.argv[1]
ds = netCDF4.Dataset("file://" + path + "#mode=nczarr,file", "w")
ds.createDimension("x", 30)
ds.createDimension("y", 50)
i = ds.createVariable("i", "i4", ("x", "y"), compression="szip", szip_coding="nn",
                      szip_pixels_per_block=8, chunksizes=(10, 50))
i[:] = (np.arange(1500) % 50 * 1000 + np.arange(1500) // 50).reshape(30, 50)
d = ds.createVariable("d", "f8", ("x", "y"), compression="szip", szip_coding="ec",
                      szip_pixels_per_block=32, chunksizes=(30, 50))
d[:] = (np.arange(1500) * 0.25).reshape(30, 50)
ds.close()
