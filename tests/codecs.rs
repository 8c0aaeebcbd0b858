//! Codec chains end to end through the C API: hostile compressed chunks (bombs,
//! lying size headers, garbage) are NC_EFILTER without a panic or a huge
//! allocation; an unknown codec leaves the dataset readable except for that
//! variable's data (NC_ENOFILTER, `_Codecs` shown); what the API defines is
//! what the metadata says.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::ffi::{CString, c_char, c_int};
use std::fs;
use std::path::Path;

use netcdf::ffi::*;

const NC_EFILTER: c_int = -132;
const NC_ENOFILTER: c_int = -136;

fn url(p: &Path) -> CString {
    CString::new(format!("file://{}#mode=zarr,file", p.display())).unwrap()
}

/// A pure-Zarr dataset with one int32 array `v` of 1024 values in one chunk,
/// with the given compressor JSON and chunk bytes.
fn dataset(dir: &Path, compressor: &str, chunk: &[u8]) {
    fs::create_dir_all(dir.join("v")).unwrap();
    fs::write(dir.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap();
    fs::write(dir.join(".zattrs"), "{}").unwrap();
    fs::write(
        dir.join("v/.zarray"),
        format!(
            r#"{{"zarr_format": 2, "shape": [1024], "chunks": [1024], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": {compressor}, "filters": null}}"#
        ),
    )
    .unwrap();
    fs::write(dir.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["x"]}"#).unwrap();
    fs::write(dir.join("v/0"), chunk).unwrap();
}

/// Open, read `v`; (read status, values, `_Codecs` text).
fn read(dir: &Path) -> (c_int, Vec<i32>, String) {
    let u = url(dir);
    let mut ncid = 0;
    assert_eq!(unsafe { nc_open(u.as_ptr(), 0, &mut ncid) }, 0);
    let mut buf = vec![0i32; 1024];
    let st = unsafe { nc_get_var_int(ncid, 0, buf.as_mut_ptr()) };
    let mut len = 0usize;
    let mut text = vec![0u8; 4096];
    assert_eq!(unsafe { nc_inq_attlen(ncid, 0, c"_Codecs".as_ptr(), &mut len) }, 0);
    assert!(len < text.len());
    assert_eq!(
        unsafe { nc_get_att_text(ncid, 0, c"_Codecs".as_ptr(), text.as_mut_ptr().cast::<c_char>()) },
        0
    );
    text.truncate(len);
    assert_eq!(nc_close(ncid), 0);
    (st, buf, String::from_utf8(text).unwrap())
}

fn case(compressor: &str, chunk: &[u8]) -> (c_int, Vec<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d.zarr");
    dataset(&dir, compressor, chunk);
    read(&dir)
}

fn zlib(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn good_chunk_reads() {
    let vals: Vec<u8> = (0..1024i32).flat_map(|v| v.to_le_bytes()).collect();
    let (st, got, codecs) = case(r#"{"id": "zlib", "level": 6}"#, &zlib(&vals));
    assert_eq!(st, 0);
    assert_eq!(got, (0..1024).collect::<Vec<i32>>());
    assert_eq!(codecs, r#"[{"id": "zlib", "level": 6}]"#);
}

#[test]
fn hostile_chunks_are_efilter() {
    // A zlib bomb: 256 MiB of zeros in a chunk of 4 KiB decoded values.
    let bomb = zlib(&vec![0u8; 256 << 20]);
    assert_eq!(case(r#"{"id": "zlib", "level": 1}"#, &bomb).0, NC_EFILTER);
    // Too few values.
    assert_eq!(
        case(r#"{"id": "zlib", "level": 1}"#, &zlib(&[1, 2, 3, 4])).0,
        NC_EFILTER
    );
    // Garbage for every codec.
    let junk: Vec<u8> = (0..300u32).map(|i| (i * 37 + 11) as u8).collect();
    for c in [
        r#"{"id": "zlib", "level": 1}"#,
        r#"{"id": "gzip", "level": 1}"#,
        r#"{"id": "bz2", "level": 1}"#,
        r#"{"id": "zstd", "level": 1}"#,
        r#"{"id": "lz4", "acceleration": 1}"#,
        r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
        r#"{"id": "fletcher32"}"#,
        r#"{"id": "crc32"}"#,
        r#"{"id": "adler32"}"#,
        r#"{"id": "crc32c"}"#,
    ] {
        assert_eq!(case(c, &junk).0, NC_EFILTER, "{c}");
        assert_eq!(case(c, &[]).0, NC_EFILTER, "{c} empty");
    }
    // Size headers that lie: lz4 claiming 4 GiB, blosc claiming 2 GiB, a zstd
    // frame declaring a huge content size.
    assert_eq!(
        case(r#"{"id": "lz4"}"#, &[0xff, 0xff, 0xff, 0xff, 0x10, 0]).0,
        NC_EFILTER
    );
    let mut blosc = vec![2u8, 1, 0x01, 4, 0, 0, 0, 0x80, 32, 0, 0, 0, 32, 0, 0, 0];
    blosc.extend_from_slice(&[0u8; 16]);
    assert_eq!(
        case(
            r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
            &blosc
        )
        .0,
        NC_EFILTER
    );
    let frame = [
        0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x01, 0, 0,
    ];
    assert_eq!(case(r#"{"id": "zstd", "level": 1}"#, &frame).0, NC_EFILTER);
    // Stored chunk far larger than any encoding of 4 KiB.
    assert_eq!(case(r#"{"id": "zlib", "level": 1}"#, &vec![0u8; 1 << 20]).0, NC_EFILTER);
}

#[test]
fn unknown_codec_opens_and_reads_enofilter() {
    let (st, _, codecs) = case(r#"{"id": "nosuchcodec", "x": 1}"#, &[1, 2, 3]);
    assert_eq!(st, NC_ENOFILTER);
    assert_eq!(codecs, r#"[{"id": "nosuchcodec", "x": 1}]"#);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d.zarr");
    dataset(&dir, r#"{"id": "nosuchcodec"}"#, &[1]);
    let u = url(&dir);
    let mut ncid = 0;
    assert_eq!(unsafe { nc_open(u.as_ptr(), 0, &mut ncid) }, 0);
    let (mut n, mut ids) = (9usize, [9u32; 4]);
    assert_eq!(unsafe { nc_inq_var_filter_ids(ncid, 0, &mut n, ids.as_mut_ptr()) }, 0);
    assert_eq!((n, ids[0]), (1, 0));
    let mut id = 7u32;
    let st = unsafe { nc_inq_var_filter(ncid, 0, &mut id, std::ptr::null_mut(), std::ptr::null_mut()) };
    assert_eq!((st, id), (NC_ENOFILTER, 0));
    assert_eq!(
        unsafe { nc_inq_var_filter_info(ncid, 0, 0, &mut n, std::ptr::null_mut()) },
        NC_ENOFILTER
    );
    assert_eq!(nc_close(ncid), 0);
}

#[test]
fn defined_filters_reach_the_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w.zarr");
    let u = url(&dir);
    let mut ncid = 0;
    let mut dim = 0;
    let mut v = 0;
    unsafe {
        assert_eq!(nc_create(u.as_ptr(), 0, &mut ncid), 0);
        assert_eq!(nc_def_dim(ncid, c"x".as_ptr(), 100, &mut dim), 0);
        assert_eq!(nc_def_var(ncid, c"v".as_ptr(), 6, 1, &dim, &mut v), 0);
        assert_eq!(nc_def_var_deflate(ncid, v, 0, 1, 2), 0);
        assert_eq!(nc_def_var_fletcher32(ncid, v, 1), 0);
        assert_eq!(nc_def_var_deflate(ncid, v, 1, 1, 2), 0);
        let vals: Vec<f64> = (0..100).map(|i| f64::from(i) / 3.0).collect();
        assert_eq!(nc_put_var_double(ncid, v, vals.as_ptr()), 0);
        assert_eq!(nc_close(ncid), 0);
    }
    let meta: serde_json::Value = serde_json::from_str(&fs::read_to_string(dir.join("v/.zarray")).unwrap()).unwrap();
    assert_eq!(meta["compressor"], serde_json::json!({"id": "zlib", "level": 2}));
    assert_eq!(
        meta["filters"],
        serde_json::json!([{"id": "fletcher32"}, {"id": "shuffle", "elementsize": 8}])
    );
}

/// A compressor set up on variable `v` of dataset `nc` (an nc_def_var_* call).
type Setup = fn(c_int, c_int) -> c_int;

/// Write `vals` as int variable `v` of shape `shape`, chunked by `chunks`,
/// in byte order `endian` (1 little, 2 big), compressed by `setup`, to a new
/// dataset at `u`.
fn write_int_var(u: &CString, shape: [usize; 3], chunks: [usize; 3], endian: c_int, setup: Setup, vals: &[i32]) {
    unsafe {
        let mut nc = 0;
        assert_eq!(nc_create(u.as_ptr(), 0, &mut nc), 0);
        let mut dims = [0; 3];
        for (d, (n, len)) in ["z", "y", "x"].iter().zip(shape).enumerate() {
            let cn = CString::new(*n).unwrap();
            assert_eq!(nc_def_dim(nc, cn.as_ptr(), len, &mut dims[d]), 0);
        }
        let mut v = 0;
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), 4, 3, dims.as_ptr(), &mut v), 0);
        assert_eq!(nc_def_var_chunking(nc, v, 0, chunks.as_ptr()), 0);
        assert_eq!(nc_def_var_endian(nc, v, endian), 0);
        assert_eq!(setup(nc, v), 0);
        assert_eq!(nc_enddef(nc), 0);
        assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
        assert_eq!(nc_close(nc), 0);
    }
}

/// Small reads of compressed chunks (which blosc decodes in part: only the
/// blocks holding them) equal the same values read whole, for several codecs,
/// both byte orders, strides and reads as another type; a damaged chunk read
/// in part is NC_EFILTER.
#[test]
fn small_reads_of_compressed_chunks_match_whole_reads() {
    const NZ: usize = 6;
    const NY: usize = 40;
    const NX: usize = 48;
    let tmp = tempfile::tempdir().unwrap();
    let vals: Vec<i32> = (0..(NZ * NY * NX) as i32).map(|i| i * 7 - 5000).collect();
    // (name, compressor setup, endianness: 1 little, 2 big)
    let setups: [(&str, Setup, c_int); 5] = [
        ("blosc-lz4", |nc, v| nc_def_var_blosc(nc, v, 1, 5, 1024, 1), 1),
        ("blosc-zstd-big", |nc, v| nc_def_var_blosc(nc, v, 4, 3, 512, 2), 2),
        ("blosc-noshuffle", |nc, v| nc_def_var_blosc(nc, v, 0, 1, 0, 0), 1),
        ("zstd", |nc, v| nc_def_var_zstandard(nc, v, 1), 1),
        ("deflate-shuffle-big", |nc, v| nc_def_var_deflate(nc, v, 1, 1, 1), 2),
    ];
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut below = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for (name, setup, endian) in setups {
        let path = tmp.path().join(format!("{name}.zarr"));
        let u = CString::new(format!("file://{}#mode=nczarr,file", path.display())).unwrap();
        write_int_var(&u, [NZ, NY, NX], [3, 20, 24], endian, setup, &vals);
        unsafe {
            let mut nc = 0;
            assert_eq!(nc_open(u.as_ptr(), 0, &mut nc), 0);
            let mut all = vec![0i32; vals.len()];
            assert_eq!(nc_get_var_int(nc, 0, all.as_mut_ptr()), 0);
            assert_eq!(all, vals, "{name}: whole read");
            for _ in 0..200 {
                // No cache: every read decodes.
                assert_eq!(nc_set_var_chunk_cache(nc, 0, 0, 0, 0.5), 0);
                let start = [below(NZ), below(NY), below(NX)];
                let stride = [1 + below(2), 1 + below(2), 1 + below(3)];
                let lim = [NZ, NY, NX];
                let count: Vec<usize> = (0..3)
                    .map(|d| 1 + below(((lim[d] - start[d]).div_ceil(stride[d])).min(5)))
                    .collect();
                let n: usize = count.iter().product();
                let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
                let mut got = vec![0f64; n];
                assert_eq!(
                    nc_get_vars_double(nc, 0, start.as_ptr(), count.as_ptr(), st.as_ptr(), got.as_mut_ptr()),
                    0
                );
                let mut k = 0;
                for i in 0..count[0] {
                    for j in 0..count[1] {
                        for l in 0..count[2] {
                            let (z, y, x) = (
                                start[0] + i * stride[0],
                                start[1] + j * stride[1],
                                start[2] + l * stride[2],
                            );
                            assert_eq!(
                                got[k],
                                vals[(z * NY + y) * NX + x] as f64,
                                "{name}: {start:?} {count:?} {stride:?}"
                            );
                            k += 1;
                        }
                    }
                }
            }
            assert_eq!(nc_close(nc), 0);
        }
        // Damage every chunk past its header: a small read is NC_EFILTER
        // (where blosc compressed the blocks; a block it stored as it was
        // has nothing to check).
        if name == "blosc-lz4" || name == "blosc-zstd-big" {
            for e in fs::read_dir(path.join("v")).unwrap() {
                let p = e.unwrap().path();
                if p.file_name().unwrap().to_str().unwrap().starts_with('.') {
                    continue;
                }
                let mut b = fs::read(&p).unwrap();
                let at = b.len() - 40;
                for x in &mut b[at..] {
                    *x ^= 0x5a;
                }
                fs::write(&p, b).unwrap();
            }
            unsafe {
                let mut nc = 0;
                assert_eq!(nc_open(u.as_ptr(), 0, &mut nc), 0);
                let mut got = [0i32; 4];
                // The last elements of the first chunk (in its last block).
                let r = nc_get_vara_int(
                    nc,
                    0,
                    [2usize, 19, 20].as_ptr(),
                    [1usize, 1, 4].as_ptr(),
                    got.as_mut_ptr(),
                );
                assert_eq!(r, NC_EFILTER, "{name}: damaged chunk");
                assert_eq!(nc_close(nc), 0);
            }
        }
    }
}

/// Slabs across blosc chunks of many blocks (`[:, y0:y1, x0:x1:sx]`: a few
/// rows in every z plane, the ranges far apart) decode only the blocks that
/// hold them, each once: the values equal the model's, in both byte orders,
/// read as the stored type and as another, with no cache and with one.
#[test]
fn slabs_of_blosc_chunks_of_many_blocks_match() {
    const NZ: usize = 16;
    const NY: usize = 256;
    const NX: usize = 256;
    let tmp = tempfile::tempdir().unwrap();
    let vals: Vec<i32> = (0..(NZ * NY * NX) as i32)
        .map(|i| i.wrapping_mul(37) ^ (i >> 3))
        .collect();
    let setups: [(&str, Setup, c_int); 2] = [
        ("lz4", |nc, v| nc_def_var_blosc(nc, v, 1, 1, 0, 1), 1),
        ("zstd-big", |nc, v| nc_def_var_blosc(nc, v, 4, 1, 0, 1), 2),
    ];
    let slabs: [([usize; 3], [usize; 3], [isize; 3]); 6] = [
        ([0, 100, 0], [NZ, 3, NX], [1, 1, 1]),
        ([0, 126, 0], [NZ, 4, NX], [1, 1, 1]),
        ([3, 0, 10], [9, 1, 50], [1, 1, 3]),
        ([0, 7, 0], [NZ / 2, 2, NX / 4], [2, 100, 4]),
        ([15, 255, 255], [1, 1, 1], [1, 1, 1]),
        ([0, 64, 128], [NZ, 20, 128], [1, 1, 1]),
    ];
    for (name, setup, endian) in setups {
        let path = tmp.path().join(format!("{name}.zarr"));
        let u = CString::new(format!("file://{}#mode=nczarr,file", path.display())).unwrap();
        // 1 MiB chunks: blosc splits each into many blocks.
        write_int_var(&u, [NZ, NY, NX], [8, 128, 256], endian, setup, &vals);
        unsafe {
            let mut nc = 0;
            assert_eq!(nc_open(u.as_ptr(), 0, &mut nc), 0);
            for cache in [0usize, 64 << 20] {
                assert_eq!(nc_set_var_chunk_cache(nc, 0, cache, 16, 0.5), 0);
                for (start, count, stride) in slabs {
                    let n: usize = count.iter().product();
                    let want: Vec<i32> = (0..n)
                        .map(|k| {
                            let (i, j, l) = (k / (count[1] * count[2]), k / count[2] % count[1], k % count[2]);
                            let z = start[0] + i * stride[0] as usize;
                            let y = start[1] + j * stride[1] as usize;
                            let x = start[2] + l * stride[2] as usize;
                            vals[(z * NY + y) * NX + x]
                        })
                        .collect();
                    let mut got = vec![0i32; n];
                    let r = nc_get_vars_int(nc, 0, start.as_ptr(), count.as_ptr(), stride.as_ptr(), got.as_mut_ptr());
                    assert_eq!(r, 0, "{name}: {start:?} {count:?} {stride:?}");
                    assert!(got == want, "{name} (cache {cache}): {start:?} {count:?} {stride:?}");
                    let mut got = vec![0f64; n];
                    let r =
                        nc_get_vars_double(nc, 0, start.as_ptr(), count.as_ptr(), stride.as_ptr(), got.as_mut_ptr());
                    assert_eq!(r, 0);
                    assert!(
                        got.iter().zip(&want).all(|(g, w)| *g == *w as f64),
                        "{name} as double: {start:?} {count:?} {stride:?}"
                    );
                }
            }
            assert_eq!(nc_close(nc), 0);
        }
    }
}

/// Reads larger than the chunk cache (which decode blosc chunks straight
/// into the caller's buffer, block by block) equal the written values:
/// whole arrays and slabs, in both byte orders, for blosc's LZ4 with byte
/// shuffle and without, and for blosc's zstd (decoded by c-blosc); read as
/// another type they take the whole-chunk path and equal them too.
#[test]
fn reads_larger_than_the_cache_decode_blosc_into_place() {
    const NZ: usize = 16;
    const NY: usize = 256;
    const NX: usize = 256;
    let tmp = tempfile::tempdir().unwrap();
    let vals: Vec<i32> = (0..(NZ * NY * NX) as i32).map(|i| (i / 3) ^ (i << 7)).collect();
    let setups: [(&str, Setup, c_int); 4] = [
        ("lz4", |nc, v| nc_def_var_blosc(nc, v, 1, 1, 0, 1), 1),
        ("lz4-big", |nc, v| nc_def_var_blosc(nc, v, 1, 1, 0, 1), 2),
        ("lz4-noshuffle-big", |nc, v| nc_def_var_blosc(nc, v, 1, 5, 0, 0), 2),
        ("zstd", |nc, v| nc_def_var_blosc(nc, v, 4, 1, 0, 1), 1),
    ];
    for (name, setup, endian) in setups {
        let path = tmp.path().join(format!("{name}.zarr"));
        let u = CString::new(format!("file://{}#mode=nczarr,file", path.display())).unwrap();
        // 1 MiB chunks (8 of them) read through a 1 MiB cache.
        write_int_var(&u, [NZ, NY, NX], [8, 128, 256], endian, setup, &vals);
        unsafe {
            let mut nc = 0;
            assert_eq!(nc_open(u.as_ptr(), 0, &mut nc), 0);
            assert_eq!(nc_set_var_chunk_cache(nc, 0, 1 << 20, 4, 0.5), 0);
            let mut all = vec![0i32; vals.len()];
            assert_eq!(nc_get_var_int(nc, 0, all.as_mut_ptr()), 0);
            assert!(all == vals, "{name}: whole read");
            let mut as_double = vec![0f64; vals.len()];
            assert_eq!(nc_get_var_double(nc, 0, as_double.as_mut_ptr()), 0);
            assert!(
                as_double.iter().zip(&vals).all(|(d, v)| *d == f64::from(*v)),
                "{name}: as double"
            );
            // Rows 100..230 of planes 3..15, columns 7..250: runs that start
            // and end inside blocks, across the chunks of both halves.
            let (start, count) = ([3usize, 100, 7], [12usize, 130, 243]);
            let mut got = vec![0i32; count.iter().product()];
            assert_eq!(
                nc_get_vara_int(nc, 0, start.as_ptr(), count.as_ptr(), got.as_mut_ptr()),
                0
            );
            let want: Vec<i32> = (0..got.len())
                .map(|k| {
                    let (i, j, l) = (k / (count[1] * count[2]), k / count[2] % count[1], k % count[2]);
                    vals[((start[0] + i) * NY + start[1] + j) * NX + start[2] + l]
                })
                .collect();
            assert!(got == want, "{name}: slab");
            assert_eq!(nc_close(nc), 0);
        }
    }
}
