//! The fragment grid of a variable to be aggregated: S3netCDF4's splitting
//! algorithm, corrected. Starting from one fragment, a division is added to
//! one axis at a time until a fragment holds at most the byte target; the
//! axis is chosen to balance the fragments a time series at one point
//! touches (divisions along T, else Z, else other axes) against those one
//! 2-D field touches (divisions along Y times X). Unlike S3netCDF4 it counts
//! bytes, not elements; fragment sizes are whole chunks (so fragment
//! boundaries are chunk boundaries), the last fragment along an axis may be
//! smaller; axis roles come from CF metadata before position.
#![forbid(unsafe_code)]

/// The role of an axis for the splitting algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    T,
    Z,
    Y,
    X,
    /// Neither time, vertical nor horizontal.
    N,
}

/// The CF attributes of a dimension's coordinate variable that tell its role.
#[derive(Debug, Clone, Default)]
pub struct CfHints {
    pub axis: Option<String>,
    pub standard_name: Option<String>,
    pub units: Option<String>,
    pub positive: Option<String>,
}

/// The role CF metadata gives a coordinate: `axis`, then `standard_name`,
/// then `units` (a time unit `... since ...`, degrees north or east), then
/// `positive` (vertical). None when nothing says.
pub fn axis_from_cf(h: &CfHints) -> Option<Axis> {
    let lower = |s: &Option<String>| s.as_deref().map(|x| x.trim().to_ascii_lowercase());
    match lower(&h.axis).as_deref() {
        Some("t") => return Some(Axis::T),
        Some("z") => return Some(Axis::Z),
        Some("y") => return Some(Axis::Y),
        Some("x") => return Some(Axis::X),
        _ => {}
    }
    if let Some(sn) = lower(&h.standard_name) {
        match sn.as_str() {
            "time" | "forecast_reference_time" => return Some(Axis::T),
            "latitude" | "grid_latitude" | "projection_y_coordinate" => return Some(Axis::Y),
            "longitude" | "grid_longitude" | "projection_x_coordinate" => return Some(Axis::X),
            "air_pressure"
            | "height"
            | "depth"
            | "altitude"
            | "model_level_number"
            | "atmosphere_sigma_coordinate"
            | "atmosphere_hybrid_sigma_pressure_coordinate" => return Some(Axis::Z),
            _ => {}
        }
    }
    if let Some(u) = lower(&h.units) {
        if u.contains(" since ") {
            return Some(Axis::T);
        }
        if matches!(u.as_str(), "degrees_north" | "degree_north" | "degrees_n" | "degree_n") {
            return Some(Axis::Y);
        }
        if matches!(u.as_str(), "degrees_east" | "degree_east" | "degrees_e" | "degree_e") {
            return Some(Axis::X);
        }
    }
    if h.positive.is_some() {
        return Some(Axis::Z);
    }
    None
}

/// Every axis's role: the one CF metadata gives (`known`), else by
/// position from the last dimension: X, Y, then for three dimensions T,
/// for four or more Z then T; one dimension alone is T; the rest N.
pub fn axes(known: &[Option<Axis>]) -> Vec<Axis> {
    let n = known.len();
    let by_position = |d: usize| -> Axis {
        let from_end = n - 1 - d;
        match (n, from_end) {
            (1, _) => Axis::T,
            (_, 0) => Axis::X,
            (_, 1) => Axis::Y,
            (3, 2) => Axis::T,
            (_, 2) => Axis::Z,
            (_, 3) => Axis::T,
            _ => Axis::N,
        }
    };
    (0..n).map(|d| known[d].unwrap_or_else(|| by_position(d))).collect()
}

