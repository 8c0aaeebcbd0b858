//! Fragment datasets: where a fragment URI points (resolved against the
//! master), and an open fragment (a Zarr dataset through this library's
//! own engine, anything else through the system libnetcdf) with the
//! variable an identifier names and what canonical form needs of it.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::types::NcType;
use crate::sys::netcdf::SysFile;

/// Where relative fragment URIs resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// A local directory: the one holding the master (for a Zarr store, the
    /// store's parent, as cfdm resolves).
    Dir(PathBuf),
    /// A URL prefix ending in `/` (an S3 master's parent).
    Url(String),
}

impl Base {
    /// The base of a master at `path` (a local path or a URL without fragment).
    pub fn of_master(path: &str, is_local: bool) -> Base {
        if is_local {
            let p = Path::new(path);
            Base::Dir(p.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf))
        } else {
            let trimmed = path.trim_end_matches('/');
            match trimmed.rfind('/') {
                Some(i) => Base::Url(trimmed[..=i].to_string()),
                None => Base::Url(format!("{trimmed}/")),
            }
        }
    }
}

/// Whether `s` starts with a URI scheme (`file:`, `s3:`, `https:`...); a
/// one-letter scheme is not one (a Windows drive).
fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) if i > 1 => {
            let mut c = s[..i].chars();
            c.next().is_some_and(|f| f.is_ascii_alphabetic())
                && c.all(|x| x.is_ascii_alphanumeric() || matches!(x, '+' | '-' | '.'))
        }
        _ => false,
    }
}

/// A fragment URI made absolute: a local path, or a URL (`file://` with a
/// `#mode=` fragment, `s3://`, `https://`...) as `nc_open` takes it.
pub fn resolve(base: &Base, uri: &str) -> String {
    if has_scheme(uri) {
        // A plain `file:` URL is a local path; one with a fragment stays a
        // URL for the URL parser (its `#mode=` says what it is).
        if let Some(rest) = uri.strip_prefix("file://")
            && !uri.contains('#')
        {
            return rest.to_string();
        }
        if let Some(rest) = uri.strip_prefix("file:")
            && !uri.contains('#')
            && rest.starts_with('/')
        {
            return rest.to_string();
        }
        return uri.to_string();
    }
    if uri.starts_with('/') {
        return uri.to_string();
    }
    let (path, frag) = match uri.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (uri, None),
    };
    match (base, frag) {
        (Base::Dir(d), None) => d.join(path).to_string_lossy().into_owned(),
        (Base::Dir(d), Some(f)) => format!("file://{}#{f}", d.join(path).display()),
        (Base::Url(u), None) => format!("{u}{path}"),
        (Base::Url(u), Some(f)) => format!("{u}{path}#{f}"),
    }
}

/// Why a fragment URI is refused when fragment URIs are confined to the
/// master's directory (`base`): an absolute path (`file:///x` too), any
/// scheme (`s3:`, `https:`...; `file:` only with a relative path), a path
/// that leaves `base` with `..` (checked on the text, segment by segment:
/// symbolic links are not looked at, so a link inside the directory that
/// points outside is followed), an encoded dot (`%2e`), or a `#mode=` that
/// names remote storage. Ok when it may be opened.
pub fn check_confined(base: &Base, uri: &str) -> Result<(), String> {
    let mut rel = uri;
    if has_scheme(uri) {
        match uri.split_once(':') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("file") => rel = rest,
            Some((scheme, _)) => return Err(format!("scheme {scheme}: is not allowed")),
            None => return Err("no scheme".into()),
        }
    }
    let (path, frag) = rel.split_once('#').unwrap_or((rel, ""));
    if path.starts_with('/') || path.starts_with('\\') {
        return Err("an absolute path".into());
    }
    if path.is_empty() {
        return Err("an empty path".into());
    }
    if path.to_ascii_lowercase().contains("%2e") {
        return Err("an encoded dot".into());
    }
    let mut depth = 0usize;
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("a path that leaves the master's directory")?
            }
            _ => depth += 1,
        }
    }
    if depth == 0 {
        return Err("the master's directory itself".into());
    }
    let remote = ["s3", "gs3", "http", "https", "bytes"];
    let modes = frag.strip_prefix("mode=").unwrap_or("");
    if matches!(base, Base::Dir(_))
        && modes
            .split(',')
            .any(|m| remote.iter().any(|r| m.trim().eq_ignore_ascii_case(r)))
    {
        return Err("a #mode= that names remote storage".into());
    }
    Ok(())
}

