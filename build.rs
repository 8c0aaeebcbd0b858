//! Compiles the C-variadic entry points (src/ffi/c/varargs.c), which stable
//! Rust cannot define, and exports them from the cdylib.

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
}
