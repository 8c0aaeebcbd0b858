//! A dataset defined through the C API, for the tests that build their
//! inputs with this library (aggregation masters and fragments).

use std::ffi::{CString, c_char, c_int};

use netcdf::ffi::*;

use super::nc::{NC_FLOAT, NC_INT64, NC_STRING};

/// A C string of `s` (no interior NUL in test names).
pub fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Fail the test on a netCDF error code, naming what failed.
pub fn ok(rc: c_int, what: &str) {
    assert_eq!(rc, 0, "{what}");
}

/// A dataset being defined through the C API.
pub struct Def {
    pub ncid: c_int,
}

impl Def {
    pub fn create(path: &str, cmode: c_int) -> Def {
        let mut ncid = 0;
        ok(unsafe { nc_create(c(path).as_ptr(), cmode, &mut ncid) }, path);
        Def { ncid }
    }

    pub fn dim(&self, name: &str, len: usize) -> c_int {
        let mut id = 0;
        ok(unsafe { nc_def_dim(self.ncid, c(name).as_ptr(), len, &mut id) }, name);
        id
    }

    pub fn var(&self, name: &str, ty: c_int, dims: &[c_int]) -> c_int {
        let mut id = 0;
        ok(
            unsafe {
                nc_def_var(
                    self.ncid,
                    c(name).as_ptr(),
                    ty,
                    dims.len() as c_int,
                    dims.as_ptr(),
                    &mut id,
                )
            },
            name,
        );
        id
    }

    pub fn text(&self, varid: c_int, name: &str, value: &str) {
        ok(
            unsafe { nc_put_att_text(self.ncid, varid, c(name).as_ptr(), value.len(), value.as_ptr().cast()) },
            name,
        );
    }

    pub fn float_att(&self, varid: c_int, name: &str, v: f32) {
        ok(
            unsafe { nc_put_att_float(self.ncid, varid, c(name).as_ptr(), NC_FLOAT, 1, &v) },
            name,
        );
    }

    pub fn floats(&self, varid: c_int, v: &[f32]) {
        ok(unsafe { nc_put_var_float(self.ncid, varid, v.as_ptr()) }, "put floats");
    }

    pub fn int64s(&self, varid: c_int, v: &[i64]) {
        ok(
            unsafe { nc_put_var_longlong(self.ncid, varid, v.as_ptr()) },
            "put int64",
        );
    }

    pub fn strings(&self, varid: c_int, v: &[&str]) {
        let owned: Vec<CString> = v.iter().map(|s| c(s)).collect();
        let ptrs: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        ok(
            unsafe { nc_put_var_string(self.ncid, varid, ptrs.as_ptr().cast_mut()) },
            "put strings",
        );
    }

    pub fn enddef(&self) {
        ok(nc_enddef(self.ncid), "enddef");
    }

    pub fn close(self) {
        ok(nc_close(self.ncid), "close");
    }

    /// Make `v` a CF-1.13 aggregation along `time` alone over `nfrag`
    /// fragments: its `aggregated_dimensions` and `aggregated_data`, and the
    /// variables `fmap(j = 1, f = nfrag)`, `furis(f)` and a scalar `fid`,
    /// whose values `TimeMap::write` gives after `enddef`.
    pub fn time_map(&self, v: c_int, nfrag: usize) -> TimeMap {
        let f = self.dim("f", nfrag);
        let j = self.dim("j", 1);
        self.text(v, "aggregated_dimensions", "time");
        self.text(v, "aggregated_data", "map: fmap uris: furis identifiers: fid");
        TimeMap {
            map: self.var("fmap", NC_INT64, &[j, f]),
            uris: self.var("furis", NC_STRING, &[f]),
            id: self.var("fid", NC_STRING, &[]),
        }
    }
}

/// The fragment variables of a master made by `Def::time_map`.
pub struct TimeMap {
    map: c_int,
    uris: c_int,
    id: c_int,
}

impl TimeMap {
    /// The fragments' sizes along `time`, their URIs and the variable `id`
    /// in each.
    pub fn write(&self, d: &Def, sizes: &[i64], uris: &[&str], id: &str) {
        d.int64s(self.map, sizes);
        d.strings(self.uris, uris);
        d.strings(self.id, &[id]);
    }
}

/// The lengths of a variable's dimensions.
pub fn shape(ncid: c_int, v: c_int) -> Vec<usize> {
    let mut nd = 0;
    ok(unsafe { nc_inq_varndims(ncid, v, &mut nd) }, "ndims");
    let mut ids = vec![0; nd as usize];
    ok(unsafe { nc_inq_vardimid(ncid, v, ids.as_mut_ptr()) }, "dimids");
    ids.iter()
        .map(|&d| {
            let mut n = 0;
            ok(unsafe { nc_inq_dimlen(ncid, d, &mut n) }, "dimlen");
            n
        })
        .collect()
}
