//! Every export called with invalid ids and NULL pointers must give the
//! exact code netcdf-c 4.10.1 gives (the libnetcdf of the netCDF4 wheel,
//! called with the same arguments through ctypes), or, where netcdf-c
//! crashes or reads through a NULL pointer, the error this library answers
//! instead (each such place says so). A caught panic (NC_EINTERNAL) fails
//! every check here.

use std::ffi::{CString, c_char, c_int, c_void};
use std::ptr::{null, null_mut};

use netcdf::ffi::*;

const NC_NOERR: c_int = 0;
const NC_EBADID: c_int = -33;
const NC_EINVAL: c_int = -36;
const NC_ENOTVAR: c_int = -49;
const NC_EBADTYPE: c_int = -45;
const NC_EINVALCOORDS: c_int = -40;
const NC_EBADNAME: c_int = -59;
const NC_ENOPAR: c_int = -114;
const NC_EBADTYPID: c_int = -117;
const NC_EURL: c_int = -74;
const NC_ENOTNC4: c_int = -111;

fn url(dir: &std::path::Path, name: &str) -> CString {
    CString::new(format!("file://{}/{}#mode=nczarr,file", dir.display(), name)).unwrap()
}

/// Ids that name no dataset: negative, slot 0 (never used), a free slot.
const BAD_IDS: [c_int; 3] = [-1, 0, 0x7fff << 16];

