//! Chunk selection: which chunks a hyperslab (start, count, stride) touches
//! and, inside each, the runs that map chunk elements to caller memory.
//! Index arithmetic only: no storage, no codecs, no threads.
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};
use crate::model::convert;
use crate::model::types::NcType;
use crate::model::{Dataset, Var};

/// One dimension of a variable as a selection checks it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extent {
    pub len: usize,
    pub unlimited: bool,
}

/// A validated selection over a variable (a scalar is one element of shape [1]).
#[derive(Debug)]
pub(super) struct Selection {
    pub start: Vec<usize>,
    pub count: Vec<usize>,
    pub stride: Vec<usize>,
    /// The variable's chunk shape.
    pub chunk: Vec<usize>,
    /// How many values the selection holds.
    pub total: usize,
}

/// One dimension's part of a selection inside one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Seg {
    /// Chunk index along the dimension.
    pub c: u64,
    /// First selected output index and how many.
    pub k0: usize,
    pub kn: usize,
    /// Offset inside the chunk of the first selected element.
    pub j0: usize,
}

/// One chunk a selection touches: its index and, per dimension, the part of
/// the selection inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ChunkSel {
    pub idx: Vec<u64>,
    pub segs: Vec<Seg>,
}

/// One contiguous stretch of the selection inside a chunk: `len` elements
/// starting at element `out` of caller memory (consecutive) and at element
/// `chunk` of the chunk (every `step`-th).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run {
    pub out: usize,
    pub chunk: usize,
    pub len: usize,
    pub step: usize,
}

/// Per dimension, the chunks a (start, count, stride) selection touches.
fn segments(start: usize, count: usize, stride: usize, chunk: usize) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut k = 0usize;
    while k < count {
        let pos = start + k * stride;
        let c = pos / chunk;
        let end = (c + 1) * chunk; // first position past this chunk
        // number of k with start + k*stride < end
        let kn = ((end - 1 - start) / stride + 1).min(count) - k;
        out.push(Seg {
            c: c as u64,
            k0: k,
            kn,
            j0: pos - c * chunk,
        });
        k += kn;
    }
    out
}

/// Check that memory type `mem` and file type `file` convert to each other.
pub(super) fn check_types(mem: NcType, file: NcType) -> NcResult<()> {
    if mem == NcType::String || file == NcType::String {
        if mem != file {
            return Err(convert::check_compatible(mem, file).err().unwrap_or(NcError::BadType));
        }
        return Ok(());
    }
    convert::check_compatible(mem, file)
}

impl Selection {
    /// The selection of (start, count, stride) over variable `var`, checked
    /// against its dimensions (a write may run past an unlimited one).
    pub fn of(
        ds: &Dataset,
        var: &Var,
        start: &[usize],
        count: &[usize],
        stride: Option<&[isize]>,
        for_write: bool,
    ) -> NcResult<Selection> {
        // An array whose element count does not fit 64 bits shows its header
        // but refuses data access.
        ds.var_len(var)?;
        if var.is_scalar() {
            // netcdf-c ignores start/count for scalars beyond their being in range.
            if start.first().is_some_and(|&s| s > 0) {
                return Err(NcError::InvalCoords);
            }
            return Ok(Selection {
                start: vec![0],
                count: vec![1],
                stride: vec![1],
                chunk: vec![1],
                total: 1,
            });
        }
        let extents: Vec<Extent> = var
            .dimids
            .iter()
            .map(|&d| Extent {
                len: ds.dims[d].len,
                unlimited: ds.dims[d].unlimited,
            })
            .collect();
        Selection::over(&extents, &var.chunks, start, count, stride, for_write)
    }

