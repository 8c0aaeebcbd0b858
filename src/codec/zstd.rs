//! Zstandard: HDF5 filter 32015, numcodecs codec `zstd`.
//! JSON `{"id": "zstd", "level": 3}` (numcodecs may add `"checksum"`, which
//! needs nothing on reading: the frame says so). Levels -131072..=22, negative
//! ones included; parameters `[level as the bit pattern of an i32]`. Negative
//! levels are written as netcdf-c writes them (the unsigned bit pattern), and
//! read in both forms.

use super::json;
use super::zlib::UNBOUNDED;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::buffers;

#[derive(Debug)]
pub struct Zstd;

/// Run `f` with the decoding context this thread keeps for whole and ranged
/// decodes (made on first use); None when it is already in use.
fn with_dctx<R>(f: impl FnOnce(&mut zstd::zstd_safe::DCtx<'static>) -> R) -> Option<R> {
    thread_local! {
        static DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    DCTX.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        Some(f(slot.get_or_insert_with(zstd::zstd_safe::DCtx::create)))
    })
}

/// The level range netcdf-c's `nc_def_var_zstandard` accepts.
pub const MIN_LEVEL: i32 = -131072;
pub const MAX_LEVEL: i32 = 22;

fn level(cd: &[u32]) -> NcResult<i32> {
    match cd {
        [l] if (MIN_LEVEL..=MAX_LEVEL).contains(&(*l as i32)) => Ok(*l as i32),
        _ => {
            crate::nclog!(
                Level::Error,
                "zstd: parameters {cd:?}: expected one level in {MIN_LEVEL}..={MAX_LEVEL}"
            );
            Err(NcError::Filter)
        }
    }
}

fn bad(e: impl std::fmt::Display) -> NcError {
    crate::nclog!(Level::Error, "zstd: {e}");
    NcError::Filter
}

impl Hdf5Filter for Zstd {
    fn id(&self) -> u32 {
        32015
    }

    fn name(&self) -> &str {
        "zstd"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            return self.decode_bounded(cd_values, input, 0, UNBOUNDED);
        }
        let level = level(cd_values)?;
        // Into a recycled buffer (fresh memory costs a page fault per 4 KiB),
        // with a compression context each thread keeps.
        let bound = zstd::zstd_safe::compress_bound(input.len());
        let mut out = buffers::take(bound);
        out.reserve(bound);
        thread_local! {
            static CCTX: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
                const { std::cell::RefCell::new(None) };
        }
        CCTX.with(|c| {
            let mut c = c.try_borrow_mut().map_err(|_| NcError::Internal)?;
            if c.as_ref().is_none_or(|(l, _)| *l != level) {
                *c = Some((level, zstd::bulk::Compressor::new(level).map_err(bad)?));
            }
            let (_, comp) = c.as_mut().ok_or(NcError::Internal)?;
            comp.compress_to_buffer(&input, &mut out).map_err(bad)
        })?;
        buffers::give(input);
        Ok(out)
    }

    /// A frame decodes front to back: decode only up to the end of the range
    /// (on average half a chunk for a small read), through a streaming
    /// context each thread keeps. Anything unexpected (a window larger than
    /// the chunk, a frame that ends early, corrupt data) falls back to the
    /// whole decode, which reports it.
    fn decode_range(
        &self,
        _cd: &[u32],
        input: &[u8],
        chunk_len: usize,
        start: usize,
        out: &mut [u8],
    ) -> Option<NcResult<()>> {
        use zstd::zstd_safe::{DParameter, InBuffer, OutBuffer, ResetDirective};
        let end = start.checked_add(out.len())?;
        if end > chunk_len || end == 0 {
            return None;
        }
        // The decoder's window never needs to exceed the chunk.
        let window_log = (usize::BITS - (chunk_len - 1).leading_zeros()).clamp(10, 31);
        let mut prefix = buffers::take_len(end);
        let done = with_dctx(|dctx| {
            dctx.reset(ResetDirective::SessionAndParameters).ok()?;
            dctx.set_parameter(DParameter::WindowLogMax(window_log)).ok()?;
            let mut inb = InBuffer::around(input);
            let mut outb = OutBuffer::around(&mut prefix[..]);
            // Every call that returns makes progress on the input or the
            // output, so the loop is bounded by their sizes.
            for _ in 0..input.len().saturating_add(end).saturating_add(2) {
                let before = (inb.pos(), outb.pos());
                let hint = dctx.decompress_stream(&mut outb, &mut inb).ok()?;
                if outb.pos() == end {
                    return Some(());
                }
                if hint == 0 || (inb.pos(), outb.pos()) == before {
                    return None; // the frame ended before the range, or is stuck
                }
            }
            None
        })
        .flatten();
        let r = done.map(|()| {
            out.copy_from_slice(&prefix[start..end]);
            Ok(())
        });
        buffers::give(prefix);
        r
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        // The frame header usually holds the size: allocate exactly that.
        let cap = match zstd::zstd_safe::get_frame_content_size(&input) {
            Ok(Some(n)) if n <= limit as u64 => n as usize,
            Ok(Some(n)) => return Err(bad(format!("chunk decodes to {n} bytes, more than {limit}"))),
            _ => expect.max(1).min(limit),
        };
        let mut cap = cap;
        loop {
            // Into a recycled buffer: fresh memory costs a page fault per 4 KiB.
            let mut out = buffers::take_len(cap);
            // With the context this thread keeps: a fresh one per chunk is an
            // allocation of its tables and buffers each time. (Its parameters
            // from a ranged decode are reset: the whole decode takes none.)
            let r = with_dctx(|d| {
                d.reset(zstd::zstd_safe::ResetDirective::SessionAndParameters)?;
                d.decompress(&mut out[..], &input)
            })
            .unwrap_or_else(|| zstd::zstd_safe::decompress(&mut out[..], &input));
            match r {
                Ok(n) => {
                    out.truncate(n);
                    buffers::give(input);
                    return Ok(out);
                }
                // Unknown size and too small a guess: grow up to the limit.
                Err(_) if cap < limit && zstd::zstd_safe::get_frame_content_size(&input).ok().flatten().is_none() => {
                    cap = cap.saturating_mul(4).min(limit);
                }
                Err(e) => return Err(bad(zstd::zstd_safe::get_error_name(e))),
            }
        }
    }
}

