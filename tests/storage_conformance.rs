//! One conformance suite for every `Store` backend (file, memory, zip, and zip
//! reopened from disk after every change), plus tests of what only the file
//! store can meet (links, FIFOs, permissions, dataset creation).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{RwLock, mpsc};
use std::time::Duration;

use netcdf::format::markers::{is_marker, replace_rule};
use netcdf::storage::file::FileStore;
use netcdf::storage::memory::MemoryStore;
use netcdf::storage::zip::ZipStore;
use netcdf::storage::{Capabilities, Durability, Key, RangeAt, RangeRead, Replace, Store, StoreError, StoreResult};

mod common;

fn k(s: &str) -> Key {
    Key::new(s).expect("valid key")
}

/// Generic tests: each takes a fresh, empty, writable store.
mod conformance {
    use super::*;

    pub fn get_absent(s: &dyn Store) {
        assert_eq!(s.get(&k("nothing"), 100), Ok(None));
        assert_eq!(s.get(&k("a/b/c"), 100), Ok(None));
        assert_eq!(s.get_range(&k("nothing"), 0, 1), Ok(None));
        assert_eq!(s.len(&k("nothing")), Ok(None));
        // The root holds no object.
        assert_eq!(s.get(&Key::root(), 100), Ok(None));
        assert_eq!(s.len(&Key::root()), Ok(None));
    }

    pub fn round_trip(s: &dyn Store) {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        s.put(&k("x/y/0.0"), &data).unwrap();
        assert_eq!(s.get(&k("x/y/0.0"), 10_000).unwrap().as_deref(), Some(&data[..]));
        assert_eq!(s.get(&k("/x/y/0.0"), u64::MAX).unwrap().as_deref(), Some(&data[..]));
        assert_eq!(s.len(&k("x/y/0.0")), Ok(Some(10_000)));
        // A prefix is not an object.
        assert_eq!(s.get(&k("x/y"), 100), Ok(None));
        assert_eq!(s.len(&k("x")), Ok(None));
        // An object written from parts is their concatenation.
        s.put_parts(&k("x/y/0.1"), &[&data[..10], &[], &data[10..]]).unwrap();
        assert_eq!(s.get(&k("x/y/0.1"), 10_000).unwrap().as_deref(), Some(&data[..]));
        s.put_parts(&k("x/y/0.2"), &[]).unwrap();
        assert_eq!(s.get(&k("x/y/0.2"), 0), Ok(Some(vec![])));
        s.put_owned(&k("x/y/0.3"), vec![data[..7].to_vec(), Vec::new(), data[7..].to_vec()])
            .unwrap();
        assert_eq!(s.get(&k("x/y/0.3"), 10_000).unwrap().as_deref(), Some(&data[..]));
    }

    /// `put_new`: a new object (its folders made as needed), or, if one is
    /// there after all, replaced whole as `put` replaces.
    pub fn put_new(s: &dyn Store) {
        s.put_new(&k("n/a/.zarray"), b"{\"zarr_format\": 2}").unwrap();
        assert_eq!(
            s.get(&k("n/a/.zarray"), 100).unwrap().as_deref(),
            Some(&b"{\"zarr_format\": 2}"[..])
        );
        s.put(&k("n/b/.zattrs"), b"old and longer").unwrap();
        s.put_new(&k("n/b/.zattrs"), b"new").unwrap();
        assert_eq!(s.get(&k("n/b/.zattrs"), 100).unwrap().as_deref(), Some(&b"new"[..]));
        s.put_new(&k("n/b/.zarray"), b"").unwrap();
        assert_eq!(s.get(&k("n/b/.zarray"), 0), Ok(Some(vec![])));
        assert_eq!(s.list(&k("n")).unwrap(), vec!["a", "b"]);
        assert_eq!(s.list(&k("n/b")).unwrap(), vec![".zarray", ".zattrs"]);
    }

    pub fn overwrite(s: &dyn Store) {
        s.put(&k(".zattrs"), b"{\"a\": 1, \"long\": \"value\"}").unwrap();
        s.put(&k(".zattrs"), b"{}").unwrap();
        assert_eq!(s.get(&k(".zattrs"), 100).unwrap().as_deref(), Some(&b"{}"[..]));
        assert_eq!(s.len(&k(".zattrs")), Ok(Some(2)));
        s.put(&k(".zattrs"), &[7u8; 5000]).unwrap();
        assert_eq!(s.get(&k(".zattrs"), 5000).unwrap(), Some(vec![7u8; 5000]));
        assert_eq!(s.list(&Key::root()).unwrap(), vec![".zattrs"]);
    }

    pub fn max_len(s: &dyn Store) {
        s.put(&k("big"), &vec![1u8; 1 << 20]).unwrap();
        assert_eq!(s.get(&k("big"), 10), Err(StoreError::Corrupt));
        assert_eq!(s.get(&k("big"), (1 << 20) - 1), Err(StoreError::Corrupt));
        assert_eq!(s.get(&k("big"), 1 << 20).unwrap().map(|v| v.len()), Some(1 << 20));
        s.put(&k("small"), b"abc").unwrap();
        assert_eq!(s.get(&k("small"), 0), Err(StoreError::Corrupt));
        assert_eq!(s.get(&k("small"), 3).unwrap().as_deref(), Some(&b"abc"[..]));
    }

    pub fn ranges(s: &dyn Store) {
        let data: Vec<u8> = (0..100u8).collect();
        s.put(&k("v/c"), &data).unwrap();
        let r = |o, l| s.get_range(&k("v/c"), o, l);
        assert_eq!(r(0, 100).unwrap().as_deref(), Some(&data[..]));
        assert_eq!(r(10, 5).unwrap().as_deref(), Some(&data[10..15]));
        assert_eq!(r(99, 1).unwrap().as_deref(), Some(&data[99..]));
        assert_eq!(r(100, 0).unwrap(), Some(vec![]));
        assert_eq!(r(0, 0).unwrap(), Some(vec![]));
        assert_eq!(r(0, 101), Err(StoreError::Corrupt));
        assert_eq!(r(99, 2), Err(StoreError::Corrupt));
        assert_eq!(r(101, 0), Err(StoreError::Corrupt));
        assert_eq!(r(u64::MAX, 2), Err(StoreError::Corrupt));
        assert_eq!(r(1, u64::MAX), Err(StoreError::Corrupt));
        assert_eq!(r(0, u64::MAX), Err(StoreError::Corrupt));
        assert_eq!(s.get_range(&k("v"), 0, 1), Ok(None));
    }