    /// The selection over dimensions `extents` with chunk shape `chunk`.
    /// Errors as netcdf-c's: NC_EINVAL (too few coordinates), NC_ESTRIDE,
    /// NC_EINVALCOORDS (a start outside), NC_EEDGE (a count running past).
    pub fn over(
        extents: &[Extent],
        chunk: &[usize],
        start: &[usize],
        count: &[usize],
        stride: Option<&[isize]>,
        for_write: bool,
    ) -> NcResult<Selection> {
        let n = extents.len();
        if start.len() < n || count.len() < n {
            return Err(NcError::Inval);
        }
        let st: Vec<usize> = match stride {
            Some(s) => {
                if s.len() < n {
                    return Err(NcError::Inval);
                }
                s[..n]
                    .iter()
                    .map(|&x| if x <= 0 { Err(NcError::Stride) } else { Ok(x as usize) })
                    .collect::<NcResult<_>>()?
            }
            None => vec![1; n],
        };
        let mut total: usize = 1;
        for (d, dim) in extents.iter().enumerate() {
            let (s, c) = (start[d], count[d]);
            // The last index selected (checked for overflow in every case).
            let last = || {
                (c - 1)
                    .checked_mul(st[d])
                    .and_then(|x| x.checked_add(s))
                    .ok_or(NcError::Edge)
            };
            if !(for_write && dim.unlimited) {
                if s > dim.len || (c > 0 && s >= dim.len) {
                    return Err(NcError::InvalCoords);
                }
                if c > 0 && last()? >= dim.len {
                    return Err(NcError::Edge);
                }
            } else if c > 0 {
                last()?;
            }
            total = total.checked_mul(c).ok_or(NcError::Edge)?;
        }
        Ok(Selection {
            start: start[..n].to_vec(),
            count: count[..n].to_vec(),
            stride: st,
            chunk: chunk.to_vec(),
            total,
        })
    }

    /// One past the last index selected along dimension `d` (what an
    /// unlimited dimension grows to). Only for a selection that is not empty.
    pub fn end(&self, d: usize) -> usize {
        self.start[d] + (self.count[d] - 1) * self.stride[d] + 1
    }

