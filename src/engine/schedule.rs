//! Scheduling: how many chunks go to the worker pool at once, how a read
//! batch's chunks are grouped into jobs over disjoint blocks of caller
//! memory, and the order in which fetched chunks are decoded. Nothing here
//! knows how a chunk is fetched or decoded: the jobs are given.
#![forbid(unsafe_code)]

use std::sync::Mutex;

use super::select::{ChunkSel, Run, Selection};
use super::source::{Fetched, Prefetched};
use crate::error::{NcError, NcResult};
use crate::runtime::pool::run_jobs;

/// How many bytes of decoded chunks one batch of parallel reads or writes
/// may hold (memory stays near the caller's buffer plus this)...
const BATCH_BYTES: usize = 32 << 20;
/// ... or this, on stores where many requests in flight pay (S3).
const BATCH_BYTES_CONCURRENT: usize = 48 << 20;

/// Chunks per batch: bounded in bytes, but enough to keep every one of the
/// pool's `threads` busy.
pub(super) fn chunks_per_batch(concurrent: bool, chunk_bytes: usize, threads: usize) -> usize {
    let bytes = if concurrent {
        BATCH_BYTES_CONCURRENT
    } else {
        BATCH_BYTES
    };
    (bytes / chunk_bytes.max(1)).max(2 * threads).max(1)
}

/// How a read goes through its chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ReadPlan {
    /// The read is larger than the cache: its chunks would only push each
    /// other out, so they are not kept.
    pub streaming: bool,
    /// Streaming from a store that overlaps requests (S3): the next batch's
    /// fetches start before this batch is decoded, so the requests in
    /// flight never drain between batches.
    pub lookahead: bool,
    /// Chunks per batch.
    pub per_batch: usize,
}

impl ReadPlan {
    /// The plan for a read of `chunks` chunks of `chunk_bytes` each through
    /// a cache of `cache_size` bytes, on `threads` workers.
    pub fn new(chunks: usize, chunk_bytes: usize, cache_size: usize, concurrent: bool, threads: usize) -> ReadPlan {
        let streaming = chunks.saturating_mul(chunk_bytes) > cache_size;
        let lookahead = streaming && concurrent;
        let per_batch = if streaming && !concurrent {
            // Read as decoded and kept nowhere: a job holds only the chunk it
            // decodes, so the whole read is one batch and the workers never
            // wait for each other between batches.
            chunks.max(1)
        } else if lookahead {
            // Half as big, so as much fetched data waits in memory as without.
            (chunks_per_batch(concurrent, chunk_bytes, threads) / 2).max(1)
        } else {
            // Bounded batches: fetched chunks wait in memory for their decode
            // (S3), and chunks kept for the cache enter it batch by batch (so
            // what they evict leaves as they come).
            chunks_per_batch(concurrent, chunk_bytes, threads)
        };
        ReadPlan {
            streaming,
            lookahead,
            per_batch,
        }
    }
}

/// A read's chunks cut into batches of about `per_batch`: where chunks
/// share stored objects (`object_of` gives each chunk's, None when it has
/// one of its own), a batch that would end inside an object is carried on
/// to the object's end when that is at most half a batch further (memory
/// stays within 1.5 batches), so that the object's part is fetched in one
/// request and not split between two batches.
pub(super) fn read_batches<K: PartialEq>(
    work: &[ChunkSel],
    per_batch: usize,
    object_of: impl Fn(&ChunkSel) -> Option<K>,
) -> Vec<&[ChunkSel]> {
    let per_batch = per_batch.max(1);
    let mut out = Vec::with_capacity(work.len().div_ceil(per_batch));
    let mut rest = work;
    while !rest.is_empty() {
        let mut end = per_batch.min(rest.len());
        if end < rest.len()
            && let Some(obj) = object_of(&rest[end - 1])
        {
            let reach = per_batch / 2;
            let run = rest[end..]
                .iter()
                .take(reach + 1)
                .take_while(|c| object_of(c).as_ref() == Some(&obj))
                .count();
            if run <= reach {
                end += run;
            }
        }
        let (batch, tail) = rest.split_at(end);
        out.push(batch);
        rest = tail;
    }
    out
}

