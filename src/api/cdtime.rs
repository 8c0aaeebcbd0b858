//! Calendar arithmetic for CF-style relative times ("days since 2000-01-01").
//!
//! netcdf-c ships these helpers (in `libdispatch/nctime.c`, derived from LLNL's
//! cdtime) and its tools call them directly: `ncdump -t` turns numbers into
//! ISO dates with `cdParseRelunits`/`cdRel2Iso`, and ncgen's CDL `time()`
//! function uses `cdChar2Comp`/`Cdh2e`. Their results are visible in tool
//! output, so this module reproduces netcdf-c 4.9.0 exactly, quirks included:
//!
//! * the `standard`/`gregorian` calendar (`MIXED`) is Julian before
//!   1582-10-15 and Gregorian from then on, but only for units of a fixed
//!   length (seconds to weeks); month, season and year units fall back to the
//!   proleptic Gregorian calendar;
//! * month-like units (months, seasons, years) step whole months and land on
//!   day 1 at 00:00; the fraction of a month is dropped (a value within
//!   1e-10 below a whole number counts as that number), and an offset of
//!   exactly 0 gives the base time unchanged;
//! * the base time is read with C `sscanf` rules (`%ld-%hd-%hd %d:%d:%lf`),
//!   so a trailing time-zone token ("UTC", "Z", "+05:00") is ignored;
//! * output trims zero trailing fields: `2000-01-01`, `2000-01-01 12`,
//!   `2000-01-01 12:30`, `2000-01-01 12:30:15`, `2000-01-01 12:30:15.500000`.
//!
//! Where netcdf-c relies on undefined behaviour (overflowing a fixed buffer,
//! reading an uninitialised struct, converting an out-of-range double to an
//! integer) the code here does the defined thing that matches what the C code
//! does on x86-64 in practice, and says so.
//!
//! Errors are not returned but reported as netcdf-c does: a message on
//! standard error when `CU_VERBOSE` is set with [`set_err_opts`], and
//! `exit(1)` when `CU_FATAL` is set.
#![forbid(unsafe_code)]

use std::cmp::Ordering as CmpOrdering;
use std::io::Write;
use std::sync::atomic::{AtomicI32, Ordering};

/// `cdCalenType` values: the calendars of the public cdtime API.
pub mod calendar {
    /// Bit set for every non-climatological calendar (`cdStandardCal`).
    pub const STANDARD_CAL: i32 = 0x11;
    /// Proleptic Gregorian (`cdStandard`); ncdump's `proleptic_gregorian`.
    pub const STANDARD: i32 = 0x1111;
    /// Julian (`cdJulian`).
    pub const JULIAN: i32 = 0x11111;
    /// 365-day years (`cdNoLeap`); `noleap`, `no_leap`, `365_day`.
    pub const NO_LEAP: i32 = 0x1011;
    /// 360-day years of twelve 30-day months (`cd360`).
    pub const DAYS_360: i32 = 0x11;
    /// 366-day years (`cd366`); `all_leap`, `allleap`, `366_day`.
    pub const DAYS_366: i32 = 0x2011;
    /// Climatological 365-day year, no year number (`cdClim`); ncdump's `none`.
    pub const CLIM: i32 = 0x1000;
    /// Climatological leap year (`cdClimLeap`).
    pub const CLIM_LEAP: i32 = 0x1100;
    /// Climatological 360-day year (`cdClim360`).
    pub const CLIM_360: i32 = 0;
    /// Mixed Julian/Gregorian (`cdMixed`); ncdump's `standard`, `gregorian`
    /// and the default when a variable has no `calendar` attribute.
    pub const MIXED: i32 = 0x21111;
}

/// `CdTimeType` bits: the older time-type encoding used by [`HumanTime`].
pub mod time_type {
    /// Chronological (has years) rather than climatological.
    pub const CHRON_CAL: i32 = 0x1;
    /// Epochal times count from 1970 rather than from the struct's base year.
    pub const BASE_1970: i32 = 0x10;
    /// Some years are leap years.
    pub const HAS_LEAP: i32 = 0x100;
    /// Month lengths of a 365-day year.
    pub const DAYS_365: i32 = 0x1000;
    /// Every year has 366 days.
    pub const DAYS_366: i32 = 0x2000;
    /// Leap every fourth year, with no century rule.
    pub const JULIAN_TYPE: i32 = 0x10000;

    /// `CdChron`: proleptic Gregorian, hours since 1970 (what ncgen uses).
    pub const CHRON: i32 = CHRON_CAL | BASE_1970 | HAS_LEAP | DAYS_365;
    /// `CdJulianCal`.
    pub const JULIAN: i32 = CHRON | JULIAN_TYPE;
    /// `CdChronNoLeap`.
    pub const CHRON_NO_LEAP: i32 = CHRON_CAL | BASE_1970 | DAYS_365;
    /// `CdChron360`.
    pub const CHRON_360: i32 = CHRON_CAL | BASE_1970;
    /// `CdChron366`.
    pub const CHRON_366: i32 = CHRON_CAL | BASE_1970 | DAYS_366;
    /// `CdClim`.
    pub const CLIM: i32 = DAYS_365;
    /// `CdClimLeap`.
    pub const CLIM_LEAP: i32 = HAS_LEAP | DAYS_365;
    /// `CdClim360`: netcdf-c defines it with 365-day months, like `CdClim`.
    pub const CLIM_360: i32 = DAYS_365;
}

/// Error option: exit the process on an error (`CU_FATAL`).
pub const CU_FATAL: i32 = 1;
/// Error option: print errors on standard error (`CU_VERBOSE`).
pub const CU_VERBOSE: i32 = 2;

/// Units of a relative time (`cdUnitTime`; the discriminant is the C value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Unit {
    Minute = 1,
    Hour = 2,
    Day = 3,
    Week = 4,
    Month = 5,
    Season = 6,
    Year = 7,
    Second = 8,
}

impl Unit {
    /// The C enum value.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// `value` units expressed in hours, for the units of fixed length.
    fn hours(self, value: f64) -> Option<f64> {
        match self {
            Unit::Second => Some(value / 3600.0),
            Unit::Minute => Some(value / 60.0),
            Unit::Hour => Some(value),
            Unit::Day => Some(24.0 * value),
            Unit::Week => Some(168.0 * value),
            Unit::Month | Unit::Season | Unit::Year => None,
        }
    }

    /// `value` units as a whole number of months, for the month-like units.
    /// Values within 1e-10 below a whole number count as that number.
    fn months(self, value: f64) -> Option<i64> {
        let nudge = if value < 0.0 { -1.0e-10 } else { 1.0e-10 };
        let months = match self {
            Unit::Month => value,
            Unit::Season => 3.0 * value,
            Unit::Year => 12.0 * value,
            _ => return None,
        };
        Some(c_long(months + nudge))
    }
}

/// A calendar date and time of day (`cdCompTime`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompTime {
    pub year: i64,
    /// 1..=12 when valid.
    pub month: i16,
    /// 1..=31 when valid.
    pub day: i16,
    /// Hour of the day with its fraction.
    pub hour: f64,
}

