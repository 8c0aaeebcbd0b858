//! Reading an aggregated variable: the request is cut along the fragment
//! grid, only the fragments it touches are read (those of one dataset in
//! one job, the jobs on the worker pool; remote fragments, whose opening
//! waits on request after request, up to `REMOTE_JOBS` at once), each
//! fragment's part brought to
//! canonical form (omitted size-1 dimensions, its missing values as the
//! aggregation's fill value, packing undone, same units) in the
//! aggregated type, then converted into the caller's memory type and placed.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::fragment::{Base, FragVar, Handle, check_confined, resolve};
use super::parse::{Aggregation, Fragment};
use super::units::{self, Affine};
use crate::error::{NcError, NcResult};
use crate::model::ExternalData;
use crate::model::convert::convert;
use crate::model::types::NcType;
use crate::runtime::pool;

/// Open fragment datasets an aggregated variable keeps.
const CACHE_HANDLES: usize = 8;

/// How many remote fragments (S3, HTTP) are opened and read at once: each
/// spends most of its time waiting for responses (opening one is several
/// metadata requests one after the other), which the worker pool's one
/// thread per core would serialise.
const REMOTE_JOBS: usize = 16;

/// Whether a resolved fragment URI names a dataset on a server.
fn is_remote(uri: &str) -> bool {
    let scheme = uri.split_once("://").map_or("", |(s, _)| s);
    ["s3", "http", "https"].iter().any(|r| scheme.eq_ignore_ascii_case(r))
}

/// The data source of one aggregated variable.
#[derive(Debug)]
pub struct AggSource {
    pub agg: Aggregation,
    /// The aggregated type and fill value (native-endian).
    pub ty: NcType,
    pub fill: Vec<u8>,
    pub units: Option<String>,
    /// The aggregation's `calendar` (for time units).
    pub calendar: Option<String>,
    pub base: Base,
    /// The master itself, for fragments inside it (CFA-0.6.2).
    pub master: String,
    /// Fragment URIs must stay inside the master's directory.
    pub confined: bool,
    /// The masters that lead here, this one last (cycles and depth).
    pub ancestors: Vec<String>,
    /// Open fragment datasets by resolved URI, most recently used last.
    cache: Mutex<Vec<(String, Arc<Handle>)>>,
}

/// One dimension's share of a request inside one fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Fragment index along the dimension.
    frag: usize,
    /// First index inside the fragment.
    local: usize,
    /// First position in the caller's selection.
    out: usize,
    /// How many selected indices fall in the fragment.
    n: usize,
}

/// The pieces of a selection along one dimension of fragment sizes `sizes`.
pub fn pieces(sizes: &[usize], start: usize, count: usize, stride: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut off = 0usize;
    if count == 0 {
        return out;
    }
    let stride = stride.max(1);
    let last = start + (count - 1) * stride;
    for (i, &n) in sizes.iter().enumerate() {
        let end = off + n;
        if n > 0 && end > start && off <= last {
            let k_lo = if start >= off {
                0
            } else {
                (off - start).div_ceil(stride)
            };
            let k_hi = ((end - 1 - start) / stride + 1).min(count);
            if k_lo < k_hi {
                out.push(Piece {
                    frag: i,
                    local: start + k_lo * stride - off,
                    out: k_lo,
                    n: k_hi - k_lo,
                });
            }
        }
        off = end;
    }
    out
}

/// One fragment's part of a request (read or written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The fragment's index in row-major order.
    pub frag: usize,
    /// First index inside the fragment, per dimension.
    pub local: Vec<usize>,
    /// Where the part starts in the caller's selection, per dimension.
    pub at: Vec<usize>,
    /// How many selected indices, per dimension.
    pub count: Vec<usize>,
}

