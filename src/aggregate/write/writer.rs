//! The data source of a variable being written as an aggregation: while the
//! writing handle is open the variable is the N-d array, and a write or read
//! is cut along the fragment grid, each fragment's part done on its own
//! fragment dataset (several fragments in parallel on the worker pool). A
//! few fragment datasets stay open between calls; the others are synced and
//! closed.
#![forbid(unsafe_code)]

use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use super::Maker;
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

/// The master's table variables of one aggregation.
#[derive(Debug, Clone)]
pub struct Tables {
    pub grp: usize,
    pub map: i32,
    pub uris: i32,
    pub ids: i32,
    /// The characters a URI may have (the text tables' fixed width; None:
    /// variable-length strings).
    pub width: Option<usize>,
}

/// What the master's tables hold: the fragment sizes along each dimension
/// and every fragment's URI.
#[derive(Debug, Clone)]
pub struct TableRows {
    pub sizes: Vec<Vec<usize>>,
    pub uris: Vec<String>,
}

/// The fragment grid as it is now: it grows along unlimited dimensions.
#[derive(Debug)]
pub struct Grid {
    /// Fragment sizes along each dimension.
    pub sizes: Vec<Vec<usize>>,
    /// Each fragment's URI as the master records it, and where it is
    /// opened, in row-major order of the grid.
    pub uris: Vec<String>,
    pub paths: Vec<String>,
    /// Fragments (by grid index) that grew along an unlimited dimension
    /// since their dataset last had its length set.
    stale: BTreeSet<Vec<usize>>,
    /// The master's tables do not show the grid any more.
    pub tables_dirty: bool,
}

impl Grid {
    /// The grid index of fragment `frag` (row-major number).
    pub fn index(&self, frag: usize) -> Vec<usize> {
        super::grid_index(&self.sizes, frag)
    }

    /// The lengths of the fragment at grid index `idx`.
    fn lens(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().enumerate().map(|(d, &i)| self.sizes[d][i]).collect()
    }

    fn count(&self) -> usize {
        self.sizes.iter().map(Vec::len).product()
    }
}

/// One variable being written into fragments.
#[derive(Debug)]
pub struct AggWriter {
    /// The variable's name in every fragment.
    pub name: String,
    pub stored: StoredForm,
    pub coords: Vec<Coordinate>,
    pub tables: Tables,
    /// Names and makes new fragments.
    maker: Maker,
    /// The fragment extent along each unlimited dimension (None: a fixed
    /// dimension).
    extents: Vec<Option<usize>>,
    grid: Mutex<Grid>,
    open: Mutex<OpenFragments>,
}

/// Open fragment datasets by grid index, each with the call that last used
/// it, and the number of the last call.
type OpenFragments = (u64, HashMap<Vec<usize>, (u64, Dataset)>);