    /// Every chunk the selection touches, in C order of their indices (the
    /// last dimension fastest), with the selection's part inside each.
    pub fn chunks(&self) -> Vec<ChunkSel> {
        let per_dim: Vec<Vec<Seg>> = (0..self.start.len())
            .map(|d| segments(self.start[d], self.count[d], self.stride[d], self.chunk[d]))
            .collect();
        let mut out = Vec::new();
        if per_dim.iter().any(Vec::is_empty) {
            return out;
        }
        let n = per_dim.len();
        let mut pos = vec![0usize; n];
        loop {
            let segs: Vec<Seg> = (0..n).map(|d| per_dim[d][pos[d]]).collect();
            out.push(ChunkSel {
                idx: segs.iter().map(|s| s.c).collect(),
                segs,
            });
            let mut d = n;
            loop {
                if d == 0 {
                    return out;
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < per_dim[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }

    /// Output strides: the distance in caller memory between successive
    /// indices along each dimension (C order over `count`).
    fn out_strides(&self) -> Vec<usize> {
        let n = self.count.len();
        let mut ostr = vec![1usize; n];
        for d in (0..n.saturating_sub(1)).rev() {
            ostr[d] = ostr[d + 1] * self.count[d + 1];
        }
        ostr
    }

    /// Call `run` for every run of the selection inside the chunk with
    /// segments `segs`, in output order; runs follow the last dimension.
    pub fn for_each_run(&self, segs: &[Seg], mut run: impl FnMut(Run) -> NcResult<()>) -> NcResult<()> {
        let n = segs.len();
        let ostr = self.out_strides();
        // Chunk strides (C order over the chunk shape).
        let mut cstr = vec![1usize; n];
        for d in (0..n - 1).rev() {
            cstr[d] = cstr[d + 1] * self.chunk[d + 1];
        }
        let last = n - 1;
        let mut i = vec![0usize; n];
        loop {
            let mut o = 0;
            let mut c = 0;
            for d in 0..last {
                o += (segs[d].k0 + i[d]) * ostr[d];
                c += (segs[d].j0 + i[d] * self.stride[d]) * cstr[d];
            }
            o += segs[last].k0;
            c += segs[last].j0;
            run(Run {
                out: o,
                chunk: c,
                len: segs[last].kn,
                step: self.stride[last],
            })?;
            let mut d = last;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                i[d] += 1;
                if i[d] < segs[d].kn {
                    break;
                }
                i[d] = 0;
            }
        }
    }

    /// The runs of the selection inside one chunk, in output order.
    pub fn runs(&self, segs: &[Seg]) -> Vec<Run> {
        let mut runs = Vec::new();
        // The visitor never fails, so neither does the walk.
        let _: NcResult<()> = self.for_each_run(segs, |r| {
            runs.push(r);
            Ok(())
        });
        runs
    }

    /// Does the selection inside this chunk cover every element of it that
    /// lies inside the array (of shape `shape`)?
    pub fn covers(&self, segs: &[Seg], shape: &[usize]) -> bool {
        segs.iter().enumerate().all(|(d, s)| {
            let c0 = s.c as usize * self.chunk[d];
            let inb = self.chunk[d].min(shape[d].saturating_sub(c0));
            self.stride[d] == 1 && s.j0 == 0 && s.kn >= inb
        })
    }

    /// The blocks of caller memory (first output element, elements) that
    /// the row of chunks a chunk with segments `segs` belongs to writes:
    /// chunks that differ only in their last index fill whole rows of the
    /// selection, so what they cover is contiguous for every index of the
    /// dimensions before the last two. In output order.
    pub fn row_blocks(&self, segs: &[Seg]) -> Vec<(usize, usize)> {
        let n = segs.len();
        if n == 1 {
            return vec![(segs[0].k0, segs[0].kn)];
        }
        let ostr = self.out_strides();
        let inner = n - 2;
        let len = segs[inner].kn * ostr[inner];
        let first = segs[inner].k0 * ostr[inner];
        let mut blocks = Vec::new();
        let mut i = vec![0usize; inner];
        loop {
            let base: usize = (0..inner).map(|d| (segs[d].k0 + i[d]) * ostr[d]).sum();
            blocks.push((base + first, len));
            let mut d = inner;
            loop {
                if d == 0 {
                    return blocks;
                }
                d -= 1;
                i[d] += 1;
                if i[d] < segs[d].kn {
                    break;
                }
                i[d] = 0;
            }
        }
    }
}

/// The element ranges of a chunk of `nelems` elements that a read's runs
/// touch (sorted, those that touch or overlap merged), when they hold at
/// most a quarter of the chunk (worth decoding in part).
pub(super) fn part_ranges(runs: &[Run], nelems: usize) -> Option<Vec<(usize, usize)>> {
    // The runs' own elements (distinct, each inside its range) already too
    // many: no need to sort and merge (a read of whole chunks).
    let asked = runs.iter().try_fold(0usize, |n, r| n.checked_add(r.len))?;
    if asked.saturating_mul(4) > nelems {
        return None;
    }
    let mut spans: Vec<(usize, usize)> = runs
        .iter()
        .map(|r| (r.chunk, r.chunk + r.len.saturating_sub(1) * r.step + 1))
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let held: usize = merged.iter().map(|(a, b)| b - a).sum();
    (!merged.is_empty() && held.saturating_mul(4) <= nelems).then_some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(len: usize) -> Extent {
        Extent { len, unlimited: false }
    }

    fn sel(dims: &[usize], chunk: &[usize], start: &[usize], count: &[usize], stride: Option<&[isize]>) -> Selection {
        let ext: Vec<Extent> = dims.iter().map(|&n| fixed(n)).collect();
        Selection::over(&ext, chunk, start, count, stride, false).unwrap()
    }

    #[test]
    fn segments_split_at_chunk_edges() {
        let s = segments(3, 5, 1, 4);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].c, s[0].k0, s[0].kn, s[0].j0), (0, 0, 1, 3));
        assert_eq!((s[1].c, s[1].k0, s[1].kn, s[1].j0), (1, 1, 4, 0));
        let s = segments(1, 4, 3, 4); // positions 1,4,7,10
        assert_eq!(
            s.iter().map(|x| (x.c, x.kn, x.j0)).collect::<Vec<_>>(),
            vec![(0, 1, 1), (1, 2, 0), (2, 1, 2)]
        );
        // A stride larger than the chunk skips chunks: positions 0, 9.
        let s = segments(0, 2, 9, 4);
        assert_eq!(
            s.iter().map(|x| (x.c, x.k0, x.j0)).collect::<Vec<_>>(),
            vec![(0, 0, 0), (2, 1, 1)]
        );
        assert!(segments(5, 0, 1, 4).is_empty());
    }

