//! CF aggregation in netCDF masters: a netCDF-4 or netCDF-3 file (handed
//! to the system libnetcdf) whose aggregation variables read as the N-d
//! arrays they stand for, while everything else in it reads as the system
//! library shows it; opened for writing, or holding types this view cannot
//! hold, it stays with the system library. A netCDF-3 master holds its
//! string tables as char arrays (as cfdm writes them).
//!
//! Masters and fragments are written through this library's C API: plain
//! `.nc` paths go to the system libnetcdf (Debian's libnetcdf19), which
//! these tests need (they fail without it).

use std::ffi::{CString, c_char, c_int};
use std::path::Path;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

const FILL: f32 = -999.0;

fn zurl(p: &Path) -> String {
    format!("file://{}#mode=nczarr,file", p.display())
}

/// Value of the 5 x 4 aggregated array at (t, l).
fn val(t: usize, l: usize) -> f32 {
    (100 * t + l) as f32 + 0.5
}

/// A fragment holding `tas` over rows `t0..t0 + nt` (all 4 columns), at
/// `path` (a Zarr URL or a `.nc` path for the system library, `cmode`).
fn fragment(path: &str, cmode: c_int, t0: usize, nt: usize) {
    let d = Def::create(path, cmode);
    let time = d.dim("time", nt);
    let lat = d.dim("lat", 4);
    let v = d.var("tas", NC_FLOAT, &[time, lat]);
    d.text(v, "units", "K");
    d.enddef();
    let vals: Vec<f32> = (0..nt * 4).map(|k| val(t0 + k / 4, k % 4)).collect();
    ok(unsafe { nc_put_var_float(d.ncid, v, vals.as_ptr()) }, "fragment values");
    d.close();
}

/// The fragments in `dir`: rows 0..2 in a netCDF-4 file, rows 2..5 in an
/// NCZarr store; the URIs a master names them by (relative).
fn fragments(dir: &Path) -> [&'static str; 2] {
    fragment(dir.join("part0.nc").to_str().unwrap(), NC_NETCDF4, 0, 2);
    fragment(&zurl(&dir.join("part1.zarr")), 0, 2, 3);
    ["part0.nc", "part1.zarr#mode=nczarr,file"]
}

/// The ordinary content every master has besides its aggregation: `lat`
/// (double, contiguous in the file), `counter` along the unlimited `rec`
/// (netCDF-4) or a fixed one (netCDF-3), global attributes.
struct Ordinary {
    lat: c_int,
    counter: c_int,
}

fn ordinary(d: &Def, nc4: bool) -> Ordinary {
    let lat_d = d.dim("lat", 4);
    let rec = d.dim("rec", if nc4 { NC_UNLIMITED } else { 3 });
    let lat = d.var("lat", NC_DOUBLE, &[lat_d]);
    d.text(lat, "units", "degrees_north");
    let counter = d.var("counter", NC_INT, &[rec]);
    d.text(counter, "long_name", "records");
    ok(
        unsafe { nc_put_att_int(d.ncid, counter, c("valid_max").as_ptr(), NC_INT, 1, &9) },
        "valid_max",
    );
    d.text(NC_GLOBAL, "Conventions", "CF-1.13");
    d.text(NC_GLOBAL, "title", "a master");
    Ordinary { lat, counter }
}

fn put_ordinary(d: &Def, o: &Ordinary) {
    ok(
        unsafe { nc_put_var_double(d.ncid, o.lat, [10.0, 20.0, 30.0, 40.0].as_ptr()) },
        "lat",
    );
    let (start, count) = ([0usize], [3usize]);
    ok(
        unsafe { nc_put_vara_int(d.ncid, o.counter, start.as_ptr(), count.as_ptr(), [7, 8, 9].as_ptr()) },
        "counter",
    );
}

