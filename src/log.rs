//! Diagnostic log. Off by default; the environment variable `NCLOGGING`
//! (any value but `0`/empty) or `NCTRACING` switches it on, as in netcdf-c,
//! and `ncsetlogging`/`nc_set_log_level` toggle it at run time.
//! Lines go to standard error, prefixed like netcdf-c's `nclog`.

use std::sync::atomic::{AtomicI32, Ordering};

/// -1 = not yet initialised from the environment; 0 = off; >0 = on.
static LEVEL: AtomicI32 = AtomicI32::new(-1);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Note = 0,
    Warn = 1,
    Error = 2,
    Debug = 3,
}

impl Level {
    /// netcdf-c's tag values (NCLOGNOTE 0, NCLOGWARN 1, NCLOGERR 2, NCLOGDBG 3).
    pub fn from_tag(tag: i32) -> Level {
        match tag {
            1 => Level::Warn,
            2 => Level::Error,
            3 => Level::Debug,
            _ => Level::Note,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warn => "Warning",
            Level::Error => "Error",
            Level::Debug => "Debug",
        }
    }
}

fn env_on(name: &str) -> bool {
    match std::env::var(name) {
        Ok(v) => !v.is_empty() && v != "0",
        Err(_) => false,
    }
}

/// Whether log lines are printed.
pub fn enabled() -> bool {
    let l = LEVEL.load(Ordering::Relaxed);
    if l >= 0 {
        return l > 0;
    }
    let on = env_on("NCLOGGING") || env_on("NCTRACING");
    LEVEL.store(i32::from(on), Ordering::Relaxed);
    on
}

/// Turn logging on or off; returns the previous state.
pub fn set_enabled(on: bool) -> bool {
    let was = enabled();
    LEVEL.store(i32::from(on), Ordering::Relaxed);
    was
}

/// Print one log line if logging is on.
pub fn log(level: Level, msg: &str) {
    if enabled() {
        eprintln!("{}: {}", level.prefix(), msg);
    }
}

/// `nclog!(Level::Warn, "x {}", y)`: format only when logging is on.
#[macro_export]
macro_rules! nclog {
    ($lvl:expr, $($arg:tt)*) => {
        if $crate::log::enabled() {
            $crate::log::log($lvl, &format!($($arg)*));
        }
    };
}

/// netcdf-c's name for a C log tag (`nctagname`): NCLOGNOTE 0 .. NCLOGDBG 3.
pub fn c_tag_name(tag: i32) -> &'static str {
    match tag {
        0 => "Note",
        1 => "Warning",
        2 => "Error",
        3 => "Debug",
        _ => "unknown",
    }
}

/// Print a line that came through netcdf-c's C logging API (`nclog`), in its
/// format `Tag:message`, if logging is on.
pub fn c_line(tag: i32, msg: &str) {
    if enabled() {
        eprintln!("{}:{}", c_tag_name(tag), msg);
    }
}