/// The blocks of a selection on a grid of fragment `sizes` (per dimension),
/// one per fragment touched, in row-major order of the fragments.
pub fn blocks(sizes: &[Vec<usize>], start: &[usize], count: &[usize], stride: &[usize]) -> Vec<Block> {
    let per_dim: Vec<Vec<Piece>> = (0..sizes.len())
        .map(|d| pieces(&sizes[d], start[d], count[d], stride.get(d).copied().unwrap_or(1)))
        .collect();
    let mut out = Vec::new();
    if per_dim.iter().any(Vec::is_empty) {
        return out;
    }
    let mut idx = vec![0usize; per_dim.len()];
    loop {
        let ps: Vec<Piece> = idx.iter().enumerate().map(|(d, &i)| per_dim[d][i]).collect();
        let frag = ps.iter().zip(sizes).fold(0usize, |a, (p, s)| a * s.len() + p.frag);
        out.push(Block {
            frag,
            local: ps.iter().map(|p| p.local).collect(),
            at: ps.iter().map(|p| p.out).collect(),
            count: ps.iter().map(|p| p.n).collect(),
        });
        let mut d = per_dim.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < per_dim[d].len() {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Copy `block` (shape `bc`, `es` items per value) into `out` (shape
/// `oc`) at position `at`.
fn place<T: Clone>(out: &mut [T], oc: &[usize], at: &[usize], block: &[T], bc: &[usize], es: usize) {
    let nd = oc.len();
    if nd == 0 {
        out[..es].clone_from_slice(&block[..es]);
        return;
    }
    let row = bc[nd - 1] * es;
    let rows: usize = bc[..nd - 1].iter().product();
    let mut idx = vec![0usize; nd - 1];
    for r in 0..rows {
        let mut lin = 0usize;
        for d in 0..nd - 1 {
            lin = lin * oc[d] + at[d] + idx[d];
        }
        let o = (lin * oc[nd - 1] + at[nd - 1]) * es;
        out[o..o + row].clone_from_slice(&block[r * row..(r + 1) * row]);
        for d in (0..nd - 1).rev() {
            idx[d] += 1;
            if idx[d] < bc[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// A block's values in the aggregated type: bytes (numbers and chars) or
/// strings (NC_STRING, None for a NULL string).
#[derive(Debug)]
enum Values {
    Bytes(Vec<u8>),
    Strings(Vec<Option<Vec<u8>>>),
}

/// `rows` rows of `have` values (`es` items each) widened to rows of
/// `want` values, the rest of each row `pad` (one value).
fn pad_rows<T: Clone>(v: &[T], rows: usize, have: usize, want: usize, pad: &[T]) -> Vec<T> {
    let es = pad.len();
    let mut out = Vec::with_capacity(rows * want * es);
    for r in 0..rows {
        out.extend_from_slice(&v[r * have * es..(r + 1) * have * es]);
        for _ in have..want {
            out.extend_from_slice(pad);
        }
    }
    out
}

impl AggSource {
    pub fn new(
        agg: Aggregation,
        ty: NcType,
        fill: Vec<u8>,
        units: Option<String>,
        base: Base,
        master: String,
        ancestors: Vec<String>,
    ) -> AggSource {
        AggSource {
            agg,
            ty,
            fill,
            units,
            calendar: None,
            confined: false,
            base,
            master,
            ancestors,
            cache: Mutex::new(Vec::new()),
        }
    }

    /// The aggregation's `calendar` attribute.
    pub fn with_calendar(mut self, calendar: Option<String>) -> AggSource {
        self.calendar = calendar;
        self
    }

    /// Whether fragment URIs must stay inside the master's directory.
    pub fn with_confined(mut self, confined: bool) -> AggSource {
        self.confined = confined;
        self
    }

    /// The fragment's resolved dataset, None for constant and missing ones.
    fn uri_of(&self, f: &Fragment) -> Option<String> {
        match f {
            Fragment::Dataset { uri: Some(u), .. } => Some(resolve(&self.base, u)),
            Fragment::Dataset { uri: None, .. } => Some(self.master.clone()),
            _ => None,
        }
    }

    /// The open dataset at `uri`, from the cache or opened now.
    fn handle(&self, uri: &str) -> NcResult<Arc<Handle>> {
        {
            let mut c = self.cache.lock().map_err(|_| NcError::Internal)?;
            if let Some(i) = c.iter().position(|(u, _)| u == uri) {
                let e = c.remove(i);
                let h = e.1.clone();
                c.push(e);
                return Ok(h);
            }
        }
        if self.ancestors.iter().any(|a| a == uri) {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation: {uri} is its own fragment (a cycle)"
            );
            return Err(NcError::Inval);
        }
        if self.ancestors.len() >= super::MAX_DEPTH {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation: fragments nested deeper than {} at {uri}",
                super::MAX_DEPTH
            );
            return Err(NcError::Inval);
        }
        let h = Arc::new(Handle::open(uri, &self.ancestors, self.confined)?);
        let mut c = self.cache.lock().map_err(|_| NcError::Internal)?;
        if c.len() >= CACHE_HANDLES {
            c.remove(0);
        }
        c.push((uri.to_string(), h.clone()));
        Ok(h)
    }

    /// The sizes of fragment `frag` (linear index) along each dimension.
    fn fragment_shape(&self, frag: usize) -> Vec<usize> {
        let grid = self.agg.grid();
        let mut rest = frag;
        let mut idx = vec![0usize; grid.len()];
        for d in (0..grid.len()).rev() {
            idx[d] = rest % grid[d];
            rest /= grid[d];
        }
        idx.iter().enumerate().map(|(d, &i)| self.agg.sizes[d][i]).collect()
    }

    /// A block in the aggregated type, in canonical form.
    fn read_block(&self, b: &Block, stride: &[usize], range: &mut bool) -> NcResult<Values> {
        let n: usize = b.count.iter().product();
        let repeat = |v: &[u8]| -> Values {
            if self.ty == NcType::String {
                Values::Strings(vec![Some(v.to_vec()); n])
            } else {
                Values::Bytes(v.iter().copied().cycle().take(n * self.ty.size()).collect())
            }
        };
        let (uri, identifier) = match &self.agg.fragments[b.frag] {
            Fragment::Missing => return Ok(repeat(&self.fill)),
            Fragment::Constant(v) if self.agg.padded_last => return Ok(self.constant_strings(v, b, stride)),
            Fragment::Constant(v) => return Ok(repeat(v)),
            f @ Fragment::Dataset { uri, identifier } => {
                if self.confined
                    && let Some(u) = uri
                    && let Err(why) = check_confined(&self.base, u)
                {
                    crate::nclog!(
                        crate::log::Level::Error,
                        "{}: aggregation fragment {u:?} refused ({why}): fragment URIs are confined to the master's directory",
                        self.master
                    );
                    return Err(NcError::Perm);
                }
                (self.uri_of(f).unwrap_or_default(), identifier)
            }
        };
        let h = self.handle(&uri)?;
        let at = h.find(identifier).inspect_err(|_| {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation fragment {uri}: no variable {identifier}"
            );
        })?;
        let fv = h.describe(at)?;
        let affine = self.check_fragment(&uri, &fv)?;
        let keep = self.kept_dims(&uri, &fv, b.frag)?;
        let pick = |v: &[usize]| -> Vec<usize> { v.iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| *x).collect() };
        let (start, mut count, stride) = (pick(&b.local), pick(&b.count), pick(stride));
        // A char variable's string length that is not aggregated: the
        // fragment holds at most the aggregation's length, the rest reads
        // as the fill value.
        let widen = match (self.agg.padded_last, count.last_mut(), fv.shape.last()) {
            (true, Some(c), Some(&len)) => {
                let (s0, st, want) = (*start.last().unwrap_or(&0), *stride.last().unwrap_or(&1), *c);
                let have = if s0 >= len {
                    0
                } else {
                    ((len - 1 - s0) / st + 1).min(want)
                };
                *c = have;
                Some((have, want))
            }
            _ => None,
        };
        if self.ty == NcType::String {
            return Ok(Values::Strings(h.read_strings(at, &start, &count, &stride)?));
        }
        let raw = h.read(at, &fv, &start, &count, &stride)?;
        let vals = self.canonical(&fv, affine, raw, count.iter().product(), range)?;
        Ok(Values::Bytes(match widen {
            Some((have, want)) if have != want => {
                let rows = count[..count.len() - 1].iter().product();
                pad_rows(&vals, rows, have, want, &self.fill)
            }
            _ => vals,
        }))
    }

    /// A block of a constant fragment of a char aggregation whose string
    /// length is its own: every string is `v` (shorter ones padded with the
    /// fill value), the block's part of it taken from each.
    fn constant_strings(&self, v: &[u8], b: &Block, stride: &[usize]) -> Values {
        let Some((&want, rows)) = b.count.split_last() else {
            return Values::Bytes(Vec::new());
        };
        let (first, step) = (
            b.local.last().copied().unwrap_or(0),
            stride.last().copied().unwrap_or(1).max(1),
        );
        let pad = self.fill.first().copied().unwrap_or(0);
        let row: Vec<u8> = (0..want)
            .map(|k| v.get(first + k * step).copied().unwrap_or(pad))
            .collect();
        Values::Bytes(row.repeat(rows.iter().product()))
    }

    /// Errors for a fragment that cannot be brought to canonical form;
    /// the unit conversion it needs.
    fn check_fragment(&self, uri: &str, fv: &FragVar) -> NcResult<Option<Affine>> {
        let same_kind = match self.ty {
            NcType::Char | NcType::String => fv.ty == self.ty,
            _ => fv.ty.is_numeric(),
        };
        if !same_kind {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation fragment {uri}: type {} cannot be read as {}",
                fv.ty.name(),
                self.ty.name()
            );
            return Err(NcError::BadType);
        }
        let (Some(a), Some(f)) = (&self.units, &fv.units) else {
            return Ok(None);
        };
        if !self.ty.is_numeric() {
            return if a.trim() == f.trim() {
                Ok(None)
            } else {
                crate::nclog!(
                    crate::log::Level::Error,
                    "aggregation fragment {uri}: units {f:?} differ from the aggregation's {a:?}"
                );
                Err(NcError::Inval)
            };
        }
        units::conversion(f, fv.calendar.as_deref(), a, self.calendar.as_deref()).map_err(|why| {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation fragment {uri}: units {f:?} (calendar {:?}) cannot be converted to the aggregation's {a:?} (calendar {:?}): {why}",
                fv.calendar,
                self.calendar
            );
            NcError::Inval
        })
    }

    /// Which aggregated dimensions the fragment variable has: all, or all
    /// but (some of) the size-1 ones, which a fragment may omit. The
    /// remaining sizes must be the fragment's (a string length that is not
    /// aggregated, the last dimension then, is kept and may be shorter).
    fn kept_dims(&self, uri: &str, fv: &FragVar, frag: usize) -> NcResult<Vec<bool>> {
        let mut want = self.fragment_shape(frag);
        let mut have = fv.shape.clone();
        let short_last = if self.agg.padded_last {
            matches!((want.pop(), have.pop()), (Some(w), Some(h)) if h <= w)
        } else {
            true
        };
        let mut keep = Vec::with_capacity(want.len() + 1);
        let mut left = have.len();
        for (d, &w) in want.iter().enumerate() {
            let remaining = want.len() - d;
            let k = left == remaining || (w != 1 && left > 0);
            if k {
                left -= 1;
            }
            keep.push(k);
        }
        let kept: Vec<usize> = want.iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| *x).collect();
        if !short_last || left != 0 || kept != have {
            crate::nclog!(
                crate::log::Level::Error,
                "aggregation fragment {uri}: shape {:?}, the map gives {:?}",
                fv.shape,
                self.fragment_shape(frag)
            );
            return Err(NcError::Edge);
        }
        if self.agg.padded_last {
            keep.push(true);
        }
        Ok(keep)
    }

    /// Fragment values (its own type) into the aggregated type: missing
    /// values become the aggregation's fill value (never converted),
    /// packed values unpacked, then units converted (in f64). Chars are
    /// copied as they are.
    fn canonical(
        &self,
        fv: &FragVar,
        affine: Option<Affine>,
        mut raw: Vec<u8>,
        n: usize,
        range: &mut bool,
    ) -> NcResult<Vec<u8>> {
        if self.ty == NcType::Char {
            return Ok(raw);
        }
        if fv.ty == self.ty && !fv.packed() && affine.is_none() {
            // The fragment's values are already the aggregation's: only its
            // missing values that are not the aggregation's fill value change.
            let marks: Vec<&[u8]> = fv
                .missing
                .iter()
                .map(Vec::as_slice)
                .filter(|m| *m != self.fill.as_slice())
                .collect();
            if !marks.is_empty() {
                for x in raw.chunks_exact_mut(self.ty.size()) {
                    if marks.contains(&&*x) {
                        x.copy_from_slice(&self.fill);
                    }
                }
            }
            return Ok(raw);
        }
        let raw = &raw[..];
        let (fs, es) = (fv.ty.size(), self.ty.size());
        // Missing values are found first and converted as zeros (so they
        // raise no NC_ERANGE), then written as the fill value.
        let missing: Vec<bool> = raw
            .chunks_exact(fs)
            .map(|v| fv.missing.iter().any(|m| m.as_slice() == v))
            .collect();
        let zeroed;
        let raw = if missing.contains(&true) {
            let mut r = raw.to_vec();
            for (x, _) in r.chunks_exact_mut(fs).zip(&missing).filter(|(_, m)| **m) {
                x.fill(0);
            }
            zeroed = r;
            &zeroed[..]
        } else {
            raw
        };
        let mut out = vec![0u8; n * es];
        if fv.packed() || affine.is_some() {
            let mut d = vec![0u8; n * 8];
            match convert(fv.ty, raw, NcType::Double, &mut d) {
                Ok(()) | Err(NcError::Range) => {}
                Err(e) => return Err(e),
            }
            let (s, o) = (fv.scale_factor.unwrap_or(1.0), fv.add_offset.unwrap_or(0.0));
            let u = affine.unwrap_or(Affine {
                scale: 1.0,
                offset: 0.0,
            });
            for x in d.chunks_exact_mut(8) {
                let v = f64::from_ne_bytes(x.try_into().map_err(|_| NcError::Internal)?);
                let v = if fv.packed() { v * s + o } else { v };
                let v = if affine.is_some() { v * u.scale + u.offset } else { v };
                x.copy_from_slice(&v.to_ne_bytes());
            }
            match convert(NcType::Double, &d, self.ty, &mut out) {
                Ok(()) => {}
                Err(NcError::Range) => *range = true,
                Err(e) => return Err(e),
            }
        } else {
            match convert(fv.ty, raw, self.ty, &mut out) {
                Ok(()) => {}
                Err(NcError::Range) => *range = true,
                Err(e) => return Err(e),
            }
        }
        for (x, _) in out.chunks_exact_mut(es).zip(&missing).filter(|(_, m)| **m) {
            x.copy_from_slice(&self.fill);
        }
        Ok(out)
    }
}

impl AggSource {
    /// Read the blocks of a selection, those of one dataset in one job,
    /// each placed by `put` (the block, its values) in the job as soon as it
    /// is read, so that no more than the blocks in flight are held; Ok(true)
    /// when some value was out of range for the aggregated type.
    fn gather(
        &self,
        start: &[usize],
        count: &[usize],
        stride: &[usize],
        put: impl Fn(&Block, Values) -> NcResult<()> + Sync,
    ) -> NcResult<bool> {
        let blocks = blocks(&self.agg.sizes, start, count, stride);
        // The blocks of one dataset go to one job (its handle is used by one
        // thread at a time); constant and missing ones each to their own.
        let mut jobs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, b) in blocks.iter().enumerate() {
            let key = self
                .uri_of(&self.agg.fragments[b.frag])
                .unwrap_or_else(|| format!("\0{i}"));
            jobs.entry(key).or_default().push(i);
        }
        let remote = jobs.keys().filter(|k| is_remote(k)).count();
        let jobs: Vec<Vec<usize>> = jobs.into_values().collect();
        let job = |list: Vec<usize>| {
            let mut range = false;
            for i in list {
                let vals = self.read_block(&blocks[i], stride, &mut range)?;
                put(&blocks[i], vals)?;
            }
            Ok::<bool, NcError>(range)
        };
        let results = if remote > 1 {
            pool::run_waiting(jobs, REMOTE_JOBS, job)
        } else {
            pool::run_jobs(jobs, job)
        };
        let mut out_of_range = false;
        for r in results {
            out_of_range |= r?;
        }
        Ok(out_of_range)
    }

    /// A scalar aggregation has no selection.
    fn selection<'a>(
        &self,
        start: &'a [usize],
        count: &'a [usize],
        stride: &'a [usize],
    ) -> (&'a [usize], &'a [usize], &'a [usize]) {
        if self.agg.shape.is_empty() {
            (&[], &[], &[])
        } else {
            (start, count, stride)
        }
    }
}

