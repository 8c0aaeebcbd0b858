//! The data source of a variable being written as an aggregation: while the
//! writing handle is open the variable is the N-d array, and a write or read
//! is cut along the fragment grid, each fragment's part done on its own
//! fragment dataset (several fragments in parallel on the worker pool). A
//! few fragment datasets stay open between calls; the others are synced and
//! closed.
#![forbid(unsafe_code)]

use std::any::Any;
use std::collections::HashMap;
use std::sync::Mutex;

use crate::aggregate::source::{Block, blocks};
use crate::engine::{MemIn, MemOut};
use crate::error::{NcError, NcResult};
use crate::model::types::NcType;
use crate::model::{Dataset, ExternalData};
use crate::runtime::pool;
use crate::storage::Durability;

/// Fragment datasets kept open between calls.
const OPEN_FRAGMENTS: usize = 16;

/// The stored form of the aggregated variable (written to the master).
#[derive(Debug, Clone)]
pub struct StoredForm {
    /// `aggregated_dimensions` and `aggregated_data`.
    pub dims_text: String,
    pub data_text: String,
}

/// A coordinate variable of the master copied into every fragment.
#[derive(Debug, Clone)]
pub struct Coordinate {
    /// The master's group and variable id.
    pub grp: usize,
    pub varid: i32,
    /// Its name, and which aggregated dimension it runs along.
    pub name: String,
    pub dim: usize,
}

/// One variable being written into fragments.
#[derive(Debug)]
pub struct AggWriter {
    /// The variable's name in every fragment.
    pub name: String,
    /// Fragment sizes along each dimension.
    pub sizes: Vec<Vec<usize>>,
    /// Where each fragment is opened, in row-major order of the grid.
    pub paths: Vec<String>,
    pub stored: StoredForm,
    pub coords: Vec<Coordinate>,
    open: Mutex<OpenFragments>,
}

/// Open fragment datasets by index, each with the call that last used it,
/// and the number of the last call.
type OpenFragments = (u64, HashMap<usize, (u64, Dataset)>);

