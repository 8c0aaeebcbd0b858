//! The plugin loader against real shared libraries: our own test plugins
//! (`plugins/`, compiled here with the system C compiler), a directory of
//! junk, the netCDF4 wheel's plugins (netcdf-c 4.10.1's own) and Debian's
//! hdf5-filter-plugin libraries. Filters and codecs are called directly
//! through `codec::plugin`; the end-to-end path (nc_def_var_filter, ncdump)
//! is in the C tests under `plugins/tests`.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::path::{Path, PathBuf};
use std::process::Command;

use netcdf::codec::plugin::{self, PluginSet};
use netcdf::error::NcError;

/// Build our plugins into `dir/lib` and the junk into `dir/junk`. None when
/// there is no C compiler (the test is then skipped).
fn build_plugins(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins");
    let lib = dir.join("lib");
    let junk = dir.join("junk");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(&junk).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let good = [
        ("H5Zaddk.c", "lib__nch5addk.so"),
        ("NCZaddk.c", "lib__nczaddk.so"),
        ("H5Zxor.c", "lib__nch5xor.so"),
        ("H5Zfail.c", "lib__nch5fail.so"),
        ("H5Zneg.c", "lib__nch5neg.so"),
        ("NCZdefaults.c", "lib__nczdefaults.so"),
    ];
    let bad = [
        ("junk/notplugin.c", "lib_notplugin.so"),
        ("junk/badversion.c", "lib_badversion.so"),
        ("junk/badcodec.c", "lib_badcodec.so"),
        ("junk/notfilter.c", "lib_notfilter.so"),
        ("junk/mismatch.c", "lib_mismatch.so"),
    ];
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    for (set, out) in [(&good[..], &lib), (&bad[..], &junk)] {
        for (c, so) in set {
            let st = Command::new(&cc)
                .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared", "-I"])
                .arg(&src)
                .arg("-I")
                .arg(&include)
                .arg(src.join(c))
                .arg("-o")
                .arg(out.join(so))
                .status();
            match st {
                Ok(s) if s.success() => {}
                Ok(_) => panic!("compiling {c} failed"),
                Err(e) => {
                    eprintln!("SKIP: no C compiler ({cc}): {e}");
                    return None;
                }
            }
        }
    }
    std::fs::write(junk.join("lib_junk.so"), "a text file with a library's name\n").unwrap();
    std::fs::create_dir(junk.join("lib_dir.so")).unwrap();
    // A FIFO must not be opened (dlopen would block on it).
    let _ = Command::new("mkfifo").arg(junk.join("lib_fifo.so")).status();
    Some((lib, junk))
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn ids(set: &PluginSet) -> Vec<u32> {
    let mut v: Vec<u32> = set.filters.iter().map(|f| f.id()).collect();
    v.sort();
    v
}

/// One test function: the loader's registry of initialised codecs and the
/// environment are process-wide.
#[test]
fn own_plugins_junk_wheel_and_debian() {
    let t = tempfile::tempdir().unwrap();
    let Some((lib, junk)) = build_plugins(t.path()) else {
        return;
    };
    let log = t.path().join("addk.log");
    // SAFETY: set before any other thread of this test binary reads it (this
    // is the binary's only test).
    unsafe { std::env::set_var("NCZP_ADDK_LOG", &log) };

    // Junk first, then the good plugins: junk is skipped, nothing crashes.
    let set = plugin::scan(&[s(&junk), s(&lib)]);
    assert_eq!(ids(&set), vec![40300, 40301, 40302, 40307]);
    for bad in [40303, 40304, 40305, 40306, 40309] {
        assert!(set.filter(bad).is_none() && set.codec(bad).is_none(), "{bad} loaded");
    }
    // Separate filter and codec libraries pair by id.
    let (addk, addk_codec) = set.complete(40300).expect("addk pairs");
    assert_eq!(addk.name(), "addk");
    assert_eq!(addk_codec.codec_id(), "nczarr_addk");
    // The single-library plugin keeps its own codec, not the default one.
    assert_eq!(set.codec(40301).unwrap().codec_id(), "nczarr_xor");
    // The defaults library fills in the filter without a codec...
    assert_eq!(set.codec(40307).unwrap().codec_id(), "nczarr_neg");
    assert_eq!(set.codec_by_name("nczarr_neg").unwrap().hdf5_id(), 40307);
    // ...and its ignored NCZ_get_codec_info gives nothing.
    assert!(set.codec_by_name("nczarr_ignored").is_none());
    assert_eq!(set.defaults.len(), 2);

    // Initialised once, after the scan (the addk codec logs it).
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(log_text(), "initialize\n");
    let again = plugin::scan(&[s(&lib)]);
    assert!(again.complete(40300).is_some());
    assert_eq!(log_text(), "initialize\n", "a rescan must not initialise again");

    // Codec JSON both ways.
    assert_eq!(
        addk_codec.codec_to_hdf5(r#"{"id": "nczarr_addk", "k": 7}"#),
        Ok(vec![7])
    );
    assert_eq!(
        addk_codec.codec_to_hdf5(r#"{"id": "other", "k": 7}"#),
        Err(NcError::Inval)
    );
    assert_eq!(
        addk_codec.codec_to_hdf5(r#"{"id": "nczarr_addk"}"#),
        Err(NcError::Filter)
    );
    assert_eq!(
        addk_codec.hdf5_to_codec(&[7]).unwrap(),
        r#"{"id": "nczarr_addk", "k": 7}"#
    );
    assert_eq!(addk_codec.hdf5_to_codec(&[]), Err(NcError::Filter));
    let neg = set.codec(40307).unwrap();
    assert_eq!(neg.codec_to_hdf5(r#"{"id": "nczarr_neg"}"#), Ok(vec![]));

    // Filters: encode then decode gives the input back; the encoded bytes are
    // what the transform says.
    let data: Vec<u8> = (0..40u32).flat_map(|v| (v * 1000).to_le_bytes()).collect();
    let enc = addk.apply(false, &[5, 4], data.clone()).unwrap();
    assert_eq!(&enc[..4], &5u32.to_le_bytes());
    assert_eq!(&enc[4..8], &1005u32.to_le_bytes());
    assert_eq!(addk.apply(true, &[5, 4], enc).unwrap(), data);
    // Bad working parameters or a partial element: the filter returns 0.
    assert_eq!(addk.apply(false, &[5], data.clone()), Err(NcError::Filter));
    assert_eq!(addk.apply(false, &[5, 4], data[..5].to_vec()), Err(NcError::Filter));
    // An empty result is 0 bytes, which HDF5 filters use to say "failed".
    assert_eq!(addk.apply(false, &[5, 4], Vec::new()), Err(NcError::Filter));
    let xor = set.filter(40301).unwrap();
    let enc = xor.apply(false, &[0x5a], data.clone()).unwrap();
    assert_eq!(enc[1], data[1] ^ 0x5a);
    assert_eq!(xor.apply(true, &[0x5a], enc).unwrap(), data);
    let negf = set.filter(40307).unwrap();
    assert_eq!(negf.apply(false, &[], vec![0, 255, 1]).unwrap(), vec![255, 0, 254]);
    // The failing filter: mode 0 fails both ways, mode 1 only on decode.
    let fail = set.filter(40302).unwrap();
    assert_eq!(fail.apply(false, &[0], data.clone()), Err(NcError::Filter));
    assert_eq!(fail.apply(false, &[1], data.clone()).unwrap(), data);
    assert_eq!(fail.apply(true, &[1], data.clone()), Err(NcError::Filter));

    // Many threads through the same plugin at once.
    std::thread::scope(|sc| {
        for k in 0..4u32 {
            let (addk, data) = (&addk, &data);
            sc.spawn(move || {
                for _ in 0..50 {
                    let e = addk.apply(false, &[k, 2], data.clone()).unwrap();
                    assert_eq!(&addk.apply(true, &[k, 2], e).unwrap(), data);
                }
            });
        }
    });

    // The path functions: set, current() rescans, finalize() finalises and
    // goes back to the environment.
    plugin::set_path(vec![s(&lib)]);
    assert_eq!(plugin::path(), vec![s(&lib)]);
    assert!(plugin::current().complete(40301).is_some());
    plugin::set_path(Vec::new());
    assert!(plugin::current().is_empty());
    plugin::finalize();
    assert_eq!(log_text(), "initialize\nfinalize\n");

    wheel_plugins();
    debian_plugins();
    path_exports_take_null();
}

/// The plugin-path exports with NULL and invalid arguments: an error code or
/// "ignored", never a crash.
fn path_exports_take_null() {
    use netcdf::ffi::*;
    use std::ptr::{null, null_mut};
    const EINVAL: i32 = -36;
    let mut buf = [0 as std::ffi::c_char; 8];
    let mut l = NCPluginList {
        ndirs: 0,
        dirs: null_mut(),
    };
    // SAFETY: every pointer is NULL or valid for the access the function makes.
    unsafe {
        assert_eq!(nc_plugin_path_ndirs(null_mut()), 0);
        assert_eq!(nc_plugin_path_get(null_mut()), 0);
        assert_eq!(nc_plugin_path_set(null_mut()), EINVAL);
        let mut bad = NCPluginList {
            ndirs: 3,
            dirs: null_mut(),
        };
        assert_eq!(nc_plugin_path_set(&mut bad), EINVAL);
        let mut with_null: [*mut std::ffi::c_char; 1] = [null_mut()];
        let mut bad = NCPluginList {
            ndirs: 1,
            dirs: with_null.as_mut_ptr(),
        };
        assert_eq!(nc_plugin_path_set(&mut bad), EINVAL);
        assert_eq!(ncaux_plugin_path_parsen(3, c"/a".as_ptr(), 0, null_mut()), EINVAL);
        assert_eq!(ncaux_plugin_path_parse(null(), 0, &mut l), 0);
        assert_eq!(l.ndirs, 0);
        assert_eq!(ncaux_plugin_path_tostring(null(), 0, null_mut()), EINVAL);
        assert_eq!(ncaux_plugin_path_tostring(&bad, 0, null_mut()), 0);
        assert_eq!(ncaux_plugin_path_clear(null_mut()), 0);
        assert_eq!(ncaux_plugin_path_reclaim(null_mut()), 0);
        assert_eq!(ncaux_plugin_path_append(null_mut(), c"/a".as_ptr()), EINVAL);
        assert_eq!(ncaux_plugin_path_append(&mut l, null()), EINVAL);
        assert_eq!(ncaux_plugin_path_prepend(null_mut(), null()), EINVAL);
        assert_eq!(ncaux_plugin_path_stringget(-1, buf.as_mut_ptr()), EINVAL);
        assert_eq!(ncaux_plugin_path_stringget(8, null_mut()), EINVAL);
        assert_eq!(ncaux_plugin_path_stringset(-5, c"/a".as_ptr()), EINVAL);
        assert_eq!(ncaux_plugin_path_stringset(2, null()), EINVAL);
        assert!(ncaux_plugin_path_stringlen() >= 0);
    }
}

/// The netCDF4 wheel's plugins directory, if the venv exists.
fn wheel_dir() -> Option<PathBuf> {
    let home = std::env::var("HOME").ok()?;
    let venv = std::env::var("NCZ_VENV").unwrap_or_else(|_| format!("{home}/.cache/nczarr-venv"));
    let lib = Path::new(&venv).join("lib");
    for e in std::fs::read_dir(lib).ok()?.flatten() {
        let p = e.path().join("site-packages/netCDF4/plugins");
        if p.is_dir() {
            return Some(p);
        }
    }
    None
}

fn round_trip(set: &PluginSet, id: u32, visible: &[u32], data: &[u8]) {
    let f = set.filter(id).unwrap_or_else(|| panic!("filter {id}"));
    let enc = f
        .apply(false, visible, data.to_vec())
        .unwrap_or_else(|e| panic!("encode {id}: {e:?}"));
    assert_ne!(enc, data, "filter {id} changed nothing");
    let dec = f
        .apply(true, visible, enc)
        .unwrap_or_else(|e| panic!("decode {id}: {e:?}"));
    assert_eq!(dec, data, "filter {id}");
}

/// netcdf-c 4.10.1's own plugins: HDF5 filters in lib__nch5*.so, their codecs
/// in the two defaults libraries.
fn wheel_plugins() {
    let Some(dir) = wheel_dir() else {
        eprintln!("SKIP: no netCDF4 wheel plugins (run scripts/install-deps.sh)");
        return;
    };
    let set = plugin::scan(&[s(&dir)]);
    let got = ids(&set);
    for id in [1, 2, 3, 307, 32001, 32015] {
        assert!(got.contains(&id), "wheel filter {id} missing: {got:?}");
    }
    for (id, name) in [
        (1, "zlib"),
        (2, "shuffle"),
        (3, "fletcher32"),
        (307, "bz2"),
        (32015, "zstd"),
        (32001, "blosc"),
    ] {
        let c = set.codec(id).unwrap_or_else(|| panic!("no codec for {id}"));
        assert_eq!(c.codec_id(), name);
        assert_eq!(set.codec_by_name(name).unwrap().hdf5_id(), id);
    }
    let bz2 = set.codec(307).unwrap();
    assert_eq!(bz2.codec_to_hdf5(r#"{"id": "bz2", "level": 9}"#), Ok(vec![9]));
    let zstd = set.codec(32015).unwrap();
    assert_eq!(zstd.codec_to_hdf5(r#"{"id": "zstd", "level": 3}"#), Ok(vec![3]));
    assert!(zstd.hdf5_to_codec(&[3]).unwrap().contains("\"zstd\""));

    let data: Vec<u8> = (0..4000u32).flat_map(|v| (v % 97).to_le_bytes()).collect();
    round_trip(&set, 307, &[9], &data);
    round_trip(&set, 32015, &[3], &data);
    round_trip(&set, 1, &[6], &data);
    // shuffle's working parameter is the element size.
    round_trip(&set, 2, &[4], &data);
    // blosc's working parameters: [version, version, typesize, chunk bytes,
    // clevel, shuffle, compressor].
    round_trip(&set, 32001, &[2, 2, 4, data.len() as u32, 5, 1, 0], &data);
    // A corrupt stream is NC_EFILTER, not a crash.
    let f = set.filter(32015).unwrap();
    assert_eq!(f.apply(true, &[3], vec![1, 2, 3, 4, 5, 6, 7, 8]), Err(NcError::Filter));
}

/// Debian's hdf5-filter-plugin (bzip2 307 and lz4 32004, HDF5 API only):
/// loaded, and bzip2 paired with the wheel's default codec when both
/// directories are on the path (Debian's first: its filter wins).
fn debian_plugins() {
    let dir = Path::new("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins");
    if !dir.join("libh5bz2.so").exists() {
        eprintln!("SKIP: hdf5-filter-plugin not installed (run scripts/install-deps.sh)");
        return;
    }
    let set = plugin::scan(&[s(dir)]);
    assert_eq!(ids(&set), vec![307, 32004]);
    assert!(set.codec(307).is_none(), "Debian ships no codec information");
    let data: Vec<u8> = (0..4000u32).flat_map(|v| (v % 13).to_le_bytes()).collect();
    round_trip(&set, 307, &[9], &data);
    // Debian's bzip2 decodes what the wheel's bzip2 encodes.
    if let Some(w) = wheel_dir() {
        let both = plugin::scan(&[s(dir), s(&w)]);
        assert_eq!(both.codec(307).unwrap().codec_id(), "bz2");
        let wheel = plugin::scan(&[s(&w)]);
        let enc = wheel.filter(307).unwrap().apply(false, &[9], data.clone()).unwrap();
        assert_eq!(both.filter(307).unwrap().apply(true, &[9], enc).unwrap(), data);
    }
}