/// `(name, status)` of every call that takes an ncid, made with `id` and
/// otherwise harmless arguments.
fn calls_with(id: c_int) -> Vec<(&'static str, c_int)> {
    let n = null_mut::<c_int>();
    let name = c"x".as_ptr();
    // SAFETY: every pointer is NULL (ignored or refused by each export) or
    // the NUL-terminated literal "x"; no call reaches a dataset.
    unsafe {
        vec![
            ("nc_close", nc_close(id)),
            ("nc_abort", nc_abort(id)),
            ("nc_sync", nc_sync(id)),
            ("nc_redef", nc_redef(id)),
            ("nc_enddef", nc_enddef(id)),
            ("nc__enddef", nc__enddef(id, 0, 0, 0, 0)),
            ("nc_inq", nc_inq(id, n, n, n, n)),
            ("nc_inq_ndims", nc_inq_ndims(id, n)),
            ("nc_inq_nvars", nc_inq_nvars(id, n)),
            ("nc_inq_natts", nc_inq_natts(id, n)),
            ("nc_inq_unlimdim", nc_inq_unlimdim(id, n)),
            ("nc_inq_unlimdims", nc_inq_unlimdims(id, n, n)),
            ("nc_inq_format", nc_inq_format(id, n)),
            ("nc_inq_format_extended", nc_inq_format_extended(id, n, n)),
            ("nc_inq_path", nc_inq_path(id, null_mut(), null_mut())),
            ("nc_set_fill", nc_set_fill(id, 0, n)),
            ("nc_set_var_chunk_cache", nc_set_var_chunk_cache(id, 0, 1, 1, 0.5)),
            (
                "nc_get_var_chunk_cache",
                nc_get_var_chunk_cache(id, 0, null_mut(), null_mut(), null_mut()),
            ),
            ("nc_def_dim", nc_def_dim(id, name, 1, n)),
            ("nc_inq_dimid", nc_inq_dimid(id, name, n)),
            ("nc_inq_dim", nc_inq_dim(id, 0, null_mut(), null_mut())),
            ("nc_inq_dimname", nc_inq_dimname(id, 0, null_mut())),
            ("nc_inq_dimlen", nc_inq_dimlen(id, 0, null_mut())),
            ("nc_rename_dim", nc_rename_dim(id, 0, name)),
            ("nc_def_grp", nc_def_grp(id, name, n)),
            ("nc_rename_grp", nc_rename_grp(id, name)),
            ("nc_inq_grps", nc_inq_grps(id, n, n)),
            ("nc_inq_grpname", nc_inq_grpname(id, null_mut())),
            ("nc_inq_grpname_full", nc_inq_grpname_full(id, null_mut(), null_mut())),
            ("nc_inq_grpname_len", nc_inq_grpname_len(id, null_mut())),
            ("nc_inq_grp_parent", nc_inq_grp_parent(id, n)),
            ("nc_inq_grp_ncid", nc_inq_grp_ncid(id, name, n)),
            ("nc_inq_ncid", nc_inq_ncid(id, name, n)),
            ("nc_inq_grp_full_ncid", nc_inq_grp_full_ncid(id, name, n)),
            ("nc_inq_varids", nc_inq_varids(id, n, n)),
            ("nc_inq_dimids", nc_inq_dimids(id, n, n, 1)),
            ("nc_inq_typeids", nc_inq_typeids(id, n, n)),
            ("nc_inq_typeid", nc_inq_typeid(id, name, n)),
            (
                "nc_inq_user_type",
                nc_inq_user_type(id, 32, null_mut(), null_mut(), n, null_mut(), n),
            ),
            ("nc_def_var", nc_def_var(id, name, 4, 0, null(), n)),
            ("nc_inq_var", nc_inq_var(id, 0, null_mut(), n, n, n, n)),
            ("nc_inq_varid", nc_inq_varid(id, name, n)),
            ("nc_inq_varname", nc_inq_varname(id, 0, null_mut())),
            ("nc_inq_vartype", nc_inq_vartype(id, 0, n)),
            ("nc_inq_varndims", nc_inq_varndims(id, 0, n)),
            ("nc_inq_vardimid", nc_inq_vardimid(id, 0, n)),
            ("nc_inq_varnatts", nc_inq_varnatts(id, 0, n)),
            ("nc_rename_var", nc_rename_var(id, 0, name)),
            ("nc_def_var_chunking", nc_def_var_chunking(id, 0, 0, null())),
            ("nc_inq_var_chunking", nc_inq_var_chunking(id, 0, n, null_mut())),
            ("nc_def_var_fill", nc_def_var_fill(id, 0, 0, null())),
            ("nc_inq_var_fill", nc_inq_var_fill(id, 0, n, null_mut())),
            ("nc_def_var_endian", nc_def_var_endian(id, 0, 1)),
            ("nc_inq_var_endian", nc_inq_var_endian(id, 0, n)),
            ("nc_def_var_deflate", nc_def_var_deflate(id, 0, 1, 1, 1)),
            ("nc_inq_var_deflate", nc_inq_var_deflate(id, 0, n, n, n)),
            ("nc_def_var_fletcher32", nc_def_var_fletcher32(id, 0, 1)),
            ("nc_inq_var_fletcher32", nc_inq_var_fletcher32(id, 0, n)),
            (
                "nc_inq_var_filter_ids",
                nc_inq_var_filter_ids(id, 0, null_mut(), null_mut()),
            ),
            (
                "nc_inq_var_filter_info",
                nc_inq_var_filter_info(id, 0, 1, null_mut(), null_mut()),
            ),
            ("nc_def_var_filter", nc_def_var_filter(id, 0, 1, 0, null())),
            (
                "nc_inq_var_filter",
                nc_inq_var_filter(id, 0, null_mut(), null_mut(), null_mut()),
            ),
            ("nc_inq_filter_avail", nc_inq_filter_avail(id, 1)),
            ("nc_def_var_szip", nc_def_var_szip(id, 0, 4, 8)),
            ("nc_inq_var_szip", nc_inq_var_szip(id, 0, n, n)),
            ("nc_def_var_quantize", nc_def_var_quantize(id, 0, 1, 3)),
            ("nc_inq_var_quantize", nc_inq_var_quantize(id, 0, n, n)),
            ("nc_def_var_zstandard", nc_def_var_zstandard(id, 0, 1)),
            ("nc_inq_var_zstandard", nc_inq_var_zstandard(id, 0, n, n)),
            ("nc_def_var_bzip2", nc_def_var_bzip2(id, 0, 1)),
            ("nc_inq_var_bzip2", nc_inq_var_bzip2(id, 0, n, n)),
            ("nc_def_var_blosc", nc_def_var_blosc(id, 0, 1, 5, 0, 1)),
            (
                "nc_inq_var_blosc",
                nc_inq_var_blosc(id, 0, n, null_mut(), null_mut(), null_mut(), null_mut()),
            ),
            ("nc_put_att_int", nc_put_att_int(id, -1, name, 4, 1, null())),
            ("nc_get_att_int", nc_get_att_int(id, -1, name, null_mut())),
            ("nc_put_att_text", nc_put_att_text(id, -1, name, 0, null())),
            ("nc_get_att_text", nc_get_att_text(id, -1, name, null_mut())),
            ("nc_put_att_string", nc_put_att_string(id, -1, name, 0, null_mut())),
            ("nc_get_att_string", nc_get_att_string(id, -1, name, null_mut())),
            ("nc_put_att", nc_put_att(id, -1, name, 4, 0, null())),
            ("nc_get_att", nc_get_att(id, -1, name, null_mut())),
            ("nc_inq_att", nc_inq_att(id, -1, name, n, null_mut())),
            ("nc_inq_atttype", nc_inq_atttype(id, -1, name, n)),
            ("nc_inq_attlen", nc_inq_attlen(id, -1, name, null_mut())),
            ("nc_inq_attid", nc_inq_attid(id, -1, name, n)),
            ("nc_inq_attname", nc_inq_attname(id, -1, 0, null_mut())),
            ("nc_rename_att", nc_rename_att(id, -1, name, name)),
            ("nc_del_att", nc_del_att(id, -1, name)),
            ("nc_copy_att", nc_copy_att(id, -1, name, id, -1)),
            ("nc_put_var", nc_put_var(id, 0, null())),
            ("nc_get_var", nc_get_var(id, 0, null_mut())),
            ("nc_put_vara_double", nc_put_vara_double(id, 0, null(), null(), null())),
            (
                "nc_get_vara_double",
                nc_get_vara_double(id, 0, null(), null(), null_mut()),
            ),
            (
                "nc_get_varm_string",
                nc_get_varm_string(id, 0, null(), null(), null(), null(), null_mut()),
            ),
            (
                "nc_set_var_chunk_cache_ints",
                nc_set_var_chunk_cache_ints(id, 0, 1, 1, 1),
            ),
            (
                "nc_get_var_chunk_cache_ints",
                nc_get_var_chunk_cache_ints(id, 0, n, n, n),
            ),
            ("nc_def_var_chunking_ints", nc_def_var_chunking_ints(id, 0, 0, n)),
            ("nc_inq_var_chunking_ints", nc_inq_var_chunking_ints(id, 0, n, n)),
            ("nc_var_par_access", nc_var_par_access(id, 0, 0)),
            ("nc_set_base_pe", nc_set_base_pe(id, 0)),
            ("nc_inq_base_pe", nc_inq_base_pe(id, n)),
            ("nc_show_metadata", nc_show_metadata(id)),
            ("nc_close_memio", nc_close_memio(id, null_mut())),
            ("nc_inq_rec", nc_inq_rec(id, null_mut(), n, null_mut())),
            ("nc_get_rec", nc_get_rec(id, 0, null_mut())),
            ("nc_put_rec", nc_put_rec(id, 0, null())),
            ("ncaux_type_alignment", ncaux_type_alignment(40, id, null_mut())),
            (
                "ncaux_inq_any_type",
                ncaux_inq_any_type(id, 40, null_mut(), null_mut(), n, null_mut(), n),
            ),
            ("nc_copy_data", nc_copy_data(id, 99, null(), 1, null_mut())),
            ("nc_dump_data", nc_dump_data(id, 4, null_mut(), 1, null_mut())),
            ("nc_inq_type", nc_inq_type(id, 4, null_mut(), null_mut())),
            ("nc_reclaim_data", nc_reclaim_data(id, 4, null_mut(), 0)),
            ("nc_inq_type_equal", nc_inq_type_equal(id, 4, id, 4, n)),
            ("nc_def_compound", nc_def_compound(id, 8, name, n)),
            (
                "nc_inq_compound",
                nc_inq_compound(id, 32, null_mut(), null_mut(), null_mut()),
            ),
            ("nc_def_vlen", nc_def_vlen(id, name, 4, n)),
            ("nc_inq_vlen", nc_inq_vlen(id, 32, null_mut(), null_mut(), n)),
            ("nc_def_enum", nc_def_enum(id, 4, name, n)),
            (
                "nc_inq_enum",
                nc_inq_enum(id, 32, null_mut(), n, null_mut(), null_mut()),
            ),
            ("nc_def_opaque", nc_def_opaque(id, 4, name, n)),
            ("nc_inq_opaque", nc_inq_opaque(id, 32, null_mut(), null_mut())),
        ]
    }
}