impl CompTime {
    pub const fn new(year: i64, month: i16, day: i16, hour: f64) -> CompTime {
        CompTime { year, month, day, hour }
    }
}

/// A date with its time type and base year (`CdTime`), the input of
/// [`human_to_epoch`] and output of [`epoch_to_human`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HumanTime {
    /// The year, or the offset from `base_year` when the type lacks `BASE_1970`.
    pub year: i64,
    pub month: i16,
    pub day: i16,
    pub hour: f64,
    pub base_year: i64,
    /// [`time_type`] bits.
    pub time_type: i32,
}

impl HumanTime {
    fn from_comp(c: CompTime, time_type: i32) -> HumanTime {
        HumanTime {
            year: c.year,
            month: c.month,
            day: c.day,
            hour: c.hour,
            base_year: 1970,
            time_type,
        }
    }

    fn comp(&self) -> CompTime {
        CompTime::new(self.year, self.month, self.day, self.hour)
    }
}

// ---------------------------------------------------------------------------
// Error reporting

static ERR_OPTS: AtomicI32 = AtomicI32::new(0);

/// Set the error options ([`CU_VERBOSE`], [`CU_FATAL`]); returns the old ones.
pub fn set_err_opts(opts: i32) -> i32 {
    ERR_OPTS.swap(opts, Ordering::Relaxed)
}

/// Report an error the way netcdf-c does: `CDMS error: <msg>` and a newline
/// on standard error if verbose (messages may carry their own newline too),
/// then exit if fatal.
fn report(msg: &[u8]) {
    let opts = ERR_OPTS.load(Ordering::Relaxed);
    if opts & CU_VERBOSE != 0 {
        let mut line = Vec::with_capacity(msg.len() + 13);
        line.extend_from_slice(b"CDMS error: ");
        line.extend_from_slice(msg);
        line.push(b'\n');
        // Nothing sensible to do if standard error is gone.
        let _ = std::io::stderr().write_all(&line);
    }
    if opts & CU_FATAL != 0 {
        std::process::exit(1);
    }
}

/// [`report`] for a message that quotes caller bytes (`%s`).
fn report_quoting(prefix: &str, quoted: &[u8], suffix: &str) {
    report(&[prefix.as_bytes(), quoted, suffix.as_bytes()].concat());
}

// ---------------------------------------------------------------------------
// C conversions

/// `(int)x` as x86-64 computes it: truncation, and `INT_MIN` for NaN and
/// out-of-range values (undefined behaviour in C).
fn c_int(x: f64) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        x as i32
    } else {
        i32::MIN
    }
}

/// `(long)x` as x86-64 computes it (see [`c_int`]).
fn c_long(x: f64) -> i64 {
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// printf `%.N<d>`: at least `digits` digits, zero padded, sign in front.
fn c_digits(v: i64, digits: usize) -> String {
    let sign = if v < 0 { "-" } else { "" };
    format!("{sign}{:0digits$}", v.unsigned_abs())
}

/// printf `%f` / `%lf`, glibc spelling of the non-finite values.
fn c_f(x: f64) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{x:.6}")
    }
}

/// C `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Cut `s` at its first white space, and to at most `n - 1` bytes.
fn trim(s: &[u8], n: usize) -> &[u8] {
    let end = s
        .iter()
        .take(n.saturating_sub(1))
        .position(|&b| is_c_space(b))
        .unwrap_or_else(|| s.len().min(n.saturating_sub(1)));
    &s[..end]
}

// ---------------------------------------------------------------------------
// Calendar rules

/// Whether `year` has a leap day under the [`time_type`] bits `tt`.
fn is_leap(year: i64, tt: i32) -> bool {
    use time_type::*;
    tt & DAYS_366 != 0
        || (tt & HAS_LEAP != 0 && year % 4 == 0 && (tt & JULIAN_TYPE != 0 || year % 100 != 0 || year % 400 == 0))
}

/// Length in days of a common and of a leap year.
fn year_lengths(tt: i32) -> (i64, i64) {
    use time_type::*;
    if tt & DAYS_366 != 0 {
        (366, 366)
    } else if tt & DAYS_365 != 0 {
        (365, 366)
    } else {
        (360, 360)
    }
}

fn year_days(year: i64, tt: i32) -> i64 {
    let (common, leap) = year_lengths(tt);
    if is_leap(year, tt) { leap } else { common }
}

/// Leap years depend only on divisibility by 4, 100 and 400, so every run of
/// 400 consecutive years has the same number of days.
const CYCLE_YEARS: i64 = 400;

fn cycle_days(tt: i32) -> i64 {
    (0..CYCLE_YEARS).map(|y| year_days(y, tt)).sum()
}

/// Days in the years `from..to` (`from <= to`), without walking every year.
fn days_in_years(from: i64, to: i64, tt: i32) -> i128 {
    let span = i128::from(to) - i128::from(from);
    let cycles = span / i128::from(CYCLE_YEARS);
    let rest = (span % i128::from(CYCLE_YEARS)) as i64;
    let tail: i64 = ((to - rest)..to).map(|y| year_days(y, tt)).sum();
    cycles * i128::from(cycle_days(tt)) + i128::from(tail)
}

