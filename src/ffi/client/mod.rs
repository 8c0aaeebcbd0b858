//! Internal netcdf-c helpers that the netCDF tools import although they are not
//! in the public headers (see shared/reference/real-clients-abi.md): ncdump,
//! ncgen and nccopy are linked BIND_NOW, so each must exist, and they are
//! called before `nc_open` with real semantics expected.
//!
//! Prototypes and layouts are those of netcdf-c 4.9.0 (`libnetcdf.so.19`, the
//! library Debian's tools are built against); where 4.10 renamed a helper, the
//! new name is exported too (`NC__testurl` with three arguments, `nc_strlcat`).
//!
//! Memory handed to C is allocated with libc `malloc`, so callers release it
//! with `free` as they would with netcdf-c. The C-variadic `nclog`/`ncvlog` are
//! in `c/varargs.c` (stable Rust cannot define a C-variadic function); they call
//! back into the `log_*` functions below through a hidden table that a
//! constructor fills in at load time (so nothing internal is exported).
//!
//! Where netcdf-c 4.9.0 crashes (NULL arguments, `ncuriappendfragmentkey` on a
//! URL without fragment, `nc__testurl` on a URL without path) these return an
//! error or a "no" instead; each place says so.

pub mod cdtime;
pub mod utf16;

use std::ffi::{c_char, c_int, c_void};
use std::mem::size_of;
use std::ptr;

use crate::api::url::uri::{self, Uri};
use crate::api::url::{path_canonical, shell_unescape, test_url_v410, test_url_v490};
use crate::error::{NcError, NcResult};
use crate::ffi::{cbytes, cstr, ffi_boundary, malloc_cstring, put};

// ---------------------------------------------------------------------------
// Path helpers

/// `char* NC_shellUnescape(const char* esc)`: a malloc'd copy of `esc` without
/// the backslash of each `\#`. NULL for a NULL argument or when out of memory.
///
/// # Safety
/// `esc` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NC_shellUnescape(esc: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        match unsafe { cbytes(esc) } {
            Ok(b) => malloc_cstring(&shell_unescape(b)),
            Err(_) => ptr::null_mut(),
        }
    })
}

/// `int NCpathcanonical(const char* srcpath, char** canonp)`: the canonical
/// (Cygwin-form) path as netcdf-c computes it on Unix, malloc'd into `*canonp`
/// (ignored if `canonp` is NULL). A NULL `srcpath` returns NC_NOERR and writes
/// nothing, as netcdf-c. Returns NC_ENOMEM when out of memory.
///
/// # Safety
/// `srcpath` is NULL or a NUL-terminated string; `canonp` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NCpathcanonical(srcpath: *const c_char, canonp: *mut *mut c_char) -> c_int {
    ffi_boundary!(status {
        if srcpath.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and NUL-terminated by the caller's contract.
        let src = unsafe { cbytes(srcpath) }?;
        let canon = malloc_cstring(&path_canonical(src));
        if canon.is_null() {
            return Err(NcError::NoMem);
        }
        if canonp.is_null() {
            // SAFETY: allocated just above with malloc and not shared.
            unsafe { libc::free(canon.cast()) };
        } else {
            // SAFETY: canonp is writable by the caller's contract.
            unsafe { canonp.write(canon) };
        }
        Ok(())
    })
}

/// `int nc__testurl(const char* path, char** basenamep)` (netcdf-c 4.9.0):
/// 1 if `path` is a URL whose last path segment, less its extension, is not
/// empty, and then that name malloc'd into `*basenamep` (if not NULL); else 0
/// and nothing written. A URL without a path is 0 here (4.9.0 crashes).
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `basenamep` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__testurl(path: *const c_char, basenamep: *mut *mut c_char) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        let Ok(path) = (unsafe { cstr(path) }) else {
            return 0;
        };
        let Some(base) = test_url_v490(path) else {
            return 0;
        };
        if !basenamep.is_null() {
            let p = malloc_cstring(base.as_bytes());
            if p.is_null() {
                return 0;
            }
            // SAFETY: basenamep is non-NULL and writable by the caller's contract.
            unsafe { basenamep.write(p) };
        }
        1
    })
}

/// `int NC__testurl(const char* path, char** basenamep, int* isfilep)` (the
/// netcdf-c 4.10 form; 4.9.0 had a two-argument function of this name that
/// returned NC_NOERR for a URL): 1 if `path` is a URL, else 0. For a URL the
/// last path segment less its extension (a leading dot kept) is malloc'd into
/// `*basenamep`; `*isfilep` is set to whether the protocol is `file` (0 for a
/// non-URL). NULL out-pointers are ignored.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `basenamep`/`isfilep` are NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NC__testurl(path: *const c_char, basenamep: *mut *mut c_char, isfilep: *mut c_int) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        let t = match unsafe { cstr(path) } {
            Ok(p) => test_url_v410(p),
            Err(_) => test_url_v410(""),
        };
        if t.is_url
            && !basenamep.is_null()
            && let Some(base) = &t.basename
        {
            let p = malloc_cstring(base.as_bytes());
            // SAFETY: basenamep is non-NULL and writable by the caller's contract.
            unsafe { basenamep.write(p) };
        }
        // SAFETY: isfilep is NULL or writable by the caller's contract.
        unsafe { put(isfilep, c_int::from(t.is_file)) };
        c_int::from(t.is_url)
    })
}

// ---------------------------------------------------------------------------
// strlcat

/// What BSD `strlcat` does given the current length of `dst` within `dsize`
/// (`dlen == dsize` when `dst` holds no NUL there) and the length of `src`:
/// the number of bytes to copy (None: touch nothing) and the return value.
pub fn strlcat_plan(dlen: usize, slen: usize, dsize: usize) -> (Option<usize>, usize) {
    let ret = dlen.saturating_add(slen);
    if dlen >= dsize {
        return (None, dsize.saturating_add(slen));
    }
    (Some(slen.min(dsize - dlen - 1)), ret)
}

/// # Safety
/// `dst` is valid for `dsize` bytes; `src` is NUL-terminated.
unsafe fn strlcat_raw(dst: *mut c_char, src: *const c_char, dsize: usize) -> usize {
    if dst.is_null() || src.is_null() {
        // netcdf-c would crash; report "nothing appended".
        return 0;
    }
    // SAFETY: dst is valid for dsize bytes; strnlen reads at most dsize of them.
    let dlen = unsafe { libc::strnlen(dst, dsize) };
    // SAFETY: src is NUL-terminated.
    let slen = unsafe { libc::strlen(src) };
    let (copy, ret) = strlcat_plan(dlen, slen, dsize);
    if let Some(n) = copy {
        // SAFETY: dlen + n + 1 <= dsize, so the copy and the terminator stay
        // inside dst; `copy` (memmove) tolerates overlap.
        unsafe {
            ptr::copy(src, dst.add(dlen), n);
            dst.add(dlen + n).write(0);
        }
    }
    ret
}

/// `size_t strlcat(char* dst, const char* src, size_t dsize)`: BSD semantics.
/// Appends `src` to the NUL-terminated `dst` of total size `dsize`, copying at
/// most `dsize - strlen(dst) - 1` bytes and always terminating (unless `dst`
/// holds no NUL within `dsize`). Returns `strlen(src) + min(dsize,
/// strlen(dst))`; a result >= `dsize` means truncation. NULL `dst` or `src`
/// returns 0 (netcdf-c would crash).
///
/// # Safety
/// `dst` is valid for `dsize` bytes; `src` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strlcat(dst: *mut c_char, src: *const c_char, dsize: usize) -> usize {
    ffi_boundary!(on_panic(0) {
        // SAFETY: dst is valid for dsize bytes and src NUL-terminated (this
        // export's contract), as strlcat_raw requires.
        unsafe { strlcat_raw(dst, src, dsize) }
    })
}