/// The aggregation variable `tas` over (time, lat) with its tables named
/// by CF-1.13 terms.
fn aggregation_var(d: &Def) -> c_int {
    let tas = d.var("tas", NC_FLOAT, &[]);
    d.float_att(tas, "_FillValue", FILL);
    d.text(tas, "units", "K");
    d.text(tas, "standard_name", "air_temperature");
    d.text(tas, "aggregated_dimensions", "time lat");
    d.text(tas, "aggregated_data", "map: fmap uris: furis identifiers: fid");
    tas
}

/// A netCDF-4 master at `path` over the fragments `uris`; `extra` may add
/// definitions (in define mode).
fn master_nc4(path: &Path, uris: [&str; 2], extra: impl FnOnce(&Def)) {
    let d = Def::create(path.to_str().unwrap(), NC_NETCDF4);
    let _time = d.dim("time", 5);
    let o = ordinary(&d, true);
    let j = d.dim("j", 2);
    let i = d.dim("i", 2);
    let ft = d.dim("f_time", 2);
    let fl = d.dim("f_lat", 1);
    aggregation_var(&d);
    let m = d.var("fmap", NC_INT64, &[j, i]);
    ok(
        unsafe { nc_put_att_longlong(d.ncid, m, c("_FillValue").as_ptr(), NC_INT64, 1, &-1) },
        "map fill",
    );
    let u = d.var("furis", NC_STRING, &[ft, fl]);
    let id = d.var("fid", NC_STRING, &[]);
    // A group with its own variable and attribute.
    let mut g = 0;
    ok(unsafe { nc_def_grp(d.ncid, c("sub").as_ptr(), &mut g) }, "group");
    let mut gv = 0;
    ok(
        unsafe { nc_def_var(g, c("flags").as_ptr(), NC_UBYTE, 0, std::ptr::null(), &mut gv) },
        "group var",
    );
    ok(
        unsafe { nc_put_att_text(g, NC_GLOBAL, c("note").as_ptr(), 5, c"inner".as_ptr()) },
        "group att",
    );
    extra(&d);
    d.enddef();
    put_ordinary(&d, &o);
    ok(
        unsafe { nc_put_var_longlong(d.ncid, m, [2i64, 3, 4, -1].as_ptr()) },
        "map",
    );
    let owned: Vec<CString> = uris.iter().map(|s| c(s)).collect();
    let ptrs: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    ok(
        unsafe { nc_put_var_string(d.ncid, u, ptrs.as_ptr().cast_mut()) },
        "uris",
    );
    let ident = [c"/tas".as_ptr()];
    ok(
        unsafe { nc_put_var_string(d.ncid, id, ident.as_ptr().cast_mut()) },
        "identifier",
    );
    ok(unsafe { nc_put_var_uchar(g, gv, &5) }, "group value");
    d.close();
}

fn open(path: &Path, mode: c_int) -> c_int {
    let mut ncid = 0;
    ok(
        unsafe { nc_open(c(path.to_str().unwrap()).as_ptr(), mode, &mut ncid) },
        "open",
    );
    ncid
}

fn varid(ncid: c_int, name: &str) -> Result<c_int, c_int> {
    let mut v = -1;
    match unsafe { nc_inq_varid(ncid, c(name).as_ptr(), &mut v) } {
        0 => Ok(v),
        e => Err(e),
    }
}

fn att_text(ncid: c_int, v: c_int, name: &str) -> Result<String, c_int> {
    let mut n = 0;
    let rc = unsafe { nc_inq_attlen(ncid, v, c(name).as_ptr(), &mut n) };
    if rc != 0 {
        return Err(rc);
    }
    let mut b = vec![0u8; n + 1];
    ok(
        unsafe { nc_get_att_text(ncid, v, c(name).as_ptr(), b.as_mut_ptr().cast()) },
        name,
    );
    b.truncate(n);
    Ok(String::from_utf8(b).unwrap())
}

fn format(ncid: c_int) -> (c_int, c_int) {
    let (mut f, mut fx, mut mode) = (0, 0, 0);
    ok(unsafe { nc_inq_format(ncid, &mut f) }, "format");
    ok(
        unsafe { nc_inq_format_extended(ncid, &mut fx, &mut mode) },
        "format_extended",
    );
    (f, fx)
}

