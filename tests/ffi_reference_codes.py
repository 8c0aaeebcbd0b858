#!/usr/bin/env python3
"""The codes netcdf-c 4.10.1 answers for the calls tests/ffi_boundary.rs,
tests/ffi_abi_boundary.rs and tests/ffi_names.rs make: bad ids, NULL
arguments and over-long names, each call made through ctypes.

    python3 tests/ffi_reference_codes.py [LIBNETCDF] > codes.txt

LIBNETCDF defaults to the netCDF4 wheel's libnetcdf in the venv of
scripts/install-deps.sh. Each call of the reference runs in a forked child
(netcdf-c crashes on some NULLs: SIG11 is printed), so a call's effects do
not carry into the next one (long-256 del_att finds nothing to delete).
With NCZ_IN_PROCESS=1 the calls run in this process instead, as this
library needs (its worker threads make a fork mid-run unsafe); run it with
delegation off:

    NCZ_IN_PROCESS=1 NCZARR_SYSTEM_NETCDF=none \
        python3 tests/ffi_reference_codes.py target/release/libnetcdf.so > ours.txt
    diff codes.txt ours.txt
"""
import ctypes as C
import glob
import os
import shutil
import sys
import tempfile

venv = os.environ.get("NCZ_VENV", os.path.expanduser("~/.cache/nczarr-venv"))
LIB = sys.argv[1] if len(sys.argv) > 1 else (glob.glob(venv + "/lib/python3*/site-packages/netcdf4.libs/libnetcdf-*.so*") or ["libnetcdf.so"])[0]
lib = C.CDLL(LIB)
tmp = tempfile.mkdtemp()
N = None
name = b"x"


def fl(x):
    return C.c_float(x)