/// `size_t nc_strlcat(char* dst, const char* src, size_t dsize)`: the 4.10
/// name of [`strlcat`].
///
/// # Safety
/// As [`strlcat`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_strlcat(dst: *mut c_char, src: *const c_char, dsize: usize) -> usize {
    ffi_boundary!(on_panic(0) {
        // SAFETY: dst is valid for dsize bytes and src NUL-terminated (this
        // export's contract), as strlcat_raw requires.
        unsafe { strlcat_raw(dst, src, dsize) }
    })
}

// ---------------------------------------------------------------------------
// Logging

/// `int ncsetlogging(int tf)`: switch logging on (`tf != 0`) or off; returns
/// the previous state (0 or 1). Removed from netcdf-c in 4.9.3; ncdump 4.9.0
/// calls it for `-L`.
#[unsafe(no_mangle)]
pub extern "C" fn ncsetlogging(tf: c_int) -> c_int {
    ffi_boundary!(on_panic(0) { c_int::from(crate::log::set_enabled(tf != 0)) })
}

/// netcdf-c >= 4.9.3's log levels (nclog.h): NCLOGOFF 0 .. NCLOGDEBUG 4.
const NCLOGNOTE: c_int = 3;
const NCLOGDEBUG: c_int = 4;

/// The level reported while logging is on: the last one set, or NCLOGNOTE
/// (what `NCLOGGING` and `ncsetlogging` switch on in netcdf-c).
static LOG_LEVEL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(NCLOGNOTE);

/// The current level: NCLOGOFF while logging is off.
fn log_level() -> c_int {
    if crate::log::enabled() {
        LOG_LEVEL.load(std::sync::atomic::Ordering::Relaxed)
    } else {
        0
    }
}

/// `int ncsetloglevel(int level)` (nclog.h, netcdf-c >= 4.9.3, the
/// successor of `ncsetlogging`; every ncdump since then imports it for
/// `-L`): set the log level, NCLOGOFF (0), NCLOGERR (1), NCLOGWARN (2),
/// NCLOGNOTE (3) or NCLOGDEBUG (4), and return the previous one. Another
/// value changes nothing and returns the current level, as netcdf-c. This
/// library's log has no severity filter: every level above NCLOGOFF shows
/// all of its lines.
#[unsafe(no_mangle)]
pub extern "C" fn ncsetloglevel(level: c_int) -> c_int {
    ffi_boundary!(on_panic(0) {
        let was = log_level();
        if (0..=NCLOGDEBUG).contains(&level) {
            if level > 0 {
                LOG_LEVEL.store(level, std::sync::atomic::Ordering::Relaxed);
            }
            crate::log::set_enabled(level > 0);
        }
        was
    })
}

/// Called by `ncvlog` (c/varargs.c) first: an error (tag NCLOGERR = 2) switches
/// logging on, as netcdf-c does, and returns the previous state; other tags
/// return -1.
extern "C" fn log_begin(tag: c_int) -> c_int {
    ffi_boundary!(on_panic(-1) {
        if tag == 2 {
            c_int::from(crate::log::set_enabled(true))
        } else {
            -1
        }
    })
}

/// Whether `ncvlog` should format and print its message.
extern "C" fn log_enabled() -> c_int {
    ffi_boundary!(on_panic(0) { c_int::from(crate::log::enabled()) })
}

/// Print one formatted `nclog` message as netcdf-c does (`Tag:message`).
///
/// # Safety
/// `msg` is NULL or a NUL-terminated string.
unsafe extern "C" fn log_line(tag: c_int, msg: *const c_char) {
    ffi_boundary!(on_panic(()) {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        let text = unsafe { cbytes(msg) }.unwrap_or(b"");
        crate::log::c_line(tag, &String::from_utf8_lossy(text));
    })
}

/// The table `c/varargs.c` calls through (its `struct nczarr_log_hooks`).
#[repr(C)]
struct LogHooks {
    begin: Option<extern "C" fn(c_int) -> c_int>,
    enabled: Option<extern "C" fn() -> c_int>,
    line: Option<unsafe extern "C" fn(c_int, *const c_char)>,
}

unsafe extern "C" {
    /// Defined (hidden) in c/varargs.c.
    static mut nczarr_log_hooks: LogHooks;
}

/// Fill in the hook table; runs once when the library is loaded, before any
/// caller can reach `nclog`.
extern "C" fn install_log_hooks() {
    ffi_boundary!(on_panic(()) {
        // SAFETY: runs in the loader's constructor phase, before any other
        // code of this library, so nothing reads the table concurrently.
        unsafe {
            nczarr_log_hooks = LogHooks {
                begin: Some(log_begin),
                enabled: Some(log_enabled),
                line: Some(log_line),
            };
        }
    })
}

#[used]
#[unsafe(link_section = ".init_array")]
static INSTALL_LOG_HOOKS: extern "C" fn() = install_log_hooks;

// ---------------------------------------------------------------------------
// NClist (4.9.0 layout: Debian's ncdump reads `->length` through the
// `nclistlength` macro, so the field order is ABI)

/// netcdf-c 4.9.0's `struct NClist`. Lists are allocated with malloc, their
/// `content` with calloc; C code may free either.
#[repr(C)]
#[derive(Debug)]
pub struct NClist {
    pub alloc: usize,
    pub length: usize,
    pub content: *mut *mut c_void,
}

const NCLIST_DEFAULT_ALLOC: usize = 16;

/// Borrow a list; None for NULL.
///
/// # Safety
/// `l` is NULL or points to a valid `NClist` not otherwise borrowed.
unsafe fn list_mut<'a>(l: *mut NClist) -> Option<&'a mut NClist> {
    // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
    // gives None.
    unsafe { l.as_mut() }
}

impl NClist {
    /// The live elements.
    fn items(&self) -> &[*mut c_void] {
        if self.content.is_null() || self.length == 0 {
            return &[];
        }
        // SAFETY: content holds at least `length` initialised pointers (the
        // list invariant, alloc >= length).
        unsafe { std::slice::from_raw_parts(self.content, self.length) }
    }

    fn items_mut(&mut self) -> &mut [*mut c_void] {
        if self.content.is_null() || self.length == 0 {
            return &mut [];
        }
        // SAFETY: as in items(); &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.content, self.length) }
    }

    /// Grow `alloc` to at least `sz` (0: twice the length, or 16 for an
    /// empty list). False when out of memory; the list is then unchanged.
    fn set_alloc(&mut self, sz: usize) -> bool {
        let sz = match sz {
            0 if self.length > 0 => match self.length.checked_mul(2) {
                Some(s) => s,
                None => return false,
            },
            0 => NCLIST_DEFAULT_ALLOC,
            s => s,
        };
        if self.alloc >= sz {
            return true;
        }
        // SAFETY: calloc checks sz * size_of for overflow; the result is checked.
        let new = unsafe { libc::calloc(sz, size_of::<*mut c_void>()) }.cast::<*mut c_void>();
        if new.is_null() {
            return false;
        }
        let old = self.items();
        // SAFETY: new holds sz >= length slots; old holds length pointers.
        unsafe { ptr::copy_nonoverlapping(old.as_ptr(), new, old.len()) };
        // SAFETY: content is NULL or a malloc'd block owned by this list.
        unsafe { libc::free(self.content.cast()) };
        self.content = new;
        self.alloc = sz;
        true
    }

    fn set_length(&mut self, newlen: usize) -> bool {
        if newlen > self.alloc && !self.set_alloc(newlen) {
            return false;
        }
        if newlen > self.length {
            // SAFETY: alloc >= newlen, so slots length..newlen are inside content.
            unsafe { ptr::write_bytes(self.content.add(self.length), 0, newlen - self.length) };
        }
        self.length = newlen;
        true
    }

