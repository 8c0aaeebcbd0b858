//! Compiles the C-variadic entry points (src/ffi/c/varargs.c), which stable
//! Rust cannot define, and exports them from the cdylib; and, when Intel's
//! ISA-L is installed (Debian: libisal-dev), the igzip shim that deflate
//! level 1 encodes with (src/sys/c/isal.c).

fn main() {
    let c_dir = "src/ffi/c";
    println!("cargo:rerun-if-changed={c_dir}/varargs.c");
    println!("cargo:rerun-if-changed={c_dir}/exports.map");
    cc::Build::new()
        .file(format!("{c_dir}/varargs.c"))
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        // Nothing in Rust calls these functions: keep the whole object.
        .link_lib_modifier("+whole-archive")
        .compile("nczarr_varargs");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={manifest}/{c_dir}/exports.map");

    // netcdf-c >= 4.9.3 is libnetcdf.so.22; programs built against it (and
    // against this library) record that name.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnetcdf.so.22");
    provide_library_names();
    build_isal();
}

/// Compile src/sys/c/isal.c against the installed ISA-L headers and link
/// libisal, setting `cfg(nczarr_isal)`. Without ISA-L (or with
/// `NCZARR_ISAL=0`) deflate level 1 encodes with libdeflate, slower but
/// with the same kind of output; the build says so in a warning.
fn build_isal() {
    println!("cargo::rustc-check-cfg=cfg(nczarr_isal)");
    println!("cargo:rerun-if-changed=src/sys/c/isal.c");
    println!("cargo:rerun-if-env-changed=NCZARR_ISAL");
    // What the probe below looks at: the header when it is there, so that a
    // changed ISA-L rebuilds; otherwise the package database (or the include
    // folder), so that installing libisal-dev after a first build is noticed
    // and the build script runs again.
    for var in ["CC", "CFLAGS", "CPATH", "C_INCLUDE_PATH", "NCZ_CC"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let header = std::path::Path::new("/usr/include/isa-l/igzip_lib.h");
    if header.exists() {
        println!("cargo:rerun-if-changed={}", header.display());
    } else if std::path::Path::new("/var/lib/dpkg/status").exists() {
        println!("cargo:rerun-if-changed=/var/lib/dpkg/status");
    } else if std::path::Path::new("/usr/include").is_dir() {
        println!("cargo:rerun-if-changed=/usr/include");
    }
    if std::env::var("NCZARR_ISAL").is_ok_and(|v| v == "0") {
        return;
    }
    let built = cc::Build::new()
        .file("src/sys/c/isal.c")
        .warnings(true)
        .extra_warnings(true)
        .cargo_warnings(false)
        .try_compile("nczarr_isal");
    match built {
        Ok(()) => {
            println!("cargo:rustc-link-lib=dylib=isal");
            println!("cargo:rustc-cfg=nczarr_isal");
        }
        Err(_) => println!(
            "cargo:warning=ISA-L not found (Debian: apt-get install libisal-dev): \
             deflate level 1 will encode with libdeflate, about four times slower"
        ),
    }
}

/// Best effort: make the names a loader looks for (`libnetcdf.so.22`, our
/// SONAME, and `libnetcdf.so.19`, what Debian bookworm's programs load)
/// resolve in cargo's output directory (`target/<profile>/`) too, as
/// relative symlinks to the `libnetcdf.so` that cargo links there. Without
/// them a C program linked against `target/<profile>/libnetcdf.so` would not
/// start. The CMake build (`CMakeLists.txt`) makes the same names in
/// `build/lib/` itself and does not rely on this.
fn provide_library_names() {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        return;
    };
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out
    let Some(profile_dir) = std::path::Path::new(&out_dir).ancestors().nth(3) else {
        return;
    };
    for name in ["libnetcdf.so.22", "libnetcdf.so.19"] {
        let link = profile_dir.join(name);
        if std::fs::symlink_metadata(&link).is_err() {
            // A failure only loses the convenience names; the build goes on.
            let _ = std::os::unix::fs::symlink("libnetcdf.so", &link);
        }
    }
}