    /// Ranges with the object's size (from an offset or at the end), into a
    /// reused buffer, and scattered parts at their offsets: what a shard's
    /// index and inner chunks are read with.
    pub fn sized_ranges(s: &dyn Store) {
        let data: Vec<u8> = (0..100u8).collect();
        s.put(&k("sr/c"), &data).unwrap();
        let key = k("sr/c");
        let sized = |at, len| s.get_range_sized(&key, at, len);
        assert_eq!(sized(RangeAt::End, 10), Ok(Some((data[90..].to_vec(), 100))));
        assert_eq!(sized(RangeAt::End, 100), Ok(Some((data.clone(), 100))));
        assert_eq!(sized(RangeAt::Offset(0), 4), Ok(Some((data[..4].to_vec(), 100))));
        assert_eq!(sized(RangeAt::Offset(96), 4), Ok(Some((data[96..].to_vec(), 100))));
        assert_eq!(sized(RangeAt::End, 0), Ok(Some((vec![], 100))));
        assert_eq!(sized(RangeAt::End, 101), Err(StoreError::Corrupt));
        assert_eq!(sized(RangeAt::Offset(97), 4), Err(StoreError::Corrupt));
        assert_eq!(s.get_range_sized(&k("sr/none"), RangeAt::End, 4), Ok(None));
        assert_eq!(s.get_range_sized(&k("sr/none"), RangeAt::Offset(0), 4), Ok(None));

        let mut buf = vec![7u8; 3];
        assert_eq!(s.get_range_into(&key, 20, 30, &mut buf), Ok(true));
        assert_eq!(buf, &data[20..50]);
        assert_eq!(s.get_range_into(&key, 99, 1, &mut buf), Ok(true));
        assert_eq!(buf, [99]);
        assert_eq!(s.get_range_into(&key, 90, 11, &mut buf), Err(StoreError::Corrupt));
        assert_eq!(s.get_range_into(&k("sr/none"), 0, 1, &mut buf), Ok(false));

        let (mut a, mut b, mut c) = ([0u8; 3], [0u8; 5], [0u8; 1]);
        let mut parts: Vec<(u64, &mut [u8])> = vec![(60, &mut b[..]), (10, &mut a[..]), (99, &mut c[..])];
        assert_eq!(s.read_ranges(&key, &mut parts), Ok(true));
        assert_eq!((&a[..], &b[..], &c[..]), (&data[10..13], &data[60..65], &data[99..]));
        let mut d = [0u8; 2];
        let mut past: Vec<(u64, &mut [u8])> = vec![(0, &mut a[..]), (99, &mut d[..])];
        assert_eq!(s.read_ranges(&key, &mut past), Err(StoreError::Corrupt));
        let mut huge: Vec<(u64, &mut [u8])> = vec![(u64::MAX - 1, &mut d[..])];
        assert_eq!(s.read_ranges(&key, &mut huge), Err(StoreError::Corrupt));
        let mut absent: Vec<(u64, &mut [u8])> = vec![(0, &mut d[..])];
        assert_eq!(s.read_ranges(&k("sr/none"), &mut absent), Ok(false));
        assert_eq!(d, [0; 2], "nothing written for an absent object");
        let mut none: Vec<(u64, &mut [u8])> = Vec::new();
        assert_eq!(s.read_ranges(&key, &mut none), Ok(true));
        assert_eq!(s.read_ranges(&k("sr/none"), &mut none), Ok(false));
    }

    /// Ranges fetched together, each cut into pieces that arrive in their
    /// own slots: a piece of an absent object is None, a range past the end
    /// an error for each of its pieces.
    pub fn get_ranges(s: &dyn Store) {
        let data: Vec<u8> = (0..200u8).collect();
        s.put(&k("gr/a"), &data).unwrap();
        s.put(&k("gr/b"), &data[..50]).unwrap();
        let read = |key: &str, offset, len, pieces: Vec<(usize, u64, u64)>| RangeRead {
            key: k(key),
            offset,
            len,
            pieces,
        };
        let reads = vec![
            // (Pieces may overlap, or be empty.)
            read("gr/a", 10, 30, vec![(2, 0, 5), (0, 20, 10), (6, 30, 0), (7, 2, 6)]),
            read("gr/b", 0, 50, vec![(1, 0, 50)]),
            read("gr/none", 0, 4, vec![(3, 0, 4)]),
            read("gr/b", 40, 20, vec![(4, 0, 20), (5, 10, 10)]),
        ];
        let got = s.start_get_ranges(8, reads);
        assert_eq!(got.take(0), Ok(Some(data[30..40].to_vec())));
        assert_eq!(got.take(1), Ok(Some(data[..50].to_vec())));
        assert_eq!(got.take(2), Ok(Some(data[10..15].to_vec())));
        assert_eq!(got.take(3), Ok(None));
        assert_eq!(got.take(4), Err(StoreError::Corrupt));
        assert_eq!(got.take(5), Err(StoreError::Corrupt));
        assert_eq!(got.take(6), Ok(Some(vec![])));
        assert_eq!(got.take(7), Ok(Some(data[12..18].to_vec())));
        assert!(got.take_any().is_none(), "every piece taken");
        assert!(s.start_get_ranges(0, Vec::new()).take_any().is_none());
    }

    pub fn lists(s: &dyn Store) {
        for key in [
            ".zgroup",
            ".zattrs",
            "g/.zgroup",
            "g/v/.zarray",
            "g/v/0.0",
            "g/v/0.1",
            "g/w/.zarray",
            "h.x",
        ] {
            s.put(&k(key), b"{}").unwrap();
        }
        assert_eq!(s.list(&Key::root()).unwrap(), vec![".zattrs", ".zgroup", "g", "h.x"]);
        assert_eq!(s.list(&k("g")).unwrap(), vec![".zgroup", "v", "w"]);
        assert_eq!(s.list(&k("/g/v")).unwrap(), vec![".zarray", "0.0", "0.1"]);
        assert_eq!(s.list(&k("g/w")).unwrap(), vec![".zarray"]);
        // An object has no children; a missing prefix is empty.
        assert_eq!(s.list(&k("g/v/0.0")).unwrap(), Vec::<String>::new());
        assert_eq!(s.list(&k("missing")).unwrap(), Vec::<String>::new());
        assert_eq!(s.list(&k("missing/deeper/still")).unwrap(), Vec::<String>::new());
        assert_eq!(s.list(&k("h.x/y")).unwrap(), Vec::<String>::new());
    }

    /// Names that sort around '/' ('.' < '/' < '0') list in byte order.
    pub fn list_order(s: &dyn Store) {
        for key in ["a/x", "a.b", "a0", "a-", "a/y/z", "b"] {
            s.put(&k(key), b"1").unwrap();
        }
        assert_eq!(s.list(&Key::root()).unwrap(), vec!["a", "a-", "a.b", "a0", "b"]);
        assert_eq!(s.list(&k("a")).unwrap(), vec!["x", "y"]);
    }

    pub fn deletes(s: &dyn Store) {
        for key in ["g/v/0.0", "g/v/0.1", "g/.zgroup", "gg/.zgroup", "g.zattrs"] {
            s.put(&k(key), b"data").unwrap();
        }
        s.delete(&k("g/v/0.0")).unwrap();
        assert_eq!(s.get(&k("g/v/0.0"), 10), Ok(None));
        assert_eq!(s.list(&k("g/v")).unwrap(), vec!["0.1"]);
        // Absent is fine, at any depth.
        s.delete(&k("g/v/0.0")).unwrap();
        s.delete(&k("no/such/thing")).unwrap();
        s.delete(&k("g/v/0.1/below")).unwrap();
        // A prefix takes everything below it and nothing beside it.
        s.delete(&k("g")).unwrap();
        assert_eq!(s.get(&k("g/.zgroup"), 10), Ok(None));
        assert_eq!(s.get(&k("g/v/0.1"), 10), Ok(None));
        assert_eq!(s.list(&k("g")).unwrap(), Vec::<String>::new());
        assert_eq!(s.list(&Key::root()).unwrap(), vec!["g.zattrs", "gg"]);
        assert_eq!(s.get(&k("gg/.zgroup"), 10).unwrap().as_deref(), Some(&b"data"[..]));
        // Deleting the last object below a prefix leaves no empty "directory".
        s.put(&k("x/y/z/obj"), b"1").unwrap();
        s.delete(&k("x/y/z/obj")).unwrap();
        assert_eq!(s.list(&k("x")).unwrap(), Vec::<String>::new());
        assert_eq!(s.list(&Key::root()).unwrap(), vec!["g.zattrs", "gg"]);
        // The root prefix empties the store, which stays usable.
        s.delete(&Key::root()).unwrap();
        assert_eq!(s.list(&Key::root()).unwrap(), Vec::<String>::new());
        s.put(&k("again"), b"1").unwrap();
        assert_eq!(s.list(&Key::root()).unwrap(), vec!["again"]);
    }