    /// Make room for one more element.
    fn reserve_one(&mut self) -> bool {
        if self.length >= self.alloc && !self.set_alloc(0) {
            return false;
        }
        self.length < self.alloc
    }

    fn push(&mut self, elem: *mut c_void) -> bool {
        if !self.reserve_one() {
            return false;
        }
        // SAFETY: length < alloc, so the slot is inside content.
        unsafe { self.content.add(self.length).write(elem) };
        self.length += 1;
        true
    }

    fn remove(&mut self, i: usize) -> *mut c_void {
        if i >= self.length {
            return ptr::null_mut();
        }
        let items = self.items_mut();
        let elem = items[i];
        items.copy_within(i + 1.., i);
        self.length -= 1;
        elem
    }
}

/// `int nclistnull(void* e)`: 1 if `e` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn nclistnull(e: *mut c_void) -> c_int {
    ffi_boundary!(on_panic(0) { c_int::from(e.is_null()) })
}

/// `NClist* nclistnew(void)`: an empty list (NULL when out of memory).
#[unsafe(no_mangle)]
pub extern "C" fn nclistnew() -> *mut NClist {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: malloc of the struct size; checked before use.
        let l = unsafe { libc::malloc(size_of::<NClist>()) }.cast::<NClist>();
        if !l.is_null() {
            // SAFETY: l is a fresh allocation of the right size and alignment.
            unsafe {
                l.write(NClist {
                    alloc: 0,
                    length: 0,
                    content: ptr::null_mut(),
                })
            };
        }
        l
    })
}

/// `int nclistfree(NClist* l)`: free the list and its content array (not the
/// elements). Returns 1; NULL is ignored.
///
/// # Safety
/// `l` is NULL or a list from `nclistnew`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistfree(l: *mut NClist) -> c_int {
    ffi_boundary!(on_panic(1) {
        if !l.is_null() {
            // SAFETY: l is a malloc'd NClist whose content is NULL or malloc'd.
            unsafe {
                libc::free((*l).content.cast());
                libc::free(l.cast());
            }
        }
        1
    })
}

/// `int nclistclearall(NClist* l)`: free every non-NULL element and empty the
/// list. Returns 1.
///
/// # Safety
/// `l` is NULL or a valid list whose elements are NULL or malloc'd.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistclearall(l: *mut NClist) -> c_int {
    ffi_boundary!(on_panic(1) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        if let Some(list) = unsafe { list_mut(l) } {
            for &e in list.items() {
                // SAFETY: elements are NULL or malloc'd, by the caller's contract.
                unsafe { libc::free(e) };
            }
            list.length = 0;
        }
        1
    })
}

/// `int nclistfreeall(NClist* l)`: [`nclistclearall`] then [`nclistfree`].
///
/// # Safety
/// As both.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistfreeall(l: *mut NClist) -> c_int {
    ffi_boundary!(on_panic(1) {
        // SAFETY: l is NULL or a list from nclistnew whose elements are NULL
        // or malloc'd, not used afterwards (this export's contract): what
        // both calls require.
        unsafe {
            nclistclearall(l);
            nclistfree(l)
        }
    })
}

/// `int nclistsetalloc(NClist* l, size_t sz)`: make room for `sz` elements
/// (0: twice the length, or 16). 1 on success, 0 for NULL or out of memory.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistsetalloc(l: *mut NClist, sz: usize) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid list not otherwise borrowed (this export's contract).
        unsafe { list_mut(l) }.map_or(0, |list| c_int::from(list.set_alloc(sz)))
    })
}

/// `int nclistsetlength(NClist* l, size_t n)`: set the length, new slots NULL.
/// 1 on success, 0 for NULL or out of memory.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistsetlength(l: *mut NClist, n: usize) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid list not otherwise borrowed (this export's contract).
        unsafe { list_mut(l) }.map_or(0, |list| c_int::from(list.set_length(n)))
    })
}

/// `void* nclistget(const NClist* l, size_t i)`: element `i`, NULL if out of
/// range or `l` is NULL.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistget(l: *const NClist, i: usize) -> *mut c_void {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid NClist (this export's contract); NULL gives None.
        unsafe { l.as_ref() }
            .and_then(|list| list.items().get(i).copied())
            .unwrap_or(ptr::null_mut())
    })
}

/// `int nclistset(NClist* l, size_t i, void* e)`: store `e` at `i`, growing the
/// list (new slots NULL) when `i` is past the end. 1 on success.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistset(l: *mut NClist, i: usize, e: *mut c_void) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        let Some(list) = (unsafe { list_mut(l) }) else {
            return 0;
        };
        let Some(need) = i.checked_add(1) else {
            return 0;
        };
        if !list.set_alloc(need) || (i >= list.length && !list.set_length(need)) {
            return 0;
        }
        list.items_mut()[i] = e;
        1
    })
}

/// `int nclistinsert(NClist* l, size_t i, void* e)`: insert `e` before
/// element `i` (`i == length` appends). 1 on success, 0 if `i` is past the end.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistinsert(l: *mut NClist, i: usize, e: *mut c_void) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        let Some(list) = (unsafe { list_mut(l) }) else {
            return 0;
        };
        if i > list.length {
            return 0;
        }
        // netcdf-c grows here even when there is room; keep its `alloc`.
        if !list.set_alloc(0) || !list.reserve_one() {
            return 0;
        }
        list.length += 1;
        let items = list.items_mut();
        items.copy_within(i..items.len() - 1, i + 1);
        items[i] = e;
        1
    })
}

/// `int nclistpush(NClist* l, const void* e)`: append. 1 on success.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistpush(l: *mut NClist, e: *const c_void) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid list not otherwise borrowed (this export's contract).
        unsafe { list_mut(l) }.map_or(0, |list| c_int::from(list.push(e.cast_mut())))
    })
}

/// `void* nclistpop(NClist* l)`: remove and return the last element (NULL if
/// empty).
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistpop(l: *mut NClist) -> *mut c_void {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        match unsafe { list_mut(l) } {
            Some(list) if list.length > 0 => list.remove(list.length - 1),
            _ => ptr::null_mut(),
        }
    })
}

/// `void* nclisttop(NClist* l)`: the last element (NULL if empty).
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclisttop(l: *mut NClist) -> *mut c_void {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid NClist (this export's contract); NULL gives None.
        unsafe { l.as_ref() }
            .and_then(|list| list.items().last().copied())
            .unwrap_or(ptr::null_mut())
    })
}

/// `void* nclistremove(NClist* l, size_t i)`: remove element `i`, moving the
/// later ones down; returns it (NULL if out of range).
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistremove(l: *mut NClist, i: usize) -> *mut c_void {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid list not otherwise borrowed (this export's contract).
        unsafe { list_mut(l) }.map_or(ptr::null_mut(), |list| list.remove(i))
    })
}

/// `int nclistcontains(NClist* l, void* e)`: 1 if the pointer `e` is an element.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistcontains(l: *mut NClist, e: *mut c_void) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid NClist (this export's contract); NULL gives None.
        c_int::from(unsafe { l.as_ref() }.is_some_and(|list| list.items().contains(&e)))
    })
}

/// `int nclistmatch(NClist* l, const char* s, int casesensitive)`: 1 if an
/// element is a string equal to `s` (ASCII case ignored unless
/// `casesensitive`). NULL elements never match (netcdf-c would crash).
///
/// # Safety
/// `l` is NULL or a valid list whose non-NULL elements are NUL-terminated
/// strings; `s` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistmatch(l: *mut NClist, s: *const c_char, casesensitive: c_int) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid NClist and s NULL or NUL-terminated (this export's
        // contract); NULL gives None or an error.
        let (Some(list), Ok(want)) = (unsafe { l.as_ref() }, unsafe { cbytes(s) }) else {
            return 0;
        };
        let found = list.items().iter().any(|&e| {
            // SAFETY: elements are NULL or NUL-terminated strings.
            unsafe { cbytes(e.cast()) }.is_ok_and(|c| {
                if casesensitive != 0 {
                    c == want
                } else {
                    c.eq_ignore_ascii_case(want)
                }
            })
        });
        c_int::from(found)
    })
}