impl CodecMap for Zstd {
    fn hdf5_id(&self) -> u32 {
        32015
    }

    fn codec_id(&self) -> &str {
        "zstd"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "zstd")?;
        let l = json::int_in(&m, "level", i64::from(MIN_LEVEL), u32::MAX as i64, Some(0))?;
        // netcdf-c writes the level as an unsigned number: read that back too.
        let l = if l > i64::from(i32::MAX) {
            l as u32 as i32
        } else {
            l as i32
        };
        Ok(vec![l as u32])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        // A negative level is written as netcdf-c writes it, as its unsigned
        // bit pattern: netcdf-c cannot open a dataset holding `"level": -5`,
        // and numcodecs needs no level to decode.
        Ok(format!("{{\"id\": \"zstd\", \"level\": {}}}", level(visible)? as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_corrupt() {
        let data: Vec<u8> = (0..40000u32).map(|i| (i % 13) as u8).collect();
        for l in [-5, -1, 0, 1, 3, 19, 22] {
            let e = Zstd.apply(false, &[l as u32], data.clone()).unwrap();
            assert_eq!(Zstd.apply(true, &[l as u32], e.clone()).unwrap(), data);
            assert!(Zstd.decode_bounded(&[0], e, 10, 1000).is_err());
        }
        assert!(Zstd.apply(false, &[23], data.clone()).is_err());
        assert!(Zstd.apply(true, &[1], vec![0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]).is_err());
        assert_eq!(
            Zstd.codec_to_hdf5(r#"{"id":"zstd","level":-3,"checksum":false}"#)
                .unwrap(),
            vec![-3i32 as u32]
        );
        assert_eq!(
            Zstd.codec_to_hdf5(r#"{"id":"zstd","level":4294967293}"#).unwrap(),
            vec![-3i32 as u32]
        );
        assert_eq!(
            Zstd.hdf5_to_codec(&[-3i32 as u32]).unwrap(),
            r#"{"id": "zstd", "level": 4294967293}"#
        );
    }
}
