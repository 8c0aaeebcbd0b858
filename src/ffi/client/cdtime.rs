//! C exports of the cdtime helpers (`cdParseRelunits`, `cdRel2Iso`,
//! `cdChar2Comp`, `Cdh2e`, `Cde2h`, `cdSetErrOpts`).
//!
//! They are not in netcdf-c's installed headers, but `ncdump -t` and ncgen
//! call them, so the names, prototypes and struct layouts follow netcdf-c
//! 4.9.0's `include/nctime.h` (the libnetcdf.so.19 ABI). In particular
//! `cdRel2Iso` has no buffer-size argument: that came in netcdf-c 4.9.3.
//! The `cdCalenType`/`CdTimeType` enums travel as `int`, so any value is
//! accepted (unknown calendars are reported as netcdf-c does).
//!
//! NULL pointers, where netcdf-c would crash, make a call do nothing (and
//! `cdParseRelunits` return 1).
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_long, c_short};

use crate::api::cdtime::{self, CompTime, HumanTime};
use crate::ffi::{cbytes, ffi_boundary, put};

/// `cdCompTime`: a calendar date and time.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdCompTime {
    pub year: c_long,
    pub month: c_short,
    pub day: c_short,
    pub hour: f64,
}

/// `CdTime`: a date with its time type (`CdTimeType`) and base year.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdTime {
    pub year: c_long,
    pub month: c_short,
    pub day: c_short,
    pub hour: f64,
    pub baseYear: c_long,
    pub timeType: c_int,
}

impl From<CompTime> for CdCompTime {
    fn from(c: CompTime) -> Self {
        CdCompTime {
            year: c.year,
            month: c.month,
            day: c.day,
            hour: c.hour,
        }
    }
}

impl From<HumanTime> for CdTime {
    fn from(h: HumanTime) -> Self {
        CdTime {
            year: h.year,
            month: h.month,
            day: h.day,
            hour: h.hour,
            baseYear: h.base_year,
            timeType: h.time_type,
        }
    }
}

impl From<&CdTime> for HumanTime {
    fn from(h: &CdTime) -> Self {
        HumanTime {
            year: h.year,
            month: h.month,
            day: h.day,
            hour: h.hour,
            base_year: h.baseYear,
            time_type: h.timeType,
        }
    }
}

/// `int cdParseRelunits(cdCalenType timetype, char* relunits, cdUnitTime* unit, cdCompTime* base_comptime)`
///
/// Parses units such as "days since 1970-01-01 00:00:00". Returns 0 and
/// writes the unit (`cdUnitTime` value) and the base time on success;
/// returns 1 and writes nothing when the string is empty, the unit unknown,
/// or `relunits` is NULL. An unreadable base time is not a failure.
///
/// # Safety
/// `relunits` is NULL or a NUL-terminated string; `unit` and `base_comptime`
/// are NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdParseRelunits(
    timetype: c_int,
    relunits: *const c_char,
    unit: *mut c_int,
    base_comptime: *mut CdCompTime,
) -> c_int {
    ffi_boundary!(on_panic(1) {
        // SAFETY: NULL or NUL-terminated, by the caller's contract.
        let Ok(text) = (unsafe { cbytes(relunits) }) else {
            return 1;
        };
        match cdtime::parse_relunits(timetype, text) {
            Some((u, base)) => {
                // SAFETY: NULL or valid for one write, by the caller's contract.
                unsafe {
                    put(unit, u.code());
                    put(base_comptime, CdCompTime::from(base));
                }
                0
            }
            None => 1,
        }
    })
}

/// `void cdRel2Iso(cdCalenType timetype, char* relunits, int separator, double reltime, char* chartime)`
///
/// Writes `reltime` in `relunits` as an ISO-like date ("2000-01-01",
/// "2000-01-01 12:30", `separator` between date and time) to `chartime`,
/// NUL terminated, at most 43 bytes in all. Writes nothing when the units
/// cannot be parsed or the date is invalid (netcdf-c then formats an
/// uninitialised date).
///
/// # Safety
/// `relunits` is NULL or a NUL-terminated string; `chartime` is NULL or
/// valid for `CD_MAX_CHARTIME` (48) byte writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdRel2Iso(
    timetype: c_int,
    relunits: *const c_char,
    separator: c_int,
    reltime: f64,
    chartime: *mut c_char,
) {
    ffi_boundary!(on_panic(()) {
        if chartime.is_null() {
            return;
        }
        // SAFETY: NULL or NUL-terminated, by the caller's contract.
        let Ok(text) = (unsafe { cbytes(relunits) }) else {
            return;
        };
        // printf's %c: the separator is converted to unsigned char.
        let Some(out) = cdtime::rel_to_iso(timetype, text, separator as u8, reltime) else {
            return;
        };
        // SAFETY: chartime is non-NULL with room for CD_MAX_CHARTIME bytes;
        // `out` is at most 42 bytes, plus the terminator.
        unsafe {
            std::ptr::copy_nonoverlapping(out.as_ptr(), chartime.cast::<u8>(), out.len());
            chartime.add(out.len()).write(0);
        }
    })
}