    pub fn odd_keys(s: &dyn Store) {
        let deep = "a.b/c.d.e/.f/0.0.0/1/2/3/4/5/6/7/8/9/x.y.z";
        s.put(&k(deep), b"deep").unwrap();
        assert_eq!(s.get(&k(deep), 10).unwrap().as_deref(), Some(&b"deep"[..]));
        let segs: Vec<&str> = deep.split('/').collect();
        for i in 0..segs.len() {
            let prefix = if i == 0 { Key::root() } else { k(&segs[..i].join("/")) };
            assert_eq!(s.list(&prefix).unwrap(), vec![segs[i]], "list {:?}", prefix);
        }
        for key in ["..a", "...", ".a.", "a..b", "-", "with space", "ünïcödé", "0"] {
            s.put(&k(key), key.as_bytes()).unwrap();
            assert_eq!(s.get(&k(key), 100).unwrap().as_deref(), Some(key.as_bytes()));
        }
        assert!(s.list(&Key::root()).unwrap().contains(&"ünïcödé".to_string()));
    }

    pub fn empty_object(s: &dyn Store) {
        s.put(&k("e/empty"), b"").unwrap();
        assert_eq!(s.get(&k("e/empty"), 0), Ok(Some(vec![])));
        assert_eq!(s.len(&k("e/empty")), Ok(Some(0)));
        assert_eq!(s.get_range(&k("e/empty"), 0, 0), Ok(Some(vec![])));
        assert_eq!(s.get_range(&k("e/empty"), 0, 1), Err(StoreError::Corrupt));
        assert_eq!(s.list(&k("e")).unwrap(), vec!["empty"]);
    }

    /// A key cannot be both an object and a prefix of another object.
    pub fn object_prefix_conflict(s: &dyn Store) {
        s.put(&k("a"), b"object").unwrap();
        assert_eq!(s.put(&k("a/b"), b"x"), Err(StoreError::ObjectAndPrefix));
        assert_eq!(s.put(&k("a/b/c"), b"x"), Err(StoreError::ObjectAndPrefix));
        assert_eq!(s.get(&k("a"), 10).unwrap().as_deref(), Some(&b"object"[..]));
        s.put(&k("d/e"), b"x").unwrap();
        assert_eq!(s.put(&k("d"), b"y"), Err(StoreError::ObjectAndPrefix));
        assert_eq!(s.get(&k("d/e"), 10).unwrap().as_deref(), Some(&b"x"[..]));
        assert_eq!(s.list(&Key::root()).unwrap(), vec!["a", "d"]);
        assert_eq!(s.put(&Key::root(), b"x"), Err(StoreError::InvalidKey));
    }

    pub fn concurrent_distinct(s: &dyn Store) {
        std::thread::scope(|scope| {
            for t in 0..8u8 {
                scope.spawn(move || {
                    for j in 0..40u32 {
                        let key = k(&format!("t{t}/c/{j}"));
                        let data = vec![t; 100 + j as usize];
                        s.put(&key, &data).unwrap();
                        assert_eq!(s.get(&key, 1000).unwrap(), Some(data));
                    }
                });
            }
        });
        let top = s.list(&Key::root()).unwrap();
        assert_eq!(top, (0..8).map(|t| format!("t{t}")).collect::<Vec<_>>());
        for t in 0..8 {
            assert_eq!(s.list(&k(&format!("t{t}/c"))).unwrap().len(), 40);
        }
    }

    /// Readers of a key rewritten concurrently see one whole version.
    pub fn concurrent_same_key(s: &dyn Store) {
        let key = k("shared/0.0");
        let version = |b: u8| vec![b; 4096 + 97 * b as usize];
        s.put(&key, &version(0)).unwrap();
        std::thread::scope(|scope| {
            for w in 1..=4u8 {
                let key = key.clone();
                scope.spawn(move || {
                    for _ in 0..50 {
                        s.put(&key, &version(w)).unwrap();
                    }
                });
            }
            for _ in 0..4 {
                let key = key.clone();
                scope.spawn(move || {
                    for _ in 0..200 {
                        let got = s.get(&key, 1 << 20).unwrap().expect("never absent");
                        let b = got[0];
                        assert!(b <= 4);
                        assert_eq!(got, version(b), "a mixture of versions");
                        let part = s.get_range(&key, 0, 4096).unwrap().expect("never absent");
                        assert!(part.iter().all(|&x| x == part[0]));
                    }
                });
            }
        });
        assert_eq!(s.list(&k("shared")).unwrap(), vec!["0.0"]);
    }

    /// Puts next to keys that are repeatedly created and deleted (a delete
    /// may remove the directory they share, and a put may recreate it) always
    /// succeed.
    pub fn concurrent_put_delete(s: &dyn Store) {
        std::thread::scope(|scope| {
            for t in 0..4 {
                scope.spawn(move || {
                    let key = k(&format!("p/q/r/{t}"));
                    for i in 0..100 {
                        let data = format!("{t}-{i}");
                        s.put(&key, data.as_bytes()).unwrap();
                        assert_eq!(s.get(&key, 100).unwrap(), Some(data.into_bytes()));
                        s.delete(&key).unwrap();
                    }
                });
            }
        });
        assert_eq!(s.list(&Key::root()).unwrap(), Vec::<String>::new());
    }

    /// Parts of an object read in place: contiguous and scattered, in any
    /// order, many (more than one vectored read takes); a wrong-sized object is
    /// an error and an absent one reads nothing.
    pub fn read_parts(s: &dyn Store) {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        s.put(&k("rp/0.0"), &data).unwrap();
        // 2500 parts of 3 bytes every 4 (gaps) and 1000 contiguous parts of 2.
        let mut bufs: Vec<Vec<u8>> = (0..2500).map(|_| vec![0u8; 3]).collect();
        let mut parts: Vec<(u64, &mut [u8])> = bufs
            .iter_mut()
            .enumerate()
            .rev()
            .map(|(i, b)| (i as u64 * 4, b.as_mut_slice()))
            .collect();
        assert!(s.read_parts(&k("rp/0.0"), 10_000, &mut parts).unwrap());
        for (i, b) in bufs.iter().enumerate() {
            assert_eq!(b.as_slice(), &data[i * 4..i * 4 + 3], "part {i}");
        }
        let mut whole = vec![0u8; 2000];
        let mut parts: Vec<(u64, &mut [u8])> = whole
            .chunks_mut(2)
            .enumerate()
            .map(|(i, c)| (5000 + 2 * i as u64, c))
            .collect();
        assert!(s.read_parts(&k("rp/0.0"), 10_000, &mut parts).unwrap());
        assert_eq!(whole.as_slice(), &data[5000..7000]);
        let mut one = [0u8; 4];
        let mut parts: Vec<(u64, &mut [u8])> = vec![(0, &mut one[..])];
        assert!(s.read_parts(&k("rp/0.0"), 9_999, &mut parts).is_err());
        assert!(!s.read_parts(&k("rp/absent"), 10_000, &mut parts).unwrap());
        assert_eq!(one, [0; 4]);
        let mut none: Vec<(u64, &mut [u8])> = Vec::new();
        assert!(s.read_parts(&k("rp/0.0"), 10_000, &mut none).unwrap());
    }

