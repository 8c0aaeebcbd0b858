//! Compiles the C-variadic entry points (src/ffi/c/varargs.c), which stable
//! Rust cannot define, and exports them from the cdylib; and, when Intel's
//! ISA-L is installed (Debian: libisal-dev), the igzip shim that deflate
//! level 1 encodes with (src/sys/c/isal.c); and, when libaec is installed
//! (Debian: libaec-dev), the szip codec's link to libsz.

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
    build_szip();
}

/// When libaec's szip API is installed (Debian: libaec-dev), compile the
/// probe src/sys/c/szip_probe.c, link libsz and set `cfg(nczarr_szip)`:
/// the szip codec (HDF5 filter 4) is then built in. Without it (or with
/// `NCZARR_SZIP=0`) szip is available only from a plugin; the build says so.
fn build_szip() {
    println!("cargo::rustc-check-cfg=cfg(nczarr_szip)");
    println!("cargo:rerun-if-changed=src/sys/c/szip_probe.c");
    println!("cargo:rerun-if-env-changed=NCZARR_SZIP");
    probe_depends_on("/usr/include/szlib.h");
    if std::env::var("NCZARR_SZIP").is_ok_and(|v| v == "0") {
        return;
    }
    let built = cc::Build::new()
        .file("src/sys/c/szip_probe.c")
        .warnings(true)
        .extra_warnings(true)
        .cargo_warnings(false)
        .try_compile("nczarr_szip_probe");
    match built {
        Ok(()) => {
            println!("cargo:rustc-link-lib=dylib=sz");
            println!("cargo:rustc-cfg=nczarr_szip");
        }
        Err(_) => println!(
            "cargo:warning=libaec's szlib.h not found (Debian: apt-get install libaec-dev): \
             szip (HDF5 filter 4) will not be built in"
        ),
    }
}

/// Declare what a probe for an installed C library looks at, so that cargo
/// runs this script again when it changes: the header when it is there (a
/// changed library rebuilds); otherwise the package database (or the
/// include folder), so that installing the -dev package after a first build
/// is noticed; and the compiler's variables.
fn probe_depends_on(header: &str) {
    for var in ["CC", "CFLAGS", "CPATH", "C_INCLUDE_PATH", "NCZ_CC"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    if std::path::Path::new(header).exists() {
        println!("cargo:rerun-if-changed={header}");
    } else if std::path::Path::new("/var/lib/dpkg/status").exists() {
        println!("cargo:rerun-if-changed=/var/lib/dpkg/status");
    } else if std::path::Path::new("/usr/include").is_dir() {
        println!("cargo:rerun-if-changed=/usr/include");
    }
}

/// Compile src/sys/c/isal.c against the installed ISA-L headers and link
/// libisal, setting `cfg(nczarr_isal)`. Without ISA-L (or with
/// `NCZARR_ISAL=0`) deflate level 1 encodes with libdeflate, slower but
/// with the same kind of output; the build says so in a warning.
fn build_isal() {
    println!("cargo::rustc-check-cfg=cfg(nczarr_isal)");
    println!("cargo:rerun-if-changed=src/sys/c/isal.c");
    println!("cargo:rerun-if-env-changed=NCZARR_ISAL");
    probe_depends_on("/usr/include/isa-l/igzip_lib.h");
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