/// Everything a master shows besides the aggregation, checked: values,
/// attributes, storage, and that it is read-only.
fn check_ordinary(ncid: c_int, nc4: bool) {
    let lat = varid(ncid, "lat").unwrap();
    let mut l = [0f64; 4];
    ok(unsafe { nc_get_var_double(ncid, lat, l.as_mut_ptr()) }, "lat");
    assert_eq!(l, [10.0, 20.0, 30.0, 40.0]);
    assert_eq!(att_text(ncid, lat, "units").unwrap(), "degrees_north");
    let counter = varid(ncid, "counter").unwrap();
    assert_eq!(shape(ncid, counter), [3]);
    let mut n = [0i16; 3];
    ok(
        unsafe { nc_get_var_short(ncid, counter, n.as_mut_ptr()) },
        "counter as short",
    );
    assert_eq!(n, [7, 8, 9]);
    let mut vmax = 0i64;
    ok(
        unsafe { nc_get_att_longlong(ncid, counter, c("valid_max").as_ptr(), &mut vmax) },
        "valid_max",
    );
    assert_eq!(vmax, 9);
    assert_eq!(att_text(ncid, counter, "long_name").unwrap(), "records");
    assert_eq!(att_text(ncid, NC_GLOBAL, "title").unwrap(), "a master");
    assert_eq!(att_text(ncid, NC_GLOBAL, "Conventions").unwrap(), "CF-1.13");
    let mut unlim = -2;
    ok(unsafe { nc_inq_unlimdim(ncid, &mut unlim) }, "unlimdim");
    let rec_unlimited = unlim >= 0 && {
        let mut name = [0u8; 257];
        ok(
            unsafe { nc_inq_dimname(ncid, unlim, name.as_mut_ptr().cast()) },
            "dimname",
        );
        name.starts_with(b"rec\0")
    };
    assert_eq!(rec_unlimited, nc4);
    // lat is one block in the file; counter (along the unlimited dimension) chunks.
    let mut storage = -1;
    ok(
        unsafe { nc_inq_var_chunking(ncid, lat, &mut storage, std::ptr::null_mut()) },
        "chunking",
    );
    assert_eq!(storage, NC_CONTIGUOUS);
    if nc4 {
        let mut sizes = [0usize; 1];
        ok(
            unsafe { nc_inq_var_chunking(ncid, counter, &mut storage, sizes.as_mut_ptr()) },
            "chunking",
        );
        assert_eq!(storage, NC_CHUNKED);
        assert!(sizes[0] >= 1);
    }
    // Read-only, as netcdf-c for NC_NOWRITE.
    assert_eq!(nc_redef(ncid), NC_EPERM);
    let one = 1i32;
    assert_eq!(
        unsafe { nc_put_var1_int(ncid, counter, [0usize].as_ptr(), &one) },
        NC_EPERM
    );
}

/// The aggregated `tas` as the 5 x 4 array it stands for.
fn check_tas(ncid: c_int) {
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, tas), [5, 4]);
    let mut all = vec![0f32; 20];
    ok(unsafe { nc_get_var_float(ncid, tas, all.as_mut_ptr()) }, "tas");
    let want: Vec<f32> = (0..20).map(|k| val(k / 4, k % 4)).collect();
    assert_eq!(all, want);
    // A slab across both fragments, as double.
    let (start, count) = ([1usize, 1], [3usize, 2]);
    let mut part = [0f64; 6];
    ok(
        unsafe { nc_get_vara_double(ncid, tas, start.as_ptr(), count.as_ptr(), part.as_mut_ptr()) },
        "tas slab",
    );
    let want: Vec<f64> = (0..6).map(|k| f64::from(val(1 + k / 2, 1 + k % 2))).collect();
    assert_eq!(part.to_vec(), want);
    assert_eq!(att_text(ncid, tas, "units").unwrap(), "K");
    assert_eq!(att_text(ncid, tas, "aggregated_data"), Err(NC_ENOTATT));
    // The tables are hidden.
    for t in ["fmap", "furis", "fid"] {
        assert_eq!(varid(ncid, t), Err(NC_ENOTVAR), "{t}");
    }
    let agg = att_text(ncid, NC_GLOBAL, "_Aggregation").unwrap();
    assert!(agg.contains("CF-1.13"), "{agg}");
    let one = 1f32;
    assert_eq!(
        unsafe { nc_put_var1_float(ncid, tas, [0usize, 0].as_ptr(), &one) },
        NC_EPERM
    );
}

