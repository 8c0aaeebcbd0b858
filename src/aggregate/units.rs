//! Unit conversion for canonical form (CF-1.13 section 2.8.2): a fragment
//! whose `units` differ from the aggregation's by an affine rule is
//! converted on read, `aggregated = fragment * scale + offset`.
//!
//! Two families, from a small explicit table (the spellings udunits-2
//! accepts for them), no udunits dependency:
//! - temperature: kelvin, degrees Celsius, degrees Fahrenheit;
//! - time: `<unit> since <reference date>` with the unit seconds, minutes,
//!   hours or days, between units of the same calendar (the variables'
//!   `calendar` attributes, `standard` when absent; `gregorian` is
//!   `standard`, `365_day` is `noleap`, `366_day` is `all_leap`).
//!
//! Reference dates are parsed strictly: `Y-M-D` (year of 1 to 4 digits),
//! optionally a time `h:m[:s[.f]]` after a space or `T`, optionally a zone
//! (`Z`, `UTC`, `+h[:mm]`, `-hhmm`); a day that does not exist in the
//! calendar (February 30 in `standard`, October 10 1582 in `standard`, day
//! 31 in `360_day`) is refused. Anything else (months, years, different
//! calendars, other units) has no conversion: the caller answers
//! NC_EINVAL with a log line.
#![forbid(unsafe_code)]

/// `aggregated = fragment * scale + offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine {
    pub scale: f64,
    pub offset: f64,
}

/// A temperature unit as kelvin = (value + pre) * mul.
fn temperature(u: &str) -> Option<(f64, f64)> {
    const KELVIN: &[&str] = &[
        "K",
        "kelvin",
        "kelvins",
        "Kelvin",
        "degK",
        "deg_K",
        "degreeK",
        "degree_K",
        "degrees_K",
    ];
    const CELSIUS: &[&str] = &[
        "degC",
        "deg_C",
        "degreeC",
        "degree_C",
        "degrees_C",
        "degree_Celsius",
        "degrees_Celsius",
        "degree_celsius",
        "degrees_celsius",
        "Celsius",
        "celsius",
        "°C",
    ];
    const FAHRENHEIT: &[&str] = &[
        "degF",
        "deg_F",
        "degreeF",
        "degree_F",
        "degrees_F",
        "degree_Fahrenheit",
        "degrees_Fahrenheit",
        "degree_fahrenheit",
        "degrees_fahrenheit",
        "Fahrenheit",
        "fahrenheit",
        "°F",
    ];
    if KELVIN.contains(&u) {
        Some((0.0, 1.0))
    } else if CELSIUS.contains(&u) {
        Some((273.15, 1.0))
    } else if FAHRENHEIT.contains(&u) {
        Some((459.67, 5.0 / 9.0))
    } else {
        None
    }
}

/// Seconds in one time unit.
fn time_unit(u: &str) -> Option<f64> {
    Some(match u.to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86400.0,
        _ => return None,
    })
}

/// The calendars a time unit may use, spelled one way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    Standard,
    ProlepticGregorian,
    Julian,
    NoLeap,
    AllLeap,
    Day360,
}

impl Calendar {
    /// A `calendar` attribute's value (None: the default, `standard`).
    pub fn parse(name: Option<&str>) -> Option<Calendar> {
        let Some(n) = name else {
            return Some(Calendar::Standard);
        };
        Some(match n.trim().to_ascii_lowercase().as_str() {
            "standard" | "gregorian" | "" => Calendar::Standard,
            "proleptic_gregorian" => Calendar::ProlepticGregorian,
            "julian" => Calendar::Julian,
            "noleap" | "365_day" => Calendar::NoLeap,
            "all_leap" | "366_day" => Calendar::AllLeap,
            "360_day" => Calendar::Day360,
            _ => return None,
        })
    }

    fn days_in_month(self, y: i64, m: u32) -> u32 {
        const DAYS: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        let greg_leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let leap = match self {
            Calendar::Day360 => return 30,
            Calendar::NoLeap => false,
            Calendar::AllLeap => true,
            Calendar::Julian => y % 4 == 0,
            Calendar::ProlepticGregorian => greg_leap,
            Calendar::Standard => {
                if y < 1582 {
                    y % 4 == 0
                } else {
                    greg_leap
                }
            }
        };
        DAYS[(m - 1) as usize] + u32::from(m == 2 && leap)
    }

