//! The plugin search path: `nc_plugin_path_ndirs/_get/_set` (netcdf_filter.h,
//! netcdf-c ≥ 4.9.3) and the `ncaux_plugin_path_*` list helpers
//! (netcdf_aux.h), with netcdf-c 4.10.1's semantics. Every string and vector
//! handed to the caller is allocated with libc `malloc`/`calloc`, to be
//! released with `free` (or `ncaux_plugin_path_clear`/`_reclaim`).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated (or `pathlen` bytes long where a length is given),
//! an `NCPluginList`'s `dirs` NULL or holding `ndirs` entries, each NULL or a
//! `malloc`ed string where the function frees or replaces them.

use std::ffi::{CStr, c_char, c_int};

use super::{ffi_boundary, malloc_cstring, put};
use crate::codec::plugin;
use crate::error::{NcError, NcResult};

/// netcdf_filter.h's list of directories.
#[repr(C)]
pub struct NCPluginList {
    pub ndirs: usize,
    pub dirs: *mut *mut c_char,
}

/// Copy `n` C strings of a list (NULL entries are an error: netcdf-c stores
/// them and crashes later).
///
/// # Safety
/// `dirs` is valid for `n` reads, each entry NULL or NUL-terminated.
unsafe fn read_list(dirs: *mut *mut c_char, n: usize) -> NcResult<Vec<String>> {
    let mut v = Vec::with_capacity(n.min(1 << 16));
    for i in 0..n {
        // SAFETY: i < n entries by the caller's contract.
        let p = unsafe { *dirs.add(i) };
        if p.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: NUL-terminated by the caller's contract. Our path is UTF-8
        // (a non-UTF-8 directory is refused rather than altered).
        let s = unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| NcError::Inval)?;
        v.push(s.to_owned());
    }
    Ok(v)
}

/// A `calloc`ed vector of `n` NULL pointers.
fn calloc_vec(n: usize) -> NcResult<*mut *mut c_char> {
    // SAFETY: calloc checks n * size for overflow; the result is checked.
    let p = unsafe { libc::calloc(n.max(1), size_of::<*mut c_char>()) }.cast::<*mut c_char>();
    if p.is_null() { Err(NcError::NoMem) } else { Ok(p) }
}

/// Fill `list` with `dirs` (allocating the vector when it is NULL).
///
/// # Safety
/// `list.dirs` is NULL or has room for `dirs.len()` entries.
unsafe fn fill_list(list: &mut NCPluginList, dirs: &[String]) -> NcResult<()> {
    list.ndirs = dirs.len();
    if dirs.is_empty() {
        return Ok(());
    }
    if list.dirs.is_null() {
        list.dirs = calloc_vec(dirs.len())?;
    }
    for (i, d) in dirs.iter().enumerate() {
        let s = malloc_cstring(d.as_bytes());
        if s.is_null() {
            return Err(NcError::NoMem);
        }
        // SAFETY: i < dirs.len() entries fit by the caller's contract.
        unsafe { list.dirs.add(i).write(s) };
    }
    Ok(())
}

/// Join a list with `sep` (`'\0'` = the platform's `:`); NULL entries are empty.
///
/// # Safety
/// `list.dirs` holds `list.ndirs` entries, each NULL or NUL-terminated.
unsafe fn join_list(list: &NCPluginList, sep: c_char) -> NcResult<Vec<u8>> {
    if list.ndirs > 0 && list.dirs.is_null() {
        return Err(NcError::Inval);
    }
    let sep = if sep == 0 { b':' } else { sep as u8 };
    let mut out = Vec::new();
    for i in 0..list.ndirs {
        if i > 0 {
            out.push(sep);
        }
        // SAFETY: i < ndirs entries by the caller's contract.
        let p = unsafe { *list.dirs.add(i) };
        if !p.is_null() {
            // SAFETY: NUL-terminated by the caller's contract.
            out.extend_from_slice(unsafe { CStr::from_ptr(p) }.to_bytes());
        }
    }
    Ok(out)
}

/// Split bytes at `sep` (`'\0'` = `:`), stopping at an embedded NUL, as
/// `ncaux_plugin_path_parsen` does: every piece counts, empty ones too.
fn split_bytes(bytes: &[u8], sep: c_char) -> Vec<Vec<u8>> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let sep = if sep == 0 { b':' } else { sep as u8 };
    bytes[..end].split(|&b| b == sep).map(<[u8]>::to_vec).collect()
}