/// Visit the rows (runs along the last dimension) of a block of shape `bc`
/// placed at `at` in an array of shape `oc`: `f(offset in the array,
/// offset in the block, length)`, in values.
fn rows(oc: &[usize], at: &[usize], bc: &[usize], mut f: impl FnMut(usize, usize, usize)) {
    let n = oc.len();
    if n == 0 {
        f(0, 0, 1);
        return;
    }
    if bc.contains(&0) {
        return;
    }
    let row = bc[n - 1];
    let mut idx = vec![0usize; n - 1];
    let mut boff = 0usize;
    loop {
        let mut aoff = 0usize;
        for d in 0..n {
            let i = if d < n - 1 { idx[d] } else { 0 };
            aoff = aoff * oc[d] + at[d] + i;
        }
        f(aoff, boff, row);
        boff += row;
        let mut d = n - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < bc[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The block's values out of the caller's array (`oc` values per dimension).
pub fn gather(data: &[u8], oc: &[usize], b: &Block, es: usize) -> Vec<u8> {
    let n: usize = b.count.iter().product();
    let mut out = vec![0u8; n * es];
    rows(oc, &b.at, &b.count, |a, o, len| {
        out[o * es..(o + len) * es].copy_from_slice(&data[a * es..(a + len) * es]);
    });
    out
}

/// The block's values into the caller's array.
pub fn scatter(data: &mut [u8], oc: &[usize], b: &Block, block: &[u8], es: usize) {
    rows(oc, &b.at, &b.count, |a, o, len| {
        data[a * es..(a + len) * es].copy_from_slice(&block[o * es..(o + len) * es]);
    });
}

impl AggWriter {
    pub fn new(
        name: String,
        sizes: Vec<Vec<usize>>,
        paths: Vec<String>,
        stored: StoredForm,
        coords: Vec<Coordinate>,
    ) -> AggWriter {
        AggWriter {
            name,
            sizes,
            paths,
            stored,
            coords,
            open: Mutex::new((0, HashMap::new())),
        }
    }

    /// The grid index of fragment `frag` (row-major number).
    pub fn grid_index(&self, mut frag: usize) -> Vec<usize> {
        let mut idx = vec![0usize; self.sizes.len()];
        for d in (0..self.sizes.len()).rev() {
            let n = self.sizes[d].len().max(1);
            idx[d] = frag % n;
            frag /= n;
        }
        idx
    }

    /// The fragment datasets of `frags`, taken out of the open set (None:
    /// not open).
    fn take(&self, frags: &[usize]) -> NcResult<Vec<Option<Dataset>>> {
        let mut open = self.open.lock().map_err(|_| NcError::Internal)?;
        Ok(frags.iter().map(|f| open.1.remove(f).map(|(_, d)| d)).collect())
    }

    /// Put fragment datasets back; the least recently used beyond
    /// `OPEN_FRAGMENTS` are synced and closed.
    fn give_back(&self, back: Vec<(usize, Dataset)>) -> NcResult<()> {
        let evicted = {
            let mut open = self.open.lock().map_err(|_| NcError::Internal)?;
            open.0 += 1;
            let tick = open.0;
            for (f, d) in back {
                open.1.insert(f, (tick, d));
            }
            let mut evicted = Vec::new();
            while open.1.len() > OPEN_FRAGMENTS {
                let Some(&oldest) = open.1.iter().min_by_key(|(_, (t, _))| *t).map(|(f, _)| f) else {
                    break;
                };
                if let Some((_, d)) = open.1.remove(&oldest) {
                    evicted.push(d);
                }
            }
            evicted
        };
        for mut d in evicted {
            crate::api::sync_all(&mut d, Durability::Visible)?;
        }
        Ok(())
    }

    /// Open fragment `frag` for writing.
    fn open_fragment(&self, frag: usize) -> NcResult<Dataset> {
        let path = self.paths.get(frag).ok_or(NcError::Internal)?;
        crate::api::open_view(path, crate::api::NC_WRITE, &[]).inspect_err(|e| {
            crate::nclog!(crate::log::Level::Error, "aggregation fragment {path}: {e:?}");
        })
    }

    /// Run `job` on the fragment of every block (in parallel), keeping the
    /// datasets open afterwards; NC_ERANGE only when nothing else failed.
    fn on_fragments<R: Send>(
        &self,
        bl: Vec<Block>,
        job: impl Fn(&mut Dataset, &Block) -> NcResult<R> + Sync + Send,
    ) -> NcResult<Vec<(Block, R)>> {
        let frags: Vec<usize> = bl.iter().map(|b| b.frag).collect();
        let held = self.take(&frags)?;
        let results = pool::run_jobs(bl.into_iter().zip(held).collect(), |(b, held)| {
            let mut d = match held {
                Some(d) => d,
                None => match self.open_fragment(b.frag) {
                    Ok(d) => d,
                    Err(e) => return (b, None, Err(e)),
                },
            };
            let r = job(&mut d, &b);
            (b, Some(d), r)
        });
        let mut back = Vec::new();
        let mut out = Vec::new();
        let mut first_err: Option<NcError> = None;
        let mut range = false;
        for (b, d, r) in results {
            if let Some(d) = d {
                back.push((b.frag, d));
            }
            match r {
                Ok(v) => out.push((b, v)),
                Err(NcError::Range) => range = true,
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        self.give_back(back)?;
        if let Some(e) = first_err {
            return Err(e);
        }
        if range {
            return Err(NcError::Range);
        }
        Ok(out)
    }

    /// Sync every open fragment to `level`, and copy the master's
    /// coordinate values (`coords`, read by the caller) into every fragment.
    pub fn flush(&self, level: Durability, coords: &[(String, usize, Vec<u8>, NcType)]) -> NcResult<()> {
        if !coords.is_empty() {
            let all: Vec<Block> = (0..self.paths.len())
                .map(|frag| Block {
                    frag,
                    local: Vec::new(),
                    at: Vec::new(),
                    count: Vec::new(),
                })
                .collect();
            for chunk in all.chunks(OPEN_FRAGMENTS) {
                self.on_fragments(chunk.to_vec(), |d, b| {
                    let idx = self.grid_index(b.frag);
                    for (name, dim, values, ty) in coords {
                        let Some(vi) = d.groups[0].vars.iter().position(|v| &v.name == name) else {
                            continue;
                        };
                        let off: usize = self.sizes[*dim][..idx[*dim]].iter().sum();
                        let n = self.sizes[*dim][idx[*dim]];
                        let es = ty.size();
                        let Some(part) = values.get(off * es..(off + n) * es) else {
                            continue;
                        };
                        crate::engine::put_vars(d, 0, vi as i32, &[0], &[n], None, MemIn::Num { ty: *ty, data: part })?;
                    }
                    Ok(())
                })?;
            }
        }
        let mut open = self.open.lock().map_err(|_| NcError::Internal)?;
        for (_, d) in open.1.values_mut() {
            crate::api::sync_all(d, level)?;
        }
        Ok(())
    }

    fn var_of(&self, d: &Dataset) -> NcResult<i32> {
        d.groups[0]
            .vars
            .iter()
            .position(|v| v.name == self.name)
            .map(|i| i as i32)
            .ok_or_else(|| {
                crate::nclog!(
                    crate::log::Level::Error,
                    "aggregation fragment {}: no variable {}",
                    d.path,
                    self.name
                );
                NcError::NotVar
            })
    }
}

impl ExternalData for AggWriter {
    fn read(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, out: &mut [u8]) -> NcResult<()> {
        let es = mem.size();
        let bl = blocks(&self.sizes, start, count, stride);
        let strides: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        let got = self.on_fragments(bl, |d, b| {
            let vi = self.var_of(d)?;
            let n: usize = b.count.iter().product();
            let mut buf = vec![0u8; n * es];
            let st = &strides[..b.count.len()];
            crate::engine::get_vars(
                d,
                0,
                vi,
                &b.local,
                &b.count,
                Some(st),
                MemOut::Num {
                    ty: mem,
                    data: &mut buf,
                },
            )?;
            Ok(buf)
        })?;
        for (b, buf) in got {
            scatter(out, count, &b, &buf, es);
        }
        Ok(())
    }

    fn write(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, data: &[u8]) -> NcResult<()> {
        let es = mem.size();
        let bl = blocks(&self.sizes, start, count, stride);
        let strides: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        self.on_fragments(bl, |d, b| {
            let vi = self.var_of(d)?;
            let part = gather(data, count, b, es);
            let st = &strides[..b.count.len()];
            crate::engine::put_vars(
                d,
                0,
                vi,
                &b.local,
                &b.count,
                Some(st),
                MemIn::Num { ty: mem, data: &part },
            )
        })?;
        Ok(())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_is_cut_along_the_grid() {
        let sizes = vec![vec![2, 3], vec![4]];
        let b = blocks(&sizes, &[1, 1], &[3, 2], &[1, 1]);
        assert_eq!(
            b,
            vec![
                Block {
                    frag: 0,
                    local: vec![1, 1],
                    at: vec![0, 0],
                    count: vec![1, 2]
                },
                Block {
                    frag: 1,
                    local: vec![0, 1],
                    at: vec![1, 0],
                    count: vec![2, 2]
                },
            ]
        );
        // Strided: indices 0, 3 of 5 along fragments of 2 and 3.
        let b = blocks(&[vec![2, 3]], &[0], &[2], &[3]);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].frag, b[0].local[0], b[0].count[0]), (0, 0, 1));
        assert_eq!((b[1].frag, b[1].local[0], b[1].at[0], b[1].count[0]), (1, 1, 1, 1));
    }

    #[test]
    fn gather_and_scatter_are_inverse() {
        // A 3 x 4 array of bytes; the block rows 1..3, columns 1..3.
        let data: Vec<u8> = (0..12).collect();
        let b = Block {
            frag: 0,
            local: vec![0, 0],
            at: vec![1, 1],
            count: vec![2, 2],
        };
        let part = gather(&data, &[3, 4], &b, 1);
        assert_eq!(part, vec![5, 6, 9, 10]);
        let mut back = vec![0u8; 12];
        scatter(&mut back, &[3, 4], &b, &part, 1);
        assert_eq!(back, vec![0, 0, 0, 0, 0, 5, 6, 0, 0, 9, 10, 0]);
    }
}