    /// A day number for `y-m-d` (differences count days in this calendar);
    /// None for a day the calendar does not have.
    fn day_number(self, y: i64, m: u32, d: u32) -> Option<i64> {
        if !(1..=12).contains(&m) || d < 1 || d > self.days_in_month(y, m) {
            return None;
        }
        let (m, d) = (i64::from(m), i64::from(d));
        Some(match self {
            Calendar::Day360 => y * 360 + (m - 1) * 30 + d - 1,
            Calendar::NoLeap | Calendar::AllLeap => {
                let per_year = if self == Calendar::NoLeap { 365 } else { 366 };
                y * per_year + (1..m).map(|k| i64::from(self.days_in_month(y, k as u32))).sum::<i64>() + d - 1
            }
            Calendar::ProlepticGregorian => gregorian_jdn(y, m, d),
            Calendar::Julian => julian_jdn(y, m, d),
            Calendar::Standard => {
                // Julian up to 1582-10-04, Gregorian from 1582-10-15.
                let key = (y, m, d);
                if key >= (1582, 10, 15) {
                    gregorian_jdn(y, m, d)
                } else if key <= (1582, 10, 4) {
                    julian_jdn(y, m, d)
                } else {
                    return None;
                }
            }
        })
    }
}

/// The Julian day number of a proleptic Gregorian date.
fn gregorian_jdn(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m) / 12;
    let (y, m) = (y + 4800 - a, m + 12 * a - 3);
    d + (153 * m + 2) / 5 + 365 * y + y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400) - 32045
}

/// The Julian day number of a Julian-calendar date.
fn julian_jdn(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m) / 12;
    let (y, m) = (y + 4800 - a, m + 12 * a - 3);
    d + (153 * m + 2) / 5 + 365 * y + y.div_euclid(4) - 32083
}