/// `int nclistelemremove(NClist* l, void* e)`: remove the first element equal
/// to the pointer `e`; 1 if one was removed.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistelemremove(l: *mut NClist, e: *mut c_void) -> c_int {
    ffi_boundary!(on_panic(0) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        let Some(list) = (unsafe { list_mut(l) }) else {
            return 0;
        };
        match list.items().iter().position(|&x| x == e) {
            Some(i) => {
                list.remove(i);
                1
            }
            None => 0,
        }
    })
}

/// `int nclistunique(NClist* l)`: remove repeated pointers, keeping the first
/// of each. Returns 1. (netcdf-c 4.9.0 skips the element after each one it
/// removes, so three equal neighbours leave two; this removes all repeats.)
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistunique(l: *mut NClist) -> c_int {
    ffi_boundary!(on_panic(1) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        if let Some(list) = unsafe { list_mut(l) } {
            let items = list.items_mut();
            let mut kept = 0;
            for i in 0..items.len() {
                if !items[..kept].contains(&items[i]) {
                    items[kept] = items[i];
                    kept += 1;
                }
            }
            list.length = kept;
        }
        1
    })
}

/// `NClist* nclistclone(const NClist* l, int deep)`: a copy of the list with a
/// NULL after the last element; if `deep`, elements are strings and are
/// duplicated (NULL stays NULL). NULL for a NULL list or when out of memory.
///
/// # Safety
/// `l` is NULL or a valid list; with `deep`, its non-NULL elements are
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistclone(l: *const NClist, deep: c_int) -> *mut NClist {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid NClist (this export's contract); NULL gives None.
        let Some(src) = (unsafe { l.as_ref() }) else {
            return ptr::null_mut();
        };
        let clone = nclistnew();
        // SAFETY: clone is NULL or a fresh list owned here.
        let Some(c) = (unsafe { clone.as_mut() }) else {
            return ptr::null_mut();
        };
        let ok = src.length.checked_add(1).is_some_and(|n| c.set_alloc(n))
            && src.items().iter().all(|&e| {
                if deep == 0 || e.is_null() {
                    return c.push(e);
                }
                // SAFETY: e is a NUL-terminated string (deep clone contract).
                let dup = unsafe { libc::strdup(e.cast()) };
                !dup.is_null() && c.push(dup.cast())
            });
        if !ok {
            // SAFETY: clone is our list; with deep its elements are ours too.
            unsafe {
                if deep != 0 {
                    nclistclearall(clone);
                }
                nclistfree(clone);
            }
            return ptr::null_mut();
        }
        // SAFETY: alloc >= length + 1, so the slot after the last is inside content.
        unsafe { c.content.add(c.length).write(ptr::null_mut()) };
        clone
    })
}

/// `void* nclistextract(NClist* l)`: take the content array (caller frees it)
/// and leave the list empty. NULL for a NULL list (netcdf-c would crash).
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistextract(l: *mut NClist) -> *mut c_void {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: l is NULL or a valid NClist not otherwise borrowed (this export's contract); NULL
        // gives None.
        let Some(list) = (unsafe { list_mut(l) }) else {
            return ptr::null_mut();
        };
        let content = std::mem::replace(&mut list.content, ptr::null_mut());
        list.alloc = 0;
        list.length = 0;
        content.cast()
    })
}

// ---------------------------------------------------------------------------
// NCURI (4.9.0 layout; an "open" structure C may read and modify)

/// netcdf-c 4.9.0's `struct NCURI`. Every string is malloc'd (or NULL);
/// `fraglist`/`querylist` are NULL or malloc'd NULL-terminated arrays of
/// alternating malloc'd keys and values (`envv` style).
#[repr(C)]
#[derive(Debug)]
pub struct NCURI {
    pub uri: *mut c_char,
    pub protocol: *mut c_char,
    pub user: *mut c_char,
    pub password: *mut c_char,
    pub host: *mut c_char,
    pub port: *mut c_char,
    pub path: *mut c_char,
    pub query: *mut c_char,
    pub fragment: *mut c_char,
    pub fraglist: *mut *mut c_char,
    pub querylist: *mut *mut c_char,
}

/// A malloc'd copy of `s`, or NULL for None; NC_ENOMEM when out of memory.
fn dup_opt(s: Option<&str>) -> NcResult<*mut c_char> {
    match s {
        None => Ok(ptr::null_mut()),
        Some(s) => {
            let p = malloc_cstring(s.as_bytes());
            if p.is_null() { Err(NcError::NoMem) } else { Ok(p) }
        }
    }
}

/// Free an `envv` list: pairs until a NULL key, then the array.
///
/// # Safety
/// `v` is NULL or a malloc'd envv array of malloc'd (or NULL) strings.
unsafe fn free_envv(v: *mut *mut c_char) {
    if v.is_null() {
        return;
    }
    let mut i = 0;
    loop {
        // SAFETY: the array runs to a NULL key; i stays on key positions.
        let k = unsafe { *v.add(i) };
        if k.is_null() {
            break;
        }
        // SAFETY: as above; the value slot follows each key.
        unsafe {
            libc::free(k.cast());
            libc::free((*v.add(i + 1)).cast());
        }
        i += 2;
    }
    // SAFETY: v is malloc'd.
    unsafe { libc::free(v.cast()) };
}

/// A malloc'd envv array for `pairs` (NULL when empty).
fn envv_from_pairs(pairs: &[(String, String)]) -> NcResult<*mut *mut c_char> {
    if pairs.is_empty() {
        return Ok(ptr::null_mut());
    }
    let n = pairs
        .len()
        .checked_mul(2)
        .and_then(|n| n.checked_add(1))
        .ok_or(NcError::NoMem)?;
    // SAFETY: calloc checks the size product; the result is checked.
    let v = unsafe { libc::calloc(n, size_of::<*mut c_char>()) }.cast::<*mut c_char>();
    if v.is_null() {
        return Err(NcError::NoMem);
    }
    for (i, (k, val)) in pairs.iter().enumerate() {
        let (kp, vp) = (malloc_cstring(k.as_bytes()), malloc_cstring(val.as_bytes()));
        // SAFETY: 2i+1 < n; the slots are zeroed, so a partial list stays
        // NULL-terminated for free_envv.
        unsafe {
            v.add(2 * i).write(kp);
            v.add(2 * i + 1).write(vp);
        }
        if kp.is_null() || vp.is_null() {
            if kp.is_null() {
                // SAFETY: vp is NULL or malloc'd; the key slot is NULL so
                // free_envv stops before this pair.
                unsafe { libc::free(vp.cast()) };
            }
            // SAFETY: v is our partial envv array.
            unsafe { free_envv(v) };
            return Err(NcError::NoMem);
        }
    }
    Ok(v)
}

/// Read an envv list (a NULL value reads as "").
///
/// # Safety
/// `v` is NULL or a NULL-terminated envv array of NUL-terminated strings.
unsafe fn pairs_from_envv(v: *const *mut c_char) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if v.is_null() {
        return out;
    }
    let mut i = 0;
    loop {
        // SAFETY: the array runs to a NULL key.
        let k = unsafe { *v.add(i) };
        if k.is_null() {
            break;
        }
        // SAFETY: a value slot follows each key; strings are NUL-terminated.
        let (k, val) = unsafe { (lossy(k), lossy(*v.add(i + 1))) };
        out.push((k.unwrap_or_default(), val.unwrap_or_default()));
        i += 2;
    }
    out
}