/// The part of one call that goes to one fragment.
struct Part {
    block: Block,
    idx: Vec<usize>,
    path: String,
    /// The fragment's lengths, when its dataset must first be made that long.
    ensure: Option<Vec<usize>>,
}

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
        stored: StoredForm,
        coords: Vec<Coordinate>,
        tables: Tables,
        maker: Maker,
        grid: Grid,
    ) -> AggWriter {
        AggWriter {
            name,
            stored,
            coords,
            tables,
            extents: maker.extents.clone(),
            maker,
            grid: Mutex::new(grid),
            open: Mutex::new((0, HashMap::new())),
        }
    }

    /// A grid of fragment `sizes` named by `maker`: every fragment's URI and
    /// path.
    pub fn grid_of(maker: &Maker, sizes: Vec<Vec<usize>>) -> Grid {
        let mut g = Grid {
            sizes,
            uris: Vec::new(),
            paths: Vec::new(),
            stale: BTreeSet::new(),
            tables_dirty: true,
        };
        g.uris = (0..g.count()).map(|f| maker.uri(&g.index(f))).collect();
        g.paths = g.uris.iter().map(|u| maker.path(u)).collect();
        g
    }

    fn grid(&self) -> NcResult<std::sync::MutexGuard<'_, Grid>> {
        self.grid.lock().map_err(|_| NcError::Internal)
    }

    /// The fragment sizes and URIs, when the master's tables must be
    /// rewritten (the grid grew since they were written); the caller writes
    /// them.
    pub fn tables_to_write(&self) -> NcResult<Option<TableRows>> {
        let mut g = self.grid()?;
        if !g.tables_dirty {
            return Ok(None);
        }
        g.tables_dirty = false;
        Ok(Some(TableRows {
            sizes: g.sizes.clone(),
            uris: g.uris.clone(),
        }))
    }

    /// The tables could not be written: try again at the next sync.
    pub fn tables_failed(&self) {
        if let Ok(mut g) = self.grid.lock() {
            g.tables_dirty = true;
        }
    }

    /// The fragments and directories this handle created.
    pub fn made(&self) -> super::Made {
        self.maker.made()
    }

    /// Close every open fragment without syncing it (nc_abort).
    pub fn drop_open(&self) {
        if let Ok(mut open) = self.open.lock() {
            open.1.clear();
        }
    }

    /// Grow the grid along its unlimited dimensions to cover `lens` values
    /// per dimension: the last fragment along such a dimension grows up to
    /// the extent, then new fragments follow, created at once with their
    /// metadata (and kept open). Fixed dimensions never change.
    pub fn extend(&self, lens: &[usize]) -> NcResult<()> {
        let mut g = self.grid()?;
        let sizes: Vec<Vec<usize>> = g
            .sizes
            .iter()
            .zip(&self.extents)
            .zip(lens)
            .map(|((s, ext), &n)| match ext {
                Some(e) if n > s.iter().sum::<usize>() => super::grid::sizes_along(n, *e),
                _ => s.clone(),
            })
            .collect();
        if sizes == g.sizes {
            return Ok(());
        }
        let count = sizes
            .iter()
            .try_fold(1usize, |a, s| a.checked_mul(s.len()))
            .filter(|&n| n <= crate::aggregate::parse::MAX_FRAGMENTS)
            .ok_or_else(|| super::invalid(&format!("{}: too many fragments", self.name)))?;
        let next = AggWriter::grid_of(&self.maker, sizes);
        if let Some(w) = self.tables.width
            && let Some(u) = next.uris.iter().find(|u| u.chars().count() > w)
        {
            return Err(super::invalid(&format!(
                "{}: fragment URI {u} is longer than the {w} characters of the table",
                self.name
            )));
        }
        let mut new = Vec::new();
        let mut stale = std::mem::take(&mut g.stale);
        for f in 0..count {
            let idx = next.index(f);
            let existed = idx.iter().enumerate().all(|(d, &i)| i < g.sizes[d].len());
            if !existed {
                new.push((idx, next.paths[f].clone()));
            } else if next.lens(&idx) != g.lens(&idx) {
                stale.insert(idx);
            }
        }
        let made = pool::run_jobs(new, |(idx, path)| {
            let lens = next.lens(&idx);
            self.maker.create(&path, &lens).map(|d| (idx, d))
        });
        let mut back = Vec::new();
        let mut first_err = None;
        for m in made {
            match m {
                Ok((idx, d)) => back.push((idx, d)),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        // What was made is kept, even when a fragment failed: a later
        // write will try to create the missing ones again.
        self.give_back(back)?;
        if let Some(e) = first_err {
            g.stale = stale;
            return Err(e);
        }
        *g = Grid {
            stale,
            tables_dirty: true,
            ..next
        };
        Ok(())
    }

    /// The fragment datasets of `keys`, taken out of the open set (None:
    /// not open).
    fn take(&self, keys: &[Vec<usize>]) -> NcResult<Vec<Option<Dataset>>> {
        let mut open = self.open.lock().map_err(|_| NcError::Internal)?;
        Ok(keys.iter().map(|k| open.1.remove(k).map(|(_, d)| d)).collect())
    }

    /// Put fragment datasets back; the least recently used beyond
    /// `OPEN_FRAGMENTS` are synced and closed.
    fn give_back(&self, back: Vec<(Vec<usize>, Dataset)>) -> NcResult<()> {
        let evicted = {
            let mut open = self.open.lock().map_err(|_| NcError::Internal)?;
            open.0 += 1;
            let tick = open.0;
            for (k, d) in back {
                open.1.insert(k, (tick, d));
            }
            let mut evicted = Vec::new();
            while open.1.len() > OPEN_FRAGMENTS {
                let Some(oldest) = open.1.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| k.clone()) else {
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

    /// Open the fragment at `path` for writing.
    fn open_fragment(path: &str) -> NcResult<Dataset> {
        crate::api::open_view(path, crate::api::NC_WRITE, &[]).inspect_err(|e| {
            crate::nclog!(crate::log::Level::Error, "aggregation fragment {path}: {e:?}");
        })
    }

    /// Make fragment dataset `d` as long as `lens` along the unlimited
    /// dimensions (it grew in the grid; what was not written reads as fill).
    fn ensure_lens(&self, d: &mut Dataset, lens: &[usize]) -> NcResult<()> {
        let mut grown = Vec::new();
        for (k, ext) in self.extents.iter().enumerate() {
            if ext.is_none() {
                continue;
            }
            let id = d.group_dim(0, &self.maker.dim_names[k]).ok_or(NcError::BadDim)?;
            if d.dims[id].len < lens[k] {
                d.dims[id].len = lens[k];
                grown.push(id);
            }
        }
        d.dims_grown(&grown);
        Ok(())
    }

    /// The parts of `bl` (blocks of grid `g`), with what each needs.
    fn parts(g: &Grid, bl: Vec<Block>) -> Vec<Part> {
        bl.into_iter()
            .map(|block| {
                let idx = g.index(block.frag);
                Part {
                    path: g.paths[block.frag].clone(),
                    ensure: g.stale.contains(&idx).then(|| g.lens(&idx)),
                    idx,
                    block,
                }
            })
            .collect()
    }

    /// Run `job` on the fragment of every part (in parallel), keeping the
    /// datasets open afterwards; NC_ERANGE only when nothing else failed.
    /// Fragments made as long as their grid says leave `g`'s stale set.
    fn on_fragments<R: Send>(
        &self,
        g: &mut Grid,
        parts: Vec<Part>,
        job: impl Fn(&mut Dataset, &Block) -> NcResult<R> + Sync + Send,
    ) -> NcResult<Vec<(Block, R)>> {
        let keys: Vec<Vec<usize>> = parts.iter().map(|p| p.idx.clone()).collect();
        let held = self.take(&keys)?;
        let results = pool::run_jobs(parts.into_iter().zip(held).collect(), |(p, held)| {
            let mut d = match held {
                Some(d) => d,
                None => match AggWriter::open_fragment(&p.path) {
                    Ok(d) => d,
                    Err(e) => return (p, None, Err(e)),
                },
            };
            let r = match &p.ensure {
                Some(lens) => self.ensure_lens(&mut d, lens),
                None => Ok(()),
            }
            .and_then(|()| job(&mut d, &p.block));
            (p, Some(d), r)
        });
        let mut back = Vec::new();
        let mut out = Vec::new();
        let mut first_err: Option<NcError> = None;
        let mut range = false;
        for (p, d, r) in results {
            if let Some(d) = d {
                if p.ensure.is_some() {
                    g.stale.remove(&p.idx);
                }
                back.push((p.idx, d));
            }
            match r {
                Ok(v) => out.push((p.block, v)),
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

    /// Grow the grid to `lens` (the master's variable shape), make every
    /// fragment as long as the grid says, copy the master's coordinate
    /// values (`coords`, read by the caller) into every fragment, and sync
    /// every open fragment to `level`.
    pub fn flush(
        &self,
        level: Durability,
        lens: &[usize],
        coords: &[(String, usize, Vec<u8>, NcType)],
    ) -> NcResult<()> {
        self.extend(lens)?;
        let mut g = self.grid()?;
        let every = |g: &Grid, only_stale: bool| -> Vec<Block> {
            (0..g.count())
                .filter(|&f| !only_stale || g.stale.contains(&g.index(f)))
                .map(|frag| Block {
                    frag,
                    local: Vec::new(),
                    at: Vec::new(),
                    count: Vec::new(),
                })
                .collect()
        };
        let all = every(&g, coords.is_empty());
        for chunk in all.chunks(OPEN_FRAGMENTS) {
            let parts = AggWriter::parts(&g, chunk.to_vec());
            let sizes = g.sizes.clone();
            self.on_fragments(&mut g, parts, |d, b| {
                let idx = super::grid_index(&sizes, b.frag);
                for (name, dim, values, ty) in coords {
                    let Some(vi) = d.groups[0].vars.iter().position(|v| &v.name == name) else {
                        continue;
                    };
                    let off: usize = sizes[*dim][..idx[*dim]].iter().sum();
                    let n = sizes[*dim][idx[*dim]];
                    let es = ty.size();
                    let Some(part) = values.get(off * es..(off + n) * es) else {
                        continue;
                    };
                    crate::engine::put_vars(d, 0, vi as i32, &[0], &[n], None, MemIn::Num { ty: *ty, data: part })?;
                }
                Ok(())
            })?;
        }
        drop(g);
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

/// The end of a selection along each dimension (one past the last index).
fn ends(start: &[usize], count: &[usize], stride: &[usize]) -> Vec<usize> {
    (0..start.len())
        .map(|d| match count[d] {
            0 => start[d],
            n => start[d] + (n - 1) * stride.get(d).copied().unwrap_or(1) + 1,
        })
        .collect()
}

impl ExternalData for AggWriter {
    fn read(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, out: &mut [u8]) -> NcResult<()> {
        // The variable may be longer than the grid (another variable grew
        // an unlimited dimension): the grid follows, its new parts fill.
        self.extend(&ends(start, count, stride))?;
        let es = mem.size();
        let mut g = self.grid()?;
        let parts = AggWriter::parts(&g, blocks(&g.sizes, start, count, stride));
        let strides: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        let got = self.on_fragments(&mut g, parts, |d, b| {
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
        self.extend(&ends(start, count, stride))?;
        let es = mem.size();
        let mut g = self.grid()?;
        let parts = AggWriter::parts(&g, blocks(&g.sizes, start, count, stride));
        let strides: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        self.on_fragments(&mut g, parts, |d, b| {
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
