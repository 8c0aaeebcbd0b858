//! Randomised hyperslab round trips through the C API, checked against a
//! plain in-memory array: shapes, chunk shapes, strides, mapped access and
//! chunk caches small enough to force eviction.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::{Rng, check};
use std::ffi::{CString, c_int};

use netcdf::ffi::*;

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Visit every index of a (start, count, stride) selection in C order.
fn for_sel(start: &[usize], count: &[usize], stride: &[usize], mut f: impl FnMut(&[usize])) {
    let n = start.len();
    if count.contains(&0) {
        return;
    }
    let mut k = vec![0usize; n];
    loop {
        let idx: Vec<usize> = (0..n).map(|d| start[d] + k[d] * stride[d]).collect();
        f(&idx);
        let mut d = n;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            k[d] += 1;
            if k[d] < count[d] {
                break;
            }
            k[d] = 0;
        }
    }
}

#[test]
fn random_slabs_match_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..60 {
        let ndims = 1 + rng.below(4);
        let shape: Vec<usize> = (0..ndims).map(|_| 1 + rng.below(9)).collect();
        let chunks: Vec<usize> = shape.iter().map(|&s| 1 + rng.below(s)).collect();
        let total: usize = shape.iter().product();
        let u = CString::new(format!("file://{}/c{case}.zarr#mode=nczarr,file", dir.path().display())).unwrap();
        let mut model = vec![-1.0f64; total];
        unsafe {
            let mut ncid = 0;
            check(nc_create(u.as_ptr(), 0, &mut ncid));
            let mut dims = Vec::new();
            for (d, &len) in shape.iter().enumerate() {
                let mut id = 0;
                let name = CString::new(format!("d{d}")).unwrap();
                check(nc_def_dim(ncid, name.as_ptr(), len, &mut id));
                dims.push(id);
            }
            let mut v = 0;
            check(nc_def_var(
                ncid,
                c"v".as_ptr(),
                6,
                ndims as c_int,
                dims.as_ptr(),
                &mut v,
            ));
            check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
            let fill = -1.0f64;
            check(nc_def_var_fill(ncid, v, 0, (&fill as *const f64).cast()));
            check(nc_enddef(ncid));
            // A cache of one chunk (or none) forces evictions and re-reads.
            check(nc_set_var_chunk_cache(
                ncid,
                v,
                8 * chunks.iter().product::<usize>() * rng.below(2),
                1,
                0.5,
            ));
            for w in 0..6 {
                let start: Vec<usize> = shape.iter().map(|&s| rng.below(s)).collect();
                let stride: Vec<usize> = (0..ndims).map(|_| 1 + rng.below(3)).collect();
                let count: Vec<usize> = (0..ndims)
                    .map(|d| 1 + rng.below((shape[d] - start[d]).div_ceil(stride[d])))
                    .collect();
                let n: usize = count.iter().product();
                let vals: Vec<f64> = (0..n).map(|i| (case * 1000 + w * 100) as f64 + i as f64).collect();
                let st: Vec<isize> = stride.iter().map(|&x| x as isize).collect();
                check(nc_put_vars_double(
                    ncid,
                    v,
                    start.as_ptr(),
                    count.as_ptr(),
                    st.as_ptr(),
                    vals.as_ptr(),
                ));
                let mut i = 0;
                let s = strides(&shape);
                for_sel(&start, &count, &stride, |idx| {
                    model[idx.iter().zip(&s).map(|(a, b)| a * b).sum::<usize>()] = vals[i];
                    i += 1;
                });
                if w % 2 == 1 {
                    check(nc_sync(ncid));
                }
            }
            check(nc_close(ncid));

            // Read back: whole, random strided slabs as int, and a transposed map.
            check(nc_open(u.as_ptr(), 0, &mut ncid));
            let mut all = vec![0f64; total];
            check(nc_get_var_double(ncid, 0, all.as_mut_ptr()));
            assert_eq!(all, model, "case {case}: shape {shape:?} chunks {chunks:?}");
            check(nc_set_var_chunk_cache(ncid, 0, 0, 0, 0.5));
            for _ in 0..6 {
                let start: Vec<usize> = shape.iter().map(|&s| rng.below(s)).collect();
                let stride: Vec<usize> = (0..ndims).map(|_| 1 + rng.below(3)).collect();
                let count: Vec<usize> = (0..ndims)
                    .map(|d| 1 + rng.below((shape[d] - start[d]).div_ceil(stride[d])))
                    .collect();
                let n: usize = count.iter().product();
                let mut got = vec![0f32; n];
                let st: Vec<isize> = stride.iter().map(|&x| x as isize).collect();
                check(nc_get_vars_float(
                    ncid,
                    0,
                    start.as_ptr(),
                    count.as_ptr(),
                    st.as_ptr(),
                    got.as_mut_ptr(),
                ));
                let s = strides(&shape);
                let mut i = 0;
                for_sel(&start, &count, &stride, |idx| {
                    let want = model[idx.iter().zip(&s).map(|(a, b)| a * b).sum::<usize>()] as f32;
                    assert_eq!(got[i], want, "case {case}");
                    i += 1;
                });
                // Mapped read: reverse the dimension order in memory.
                let mut imap = vec![0isize; ndims];
                let mut m = 1isize;
                for d in 0..ndims {
                    imap[d] = m;
                    m *= count[d] as isize;
                }
                let mut t = vec![0f64; n];
                check(nc_get_varm_double(
                    ncid,
                    0,
                    start.as_ptr(),
                    count.as_ptr(),
                    st.as_ptr(),
                    imap.as_ptr(),
                    t.as_mut_ptr(),
                ));
                let mut k = vec![0usize; ndims];
                for_sel(&start, &count, &stride, |idx| {
                    let off: usize = (0..ndims).map(|d| k[d] * imap[d] as usize).sum();
                    let want = model[idx.iter().zip(&s).map(|(a, b)| a * b).sum::<usize>()];
                    assert_eq!(t[off], want, "case {case} varm");
                    for d in (0..ndims).rev() {
                        k[d] += 1;
                        if k[d] < count[d] {
                            break;
                        }
                        k[d] = 0;
                    }
                });
            }
            check(nc_close(ncid));
        }
    }
}