/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn lossy(p: *const c_char) -> Option<String> {
    // SAFETY: p is NULL or NUL-terminated (this function's contract); cbytes rejects NULL.
    unsafe { cbytes(p) }
        .ok()
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// Replace a string field, freeing the old value.
///
/// # Safety
/// `*field` is NULL or malloc'd.
unsafe fn set_field(field: &mut *mut c_char, value: Option<&str>) -> NcResult<()> {
    let new = dup_opt(value)?;
    // SAFETY: the old value is NULL or malloc'd.
    unsafe { libc::free((*field).cast()) };
    *field = new;
    Ok(())
}

/// Replace an envv field, freeing the old list.
///
/// # Safety
/// `*field` is NULL or a malloc'd envv array.
unsafe fn set_list(field: &mut *mut *mut c_char, pairs: &[(String, String)]) -> NcResult<()> {
    let new = envv_from_pairs(pairs)?;
    // SAFETY: the old list is NULL or malloc'd envv.
    unsafe { free_envv(*field) };
    *field = new;
    Ok(())
}

/// Bring the fragment text and list into agreement, as netcdf-c's
/// `ensurefraglist`: an empty text becomes NULL; a text without list is
/// parsed; a list without text is written out (values encoded).
///
/// # Safety
/// `u` holds malloc'd (or NULL) fields.
unsafe fn ensure_fragment(u: &mut NCURI) -> NcResult<()> {
    // SAFETY: fields follow the NCURI contract.
    unsafe { ensure_pair(&mut u.fragment, &mut u.fraglist) }
}

/// The same for the query (`ensurequerylist`).
///
/// # Safety
/// `u` holds malloc'd (or NULL) fields.
unsafe fn ensure_query(u: &mut NCURI) -> NcResult<()> {
    // SAFETY: fields follow the NCURI contract.
    unsafe { ensure_pair(&mut u.query, &mut u.querylist) }
}

/// # Safety
/// `text` is NULL or malloc'd; `list` is NULL or a malloc'd envv array.
unsafe fn ensure_pair(text: &mut *mut c_char, list: &mut *mut *mut c_char) -> NcResult<()> {
    // SAFETY: NULL or NUL-terminated.
    let t = unsafe { lossy(*text) }.filter(|t| !t.is_empty());
    if t.is_none() && !text.is_null() {
        // SAFETY: text is NULL-or-malloc'd and empty here.
        unsafe { set_field(text, None) }?;
    }
    match (t, list.is_null()) {
        (Some(t), true) => {
            let pairs = uri::first_wins(uri::parse_params(&t));
            // SAFETY: list is NULL here.
            unsafe { set_list(list, &pairs) }
        }
        (None, false) => {
            // SAFETY: list is a valid envv array.
            let pairs = unsafe { pairs_from_envv(*list) };
            let joined = uri::unparse_params(&pairs, true);
            // SAFETY: text is NULL here.
            unsafe { set_field(text, (!joined.is_empty()).then_some(joined.as_str())) }
        }
        _ => Ok(()),
    }
}

/// A Rust view of a C NCURI (strings read lossily).
///
/// # Safety
/// `u` holds NULL or NUL-terminated fields and NULL or valid envv lists.
unsafe fn uri_from_c(u: &NCURI) -> Uri {
    // SAFETY: every field of u is NULL or NUL-terminated and its lists NULL or valid envv arrays
    // (this function's contract), as lossy and pairs_from_envv require.
    unsafe {
        Uri {
            protocol: lossy(u.protocol).unwrap_or_default(),
            user: lossy(u.user),
            password: lossy(u.password),
            host: lossy(u.host),
            port: lossy(u.port),
            path: lossy(u.path),
            query: lossy(u.query),
            fragment: lossy(u.fragment),
            querylist: pairs_from_envv(u.querylist),
            fraglist: pairs_from_envv(u.fraglist),
        }
    }
}

/// Free every field of `u` (not `u` itself) and set them NULL.
///
/// # Safety
/// `u` holds malloc'd (or NULL) fields.
unsafe fn clear_fields(u: &mut NCURI) {
    for f in [
        &mut u.uri,
        &mut u.protocol,
        &mut u.user,
        &mut u.password,
        &mut u.host,
        &mut u.port,
        &mut u.path,
        &mut u.query,
        &mut u.fragment,
    ] {
        // SAFETY: each field is NULL or malloc'd.
        unsafe { libc::free((*f).cast()) };
        *f = ptr::null_mut();
    }
    // SAFETY: lists are NULL or malloc'd envv arrays.
    unsafe {
        free_envv(u.fraglist);
        free_envv(u.querylist);
    }
    u.fraglist = ptr::null_mut();
    u.querylist = ptr::null_mut();
}

/// Allocate a C NCURI holding `parsed` (with `original` as its `uri` field).
fn alloc_ncuri(original: &str, parsed: &Uri) -> NcResult<*mut NCURI> {
    // SAFETY: calloc of one struct; checked below. All-zero is a valid NCURI
    // (every pointer NULL).
    let c = unsafe { libc::calloc(1, size_of::<NCURI>()) }.cast::<NCURI>();
    // SAFETY: c is NULL or a fresh zeroed NCURI owned here.
    let Some(u) = (unsafe { c.as_mut() }) else {
        return Err(NcError::NoMem);
    };
    let filled = (|| -> NcResult<()> {
        u.uri = dup_opt(Some(original))?;
        u.protocol = dup_opt(Some(&parsed.protocol))?;
        u.user = dup_opt(parsed.user.as_deref())?;
        u.password = dup_opt(parsed.password.as_deref())?;
        u.host = dup_opt(parsed.host.as_deref())?;
        u.port = dup_opt(parsed.port.as_deref())?;
        u.path = dup_opt(parsed.path.as_deref())?;
        u.query = dup_opt(parsed.query.as_deref())?;
        u.fragment = dup_opt(parsed.fragment.as_deref())?;
        u.fraglist = envv_from_pairs(&parsed.fraglist)?;
        u.querylist = envv_from_pairs(&parsed.querylist)?;
        Ok(())
    })();
    if let Err(e) = filled {
        // SAFETY: u's fields are NULL or malloc'd; c is ours.
        unsafe {
            clear_fields(u);
            libc::free(c.cast());
        }
        return Err(e);
    }
    Ok(c)
}

/// `int ncuriparse(const char* s, NCURI** ncurip)`: parse a URL into a new
/// NCURI written to `*ncurip` (freed again if `ncurip` is NULL). NC_EURL if `s`
/// is NULL, empty, not a URL or malformed (nothing written); NC_ENOMEM.
///
/// # Safety
/// `s` is NULL or NUL-terminated; `ncurip` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriparse(s: *const c_char, ncurip: *mut *mut NCURI) -> c_int {
    ffi_boundary!(status {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        let text = unsafe { cstr(s) }.map_err(|_| NcError::Url)?;
        let parsed = Uri::parse(text)?;
        let c = alloc_ncuri(text, &parsed)?;
        if ncurip.is_null() {
            // SAFETY: c is the NCURI just allocated.
            unsafe { ncurifree(c) };
        } else {
            // SAFETY: ncurip is writable by the caller's contract.
            unsafe { ncurip.write(c) };
        }
        Ok(())
    })
}

/// `void ncurifree(NCURI* u)`: free `u` and everything it holds; NULL is ignored.
///
/// # Safety
/// `u` is NULL or an NCURI from `ncuriparse`/`ncuriclone` (fields NULL or
/// malloc'd), not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurifree(u: *mut NCURI) {
    ffi_boundary!(on_panic(()) {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        if let Some(r) = unsafe { u.as_mut() } {
            // SAFETY: fields are NULL or malloc'd; u itself is malloc'd.
            unsafe {
                clear_fields(r);
                libc::free(u.cast());
            }
        }
    })
}