const MONTH_DAYS: [i32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_DAYS_LEAP: [i32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE_MONTH: [i32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/// The year whose leap rule applies to a [`HumanTime`]: none (0) for a
/// climatological type, base plus offset for a relative one.
fn rule_year(year: i64, base_year: i64, tt: i32) -> i64 {
    use time_type::*;
    if tt & CHRON_CAL == 0 {
        0
    } else if tt & BASE_1970 == 0 {
        base_year.wrapping_add(year)
    } else {
        year
    }
}

/// Day of the year (1-based) of `h`. A month outside 1..=12 is reported and
/// read as January.
fn day_of_year(h: &HumanTime) -> i32 {
    let tt = h.time_type;
    let mut month = h.month;
    if !(1..=12).contains(&month) {
        report(format!("Day-of-year error; month: {month}\n").as_bytes());
        month = 1;
    }
    let year = rule_year(h.year, h.base_year, tt);
    let leap_day = i32::from(is_leap(year, tt) && month > 2);
    let before = if tt & (time_type::DAYS_365 | time_type::DAYS_366) != 0 {
        DAYS_BEFORE_MONTH[(month - 1) as usize]
    } else {
        30 * i32::from(month - 1)
    };
    before + i32::from(h.day) + leap_day
}

/// Set `h.month` and `h.day` from a day of the year. Day numbers past the
/// end of December stay in December (day 32 and up); numbers below 1 give
/// month 0, day 0.
fn set_month_day(doy: i32, h: &mut HumanTime) {
    let tt = h.time_type;
    if doy < 1 {
        h.month = 0;
        h.day = 0;
        return;
    }
    let year = rule_year(h.year, h.base_year, tt);
    let lengths = if is_leap(year, tt) {
        &MONTH_DAYS_LEAP
    } else {
        &MONTH_DAYS
    };
    let real_months = tt & (time_type::DAYS_365 | time_type::DAYS_366) != 0;
    let mut left = doy;
    h.month = 0;
    for len in lengths {
        h.month += 1;
        h.day = left as i16;
        left -= if real_months { *len } else { 30 };
        if left <= 0 {
            return;
        }
    }
}

/// Human time to epochal time: hours since 1970-01-01 00:00 (or since the
/// base year for relative types, or since the start of the year for
/// climatological ones). netcdf-c's `Cdh2e`.
pub fn human_to_epoch(h: &HumanTime) -> f64 {
    use time_type::*;
    let tt = h.time_type;
    let doy = day_of_year(h);
    let (mut base, mut year) = if tt & BASE_1970 != 0 {
        (1970, h.year)
    } else {
        (h.base_year, h.year.wrapping_add(h.base_year))
    };
    if tt & CHRON_CAL == 0 {
        base = 0;
        year = 0;
    }
    let days: i128 = match year.cmp(&base) {
        CmpOrdering::Greater => days_in_years(base, year, tt),
        CmpOrdering::Less => -days_in_years(year, base, tt),
        CmpOrdering::Equal => 0,
    };
    // netcdf-c sums the days in an `int`; keep its two's-complement wrap for
    // years far enough out to overflow it (about 5.8 million years away).
    let days = (days as i32).wrapping_add(doy).wrapping_sub(1);
    f64::from(days) * 24.0 + h.hour
}

/// Epochal time (see [`human_to_epoch`]) to human time. netcdf-c's `Cde2h`.
pub fn epoch_to_human(etime: f64, tt: i32, base_year: i64) -> HumanTime {
    use time_type::*;
    let mut doy = c_int((etime / 24.0).floor()).wrapping_add(1);
    let mut hour = etime - f64::from(doy.wrapping_sub(1)) * 24.0;
    if hour >= 24.0 {
        doy = doy.wrapping_add(1);
        hour -= 24.0;
    }
    let base = if tt & CHRON_CAL == 0 {
        0
    } else if tt & BASE_1970 != 0 {
        1970
    } else {
        base_year
    };
    let cycle = cycle_days(tt);
    let mut doy = i64::from(doy);
    let mut y;
    if doy > 0 {
        // Walk forward from the base year until doy falls inside a year;
        // whole 400-year cycles are skipped in one step.
        let cycles = (doy - 1) / cycle;
        doy -= cycles * cycle;
        y = base + cycles * CYCLE_YEARS;
        loop {
            let len = year_days(y, tt);
            if doy <= len {
                break;
            }
            doy -= len;
            y += 1;
        }
    } else {
        let cycles = -doy / cycle;
        doy += cycles * cycle;
        y = base - 1 - cycles * CYCLE_YEARS;
        loop {
            doy += year_days(y, tt);
            if doy > 0 {
                break;
            }
            y -= 1;
        }
    }
    let year = if tt & CHRON_CAL == 0 {
        0
    } else if tt & BASE_1970 != 0 {
        y
    } else {
        y - base
    };
    let mut h = HumanTime {
        year,
        month: 0,
        day: 0,
        hour,
        base_year: base,
        time_type: tt,
    };
    // doy is back within 1..=366 here.
    set_month_day(doy as i32, &mut h);
    h
}

/// The [`time_type`] used for the arithmetic of a [`calendar`], or `None`
/// (reported) for a value that is not one of the plain calendars.
fn arithmetic_type(cal: i32) -> Option<i32> {
    Some(match cal {
        calendar::STANDARD => time_type::CHRON,
        calendar::JULIAN => time_type::JULIAN,
        calendar::NO_LEAP => time_type::CHRON_NO_LEAP,
        calendar::DAYS_360 => time_type::CHRON_360,
        calendar::DAYS_366 => time_type::CHRON_366,
        calendar::CLIM => time_type::CLIM,
        calendar::CLIM_LEAP => time_type::CLIM_LEAP,
        calendar::CLIM_360 => time_type::CLIM_360,
        _ => {
            report(format!("Error on relative units conversion, invalid timetype = {cal}").as_bytes());
            return None;
        }
    })
}

/// Step the epochal time `begin` by `n` whole months; the result is the
/// first day of the target month at 00:00.
fn add_months(begin: f64, n: i64, tt: i32) -> f64 {
    let from = epoch_to_human(begin, tt, 1970);
    let months = n.wrapping_add(i64::from(from.month)).wrapping_sub(1);
    let years = if months >= 0 {
        months / 12
    } else {
        (months + 1) / 12 - 1
    };
    let to = HumanTime {
        year: from.year.wrapping_add(years),
        month: (months - 12 * years + 1) as i16,
        day: 1,
        hour: 0.0,
        base_year: if tt & time_type::CHRON_CAL == 0 { 0 } else { 1970 },
        time_type: tt,
    };
    human_to_epoch(&to)
}

// ---------------------------------------------------------------------------
// Parsing

/// The pieces of a C `sscanf` that the unit and date formats need.
mod scan {
    use super::is_c_space;

    /// Why a conversion stopped: end of input, or a character that does not fit.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Stop {
        Input,
        Mismatch,
    }

    pub struct Scanner<'a> {
        s: &'a [u8],
        pos: usize,
    }

    impl<'a> Scanner<'a> {
        pub fn new(s: &'a [u8]) -> Scanner<'a> {
            Scanner { s, pos: 0 }
        }

        /// Bytes consumed so far.
        #[cfg(test)]
        pub fn consumed(&self) -> usize {
            self.pos
        }

        fn peek(&self) -> Option<u8> {
            self.s.get(self.pos).copied()
        }

        fn peek_lower(&self, ahead: usize) -> Option<u8> {
            self.s.get(self.pos + ahead).map(u8::to_ascii_lowercase)
        }

        /// A white-space directive: skip any amount, including none.
        pub fn skip_space(&mut self) {
            while self.peek().is_some_and(is_c_space) {
                self.pos += 1;
            }
        }

        /// Ordinary characters of the format must match exactly.
        pub fn literal(&mut self, lit: &[u8]) -> Result<(), Stop> {
            for &c in lit {
                match self.peek() {
                    None => return Err(Stop::Input),
                    Some(b) if b == c => self.pos += 1,
                    Some(_) => return Err(Stop::Mismatch),
                }
            }
            Ok(())
        }

        /// `%s` without a width (the reader truncates later as needed).
        pub fn word(&mut self) -> Result<&'a [u8], Stop> {
            self.skip_space();
            let start = self.pos;
            while self.peek().is_some_and(|b| !is_c_space(b)) {
                self.pos += 1;
            }
            if self.pos == start {
                return Err(Stop::Input);
            }
            Ok(&self.s[start..self.pos])
        }

        /// `%[^c]`: one or more bytes other than `c`, white space included.
        pub fn until(&mut self, c: u8) -> Result<&'a [u8], Stop> {
            let start = self.pos;
            while self.peek().is_some_and(|b| b != c) {
                self.pos += 1;
            }
            if self.pos == start {
                return Err(if self.peek().is_none() {
                    Stop::Input
                } else {
                    Stop::Mismatch
                });
            }
            Ok(&self.s[start..self.pos])
        }

        /// An optional `+` or `-`; true for `-`.
        fn sign(&mut self) -> bool {
            match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    true
                }
                Some(b'+') => {
                    self.pos += 1;
                    false
                }
                _ => false,
            }
        }

        /// `%ld`: decimal with optional sign, saturating like `strtol`.
        /// (`%d` and `%hd` then truncate this value, as glibc does.)
        pub fn long(&mut self) -> Result<i64, Stop> {
            self.skip_space();
            if self.peek().is_none() {
                return Err(Stop::Input);
            }
            let negative = self.sign();
            let start = self.pos;
            let mut magnitude: u128 = 0;
            while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
                magnitude = (magnitude * 10 + u128::from(d - b'0')).min(1 << 64);
                self.pos += 1;
            }
            if self.pos == start {
                return Err(Stop::Mismatch);
            }
            let value = if negative {
                (-(magnitude as i128)).max(i128::from(i64::MIN))
            } else {
                (magnitude as i128).min(i128::from(i64::MAX))
            };
            Ok(value as i64)
        }

        /// `%lf`: what glibc accepts (decimal, hexadecimal, inf, nan).
        /// Like glibc, a dangling exponent (`1e`, `1e+`) is a mismatch.
        pub fn double(&mut self) -> Result<f64, Stop> {
            self.skip_space();
            if self.peek().is_none() {
                return Err(Stop::Input);
            }
            let negative = self.sign();
            let magnitude = if self.peek_lower(0) == Some(b'n') {
                // glibc's scanf takes no "nan(...)" payload.
                self.named(b"nan")?;
                f64::NAN
            } else if self.peek_lower(0) == Some(b'i') {
                self.named(b"inf")?;
                if self.peek_lower(0) == Some(b'i') {
                    self.named(b"inity")?;
                }
                f64::INFINITY
            } else if self.peek() == Some(b'0') && self.peek_lower(1) == Some(b'x') {
                self.pos += 2;
                self.hex_float()?
            } else {
                self.decimal_float()?
            };
            Ok(if negative { -magnitude } else { magnitude })
        }

        fn named(&mut self, word: &[u8]) -> Result<(), Stop> {
            for &c in word {
                match self.peek_lower(0) {
                    None => return Err(Stop::Input),
                    Some(b) if b == c => self.pos += 1,
                    Some(_) => return Err(Stop::Mismatch),
                }
            }
            Ok(())
        }

        fn digits(&mut self, hex: bool) -> usize {
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|b| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() })
            {
                self.pos += 1;
            }
            self.pos - start
        }

        /// An exponent after `e` or `p`: the letter, an optional sign and
        /// digits. glibc consumes a dangling "e" or "e+" and then ignores it,
        /// so that gives `None`; otherwise the signed digits.
        fn exponent(&mut self) -> Option<&'a [u8]> {
            self.pos += 1;
            let start = self.pos;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits(false) == 0 {
                return None;
            }
            Some(&self.s[start..self.pos])
        }

        fn decimal_float(&mut self) -> Result<f64, Stop> {
            let start = self.pos;
            let mut n = self.digits(false);
            if self.peek() == Some(b'.') {
                self.pos += 1;
                n += self.digits(false);
            }
            if n == 0 {
                return Err(Stop::Mismatch);
            }
            let mut text = self.s[start..self.pos].to_vec();
            if self.peek_lower(0) == Some(b'e')
                && let Some(exp) = self.exponent()
            {
                text.push(b'e');
                text.extend_from_slice(exp);
            }
            let text = std::str::from_utf8(&text).map_err(|_| Stop::Mismatch)?;
            text.parse::<f64>().map_err(|_| Stop::Mismatch)
        }

        /// Hexadecimal after `0x`. Exact for up to 16 significant digits;
        /// digits beyond those are ignored. As in glibc, "0x." reads as 0
        /// but "0x" followed by neither a digit nor a point fails.
        fn hex_float(&mut self) -> Result<f64, Stop> {
            let mut mantissa: u64 = 0;
            let mut significant = 0;
            let mut scale: i64 = 0;
            let mut after_point = false;
            if !self.peek().is_some_and(|b| b.is_ascii_hexdigit() || b == b'.') {
                return Err(Stop::Mismatch);
            }
            loop {
                match self.peek() {
                    Some(b) if b.is_ascii_hexdigit() => {
                        let d = u64::from((b as char).to_digit(16).unwrap_or(0));
                        if significant < 16 {
                            if mantissa != 0 || d != 0 {
                                significant += 1;
                            }
                            mantissa = mantissa * 16 + d;
                            if after_point {
                                scale -= 4;
                            }
                        } else if !after_point {
                            scale += 4;
                        }
                        self.pos += 1;
                    }
                    Some(b'.') if !after_point => {
                        after_point = true;
                        self.pos += 1;
                    }
                    _ => break,
                }
            }
            if self.peek_lower(0) == Some(b'p')
                && let Some(text) = self.exponent()
            {
                let exp: i64 = std::str::from_utf8(text)
                    .ok()
                    .and_then(|t| t.parse::<i64>().ok())
                    .unwrap_or(if text.first() == Some(&b'-') {
                        i64::MIN / 2
                    } else {
                        i64::MAX / 2
                    });
                scale = scale.saturating_add(exp);
            }
            let scale = scale.clamp(-2200, 2200) as i32;
            // Split the power of two so no intermediate step overflows early.
            let half = scale / 2;
            Ok(mantissa as f64 * 2f64.powi(half) * 2f64.powi(scale - half))
        }
    }
}

