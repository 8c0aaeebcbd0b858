//! Every export called with NULL pointers, invalid ids and invalid handles:
//! each must return an error code (or succeed where netcdf-c documents NULL
//! as "ignored"), and never crash.

use std::ffi::{CString, c_char, c_int, c_void};
use std::ptr::{null, null_mut};

use netcdf::ffi::*;

const NC_NOERR: c_int = 0;
const NC_EBADID: c_int = -33;
const NC_EINVAL: c_int = -36;
const NC_ENOTVAR: c_int = -49;

fn url(dir: &std::path::Path, name: &str) -> CString {
    CString::new(format!("file://{}/{}#mode=nczarr,file", dir.display(), name)).unwrap()
}

/// Ids that name nothing: negative, a free slot, a bad group index.
const BAD_IDS: [c_int; 4] = [-1, 0, 0x7fff << 16, (1 << 16) | 0x7fff];

#[test]
fn bad_ids_everywhere() {
    let n = null_mut::<c_int>();
    let name = c"x".as_ptr();
    for id in BAD_IDS {
        unsafe {
            assert_ne!(nc_close(id), NC_NOERR);
            assert_ne!(nc_abort(id), NC_NOERR);
            assert_ne!(nc_sync(id), NC_NOERR);
            assert_ne!(nc_redef(id), NC_NOERR);
            assert_ne!(nc_enddef(id), NC_NOERR);
            assert_ne!(nc__enddef(id, 0, 0, 0, 0), NC_NOERR);
            assert_ne!(nc_inq(id, n, n, n, n), NC_NOERR);
            assert_ne!(nc_inq_ndims(id, n), NC_NOERR);
            assert_ne!(nc_inq_nvars(id, n), NC_NOERR);
            assert_ne!(nc_inq_natts(id, n), NC_NOERR);
            assert_ne!(nc_inq_unlimdim(id, n), NC_NOERR);
            assert_ne!(nc_inq_unlimdims(id, n, n), NC_NOERR);
            assert_ne!(nc_inq_format(id, n), NC_NOERR);
            assert_ne!(nc_inq_format_extended(id, n, n), NC_NOERR);
            assert_ne!(nc_inq_path(id, null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_set_fill(id, 0, n), NC_NOERR);
            assert_ne!(nc_set_var_chunk_cache(id, 0, 1, 1, 0.5), NC_NOERR);
            assert_ne!(
                nc_get_var_chunk_cache(id, 0, null_mut(), null_mut(), null_mut()),
                NC_NOERR
            );
            assert_ne!(nc_def_dim(id, name, 1, n), NC_NOERR);
            assert_ne!(nc_inq_dimid(id, name, n), NC_NOERR);
            assert_ne!(nc_inq_dim(id, 0, null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_inq_dimname(id, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_dimlen(id, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_rename_dim(id, 0, name), NC_NOERR);
            assert_ne!(nc_def_grp(id, name, n), NC_NOERR);
            assert_ne!(nc_rename_grp(id, name), NC_NOERR);
            assert_ne!(nc_inq_grps(id, n, n), NC_NOERR);
            assert_ne!(nc_inq_grpname(id, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_grpname_full(id, null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_inq_grpname_len(id, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_grp_parent(id, n), NC_NOERR);
            assert_ne!(nc_inq_grp_ncid(id, name, n), NC_NOERR);
            assert_ne!(nc_inq_ncid(id, name, n), NC_NOERR);
            assert_ne!(nc_inq_grp_full_ncid(id, name, n), NC_NOERR);
            assert_ne!(nc_inq_varids(id, n, n), NC_NOERR);
            assert_ne!(nc_inq_dimids(id, n, n, 1), NC_NOERR);
            assert_ne!(nc_inq_typeids(id, n, n), NC_NOERR);
            assert_ne!(nc_inq_typeid(id, name, n), NC_NOERR);
            assert_ne!(
                nc_inq_user_type(id, 32, null_mut(), null_mut(), n, null_mut(), n),
                NC_NOERR
            );
            assert_ne!(nc_def_var(id, name, 4, 0, null(), n), NC_NOERR);
            assert_ne!(nc_inq_var(id, 0, null_mut(), n, n, n, n), NC_NOERR);
            assert_ne!(nc_inq_varid(id, name, n), NC_NOERR);
            assert_ne!(nc_inq_varname(id, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_vartype(id, 0, n), NC_NOERR);
            assert_ne!(nc_inq_varndims(id, 0, n), NC_NOERR);
            assert_ne!(nc_inq_vardimid(id, 0, n), NC_NOERR);
            assert_ne!(nc_inq_varnatts(id, 0, n), NC_NOERR);
            assert_ne!(nc_rename_var(id, 0, name), NC_NOERR);
            assert_ne!(nc_def_var_chunking(id, 0, 0, null()), NC_NOERR);
            assert_ne!(nc_inq_var_chunking(id, 0, n, null_mut()), NC_NOERR);
            assert_ne!(nc_def_var_fill(id, 0, 0, null()), NC_NOERR);
            assert_ne!(nc_inq_var_fill(id, 0, n, null_mut()), NC_NOERR);
            assert_ne!(nc_def_var_endian(id, 0, 1), NC_NOERR);
            assert_ne!(nc_inq_var_endian(id, 0, n), NC_NOERR);
            assert_ne!(nc_def_var_deflate(id, 0, 1, 1, 1), NC_NOERR);
            assert_ne!(nc_inq_var_deflate(id, 0, n, n, n), NC_NOERR);
            assert_ne!(nc_def_var_fletcher32(id, 0, 1), NC_NOERR);
            assert_ne!(nc_inq_var_fletcher32(id, 0, n), NC_NOERR);
            assert_ne!(nc_inq_var_filter_ids(id, 0, null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_inq_var_filter_info(id, 0, 1, null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_def_var_filter(id, 0, 1, 0, null()), NC_NOERR);
            assert_ne!(nc_inq_var_filter(id, 0, null_mut(), null_mut(), null_mut()), NC_NOERR);
            assert_ne!(nc_inq_filter_avail(id, 1), NC_NOERR);
            assert_ne!(nc_def_var_szip(id, 0, 4, 8), NC_NOERR);
            assert_ne!(nc_inq_var_szip(id, 0, n, n), NC_NOERR);
            assert_ne!(nc_def_var_quantize(id, 0, 1, 3), NC_NOERR);
            assert_ne!(nc_inq_var_quantize(id, 0, n, n), NC_NOERR);
            assert_ne!(nc_def_var_zstandard(id, 0, 1), NC_NOERR);
            assert_ne!(nc_inq_var_zstandard(id, 0, n, n), NC_NOERR);
            assert_ne!(nc_def_var_bzip2(id, 0, 1), NC_NOERR);
            assert_ne!(nc_inq_var_bzip2(id, 0, n, n), NC_NOERR);
            assert_ne!(nc_def_var_blosc(id, 0, 1, 5, 0, 1), NC_NOERR);
            assert_ne!(
                nc_inq_var_blosc(id, 0, n, null_mut(), null_mut(), null_mut(), null_mut()),
                NC_NOERR
            );
            assert_ne!(nc_put_att_int(id, -1, name, 4, 1, null()), NC_NOERR);
            assert_ne!(nc_get_att_int(id, -1, name, null_mut()), NC_NOERR);
            assert_ne!(nc_put_att_text(id, -1, name, 0, null()), NC_NOERR);
            assert_ne!(nc_get_att_text(id, -1, name, null_mut()), NC_NOERR);
            assert_ne!(nc_put_att_string(id, -1, name, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_get_att_string(id, -1, name, null_mut()), NC_NOERR);
            assert_ne!(nc_put_att(id, -1, name, 4, 0, null()), NC_NOERR);
            assert_ne!(nc_get_att(id, -1, name, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_att(id, -1, name, n, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_atttype(id, -1, name, n), NC_NOERR);
            assert_ne!(nc_inq_attlen(id, -1, name, null_mut()), NC_NOERR);
            assert_ne!(nc_inq_attid(id, -1, name, n), NC_NOERR);
            assert_ne!(nc_inq_attname(id, -1, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_rename_att(id, -1, name, name), NC_NOERR);
            assert_ne!(nc_del_att(id, -1, name), NC_NOERR);
            assert_ne!(nc_copy_att(id, -1, name, id, -1), NC_NOERR);
            assert_ne!(nc_put_var(id, 0, null()), NC_NOERR);
            assert_ne!(nc_get_var(id, 0, null_mut()), NC_NOERR);
            assert_ne!(nc_put_vara_double(id, 0, null(), null(), null()), NC_NOERR);
            assert_ne!(nc_get_vara_double(id, 0, null(), null(), null_mut()), NC_NOERR);
            assert_ne!(
                nc_get_varm_string(id, 0, null(), null(), null(), null(), null_mut()),
                NC_NOERR
            );
        }
    }
}

#[test]
fn null_pointers_on_a_real_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let u = url(dir.path(), "n.zarr");
    let mut ncid = 0;
    unsafe {
        assert_eq!(nc_create(null(), 0, &mut ncid), NC_EINVAL);
        assert_eq!(nc_create(u.as_ptr(), 0, null_mut()), NC_EINVAL);
        assert_eq!(nc_open(null(), 0, &mut ncid), NC_EINVAL);
        assert_eq!(nc_create(u.as_ptr(), 0, &mut ncid), NC_NOERR);
        let n = null_mut::<c_int>();
        // "Ignored if NULL" out-parameters.
        assert_eq!(nc_inq(ncid, n, n, n, n), NC_NOERR);
        assert_eq!(nc_inq_format_extended(ncid, n, n), NC_NOERR);
        assert_eq!(nc_inq_path(ncid, null_mut(), null_mut()), NC_NOERR);
        // Required inputs.
        assert_eq!(nc_def_dim(ncid, null(), 3, n), NC_EINVAL);
        let mut d = 0;
        assert_eq!(nc_def_dim(ncid, c"d".as_ptr(), 3, &mut d), NC_NOERR);
        assert_eq!(nc_def_var(ncid, null(), 4, 1, &d, n), NC_EINVAL);
        assert_eq!(nc_def_var(ncid, c"v".as_ptr(), 4, 1, null(), n), NC_EINVAL);
        assert_eq!(nc_def_var(ncid, c"v".as_ptr(), 4, -1, &d, n), NC_EINVAL);
        let mut v = 0;
        assert_eq!(nc_def_var(ncid, c"v".as_ptr(), 4, 1, &d, &mut v), NC_NOERR);
        // NULL sizes with NC_CHUNKED keep the current chunking (netcdf-c).
        assert_eq!(nc_def_var_chunking(ncid, v, 0, null()), NC_NOERR);
        assert_eq!(nc_put_att_int(ncid, v, null(), 4, 1, &1), NC_EINVAL);
        assert_eq!(nc_put_att_int(ncid, v, c"a".as_ptr(), 4, 2, null()), NC_EINVAL);
        assert_eq!(nc_put_att_int(ncid, 99, c"a".as_ptr(), 4, 1, &1), NC_ENOTVAR);
        assert_eq!(nc_inq_varid(ncid, null(), n), NC_EINVAL);
        assert_eq!(nc_enddef(ncid), NC_NOERR);
        // Data calls: NULL start is NC_EINVALCOORDS, NULL buffers NC_EINVAL.
        assert_eq!(nc_put_vara_int(ncid, v, null(), null(), null()), -40);
        let start = [0usize];
        let count = [3usize];
        assert_eq!(
            nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), null()),
            NC_EINVAL
        );
        assert_eq!(
            nc_get_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), null_mut()),
            NC_EINVAL
        );
        assert_eq!(nc_get_var1_int(ncid, v, null(), null_mut()), -40);
        assert_eq!(nc_get_var_string(ncid, v, null_mut()), -45);
        assert_eq!(nc_free_string(2, null_mut()), NC_EINVAL);
        assert_eq!(nc_free_string(0, null_mut()), NC_NOERR);
        assert_eq!(nc_reclaim_data(ncid, 12, null_mut(), 1), NC_EINVAL);
        // Nothing to free needs no type check (netcdf-c 4.10.1's order).
        assert_eq!(nc_reclaim_data(ncid, 999, null_mut::<c_void>(), 0), NC_NOERR);
        let mut one: *mut c_char = null_mut();
        assert_eq!(nc_reclaim_data(ncid, 999, (&raw mut one).cast(), 1), -117);
        let p: *const c_char = nc_strerror(12345678);
        assert!(!p.is_null());
        assert!(!nc_strerror(-1000).is_null());
        assert_eq!(nc_close(ncid), NC_NOERR);
        assert_eq!(nc_close(ncid), NC_EBADID);
    }
}