/// Number of directories in the plugin path.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_ndirs(ndirsp: *mut usize) -> c_int {
    ffi_boundary!(status {
        let n = plugin::path().len();
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe { put(ndirsp, n) };
        Ok(())
    })
}

/// Copy the plugin path into `*dirs` (strings `malloc`ed; the vector too when
/// `dirs->dirs` is NULL). NULL `dirs` does nothing, as in netcdf-c.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_get(dirs: *mut NCPluginList) -> c_int {
    ffi_boundary!(status {
        if dirs.is_null() {
            return Ok(());
        }
        let path = plugin::path();
        // SAFETY: non-NULL and writable; its vector NULL or large enough.
        unsafe { fill_list(&mut *dirs, &path) }
    })
}

/// Replace the plugin path (an empty list clears it); the plugins of the new
/// path are loaded on next use (netcdf-c keeps the first scan).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_set(dirs: *mut NCPluginList) -> c_int {
    ffi_boundary!(status {
        if dirs.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: non-NULL and readable.
        let l = unsafe { &*dirs };
        if l.ndirs > 0 && l.dirs.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: l.dirs holds l.ndirs entries.
        let v = unsafe { read_list(l.dirs, l.ndirs) }?;
        plugin::set_path(v);
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_parsen(
    pathlen: usize,
    pathlist: *const c_char,
    sep: c_char,
    dirs: *mut NCPluginList,
) -> c_int {
    ffi_boundary!(status {
        if dirs.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: non-NULL and writable.
        let l = unsafe { &mut *dirs };
        if pathlen == 0 || pathlist.is_null() {
            l.ndirs = 0;
            return Ok(());
        }
        // SAFETY: pathlist holds pathlen readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(pathlist.cast::<u8>(), pathlen) };
        let pieces = split_bytes(bytes, sep);
        l.ndirs = pieces.len();
        if l.dirs.is_null() {
            l.dirs = calloc_vec(pieces.len())?;
        }
        for (i, p) in pieces.iter().enumerate() {
            let s = malloc_cstring(p);
            if s.is_null() {
                return Err(NcError::NoMem);
            }
            // SAFETY: the vector has room for every piece (allocated here or
            // by the caller for this many).
            unsafe { l.dirs.add(i).write(s) };
        }
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_parse(
    pathlist: *const c_char,
    sep: c_char,
    dirs: *mut NCPluginList,
) -> c_int {
    ffi_boundary!(code {
        let len = if pathlist.is_null() {
            0
        } else {
            // SAFETY: pathlist is non-NULL and NUL-terminated (this export's contract).
            unsafe { libc::strlen(pathlist) }
        };
        // SAFETY: pathlist holds len readable bytes (its strlen) and dirs is
        // NULL or a valid list, as ncaux_plugin_path_parsen requires.
        unsafe { ncaux_plugin_path_parsen(len, pathlist, sep, dirs) }
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_tostring(
    dirs: *const NCPluginList,
    sep: c_char,
    catp: *mut *mut c_char,
) -> c_int {
    ffi_boundary!(status {
        if dirs.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: non-NULL and readable; entries per the contract.
        let joined = unsafe { join_list(&*dirs, sep) }?;
        if !catp.is_null() {
            let s = malloc_cstring(&joined);
            if s.is_null() {
                return Err(NcError::NoMem);
            }
            // SAFETY: non-NULL and writable.
            unsafe { catp.write(s) };
        }
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_clear(dirs: *mut NCPluginList) -> c_int {
    ffi_boundary!(status {
        if dirs.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and writable.
        let l = unsafe { &mut *dirs };
        // As netcdf-c: a list with ndirs 0 is left alone.
        if l.ndirs == 0 || l.dirs.is_null() {
            return Ok(());
        }
        for i in 0..l.ndirs {
            // SAFETY: i < ndirs; each entry NULL or malloc'ed.
            unsafe {
                libc::free((*l.dirs.add(i)).cast());
                l.dirs.add(i).write(std::ptr::null_mut());
            }
        }
        // SAFETY: the vector was malloc'ed.
        unsafe { libc::free(l.dirs.cast()) };
        l.dirs = std::ptr::null_mut();
        l.ndirs = 0;
        Ok(())
    })
}

/// Clear the list and free the `NCPluginList` itself (which must come from
/// `malloc`).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_reclaim(dirs: *mut NCPluginList) -> c_int {
    ffi_boundary!(code {
        // SAFETY: dirs is NULL or a valid list (this export's contract).
        let rc = unsafe { ncaux_plugin_path_clear(dirs) };
        if rc == 0 {
            // SAFETY: dirs is NULL or came from malloc and is given up by the
            // caller (this export's contract); free accepts both.
            unsafe { libc::free(dirs.cast()) };
        }
        rc
    })
}

/// Insert a copy of `dir` at `at` (0 or the end).
///
/// # Safety
/// See the module documentation.
unsafe fn insert_dir(dirs: *mut NCPluginList, dir: *const c_char, front: bool) -> NcResult<()> {
    if dirs.is_null() || dir.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: non-NULL and writable.
    let l = unsafe { &mut *dirs };
    if l.ndirs > 0 && l.dirs.is_null() {
        return Err(NcError::Inval);
    }
    let n = l.ndirs.checked_add(1).ok_or(NcError::NoMem)?;
    // SAFETY: NUL-terminated by the contract.
    let s = malloc_cstring(unsafe { CStr::from_ptr(dir) }.to_bytes());
    if s.is_null() {
        return Err(NcError::NoMem);
    }
    let v = match calloc_vec(n) {
        Ok(v) => v,
        Err(e) => {
            // SAFETY: s was malloc'ed above.
            unsafe { libc::free(s.cast()) };
            return Err(e);
        }
    };
    let off = usize::from(front);
    // SAFETY: the old vector holds ndirs entries; the new one n = ndirs + 1;
    // the old vector was malloc'ed (or is NULL).
    unsafe {
        if l.ndirs > 0 {
            std::ptr::copy_nonoverlapping(l.dirs, v.add(off), l.ndirs);
        }
        v.add(if front { 0 } else { l.ndirs }).write(s);
        libc::free(l.dirs.cast());
    }
    l.dirs = v;
    l.ndirs = n;
    Ok(())
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_append(dirs: *mut NCPluginList, dir: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: dirs is NULL or a valid list, dir NULL or NUL-terminated
        // (this export's contract), as insert_dir requires.
        unsafe { insert_dir(dirs, dir, false) }
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_prepend(dirs: *mut NCPluginList, dir: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: dirs is NULL or a valid list, dir NULL or NUL-terminated
        // (this export's contract), as insert_dir requires.
        unsafe { insert_dir(dirs, dir, true) }
    })
}

/// The plugin path joined with `;`.
fn path_string() -> Vec<u8> {
    plugin::path().join(";").into_bytes()
}

/// Length of the plugin path joined with `;`, or -1.
#[unsafe(no_mangle)]
pub extern "C" fn ncaux_plugin_path_stringlen() -> c_int {
    ffi_boundary!(on_panic(-1) { c_int::try_from(path_string().len()).unwrap_or(-1) })
}

/// Copy the `;`-joined plugin path into `path` as `strncpy(path, s, pathlen)`
/// does (NUL-padded; not terminated when it does not fit).
///
/// # Safety
/// See the module documentation; `path` has room for `pathlen` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_stringget(pathlen: c_int, path: *mut c_char) -> c_int {
    ffi_boundary!(status {
        // A negative length is NC_EINVAL (netcdf-c would take it as huge).
        let Ok(n) = usize::try_from(pathlen) else {
            return Err(NcError::Inval);
        };
        if n == 0 || path.is_null() {
            return Err(NcError::Inval);
        }
        let s = path_string();
        let k = s.len().min(n);
        // SAFETY: path has room for n bytes; k <= n.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), path.cast::<u8>(), k);
            std::ptr::write_bytes(path.cast::<u8>().add(k), 0, n - k);
        }
        Ok(())
    })
}

/// Replace the plugin path by a `;`-separated string of `pathlen` bytes.
///
/// # Safety
/// See the module documentation; `path` holds `pathlen` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_plugin_path_stringset(pathlen: c_int, path: *const c_char) -> c_int {
    ffi_boundary!(status {
        let Ok(n) = usize::try_from(pathlen) else {
            return Err(NcError::Inval);
        };
        if n == 0 || path.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: path holds n readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(path.cast::<u8>(), n) };
        let mut v = Vec::new();
        for p in split_bytes(bytes, b';' as c_char) {
            v.push(String::from_utf8(p).map_err(|_| NcError::Inval)?);
        }
        plugin::set_path(v);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_netcdf_c() {
        assert_eq!(split_bytes(b"/a:/b", 0), vec![b"/a".to_vec(), b"/b".to_vec()]);
        assert_eq!(split_bytes(b"/a;/b", 0), vec![b"/a;/b".to_vec()]);
        assert_eq!(split_bytes(b"/a;;/b", b';' as c_char).len(), 3);
        assert_eq!(split_bytes(b"/a\0:/b", 0), vec![b"/a".to_vec()]);
    }
}