/// `char* ncuribuild(NCURI* u, const char* prefix, const char* suffix, int
/// flags)`: the URL text (malloc'd) with the parts `flags` selects (NCURIPATH
/// 1, NCURIPWD 2, NCURIQUERY 4, NCURIFRAG 8, NCURIENCODEPATH 16,
/// NCURIENCODEQUERY 32; NCURIALL 15). `prefix` goes before the protocol,
/// `suffix` after the path. Brings query/fragment text and lists into
/// agreement first (it may update `u`, as netcdf-c). NULL for a NULL `u`.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `prefix`/`suffix` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuribuild(
    u: *mut NCURI,
    prefix: *const c_char,
    suffix: *const c_char,
    flags: c_int,
) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let Some(r) = (unsafe { u.as_mut() }) else {
            return ptr::null_mut();
        };
        // SAFETY: r is a valid NCURI; prefix/suffix NULL or NUL-terminated.
        let (uri, prefix, suffix) = unsafe {
            if (flags & uri::NCURIQUERY != 0 && ensure_query(r).is_err())
                || (flags & uri::NCURIFRAG != 0 && ensure_fragment(r).is_err())
            {
                return ptr::null_mut();
            }
            (uri_from_c(r), lossy(prefix), lossy(suffix))
        };
        malloc_cstring(uri.build(prefix.as_deref(), suffix.as_deref(), flags).as_bytes())
    })
}

/// Shared body of `ncuriappendfragmentkey` / `ncurisetfragmentkey`.
///
/// # Safety
/// As those functions.
unsafe fn set_fragment_key(u: *mut NCURI, key: *const c_char, value: *const c_char, append: bool) -> NcResult<()> {
    // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract); NULL
    // gives None.
    let r = unsafe { u.as_mut() }.ok_or(NcError::Inval)?;
    // SAFETY: NULL or NUL-terminated by the caller's contract.
    let (key, value) = unsafe { (lossy(key).ok_or(NcError::Inval)?, lossy(value).unwrap_or_default()) };
    // SAFETY: r is a valid NCURI.
    unsafe { ensure_fragment(r) }?;
    // SAFETY: r is a valid NCURI.
    let mut view = unsafe { uri_from_c(r) };
    if !append && view.fragment_lookup(&key).is_none() {
        return Err(NcError::Inval);
    }
    view.append_fragment_key(&key, &value);
    // SAFETY: r's fragment fields are NULL or malloc'd.
    unsafe {
        set_list(&mut r.fraglist, &view.fraglist)?;
        set_field(&mut r.fragment, view.fragment.as_deref())
    }
}

/// `int ncuriappendfragmentkey(NCURI* u, const char* key, const char* value)`:
/// set fragment `key` (matched ignoring case) to `value` (NULL: no value),
/// appending it when absent, and rewrite the fragment text. NC_EINVAL for a
/// NULL `u` or `key`. Differences from 4.9.0: the fragment text gets no
/// leading `#` (4.9.0's made `ncuribuild` write `...##mode=...`, which no
/// longer names the mode), a URL without fragment works (4.9.0 crashes), and
/// an existing key's value is replaced in the right slot.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `key`/`value` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriappendfragmentkey(u: *mut NCURI, key: *const c_char, value: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI, key and value NULL or
        // NUL-terminated (this export's contract), as set_fragment_key requires.
        unsafe { set_fragment_key(u, key, value, true) }
    })
}

/// `int ncurisetfragmentkey(NCURI* u, const char* key, const char* value)`:
/// as [`ncuriappendfragmentkey`] but NC_EINVAL when `key` is absent.
///
/// # Safety
/// As [`ncuriappendfragmentkey`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisetfragmentkey(u: *mut NCURI, key: *const c_char, value: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI, key and value NULL or
        // NUL-terminated (this export's contract), as set_fragment_key requires.
        unsafe { set_fragment_key(u, key, value, false) }
    })
}

/// Look `key` up in an envv list; a pointer to the stored value or NULL.
///
/// # Safety
/// `v` is NULL or a valid envv array; `key` NUL-terminated.
unsafe fn envv_lookup(v: *mut *mut c_char, key: &[u8]) -> *const c_char {
    if v.is_null() {
        return ptr::null();
    }
    let mut i = 0;
    loop {
        // SAFETY: the array runs to a NULL key.
        let k = unsafe { *v.add(i) };
        if k.is_null() {
            return ptr::null();
        }
        // SAFETY: keys are NUL-terminated.
        if unsafe { cbytes(k) }.is_ok_and(|k| k.eq_ignore_ascii_case(key)) {
            // SAFETY: a value slot follows each key.
            return unsafe { *v.add(i + 1) };
        }
        i += 2;
    }
}

/// `const char* ncurifragmentlookup(NCURI* u, const char* key)`: the value of
/// fragment `key` (ignoring case), owned by `u`; NULL if absent.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `key` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurifragmentlookup(u: *mut NCURI, key: *const c_char) -> *const c_char {
    ffi_boundary!(on_panic(ptr::null()) {
        // SAFETY: u is NULL or a valid NCURI and key NULL or NUL-terminated (this export's
        // contract); NULL gives None or an error.
        let (Some(r), Ok(k)) = (unsafe { u.as_mut() }, unsafe { cbytes(key) }) else {
            return ptr::null();
        };
        // SAFETY: r is a valid NCURI.
        if unsafe { ensure_fragment(r) }.is_err() {
            return ptr::null();
        }
        // SAFETY: fraglist is NULL or valid envv.
        unsafe { envv_lookup(r.fraglist, k) }
    })
}

/// `const char* ncuriquerylookup(NCURI* u, const char* key)`: the value of
/// query `key` (ignoring case), owned by `u`; NULL if absent.
///
/// # Safety
/// As [`ncurifragmentlookup`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriquerylookup(u: *mut NCURI, key: *const c_char) -> *const c_char {
    ffi_boundary!(on_panic(ptr::null()) {
        // SAFETY: u is NULL or a valid NCURI and key NULL or NUL-terminated (this export's
        // contract); NULL gives None or an error.
        let (Some(r), Ok(k)) = (unsafe { u.as_ref() }, unsafe { cbytes(key) }) else {
            return ptr::null();
        };
        // SAFETY: querylist is NULL or valid envv.
        unsafe { envv_lookup(r.querylist, k) }
    })
}

/// `const char** ncurifragmentparams(NCURI* u)`: the fragment envv list, owned
/// by `u` (NULL if none).
///
/// # Safety
/// `u` is NULL or a valid NCURI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurifragmentparams(u: *mut NCURI) -> *const *const c_char {
    ffi_boundary!(on_panic(ptr::null()) {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let Some(r) = (unsafe { u.as_mut() }) else {
            return ptr::null();
        };
        // SAFETY: r is a valid NCURI.
        let _ = unsafe { ensure_fragment(r) };
        r.fraglist.cast_const().cast()
    })
}

/// `const char** ncuriqueryparams(NCURI* u)`: the query envv list, owned by `u`.
///
/// # Safety
/// `u` is NULL or a valid NCURI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriqueryparams(u: *mut NCURI) -> *const *const c_char {
    ffi_boundary!(on_panic(ptr::null()) {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let Some(r) = (unsafe { u.as_mut() }) else {
            return ptr::null();
        };
        // SAFETY: r is a valid NCURI.
        let _ = unsafe { ensure_query(r) };
        r.querylist.cast_const().cast()
    })
}