/// Digits only, `min..=max` of them, as a number.
fn number(s: &str, min: usize, max: usize) -> Option<i64> {
    (s.len() >= min && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A reference date as seconds from the calendar's day zero.
fn reference(text: &str, cal: Calendar) -> Option<f64> {
    let text = text.trim();
    let (date, rest) = match text.find([' ', 'T']) {
        Some(i) => (&text[..i], text[i + 1..].trim_start()),
        None => (text, ""),
    };
    let mut p = date.split('-');
    let y = number(p.next()?, 1, 4)?;
    let m = u32::try_from(number(p.next()?, 1, 2)?).ok()?;
    let d = u32::try_from(number(p.next()?, 1, 2)?).ok()?;
    if p.next().is_some() {
        return None;
    }
    let day = cal.day_number(y, m, d)?;
    // The time of day, then a zone.
    let (clock, zone) = match rest.find([' ', 'Z', 'U', '+', '-']) {
        Some(i) => (&rest[..i], rest[i..].trim_start()),
        None => (rest, ""),
    };
    let mut secs = 0.0;
    if !clock.is_empty() {
        let mut t = clock.split(':');
        let h = number(t.next()?, 1, 2)?;
        let mi = number(t.next()?, 1, 2)?;
        let s = match t.next() {
            Some(s) => {
                let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
                let w = number(whole, 1, 2)? as f64;
                let f = if frac.is_empty() {
                    0.0
                } else {
                    number(frac, 1, 9)? as f64 / 10f64.powi(frac.len() as i32)
                };
                w + f
            }
            None => 0.0,
        };
        if t.next().is_some() || h > 23 || mi > 59 || s >= 60.0 {
            return None;
        }
        secs = (h * 3600 + mi * 60) as f64 + s;
    }
    let offset = match zone {
        "" | "Z" | "UTC" => 0,
        z => {
            let (sign, hm) = match z.as_bytes()[0] {
                b'+' => (1, &z[1..]),
                b'-' => (-1, &z[1..]),
                _ => return None,
            };
            let (h, mi) = match hm.split_once(':') {
                Some((h, mi)) => (number(h, 1, 2)?, number(mi, 2, 2)?),
                None if hm.len() == 4 => (number(&hm[..2], 2, 2)?, number(&hm[2..], 2, 2)?),
                None => (number(hm, 1, 2)?, 0),
            };
            if h > 14 || mi > 59 {
                return None;
            }
            sign * (h * 3600 + mi * 60)
        }
    };
    Some(day as f64 * 86400.0 + secs - offset as f64)
}

/// `<unit> since <date>`: seconds per unit and the reference in seconds.
fn time(u: &str, cal: Calendar) -> Option<(f64, f64)> {
    let u = u.trim();
    let (unit, rest) = u.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let (since, date) = rest.split_once(char::is_whitespace)?;
    if !since.eq_ignore_ascii_case("since") {
        return None;
    }
    Some((time_unit(unit)?, reference(date, cal)?))
}

/// How fragment values in `from` (calendar `from_cal`) become values in
/// `to` (calendar `to_cal`): None when the units are the same, Err (why)
/// when no affine rule links them.
pub fn conversion(
    from: &str,
    from_cal: Option<&str>,
    to: &str,
    to_cal: Option<&str>,
) -> Result<Option<Affine>, String> {
    let (from, to) = (from.trim(), to.trim());
    let (fc, tc) = (Calendar::parse(from_cal), Calendar::parse(to_cal));
    if from == to && fc == tc {
        return Ok(None);
    }
    if let (Some((pf, mf)), Some((pt, mt))) = (temperature(from), temperature(to)) {
        let scale = mf / mt;
        return Ok(Some(Affine {
            scale,
            offset: pf * scale - pt,
        }));
    }
    let (Some(fc), Some(tc)) = (fc, tc) else {
        return Err(format!("unknown calendar ({from_cal:?}, {to_cal:?})"));
    };
    if let (Some(_), Some(_)) = (time(from, fc), time(to, tc))
        && fc != tc
    {
        return Err(format!("calendars differ ({fc:?} and {tc:?})"));
    }
    match (time(from, fc), time(to, tc)) {
        (Some((sf, rf)), Some((st, rt))) => Ok(Some(Affine {
            scale: sf / st,
            offset: (rf - rt) / st,
        })),
        _ => Err("no affine rule links them".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(from: &str, to: &str) -> Affine {
        conversion(from, None, to, None).unwrap().unwrap()
    }

    fn apply(a: Affine, v: f64) -> f64 {
        v * a.scale + a.offset
    }

    #[test]
    fn temperatures() {
        assert_eq!(conversion("K", None, " K ", None), Ok(None));
        assert_eq!(apply(conv("degC", "K"), 0.0), 273.15);
        assert_eq!(apply(conv("K", "Celsius"), 273.15), 0.0);
        assert!((apply(conv("degF", "deg_C"), 212.0) - 100.0).abs() < 1e-12);
        assert!((apply(conv("degrees_C", "degF"), -40.0) + 40.0).abs() < 1e-12);
        assert!((apply(conv("kelvin", "fahrenheit"), 0.0) + 459.67).abs() < 1e-9);
        // Case matters for symbols: `k` is no kelvin, `DEGC` no Celsius.
        assert!(conversion("k", None, "K", None).is_err());
        assert!(conversion("DEGC", None, "K", None).is_err());
        assert!(conversion("m", None, "K", None).is_err());
    }

    #[test]
    fn time_units_in_one_calendar() {
        assert_eq!(
            apply(conv("hours since 2000-01-01", "days since 2000-01-01"), 36.0),
            1.5
        );
        assert_eq!(apply(conv("days since 2000-01-02", "days since 2000-01-01"), 0.0), 1.0);
        assert_eq!(
            apply(
                conv("seconds since 1970-01-01T00:00:00Z", "days since 1969-12-31 12:00"),
                0.0
            ),
            0.5
        );
        // A zone: 01:00 at +01:00 is midnight UTC.
        assert_eq!(
            apply(
                conv("minutes since 2000-1-1 01:00:00 +01:00", "minutes since 2000-01-01"),
                5.0
            ),
            5.0
        );
        assert_eq!(
            apply(conv("minutes since 2000-1-1 0:0:30.5", "seconds since 2000-01-01"), 1.0),
            90.5
        );
        // Leap years: 2000 has February 29, 1900 not (standard), 1500 does (Julian).
        assert_eq!(apply(conv("days since 2000-03-01", "days since 2000-02-01"), 0.0), 29.0);
        assert_eq!(apply(conv("days since 1900-03-01", "days since 1900-02-01"), 0.0), 28.0);
        assert_eq!(apply(conv("days since 1500-03-01", "days since 1500-02-01"), 0.0), 29.0);
        // The Gregorian reform: 1582-10-04 is followed by 1582-10-15.
        assert_eq!(apply(conv("days since 1582-10-15", "days since 1582-10-04"), 0.0), 1.0);
        assert!(conversion("days since 1582-10-10", None, "days since 2000-01-01", None).is_err());
        // Other calendars.
        let c = |f: &str, t: &str, cal: &str| conversion(f, Some(cal), t, Some(cal)).unwrap().map(|a| apply(a, 0.0));
        assert_eq!(
            c("days since 2001-01-01", "days since 2000-01-01", "360_day"),
            Some(360.0)
        );
        assert_eq!(
            c("days since 2001-01-01", "days since 2000-01-01", "noleap"),
            Some(365.0)
        );
        assert_eq!(
            c("days since 2001-01-01", "days since 2000-01-01", "366_day"),
            Some(366.0)
        );
        // 1900 is a leap year in the Julian calendar, not in the Gregorian.
        assert_eq!(
            c("days since 1901-01-01", "days since 1900-01-01", "julian"),
            Some(366.0)
        );
        assert_eq!(
            c("days since 1901-01-01", "days since 1900-01-01", "proleptic_gregorian"),
            Some(365.0)
        );
        assert_eq!(
            conversion(
                "days since 2000-02-30",
                Some("360_day"),
                "days since 2000-01-01",
                Some("360_day")
            )
            .unwrap()
            .map(|a| a.offset),
            Some(59.0)
        );
    }

    #[test]
    fn what_is_refused() {
        let bad = |f: &str, fc: Option<&str>, t: &str, tc: Option<&str>| conversion(f, fc, t, tc).is_err();
        // Different calendars, unknown calendars.
        assert!(bad(
            "days since 2000-01-01",
            Some("noleap"),
            "days since 2000-01-01",
            None
        ));
        assert!(bad(
            "days since 2000-01-02",
            Some("lunar"),
            "days since 2000-01-01",
            Some("lunar")
        ));
        assert!(bad(
            "days since 2000-01-01",
            Some("lunar"),
            "days since 2000-01-01",
            None
        ));
        // Months and years, no reference date, unknown units, mixed families.
        assert!(bad("months since 2000-01-01", None, "days since 2000-01-01", None));
        assert!(bad("years since 2000-01-01", None, "days since 2000-01-01", None));
        assert!(bad("days", None, "hours", None));
        assert!(bad("days since 2000-01-01", None, "K", None));
        // Reference dates parsed strictly.
        for date in [
            "2000-13-01",
            "2000-02-30",
            "2000-01-01 24:00:00",
            "2000-01-01 12:60",
            "2000-01-01 12:00:00 +25:00",
            "2000/01/01",
            "20000-01-01",
            "2000-01-01x",
            "2000-01",
            "2000-01-01 12",
            "2000-01-01 12:00:00 junk",
        ] {
            assert!(
                bad(&format!("days since {date}"), None, "days since 2000-01-01", None),
                "{date}"
            );
        }
        assert_eq!(
            apply(conv("days since 2000-01-02 UTC", "days since 2000-01-01"), 0.0),
            1.0
        );
        assert!(bad("days after 2000-01-01", None, "days since 2000-01-01", None));
        // Same text, different calendars: refused too.
        assert!(bad(
            "days since 2000-01-01",
            Some("360_day"),
            "days since 2000-01-01",
            None
        ));
        // Gregorian is the standard calendar.
        assert_eq!(
            conversion(
                "days since 2000-01-01",
                Some("gregorian"),
                "days since 2000-01-01",
                None
            ),
            Ok(None)
        );
    }
}