    /// Both levels, in every order, with objects deleted in between (a
    /// stable flush of what is gone is no error).
    pub fn flush(s: &dyn Store) {
        s.flush(Durability::Visible).unwrap();
        s.flush(Durability::Stable).unwrap();
        s.put(&k("f/1"), b"1").unwrap();
        s.put(&k("f/2/3"), b"1").unwrap();
        s.flush(Durability::Visible).unwrap();
        assert_eq!(s.get(&k("f/2/3"), 10).unwrap().as_deref(), Some(&b"1"[..]));
        s.flush(Durability::Stable).unwrap();
        s.delete(&k("f/2")).unwrap();
        s.put(&k("f/4"), b"4").unwrap();
        s.flush(Durability::Visible).unwrap();
        s.delete(&k("f")).unwrap();
        s.flush(Durability::Stable).unwrap();
        s.flush(Durability::Stable).unwrap();
        assert_eq!(s.list(&Key::root()).unwrap(), Vec::<String>::new());
        s.put(&k("g/1"), b"1").unwrap();
        s.delete(&k("g/1")).unwrap();
        s.flush(Durability::Stable).unwrap();
        assert_eq!(s.list(&Key::root()).unwrap(), Vec::<String>::new());
    }
}

/// Instantiate every conformance test for one backend. `$make` yields the
/// store and a guard that keeps its backing alive.
macro_rules! conformance_suite {
    ($backend:ident, $make:expr) => {
        mod $backend {
            use super::*;
            conformance_suite!(@tests $make;
                get_absent, round_trip, put_new, overwrite, max_len, ranges, sized_ranges, get_ranges, lists, list_order,
                deletes, odd_keys, empty_object, object_prefix_conflict,
                concurrent_distinct, concurrent_same_key, concurrent_put_delete, read_parts, flush);
        }
    };
    (@tests $make:expr; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                let (store, _guard) = $make;
                conformance::$name(&*store);
            }
        )*
    };
}

fn file_store() -> (Box<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::create(&dir.path().join("ds.zarr"), Replace::Never).unwrap();
    (Box::new(store), dir)
}

fn memory_store() -> (Box<dyn Store>, ()) {
    (Box::new(MemoryStore::new()), ())
}

conformance_suite!(file, file_store());
conformance_suite!(memory, memory_store());
conformance_suite!(zip, zip_store());
conformance_suite!(zip_reopened, zip_reopened_store());

fn zip_store() -> (Box<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = ZipStore::create(&dir.path().join("ds.zip"), Replace::Never).unwrap();
    (Box::new(store), dir)
}

fn zip_reopened_store() -> (Box<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ds.zip");
    let store = ZipStore::create(&path, Replace::Never).unwrap();
    store.flush(Durability::Visible).unwrap();
    let store = RwLock::new(ZipStore::open(&path, true, &is_marker).unwrap());
    (Box::new(ReopenedZip { path, store }), dir)
}

/// The zip store flushed, dropped and opened again from disk after every
/// change: the suite then checks what the archive holds, not what the store
/// remembers.
#[derive(Debug)]
struct ReopenedZip {
    path: PathBuf,
    store: RwLock<ZipStore>,
}

impl ReopenedZip {
    fn change(&self, f: impl FnOnce(&ZipStore) -> StoreResult<()>) -> StoreResult<()> {
        let mut guard = self.store.write().unwrap();
        let r = f(&guard);
        guard.flush(Durability::Visible).unwrap();
        *guard = ZipStore::open(&self.path, true, &is_marker).unwrap();
        r
    }
}

impl Store for ReopenedZip {
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>> {
        self.store.read().unwrap().get(key, max_len)
    }
    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        self.store.read().unwrap().get_range(key, offset, len)
    }
    fn len(&self, key: &Key) -> StoreResult<Option<u64>> {
        self.store.read().unwrap().len(key)
    }
    fn put(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        self.change(|s| s.put(key, data))
    }
    fn delete(&self, key: &Key) -> StoreResult<()> {
        self.change(|s| s.delete(key))
    }
    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        self.store.read().unwrap().list(prefix)
    }
    fn flush(&self, level: Durability) -> StoreResult<()> {
        self.store.read().unwrap().flush(level)
    }
    fn capabilities(&self) -> Capabilities {
        self.store.read().unwrap().capabilities()
    }
}

// ---------------------------------------------------------------------------
// FileStore only.

fn new_file_store() -> (FileStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::create(&dir.path().join("ds.zarr"), Replace::Never).unwrap();
    (store, dir)
}

/// Run `f` on another thread; fail instead of hanging if it blocks.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).expect("operation blocked")
}

fn tmp_leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".nczarr-tmp."))
        .collect()
}

#[test]
fn file_fifo_is_an_error_without_blocking() {
    let (store, _dir) = new_file_store();
    let fifo = store.root().join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo unavailable; skipping");
        return;
    }
    std::os::unix::fs::symlink(&fifo, store.root().join("link")).unwrap();
    let store = std::sync::Arc::new(store);
    for name in ["fifo", "link"] {
        let s = store.clone();
        let r = within(10, move || {
            (s.get(&k(name), 100), s.get_range(&k(name), 0, 1), s.len(&k(name)))
        });
        assert_eq!(
            r,
            (
                Err(StoreError::Corrupt),
                Err(StoreError::Corrupt),
                Err(StoreError::Corrupt)
            )
        );
    }
    assert_eq!(store.list(&Key::root()).unwrap(), Vec::<String>::new());
    // Writing replaces the FIFO with an object.
    store.put(&k("fifo"), b"now a file").unwrap();
    assert_eq!(store.get(&k("fifo"), 100).unwrap().as_deref(), Some(&b"now a file"[..]));
}

#[test]
fn file_socket_is_an_error() {
    let (store, _dir) = new_file_store();
    let path = store.root().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    assert_eq!(store.get(&k("sock"), 100), Err(StoreError::Corrupt));
    assert_eq!(store.len(&k("sock")), Err(StoreError::Corrupt));
    assert_eq!(store.list(&Key::root()).unwrap(), Vec::<String>::new());
}