/// Shared body of the `ncuriset{protocol,host,path}` setters.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `s` NULL or NUL-terminated.
unsafe fn set_string(u: *mut NCURI, s: *const c_char, pick: fn(&mut NCURI) -> &mut *mut c_char) -> NcResult<()> {
    // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract); NULL
    // gives None.
    let r = unsafe { u.as_mut() }.ok_or(NcError::Inval)?;
    // SAFETY: NULL or NUL-terminated; the field is NULL or malloc'd.
    unsafe {
        let v = lossy(s);
        set_field(pick(r), v.as_deref())
    }
}

/// `int ncurisetprotocol(NCURI* u, const char* p)`: replace the protocol.
/// NC_EINVAL for a NULL `u`.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `p` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisetprotocol(u: *mut NCURI, p: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI and p NULL or NUL-terminated
        // (this export's contract), as set_string requires.
        unsafe { set_string(u, p, |r| &mut r.protocol) }
    })
}

/// `int ncurisethost(NCURI* u, const char* h)`: replace the host.
///
/// # Safety
/// As [`ncurisetprotocol`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisethost(u: *mut NCURI, h: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI and h NULL or NUL-terminated
        // (this export's contract), as set_string requires.
        unsafe { set_string(u, h, |r| &mut r.host) }
    })
}

/// `int ncurisetpath(NCURI* u, const char* p)`: replace the path.
///
/// # Safety
/// As [`ncurisetprotocol`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisetpath(u: *mut NCURI, p: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI and p NULL or NUL-terminated
        // (this export's contract), as set_string requires.
        unsafe { set_string(u, p, |r| &mut r.path) }
    })
}

/// `int ncurisetquery(NCURI* u, const char* q)`: replace the query text and its
/// list (NULL or "" removes the query).
///
/// # Safety
/// As [`ncurisetprotocol`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisetquery(u: *mut NCURI, q: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let r = unsafe { u.as_mut() }.ok_or(NcError::Inval)?;
        // SAFETY: NULL or NUL-terminated.
        let q = unsafe { lossy(q) }.filter(|q| !q.is_empty());
        let pairs = q.as_deref().map(uri::parse_params).unwrap_or_default();
        // SAFETY: the fields are NULL or malloc'd.
        unsafe {
            set_list(&mut r.querylist, &pairs)?;
            set_field(&mut r.query, q.as_deref())
        }
    })
}

/// `int ncurisetfragments(NCURI* u, const char* f)`: replace the fragment text
/// (NULL or "" removes it); the list is rebuilt from it when next needed.
///
/// # Safety
/// As [`ncurisetprotocol`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurisetfragments(u: *mut NCURI, f: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let r = unsafe { u.as_mut() }.ok_or(NcError::Inval)?;
        // SAFETY: NULL or NUL-terminated.
        let f = unsafe { lossy(f) }.filter(|f| !f.is_empty());
        // SAFETY: the fields are NULL or malloc'd.
        unsafe {
            set_list(&mut r.fraglist, &[])?;
            set_field(&mut r.fragment, f.as_deref())
        }
    })
}

/// `int ncurirebuild(NCURI* u)`: set the `uri` field to `ncuribuild(u, NULL,
/// NULL, NCURIALL)`.
///
/// # Safety
/// `u` is NULL or a valid NCURI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurirebuild(u: *mut NCURI) -> c_int {
    ffi_boundary!(status {
        if u.is_null() {
            return Err(NcError::Inval);
        }
        // SAFETY: u is a valid NCURI.
        let s = unsafe { ncuribuild(u, ptr::null(), ptr::null(), uri::NCURIALL) };
        if s.is_null() {
            return Err(NcError::NoMem);
        }
        // SAFETY: u is valid; its uri field is NULL or malloc'd; s is malloc'd.
        unsafe {
            libc::free((*u).uri.cast());
            (*u).uri = s;
        }
        Ok(())
    })
}

/// `NCURI* ncuriclone(NCURI* u)`: a deep copy (NULL for NULL or out of memory).
///
/// # Safety
/// `u` is NULL or a valid NCURI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriclone(u: *mut NCURI) -> *mut NCURI {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: u is NULL or a valid NCURI not otherwise borrowed (this function's contract);
        // NULL gives None.
        let Some(r) = (unsafe { u.as_mut() }) else {
            return ptr::null_mut();
        };
        // SAFETY: r is a valid NCURI.
        let (original, view) = unsafe {
            if ensure_fragment(r).is_err() || ensure_query(r).is_err() {
                return ptr::null_mut();
            }
            (lossy(r.uri).unwrap_or_default(), uri_from_c(r))
        };
        alloc_ncuri(&original, &view).unwrap_or(ptr::null_mut())
    })
}

/// `char* ncuridecode(const char* s)`: malloc'd copy with every `%XX` decoded.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuridecode(s: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: NULL or NUL-terminated.
        unsafe { cbytes(s) }.map_or(ptr::null_mut(), |b| malloc_cstring(&uri::decode_bytes(b)))
    })
}

/// `char* ncuridecodepartial(const char* s, const char* decodeset)`: decode
/// only the `%XX` escapes of characters in `decodeset` (and `+` as space when
/// `+` is in it). NULL if either argument is NULL.
///
/// # Safety
/// `s` and `decodeset` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuridecodepartial(s: *const c_char, decodeset: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: NULL or NUL-terminated.
        let (Ok(b), Ok(set)) = (unsafe { cbytes(s) }, unsafe { cbytes(decodeset) }) else {
            return ptr::null_mut();
        };
        let out = uri::decode_bytes_if(b, set.contains(&b'+'), |c| set.contains(&c));
        malloc_cstring(&out)
    })
}

/// `char* ncuriencodeonly(const char* s, const char* allowable)`: malloc'd copy
/// with every byte not in `allowable` (alphanumerics included) written as
/// `%xx`. NULL for a NULL `s`; a NULL `allowable` allows nothing.
///
/// # Safety
/// `s` and `allowable` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriencodeonly(s: *const c_char, allowable: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: NULL or NUL-terminated.
        let (b, allow) = unsafe { (cbytes(s), cbytes(allowable).unwrap_or(b"")) };
        b.map_or(ptr::null_mut(), |b| malloc_cstring(&uri::encode_bytes(b, allow)))
    })
}