use scan::{Scanner, Stop};

/// The units part of "days since 2000-01-01 12:00": `(count, units, base1, base2)`
/// with count as `sscanf` returns it (-1 for EOF).
fn scan_relunits(s: &[u8]) -> (i32, &[u8], &[u8], &[u8]) {
    let mut sc = Scanner::new(s);
    let Ok(units) = sc.word() else {
        return (-1, b"", b"", b"");
    };
    sc.skip_space();
    if sc.literal(b"since").is_err() {
        return (1, units, b"", b"");
    }
    sc.skip_space();
    let Ok(base1) = sc.word() else {
        return (1, units, b"", b"");
    };
    if base1.contains(&b'T') {
        // ISO 8601 "T" between date and time: read "since <date>T<time>"
        // again from the start of the base time.
        let mut sc = Scanner::new(s);
        let _ = sc.word();
        sc.skip_space();
        let _ = sc.literal(b"since");
        sc.skip_space();
        let Ok(date) = sc.until(b'T') else {
            return (1, units, b"", b"");
        };
        if sc.literal(b"T").is_err() {
            return (2, units, date, b"");
        }
        return match sc.word() {
            Ok(time) => (3, units, date, time),
            Err(_) => (2, units, date, b""),
        };
    }
    sc.skip_space();
    match sc.word() {
        Ok(base2) => (3, units, base1, base2),
        Err(_) => (2, units, base1, b""),
    }
}