#[test]
fn file_symlink_read_follows_write_replaces() {
    let (store, dir) = new_file_store();
    let target = dir.path().join("outside.txt");
    fs::write(&target, b"target").unwrap();
    let link = store.root().join("obj");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(store.get(&k("obj"), 100).unwrap().as_deref(), Some(&b"target"[..]));
    assert_eq!(store.get_range(&k("obj"), 2, 3).unwrap().as_deref(), Some(&b"rge"[..]));
    assert_eq!(store.len(&k("obj")), Ok(Some(6)));
    assert_eq!(store.list(&Key::root()).unwrap(), vec!["obj"]);

    store.put(&k("obj"), b"replaced").unwrap();
    assert_eq!(store.get(&k("obj"), 100).unwrap().as_deref(), Some(&b"replaced"[..]));
    assert!(!fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"target");

    // Deleting a link removes the link, not its target.
    std::os::unix::fs::symlink(&target, store.root().join("obj2")).unwrap();
    store.delete(&k("obj2")).unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"target");

    // A link to a directory outside: deleting the prefix removes only the link.
    let outdir = dir.path().join("outdir");
    fs::create_dir(&outdir).unwrap();
    fs::write(outdir.join("keep"), b"keep").unwrap();
    std::os::unix::fs::symlink(&outdir, store.root().join("lnkdir")).unwrap();
    assert_eq!(store.list(&k("lnkdir")).unwrap(), vec!["keep"]);
    store.delete(&k("lnkdir")).unwrap();
    assert_eq!(fs::read(outdir.join("keep")).unwrap(), b"keep");
}

#[test]
fn file_put_new_replaces_a_link_and_leaves_no_temporary_file() {
    let (store, dir) = new_file_store();
    let target = dir.path().join("outside.txt");
    fs::write(&target, b"target").unwrap();
    fs::create_dir(store.root().join("v")).unwrap();
    std::os::unix::fs::symlink(&target, store.root().join("v/.zarray")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), store.root().join("v/.zattrs")).unwrap();
    store.put_new(&k("v/.zarray"), b"replaced").unwrap();
    store.put_new(&k("v/.zattrs"), b"{}").unwrap();
    assert_eq!(
        store.get(&k("v/.zarray"), 100).unwrap().as_deref(),
        Some(&b"replaced"[..])
    );
    assert_eq!(store.get(&k("v/.zattrs"), 100).unwrap().as_deref(), Some(&b"{}"[..]));
    for name in [".zarray", ".zattrs"] {
        let meta = fs::symlink_metadata(store.root().join("v").join(name)).unwrap();
        assert!(meta.file_type().is_file(), "{name} is a regular file now");
    }
    assert_eq!(fs::read(&target).unwrap(), b"target");
    assert!(
        !dir.path().join("nowhere").exists(),
        "a dangling link is not written through"
    );
    // In place: no temporary name is left, in the folders made or found.
    store.put_new(&k("w/x/.zarray"), b"{}").unwrap();
    for d in ["v", "w/x"] {
        assert_eq!(tmp_leftovers(&store.root().join(d)), Vec::<String>::new());
    }
    // A read-only store refuses it.
    let ro = FileStore::open(store.root(), false).unwrap();
    assert_eq!(ro.put_new(&k("y/.zarray"), b"{}"), Err(StoreError::ReadOnly));
    assert!(!store.root().join("y").exists());
}

#[test]
fn file_dangling_symlink_is_absent() {
    let (store, dir) = new_file_store();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), store.root().join("dangling")).unwrap();
    assert_eq!(store.get(&k("dangling"), 100), Ok(None));
    assert_eq!(store.len(&k("dangling")), Ok(None));
    assert_eq!(store.list(&Key::root()).unwrap(), Vec::<String>::new());
    store.put(&k("dangling"), b"x").unwrap();
    assert_eq!(store.get(&k("dangling"), 100).unwrap().as_deref(), Some(&b"x"[..]));
    assert!(!dir.path().join("nowhere").exists());
}

#[test]
fn file_huge_sparse_object_is_refused_before_reading() {
    let (store, _dir) = new_file_store();
    let path = store.root().join("huge");
    let f = fs::File::create(&path).unwrap();
    let size = 1u64 << 40;
    if f.set_len(size).is_err() {
        eprintln!("no sparse 1 TiB file here; skipping");
        return;
    }
    drop(f);
    assert_eq!(store.get(&k("huge"), 1 << 20), Err(StoreError::Corrupt));
    assert_eq!(store.len(&k("huge")), Ok(Some(size)));
    assert_eq!(store.get_range(&k("huge"), size - 10, 10), Ok(Some(vec![0; 10])));
    assert_eq!(store.get_range(&k("huge"), size - 10, 11), Err(StoreError::Corrupt));
}

#[test]
fn file_failed_put_keeps_old_object_and_no_temp_file() {
    let (store, _dir) = new_file_store();
    // A put onto a non-empty directory fails at the rename.
    store.put(&k("d/x"), b"x").unwrap();
    assert_eq!(store.put(&k("d"), b"data"), Err(StoreError::ObjectAndPrefix));
    assert_eq!(tmp_leftovers(store.root()), Vec::<String>::new());
    assert_eq!(store.get(&k("d/x"), 10).unwrap().as_deref(), Some(&b"x"[..]));
}

#[test]
fn file_put_in_read_only_directory_keeps_old_object() {
    use std::os::unix::fs::PermissionsExt;
    let (store, _dir) = new_file_store();
    store.put(&k("g/obj"), b"old").unwrap();
    let gdir = store.root().join("g");
    fs::set_permissions(&gdir, fs::Permissions::from_mode(0o500)).unwrap();
    // Root (CAP_DAC_OVERRIDE) writes anyway: nothing to test then.
    let probe = gdir.join("probe");
    if fs::write(&probe, b"").is_ok() {
        let _ = fs::remove_file(&probe);
        fs::set_permissions(&gdir, fs::Permissions::from_mode(0o700)).unwrap();
        eprintln!("permissions are not enforced for this user; skipping");
        return;
    }
    let r = store.put(&k("g/obj"), b"new");
    let d = store.delete(&k("g/obj"));
    fs::set_permissions(&gdir, fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(r, Err(StoreError::PermissionDenied));
    assert_eq!(d, Err(StoreError::PermissionDenied));
    assert_eq!(store.get(&k("g/obj"), 10).unwrap().as_deref(), Some(&b"old"[..]));
    assert_eq!(tmp_leftovers(&gdir), Vec::<String>::new());
}

#[test]
fn file_permissions_follow_netcdf_c() {
    use std::os::unix::fs::PermissionsExt;
    let (store, _dir) = new_file_store();
    store.put(&k("a/b/c"), b"x").unwrap();
    let file_mode = fs::metadata(store.root().join("a/b/c")).unwrap().permissions().mode() & 0o7777;
    let dir_mode = fs::metadata(store.root().join("a/b")).unwrap().permissions().mode() & 0o7777;
    assert_eq!(file_mode & !0o660, 0, "file mode {file_mode:o}");
    assert_eq!(dir_mode & !0o770, 0, "dir mode {dir_mode:o}");
    assert_ne!(file_mode & 0o600, 0);
    assert_eq!(dir_mode & 0o700, 0o700);
}

#[test]
fn file_list_hides_temp_files_and_odd_names() {
    use std::os::unix::ffi::OsStrExt;
    let (store, _dir) = new_file_store();
    store.put(&k("real"), b"x").unwrap();
    fs::write(store.root().join(".nczarr-tmp.1.2"), b"partial").unwrap();
    fs::write(store.root().join(std::ffi::OsStr::from_bytes(b"bad\xff")), b"x").unwrap();
    fs::write(store.root().join("back\\slash"), b"x").unwrap();
    assert_eq!(store.list(&Key::root()).unwrap(), vec!["real"]);
    // Our temporary names are not keys.
    assert_eq!(store.get(&k(".nczarr-tmp.1.2"), 100), Err(StoreError::InvalidKey));
    assert_eq!(store.put(&k("a/.nczarr-tmp.x"), b"x"), Err(StoreError::InvalidKey));
}

#[test]
fn file_create_noclobber() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds.zarr");
    FileStore::create(&root, Replace::Never)
        .unwrap()
        .put(&k(".zgroup"), b"{}")
        .unwrap();
    assert_eq!(
        FileStore::create(&root, Replace::Never).map(|_| ()),
        Err(StoreError::AlreadyExists)
    );
    assert_eq!(fs::read(root.join(".zgroup")).unwrap(), b"{}");
    let file = dir.path().join("plain");
    fs::write(&file, b"x").unwrap();
    assert_eq!(
        FileStore::create(&file, Replace::Never).map(|_| ()),
        Err(StoreError::AlreadyExists)
    );
    assert_eq!(fs::read(&file).unwrap(), b"x");
}