/// The fragment shape of a variable of `shape` stored in `chunks`, values of
/// `elem` bytes, axes `axes`, for fragments of at most `max_bytes` (or one
/// chunk when a chunk is larger). Every entry is a whole number of chunks,
/// or the dimension's length.
pub fn fragment_shape(shape: &[usize], chunks: &[usize], elem: usize, axes: &[Axis], max_bytes: usize) -> Vec<usize> {
    let n = shape.len();
    let chunk: Vec<usize> = (0..n)
        .map(|d| chunks.get(d).copied().unwrap_or(1).clamp(1, shape[d].max(1)))
        .collect();
    let nchunks: Vec<usize> = (0..n).map(|d| shape[d].div_ceil(chunk[d]).max(1)).collect();
    let mut divs = vec![1usize; n];
    let len = |divs: &[usize], d: usize| (nchunks[d].div_ceil(divs[d]) * chunk[d]).min(shape[d]).max(1);
    let bytes = |divs: &[usize]| {
        (0..n)
            .try_fold(elem.max(1), |a, d| a.checked_mul(len(divs, d)))
            .unwrap_or(usize::MAX)
    };
    let ops = |divs: &[usize], roles: &[Axis]| -> usize {
        (0..n).filter(|&d| roles.contains(&axes[d])).map(|d| divs[d]).product()
    };
    while bytes(&divs) > max_bytes {
        let splittable = |d: usize, roles: &[Axis]| roles.contains(&axes[d]) && nchunks[d].div_ceil(divs[d]) > 1;
        let linear_role = [Axis::T, Axis::Z, Axis::N]
            .into_iter()
            .find(|r| axes.contains(r))
            .map(|r| ops(&divs, &[r]))
            .unwrap_or(1);
        let field = ops(&divs, &[Axis::X, Axis::Y]);
        let horizontal: Vec<usize> = (0..n).filter(|&d| splittable(d, &[Axis::X, Axis::Y])).collect();
        let other: Vec<usize> = (0..n)
            .filter(|&d| splittable(d, &[Axis::T, Axis::Z, Axis::N]))
            .collect();
        let pick_from = if (field <= linear_role && !horizontal.is_empty()) || other.is_empty() {
            horizontal
        } else {
            other
        };
        // Fewest divisions first, then the longest fragment, then the last axis.
        let Some(&d) = pick_from
            .iter()
            .min_by_key(|&&d| (divs[d], std::cmp::Reverse(len(&divs, d)), std::cmp::Reverse(d)))
        else {
            break;
        };
        let before = nchunks[d].div_ceil(divs[d]);
        while divs[d] < nchunks[d] && nchunks[d].div_ceil(divs[d]) == before {
            divs[d] += 1;
        }
    }
    (0..n).map(|d| len(&divs, d)).collect()
}

/// The lengths the splitting algorithm sees for a variable of `shape`
/// whose `unlimited` dimensions will grow: each unlimited dimension is
/// taken as long as the records (its values with every other dimension
/// whole, another unlimited one one chunk long) that fill `max_bytes`,
/// rounded down to whole chunks, at least one chunk and at least its
/// current length. A fragment then holds about `max_bytes` along the
/// record dimension unless a record alone is larger (then the other axes
/// are split as for a fixed variable), and one record's write lies in one
/// row of fragments.
pub fn record_span(shape: &[usize], unlimited: &[bool], chunks: &[usize], elem: usize, max_bytes: usize) -> Vec<usize> {
    let n = shape.len();
    let chunk = |d: usize| chunks.get(d).copied().unwrap_or(1).max(1);
    (0..n)
        .map(|d| {
            if !unlimited[d] {
                return shape[d];
            }
            let record = (0..n)
                .filter(|&k| k != d)
                .map(|k| if unlimited[k] { chunk(k) } else { shape[k].max(1) })
                .try_fold(elem.max(1), usize::checked_mul)
                .unwrap_or(usize::MAX);
            let fit = (max_bytes / record) / chunk(d) * chunk(d);
            fit.max(chunk(d)).max(shape[d])
        })
        .collect()
}