/// What canonical form needs of a fragment variable.
#[derive(Debug, Clone)]
pub struct FragVar {
    pub ty: NcType,
    pub shape: Vec<usize>,
    /// Values that read as missing (its fill value, its `missing_value`s),
    /// native-endian bytes of `ty`.
    pub missing: Vec<Vec<u8>>,
    pub scale_factor: Option<f64>,
    pub add_offset: Option<f64>,
    pub units: Option<String>,
    pub calendar: Option<String>,
}

impl FragVar {
    pub fn packed(&self) -> bool {
        self.scale_factor.is_some() || self.add_offset.is_some()
    }
}

/// An open fragment dataset.
#[derive(Debug)]
pub enum Handle {
    /// Read through this library's engine (and itself possibly an aggregation view).
    Zarr(Box<Mutex<Dataset>>),
    /// Read through the system libnetcdf.
    NetCdf(SysFile),
}

/// Where a variable is inside a fragment dataset.
#[derive(Debug, Clone, Copy)]
pub struct VarAt {
    pub grp: i32,
    pub varid: i32,
}

/// The first value of a numeric attribute as f64.
fn att_f64(ty: NcType, bytes: &[u8]) -> Option<f64> {
    let size = ty.size();
    if !ty.is_numeric() || bytes.len() < size {
        return None;
    }
    let mut out = [0u8; 8];
    crate::model::convert::convert(ty, &bytes[..size], NcType::Double, &mut out).ok()?;
    Some(f64::from_ne_bytes(out))
}

/// The values of a numeric attribute converted to `ty` (those in range).
fn att_values_as(aty: NcType, bytes: &[u8], ty: NcType) -> Vec<Vec<u8>> {
    if !aty.is_numeric() || !ty.is_numeric() {
        return Vec::new();
    }
    bytes
        .chunks_exact(aty.size())
        .filter_map(|v| {
            let mut out = vec![0u8; ty.size()];
            crate::model::convert::convert(aty, v, ty, &mut out).ok().map(|()| out)
        })
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim_end_matches('\0').trim().to_string()
}

/// The error of a fragment read the system libnetcdf failed (`rc`), logged.
fn sys_error(rc: i32) -> NcError {
    crate::nclog!(
        crate::log::Level::Error,
        "aggregation fragment read: the system libnetcdf answers {rc}"
    );
    NcError::from_code(rc).unwrap_or(NcError::Io)
}

