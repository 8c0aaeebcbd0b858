//! Values between a decoded chunk and caller memory, run by run, converted
//! between the file type and the memory type.
#![forbid(unsafe_code)]

use super::MemIn;
use super::select::{Run, Seg, Selection};
use crate::error::{NcError, NcResult};
use crate::model::cache::ChunkData;
use crate::model::convert;
use crate::model::types::NcType;

/// Convert a chunk's selected values (file type `ft`) into their pieces of
/// caller memory (memory type `mt`), one piece per run. Returns whether
/// some value was out of range for the memory type (the others are
/// converted all the same, as netcdf-c does).
pub(super) fn runs_out(
    data: &ChunkData,
    ft: NcType,
    mt: NcType,
    runs: &[Run],
    out: &mut [&mut [u8]],
) -> NcResult<bool> {
    let ChunkData::Bytes(b) = data else {
        return Err(NcError::BadType);
    };
    let fs = ft.size();
    let mut range = false;
    let mut scratch = Vec::new();
    for (r, dst) in runs.iter().zip(out.iter_mut()) {
        let res = if r.step == 1 {
            convert::convert(ft, &b[r.chunk * fs..(r.chunk + r.len) * fs], mt, dst)
        } else {
            scratch.clear();
            for k in 0..r.len {
                let p = (r.chunk + k * r.step) * fs;
                scratch.extend_from_slice(&b[p..p + fs]);
            }
            convert::convert(ft, &scratch, mt, dst)
        };
        match res {
            Ok(()) => {}
            Err(NcError::Range) => range = true,
            Err(e) => return Err(e),
        }
    }
    Ok(range)
}

/// Copy a chunk's selected strings into their pieces of caller memory.
pub(super) fn string_runs_out(data: &ChunkData, runs: &[Run], out: &mut [&mut [Option<Vec<u8>>]]) -> NcResult<()> {
    let ChunkData::Strings(s) = data else {
        return Err(NcError::BadType);
    };
    for (r, dst) in runs.iter().zip(out.iter_mut()) {
        for (k, slot) in dst.iter_mut().enumerate() {
            *slot = s[r.chunk + k * r.step].clone();
        }
    }
    Ok(())
}

/// Copy one run of caller values into a chunk (file type `ft`).
fn run_in(src: &MemIn<'_>, chunk: &mut ChunkData, ft: NcType, r: Run, scratch: &mut Vec<u8>) -> NcResult<()> {
    let Run {
        out: o,
        chunk: c,
        len,
        step,
    } = r;
    match (src, chunk) {
        (MemIn::Num { ty, data }, ChunkData::Bytes(b)) => {
            let fs = ft.size();
            let ms = ty.size();
            let s = &data[o * ms..(o + len) * ms];
            if step == 1 {
                convert::convert(*ty, s, ft, &mut b[c * fs..(c + len) * fs])
            } else {
                scratch.clear();
                scratch.resize(len * fs, 0);
                let r = convert::convert(*ty, s, ft, scratch);
                for k in 0..len {
                    let p = (c + k * step) * fs;
                    b[p..p + fs].copy_from_slice(&scratch[k * fs..(k + 1) * fs]);
                }
                r
            }
        }
        (MemIn::Str(s), ChunkData::Strings(dst)) => {
            for k in 0..len {
                dst[c + k * step] = s[o + k].clone();
            }
            Ok(())
        }
        _ => Err(NcError::BadType),
    }
}

