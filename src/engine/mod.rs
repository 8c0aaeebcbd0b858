//! The data path: a hyperslab read or write, chunk by chunk, on the private
//! worker pool. Its steps, one file each:
//!
//! - `select.rs`: which chunks a (start, count, stride) selection touches
//!   and the runs mapping each chunk's elements to caller memory;
//! - `chunk.rs`: one variable's chunk layout and codecs, between a decoded
//!   chunk and its stored bytes;
//! - `source.rs`: where stored chunks live (`ChunkSource`: one object per
//!   chunk today; a new kind of source plugs in there);
//! - `io.rs`: a variable's chunks in and out of their source (fetch and
//!   decode whole, in part, ahead or in place; encode and store);
//! - `schedule.rs`: batch sizes, jobs over disjoint caller memory, decoding
//!   in order of arrival;
//! - `copy.rs`: values between chunks and caller memory, converted;
//! - `read.rs` (`get_vars`), `write.rs` (`put_vars`), `defer.rs` (which
//!   small writes wait in the cache), `flush.rs` (`flush_chunks`, `put_all`),
//!   `mapped.rs` (nc_get/put_varm layouts).
#![forbid(unsafe_code)]

mod chunk;
mod copy;
mod defer;
mod flush;
mod io;
mod mapped;
mod read;
mod schedule;
mod select;
mod shard;
mod source;
mod write;

pub use flush::{flush_chunks, put_all, set_var_cache};
pub use mapped::{for_each_mapped, gather_map, scatter_map};
pub use read::get_vars;
pub use write::{put_vars, put_vars_where};

use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::types::NcType;
use select::{Selection, check_types};

/// Caller memory for a read.
pub enum MemOut<'a> {
    Num { ty: NcType, data: &'a mut [u8] },
    Str(&'a mut [Option<Vec<u8>>]),
}

/// Caller memory for a write.
pub enum MemIn<'a> {
    Num { ty: NcType, data: &'a [u8] },
    Str(&'a [Option<Vec<u8>>]),
}

impl MemOut<'_> {
    fn mem_type(&self) -> NcType {
        match self {
            MemOut::Num { ty, .. } => *ty,
            MemOut::Str(_) => NcType::String,
        }
    }

    /// Room for `n` values?
    fn holds(&self, n: usize) -> bool {
        match self {
            MemOut::Num { ty, data } => n.checked_mul(ty.size()).is_some_and(|b| data.len() >= b),
            MemOut::Str(s) => s.len() >= n,
        }
    }
}

impl MemIn<'_> {
    fn mem_type(&self) -> NcType {
        match self {
            MemIn::Num { ty, .. } => *ty,
            MemIn::Str(_) => NcType::String,
        }
    }

    /// Holds `n` values?
    fn holds(&self, n: usize) -> bool {
        match self {
            MemIn::Num { ty, data } => n.checked_mul(ty.size()).is_some_and(|b| data.len() >= b),
            MemIn::Str(s) => s.len() >= n,
        }
    }
}

/// Check an access and build its selection: None when it selects nothing.
/// `holds` says whether caller memory has room for a number of values.
#[allow(clippy::too_many_arguments)]
fn prepare(
    ds: &Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    mem_type: NcType,
    holds: impl Fn(usize) -> bool,
    for_write: bool,
) -> NcResult<Option<Selection>> {
    let var = ds.var(grp, varid)?;
    check_types(mem_type, var.ty)?;
    let sel = Selection::of(ds, var, start, count, stride, for_write)?;
    if sel.total == 0 {
        return Ok(None);
    }
    if !holds(sel.total) {
        return Err(NcError::Inval);
    }
    Ok(Some(sel))
}