/// Chunks per batch of a write's whole chunks: each job holds only its own
/// chunk, so without batched writes they all go to the pool together (no
/// wait between batches); with them (S3, shards), in bounded batches of
/// whole objects (`per_object` chunks each: a shard is then written once).
pub(super) fn whole_chunk_batch(whole: usize, batched: bool, per_batch: usize, per_object: usize) -> usize {
    if batched {
        per_batch.div_ceil(per_object.max(1)).max(1) * per_object.max(1)
    } else {
        whole.max(1)
    }
}

/// A block of caller memory: the output element it starts at and its items.
#[derive(Debug)]
pub(super) struct Block<'a, T> {
    pub first: usize,
    pub items: &'a mut [T],
}

/// The chunks of a read batch that one job handles: consecutive chunks that
/// differ only in their last coordinate. Together they fill whole rows of
/// the selection, so the caller memory they write is a set of contiguous
/// blocks (`Selection::row_blocks`), disjoint from every other group's.
/// Splitting the caller's buffer into blocks rather than into runs keeps
/// that serial step small; each job then cuts its own blocks into runs.
#[derive(Debug)]
pub(super) struct ReadGroup<'a> {
    pub chunks: &'a [ChunkSel],
    /// (first output element, elements) of each block, in output order.
    pub blocks: Vec<(usize, usize)>,
}

/// Group a batch's chunks (see `ReadGroup`). A 1-D selection groups each
/// chunk alone: its run is its block.
pub(super) fn read_groups<'a>(sel: &Selection, batch: &'a [ChunkSel]) -> Vec<ReadGroup<'a>> {
    let n = sel.count.len();
    let mut groups = Vec::new();
    let mut i = 0;
    while i < batch.len() {
        let lead = &batch[i].segs[..n - 1];
        let mut j = i + 1;
        if n > 1 {
            while j < batch.len() && batch[j].segs[..n - 1].iter().zip(lead).all(|(a, b)| a.c == b.c) {
                j += 1;
            }
        }
        groups.push(ReadGroup {
            chunks: &batch[i..j],
            blocks: sel.row_blocks(&batch[i].segs),
        });
        i = j;
    }
    groups
}

/// Split `buf` into the blocks of every group, `unit` items per element; the
/// blocks come back grouped as `groups` is. Overlapping blocks are an
/// internal error.
pub(super) fn split_blocks<'a, T>(
    buf: &'a mut [T],
    unit: usize,
    groups: &[ReadGroup<'_>],
) -> NcResult<Vec<Vec<Block<'a, T>>>> {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        for (bi, b) in g.blocks.iter().enumerate() {
            order.push((b.0, gi, bi));
        }
    }
    order.sort_unstable();
    let mut pieces: Vec<Vec<Option<Block<'a, T>>>> =
        groups.iter().map(|g| g.blocks.iter().map(|_| None).collect()).collect();
    let mut rest: &'a mut [T] = buf;
    let mut pos = 0usize;
    for (o, gi, bi) in order {
        let len = groups[gi].blocks[bi].1;
        let skip = o.checked_sub(pos).ok_or(NcError::Internal)? * unit;
        if skip + len * unit > rest.len() {
            return Err(NcError::Internal);
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(len * unit);
        pieces[gi][bi] = Some(Block { first: o, items: piece });
        rest = tail;
        pos = o + len;
    }
    pieces
        .into_iter()
        .map(|v| v.into_iter().map(|p| p.ok_or(NcError::Internal)).collect())
        .collect()
}

/// Cut one chunk's runs (in output order) out of its group's blocks.
pub(super) fn carve_runs<'b, T>(
    blocks: &'b mut [Block<'_, T>],
    unit: usize,
    runs: &[Run],
) -> NcResult<Vec<&'b mut [T]>> {
    let mut cut = Carver::new(blocks, unit);
    runs.iter().map(|r| cut.next(r)).collect()
}