#[test]
fn file_create_refuses_unrelated_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("precious");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("thesis.tex"), b"years of work").unwrap();
    fs::write(root.join("sub/data"), b"more").unwrap();
    assert_eq!(
        FileStore::create(&root, replace_rule(false)).map(|_| ()),
        Err(StoreError::AlreadyExists)
    );
    assert_eq!(fs::read(root.join("thesis.tex")).unwrap(), b"years of work");
    assert_eq!(fs::read(root.join("sub/data")).unwrap(), b"more");
}

/// The store has no rule of its own about what may be replaced: it asks the
/// caller, showing the names at the root.
#[test]
fn file_create_asks_the_caller_what_to_replace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds");
    fs::create_dir(&root).unwrap();
    fs::write(root.join(".zgroup"), b"{}").unwrap();
    fs::write(root.join("mine"), b"x").unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let refuse = |names: &[String]| {
        seen.lock().unwrap().extend_from_slice(names);
        false
    };
    assert_eq!(
        FileStore::create(&root, Replace::IfRoot(&refuse)).map(|_| ()),
        Err(StoreError::AlreadyExists)
    );
    assert_eq!(*seen.lock().unwrap(), vec![".zgroup", "mine"]);
    assert_eq!(fs::read_dir(&root).unwrap().count(), 2);
    // A Zarr marker means nothing to the store itself.
    let ours = |names: &[String]| names.iter().any(|n| n == "mine");
    let only_zarr = dir.path().join("z");
    fs::create_dir(&only_zarr).unwrap();
    fs::write(only_zarr.join(".zgroup"), b"{}").unwrap();
    assert_eq!(
        FileStore::create(&only_zarr, Replace::IfRoot(&ours)).map(|_| ()),
        Err(StoreError::AlreadyExists)
    );
    FileStore::create(&root, Replace::IfRoot(&ours)).unwrap();
    assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
}

#[test]
fn file_create_replaces_old_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds.zarr");
    // An old dataset holding a link to data outside it.
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("keep"), b"keep").unwrap();
    {
        let old = FileStore::create(&root, Replace::Never).unwrap();
        old.put(&k(".zgroup"), b"{}").unwrap();
        old.put(&k("v/.zarray"), b"{}").unwrap();
        old.put(&k("v/0"), b"chunk").unwrap();
        old.flush(Durability::Visible).unwrap();
    }
    std::os::unix::fs::symlink(&outside, root.join("v/link")).unwrap();
    // (Entries of the root are removed in parallel: a link there too.)
    std::os::unix::fs::symlink(&outside, root.join("toplink")).unwrap();
    // Every level is removed in parallel: nested groups of many files, a
    // link to a directory and a FIFO deep inside (removed, never opened).
    for g in 0..4 {
        for v in 0..30 {
            let d = root.join(format!("g{g}/sub/v{v}"));
            fs::create_dir_all(&d).unwrap();
            for c in 0..5 {
                fs::write(d.join(c.to_string()), vec![g as u8; 5000]).unwrap();
            }
        }
    }
    std::os::unix::fs::symlink(&outside, root.join("g1/sub/dirlink")).unwrap();
    std::os::unix::fs::symlink(outside.join("keep"), root.join("g2/sub/v3/filelink")).unwrap();
    let fifo = root.join("g3/sub/fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let new = FileStore::create(&root, replace_rule(false)).unwrap();
    assert_eq!(new.list(&Key::root()).unwrap(), Vec::<String>::new());
    assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
    assert_eq!(fs::read(outside.join("keep")).unwrap(), b"keep");
    new.put(&k(".zgroup"), b"{\"zarr_format\":2}").unwrap();

    // Each Zarr marker alone identifies a dataset.
    for marker in [".zarray", ".zattrs", ".zmetadata", "zarr.json", ".nczarr"] {
        let r = dir.path().join(format!("m{marker}"));
        fs::create_dir(&r).unwrap();
        fs::write(r.join(marker), b"{}").unwrap();
        fs::write(r.join("other"), b"x").unwrap();
        let s = FileStore::create(&r, replace_rule(false)).unwrap();
        assert_eq!(s.list(&Key::root()).unwrap(), Vec::<String>::new(), "{marker}");
    }
}

#[test]
fn file_create_over_a_too_deep_tree_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("deep.zarr");
    fs::create_dir(&root).unwrap();
    fs::write(root.join(".zgroup"), b"{}").unwrap();
    let mut d = root.clone();
    for _ in 0..140 {
        d.push("d");
    }
    fs::create_dir_all(&d).unwrap();
    // More levels than the remover walks: an error, not a crash.
    assert!(FileStore::create(&root, replace_rule(false)).is_err());
}

#[test]
fn file_create_replaces_file_link_and_empty_dir() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file.
    let f = dir.path().join("was_file");
    fs::write(&f, b"x").unwrap();
    FileStore::create(&f, replace_rule(false))
        .unwrap()
        .put(&k("a"), b"1")
        .unwrap();
    assert!(fs::metadata(&f).unwrap().is_dir());
    // A link to a non-Zarr directory: the link goes, the directory stays.
    let target = dir.path().join("target");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("keep"), b"keep").unwrap();
    let l = dir.path().join("was_link");
    std::os::unix::fs::symlink(&target, &l).unwrap();
    FileStore::create(&l, replace_rule(false)).unwrap();
    assert!(!fs::symlink_metadata(&l).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(target.join("keep")).unwrap(), b"keep");
    // An empty directory; missing parents are made.
    let e = dir.path().join("empty");
    fs::create_dir(&e).unwrap();
    FileStore::create(&e, replace_rule(false)).unwrap();
    FileStore::create(&dir.path().join("p/q/r.zarr"), Replace::Never).unwrap();
}