    #[test]
    fn selection_checks_like_netcdf_c() {
        let ext = [fixed(10), fixed(6)];
        let over = |start: &[usize], count: &[usize], stride: Option<&[isize]>| {
            Selection::over(&ext, &[4, 4], start, count, stride, false).map(|s| s.total)
        };
        assert_eq!(over(&[0, 0], &[10, 6], None), Ok(60));
        assert_eq!(over(&[0], &[10, 6], None), Err(NcError::Inval));
        assert_eq!(over(&[0, 0], &[10], None), Err(NcError::Inval));
        assert_eq!(over(&[11, 0], &[0, 1], None), Err(NcError::InvalCoords));
        // A start at the end with nothing to read is allowed.
        assert_eq!(over(&[10, 0], &[0, 6], None), Ok(0));
        assert_eq!(over(&[10, 0], &[1, 6], None), Err(NcError::InvalCoords));
        assert_eq!(over(&[5, 0], &[6, 6], None), Err(NcError::Edge));
        assert_eq!(over(&[0, 0], &[4, 2], Some(&[3, 5])), Ok(8));
        assert_eq!(over(&[0, 0], &[4, 2], Some(&[3, 6])), Err(NcError::Edge));
        assert_eq!(over(&[0, 0], &[1, 1], Some(&[0, 1])), Err(NcError::Stride));
        assert_eq!(over(&[0, 0], &[1, 1], Some(&[1])), Err(NcError::Inval));
        assert_eq!(
            over(&[0, 0], &[2, usize::MAX], Some(&[1, isize::MAX])),
            Err(NcError::Edge)
        );
    }

    #[test]
    fn writes_may_run_past_an_unlimited_dimension() {
        let ext = [
            Extent {
                len: 2,
                unlimited: true,
            },
            fixed(4),
        ];
        let s = Selection::over(&ext, &[1, 4], &[5, 0], &[3, 4], None, true).unwrap();
        assert_eq!((s.total, s.end(0)), (12, 8));
        assert_eq!(
            Selection::over(&ext, &[1, 4], &[5, 0], &[3, 4], None, false).map(|s| s.total),
            Err(NcError::InvalCoords)
        );
        // Not the fixed one, and never an overflowing index.
        assert_eq!(
            Selection::over(&ext, &[1, 4], &[0, 2], &[1, 4], None, true).map(|s| s.total),
            Err(NcError::Edge)
        );
        assert_eq!(
            Selection::over(&ext, &[1, 4], &[usize::MAX, 0], &[2, 4], None, true).map(|s| s.total),
            Err(NcError::Edge)
        );
    }

    #[test]
    fn chunks_in_c_order() {
        let s = sel(&[10, 10], &[4, 4], &[3, 2], &[2, 7], None);
        let idx: Vec<Vec<u64>> = s.chunks().into_iter().map(|c| c.idx).collect();
        assert_eq!(
            idx,
            vec![vec![0, 0], vec![0, 1], vec![0, 2], vec![1, 0], vec![1, 1], vec![1, 2]]
        );
        let c = &s.chunks()[4];
        assert_eq!(
            c.segs[0],
            Seg {
                c: 1,
                k0: 1,
                kn: 1,
                j0: 0
            }
        );
        assert_eq!(
            c.segs[1],
            Seg {
                c: 1,
                k0: 2,
                kn: 4,
                j0: 0
            }
        );
        assert!(sel(&[10, 10], &[4, 4], &[3, 2], &[0, 7], None).chunks().is_empty());
    }