/// Cut the runs of several chunks of one group out of its blocks at once
/// (their runs interleave in output order: a row of the selection crosses
/// them all); each chunk's pieces in the order of its runs.
pub(super) fn carve_group<'b, T>(
    blocks: &'b mut [Block<'_, T>],
    unit: usize,
    runs: &[Vec<Run>],
) -> NcResult<Vec<Vec<&'b mut [T]>>> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut cut = Carver::new(blocks, unit);
    let mut out: Vec<Vec<&'b mut [T]>> = runs.iter().map(|r| Vec::with_capacity(r.len())).collect();
    // The next run of every chunk, the one first in output order on top.
    let mut heads: BinaryHeap<Reverse<(usize, usize, usize)>> = runs
        .iter()
        .enumerate()
        .filter_map(|(k, r)| r.first().map(|f| Reverse((f.out, k, 0))))
        .collect();
    while let Some(Reverse((_, k, i))) = heads.pop() {
        out[k].push(cut.next(&runs[k][i])?);
        if let Some(r) = runs[k].get(i + 1) {
            heads.push(Reverse((r.out, k, i + 1)));
        }
    }
    Ok(out)
}

/// Cuts runs, in output order, out of a group's blocks.
struct Carver<'b, 'a, T> {
    blocks: std::slice::IterMut<'b, Block<'a, T>>,
    unit: usize,
    /// The current block: the output element its unread tail starts at,
    /// the one it ends before, and that tail.
    cur: Option<(usize, usize, &'b mut [T])>,
}

impl<'b, 'a, T> Carver<'b, 'a, T> {
    fn new(blocks: &'b mut [Block<'a, T>], unit: usize) -> Self {
        Carver {
            blocks: blocks.iter_mut(),
            unit,
            cur: None,
        }
    }

    /// The piece of run `r`, which comes after every run cut before.
    fn next(&mut self, r: &Run) -> NcResult<&'b mut [T]> {
        loop {
            match &self.cur {
                Some((pos, end, _)) if r.out >= *pos && r.out + r.len <= *end => break,
                Some((pos, _, _)) if r.out < *pos => return Err(NcError::Internal),
                _ => {
                    let b = self.blocks.next().ok_or(NcError::Internal)?;
                    let len = b.items.len() / self.unit.max(1);
                    self.cur = Some((b.first, b.first + len, &mut *b.items));
                }
            }
        }
        let (pos, end, rest) = self.cur.take().ok_or(NcError::Internal)?;
        let skip = (r.out - pos) * self.unit;
        let (_, tail) = rest.split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(r.len * self.unit);
        self.cur = Some((r.out + r.len, end, tail));
        Ok(piece)
    }
}

