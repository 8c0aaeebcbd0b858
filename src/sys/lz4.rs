//! Safe wrapper over liblz4's block decoder (the `lz4-sys` build that c-blosc
//! links): the blosc codec decodes LZ4 blocks itself when it can write the
//! values straight into caller memory.

use std::ffi::{c_char, c_int};

/// Decode one raw LZ4 block `src` into `out`, which it must fill exactly;
/// `None` when the block is corrupt, decodes to another size, or a length
/// does not fit a C int.
pub fn decompress_exact(src: &[u8], out: &mut [u8]) -> Option<()> {
    let src_len = c_int::try_from(src.len()).ok()?;
    let out_len = c_int::try_from(out.len()).ok()?;
    // SAFETY: LZ4_decompress_safe reads at most src_len bytes of src and
    // writes at most out_len bytes into out (both valid for those lengths,
    // and not overlapping); it is the decoder meant for untrusted input and
    // keeps no state between calls.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            src.as_ptr().cast::<c_char>(),
            out.as_mut_ptr().cast::<c_char>(),
            src_len,
            out_len,
        )
    };
    (n == out_len).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_decode_to_exactly_their_size() {
        let data: Vec<u8> = (0..5000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let enc = lz4_flex::block::compress(&data);
        let mut out = vec![0u8; data.len()];
        assert_eq!(decompress_exact(&enc, &mut out), Some(()));
        assert_eq!(out, data);
        // Room for more than the block holds, or for less: refused.
        let mut big = vec![0u8; data.len() + 1];
        assert_eq!(decompress_exact(&enc, &mut big), None);
        let mut small = vec![0u8; data.len() - 1];
        assert_eq!(decompress_exact(&enc, &mut small), None);
        // Cut short or garbage: refused, never read past.
        assert_eq!(decompress_exact(&enc[..enc.len() / 2], &mut out), None);
        assert_eq!(decompress_exact(&[0xff; 64], &mut out), None);
        assert_eq!(decompress_exact(&[], &mut out), None);
    }
}