    #[test]
    fn runs_map_chunk_to_caller_memory() {
        // Rows 1..3, columns 2..8 of a 10x10 array in 4x4 chunks; chunk (0, 1)
        // holds rows 1..3 (chunk rows 1..3), columns 4..8 (chunk columns 0..4).
        let s = sel(&[10, 10], &[4, 4], &[1, 2], &[3, 6], None);
        let c = s.chunks().into_iter().find(|c| c.idx == [0, 1]).unwrap();
        let runs = s.runs(&c.segs);
        assert_eq!(
            runs,
            vec![
                Run {
                    out: 2,
                    chunk: 4,
                    len: 4,
                    step: 1
                },
                Run {
                    out: 8,
                    chunk: 8,
                    len: 4,
                    step: 1
                },
                Run {
                    out: 14,
                    chunk: 12,
                    len: 4,
                    step: 1
                },
            ]
        );
        // Every output element is written by exactly one run of one chunk.
        let mut hit = [0u8; 18];
        for c in s.chunks() {
            for r in s.runs(&c.segs) {
                hit[r.out..r.out + r.len].iter_mut().for_each(|h| *h += 1);
            }
        }
        assert!(hit.iter().all(|&h| h == 1));
        // Strided: every other column from 1, one row.
        let s = sel(&[4, 10], &[4, 4], &[2, 1], &[1, 5], Some(&[1, 2]));
        let all: Vec<Run> = s.chunks().iter().flat_map(|c| s.runs(&c.segs)).collect();
        assert_eq!(
            all,
            vec![
                Run {
                    out: 0,
                    chunk: 9,
                    len: 2,
                    step: 2
                },
                Run {
                    out: 2,
                    chunk: 9,
                    len: 2,
                    step: 2
                },
                Run {
                    out: 4,
                    chunk: 9,
                    len: 1,
                    step: 2
                },
            ]
        );
    }

    #[test]
    fn covers_counts_only_elements_inside_the_array() {
        let s = sel(&[10, 6], &[4, 4], &[0, 0], &[10, 6], None);
        let shape = [10, 6];
        let cov: Vec<bool> = s.chunks().iter().map(|c| s.covers(&c.segs, &shape)).collect();
        assert!(cov.iter().all(|&c| c), "edge chunks are covered by what lies inside");
        let s = sel(&[10, 6], &[4, 4], &[0, 1], &[10, 5], None);
        let cov: Vec<bool> = s.chunks().iter().map(|c| s.covers(&c.segs, &shape)).collect();
        assert_eq!(cov, vec![false, true, false, true, false, true]);
        let s = sel(&[10, 6], &[4, 4], &[0, 0], &[5, 6], Some(&[2, 1]));
        assert!(s.chunks().iter().all(|c| !s.covers(&c.segs, &shape)));
    }

    #[test]
    fn row_blocks_are_contiguous_output() {
        // 3-D: rows of chunks along the last dimension write one block per
        // index of the first dimension.
        let s = sel(&[2, 8, 8], &[1, 4, 4], &[0, 2, 0], &[2, 4, 8], None);
        let c = &s.chunks()[0];
        assert_eq!(c.idx, vec![0, 0, 0]);
        assert_eq!(s.row_blocks(&c.segs), vec![(0, 16)]);
        let c = s.chunks().into_iter().find(|c| c.idx == [1, 1, 1]).unwrap();
        assert_eq!(s.row_blocks(&c.segs), vec![(32 + 16, 16)]);
        let s = sel(&[8], &[4], &[1], &[6], None);
        let blocks: Vec<_> = s.chunks().iter().map(|c| s.row_blocks(&c.segs)).collect();
        assert_eq!(blocks, vec![vec![(0, 3)], vec![(3, 3)]]);
    }

    #[test]
    fn part_ranges_merge_and_bound() {
        let r = |chunk, len, step| Run {
            out: 0,
            chunk,
            len,
            step,
        };
        assert_eq!(
            part_ranges(&[r(10, 2, 1), r(0, 3, 1)], 100),
            Some(vec![(0, 3), (10, 12)])
        );
        assert_eq!(part_ranges(&[r(0, 3, 1), r(3, 2, 1)], 100), Some(vec![(0, 5)]));
        assert_eq!(part_ranges(&[r(4, 3, 5)], 100), Some(vec![(4, 15)]));
        // More than a quarter asked for, or spanned: the whole chunk.
        assert_eq!(part_ranges(&[r(0, 26, 1)], 100), None);
        assert_eq!(part_ranges(&[r(0, 10, 3)], 100), None);
        assert_eq!(part_ranges(&[], 100), None);
    }

    #[test]
    fn types_must_convert() {
        assert_eq!(check_types(NcType::Int, NcType::Float), Ok(()));
        assert_eq!(check_types(NcType::String, NcType::String), Ok(()));
        assert!(check_types(NcType::String, NcType::Int).is_err());
        assert!(check_types(NcType::Int, NcType::String).is_err());
        assert!(check_types(NcType::Char, NcType::Int).is_err());
    }
}