/// Run `job` over every chunk of the groups, one pool job per group (its
/// chunks in turn, over its blocks); the results in batch order.
pub(super) fn by_group<B: Send, R: Send>(
    groups: &[ReadGroup<'_>],
    blocks: Vec<B>,
    job: impl Fn(&ChunkSel, &mut B) -> R + Sync + Send,
) -> Vec<R> {
    by_group_jobs(groups, blocks, |chunks, bl| chunks.iter().map(|c| job(c, bl)).collect())
}

/// Run `job` over each group's chunks (all of them, over its blocks; a
/// result per chunk), one pool job per group; the results in batch order.
pub(super) fn by_group_jobs<B: Send, R: Send>(
    groups: &[ReadGroup<'_>],
    blocks: Vec<B>,
    job: impl Fn(&[ChunkSel], &mut B) -> Vec<R> + Sync + Send,
) -> Vec<R> {
    let group_job = |(g, mut bl): (&ReadGroup<'_>, B)| -> Vec<R> { job(g.chunks, &mut bl) };
    run_jobs(groups.iter().zip(blocks).collect(), group_job)
        .into_iter()
        .flatten()
        .collect()
}

/// Run a job per chunk of the groups where chunks were fetched ahead: each
/// fetched chunk is decoded in the order they arrive, by whichever worker
/// is free (rather than each job waiting for its own chunks while others
/// have come), so the workers idle only when nothing has arrived.
/// `arrived` gets the chunk, what was fetched and its group's blocks behind
/// a lock (decode outside it, copy into place under it); `other` handles a
/// chunk that was not fetched ahead (a cached one). The results come back
/// in batch order.
pub(super) fn by_arrival<B: Send, R: Send>(
    groups: &[ReadGroup<'_>],
    blocks: Vec<B>,
    prefetched: &Prefetched,
    other: impl Fn(&ChunkSel, &mut B) -> NcResult<R> + Sync + Send,
    arrived: impl Fn(&ChunkSel, Fetched, &Mutex<B>) -> NcResult<R> + Sync + Send,
) -> NcResult<Vec<NcResult<R>>> {
    // Every chunk with its group, in batch order.
    let owner: Vec<(usize, &ChunkSel)> = groups
        .iter()
        .enumerate()
        .flat_map(|(gi, g)| g.chunks.iter().map(move |c| (gi, c)))
        .collect();
    // Which chunk each fetch slot belongs to, and the chunks not fetched.
    let mut by_slot = vec![usize::MAX; prefetched.len()];
    let mut others = Vec::new();
    for (p, (_, c)) in owner.iter().enumerate() {
        match prefetched.slot(&c.idx) {
            Some(i) => *by_slot.get_mut(i).ok_or(NcError::Internal)? = p,
            None => others.push(p),
        }
    }
    let locks: Vec<Mutex<B>> = blocks.into_iter().map(Mutex::new).collect();
    let lock = |gi: usize| locks[gi].lock().unwrap_or_else(|p| p.into_inner());
    let job = |k: usize| -> (usize, NcResult<R>) {
        if let Some(&p) = others.get(k) {
            let (gi, c) = owner[p];
            return (p, other(c, &mut lock(gi)));
        }
        let Some((i, fetched)) = prefetched.take_any() else {
            return (usize::MAX, Err(NcError::Internal));
        };
        let Some(&p) = by_slot.get(i).filter(|&&p| p < owner.len()) else {
            return (usize::MAX, Err(NcError::Internal));
        };
        let (gi, c) = owner[p];
        (p, arrived(c, fetched, &locks[gi]))
    };
    let done = run_jobs((0..owner.len()).collect(), job);
    // Back in batch order.
    let mut ordered: Vec<Option<NcResult<R>>> = owner.iter().map(|_| None).collect();
    for (p, r) in done {
        match ordered.get_mut(p) {
            Some(slot) => *slot = Some(r),
            None => return Err(r.err().unwrap_or(NcError::Internal)),
        }
    }
    Ok(ordered
        .into_iter()
        .map(|r| r.unwrap_or(Err(NcError::Internal)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::select::Extent;
    use super::*;

    fn sel(dims: &[usize], chunk: &[usize], start: &[usize], count: &[usize]) -> Selection {
        let ext: Vec<Extent> = dims.iter().map(|&len| Extent { len, unlimited: false }).collect();
        Selection::over(&ext, chunk, start, count, None, false).unwrap()
    }

    #[test]
    fn read_batches_keep_an_object_together_when_it_is_near() {
        let work: Vec<ChunkSel> = (0..20u64)
            .map(|i| ChunkSel {
                idx: vec![i],
                segs: Vec::new(),
            })
            .collect();
        let lens = |b: Vec<&[ChunkSel]>| b.iter().map(|b| b.len()).collect::<Vec<_>>();
        // Chunks of their own: plain cuts.
        assert_eq!(lens(read_batches(&work, 6, |_| None::<u64>)), vec![6, 6, 6, 2]);
        // Objects of 8 chunks: each batch carried on to its object's end.
        assert_eq!(lens(read_batches(&work, 6, |c| Some(c.idx[0] / 8))), vec![8, 8, 4]);
        // An object that does not end within half a batch is cut (the
        // last batches here end near the end of the object 16..20, 10..20).
        assert_eq!(lens(read_batches(&work, 6, |c| Some(c.idx[0] / 16))), vec![6, 6, 8]);
        assert_eq!(lens(read_batches(&work, 6, |c| Some(c.idx[0] / 10))), vec![6, 6, 8]);
        assert_eq!(
            lens(read_batches(&work, 4, |c| Some(c.idx[0] / 16))),
            vec![4, 4, 4, 4, 4]
        );
        assert_eq!(lens(read_batches(&work, 6, |c| Some(c.idx[0] / 9))), vec![9, 9, 2]);
        // A cut that already falls on an object's end stays.
        assert_eq!(lens(read_batches(&work, 5, |c| Some(c.idx[0] / 5))), vec![5, 5, 5, 5]);
        assert_eq!(lens(read_batches(&work[..0], 5, |_| None::<u64>)), Vec::<usize>::new());
    }

    #[test]
    fn batches_are_bounded_but_feed_every_worker() {
        assert_eq!(chunks_per_batch(false, 1 << 20, 2), 32);
        assert_eq!(chunks_per_batch(true, 1 << 20, 2), 48);
        assert_eq!(chunks_per_batch(false, 64 << 20, 4), 8);
        assert_eq!(chunks_per_batch(false, 0, 1), 32 << 20);
    }

    #[test]
    fn read_plans() {
        let mib = 1 << 20;
        // Fits the cache: bounded batches, kept.
        let p = ReadPlan::new(10, mib, 64 * mib, false, 2);
        assert_eq!((p.streaming, p.lookahead, p.per_batch), (false, false, 32));
        // Larger than the cache: one batch on files, half batches ahead on S3.
        let p = ReadPlan::new(100, mib, 64 * mib, false, 2);
        assert_eq!((p.streaming, p.lookahead, p.per_batch), (true, false, 100));
        let p = ReadPlan::new(100, mib, 64 * mib, true, 2);
        assert_eq!((p.streaming, p.lookahead, p.per_batch), (true, true, 24));
        let p = ReadPlan::new(0, mib, 0, false, 2);
        assert_eq!((p.streaming, p.per_batch), (false, 32));
        assert_eq!(whole_chunk_batch(0, false, 7, 1), 1);
        assert_eq!(whole_chunk_batch(100, false, 7, 1), 100);
        assert_eq!(whole_chunk_batch(100, true, 7, 1), 7);
        assert_eq!(whole_chunk_batch(100, true, 7, 16), 16, "whole shards");
        assert_eq!(whole_chunk_batch(100, true, 20, 16), 32);
        assert_eq!(whole_chunk_batch(100, true, 16, 16), 16);
    }

    #[test]
    fn groups_are_rows_of_chunks_with_disjoint_blocks() {
        let s = sel(&[8, 8], &[4, 4], &[1, 1], &[6, 6]);
        let batch = s.chunks();
        let groups = read_groups(&s, &batch);
        assert_eq!(groups.len(), 2);
        assert_eq!(
            groups[0].chunks.iter().map(|c| c.idx.clone()).collect::<Vec<_>>(),
            vec![vec![0, 0], vec![0, 1]]
        );
        assert_eq!(groups[0].blocks, vec![(0, 18)]);
        assert_eq!(groups[1].blocks, vec![(18, 18)]);
        let mut buf: Vec<u32> = vec![0; 36];
        let mut blocks = split_blocks(&mut buf, 1, &groups).unwrap();
        // Each chunk's runs come out of its group's blocks, and together the
        // chunks of both groups write every element once.
        for (g, bl) in groups.iter().zip(blocks.iter_mut()) {
            for c in g.chunks {
                let runs = s.runs(&c.segs);
                for (r, piece) in runs.iter().zip(carve_runs(bl, 1, &runs).unwrap()) {
                    assert_eq!(piece.len(), r.len);
                    piece
                        .iter_mut()
                        .enumerate()
                        .for_each(|(k, x)| *x += (r.out + k) as u32 + 1);
                }
            }
        }
        drop(blocks);
        assert_eq!(buf, (1..=36).collect::<Vec<u32>>());
        // A batch cut inside a row makes two groups of the same row.
        let groups = read_groups(&s, &batch[1..3]);
        assert_eq!(groups.len(), 2);
    }

    #[test]
    fn a_group_carved_at_once_equals_its_chunks_carved_in_turn() {
        let s = sel(&[6, 12], &[3, 4], &[1, 1], &[5, 10]);
        let batch = s.chunks();
        let groups = read_groups(&s, &batch);
        assert_eq!(groups[0].chunks.len(), 3);
        let runs: Vec<Vec<Run>> = groups[0].chunks.iter().map(|c| s.runs(&c.segs)).collect();
        // Each element's output position, written through the pieces.
        let mut buf: Vec<usize> = vec![usize::MAX; 50];
        let mut blocks = split_blocks(&mut buf, 1, &groups).unwrap();
        let pieces = carve_group(&mut blocks[0], 1, &runs).unwrap();
        for (chunk_runs, chunk_pieces) in runs.iter().zip(pieces) {
            assert_eq!(chunk_runs.len(), chunk_pieces.len());
            for (r, p) in chunk_runs.iter().zip(chunk_pieces) {
                assert_eq!(p.len(), r.len);
                p.iter_mut().enumerate().for_each(|(k, x)| *x = r.out + k);
            }
        }
        drop(blocks);
        let first_rows = groups[0].blocks.iter().map(|b| b.1).sum::<usize>();
        assert_eq!(buf[..first_rows], (0..first_rows).collect::<Vec<_>>()[..]);
        // Runs out of order: an internal error.
        let mut blocks = split_blocks(&mut buf, 1, &groups).unwrap();
        let mut bad = runs.clone();
        bad[1].reverse();
        assert_eq!(carve_group(&mut blocks[0], 1, &bad).err(), Some(NcError::Internal));
    }

    #[test]
    fn blocks_and_runs_out_of_place_are_internal_errors() {
        let s = sel(&[8], &[4], &[0], &[8]);
        let batch = s.chunks();
        let groups = read_groups(&s, &batch);
        let mut small = [0u8; 6];
        assert_eq!(split_blocks(&mut small, 1, &groups).err(), Some(NcError::Internal));
        let mut buf = [0u8; 8];
        let mut blocks = split_blocks(&mut buf, 1, &groups).unwrap();
        let wrong = [Run {
            out: 0,
            chunk: 0,
            len: 4,
            step: 1,
        }];
        assert_eq!(carve_runs(&mut blocks[1], 1, &wrong).err(), Some(NcError::Internal));
        let past = [Run {
            out: 4,
            chunk: 0,
            len: 5,
            step: 1,
        }];
        assert_eq!(carve_runs(&mut blocks[1], 1, &past).err(), Some(NcError::Internal));
    }

    #[test]
    fn jobs_by_group_keep_batch_order() {
        let s = sel(&[6, 6], &[2, 2], &[0, 0], &[6, 6]);
        let batch = s.chunks();
        let groups = read_groups(&s, &batch);
        let blocks: Vec<usize> = (0..groups.len()).collect();
        let r = by_group(&groups, blocks, |c, g: &mut usize| (c.idx.clone(), *g));
        let want: Vec<(Vec<u64>, usize)> = batch.iter().map(|c| (c.idx.clone(), c.idx[0] as usize)).collect();
        assert_eq!(r, want);
    }

    #[test]
    fn jobs_by_arrival_take_every_fetched_chunk_once() {
        use super::super::source::ChunkSource;
        #[derive(Debug)]
        struct Numbers;
        impl ChunkSource for Numbers {
            fn fmt_name(&self, idx: &[u64], f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{idx:?}")
            }
            fn concurrent_requests(&self) -> bool {
                true
            }
            fn get_into(&self, idx: &[u64], _: u64, buf: &mut Vec<u8>) -> NcResult<bool> {
                *buf = vec![idx[0] as u8, idx[1] as u8];
                Ok(idx != [1, 1])
            }
            fn put(&self, _: &[u64], _: &[u8]) -> NcResult<()> {
                Err(NcError::Perm)
            }
        }
        let s = sel(&[6, 6], &[2, 2], &[0, 0], &[6, 6]);
        let batch = s.chunks();
        let groups = read_groups(&s, &batch);
        // Chunk (0, 0) is "cached": not fetched.
        let idxs: Vec<&Vec<u64>> = batch.iter().map(|c| &c.idx).filter(|i| *i != &[0, 0]).collect();
        let pre = Prefetched::start(&Numbers, idxs, 100).unwrap();
        let blocks: Vec<Vec<u64>> = groups.iter().map(|_| Vec::new()).collect();
        let r = by_arrival(
            &groups,
            blocks,
            &pre,
            |c, seen: &mut Vec<u64>| {
                seen.push(c.idx[1]);
                Ok(None)
            },
            |c, fetched, seen| {
                seen.lock().unwrap().push(c.idx[1]);
                fetched
            },
        )
        .unwrap();
        let got: Vec<Option<Vec<u8>>> = r.into_iter().map(|x| x.unwrap()).collect();
        let want: Vec<Option<Vec<u8>>> = batch
            .iter()
            .map(|c| match c.idx[..] {
                [0, 0] | [1, 1] => None,
                [a, b] => Some(vec![a as u8, b as u8]),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, want);
        assert!(pre.take_any().is_none(), "every fetched chunk was taken");
    }
}