#[test]
fn file_open() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        FileStore::open(&dir.path().join("missing"), false).map(|_| ()),
        Err(StoreError::NotFound)
    );
    let file = dir.path().join("file");
    fs::write(&file, b"CDF\x01").unwrap();
    assert_eq!(
        FileStore::open(&file, false).map(|_| ()),
        Err(StoreError::NotAContainer)
    );

    let root = dir.path().join("ds.zarr");
    FileStore::create(&root, Replace::Never)
        .unwrap()
        .put(&k(".zgroup"), b"{}")
        .unwrap();
    let ro = FileStore::open(&root, false).unwrap();
    assert_eq!(ro.root(), root.as_path());
    assert_eq!(ro.get(&k(".zgroup"), 10).unwrap().as_deref(), Some(&b"{}"[..]));
    assert_eq!(ro.put(&k(".zgroup"), b"x"), Err(StoreError::ReadOnly));
    assert_eq!(ro.delete(&k(".zgroup")), Err(StoreError::ReadOnly));
    assert_eq!(ro.get(&k(".zgroup"), 10).unwrap().as_deref(), Some(&b"{}"[..]));
    ro.flush(Durability::Visible).unwrap();

    let rw = FileStore::open(&root, true).unwrap();
    rw.put(&k("v/.zarray"), b"{}").unwrap();
    rw.flush(Durability::Visible).unwrap();
    assert_eq!(ro.list(&Key::root()).unwrap(), vec![".zgroup", "v"]);

    // Opening through a link to the dataset works.
    let link = dir.path().join("link.zarr");
    std::os::unix::fs::symlink(&root, &link).unwrap();
    assert_eq!(
        FileStore::open(&link, false).unwrap().list(&k("v")).unwrap(),
        vec![".zarray"]
    );
}

#[test]
fn file_store_survives_a_vanished_root() {
    let (store, _dir) = new_file_store();
    store.put(&k("a"), b"1").unwrap();
    fs::remove_dir_all(store.root()).unwrap();
    assert_eq!(store.get(&k("a"), 10), Ok(None));
    assert_eq!(store.list(&Key::root()).unwrap(), Vec::<String>::new());
    assert!(store.put(&k("b/c"), b"1").is_err());
    store.delete(&k("a")).unwrap();
    store.flush(Durability::Visible).unwrap();
}

#[test]
fn key_validation() {
    for bad in [
        "..", "a/..", "../a", "a/../b", ".", "a/./b", "a//b", "a/", "//", "a\0b", "a\\b", "x/\0",
    ] {
        assert_eq!(Key::new(bad), Err(StoreError::InvalidKey), "{bad:?}");
    }
    assert_eq!(Key::new("/a/b").unwrap().as_str(), "a/b");
    assert!(Key::new("").unwrap().is_root());
    assert!(Key::new("/").unwrap().is_root());
    assert_eq!(
        Key::new("a.b/..c/.d").unwrap().segments().collect::<Vec<_>>(),
        ["a.b", "..c", ".d"]
    );
    assert_eq!(k("a").join(".."), Err(StoreError::InvalidKey));
    assert_eq!(k("a").join("b/c").unwrap().as_str(), "a/b/c");
    assert_eq!(Key::root().join("x").unwrap().as_str(), "x");
}

// ---------------------------------------------------------------------------
// S3, against the server of scripts/s3-server.sh: its NCZ_S3_* variables
// must be set (scripts/test-all.sh sets them), else these tests fail;
// NCZ_S3=0 skips them.

mod s3 {
    use super::*;
    use netcdf::storage::s3::{Environment, S3Options, S3Store, config};
    use std::sync::atomic::{AtomicU32, Ordering};

    static SEQ: AtomicU32 = AtomicU32::new(0);

    pub struct Server {
        pub endpoint: String,
        pub bucket: String,
        pub public: String,
        key_id: String,
        secret: String,
    }

    /// The test server (None: `NCZ_S3=0`); these tests also need its public
    /// bucket.
    pub fn server() -> Option<Server> {
        let s = crate::common::s3_server()?;
        Some(Server {
            endpoint: s.endpoint,
            bucket: s.bucket,
            public: s
                .public
                .expect("NCZ_S3_PUBLIC_BUCKET is not set (scripts/s3-server.sh writes it)"),
            key_id: s.key_id,
            secret: s.secret,
        })
    }

    impl Server {
        /// A fresh dataset prefix for one test.
        pub fn unique(&self, what: &str) -> String {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!(
                "{what}-{}-{t}-{}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed)
            )
        }

        pub fn env(&self, signed: bool) -> Environment {
            let mut env = Environment::default();
            if signed {
                env.vars.insert("AWS_ACCESS_KEY_ID".into(), self.key_id.clone());
                env.vars.insert("AWS_SECRET_ACCESS_KEY".into(), self.secret.clone());
            }
            env
        }

        pub fn config(&self, bucket: &str, prefix: &str, signed: bool) -> config::S3Config {
            let url = format!("{}/{}/{}", self.endpoint, bucket, prefix);
            let frag: Vec<(String, String)> = if signed {
                vec![]
            } else {
                vec![("aws.profile".into(), "none".into())]
            };
            config::resolve(&url, &frag, &self.env(signed)).expect("config")
        }

        pub fn store(&self, what: &str) -> S3Store {
            let cfg = self.config(&self.bucket, &self.unique(what), true);
            S3Store::create(&cfg, Replace::Never, S3Options::default()).expect("create")
        }
    }