/// Fields of "%ld-%hd-%hd %d:%d:%lf" (or, without the year, "%hd-%hd %d:%d:%lf").
#[derive(Default)]
struct DateFields {
    /// How many fields were read, year included (for the climatological
    /// form this is one more than `sscanf` would return); 0 on failure.
    n: usize,
    year: i64,
    month: i16,
    day: i16,
    hour: i32,
    minute: i32,
    second: f64,
}

fn scan_date(s: &[u8], with_year: bool) -> DateFields {
    let mut f = DateFields {
        n: usize::from(!with_year),
        ..DateFields::default()
    };
    let start = f.n;
    let mut sc = Scanner::new(s);
    let mut step = || -> Result<(), Stop> {
        if with_year {
            f.year = sc.long()?;
            f.n = 1;
            sc.literal(b"-")?;
        }
        f.month = sc.long()? as i16;
        f.n = 2;
        sc.literal(b"-")?;
        f.day = sc.long()? as i16;
        f.n = 3;
        sc.skip_space();
        f.hour = sc.long()? as i32;
        f.n = 4;
        sc.literal(b":")?;
        f.minute = sc.long()? as i32;
        f.n = 5;
        sc.literal(b":")?;
        f.second = sc.double()?;
        f.n = 6;
        Ok(())
    };
    let _ = step();
    if f.n == start {
        f.n = 0;
    }
    f
}

/// Report and reject a date outside the valid ranges (month 1..=12, day
/// 1..=31, hour 0..=24); `true` when valid.
fn validate(c: &CompTime) -> bool {
    if !(1..=12).contains(&c.month) {
        report(format!("Error on time conversion: invalid month = {}\n", c.month).as_bytes());
        return false;
    }
    if !(1..=31).contains(&c.day) {
        report(format!("Error on time conversion: invalid day = {}\n", c.day).as_bytes());
        return false;
    }
    if c.hour < 0.0 || c.hour > 24.0 {
        report(format!("Error on time conversion: invalid hour = {}\n", c_f(c.hour)).as_bytes());
        return false;
    }
    true
}

/// Read a date and time ("1999-12-31 23:59:59.5", or "12-31 ..." for a
/// climatological calendar). Missing trailing fields default to year 0,
/// January, day 1, 00:00; on an error the fields read so far are kept.
/// netcdf-c's `cdChar2Comp`.
pub fn char_to_comp(cal: i32, chartime: &[u8]) -> CompTime {
    let mut c = CompTime::new(0, 1, 1, 0.0);
    let chron = cal & calendar::STANDARD_CAL != 0;
    let f = scan_date(chartime, chron);
    if f.n == 0 {
        let nl = if chron { "\n" } else { "" };
        report_quoting("Error on character time conversion, string = ", chartime, nl);
        return c;
    }
    if f.n >= 1 && chron {
        c.year = f.year;
    }
    if f.n >= 2 {
        c.month = f.month;
    }
    if f.n >= 3 {
        c.day = f.day;
    }
    if f.n >= 4 {
        if !(0..=23).contains(&f.hour) {
            let msg = format!("Error on character time conversion: invalid hour = {}\n", f.hour);
            report(msg.as_bytes());
            return c;
        }
        c.hour = f64::from(f.hour);
    }
    if f.n >= 5 {
        if !(0..=59).contains(&f.minute) {
            let msg = format!("Error on character time conversion: invalid minute = {}\n", f.minute);
            report(msg.as_bytes());
            return c;
        }
        c.hour += f64::from(f.minute) / 60.0;
    }
    if f.n >= 6 {
        if f.second < 0.0 || f.second > 60.0 {
            let msg = format!(
                "Error on character time conversion: invalid second = {}\n",
                c_f(f.second)
            );
            report(msg.as_bytes());
            return c;
        }
        c.hour += f.second / 3600.0;
    }
    validate(&c);
    c
}