/// `char* ncuriencodeuserpwd(const char* s)`: [`ncuriencodeonly`] with the set
/// allowed in user names and passwords.
///
/// # Safety
/// `s` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriencodeuserpwd(s: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(ptr::null_mut()) {
        // SAFETY: NULL or NUL-terminated.
        unsafe { cbytes(s) }.map_or(ptr::null_mut(), |b| {
            malloc_cstring(&uri::encode_bytes(b, uri::USERPWD_ALLOW.as_bytes()))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{CStr, CString};

    /// Take ownership of a malloc'd C string.
    fn take(p: *mut c_char) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: p is a malloc'd NUL-terminated string returned to us.
        let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
        // SAFETY: as above; freed once.
        unsafe { libc::free(p.cast()) };
        Some(s)
    }

    #[test]
    fn log_levels() {
        // Logging state is process-wide: restore it at the end.
        let start = ncsetloglevel(-1);
        assert_eq!(ncsetloglevel(NCLOGDEBUG), start);
        assert_eq!(ncsetloglevel(2), NCLOGDEBUG);
        assert!(crate::log::enabled());
        // Out of range: nothing changes, the current level comes back.
        assert_eq!(ncsetloglevel(5), 2);
        assert_eq!(ncsetloglevel(-1), 2);
        assert_eq!(ncsetloglevel(0), 2);
        assert!(!crate::log::enabled());
        assert_eq!(ncsetloglevel(0), 0);
        // ncsetlogging switches the same log, at the level last set.
        assert_eq!(ncsetlogging(1), 0);
        assert_eq!(ncsetloglevel(0), 2);
        ncsetloglevel(start);
    }

    #[test]
    fn strlcat_plans() {
        // (dlen, slen, dsize) -> (bytes copied, return)
        assert_eq!(strlcat_plan(3, 4, 10), (Some(4), 7));
        assert_eq!(strlcat_plan(3, 10, 10), (Some(6), 13));
        assert_eq!(strlcat_plan(9, 1, 10), (Some(0), 10));
        assert_eq!(strlcat_plan(10, 5, 10), (None, 15));
        assert_eq!(strlcat_plan(0, 5, 0), (None, 5));
    }

    #[test]
    fn strlcat_calls() {
        let mut buf = [0 as c_char; 8];
        let src = CString::new("abcdef").unwrap();
        // SAFETY: buf has 8 bytes; src is NUL-terminated.
        unsafe {
            assert_eq!(strlcat(buf.as_mut_ptr(), src.as_ptr(), 8), 6);
            assert_eq!(nc_strlcat(buf.as_mut_ptr(), src.as_ptr(), 8), 12);
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_bytes(), b"abcdefa");
            assert_eq!(strlcat(ptr::null_mut(), src.as_ptr(), 8), 0);
        }
    }

    #[test]
    fn path_helpers() {
        let p = CString::new("file:///x/data.zarr\\#mode=nczarr,file").unwrap();
        // SAFETY: valid C strings and out-pointers throughout.
        unsafe {
            let u = take(NC_shellUnescape(p.as_ptr())).unwrap();
            assert_eq!(u, "file:///x/data.zarr#mode=nczarr,file");
            assert!(NC_shellUnescape(ptr::null()).is_null());
            let mut out: *mut c_char = ptr::null_mut();
            let c = CString::new("C:\\x").unwrap();
            assert_eq!(NCpathcanonical(c.as_ptr(), &mut out), 0);
            assert_eq!(take(out).unwrap(), "/cygdrive/C/x");
            assert_eq!(NCpathcanonical(ptr::null(), &mut out), 0);
            let u = CString::new(u).unwrap();
            let mut base: *mut c_char = ptr::null_mut();
            assert_eq!(nc__testurl(u.as_ptr(), &mut base), 1);
            assert_eq!(take(base).unwrap(), "data");
            assert_eq!(nc__testurl(c.as_ptr(), &mut base), 0);
            let mut isfile: c_int = -1;
            assert_eq!(NC__testurl(u.as_ptr(), &mut base, &mut isfile), 1);
            assert_eq!((take(base).unwrap().as_str(), isfile), ("data", 1));
            assert_eq!(NC__testurl(c.as_ptr(), ptr::null_mut(), &mut isfile), 0);
            assert_eq!(isfile, 0);
        }
    }

    #[test]
    fn list_operations() {
        let p = |i: usize| i as *mut c_void;
        // SAFETY: one list, used only through these calls, freed at the end.
        unsafe {
            let l = nclistnew();
            assert_eq!(((*l).alloc, (*l).length), (0, 0));
            for i in 1..=20 {
                assert_eq!(nclistpush(l, p(i)), 1);
            }
            assert_eq!((*l).length, 20);
            assert!((*l).alloc >= 20);
            assert_eq!(nclistget(l, 0), p(1));
            assert!(nclistget(l, 20).is_null());
            assert_eq!(nclistremove(l, 0), p(1));
            assert_eq!(nclistget(l, 0), p(2));
            assert_eq!(nclistinsert(l, 0, p(100)), 1);
            assert_eq!(nclistinsert(l, 20, p(200)), 1);
            assert_eq!(nclistinsert(l, 22, p(300)), 0);
            assert_eq!((*l).length, 21);
            assert_eq!(nclisttop(l), p(200));
            assert_eq!(nclistpop(l), p(200));
            assert_eq!(nclistcontains(l, p(100)), 1);
            assert_eq!(nclistelemremove(l, p(100)), 1);
            assert_eq!(nclistelemremove(l, p(100)), 0);
            assert_eq!(nclistset(l, 25, p(7)), 1);
            assert_eq!((*l).length, 26);
            assert!(nclistget(l, 24).is_null());
            assert_eq!(nclistsetlength(l, 3), 1);
            for _ in 0..3 {
                nclistpush(l, p(2));
            }
            assert_eq!(nclistunique(l), 1);
            assert_eq!((*l).length, 3);
            let c = nclistclone(l, 0);
            assert_eq!((*c).length, 3);
            assert!((*(*c).content.add(3)).is_null());
            let content = nclistextract(c).cast::<*mut c_void>();
            assert_eq!(*content.add(1), p(3));
            assert_eq!((*c).length, 0);
            libc::free(content.cast());
            nclistfree(c);
            nclistfree(l);
            assert!(nclistget(ptr::null(), 0).is_null());
            assert_eq!(nclistpush(ptr::null_mut(), ptr::null()), 0);
        }
    }

    #[test]
    fn list_of_strings() {
        // SAFETY: lists of malloc'd strings, freed with freeall.
        unsafe {
            let l = nclistnew();
            for s in ["Alpha", "beta"] {
                nclistpush(l, malloc_cstring(s.as_bytes()).cast());
            }
            let a = CString::new("alpha").unwrap();
            assert_eq!(nclistmatch(l, a.as_ptr(), 1), 0);
            assert_eq!(nclistmatch(l, a.as_ptr(), 0), 1);
            let c = nclistclone(l, 1);
            assert_ne!(nclistget(c, 0), nclistget(l, 0));
            assert_eq!(CStr::from_ptr(nclistget(c, 1).cast()).to_bytes(), b"beta");
            nclistfreeall(c);
            nclistfreeall(l);
        }
    }

    #[test]
    fn uri_round_trip() {
        let s = CString::new("file:///x/data.zarr#mode=nczarr,file").unwrap();
        let mut u: *mut NCURI = ptr::null_mut();
        // SAFETY: u comes from ncuriparse and is freed once.
        unsafe {
            assert_eq!(ncuriparse(s.as_ptr(), &mut u), 0);
            let r = &*u;
            assert_eq!(CStr::from_ptr(r.protocol).to_bytes(), b"file");
            assert!(r.host.is_null());
            assert_eq!(CStr::from_ptr(r.path).to_bytes(), b"/x/data.zarr");
            assert_eq!(CStr::from_ptr(r.fragment).to_bytes(), b"mode=nczarr,file");
            assert_eq!(CStr::from_ptr(*r.fraglist.add(1)).to_bytes(), b"nczarr,file");
            assert!((*r.fraglist.add(2)).is_null());
            let cache = CString::new("cache").unwrap();
            assert_eq!(ncuriappendfragmentkey(u, cache.as_ptr(), ptr::null()), 0);
            let built = take(ncuribuild(u, ptr::null(), ptr::null(), uri::NCURIALL)).unwrap();
            assert_eq!(built, "file:///x/data.zarr#mode=nczarr,file&cache");
            let mode = CString::new("MODE").unwrap();
            let v = ncurifragmentlookup(u, mode.as_ptr());
            assert_eq!(CStr::from_ptr(v).to_bytes(), b"nczarr,file");
            let c = ncuriclone(u);
            ncurifree(u);
            let built = take(ncuribuild(c, ptr::null(), ptr::null(), uri::NCURIALL)).unwrap();
            assert_eq!(built, "file:///x/data.zarr#mode=nczarr,file&cache");
            ncurifree(c);
            let bad = CString::new("/tmp/x").unwrap();
            let mut u2: *mut NCURI = ptr::null_mut();
            assert_eq!(ncuriparse(bad.as_ptr(), &mut u2), NcError::Url.code());
            assert!(u2.is_null());
            assert_eq!(ncuriparse(ptr::null(), &mut u2), NcError::Url.code());
            assert_eq!(
                ncuriappendfragmentkey(ptr::null_mut(), cache.as_ptr(), ptr::null()),
                NcError::Inval.code()
            );
            ncurifree(ptr::null_mut());
        }
    }
}