/// The fragment sizes along a dimension of `len` cut in pieces of `frag`
/// (the last one smaller when `frag` does not divide `len`).
pub fn sizes_along(len: usize, frag: usize) -> Vec<usize> {
    let frag = frag.max(1);
    let mut out = Vec::with_capacity(len.div_ceil(frag));
    let mut left = len;
    while left > 0 {
        let n = left.min(frag);
        out.push(n);
        left -= n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_cf_metadata_before_position() {
        let h = |axis: Option<&str>, sn: Option<&str>, units: Option<&str>| CfHints {
            axis: axis.map(str::to_string),
            standard_name: sn.map(str::to_string),
            units: units.map(str::to_string),
            positive: None,
        };
        assert_eq!(axis_from_cf(&h(Some("T"), None, None)), Some(Axis::T));
        assert_eq!(axis_from_cf(&h(None, Some("latitude"), None)), Some(Axis::Y));
        assert_eq!(
            axis_from_cf(&h(None, None, Some("hours since 1970-01-01"))),
            Some(Axis::T)
        );
        assert_eq!(axis_from_cf(&h(None, None, Some("degrees_east"))), Some(Axis::X));
        assert_eq!(axis_from_cf(&h(None, None, Some("m"))), None);
        let up = CfHints {
            positive: Some("up".into()),
            ..CfHints::default()
        };
        assert_eq!(axis_from_cf(&up), Some(Axis::Z));
        // Position fills in what metadata does not say; metadata wins.
        assert_eq!(axes(&[None, None, None]), vec![Axis::T, Axis::Y, Axis::X]);
        assert_eq!(
            axes(&[None, None, None, None, None]),
            vec![Axis::N, Axis::T, Axis::Z, Axis::Y, Axis::X]
        );
        assert_eq!(axes(&[None, None]), vec![Axis::Y, Axis::X]);
        assert_eq!(axes(&[None]), vec![Axis::T]);
        assert_eq!(
            axes(&[Some(Axis::X), Some(Axis::Y), Some(Axis::T)]),
            vec![Axis::X, Axis::Y, Axis::T]
        );
    }

    #[test]
    fn a_small_variable_is_one_fragment() {
        let a = [Axis::T, Axis::Y, Axis::X];
        assert_eq!(
            fragment_shape(&[10, 20, 30], &[1, 20, 30], 4, &a, 1 << 20),
            vec![10, 20, 30]
        );
    }

    #[test]
    fn splitting_balances_time_series_against_maps_in_bytes() {
        // 365 x 180 x 360 float32 (94.6 MB) in chunks of 1 x 90 x 90, at
        // most 16 MiB a fragment. Step by step: field ops 1 <= linear ops 1
        // splits a horizontal axis, X (the longer one): 365 x 180 x 180
        // (47.3 MB); field 2 > linear 1 splits T: 183 x 180 x 180 (23.7 MB);
        // field 2 <= linear 2 splits Y: 183 x 90 x 180 (11.9 MB), which fits.
        let a = [Axis::T, Axis::Y, Axis::X];
        let f = fragment_shape(&[365, 180, 360], &[1, 90, 90], 4, &a, 16 << 20);
        assert_eq!(f, vec![183, 90, 180]);
        assert!(f.iter().product::<usize>() * 4 <= 16 << 20);
        // Bytes, not elements: doubles (23.7 MB at that point) need one
        // more step, field 4 > linear 2 splits T in 3: 122 x 90 x 180.
        let f8 = fragment_shape(&[365, 180, 360], &[1, 90, 90], 8, &a, 16 << 20);
        assert_eq!(f8, vec![122, 90, 180]);
        // Metadata saying the first axis is X and the last T turns the
        // choice around: the long axis 0 (X) is the first one split.
        let turned = [Axis::X, Axis::Y, Axis::T];
        let f = fragment_shape(&[360, 180, 365], &[90, 90, 1], 4, &turned, 16 << 20);
        assert_eq!(f, vec![180, 90, 183]);
    }

    #[test]
    fn fragments_are_whole_chunks_and_stop_at_one_chunk() {
        let a = [Axis::T, Axis::Y, Axis::X];
        // Chunks 10 x 10 x 10 of a 25 x 25 x 25 int: fragment sizes are
        // multiples of 10 or the whole length.
        let f = fragment_shape(&[25, 25, 25], &[10, 10, 10], 4, &a, 4000);
        assert_eq!(f, vec![10, 10, 10]);
        // A target smaller than a chunk gives one chunk a fragment.
        let f = fragment_shape(&[25, 25, 25], &[10, 10, 10], 4, &a, 1);
        assert_eq!(f, vec![10, 10, 10]);
    }

    #[test]
    fn an_unlimited_dimension_is_as_long_as_the_records_that_fill_a_fragment() {
        // Records of 180 x 360 floats (259200 B), chunks of 4 records: 16
        // MiB hold 64.7 records, 64 in whole chunks; the rest is whole.
        let span = record_span(&[0, 180, 360], &[true, false, false], &[4, 90, 90], 4, 16 << 20);
        assert_eq!(span, vec![64, 180, 360]);
        let a = [Axis::T, Axis::Y, Axis::X];
        assert_eq!(fragment_shape(&span, &[4, 90, 90], 4, &a, 16 << 20), vec![64, 180, 360]);
        // A record larger than the target: one chunk of records, and the
        // algorithm splits the field.
        let span = record_span(&[0, 180, 360], &[true, false, false], &[1, 90, 90], 4, 100_000);
        assert_eq!(span, vec![1, 180, 360]);
        assert_eq!(fragment_shape(&span, &[1, 90, 90], 4, &a, 100_000), vec![1, 90, 180]);
        // Already longer than that: its current length.
        assert_eq!(record_span(&[500, 10], &[true, false], &[1, 10], 8, 800), vec![500, 10]);
    }

    #[test]
    fn sizes_along_a_dimension() {
        assert_eq!(sizes_along(10, 4), vec![4, 4, 2]);
        assert_eq!(sizes_along(8, 4), vec![4, 4]);
        assert_eq!(sizes_along(3, 10), vec![3]);
        assert!(sizes_along(0, 3).is_empty());
    }
}
