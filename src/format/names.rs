//! Names read from storage: which ones the library shows.
//!
//! A name in metadata is data like any other: it may be longer than a C
//! caller's `NC_MAX_NAME + 1` buffer, hold a NUL that C would cut it at, or
//! break netCDF's rules. Such an object is not shown (its metadata stays
//! untouched in storage); a log line says why, and the rest of the dataset
//! opens. Used for every metadata generation (and Zarr v3).
#![forbid(unsafe_code)]

use crate::log::Level;
use crate::model::types::NC_MAX_NAME;

/// What a name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Attribute,
    Variable,
    Dimension,
    Group,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Attribute => "attribute",
            Kind::Variable => "variable",
            Kind::Dimension => "dimension",
            Kind::Group => "group",
        }
    }
}

/// Why a stored name cannot be shown, or None when it can. Variables,
/// dimensions and groups follow netCDF's rules (`model::check_name`);
/// attribute names only need to reach C intact (not empty, at most
/// `NC_MAX_NAME` bytes, no NUL): Zarr attributes written by other tools
/// often have names netCDF would not let a program define, and netcdf-c
/// shows them.
pub fn refusal(kind: Kind, name: &str) -> Option<&'static str> {
    if name.len() > NC_MAX_NAME {
        return Some("longer than NC_MAX_NAME (256 bytes)");
    }
    if kind == Kind::Attribute {
        if name.is_empty() {
            return Some("empty");
        }
        if name.contains('\0') {
            return Some("holds a NUL character");
        }
        return None;
    }
    crate::model::check_name(name)
        .is_err()
        .then_some("not a valid netCDF name")
}

/// Whether a name read from storage can be shown; when it cannot, a log
/// line names the object (its name cut short) and `place`, where it was found.
pub fn usable(kind: Kind, name: &str, place: &str) -> bool {
    let Some(why) = refusal(kind, name) else {
        return true;
    };
    crate::nclog!(
        Level::Warn,
        "{} {:?} in {} is hidden: its name is {}",
        kind.noun(),
        shortened(name),
        place,
        why
    );
    false
}

/// A name cut to a length fit for a log line.
pub fn shortened(name: &str) -> String {
    const KEEP: usize = 64;
    if name.len() <= KEEP {
        return name.to_string();
    }
    let mut end = KEEP;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...({} bytes)", &name[..end], name.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals() {
        let long = "a".repeat(NC_MAX_NAME + 1);
        let max = "a".repeat(NC_MAX_NAME);
        for kind in [Kind::Attribute, Kind::Variable, Kind::Dimension, Kind::Group] {
            assert!(refusal(kind, &long).is_some());
            assert_eq!(refusal(kind, &max), None);
            assert!(refusal(kind, "").is_some());
            assert!(refusal(kind, "a\0b").is_some());
            assert_eq!(refusal(kind, "été"), None);
        }
        // Attribute names netCDF would not define are still shown.
        assert_eq!(refusal(Kind::Attribute, "a/b"), None);
        assert_eq!(refusal(Kind::Attribute, "-x"), None);
        assert!(refusal(Kind::Variable, "a/b").is_some());
        assert!(refusal(Kind::Dimension, "-x").is_some());
        assert!(!usable(Kind::Group, &long, "/"));
        assert_eq!(shortened(&"é".repeat(100)).len(), 64 + "...(200 bytes)".len());
    }
}