/// Parse relative units ("hours since 1990-01-01 06:00") into the unit and
/// the base time. `None` (reported) when the string is empty or the unit
/// unknown; an unreadable base time is reported but still gives `Some`,
/// with the default fields. Without "since", the base is 1979-01-01 (month
/// 1 for climatological calendars). netcdf-c's `cdParseRelunits`.
///
/// Tokens are read whole and then cut to netcdf-c's buffer sizes (63 bytes
/// for the unit, 47 for each base-time part); netcdf-c 4.9.0 overflows its
/// stack buffers instead.
pub fn parse_relunits(cal: i32, relunits: &[u8]) -> Option<(Unit, CompTime)> {
    let (n, units, base1, base2) = scan_relunits(relunits);
    if n <= 0 {
        report_quoting("Error on relative units conversion, string = ", relunits, "\n");
        return None;
    }
    let units = trim(units, 64);
    let prefix = |p: &str| units.len() >= p.len() && units[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    let exactly = |w: &str| units.eq_ignore_ascii_case(w.as_bytes());
    let unit = if prefix("sec") || exactly("s") {
        Unit::Second
    } else if prefix("min") || exactly("mn") {
        Unit::Minute
    } else if prefix("hour") || exactly("hr") {
        Unit::Hour
    } else if prefix("day") || exactly("dy") {
        Unit::Day
    } else if prefix("week") || exactly("wk") {
        Unit::Week
    } else if prefix("month") || exactly("mo") {
        Unit::Month
    } else if prefix("season") {
        Unit::Season
    } else if prefix("year") || exactly("yr") {
        if cal & calendar::STANDARD_CAL == 0 {
            report(b"Error on relative units conversion: climatological units cannot be 'years'.\n");
            return None;
        }
        Unit::Year
    } else {
        report_quoting("Error on relative units conversion: invalid units = ", units, "\n");
        return None;
    };
    let base: Vec<u8> = match n {
        1 if cal & calendar::STANDARD_CAL != 0 => b"1979".to_vec(),
        1 => b"1".to_vec(),
        2 => trim(base1, 48).to_vec(),
        _ => [trim(base1, 48), b" ", trim(base2, 48)].concat(),
    };
    Some((unit, char_to_comp(cal, &base)))
}

// ---------------------------------------------------------------------------
// Relative time to calendar time

/// 1979-01-01, the base of the internal "hours" conversions.
const BASE_1979: CompTime = CompTime::new(1979, 1, 1, 0.0);
/// The last Julian day kept (1582-10-04 is followed by 1582-10-15)...
const JULIAN_END: CompTime = CompTime::new(1582, 10, 5, 0.0);
/// ... and the first Gregorian one.
const GREGORIAN_START: CompTime = CompTime::new(1582, 10, 15, 0.0);

/// Order by year, month, day, hour; a NaN hour compares equal.
fn compare(a: &CompTime, b: &CompTime) -> CmpOrdering {
    a.year
        .cmp(&b.year)
        .then(a.month.cmp(&b.month))
        .then(a.day.cmp(&b.day))
        .then(a.hour.partial_cmp(&b.hour).unwrap_or(CmpOrdering::Equal))
}

/// Hours from 1979-01-01 to `c` in the (plain) calendar `cal`.
fn hours_since_1979(cal: i32, c: CompTime) -> f64 {
    let Some(tt) = arithmetic_type(cal) else {
        return 0.0;
    };
    let base = human_to_epoch(&HumanTime::from_comp(BASE_1979, tt));
    let at = human_to_epoch(&HumanTime::from_comp(c, tt));
    at - base
}

/// Hours from `b` to `a` in the plain calendar `cal`.
fn hours_between(cal: i32, a: CompTime, b: CompTime) -> f64 {
    hours_since_1979(cal, a) - hours_since_1979(cal, b)
}

/// `c` plus `hours` in the plain calendar `cal`.
fn add_hours(c: CompTime, hours: f64, cal: i32) -> CompTime {
    let mut rel = hours_since_1979(cal, c);
    rel += hours;
    rel_to_comp_parsed(cal, Unit::Hour, BASE_1979, rel).unwrap_or(c)
}

/// `c` plus `hours` in the mixed Julian/Gregorian calendar: the Julian part
/// of the interval is counted in the Julian calendar, the rest in the
/// Gregorian one.
fn add_hours_mixed(c: CompTime, hours: f64) -> CompTime {
    if compare(&c, &GREGORIAN_START) == CmpOrdering::Less {
        let to_switch = hours_between(calendar::JULIAN, JULIAN_END, c);
        if hours <= to_switch {
            add_hours(c, hours, calendar::JULIAN)
        } else {
            add_hours(GREGORIAN_START, hours - to_switch, calendar::STANDARD)
        }
    } else {
        let to_switch = hours_between(calendar::STANDARD, GREGORIAN_START, c);
        if hours > to_switch {
            add_hours(c, hours, calendar::STANDARD)
        } else {
            add_hours(JULIAN_END, hours - to_switch, calendar::JULIAN)
        }
    }
}

/// `value` `unit`s after `base` in `cal`; `None` (reported) for a calendar
/// value that is not a known `cdCalenType`.
fn rel_to_comp_parsed(cal: i32, unit: Unit, base: CompTime, value: f64) -> Option<CompTime> {
    let mut cal = cal;
    if cal == calendar::MIXED {
        match unit.hours(value) {
            Some(hours) => return Some(add_hours_mixed(base, hours)),
            // Months and years are counted in the proleptic Gregorian calendar.
            None => cal = calendar::STANDARD,
        }
    }
    let tt = arithmetic_type(cal)?;
    let base_epoch = human_to_epoch(&HumanTime::from_comp(base, tt));
    let result = match unit.months(value) {
        Some(months) => {
            if value == 0.0 {
                return Some(base);
            }
            let e = add_months(base_epoch, months, tt);
            epoch_to_human(e, tt, 1970)
        }
        None => {
            let hours = unit.hours(value).unwrap_or(0.0);
            epoch_to_human(base_epoch + hours, tt, 1970)
        }
    };
    Some(result.comp())
}

/// The calendar time `value` units after the base of `relunits` in `cal`.
/// `None` when the units cannot be parsed or the calendar is unknown (both
/// reported). netcdf-c's internal `cdRel2Comp`.
pub fn rel_to_comp(cal: i32, relunits: &[u8], value: f64) -> Option<CompTime> {
    let (unit, base) = parse_relunits(cal, relunits)?;
    rel_to_comp_parsed(cal, unit, base, value)
}

/// Format a calendar time as ncdump prints it: "YYYY-MM-DD" (just "MM-DD"
/// for climatological calendars), then `separator` and "hh", ":mm", ":ss"
/// or ":ss.ffffff" as far as the time of day is not zero (to within half a
/// microsecond). `None` (reported) when the fields are out of range.
pub fn comp_to_iso(cal: i32, separator: u8, c: &CompTime) -> Option<Vec<u8>> {
    if !validate(c) {
        return None;
    }
    const EPS_SEC: f64 = 0.5e-6;
    const EPS_MIN: f64 = EPS_SEC / 60.0;
    const EPS_HOUR: f64 = EPS_MIN / 60.0;
    let hour = c_int(c.hour + EPS_HOUR);
    let minutes = 60.0 * (c.hour - f64::from(hour));
    let minute = c_int(minutes + EPS_MIN);
    let seconds = 60.0 * (minutes - f64::from(minute));
    let second = c_int(seconds + EPS_SEC);

    let mut out = Vec::with_capacity(48);
    if cal & calendar::STANDARD_CAL != 0 {
        out.extend_from_slice(c_digits(c.year, 4).as_bytes());
        out.push(b'-');
    }
    out.extend_from_slice(c_digits(i64::from(c.month), 2).as_bytes());
    out.push(b'-');
    out.extend_from_slice(c_digits(i64::from(c.day), 2).as_bytes());

    let whole_second = seconds - f64::from(second) < EPS_SEC;
    if whole_second && second == 0 && minute == 0 && hour == 0 {
        return Some(out);
    }
    out.push(separator);
    out.extend_from_slice(c_digits(i64::from(hour), 2).as_bytes());
    if whole_second && second == 0 && minute == 0 {
        return Some(out);
    }
    out.push(b':');
    out.extend_from_slice(c_digits(i64::from(minute), 2).as_bytes());
    if whole_second && second == 0 {
        return Some(out);
    }
    out.push(b':');
    if whole_second {
        out.extend_from_slice(c_digits(i64::from(second), 2).as_bytes());
    } else {
        out.extend_from_slice(c_f(seconds).as_bytes());
    }
    Some(out)
}

/// `value` in `relunits` of calendar `cal` as ncdump -t prints it (see
/// [`comp_to_iso`]). `None` when nothing would be written. netcdf-c's
/// `cdRel2Iso`.
pub fn rel_to_iso(cal: i32, relunits: &[u8], separator: u8, value: f64) -> Option<Vec<u8>> {
    let c = rel_to_comp(cal, relunits, value)?;
    comp_to_iso(cal, separator, &c)
}

#[cfg(test)]
mod tests {
    use super::calendar::*;
    use super::*;

    fn iso(cal: i32, units: &str, v: f64) -> String {
        String::from_utf8(rel_to_iso(cal, units.as_bytes(), b' ', v).expect("converts")).unwrap()
    }

    fn epoch(year: i64, month: i16, day: i16, hour: f64, tt: i32) -> f64 {
        human_to_epoch(&HumanTime {
            year,
            month,
            day,
            hour,
            base_year: 1970,
            time_type: tt,
        })
    }

    #[test]
    fn parses_units_and_base() {
        let (u, b) = parse_relunits(MIXED, b"hours since 1990-02-03 04:05:06").unwrap();
        assert_eq!(u, Unit::Hour);
        assert_eq!((b.year, b.month, b.day), (1990, 2, 3));
        assert_eq!(b.hour, 4.0 + 5.0 / 60.0 + 6.0 / 3600.0);
        let (u, b) = parse_relunits(MIXED, b"Seconds since 2000-01-01T12:30:00Z").unwrap();
        assert_eq!(u, Unit::Second);
        assert_eq!(b, CompTime::new(2000, 1, 1, 12.5));
        let (u, b) = parse_relunits(MIXED, b"days").unwrap();
        assert_eq!((u, b), (Unit::Day, CompTime::new(1979, 1, 1, 0.0)));
        let (_, b) = parse_relunits(CLIM, b"days").unwrap();
        assert_eq!(b, CompTime::new(0, 1, 1, 0.0));
        assert!(parse_relunits(NO_LEAP, b"d since 1-1-1").is_none(), "'d' is not a unit");
        assert!(parse_relunits(MIXED, b"").is_none());
        assert!(parse_relunits(MIXED, b"   ").is_none());
        assert!(parse_relunits(MIXED, b"fortnights since 2000-01-01").is_none());
        assert!(parse_relunits(CLIM, b"years since 2000-01-01").is_none());
        assert_eq!(parse_relunits(MIXED, b"mo since 2000-01-01").unwrap().0, Unit::Month);
        assert!(parse_relunits(MIXED, b"mon since 2000-01-01").is_none());
        // An unreadable base still parses, with default fields.
        assert_eq!(
            parse_relunits(MIXED, b"days since x").unwrap().1,
            CompTime::new(0, 1, 1, 0.0)
        );
        // Time zone tokens are ignored.
        let (_, b) = parse_relunits(MIXED, b"days since 2000-01-01 06:00:00 +05:00").unwrap();
        assert_eq!(b, CompTime::new(2000, 1, 1, 6.0));
    }

    #[test]
    fn reads_dates_like_sscanf() {
        assert_eq!(char_to_comp(STANDARD, b"-44-03-15"), CompTime::new(-44, 3, 15, 0.0));
        assert_eq!(char_to_comp(STANDARD, b"2000-02"), CompTime::new(2000, 2, 1, 0.0));
        assert_eq!(char_to_comp(STANDARD, b"2000-2-3 7"), CompTime::new(2000, 2, 3, 7.0));
        assert_eq!(
            char_to_comp(STANDARD, b"2000-2-3 25:00"),
            CompTime::new(2000, 2, 3, 0.0)
        );
        // A dangling exponent is ignored, as glibc does.
        assert_eq!(char_to_comp(STANDARD, b"2000-2-3 1:30:1e").hour, 1.5 + 1.0 / 3600.0);
        assert_eq!(char_to_comp(STANDARD, b"2000-2-3 1:30:0x1p4").hour, 1.5 + 16.0 / 3600.0);
        assert_eq!(char_to_comp(CLIM, b"07-04 12"), CompTime::new(0, 7, 4, 12.0));
        assert_eq!(char_to_comp(STANDARD, b"x"), CompTime::new(0, 1, 1, 0.0));
    }

    /// What glibc 2.36's `sscanf("%lf%n")` returns for these inputs
    /// (value, bytes consumed), or `None` for a failed conversion.
    #[test]
    fn doubles_like_glibc() {
        let cases: &[(&str, Option<(f64, usize)>)] = &[
            ("1e", Some((1.0, 2))),
            ("1ex", Some((1.0, 2))),
            ("1e+", Some((1.0, 3))),
            ("1.5E-", Some((1.5, 5))),
            ("0x", None),
            ("0xg", None),
            ("0x.", Some((0.0, 3))),
            ("0x1p", Some((1.0, 4))),
            ("0x1.8p1", Some((3.0, 7))),
            ("0X1a", Some((26.0, 4))),
            ("0x1P-1074", Some((f64::from_bits(1), 9))),
            ("1.", Some((1.0, 2))),
            (".", None),
            (".e5", None),
            (".5e", Some((0.5, 3))),
            ("+.5", Some((0.5, 3))),
            ("-", None),
            ("-0x", None),
            ("in", None),
            ("infin", None),
            ("infx", Some((f64::INFINITY, 3))),
            ("infinity", Some((f64::INFINITY, 8))),
            ("-inf", Some((f64::NEG_INFINITY, 4))),
            ("1e500", Some((f64::INFINITY, 5))),
            ("1e-400", Some((0.0, 6))),
            ("1.5.3", Some((1.5, 3))),
            ("5e5e", Some((500000.0, 3))),
            ("1e 5", Some((1.0, 2))),
            ("00x1", Some((0.0, 2))),
        ];
        for (text, want) in cases {
            let mut sc = Scanner::new(text.as_bytes());
            let got = sc.double().ok().map(|v| (v, sc.consumed()));
            assert_eq!(got, *want, "{text:?}");
        }
        for text in ["nan", "nanx", "nan(abc)"] {
            let mut sc = Scanner::new(text.as_bytes());
            assert!(sc.double().unwrap().is_nan());
            assert_eq!(sc.consumed(), 3, "{text:?}");
        }
    }

    #[test]
    fn epoch_round_trips() {
        use super::time_type::*;
        for tt in [CHRON, JULIAN, CHRON_NO_LEAP, CHRON_360, CHRON_366] {
            for e in [-1.0e7, -876_600.5, -24.0, -0.25, 0.0, 13.75, 8760.0, 1.0e6, 2.0e8] {
                let h = epoch_to_human(e, tt, 1970);
                assert_eq!(human_to_epoch(&h), e, "type {tt:#x}, epoch {e}");
            }
        }
        assert_eq!(epoch(1970, 1, 1, 0.0, CHRON), 0.0);
        assert_eq!(epoch(1971, 1, 1, 0.0, CHRON), 8760.0);
        assert_eq!(epoch(1973, 1, 1, 0.0, CHRON), 24.0 * (365.0 * 3.0 + 1.0));
        assert_eq!(epoch(1969, 12, 31, 0.0, CHRON), -24.0);
        assert_eq!(epoch(1971, 1, 1, 0.0, CHRON_360), 360.0 * 24.0);
        assert_eq!(epoch(1971, 1, 1, 0.0, CHRON_366), 366.0 * 24.0);
        // 2000 is a leap year, 1900 is not (except in the Julian calendar).
        assert_eq!(epoch(2000, 3, 1, 0.0, CHRON) - epoch(2000, 2, 28, 0.0, CHRON), 48.0);
        assert_eq!(epoch(1900, 3, 1, 0.0, CHRON) - epoch(1900, 2, 28, 0.0, CHRON), 24.0);
        assert_eq!(epoch(1900, 3, 1, 0.0, JULIAN) - epoch(1900, 2, 28, 0.0, JULIAN), 48.0);
        // Far years use the 400-year shortcut; check it against a plain walk.
        let walk: i64 = (1970..12345).map(|y| year_days(y, CHRON)).sum();
        assert_eq!(days_in_years(1970, 12345, CHRON), i128::from(walk));
        let walk: i64 = (-3001..1970).map(|y| year_days(y, JULIAN)).sum();
        assert_eq!(days_in_years(-3001, 1970, JULIAN), i128::from(walk));
        // Years before 0: -3000 is a leap year, -3001 is not.
        let h = epoch_to_human(epoch(-3000, 2, 29, 5.0, JULIAN), JULIAN, 1970);
        assert_eq!((h.year, h.month, h.day, h.hour), (-3000, 2, 29, 5.0));
        let h = epoch_to_human(epoch(-3001, 2, 29, 5.0, JULIAN), JULIAN, 1970);
        assert_eq!((h.year, h.month, h.day, h.hour), (-3001, 3, 1, 5.0));
    }

    #[test]
    fn fixed_units_in_every_calendar() {
        assert_eq!(iso(MIXED, "days since 2000-01-01", 0.0), "2000-01-01");
        assert_eq!(iso(MIXED, "days since 2000-01-01", 59.0), "2000-02-29");
        assert_eq!(iso(NO_LEAP, "days since 2000-01-01", 59.0), "2000-03-01");
        assert_eq!(iso(DAYS_366, "days since 2001-01-01", 59.0), "2001-02-29");
        assert_eq!(iso(DAYS_360, "days since 2000-01-01", 59.0), "2000-02-30");
        assert_eq!(iso(DAYS_360, "days since 2000-01-01", 360.0), "2001-01-01");
        assert_eq!(iso(JULIAN, "days since 1900-02-28", 1.0), "1900-02-29");
        assert_eq!(iso(STANDARD, "days since 1900-02-28", 1.0), "1900-03-01");
        assert_eq!(iso(MIXED, "hours since 2000-01-01", 12.5), "2000-01-01 12:30");
        assert_eq!(iso(MIXED, "hours since 2000-01-01", 12.0), "2000-01-01 12");
        assert_eq!(iso(MIXED, "seconds since 2000-01-01", 45_015.0), "2000-01-01 12:30:15");
        assert_eq!(
            iso(MIXED, "seconds since 2000-01-01", 45_015.5),
            "2000-01-01 12:30:15.500000"
        );
        assert_eq!(iso(MIXED, "minutes since 2000-01-01", -1.0), "1999-12-31 23:59");
        assert_eq!(iso(MIXED, "weeks since 2000-01-01", -1.0), "1999-12-25");
        assert_eq!(iso(MIXED, "days since 2000-01-01", 0.25), "2000-01-01 06");
        assert_eq!(
            rel_to_iso(MIXED, b"days since 2000-01-01", b'T', 0.75).unwrap(),
            b"2000-01-01T18"
        );
        assert_eq!(iso(CLIM, "days", 40.0), "02-10");
        assert_eq!(iso(CLIM, "hours since 12-31", 25.0), "01-01 01");
    }

    #[test]
    fn mixed_calendar_switches_in_1582() {
        // Julian 1582-10-04 is followed by Gregorian 1582-10-15; the switch
        // instant itself is printed in its Julian form, 1582-10-05.
        assert_eq!(iso(MIXED, "days since 1582-10-04", 1.0), "1582-10-05");
        assert_eq!(iso(MIXED, "days since 1582-10-04", 1.5), "1582-10-15 12");
        assert_eq!(iso(MIXED, "days since 1582-10-04", 2.0), "1582-10-16");
        assert_eq!(iso(MIXED, "days since 1582-10-15", -1.0), "1582-10-04");
        assert_eq!(iso(STANDARD, "days since 1582-10-04", 1.0), "1582-10-05");
        // Before the switch the mixed calendar is Julian: 1500 is a leap year.
        assert_eq!(iso(MIXED, "days since 1500-02-28", 1.0), "1500-02-29");
        assert_eq!(iso(MIXED, "days since 1500-02-28", 366.0), "1501-02-28");
        // Across the gap: 1 Jan 1583 minus 1 Jan 1582 is 355 days.
        assert_eq!(iso(MIXED, "days since 1582-01-01", 355.0), "1583-01-01");
        assert_eq!(iso(MIXED, "days since 1583-01-01", -355.0), "1582-01-01");
        // udunits' usual base: day 0 of the mixed calendar.
        assert_eq!(iso(MIXED, "days since 0001-01-01", 0.0), "0001-01-01");
        assert_eq!(iso(MIXED, "days since 0001-01-01", 730_121.0), "2000-01-01");
        // Months use the proleptic Gregorian calendar even in the mixed one.
        assert_eq!(iso(MIXED, "months since 1500-01-01", 1.0), "1500-02-01");
    }

    #[test]
    fn month_units_step_whole_months() {
        assert_eq!(iso(MIXED, "months since 2000-01-15", 1.0), "2000-02-01");
        assert_eq!(iso(MIXED, "months since 2000-01-15 06:00", 0.0), "2000-01-15 06");
        assert_eq!(iso(MIXED, "months since 2000-01-01", 0.5), "2000-01-01");
        assert_eq!(iso(MIXED, "months since 2000-01-01", 0.9999999999), "2000-02-01");
        assert_eq!(iso(MIXED, "months since 2000-01-01", -1.0), "1999-12-01");
        assert_eq!(iso(MIXED, "months since 2000-01-01", -13.0), "1998-12-01");
        assert_eq!(iso(MIXED, "years since 2000-06-01", 1.5), "2001-12-01");
        assert_eq!(iso(MIXED, "seasons since 2000-01-01", 2.0), "2000-07-01");
        assert_eq!(iso(DAYS_360, "months since 2000-03-01", 11.0), "2001-02-01");
        assert_eq!(iso(CLIM, "months since 3-1", 11.0), "02-01");
    }

    #[test]
    fn invalid_results_write_nothing() {
        // A zero month offset returns the (invalid) base unchanged ...
        assert!(rel_to_iso(MIXED, b"months since 2000-13-01", b' ', 0.0).is_none());
        // ... while other units read month 13 as January.
        assert_eq!(iso(MIXED, "days since 2000-13-01", 1.0), "2000-01-02");
        assert!(rel_to_iso(MIXED, b"nonsense", b' ', 0.0).is_none());
        assert!(rel_to_iso(0x4242, b"days since 2000-01-01", b' ', 1.0).is_none());
    }

    #[test]
    fn c_helpers() {
        assert_eq!(c_digits(5, 4), "0005");
        assert_eq!(c_digits(-5, 4), "-0005");
        assert_eq!(c_digits(12345, 4), "12345");
        assert_eq!(c_int(f64::NAN), i32::MIN);
        assert_eq!(c_int(-1.5), -1);
        assert_eq!(c_f(0.0078125), "0.007812");
        assert_eq!(c_f(f64::NEG_INFINITY), "-inf");
        assert_eq!(trim(b"abc def", 48), b"abc");
        assert_eq!(trim(&[b'x'; 60], 48).len(), 47);
    }
}
