//! Placeholder for the path/URL classifier (replaced by the full parser).
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    File,
    Zip,
    S3,
}

#[derive(Debug, Clone)]
pub struct Location {
    pub original: String,
    pub kind: StoreKind,
    pub path: String,
    pub is_url: bool,
    pub mode: Vec<String>,
    pub fragment: Vec<(String, String)>,
    pub zarr: bool,
    pub xarray_dims: bool,
    pub consolidated: bool,
}

#[derive(Debug, Clone)]
pub enum Target {
    Zarr(Location),
    NotZarr,
}

pub fn classify(path: &str, _for_create: bool) -> NcResult<Target> {
    let Some(rest) = path.strip_prefix("file://") else { return Ok(Target::NotZarr) };
    let (p, frag) = rest.split_once('#').unwrap_or((rest, ""));
    let mode: Vec<String> = frag
        .split('&')
        .filter_map(|kv| kv.strip_prefix("mode="))
        .flat_map(|m| m.split(',').map(|x| x.to_lowercase()))
        .collect();
    if !mode.iter().any(|m| m == "nczarr" || m == "zarr") {
        return Ok(Target::NotZarr);
    }
    if p.is_empty() {
        return Err(NcError::Url);
    }
    let zarr = mode.iter().any(|m| m == "zarr" || m == "noxarray");
    Ok(Target::Zarr(Location {
        original: path.to_string(),
        kind: StoreKind::File,
        path: p.to_string(),
        is_url: true,
        xarray_dims: !mode.iter().any(|m| m == "noxarray"),
        consolidated: mode.iter().any(|m| m == "consolidated"),
        mode,
        fragment: Vec::new(),
        zarr,
    }))
}