#[test]
fn netcdf4_master_over_netcdf_and_zarr_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    let uris = fragments(tmp.path());
    let m = tmp.path().join("master.nc");
    master_nc4(&m, uris, |_| {});
    let ncid = open(&m, 0);
    assert_eq!(format(ncid), (NC_FORMAT_NETCDF4, NC_FORMATX_NC_HDF5));
    check_tas(ncid);
    check_ordinary(ncid, true);
    // time, lat, rec; the tables' dimensions are hidden.
    let (mut nd, mut nv) = (0, 0);
    ok(
        unsafe { nc_inq(ncid, &mut nd, &mut nv, std::ptr::null_mut(), std::ptr::null_mut()) },
        "inq",
    );
    assert_eq!((nd, nv), (3, 3));
    // The group and its contents.
    let mut g = 0;
    ok(unsafe { nc_inq_grp_ncid(ncid, c("sub").as_ptr(), &mut g) }, "group");
    assert_eq!(att_text(g, NC_GLOBAL, "note").unwrap(), "inner");
    let mut flags = 0u8;
    ok(
        unsafe { nc_get_var_uchar(g, varid(g, "flags").unwrap(), &mut flags) },
        "flags",
    );
    assert_eq!(flags, 5);
    ok(nc_close(ncid), "close");

    // Opened for writing: the file as stored (the system library's view).
    let w = open(&m, NC_WRITE);
    let tas = varid(w, "tas").unwrap();
    assert!(shape(w, tas).is_empty());
    assert_eq!(att_text(w, tas, "aggregated_dimensions").unwrap(), "time lat");
    assert!(varid(w, "fmap").is_ok());
    assert_eq!(att_text(w, NC_GLOBAL, "_Aggregation"), Err(NC_ENOTATT));
    ok(nc_close(w), "close");
}

#[test]
fn netcdf4_master_with_a_user_defined_type_stays_with_the_system_library() {
    let tmp = tempfile::tempdir().unwrap();
    let uris = fragments(tmp.path());
    let m = tmp.path().join("master_enum.nc");
    master_nc4(&m, uris, |d| {
        let mut t = 0;
        ok(
            unsafe { nc_def_enum(d.ncid, NC_UBYTE, c("colour").as_ptr(), &mut t) },
            "enum",
        );
        ok(
            unsafe { nc_insert_enum(d.ncid, t, c("red").as_ptr(), (&1u8 as *const u8).cast()) },
            "member",
        );
        d.var("paint", t, &[]);
    });
    let ncid = open(&m, 0);
    // Nothing lost: the enum variable is there, the aggregation as stored.
    assert!(varid(ncid, "paint").is_ok());
    let tas = varid(ncid, "tas").unwrap();
    assert!(shape(ncid, tas).is_empty());
    assert!(varid(ncid, "fmap").is_ok());
    ok(nc_close(ncid), "close");
}

#[test]
fn netcdf4_file_without_aggregation_is_delegated_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("plain.nc");
    let d = Def::create(p.to_str().unwrap(), NC_NETCDF4);
    let o = ordinary(&d, true);
    let s = d.var("scalar", NC_SHORT, &[]);
    d.text(s, "aggregated_dimensions_not", "x");
    d.enddef();
    put_ordinary(&d, &o);
    d.close();
    let ncid = open(&p, 0);
    check_ordinary_values(ncid);
    assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation"), Err(NC_ENOTATT));
    ok(nc_close(ncid), "close");
}