/// Validate an access (coordinates, counts, strides against the variable)
/// without doing it: the C layer calls this before sizing its own buffers.
pub fn validate(
    ds: &Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    for_write: bool,
) -> NcResult<usize> {
    let var = ds.var(grp, varid)?;
    Ok(Selection::of(ds, var, start, count, stride, for_write)?.total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Key;

    /// A dataset in memory with one int variable `v` of shape `shape` (a 0
    /// is unlimited) in chunks `chunks`, out of define mode.
    fn dataset(shape: &[usize], chunks: &[usize]) -> Dataset {
        let mut ds = Dataset::in_memory();
        let dims: Vec<i32> = shape
            .iter()
            .enumerate()
            .map(|(i, &n)| ds.def_dim(0, &format!("d{i}"), n).unwrap() as i32)
            .collect();
        ds.def_var(0, "v", NcType::Int, &dims).unwrap();
        ds.def_var_chunking(0, 0, 0, Some(chunks)).unwrap();
        ds.define_mode = false;
        ds
    }

    fn bytes(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    fn ints(b: &[u8]) -> Vec<i32> {
        b.chunks_exact(4)
            .map(|x| i32::from_ne_bytes([x[0], x[1], x[2], x[3]]))
            .collect()
    }

    fn put(ds: &mut Dataset, start: &[usize], count: &[usize], vals: &[i32]) -> NcResult<()> {
        let data = bytes(vals);
        put_vars(
            ds,
            0,
            0,
            start,
            count,
            None,
            MemIn::Num {
                ty: NcType::Int,
                data: &data,
            },
        )
    }

    fn get(ds: &mut Dataset, start: &[usize], count: &[usize], stride: Option<&[isize]>) -> NcResult<Vec<i32>> {
        let n: usize = count.iter().product();
        let mut data = vec![0u8; n * 4];
        get_vars(
            ds,
            0,
            0,
            start,
            count,
            stride,
            MemOut::Num {
                ty: NcType::Int,
                data: &mut data,
            },
        )?;
        Ok(ints(&data))
    }

    fn object(ds: &Dataset, key: &str) -> Option<Vec<u8>> {
        ds.store.get(&Key::new(key).unwrap(), 1 << 20).unwrap()
    }

    #[test]
    fn windows_round_trip_against_a_model() {
        let (rows, cols) = (7usize, 9usize);
        let mut ds = dataset(&[rows, cols], &[3, 4]);
        let mut model = vec![-2147483647i32; rows * cols]; // NC_FILL_INT
        let mut seed = 12345u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for step in 0..60 {
            let (r0, c0) = (next(rows), next(cols));
            let (nr, nc) = (1 + next(rows - r0), 1 + next(cols - c0));
            if step % 2 == 0 {
                let vals: Vec<i32> = (0..nr * nc).map(|k| (step * 1000 + k) as i32).collect();
                put(&mut ds, &[r0, c0], &[nr, nc], &vals).unwrap();
                for (k, v) in vals.iter().enumerate() {
                    model[(r0 + k / nc) * cols + c0 + k % nc] = *v;
                }
            } else {
                let (sr, sc) = (1 + next(3), 1 + next(3));
                let (nr, nc) = ((nr - 1) / sr + 1, (nc - 1) / sc + 1);
                let got = get(&mut ds, &[r0, c0], &[nr, nc], Some(&[sr as isize, sc as isize])).unwrap();
                let want: Vec<i32> = (0..nr * nc)
                    .map(|k| model[(r0 + (k / nc) * sr) * cols + c0 + (k % nc) * sc])
                    .collect();
                assert_eq!(got, want, "step {step}");
            }
            if step % 10 == 9 {
                flush_chunks(&mut ds).unwrap();
            }
        }
        flush_chunks(&mut ds).unwrap();
        assert_eq!(get(&mut ds, &[0, 0], &[rows, cols], None).unwrap(), model);
        // Every chunk was written somewhere: dropping the caches changes nothing.
        ds.groups[0].vars[0].cache.clear();
        assert_eq!(get(&mut ds, &[0, 0], &[rows, cols], None).unwrap(), model);
    }

    #[test]
    fn small_whole_chunks_wait_for_the_flush() {
        let mut ds = dataset(&[16], &[16]);
        put(&mut ds, &[0], &[16], &(0..16).collect::<Vec<_>>()).unwrap();
        assert_eq!(object(&ds, "v/0"), None, "deferred");
        assert_eq!(ds.deferred_bytes, 64);
        assert!(ds.groups[0].vars[0].cache.has_dirty());
        assert_eq!(get(&mut ds, &[3], &[2], None).unwrap(), vec![3, 4]);
        flush_chunks(&mut ds).unwrap();
        assert_eq!(object(&ds, "v/0"), Some(bytes(&(0..16).collect::<Vec<_>>())));
        assert_eq!(ds.deferred_bytes, 0);
        assert!(!ds.groups[0].vars[0].cache.has_dirty());
        assert_eq!(ds.groups[0].vars[0].stored_key.as_deref(), Some("v"));
    }

    #[test]
    fn large_whole_chunks_are_stored_at_once() {
        // 64 Ki ints per chunk: 256 KiB, over the deferral bound.
        let mut ds = dataset(&[2, 65536], &[1, 65536]);
        let vals: Vec<i32> = (0..2 * 65536).collect();
        put(&mut ds, &[0, 0], &[2, 65536], &vals).unwrap();
        assert_eq!(object(&ds, "v/1.0").map(|b| b.len()), Some(65536 * 4));
        assert_eq!(ds.deferred_bytes, 0);
        assert!(!ds.groups[0].vars[0].cache.has_dirty());
        assert!(ds.groups[0].vars[0].chunks_on_disk);
        // A read larger than the cache streams: nothing is kept.
        ds.groups[0].vars[0].cache.resize(256 << 10, 10, 0.75);
        let got = get(&mut ds, &[0, 0], &[2, 65536], None).unwrap();
        assert_eq!(got, vals);
        assert!(!ds.groups[0].vars[0].cache.contains(&[0, 0]));
    }

    #[test]
    fn writes_grow_unlimited_dimensions() {
        let mut ds = dataset(&[0, 4], &[2, 4]);
        ds.meta_dirty = false;
        ds.groups[0].vars[0].meta_dirty = false;
        put(&mut ds, &[3, 0], &[2, 4], &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!(ds.dims[0].len, 5);
        assert!(ds.meta_dirty && ds.groups[0].vars[0].meta_dirty);
        assert_eq!(
            get(&mut ds, &[2, 0], &[3, 4], None).unwrap(),
            vec![
                -2147483647,
                -2147483647,
                -2147483647,
                -2147483647,
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8
            ]
        );
        assert_eq!(get(&mut ds, &[5, 0], &[1, 4], None), Err(NcError::InvalCoords));
    }

    #[test]
    fn bad_accesses_are_refused() {
        let mut ds = dataset(&[4], &[2]);
        assert_eq!(put(&mut ds, &[0], &[3], &[1, 2]), Err(NcError::Inval), "too few values");
        let mut small = [0u8; 8];
        assert_eq!(
            get_vars(
                &mut ds,
                0,
                0,
                &[0],
                &[3],
                None,
                MemOut::Num {
                    ty: NcType::Int,
                    data: &mut small
                }
            ),
            Err(NcError::Inval)
        );
        let strs = [Some(b"a".to_vec())];
        assert!(put_vars(&mut ds, 0, 0, &[0], &[1], None, MemIn::Str(&strs)).is_err());
        assert_eq!(validate(&ds, 0, 0, &[1], &[4], None, false), Err(NcError::Edge));
        assert_eq!(validate(&ds, 0, 0, &[1], &[3], None, false), Ok(3));
        assert_eq!(get(&mut ds, &[0], &[1], None).map(|_| ()), Ok(()));
        assert_eq!(validate(&ds, 0, 1, &[0], &[1], None, false), Err(NcError::NotVar));
        ds.writable = false;
        assert_eq!(put(&mut ds, &[0], &[1], &[1]), Err(NcError::Perm));
        // Nothing selected: nothing done, whatever the memory.
        assert_eq!(
            get_vars(
                &mut ds,
                0,
                0,
                &[0],
                &[0],
                None,
                MemOut::Num {
                    ty: NcType::Int,
                    data: &mut []
                }
            ),
            Ok(())
        );
    }

    #[test]
    fn values_out_of_range_are_stored_and_reported() {
        let mut ds = dataset(&[4], &[4]);
        let data: Vec<u8> = [1.5f64, 3e10, -2.0, 4.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let r = put_vars(
            &mut ds,
            0,
            0,
            &[0],
            &[4],
            None,
            MemIn::Num {
                ty: NcType::Double,
                data: &data,
            },
        );
        assert_eq!(r, Err(NcError::Range));
        let got = get(&mut ds, &[0], &[4], None).unwrap();
        assert_eq!((got[0], got[2], got[3]), (1, -2, 4));
        let mut b = [0u8; 4];
        let r = get_vars(
            &mut ds,
            0,
            0,
            &[0],
            &[4],
            None,
            MemOut::Num {
                ty: NcType::Byte,
                data: &mut b,
            },
        );
        assert_eq!(r, Err(NcError::Range));
        assert_eq!((b[0], b[2] as i8, b[3]), (1, -2, 4));
    }
}