/// What netcdf-c 4.10.1 answers for an id that names no dataset.
fn expected_for_bad_id(call: &str, id: c_int) -> c_int {
    match call {
        // Serial netcdf-c answers NC_ENOPAR before it looks at the id.
        "nc_var_par_access" => NC_ENOPAR,
        // Atomic types are answered without a dataset.
        "nc_inq_type" => NC_NOERR,
        // dinstance.c: a NULL buffer with values, or a negative ncid, is
        // NC_EINVAL before the ncid is looked up; nothing to free is no error.
        "nc_copy_data" | "nc_dump_data" => NC_EINVAL,
        "nc_reclaim_data" if id < 0 => NC_EINVAL,
        "nc_reclaim_data" => NC_NOERR,
        _ => NC_EBADID,
    }
}

#[test]
fn bad_ids_everywhere() {
    let mut wrong = Vec::new();
    for id in BAD_IDS {
        for (call, got) in calls_with(id) {
            let want = expected_for_bad_id(call, id);
            if got != want {
                wrong.push(format!("{call}(ncid {id:#x}) = {got}, netcdf-c gives {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A dataset's slot with a group index it does not have. netcdf-c 4.10.1
/// answers several calls from the root group without checking the index
/// (nc_inq_ndims, nc_inq_varid, nc_inq_path... give NC_NOERR); every call
/// here answers NC_EBADID, and nc_close/nc_abort leave the dataset open.
#[test]
fn bad_group_index() {
    let dir = tempfile::tempdir().unwrap();
    let u = url(dir.path(), "g.zarr");
    let mut ncid = -1;
    // SAFETY: a NUL-terminated path and a local for the id.
    assert_eq!(unsafe { nc_create(u.as_ptr(), 0, &mut ncid) }, NC_NOERR);
    let id = ncid | 0x7fff;
    let mut wrong = Vec::new();
    for (call, got) in calls_with(id) {
        let want = match call {
            "nc_var_par_access" => NC_ENOPAR,
            "nc_inq_type" => NC_NOERR,
            "nc_copy_data" | "nc_dump_data" => NC_EINVAL,
            "nc_reclaim_data" => NC_NOERR,
            // The atomic type names and the type classes need no group (as netcdf-c).
            "nc_inq_type_equal" => NC_NOERR,
            "nc_def_compound" | "nc_def_vlen" | "nc_def_enum" | "nc_def_opaque" => NC_ENOTNC4,
            // No such filter: netcdf-c answers without the group too.
            "nc_inq_filter_avail" => NC_NOERR,
            "nc_set_base_pe" | "nc_inq_base_pe" | "nc_show_metadata" => NC_NOERR,
            _ => NC_EBADID,
        };
        if got != want {
            wrong.push(format!("{call}(ncid {id:#x}) = {got}, expected {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The dataset was not closed through the bad id.
    assert_eq!(nc_close(ncid), NC_NOERR);
}

#[test]
fn null_pointers_on_a_real_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let u = url(dir.path(), "n.zarr");
    let u2 = url(dir.path(), "n2.zarr");
    let mut ncid = 0;
    let n = null_mut::<c_int>();
    // SAFETY: every pointer is NULL, a NUL-terminated literal, or a local
    // with room for what the call writes.
    unsafe {
        // netcdf-c crashes on a NULL path; NC_EINVAL here.
        assert_eq!(nc_create(null(), 0, &mut ncid), NC_EINVAL);
        // netcdf-c creates the dataset and returns no id for it (NC_NOERR):
        // nobody could close it, so NC_EINVAL here.
        assert_eq!(nc_create(u2.as_ptr(), 0, null_mut()), NC_EINVAL);
        assert_eq!(nc_open(null(), 0, &mut ncid), NC_EINVAL);
        assert_eq!(nc_create(u.as_ptr(), 0, &mut ncid), NC_NOERR);
        // netcdf-c opens the dataset and cannot return it (it answers
        // NC_ENOTNC for one still open); NC_EINVAL here.
        assert_eq!(nc_open(u.as_ptr(), 0, null_mut()), NC_EINVAL);
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
        let mut g = 0;
        assert_eq!(nc_def_grp(ncid, c"g".as_ptr(), &mut g), NC_NOERR);
        assert_eq!(nc_put_att_int(ncid, -1, c"a".as_ptr(), 4, 1, &1), NC_NOERR);
        // NULL sizes with NC_CHUNKED keep the current chunking (netcdf-c).
        assert_eq!(nc_def_var_chunking(ncid, v, 0, null()), NC_NOERR);
        // Attribute names: NULL is NC_EBADNAME where netcdf-c looks a name
        // up or stores one, NC_EINVAL in delete and rename.
        assert_eq!(nc_put_att_int(ncid, v, null(), 4, 1, &1), NC_EBADNAME);
        assert_eq!(nc_put_att_int(ncid, v, c"b".as_ptr(), 4, 2, null()), NC_EINVAL);
        assert_eq!(nc_put_att_int(ncid, 99, c"b".as_ptr(), 4, 1, &1), NC_ENOTVAR);
        assert_eq!(nc_inq_attid(ncid, -1, null(), n), NC_EBADNAME);
        assert_eq!(nc_inq_att(ncid, -1, null(), n, null_mut()), NC_EBADNAME);
        assert_eq!(nc_inq_atttype(ncid, -1, null(), n), NC_EBADNAME);
        assert_eq!(nc_inq_attlen(ncid, -1, null(), null_mut()), NC_EBADNAME);
        assert_eq!(nc_get_att(ncid, -1, null(), null_mut()), NC_EBADNAME);
        assert_eq!(nc_copy_att(ncid, -1, null(), ncid, v), NC_EBADNAME);
        assert_eq!(nc_del_att(ncid, -1, null()), NC_EINVAL);
        assert_eq!(nc_rename_att(ncid, -1, null(), c"q".as_ptr()), NC_EINVAL);
        assert_eq!(nc_rename_att(ncid, -1, c"a".as_ptr(), null()), NC_EINVAL);
        // A NULL value pointer for an existing attribute: netcdf-c copies
        // nothing and succeeds.
        assert_eq!(nc_get_att_int(ncid, -1, c"a".as_ptr(), null_mut()), NC_NOERR);
        // Other names.
        assert_eq!(nc_inq_varid(ncid, null(), n), NC_EINVAL);
        assert_eq!(nc_inq_dimid(ncid, null(), n), NC_EINVAL);
        assert_eq!(nc_rename_var(ncid, v, null()), NC_EINVAL);
        assert_eq!(nc_rename_dim(ncid, d, null()), NC_EINVAL);
        assert_eq!(nc_rename_grp(g, null()), NC_EINVAL);
        assert_eq!(nc_def_grp(ncid, null(), n), NC_EINVAL);
        assert_eq!(nc_inq_grp_full_ncid(ncid, null(), n), NC_EINVAL);
        // netcdf-c crashes on a NULL type name; NC_EINVAL here.
        assert_eq!(nc_inq_typeid(ncid, null(), n), NC_EINVAL);
        // A NULL group name asks for the root group (ncdump relies on it).
        let mut root = -1;
        assert_eq!(nc_inq_grp_ncid(g, null(), &mut root), NC_NOERR);
        assert_eq!(root, ncid);
        // No fill value: the variable's default fill is kept (netcdf-c).
        assert_eq!(nc_def_var_fill(ncid, v, 0, null()), NC_NOERR);
        // netcdf-c crashes on NULL parameters with nparams > 0; NC_EINVAL here.
        assert_eq!(nc_def_var_filter(ncid, v, 1, 1, null()), NC_EINVAL);
        // Every out-parameter NULL is fine.
        assert_eq!(nc_inq_var_chunking(ncid, v, n, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_var_fill(ncid, v, n, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_unlimdims(ncid, n, n), NC_NOERR);
        assert_eq!(nc_inq_grps(ncid, n, n), NC_NOERR);
        assert_eq!(nc_inq_grpname(ncid, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_varname(ncid, v, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_dimname(ncid, d, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_attname(ncid, -1, 0, null_mut()), NC_NOERR);
        assert_eq!(nc_inq_type(ncid, 4, null_mut(), null_mut()), NC_NOERR);
        assert_eq!(nc_set_fill(ncid, 0, n), NC_NOERR);
        assert_eq!(nc_inq_var_filter(ncid, v, null_mut(), null_mut(), null_mut()), NC_NOERR);
        assert_eq!(nc_inq_var_filter_ids(ncid, v, null_mut(), null_mut()), NC_NOERR);
        assert_eq!(nc_inq_var_deflate(ncid, v, n, n, n), NC_NOERR);
        assert_eq!(nc_inq_var_quantize(ncid, v, n, n), NC_NOERR);
        assert_eq!(nc_inq_var_endian(ncid, v, n), NC_NOERR);
        assert_eq!(
            nc_inq_user_type(ncid, 4, null_mut(), null_mut(), n, null_mut(), n),
            NC_EBADTYPE
        );
        // A NULL start is NC_EINVALCOORDS (as netcdf-c).
        assert_eq!(nc_put_vara_int(ncid, v, null(), null(), null()), NC_EINVALCOORDS);
        assert_eq!(nc_enddef(ncid), NC_NOERR);
        let start = [0usize];
        let count = [3usize];
        // NULL value buffers: netcdf-c reads through them (a crash) or
        // writes nothing and answers NC_NOERR; NC_EINVAL here.
        assert_eq!(
            nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), null()),
            NC_EINVAL
        );
        assert_eq!(
            nc_get_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), null_mut()),
            NC_EINVAL
        );
        assert_eq!(nc_put_var_int(ncid, v, null()), NC_EINVAL);
        assert_eq!(nc_get_var_int(ncid, v, null_mut()), NC_EINVAL);
        assert_eq!(nc_get_var1_int(ncid, v, null(), null_mut()), NC_EINVALCOORDS);
        assert_eq!(nc_get_var_string(ncid, v, null_mut()), NC_EBADTYPE);
        // netcdf-c crashes on these NULLs; NC_EINVAL here.
        assert_eq!(nc_free_string(2, null_mut()), NC_EINVAL);
        assert_eq!(nc_free_vlen(null_mut()), NC_EINVAL);
        assert_eq!(nc_free_vlens(2, null_mut()), NC_EINVAL);
        assert_eq!(nc_free_string(0, null_mut()), NC_NOERR);
        assert_eq!(nc_reclaim_data(ncid, 12, null_mut(), 1), NC_EINVAL);
        // Nothing to free needs no type check (netcdf-c 4.10.1's order).
        assert_eq!(nc_reclaim_data(ncid, 999, null_mut::<c_void>(), 0), NC_NOERR);
        let mut one: *mut c_char = null_mut();
        assert_eq!(nc_reclaim_data(ncid, 999, (&raw mut one).cast(), 1), NC_EBADTYPID);
        let p: *const c_char = nc_strerror(12345678);
        assert!(!p.is_null());
        assert_eq!(
            std::ffi::CStr::from_ptr(nc_strerror(-1000)).to_bytes(),
            b"Unknown Error"
        );
        assert_eq!(nc_close(ncid), NC_NOERR);
        assert_eq!(nc_close(ncid), NC_EBADID);
    }
}

/// Library-wide calls with NULL or invalid arguments.
#[test]
fn library_calls() {
    let n = null_mut::<c_int>();
    // SAFETY: every pointer is NULL or a local.
    unsafe {
        assert_eq!(nc_set_chunk_cache(1, 1, 2.0), NC_EINVAL);
        assert_eq!(nc_get_chunk_cache(null_mut(), null_mut(), null_mut()), NC_NOERR);
        assert_eq!(nc_get_alignment(n, n), NC_NOERR);
        assert_eq!(nc_set_default_format(99, n), NC_EINVAL);
        assert_eq!(nc_plugin_path_ndirs(null_mut()), NC_NOERR);
        assert_eq!(nc_plugin_path_get(null_mut()), NC_NOERR);
        assert_eq!(nc_plugin_path_set(null_mut()), NC_EINVAL);
        assert_eq!(ncaux_plugin_path_tostring(null(), 0, null_mut()), NC_EINVAL);
        assert_eq!(ncaux_plugin_path_clear(null_mut()), NC_NOERR);
        assert_eq!(ncaux_plugin_path_append(null_mut(), null()), NC_EINVAL);
        assert_eq!(ncaux_plugin_path_stringget(-1, null_mut()), NC_EINVAL);
        assert_eq!(ncaux_plugin_path_stringset(-1, null()), NC_EINVAL);
        assert_eq!(ncaux_plugin_path_parse(null(), 0, null_mut()), NC_EINVAL);
        // netcdf-c crashes on a NULL string; NC_EINVAL here.
        assert_eq!(nc_utf8_to_utf16(null(), null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(ncuriparse(null(), null_mut()), NC_EURL);
    }
}