/// Copy (converting) the caller's values of one chunk's segments into it.
/// Values out of range for the file type are stored anyway, as netcdf-c does;
/// returns whether there were any.
pub(super) fn chunk_in(
    sel: &Selection,
    segs: &[Seg],
    src: &MemIn<'_>,
    ft: NcType,
    data: &mut ChunkData,
) -> NcResult<bool> {
    let mut scratch = Vec::new();
    let mut range = false;
    sel.for_each_run(segs, |run| match run_in(src, data, ft, run, &mut scratch) {
        Err(NcError::Range) => {
            range = true;
            Ok(())
        }
        r => r,
    })?;
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::super::select::Extent;
    use super::*;

    fn bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|&x| f(x)).collect()
    }

    #[test]
    fn runs_out_convert_and_flag_range() {
        let chunk = ChunkData::Bytes(bytes(&[1i32, 300, -2, 7, 9, 11], i32::to_ne_bytes));
        let runs = [
            Run {
                out: 0,
                chunk: 0,
                len: 2,
                step: 1,
            },
            Run {
                out: 2,
                chunk: 2,
                len: 2,
                step: 2,
            },
        ];
        let (mut a, mut b) = ([0u8; 2], [0u8; 2]);
        let mut out: Vec<&mut [u8]> = vec![&mut a, &mut b];
        // 300 is out of range for a signed byte; the rest converts.
        assert_eq!(runs_out(&chunk, NcType::Int, NcType::Byte, &runs, &mut out), Ok(true));
        assert_eq!((a[0] as i8, b), (1, [(-2i8) as u8, 9]));
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        let mut out: Vec<&mut [u8]> = vec![&mut a, &mut b];
        assert_eq!(
            runs_out(&chunk, NcType::Int, NcType::Double, &runs, &mut out),
            Ok(false)
        );
        let strings = ChunkData::Strings(vec![None]);
        assert_eq!(
            runs_out(&strings, NcType::Int, NcType::Int, &runs[..1], &mut out),
            Err(NcError::BadType)
        );
        assert_eq!(b, &bytes(&[-2f64, 9.0], f64::to_ne_bytes)[..]);
    }

    #[test]
    fn strings_out() {
        let chunk = ChunkData::Strings(vec![Some(b"a".to_vec()), None, Some(b"c".to_vec())]);
        let mut dst = vec![Some(b"old".to_vec()); 2];
        let mut out: Vec<&mut [Option<Vec<u8>>]> = vec![&mut dst];
        string_runs_out(
            &chunk,
            &[Run {
                out: 0,
                chunk: 0,
                len: 2,
                step: 2,
            }],
            &mut out,
        )
        .unwrap();
        assert_eq!(dst, vec![Some(b"a".to_vec()), Some(b"c".to_vec())]);
    }

    #[test]
    fn values_in_through_a_selection() {
        // Columns 1 and 3 of row 1 of a 2x4 chunk, from doubles into shorts.
        let ext = [
            Extent {
                len: 2,
                unlimited: false,
            },
            Extent {
                len: 4,
                unlimited: false,
            },
        ];
        let sel = Selection::over(&ext, &[2, 4], &[1, 1], &[1, 2], Some(&[1, 2]), true).unwrap();
        let c = &sel.chunks()[0];
        let vals = bytes(&[5.0f64, 70000.0], f64::to_ne_bytes);
        let src = MemIn::Num {
            ty: NcType::Double,
            data: &vals,
        };
        let mut chunk = ChunkData::Bytes(vec![0; 16]);
        assert_eq!(chunk_in(&sel, &c.segs, &src, NcType::Short, &mut chunk), Ok(true));
        let ChunkData::Bytes(b) = &chunk else { unreachable!() };
        let shorts: Vec<i16> = b.chunks_exact(2).map(|x| i16::from_ne_bytes([x[0], x[1]])).collect();
        assert_eq!(&shorts[..5], &[0, 0, 0, 0, 0]);
        assert_eq!((shorts[5], shorts[6]), (5, 0));
        let strs = [Some(b"x".to_vec()), None];
        let mut chunk = ChunkData::Strings(vec![Some(b"f".to_vec()); 8]);
        let src = MemIn::Str(&strs);
        assert_eq!(chunk_in(&sel, &c.segs, &src, NcType::String, &mut chunk), Ok(false));
        let ChunkData::Strings(s) = chunk else { unreachable!() };
        assert_eq!(
            (&s[5], &s[7], &s[6]),
            (&Some(b"x".to_vec()), &None, &Some(b"f".to_vec()))
        );
        // Numbers into a string chunk: a type error.
        let mut chunk = ChunkData::Strings(vec![None; 8]);
        let src = MemIn::Num {
            ty: NcType::Double,
            data: &vals,
        };
        assert_eq!(
            chunk_in(&sel, &c.segs, &src, NcType::Short, &mut chunk),
            Err(NcError::BadType)
        );
    }
}