impl Handle {
    /// Open the fragment dataset at `uri` (resolved), `ancestors` being the
    /// masters that lead to it (for nested aggregations).
    pub fn open(uri: &str, ancestors: &[String], confined: bool) -> NcResult<Handle> {
        let missing = || {
            crate::nclog!(crate::log::Level::Error, "aggregation fragment {uri}: no such dataset");
            NcError::NoObject
        };
        if crate::api::is_zarr(uri, false) {
            let ds = crate::api::open_view_confined(uri, 0, ancestors, confined).map_err(|e| {
                if e == NcError::NoObject {
                    missing()
                } else {
                    crate::nclog!(crate::log::Level::Error, "aggregation fragment {uri}: {e:?}");
                    e
                }
            })?;
            return Ok(Handle::Zarr(Box::new(Mutex::new(ds))));
        }
        if !has_scheme(uri) && !Path::new(uri).exists() {
            return Err(missing());
        }
        SysFile::open(uri).map(Handle::NetCdf).map_err(|rc| {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation fragment {uri}: the system libnetcdf answers {rc}"
            );
            NcError::from_code(rc).unwrap_or(NcError::NoObject)
        })
    }

    /// The variable an identifier names (`tas`, `/tas`, `/g/tas`).
    pub fn find(&self, identifier: &str) -> NcResult<VarAt> {
        match self {
            Handle::Zarr(m) => {
                let ds = m.lock().map_err(|_| NcError::Internal)?;
                let mut parts: Vec<&str> = identifier.split('/').filter(|s| !s.is_empty()).collect();
                let name = parts.pop().ok_or(NcError::NotVar)?;
                let mut g = 0usize;
                for p in parts {
                    g = *ds.groups[g]
                        .children
                        .iter()
                        .find(|&&c| ds.groups[c].name == p)
                        .ok_or(NcError::NotVar)?;
                }
                let varid = ds.groups[g]
                    .vars
                    .iter()
                    .position(|v| v.name == name)
                    .ok_or(NcError::NotVar)?;
                Ok(VarAt {
                    grp: g as i32,
                    varid: varid as i32,
                })
            }
            Handle::NetCdf(f) => {
                let (grp, varid) = f.var(identifier).map_err(|_| NcError::NotVar)?;
                Ok(VarAt { grp, varid })
            }
        }
    }

    /// The variable's type, shape and canonical-form attributes.
    pub fn describe(&self, at: VarAt) -> NcResult<FragVar> {
        match self {
            Handle::Zarr(m) => {
                let ds = m.lock().map_err(|_| NcError::Internal)?;
                let v = ds.var(at.grp as usize, at.varid)?;
                let num = |name: &str| {
                    v.att(name).and_then(|a| match &a.value {
                        crate::model::AttValue::Bytes(b) => att_f64(a.ty, b),
                        crate::model::AttValue::Strings(_) => None,
                    })
                };
                let mut missing = Vec::new();
                // Chars and strings are taken as they are (a char fill value
                // is the padding of every short string).
                if !v.no_fill && v.ty.is_numeric() {
                    missing.push(v.fill.clone());
                }
                if let Some(a) = v.att("missing_value")
                    && let crate::model::AttValue::Bytes(b) = &a.value
                {
                    missing.extend(att_values_as(a.ty, b, v.ty));
                }
                let text_att = |name: &str| {
                    v.att(name).map(|a| match &a.value {
                        crate::model::AttValue::Bytes(b) => text(b),
                        crate::model::AttValue::Strings(s) => s.first().map(|x| text(x)).unwrap_or_default(),
                    })
                };
                let (units, calendar) = (text_att("units"), text_att("calendar"));
                Ok(FragVar {
                    ty: v.ty,
                    shape: ds.var_shape(v),
                    missing,
                    scale_factor: num("scale_factor"),
                    add_offset: num("add_offset"),
                    units,
                    calendar,
                })
            }
            Handle::NetCdf(f) => {
                let (tid, shape) = f.var_type_shape(at.grp, at.varid).map_err(|_| NcError::NotVar)?;
                let ty = NcType::from_id(tid).map_err(|_| NcError::BadType)?;
                let size_of = |t: i32| {
                    NcType::from_id(t)
                        .ok()
                        .filter(|t| *t != NcType::String)
                        .map(NcType::size)
                };
                let att = |name: &str| {
                    f.att(at.grp, at.varid, name, size_of)
                        .and_then(|(t, b)| NcType::from_id(t).ok().map(|t| (t, b)))
                };
                let num = |name: &str| att(name).and_then(|(t, b)| att_f64(t, &b));
                let mut missing = Vec::new();
                if ty.is_numeric()
                    && let Some(fill) = f.fill(at.grp, at.varid, ty.size())
                {
                    missing.push(fill);
                }
                if let Some((t, b)) = att("missing_value") {
                    missing.extend(att_values_as(t, &b, ty));
                }
                let text_att = |name: &str| att(name).filter(|(t, _)| *t == NcType::Char).map(|(_, b)| text(&b));
                let (units, calendar) = (text_att("units"), text_att("calendar"));
                Ok(FragVar {
                    ty,
                    shape,
                    missing,
                    scale_factor: num("scale_factor"),
                    add_offset: num("add_offset"),
                    units,
                    calendar,
                })
            }
        }
    }

    /// Read a hyperslab in the variable's own type.
    pub fn read(
        &self,
        at: VarAt,
        fv: &FragVar,
        start: &[usize],
        count: &[usize],
        stride: &[usize],
    ) -> NcResult<Vec<u8>> {
        let n = count
            .iter()
            .try_fold(1usize, |a, &c| a.checked_mul(c))
            .ok_or(NcError::NoMem)?;
        let bytes = n.checked_mul(fv.ty.size()).ok_or(NcError::NoMem)?;
        let mut out = vec![0u8; bytes];
        if n == 0 {
            return Ok(out);
        }
        match self {
            Handle::Zarr(m) => {
                let mut ds = m.lock().map_err(|_| NcError::Internal)?;
                let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
                crate::engine::get_vars(
                    &mut ds,
                    at.grp as usize,
                    at.varid,
                    start,
                    count,
                    Some(&st),
                    crate::engine::MemOut::Num {
                        ty: fv.ty,
                        data: &mut out,
                    },
                )?;
            }
            Handle::NetCdf(f) => {
                let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
                f.get_vars((at.grp, at.varid), start, count, &st, fv.ty.size(), &mut out)
                    .map_err(sys_error)?;
            }
        }
        Ok(out)
    }

    /// Read a hyperslab of an NC_STRING variable (None for a NULL string).
    pub fn read_strings(
        &self,
        at: VarAt,
        start: &[usize],
        count: &[usize],
        stride: &[usize],
    ) -> NcResult<Vec<Option<Vec<u8>>>> {
        let n = count
            .iter()
            .try_fold(1usize, |a, &c| a.checked_mul(c))
            .ok_or(NcError::NoMem)?;
        let mut out = vec![None; n];
        if n == 0 {
            return Ok(out);
        }
        let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        match self {
            Handle::Zarr(m) => {
                let mut ds = m.lock().map_err(|_| NcError::Internal)?;
                crate::engine::get_vars(
                    &mut ds,
                    at.grp as usize,
                    at.varid,
                    start,
                    count,
                    Some(&st),
                    crate::engine::MemOut::Str(&mut out),
                )?;
            }
            Handle::NetCdf(f) => {
                f.get_vars_strings((at.grp, at.varid), start, count, &st, &mut out)
                    .map_err(sys_error)?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_resolve_against_the_masters_directory() {
        let b = Base::of_master("/data/run/master.zarr", true);
        assert_eq!(b, Base::Dir(PathBuf::from("/data/run")));
        assert_eq!(resolve(&b, "frag/a.nc"), "/data/run/frag/a.nc");
        assert_eq!(resolve(&b, "/abs/a.nc"), "/abs/a.nc");
        assert_eq!(resolve(&b, "file:///abs/a.nc"), "/abs/a.nc");
        assert_eq!(resolve(&b, "file:/abs/a.nc"), "/abs/a.nc");
        assert_eq!(
            resolve(&b, "file:///abs/a.zarr#mode=zarr,file"),
            "file:///abs/a.zarr#mode=zarr,file"
        );
        assert_eq!(
            resolve(&b, "a.zarr#mode=nczarr,file"),
            "file:///data/run/a.zarr#mode=nczarr,file"
        );
        assert_eq!(resolve(&b, "s3://bucket/x.nc"), "s3://bucket/x.nc");
        assert_eq!(resolve(&b, "https://h/x.nc#mode=bytes"), "https://h/x.nc#mode=bytes");
        let u = Base::of_master("s3://bucket/dir/master.zarr", false);
        assert_eq!(u, Base::Url("s3://bucket/dir/".into()));
        assert_eq!(
            resolve(&u, "f1.zarr#mode=zarr,s3"),
            "s3://bucket/dir/f1.zarr#mode=zarr,s3"
        );
        assert!(!has_scheme("C:/x") && has_scheme("file:x") && !has_scheme("a/b:c"));
    }

    #[test]
    fn confined_uris_stay_in_the_masters_directory() {
        let b = Base::of_master("/data/run/master.zarr", true);
        for ok in [
            "a.nc",
            "./sub/a.nc",
            "sub/../a.nc",
            "sub//x/../../b.zarr",
            "a.zarr#mode=nczarr,file",
            "file:a.nc",
            "..a.nc",
        ] {
            assert_eq!(check_confined(&b, ok), Ok(()), "{ok}");
        }
        for bad in [
            "../a.nc",
            "sub/../../a.nc",
            "./..",
            "a/../..//x.nc",
            "/data/run/a.nc",
            "file:///data/run/a.nc",
            "file:/data/run/a.nc",
            "file://host/a.nc",
            "s3://bucket/a.zarr",
            "S3://bucket/a.zarr",
            "https://host/a.nc#mode=bytes",
            "http://host/a.nc",
            "a.zarr#mode=nczarr,s3",
            "%2e%2e/a.nc",
            "sub/%2E%2E/%2e%2e/a.nc",
            "..\\a.nc",
            "",
            ".",
            "sub/..",
        ] {
            assert!(check_confined(&b, bad).is_err(), "{bad}");
        }
        // A master on S3: relative references stay under its prefix.
        let u = Base::of_master("s3://bucket/dir/master.zarr", false);
        assert_eq!(check_confined(&u, "f1.zarr#mode=zarr,s3"), Ok(()));
        assert!(check_confined(&u, "../other/f1.zarr#mode=zarr,s3").is_err());
    }
}
