//! What makes a Zarr dataset: the marker objects at its root. The one place
//! these rules live; the URL classifier (a plain path opens as Zarr when its
//! directory holds a marker), the zip store (the archive folder holding a
//! marker is the dataset) and dataset creation (only what looks like Zarr is
//! replaced) all ask here.
//!
//! | marker | written by |
//! |---|---|
//! | `.zgroup`, `.zarray` | Zarr v2: a group, an array |
//! | `.zattrs` | Zarr v2: attributes of the group or array |
//! | `.zmetadata` | Zarr v2: consolidated metadata |
//! | `zarr.json` | Zarr v3: a group or an array |
//! | `.nczarr` | NCZarr format 1 (netcdf-c 4.8; read up to 4.9.2): the superblock |
//!
//! "Replace only what looks like Zarr": `nc_create` without `NC_NOCLOBBER`
//! replaces what is at the dataset's place only when its root holds one of
//! these markers (besides what a backend replaces anyway: an empty directory,
//! a file or link where a directory dataset goes, an archive file). A
//! directory or key prefix of other data is never destroyed: `NC_EEXIST`.
#![forbid(unsafe_code)]

use crate::storage::Replace;

/// Zarr v2 markers.
pub const V2: [&str; 4] = [".zgroup", ".zarray", ".zattrs", ".zmetadata"];
/// The Zarr v3 marker (a group or an array).
pub const V3: &str = "zarr.json";
/// The superblock of NCZarr format 1 (whose root also holds `.zgroup`).
pub const NCZARR_V1: &str = ".nczarr";

/// Every marker, Zarr v2 first.
pub const ALL: [&str; 6] = [V2[0], V2[1], V2[2], V2[3], V3, NCZARR_V1];

/// Whether an object named `name` at a root marks a Zarr dataset.
pub fn is_marker(name: &str) -> bool {
    ALL.contains(&name)
}

/// Whether a root holding `names` (one segment each) is a Zarr dataset.
pub fn marks_dataset(names: &[String]) -> bool {
    names.iter().any(|n| is_marker(n))
}

/// What `nc_create` may replace: with `noclobber` nothing, else only a
/// dataset that looks like Zarr.
pub fn replace_rule(noclobber: bool) -> Replace<'static> {
    if noclobber {
        Replace::Never
    } else {
        Replace::IfRoot(&marks_dataset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn markers() {
        for m in [".zgroup", ".zarray", ".zattrs", ".zmetadata", "zarr.json", ".nczarr"] {
            assert!(is_marker(m), "{m}");
        }
        for other in [
            "",
            "zarr",
            ".zgroups",
            "ZARR.JSON",
            ".zgroup/",
            "a/.zgroup",
            ".nczgroup",
            "notes.txt",
        ] {
            assert!(!is_marker(other), "{other:?}");
        }
    }

    #[test]
    fn only_zarr_is_replaced() {
        assert!(marks_dataset(&names(&["v", ".zattrs"])));
        assert!(marks_dataset(&names(&["zarr.json"])));
        assert!(!marks_dataset(&names(&["notes.txt", "v"])));
        assert!(!marks_dataset(&[]));
        assert!(!replace_rule(true).allows(&names(&[".zgroup"])));
        assert!(replace_rule(false).allows(&names(&[".zgroup"])));
        assert!(!replace_rule(false).allows(&names(&["data.csv"])));
    }
}