/// The ordinary values alone (for a file left with the system library).
fn check_ordinary_values(ncid: c_int) {
    let counter = varid(ncid, "counter").unwrap();
    let mut n = [0i32; 3];
    ok(unsafe { nc_get_var_int(ncid, counter, n.as_mut_ptr()) }, "counter");
    assert_eq!(n, [7, 8, 9]);
}

/// Write text values into a char variable of shape (n, width).
fn put_chars(ncid: c_int, v: c_int, width: usize, vals: &[&str]) {
    let mut buf = vec![0u8; width * vals.len()];
    for (k, s) in vals.iter().enumerate() {
        buf[k * width..k * width + s.len()].copy_from_slice(s.as_bytes());
    }
    ok(unsafe { nc_put_var_text(ncid, v, buf.as_ptr().cast()) }, "chars");
}

#[test]
fn netcdf3_master_with_char_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let uris = fragments(tmp.path());
    let m = tmp.path().join("master3.nc");
    let d = Def::create(m.to_str().unwrap(), 0);
    let _time = d.dim("time", 5);
    let o = ordinary(&d, false);
    let j = d.dim("j", 2);
    let i = d.dim("i", 2);
    let ft = d.dim("f_time", 2);
    let fl = d.dim("f_lat", 1);
    let w = d.dim("uri_len", 32);
    let idw = d.dim("id_len", 3);
    aggregation_var(&d);
    let mv = d.var("fmap", NC_INT, &[j, i]);
    ok(
        unsafe { nc_put_att_int(d.ncid, mv, c("_FillValue").as_ptr(), NC_INT, 1, &-1) },
        "map fill",
    );
    let u = d.var("furis", NC_CHAR, &[ft, fl, w]);
    let id = d.var("fid", NC_CHAR, &[idw]);
    d.enddef();
    put_ordinary(&d, &o);
    ok(unsafe { nc_put_var_int(d.ncid, mv, [2, 3, 4, -1].as_ptr()) }, "map");
    put_chars(d.ncid, u, 32, &uris);
    put_chars(d.ncid, id, 3, &["tas"]);
    d.close();

    let ncid = open(&m, 0);
    assert_eq!(format(ncid), (NC_FORMAT_CLASSIC, NC_FORMATX_NC3));
    check_tas(ncid);
    check_ordinary(ncid, false);
    // No netCDF-4 virtual attributes in a classic file.
    assert_eq!(att_text(ncid, NC_GLOBAL, "_IsNetcdf4"), Err(NC_ENOTATT));
    ok(nc_close(ncid), "close");
}

/// The venv's python (scripts/install-deps.sh), which has cfdm.
#[test]
fn cfdm_master_reads_as_cfdm_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let text = common::run_cfdm("cfdm_aggregation.py", &[tmp.path().as_os_str()]);
    let (dims, values) = common::cfdm_shape_and_values(&text);
    let expected: Vec<Option<f32>> = values.iter().map(|l| (l != "--").then(|| l.parse().unwrap())).collect();
    assert_eq!(dims, [5, 4]);
    assert_eq!(expected.iter().filter(|v| v.is_none()).count(), 1);

    let ncid = open(&tmp.path().join("master.nc"), 0);
    assert_eq!(format(ncid).0, NC_FORMAT_NETCDF4);
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, tas), [5, 4]);
    let mut fill = 0f32;
    let mut no_fill = 0;
    ok(
        unsafe { nc_inq_var_fill(ncid, tas, &mut no_fill, (&mut fill as *mut f32).cast()) },
        "fill",
    );
    let mut got = vec![0f32; 20];
    ok(unsafe { nc_get_var_float(ncid, tas, got.as_mut_ptr()) }, "tas");
    let got: Vec<Option<f32>> = got.into_iter().map(|v| (v != fill).then_some(v)).collect();
    assert_eq!(got, expected);
    // cfdm's coordinates, as stored.
    let mut t = [0f64; 5];
    ok(
        unsafe { nc_get_var_double(ncid, varid(ncid, "time").unwrap(), t.as_mut_ptr()) },
        "time",
    );
    assert_eq!(t, [0.0, 1.0, 2.0, 3.0, 4.0]);
    ok(nc_close(ncid), "close");
}
