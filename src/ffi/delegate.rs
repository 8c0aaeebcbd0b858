//! Delegation of non-Zarr datasets to the system's own libnetcdf.
//!
//! Every export that takes an `ncid` starts with
//! `forward!(ncid => nc_xxx(ncid, a, b, ...));`: when `ncid` names a dataset
//! that the system library opened, the call goes there (with that library's own
//! id) and its status is returned unchanged.

use std::ffi::{c_int, c_void};

/// A dataset held by the system library: where to send calls, and its id there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delegated {
    pub ext_ncid: c_int,
}

/// The delegated dataset behind `ncid`, if it is one.
pub(crate) fn lookup(_ncid: c_int) -> Option<Delegated> {
    None
}

/// The address of `name` (NUL-terminated) in the system library.
pub(crate) fn symbol(_name: &[u8]) -> Option<*mut c_void> {
    None
}

/// Reinterpret a symbol address as the function-pointer type of `_like`.
///
/// # Safety
/// `p` must be the address of a function whose C signature is `F`'s.
pub(crate) unsafe fn cast_like<F: Copy>(_like: F, p: *mut c_void) -> F {
    assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    // SAFETY: F is a function-pointer type of pointer size (checked above), and
    // the caller guarantees the symbol has that signature.
    unsafe { std::mem::transmute_copy(&p) }
}

/// Forward a call to the system libnetcdf when `ncid` names one of its datasets.
/// Names the export itself and every argument, in order.
macro_rules! forward {
    ($ncid:ident => $f:ident ( $($arg:expr),* $(,)? )) => {
        if let Some(__d) = $crate::ffi::delegate::lookup($ncid) {
            let __ours = $f as unsafe extern "C" fn($($crate::ffi::delegate::forward!(@ty $arg)),*) -> ::std::ffi::c_int;
            let Some(__p) = $crate::ffi::delegate::symbol(concat!(stringify!($f), "\0").as_bytes()) else {
                return $crate::error::NcError::NotBuilt.code();
            };
            // SAFETY: the system library's symbol of the same name has the same
            // C prototype (both implement netcdf.h).
            let __theirs = unsafe { $crate::ffi::delegate::cast_like(__ours, __p) };
            #[allow(unused_variables)]
            let $ncid = __d.ext_ncid;
            // SAFETY: the caller's arguments are passed on unchanged, under the
            // same contract they were given to us with.
            return unsafe { __theirs($($arg),*) };
        }
    };
    (@ty $x:expr) => { _ };
}
pub(crate) use forward;