def run(section, label, f):
    """Print the call's result; in a child process unless NCZ_IN_PROCESS."""
    if os.environ.get("NCZ_IN_PROCESS"):
        print(section, label, f())
        sys.stdout.flush()
        return
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            rc = f()
        except Exception:
            rc = "EXC"
        os.write(w, str(rc).encode())
        os._exit(0)
    os.close(w)
    data = os.read(r, 100).decode()
    os.close(r)
    _, st = os.waitpid(pid, 0)
    print(section, label, data if data else ("SIG%d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "?"))
    sys.stdout.flush()


def create(nm):
    url = ("file://%s/%s#mode=nczarr,file" % (tmp, nm)).encode()
    ncid = C.c_int()
    assert lib.nc_create(url, 0x1000, C.byref(ncid)) == 0
    return url, ncid.value


# ----- bad ids: -1, slot 0, a free slot, a bad group index of an open dataset
_, GOOD = create("bad.zarr")
def bad_id_calls(id):
    return [
     ("nc_close",lambda id:lib.nc_close(id)),
     ("nc_abort",lambda id:lib.nc_abort(id)),
     ("nc_sync",lambda id:lib.nc_sync(id)),
     ("nc_redef",lambda id:lib.nc_redef(id)),
     ("nc_enddef",lambda id:lib.nc_enddef(id)),
     ("nc__enddef",lambda id:lib.nc__enddef(id,C.c_size_t(0),C.c_size_t(0),C.c_size_t(0),C.c_size_t(0))),
     ("nc_inq",lambda id:lib.nc_inq(id,N,N,N,N)),
     ("nc_inq_ndims",lambda id:lib.nc_inq_ndims(id,N)),
     ("nc_inq_nvars",lambda id:lib.nc_inq_nvars(id,N)),
     ("nc_inq_natts",lambda id:lib.nc_inq_natts(id,N)),
     ("nc_inq_unlimdim",lambda id:lib.nc_inq_unlimdim(id,N)),
     ("nc_inq_unlimdims",lambda id:lib.nc_inq_unlimdims(id,N,N)),
     ("nc_inq_format",lambda id:lib.nc_inq_format(id,N)),
     ("nc_inq_format_extended",lambda id:lib.nc_inq_format_extended(id,N,N)),
     ("nc_inq_path",lambda id:lib.nc_inq_path(id,N,N)),
     ("nc_set_fill",lambda id:lib.nc_set_fill(id,0,N)),
     ("nc_set_var_chunk_cache",lambda id:lib.nc_set_var_chunk_cache(id,0,C.c_size_t(1),C.c_size_t(1),fl(0.5))),
     ("nc_get_var_chunk_cache",lambda id:lib.nc_get_var_chunk_cache(id,0,N,N,N)),
     ("nc_def_dim",lambda id:lib.nc_def_dim(id,name,C.c_size_t(1),N)),
     ("nc_inq_dimid",lambda id:lib.nc_inq_dimid(id,name,N)),
     ("nc_inq_dim",lambda id:lib.nc_inq_dim(id,0,N,N)),
     ("nc_inq_dimname",lambda id:lib.nc_inq_dimname(id,0,N)),
     ("nc_inq_dimlen",lambda id:lib.nc_inq_dimlen(id,0,N)),
     ("nc_rename_dim",lambda id:lib.nc_rename_dim(id,0,name)),
     ("nc_def_grp",lambda id:lib.nc_def_grp(id,name,N)),
     ("nc_rename_grp",lambda id:lib.nc_rename_grp(id,name)),
     ("nc_inq_grps",lambda id:lib.nc_inq_grps(id,N,N)),
     ("nc_inq_grpname",lambda id:lib.nc_inq_grpname(id,N)),
     ("nc_inq_grpname_full",lambda id:lib.nc_inq_grpname_full(id,N,N)),
     ("nc_inq_grpname_len",lambda id:lib.nc_inq_grpname_len(id,N)),
     ("nc_inq_grp_parent",lambda id:lib.nc_inq_grp_parent(id,N)),
     ("nc_inq_grp_ncid",lambda id:lib.nc_inq_grp_ncid(id,name,N)),
     ("nc_inq_ncid",lambda id:lib.nc_inq_ncid(id,name,N)),
     ("nc_inq_grp_full_ncid",lambda id:lib.nc_inq_grp_full_ncid(id,name,N)),
     ("nc_inq_varids",lambda id:lib.nc_inq_varids(id,N,N)),
     ("nc_inq_dimids",lambda id:lib.nc_inq_dimids(id,N,N,1)),
     ("nc_inq_typeids",lambda id:lib.nc_inq_typeids(id,N,N)),
     ("nc_inq_typeid",lambda id:lib.nc_inq_typeid(id,name,N)),
     ("nc_inq_user_type",lambda id:lib.nc_inq_user_type(id,32,N,N,N,N,N)),
     ("nc_def_var",lambda id:lib.nc_def_var(id,name,4,0,N,N)),
     ("nc_inq_var",lambda id:lib.nc_inq_var(id,0,N,N,N,N,N)),
     ("nc_inq_varid",lambda id:lib.nc_inq_varid(id,name,N)),
     ("nc_inq_varname",lambda id:lib.nc_inq_varname(id,0,N)),
     ("nc_inq_vartype",lambda id:lib.nc_inq_vartype(id,0,N)),
     ("nc_inq_varndims",lambda id:lib.nc_inq_varndims(id,0,N)),
     ("nc_inq_vardimid",lambda id:lib.nc_inq_vardimid(id,0,N)),
     ("nc_inq_varnatts",lambda id:lib.nc_inq_varnatts(id,0,N)),
     ("nc_rename_var",lambda id:lib.nc_rename_var(id,0,name)),
     ("nc_def_var_chunking",lambda id:lib.nc_def_var_chunking(id,0,0,N)),
     ("nc_inq_var_chunking",lambda id:lib.nc_inq_var_chunking(id,0,N,N)),
     ("nc_def_var_fill",lambda id:lib.nc_def_var_fill(id,0,0,N)),
     ("nc_inq_var_fill",lambda id:lib.nc_inq_var_fill(id,0,N,N)),
     ("nc_def_var_endian",lambda id:lib.nc_def_var_endian(id,0,1)),
     ("nc_inq_var_endian",lambda id:lib.nc_inq_var_endian(id,0,N)),
     ("nc_def_var_deflate",lambda id:lib.nc_def_var_deflate(id,0,1,1,1)),
     ("nc_inq_var_deflate",lambda id:lib.nc_inq_var_deflate(id,0,N,N,N)),
     ("nc_def_var_fletcher32",lambda id:lib.nc_def_var_fletcher32(id,0,1)),
     ("nc_inq_var_fletcher32",lambda id:lib.nc_inq_var_fletcher32(id,0,N)),
     ("nc_inq_var_filter_ids",lambda id:lib.nc_inq_var_filter_ids(id,0,N,N)),
     ("nc_inq_var_filter_info",lambda id:lib.nc_inq_var_filter_info(id,0,1,N,N)),
     ("nc_def_var_filter",lambda id:lib.nc_def_var_filter(id,0,1,C.c_size_t(0),N)),
     ("nc_inq_var_filter",lambda id:lib.nc_inq_var_filter(id,0,N,N,N)),
     ("nc_inq_filter_avail",lambda id:lib.nc_inq_filter_avail(id,1)),
     ("nc_def_var_szip",lambda id:lib.nc_def_var_szip(id,0,4,8)),
     ("nc_inq_var_szip",lambda id:lib.nc_inq_var_szip(id,0,N,N)),
     ("nc_def_var_quantize",lambda id:lib.nc_def_var_quantize(id,0,1,3)),
     ("nc_inq_var_quantize",lambda id:lib.nc_inq_var_quantize(id,0,N,N)),
     ("nc_def_var_zstandard",lambda id:lib.nc_def_var_zstandard(id,0,1)),
     ("nc_inq_var_zstandard",lambda id:lib.nc_inq_var_zstandard(id,0,N,N)),
     ("nc_def_var_bzip2",lambda id:lib.nc_def_var_bzip2(id,0,1)),
     ("nc_inq_var_bzip2",lambda id:lib.nc_inq_var_bzip2(id,0,N,N)),
     ("nc_def_var_blosc",lambda id:lib.nc_def_var_blosc(id,0,1,5,0,1)),
     ("nc_inq_var_blosc",lambda id:lib.nc_inq_var_blosc(id,0,N,N,N,N,N)),
     ("nc_put_att_int",lambda id:lib.nc_put_att_int(id,-1,name,4,C.c_size_t(1),N)),
     ("nc_get_att_int",lambda id:lib.nc_get_att_int(id,-1,name,N)),
     ("nc_put_att_text",lambda id:lib.nc_put_att_text(id,-1,name,C.c_size_t(0),N)),
     ("nc_get_att_text",lambda id:lib.nc_get_att_text(id,-1,name,N)),
     ("nc_put_att_string",lambda id:lib.nc_put_att_string(id,-1,name,C.c_size_t(0),N)),
     ("nc_get_att_string",lambda id:lib.nc_get_att_string(id,-1,name,N)),
     ("nc_put_att",lambda id:lib.nc_put_att(id,-1,name,4,C.c_size_t(0),N)),
     ("nc_get_att",lambda id:lib.nc_get_att(id,-1,name,N)),
     ("nc_inq_att",lambda id:lib.nc_inq_att(id,-1,name,N,N)),
     ("nc_inq_atttype",lambda id:lib.nc_inq_atttype(id,-1,name,N)),
     ("nc_inq_attlen",lambda id:lib.nc_inq_attlen(id,-1,name,N)),
     ("nc_inq_attid",lambda id:lib.nc_inq_attid(id,-1,name,N)),
     ("nc_inq_attname",lambda id:lib.nc_inq_attname(id,-1,0,N)),
     ("nc_rename_att",lambda id:lib.nc_rename_att(id,-1,name,name)),
     ("nc_del_att",lambda id:lib.nc_del_att(id,-1,name)),
     ("nc_copy_att",lambda id:lib.nc_copy_att(id,-1,name,id,-1)),
     ("nc_put_var",lambda id:lib.nc_put_var(id,0,N)),
     ("nc_get_var",lambda id:lib.nc_get_var(id,0,N)),
     ("nc_put_vara_double",lambda id:lib.nc_put_vara_double(id,0,N,N,N)),
     ("nc_get_vara_double",lambda id:lib.nc_get_vara_double(id,0,N,N,N)),
     ("nc_get_varm_string",lambda id:lib.nc_get_varm_string(id,0,N,N,N,N,N)),
     # client-abi file extras
     ("nc_set_var_chunk_cache_ints",lambda id:lib.nc_set_var_chunk_cache_ints(id,0,1,1,1)),
     ("nc_get_var_chunk_cache_ints",lambda id:lib.nc_get_var_chunk_cache_ints(id,0,N,N,N)),
     ("nc_def_var_chunking_ints",lambda id:lib.nc_def_var_chunking_ints(id,0,0,N)),
     ("nc_inq_var_chunking_ints",lambda id:lib.nc_inq_var_chunking_ints(id,0,N,N)),
     ("nc_var_par_access",lambda id:lib.nc_var_par_access(id,0,0)),
     ("nc_set_base_pe",lambda id:lib.nc_set_base_pe(id,0)),
     ("nc_inq_base_pe",lambda id:lib.nc_inq_base_pe(id,N)),
     ("nc_show_metadata",lambda id:lib.nc_show_metadata(id)),
     ("nc_close_memio",lambda id:lib.nc_close_memio(id,N)),
     ("nc_inq_rec",lambda id:lib.nc_inq_rec(id,N,N,N)),
     ("nc_get_rec",lambda id:lib.nc_get_rec(id,C.c_size_t(0),N)),
     ("nc_put_rec",lambda id:lib.nc_put_rec(id,C.c_size_t(0),N)),
     ("ncaux_type_alignment",lambda id:lib.ncaux_type_alignment(40,id,N)),
     ("ncaux_inq_any_type",lambda id:lib.ncaux_inq_any_type(id,40,N,N,N,N,N)),
     ("nc_copy_data",lambda id:lib.nc_copy_data(id,99,N,C.c_size_t(1),N)),
     ("nc_dump_data",lambda id:lib.nc_dump_data(id,4,N,C.c_size_t(1),N)),
     ("nc_inq_type",lambda id:lib.nc_inq_type(id,4,N,N)),
     ("nc_reclaim_data",lambda id:lib.nc_reclaim_data(id,4,N,C.c_size_t(0))),
     ("nc_inq_type_equal",lambda id:lib.nc_inq_type_equal(id,4,id,4,N)),
     ("nc_def_compound",lambda id:lib.nc_def_compound(id,C.c_size_t(8),name,N)),
     ("nc_inq_compound",lambda id:lib.nc_inq_compound(id,32,N,N,N)),
     ("nc_def_vlen",lambda id:lib.nc_def_vlen(id,name,4,N)),
     ("nc_inq_vlen",lambda id:lib.nc_inq_vlen(id,32,N,N,N)),
     ("nc_def_enum",lambda id:lib.nc_def_enum(id,4,name,N)),
     ("nc_inq_enum",lambda id:lib.nc_inq_enum(id,32,N,N,N,N)),
     ("nc_def_opaque",lambda id:lib.nc_def_opaque(id,C.c_size_t(4),name,N)),
     ("nc_inq_opaque",lambda id:lib.nc_inq_opaque(id,32,N,N)),
    ]


for label, id in [("m1", -1), ("zero", 0), ("slot", 0x7FFF << 16), ("grp", GOOD | 0x7FFF)]:
    for call, f in bad_id_calls(id):
        run("badid-" + label, call, lambda f=f, id=id: f(id))

# ----- NULL arguments on a real dataset
url, n = create("null.zarr")
o = C.c_int()
sz = C.c_size_t()
d = C.c_int(); v = C.c_int(); g = C.c_int()
assert lib.nc_def_dim(n, b"d", C.c_size_t(3), C.byref(d)) == 0
assert lib.nc_def_var(n, b"v", 4, 1, C.byref(d), C.byref(v)) == 0
assert lib.nc_def_grp(n, b"g", C.byref(g)) == 0
one = C.c_int(1)
assert lib.nc_put_att_int(n, -1, b"a", 4, C.c_size_t(1), C.byref(one)) == 0
vv = v.value
dd = d.value
calls=[
 ("nc_create_nullncidp", lambda: lib.nc_create(url.replace(b"null.zarr", b"null2.zarr"),0x1000,None)),
 ("nc_open_nullpath", lambda: lib.nc_open(None,0,C.byref(o))),
 ("nc_open_nullncidp", lambda: lib.nc_open(url,0,None)),
 ("nc_inq_all_null", lambda: lib.nc_inq(n,N,N,N,N)),
 ("nc_inq_format_extended_null", lambda: lib.nc_inq_format_extended(n,N,N)),
 ("nc_inq_path_null", lambda: lib.nc_inq_path(n,N,N)),
 ("nc_def_dim_nullname", lambda: lib.nc_def_dim(n,N,C.c_size_t(3),N)),
 ("nc_def_var_nullname", lambda: lib.nc_def_var(n,N,4,1,C.byref(d),N)),
 ("nc_def_var_nulldims", lambda: lib.nc_def_var(n,b"w",4,1,N,N)),
 ("nc_def_var_negndims", lambda: lib.nc_def_var(n,b"w",4,-1,C.byref(d),N)),
 ("nc_def_var_chunking_nullsizes", lambda: lib.nc_def_var_chunking(n,vv,0,N)),
 ("nc_put_att_int_nullname", lambda: lib.nc_put_att_int(n,vv,N,4,C.c_size_t(1),C.byref(one))),
 ("nc_put_att_int_nullvalue", lambda: lib.nc_put_att_int(n,vv,b"b",4,C.c_size_t(2),N)),
 ("nc_put_att_int_badvar", lambda: lib.nc_put_att_int(n,99,b"b",4,C.c_size_t(1),C.byref(one))),
 ("nc_inq_varid_nullname", lambda: lib.nc_inq_varid(n,N,N)),
 ("nc_inq_dimid_nullname", lambda: lib.nc_inq_dimid(n,N,N)),
 ("nc_inq_attid_nullname", lambda: lib.nc_inq_attid(n,-1,N,N)),
 ("nc_inq_att_nullname", lambda: lib.nc_inq_att(n,-1,N,N,N)),
 ("nc_inq_atttype_nullname", lambda: lib.nc_inq_atttype(n,-1,N,N)),
 ("nc_inq_attlen_nullname", lambda: lib.nc_inq_attlen(n,-1,N,N)),
 ("nc_get_att_nullname", lambda: lib.nc_get_att(n,-1,N,N)),
 ("nc_get_att_int_nullvalue", lambda: lib.nc_get_att_int(n,-1,b"a",N)),
 ("nc_del_att_nullname", lambda: lib.nc_del_att(n,-1,N)),
 ("nc_rename_att_nullname", lambda: lib.nc_rename_att(n,-1,N,b"q")),
 ("nc_rename_att_nullnew", lambda: lib.nc_rename_att(n,-1,b"a",N)),
 ("nc_rename_var_null", lambda: lib.nc_rename_var(n,vv,N)),
 ("nc_rename_dim_null", lambda: lib.nc_rename_dim(n,dd,N)),
 ("nc_rename_grp_null", lambda: lib.nc_rename_grp(g.value,N)),
 ("nc_def_grp_nullname", lambda: lib.nc_def_grp(n,N,N)),
 ("nc_inq_grp_ncid_nullname", lambda: lib.nc_inq_grp_ncid(n,N,C.byref(o))),
 ("nc_inq_grp_full_ncid_nullname", lambda: lib.nc_inq_grp_full_ncid(n,N,C.byref(o))),
 ("nc_inq_typeid_nullname", lambda: lib.nc_inq_typeid(n,N,N)),
 ("nc_copy_att_nullname", lambda: lib.nc_copy_att(n,-1,N,n,vv)),
 ("nc_def_var_fill_nullvalue", lambda: lib.nc_def_var_fill(n,vv,0,N)),
 ("nc_def_var_filter_nullparams", lambda: lib.nc_def_var_filter(n,vv,1,C.c_size_t(1),N)),
 ("nc_put_vara_int_nullstart", lambda: lib.nc_put_vara_int(n,vv,N,N,N)),
 ("enddef", lambda: lib.nc_enddef(n)),
 ("nc_put_vara_int_nullvalue", lambda: lib.nc_put_vara_int(n,vv,(C.c_size_t*1)(0),(C.c_size_t*1)(3),N)),
 ("nc_get_vara_int_nullvalue", lambda: lib.nc_get_vara_int(n,vv,(C.c_size_t*1)(0),(C.c_size_t*1)(3),N)),
 ("nc_get_var1_int_nullindex", lambda: lib.nc_get_var1_int(n,vv,N,N)),
 ("nc_get_var_string_inttype", lambda: lib.nc_get_var_string(n,vv,N)),
 ("nc_get_var_int_nullvalue", lambda: lib.nc_get_var_int(n,vv,N)),
 ("nc_put_var_int_nullvalue", lambda: lib.nc_put_var_int(n,vv,N)),
 ("nc_free_string_null2", lambda: lib.nc_free_string(C.c_size_t(2),N)),
 ("nc_free_string_null0", lambda: lib.nc_free_string(C.c_size_t(0),N)),
 ("nc_reclaim_data_str_null1", lambda: lib.nc_reclaim_data(n,12,N,C.c_size_t(1))),
 ("nc_reclaim_data_badtype_null0", lambda: lib.nc_reclaim_data(n,999,N,C.c_size_t(0))),
 ("nc_free_vlen_null", lambda: lib.nc_free_vlen(N)),
 ("nc_free_vlens_null", lambda: lib.nc_free_vlens(C.c_size_t(2),N)),
 ("nc_inq_var_chunking_nullall", lambda: lib.nc_inq_var_chunking(n,vv,N,N)),
 ("nc_inq_var_fill_nullall", lambda: lib.nc_inq_var_fill(n,vv,N,N)),
 ("nc_inq_unlimdims_null", lambda: lib.nc_inq_unlimdims(n,N,N)),
 ("nc_inq_grps_null", lambda: lib.nc_inq_grps(n,N,N)),
 ("nc_inq_grpname_null", lambda: lib.nc_inq_grpname(n,N)),
 ("nc_inq_varname_null", lambda: lib.nc_inq_varname(n,vv,N)),
 ("nc_inq_dimname_null", lambda: lib.nc_inq_dimname(n,dd,N)),
 ("nc_inq_attname_null", lambda: lib.nc_inq_attname(n,-1,0,N)),
 ("nc_inq_type_null", lambda: lib.nc_inq_type(n,4,N,N)),
 ("nc_inq_user_type_null", lambda: lib.nc_inq_user_type(n,4,N,N,N,N,N)),
 ("nc_set_fill_null", lambda: lib.nc_set_fill(n,0,N)),
 ("nc_inq_var_filter_null", lambda: lib.nc_inq_var_filter(n,vv,N,N,N)),
 ("nc_inq_var_filter_ids_null", lambda: lib.nc_inq_var_filter_ids(n,vv,N,N)),
 ("nc_inq_var_deflate_null", lambda: lib.nc_inq_var_deflate(n,vv,N,N,N)),
 ("nc_inq_var_quantize_null", lambda: lib.nc_inq_var_quantize(n,vv,N,N)),
 ("nc_inq_var_endian_null", lambda: lib.nc_inq_var_endian(n,vv,N)),
 ("nc_set_chunk_cache_badpre", lambda: lib.nc_set_chunk_cache(C.c_size_t(1),C.c_size_t(1),C.c_float(2.0))),
 ("nc_get_chunk_cache_null", lambda: lib.nc_get_chunk_cache(N,N,N)),
 ("nc_get_alignment_null", lambda: lib.nc_get_alignment(N,N)),
 ("nc_rc_set_null", lambda: lib.nc_rc_set(N,N)),
 ("nc_set_default_format_bad", lambda: lib.nc_set_default_format(99,N)),
 ("nc_copy_data_badtype", lambda: lib.nc_copy_data(0,99,N,C.c_size_t(1),N)),
 ("nc_dump_data_null", lambda: lib.nc_dump_data(0,4,N,C.c_size_t(1),N)),
 ("nc_delete_null", lambda: lib.nc_delete(N)),
 ("nc_open_mem_null", lambda: lib.nc_open_mem(N,0,C.c_size_t(0),N,N)),
 ("nc_create_mem_null", lambda: lib.nc_create_mem(N,0,C.c_size_t(0),N)),
 ("nc_open_memio_null", lambda: lib.nc_open_memio(N,0,N,N)),
 ("nc_def_user_format_null", lambda: lib.nc_def_user_format(0x40,N,N)),
 ("nc_inq_user_format_badflag", lambda: lib.nc_inq_user_format(1,N,N)),
 ("nc_get_chunk_cache_ints_null", lambda: lib.nc_get_chunk_cache_ints(N,N,N)),
 ("nc_set_chunk_cache_ints_neg", lambda: lib.nc_set_chunk_cache_ints(-1,1,1)),
 ("nc_open_par_fortran", lambda: lib.nc_open_par_fortran(N,0,0,0,N)),
 ("nc_create_par_fortran", lambda: lib.nc_create_par_fortran(N,0,0,0,N)),
 ("ncaux_h5filterspec_parse_null", lambda: lib.ncaux_h5filterspec_parse(N,N,N,N)),
 ("ncaux_h5filterspec_parse_ok_nullouts", lambda: lib.ncaux_h5filterspec_parse(b"5,6",N,N,N)),
 ("ncaux_h5filterspec_parse_parameter_null", lambda: lib.ncaux_h5filterspec_parse_parameter(N,N,N)),
 ("ncaux_h5filterspec_parselist_null", lambda: lib.ncaux_h5filterspec_parselist(N,N,N,N)),
 ("ncaux_h5filterspec_parselist_ok_nullouts", lambda: lib.ncaux_h5filterspec_parselist(b"1,2|3",N,N,N)),
 ("ncaux_class_alignment_compound", lambda: lib.ncaux_class_alignment(16,C.byref(sz))),
 ("ncaux_class_alignment_nullout", lambda: lib.ncaux_class_alignment(4,N)),
 ("ncaux_type_alignment_badid", lambda: lib.ncaux_type_alignment(40,-1,C.byref(sz))),
 ("ncaux_inq_any_type_badid", lambda: lib.ncaux_inq_any_type(-1,40,N,N,N,N,N)),
 ("ncaux_readfile_null", lambda: lib.ncaux_readfile(N,N,N)),
 ("ncaux_readfile_missing", lambda: lib.ncaux_readfile(b"/nonexistent/file",N,N)),
 ("ncaux_writefile_null", lambda: lib.ncaux_writefile(N,C.c_size_t(0),N)),
 ("ncaux_abort_compound_null", lambda: lib.ncaux_abort_compound(N)),
 ("ncaux_end_compound_null", lambda: lib.ncaux_end_compound(N,N)),
 ("ncaux_add_field_nulltag", lambda: lib.ncaux_add_field(N,N,4,0,N)),
 ("ncaux_begin_compound_nullname", lambda: lib.ncaux_begin_compound(-1,N,0,C.byref(C.c_void_p()))),
 ("ncaux_parse_provenance_nullout", lambda: lib.ncaux_parse_provenance(b"a=b",N)),
 ("nc_utf8_to_utf16_null", lambda: lib.nc_utf8_to_utf16(N,N,N)),
 ("ncuriparse_null", lambda: lib.ncuriparse(N,C.byref(C.c_void_p()))),
 ("nc_plugin_path_ndirs_null", lambda: lib.nc_plugin_path_ndirs(N)),
 ("nc_plugin_path_get_null", lambda: lib.nc_plugin_path_get(N)),
 ("nc_plugin_path_set_null", lambda: lib.nc_plugin_path_set(N)),
 ("ncaux_plugin_path_tostring_null", lambda: lib.ncaux_plugin_path_tostring(N,0,N)),
 ("ncaux_plugin_path_clear_null", lambda: lib.ncaux_plugin_path_clear(N)),
 ("ncaux_plugin_path_append_null", lambda: lib.ncaux_plugin_path_append(N,N)),
 ("ncaux_plugin_path_stringget_neg", lambda: lib.ncaux_plugin_path_stringget(-1,N)),
 ("ncaux_plugin_path_stringset_neg", lambda: lib.ncaux_plugin_path_stringset(-1,N)),
 ("ncaux_plugin_path_parse_null", lambda: lib.ncaux_plugin_path_parse(N,0,N)),
]
for label, f in calls:
    run("null", label, f)
    if label == "enddef":
        lib.nc_enddef(n)

# ----- names longer than NC_MAX_NAME (in define mode, then read-only)
url, n = create("long.zarr")
lib.nc_def_dim(n, b"d", C.c_size_t(3), C.byref(d))
lib.nc_def_var(n, b"v", 4, 1, C.byref(d), C.byref(v))
lib.nc_def_grp(n, b"g", C.byref(g))
lib.nc_put_att_text(n, -1, b"a", C.c_size_t(1), b"x")
for size in (256, 257, 300):
    long = b"x" * size
    seg = b"s" * 200
    for label, f in [
        ("inq_dimid", lambda: lib.nc_inq_dimid(n, long, C.byref(o))),
        ("inq_dimid_fqn", lambda: lib.nc_inq_dimid(n, b"/" + long, C.byref(o))),
        ("inq_dimid_2x200", lambda: lib.nc_inq_dimid(n, b"/" + seg + b"/" + seg, C.byref(o))),
        ("inq_varid", lambda: lib.nc_inq_varid(n, long, C.byref(o))),
        ("inq_attid", lambda: lib.nc_inq_attid(n, -1, long, C.byref(o))),
        ("inq_att", lambda: lib.nc_inq_att(n, -1, long, N, N)),
        ("inq_attlen", lambda: lib.nc_inq_attlen(n, -1, long, N)),
        ("get_att", lambda: lib.nc_get_att(n, -1, long, N)),
        ("inq_grp_ncid", lambda: lib.nc_inq_grp_ncid(n, long, C.byref(o))),
        ("inq_ncid", lambda: lib.nc_inq_ncid(n, long, C.byref(o))),
        ("inq_grp_full_ncid", lambda: lib.nc_inq_grp_full_ncid(n, long, C.byref(o))),
        ("inq_grp_full_ncid_2x200", lambda: lib.nc_inq_grp_full_ncid(n, b"/" + seg + b"/" + seg, C.byref(o))),
        ("inq_typeid", lambda: lib.nc_inq_typeid(n, long, C.byref(o))),
        ("bad_ncid_inq_varid", lambda: lib.nc_inq_varid(0x7FFF << 16, long, C.byref(o))),
        ("bad_varid_inq_attid", lambda: lib.nc_inq_attid(n, 77, long, C.byref(o))),
        ("rename_att_old", lambda: lib.nc_rename_att(n, -1, long, b"q")),
        ("put_att", lambda: lib.nc_put_att_text(n, -1, long, C.c_size_t(1), b"x")),
        ("del_att", lambda: lib.nc_del_att(n, -1, long)),
    ]:
        run("long-%d" % size, label, f)
lib.nc_close(n)
lib.nc_open(url, 0, C.byref(o))
n = o.value
long = b"x" * 300
run("long-readonly", "rename_att_old", lambda: lib.nc_rename_att(n, -1, long, b"q"))
run("long-readonly", "put_att", lambda: lib.nc_put_att_text(n, -1, long, C.c_size_t(1), b"x"))
run("long-readonly", "del_att", lambda: lib.nc_del_att(n, -1, long))

# ----- the netCDF-2 API on bad ids: result/ncerr
C.c_int.in_dll(lib, "ncopts").value = 0
err = C.c_int.in_dll(lib, "ncerr")
z = (C.c_long * 2)(0, 0)
def v2(call, f):
    err.value = 0
    r = f()
    return "%s/%s" % (r, err.value)
for id in (-1, 0, 0x7FFF << 16):
    for label, f in [
        ("ncredef", lambda: lib.ncredef(id)),
        ("ncvarid", lambda: lib.ncvarid(id, name)),
        ("ncvarputg", lambda: lib.ncvarputg(id, 0, z, z, z, z, N)),
        ("ncvargetg", lambda: lib.ncvargetg(id, 0, z, z, z, z, N)),
        ("ncattput", lambda: lib.ncattput(id, -1, name, 4, 0, N)),
        ("ncrecinq", lambda: lib.ncrecinq(id, N, N, N)),
        ("nc_inq_rec", lambda: lib.nc_inq_rec(id, N, N, N)),
    ]:
        run("v2-%x" % (id & 0xFFFFFFFF), label, lambda: v2(label, f))
run("v2", "nccreate_null", lambda: v2("nccreate", lambda: lib.nccreate(N, 0)))
shutil.rmtree(tmp, ignore_errors=True)