/// `void cdChar2Comp(cdCalenType timetype, char* chartime, cdCompTime* comptime)`
///
/// Reads "YYYY-MM-DD hh:mm:ss" (any trailing part may be missing; "MM-DD
/// ..." for climatological calendars) into `comptime`. Errors are reported
/// through the `cdSetErrOpts` options, and the fields read so far kept.
///
/// # Safety
/// `chartime` is NULL or a NUL-terminated string; `comptime` is NULL or
/// valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdChar2Comp(timetype: c_int, chartime: *const c_char, comptime: *mut CdCompTime) {
    ffi_boundary!(on_panic(()) {
        // SAFETY: NULL or NUL-terminated, by the caller's contract.
        let Ok(text) = (unsafe { cbytes(chartime) }) else {
            return;
        };
        let c = cdtime::char_to_comp(timetype, text);
        // SAFETY: NULL or valid for one write, by the caller's contract.
        unsafe { put(comptime, CdCompTime::from(c)) };
    })
}

/// `void Cdh2e(CdTime* htime, double* etime)`
///
/// Converts a human time to epochal hours (since 1970 for the `CdChron`
/// family of time types).
///
/// # Safety
/// `htime` is NULL or points to a valid `CdTime`; `etime` is NULL or valid
/// for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn Cdh2e(htime: *const CdTime, etime: *mut f64) {
    ffi_boundary!(on_panic(()) {
        // SAFETY: NULL or a valid, aligned CdTime, by the caller's contract.
        let Some(h) = (unsafe { htime.as_ref() }) else {
            return;
        };
        let e = cdtime::human_to_epoch(&HumanTime::from(h));
        // SAFETY: NULL or valid for one write, by the caller's contract.
        unsafe { put(etime, e) };
    })
}

/// `void Cde2h(double etime, CdTimeType timeType, long baseYear, CdTime* htime)`
///
/// Converts epochal hours back to a human time.
///
/// # Safety
/// `htime` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn Cde2h(etime: f64, timeType: c_int, baseYear: c_long, htime: *mut CdTime) {
    ffi_boundary!(on_panic(()) {
        if htime.is_null() {
            return;
        }
        let h = cdtime::epoch_to_human(etime, timeType, baseYear);
        // SAFETY: NULL or valid for one write, by the caller's contract.
        unsafe { put(htime, CdTime::from(h)) };
    })
}

/// `int cdSetErrOpts(int opts)`
///
/// Sets the error options (`CU_FATAL` 1: exit on error, `CU_VERBOSE` 2:
/// print errors on standard error) and returns the previous ones.
#[unsafe(no_mangle)]
pub extern "C" fn cdSetErrOpts(opts: c_int) -> c_int {
    ffi_boundary!(on_panic(0) { cdtime::set_err_opts(opts) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn layouts_match_nctime_h() {
        assert_eq!(std::mem::size_of::<CdCompTime>(), 24);
        assert_eq!(std::mem::offset_of!(CdCompTime, hour), 16);
        assert_eq!(std::mem::size_of::<CdTime>(), 40);
        assert_eq!(std::mem::offset_of!(CdTime, baseYear), 24);
        assert_eq!(std::mem::offset_of!(CdTime, timeType), 32);
    }

    #[test]
    fn exports_and_null_arguments() {
        let mut unit = -1;
        let mut base = CdCompTime {
            year: 0,
            month: 0,
            day: 0,
            hour: -1.0,
        };
        let units = c"hours since 1990-01-01 06:00";
        // SAFETY: valid string and out-pointers.
        let rc = unsafe { cdParseRelunits(cdtime::calendar::MIXED, units.as_ptr(), &mut unit, &mut base) };
        assert_eq!((rc, unit), (0, 2));
        assert_eq!((base.year, base.month, base.day, base.hour), (1990, 1, 1, 6.0));
        // SAFETY: NULL arguments are accepted.
        let rc = unsafe { cdParseRelunits(0, std::ptr::null(), &mut unit, &mut base) };
        assert_eq!(rc, 1);

        let mut buf = [0x55 as c_char; 48];
        // SAFETY: valid string and a 48-byte buffer.
        unsafe {
            cdRel2Iso(
                cdtime::calendar::MIXED,
                units.as_ptr(),
                c_int::from(b'T'),
                6.5,
                buf.as_mut_ptr(),
            )
        };
        // SAFETY: cdRel2Iso terminated the buffer.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) };
        assert_eq!(s.to_bytes(), b"1990-01-01T12:30");
        // SAFETY: NULL buffer and units are accepted.
        unsafe {
            cdRel2Iso(0, units.as_ptr(), 32, 1.0, std::ptr::null_mut());
            cdRel2Iso(0, std::ptr::null(), 32, 1.0, buf.as_mut_ptr());
        }

        let h = CdTime {
            year: 1971,
            month: 1,
            day: 1,
            hour: 1.0,
            baseYear: 1970,
            timeType: cdtime::time_type::CHRON,
        };
        let mut e = 0.0;
        // SAFETY: valid pointers.
        unsafe { Cdh2e(&h, &mut e) };
        assert_eq!(e, 8761.0);
        let mut back = h;
        back.year = 0;
        // SAFETY: valid pointer.
        unsafe { Cde2h(e, cdtime::time_type::CHRON, 1970, &mut back) };
        assert_eq!(back, h);
        // SAFETY: NULL arguments are accepted.
        unsafe {
            Cdh2e(std::ptr::null(), &mut e);
            Cdh2e(&h, std::ptr::null_mut());
            Cde2h(0.0, 0, 0, std::ptr::null_mut());
            cdChar2Comp(0, std::ptr::null(), &mut base);
        }
        let old = cdSetErrOpts(0);
        assert_eq!(cdSetErrOpts(old), 0);
    }
}