    /// Deletes the test's objects when dropped.
    pub struct Cleanup(pub S3Store);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = self.0.destroy();
        }
    }

    macro_rules! s3_suite {
        ($($name:ident),*) => {
            $(
                #[test]
                fn $name() {
                    let Some(srv) = server() else { return };
                    let store = Cleanup(srv.store(stringify!($name)));
                    conformance::$name(&store.0);
                }
            )*
        };
    }

    // Every conformance test but object_prefix_conflict: S3 lets a key be
    // both an object and a prefix (see s3_object_and_prefix below).
    s3_suite!(
        get_absent,
        round_trip,
        overwrite,
        max_len,
        ranges,
        sized_ranges,
        get_ranges,
        lists,
        list_order,
        deletes,
        odd_keys,
        empty_object,
        concurrent_distinct,
        concurrent_same_key,
        concurrent_put_delete,
        read_parts,
        flush
    );

    #[test]
    fn s3_object_and_prefix() {
        let Some(srv) = server() else { return };
        let s = Cleanup(srv.store("prefix"));
        s.0.put(&k("a"), b"object").unwrap();
        s.0.put(&k("a/b"), b"x").unwrap();
        assert_eq!(s.0.get(&k("a"), 10).unwrap().as_deref(), Some(&b"object"[..]));
        assert_eq!(s.0.list(&Key::root()).unwrap(), vec!["a"]);
        assert_eq!(s.0.list(&k("a")).unwrap(), vec!["b"]);
        assert_eq!(s.0.put(&Key::root(), b"x"), Err(StoreError::InvalidKey));
    }

    #[test]
    fn s3_signed_and_unsigned_payloads() {
        // The server checks a signed body's SHA-256; an unsigned one is sent
        // as UNSIGNED-PAYLOAD. Both must store what was written.
        let Some(srv) = server() else { return };
        for sign in [true, false] {
            let cfg = srv.config(&srv.bucket, &srv.unique(&format!("sign{sign}")), true);
            let opts = S3Options {
                sign_payload: Some(sign),
                multipart_threshold: 5 << 20,
                part_size: 5 << 20,
                ..S3Options::default()
            };
            let s = Cleanup(S3Store::create(&cfg, Replace::Never, opts).unwrap());
            let small = b"{\"zarr_format\": 2}".to_vec();
            let big: Vec<u8> = (0..(6u32 << 20)).map(|i| (i % 253) as u8).collect();
            s.0.put(&k(".zgroup"), &small).unwrap();
            s.0.put(&k("v/0"), &big).unwrap(); // multipart
            assert_eq!(s.0.get(&k(".zgroup"), 100).unwrap(), Some(small), "sign {sign}");
            assert_eq!(
                s.0.get(&k("v/0"), u64::MAX).unwrap().as_deref(),
                Some(&big[..]),
                "sign {sign}"
            );
        }
    }

    #[test]
    fn s3_multipart_and_batches() {
        let Some(srv) = server() else { return };
        let cfg = srv.config(&srv.bucket, &srv.unique("multipart"), true);
        let opts = S3Options {
            multipart_threshold: 5 << 20,
            part_size: 5 << 20,
            ..S3Options::default()
        };
        let s = Cleanup(S3Store::create(&cfg, Replace::Never, opts).unwrap());
        let big: Vec<u8> = (0..(12u32 << 20)).map(|i| (i % 251) as u8).collect();
        s.0.put(&k("big/0"), &big).unwrap();
        assert_eq!(s.0.len(&k("big/0")), Ok(Some(big.len() as u64)));
        assert_eq!(s.0.get(&k("big/0"), u64::MAX).unwrap().as_deref(), Some(&big[..]));
        let r = s.0.get_range(&k("big/0"), (5 << 20) - 3, 10).unwrap().unwrap();
        assert_eq!(r, &big[(5 << 20) - 3..(5 << 20) + 7]);
        // The same object from parts whose bounds are not the upload's parts
        // (a shard: chunks, then the index), and from parts under the threshold.
        let (a, b) = big.split_at(3 << 20);
        let (b, c) = b.split_at(b.len() - 7);
        s.0.put_parts(&k("big/1"), &[a, &[], b, c]).unwrap();
        assert_eq!(s.0.get(&k("big/1"), u64::MAX).unwrap().as_deref(), Some(&big[..]));
        s.0.put_parts(&k("big/2"), &[&big[..10], &big[10..20]]).unwrap();
        assert_eq!(s.0.get(&k("big/2"), 100).unwrap().as_deref(), Some(&big[..20]));
        // Owned parts are sent from their own buffers, in a multipart upload
        // (parts not aligned with the upload's parts) or in one PUT.
        s.0.put_owned(&k("big/3"), vec![a.to_vec(), Vec::new(), b.to_vec(), c.to_vec()])
            .unwrap();
        assert_eq!(s.0.get(&k("big/3"), u64::MAX).unwrap().as_deref(), Some(&big[..]));
        s.0.put_owned(&k("big/4"), vec![big[..10].to_vec(), big[10..20].to_vec()])
            .unwrap();
        assert_eq!(s.0.get(&k("big/4"), 100).unwrap().as_deref(), Some(&big[..20]));
        // Batches: 50 objects written and read concurrently, one absent.
        let objs: Vec<(Key, Vec<u8>)> = (0..50)
            .map(|i| (k(&format!("v/{i}")), vec![i as u8; 1000 + i]))
            .collect();
        assert!(s.0.put_many(&objs).into_iter().all(|r| r.is_ok()));
        let mut keys: Vec<(Key, u64)> = objs.iter().map(|(k, _)| (k.clone(), 1 << 20)).collect();
        keys.push((k("v/absent"), 10));
        let got = s.0.get_many(&keys);
        assert_eq!(got.len(), 51);
        for ((_, want), g) in objs.iter().zip(&got) {
            assert_eq!(g.as_ref().unwrap().as_ref(), Some(want));
        }
        assert_eq!(got[50], Ok(None));
        assert_eq!(s.0.list(&k("v")).unwrap().len(), 50);
        // Delete of a prefix takes every page of a listing (more than 1000 keys is
        // too slow for the suite; the bulk delete is still exercised).
        s.0.delete(&k("v")).unwrap();
        assert_eq!(s.0.list(&Key::root()).unwrap(), vec!["big"]);
    }

    #[test]
    fn s3_create_rules_and_read_only() {
        let Some(srv) = server() else { return };
        let prefix = srv.unique("create");
        let cfg = srv.config(&srv.bucket, &prefix, true);
        let s = Cleanup(S3Store::create(&cfg, Replace::Never, S3Options::default()).unwrap());
        s.0.put(&k(".zgroup"), b"{}").unwrap();
        // NOCLOBBER on something that exists.
        assert_eq!(
            S3Store::create(&cfg, Replace::Never, S3Options::default()).map(|_| ()),
            Err(StoreError::AlreadyExists)
        );
        // CLOBBER replaces a Zarr dataset...
        let s2 = S3Store::create(&cfg, replace_rule(false), S3Options::default()).unwrap();
        assert_eq!(s2.list(&Key::root()).unwrap(), Vec::<String>::new());
        // ...but not other data.
        s2.put(&k("notes.txt"), b"mine").unwrap();
        assert_eq!(
            S3Store::create(&cfg, replace_rule(false), S3Options::default()).map(|_| ()),
            Err(StoreError::AlreadyExists)
        );
        assert_eq!(s2.get(&k("notes.txt"), 10).unwrap().as_deref(), Some(&b"mine"[..]));
        let ro = S3Store::open(&cfg, false, S3Options::default()).unwrap();
        assert_eq!(ro.put(&k("x"), b"1"), Err(StoreError::ReadOnly));
        assert_eq!(ro.delete(&k("x")), Err(StoreError::ReadOnly));
        assert_eq!(ro.get(&k("notes.txt"), 10).unwrap().as_deref(), Some(&b"mine"[..]));
    }

    #[test]
    fn s3_anonymous_and_wrong_credentials() {
        let Some(srv) = server() else { return };
        let prefix = srv.unique("anon");
        // Written with the key into the public bucket...
        let w = Cleanup(
            S3Store::create(
                &srv.config(&srv.public, &prefix, true),
                Replace::Never,
                S3Options::default(),
            )
            .unwrap(),
        );
        w.0.put(&k("g/.zgroup"), b"{\"zarr_format\": 2}").unwrap();
        // ...read without any.
        let anon = S3Store::open(&srv.config(&srv.public, &prefix, false), false, S3Options::default()).unwrap();
        assert_eq!(
            anon.get(&k("g/.zgroup"), 100).unwrap().as_deref(),
            Some(&b"{\"zarr_format\": 2}"[..])
        );
        assert_eq!(anon.list(&Key::root()).unwrap(), vec!["g"]);
        assert_eq!(anon.get(&k("absent"), 100), Ok(None));
        // Anonymous writes are refused by the server: NC_ES3.
        let anon_w = S3Store::open(&srv.config(&srv.public, &prefix, false), true, S3Options::default()).unwrap();
        assert_eq!(anon_w.put(&k("x"), b"1"), Err(StoreError::Remote));
        // The private bucket is not readable anonymously, and a wrong secret is
        // refused; neither error shows a secret.
        let priv_anon = S3Store::open(&srv.config(&srv.bucket, &prefix, false), false, S3Options::default()).unwrap();
        assert_eq!(priv_anon.list(&Key::root()), Err(StoreError::Remote));
        let mut env = srv.env(true);
        env.vars.insert("AWS_SECRET_ACCESS_KEY".into(), "wrong-secret".into());
        let url = format!("{}/{}/{}", srv.endpoint, srv.bucket, prefix);
        let cfg = config::resolve(&url, &[], &env).unwrap();
        let bad = S3Store::open(&cfg, true, S3Options::default()).unwrap();
        assert_eq!(bad.put(&k("x"), b"1"), Err(StoreError::Remote));
        assert!(!format!("{bad:?}{cfg:?}").contains("wrong-secret"));
    }
}