impl ExternalData for AggSource {
    fn read(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, out: &mut [u8]) -> NcResult<()> {
        if self.ty == NcType::String {
            return Err(NcError::BadType);
        }
        let (start, count, stride) = self.selection(start, count, stride);
        let ms = mem.size();
        let conv_range = AtomicBool::new(false);
        let out = Mutex::new(out);
        let range = self.gather(start, count, stride, |b, vals| {
            let Values::Bytes(vals) = vals else {
                return Err(NcError::Internal);
            };
            let conv = if mem == self.ty {
                // Already in the caller's type: placed as read.
                vals
            } else {
                let n: usize = b.count.iter().product();
                let mut conv = vec![0u8; n * ms];
                match convert(self.ty, &vals, mem, &mut conv) {
                    Ok(()) => {}
                    Err(NcError::Range) => conv_range.store(true, Ordering::Relaxed),
                    Err(e) => return Err(e),
                }
                conv
            };
            let mut out = out.lock().map_err(|_| NcError::Internal)?;
            place(&mut out, count, &b.at, &conv, &b.count, ms);
            Ok(())
        })?;
        if range || conv_range.load(Ordering::Relaxed) {
            Err(NcError::Range)
        } else {
            Ok(())
        }
    }

    fn read_strings(
        &self,
        start: &[usize],
        count: &[usize],
        stride: &[usize],
        out: &mut [Option<Vec<u8>>],
    ) -> NcResult<()> {
        if self.ty != NcType::String {
            return Err(NcError::BadType);
        }
        let (start, count, stride) = self.selection(start, count, stride);
        let out = Mutex::new(out);
        self.gather(start, count, stride, |b, vals| {
            let Values::Strings(vals) = vals else {
                return Err(NcError::Internal);
            };
            let mut out = out.lock().map_err(|_| NcError::Internal)?;
            place(&mut out, count, &b.at, &vals, &b.count, 1);
            Ok(())
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_uris_are_told_by_their_scheme() {
        for r in [
            "s3://b/k.zarr",
            "https://h/b/k.zarr#mode=nczarr,s3",
            "HTTP://h:7480/b/f.zarr#mode=zarr,s3",
        ] {
            assert!(is_remote(r), "{r}");
        }
        for l in [
            "/d/f.zarr",
            "file:///d/f.zarr#mode=nczarr,file",
            "f.zarr",
            "s3.zarr",
            "d/s3://x",
        ] {
            assert!(!is_remote(l), "{l}");
        }
    }

    #[test]
    fn pieces_follow_the_fragment_sizes() {
        // Fragments [0,2) [2,5) [5,6); everything.
        assert_eq!(
            pieces(&[2, 3, 1], 0, 6, 1),
            vec![
                Piece {
                    frag: 0,
                    local: 0,
                    out: 0,
                    n: 2
                },
                Piece {
                    frag: 1,
                    local: 0,
                    out: 2,
                    n: 3
                },
                Piece {
                    frag: 2,
                    local: 0,
                    out: 5,
                    n: 1
                },
            ]
        );
        // Indices 1, 3, 5 (stride 2).
        assert_eq!(
            pieces(&[2, 3, 1], 1, 3, 2),
            vec![
                Piece {
                    frag: 0,
                    local: 1,
                    out: 0,
                    n: 1
                },
                Piece {
                    frag: 1,
                    local: 1,
                    out: 1,
                    n: 1
                },
                Piece {
                    frag: 2,
                    local: 0,
                    out: 2,
                    n: 1
                },
            ]
        );
        // Index 0 and 4 (stride 4): the last fragment untouched.
        assert_eq!(
            pieces(&[2, 3, 1], 0, 2, 4),
            vec![
                Piece {
                    frag: 0,
                    local: 0,
                    out: 0,
                    n: 1
                },
                Piece {
                    frag: 1,
                    local: 2,
                    out: 1,
                    n: 1
                },
            ]
        );
        // A stride that jumps over a whole fragment.
        assert_eq!(
            pieces(&[1, 1, 1, 1], 0, 2, 3),
            vec![
                Piece {
                    frag: 0,
                    local: 0,
                    out: 0,
                    n: 1
                },
                Piece {
                    frag: 3,
                    local: 0,
                    out: 1,
                    n: 1
                },
            ]
        );
        assert!(pieces(&[2, 3], 0, 0, 1).is_empty());
    }

    #[test]
    fn blocks_are_placed_where_they_belong() {
        let mut out = vec![0u8; 12];
        place(&mut out, &[3, 4], &[1, 2], &[1, 2, 3, 4], &[2, 2], 1);
        assert_eq!(out, vec![0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4]);
    }
}
