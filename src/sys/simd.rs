//! SSE2 kernels (every x86_64 processor has SSE2): the byte unshuffle of
//! 2-, 4- and 8-byte values, 16 values at a time, written straight into
//! their destination. The shuffle filter and blosc's blocks go through
//! here; on other processors the portable loop in `codec::shuffle` does
//! all of it.

/// Unshuffle values of `planes.len()` bytes (2, 4 or 8) into `out`: byte
/// `b` of value `i` is `planes[b][i]`. Writes the first values, 16 at a
/// time, as far as `out` and every plane reach, and returns how many; the
/// rest (and any other value size: 0 written) is the caller's.
pub fn unshuffle(planes: &[&[u8]], out: &mut [u8]) -> usize {
    let n = planes.iter().map(|p| p.len()).min().unwrap_or(0);
    x86::unshuffle(planes, out, n)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    };

    /// `super::unshuffle`, `n` the shortest plane's length.
    pub fn unshuffle(planes: &[&[u8]], out: &mut [u8], n: usize) -> usize {
        // SAFETY: the kernels need SSE2, which every x86_64 processor has
        // (the target's baseline).
        unsafe {
            match planes.len() {
                2 => unshuffle2(planes, out, n),
                4 => unshuffle4(planes, out, n),
                8 => unshuffle8(planes, out, n),
                _ => 0,
            }
        }
    }

    /// Values 16 at a time while `n` (the planes' length) and `out` reach.
    fn groups(n: usize, out: &[u8], size: usize) -> usize {
        n.min(out.len() / size) / 16
    }

    /// 16 bytes of plane `p` from byte `i`, which the caller keeps inside
    /// it (`i + 16 <= p.len()`).
    #[target_feature(enable = "sse2")]
    #[inline]
    fn load(p: &[u8], i: usize) -> __m128i {
        assert!(i + 16 <= p.len());
        // SAFETY: bytes i..i + 16 are inside p (asserted); the unaligned
        // load has no alignment requirement.
        unsafe { _mm_loadu_si128(p.as_ptr().add(i).cast::<__m128i>()) }
    }

    /// Store `vs` (16 bytes each) at byte `at` of `out`, where the caller
    /// keeps them inside it.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn store(out: &mut [u8], at: usize, vs: &[__m128i]) {
        assert!(at + 16 * vs.len() <= out.len());
        for (k, v) in vs.iter().enumerate() {
            // SAFETY: bytes at + 16k .. at + 16k + 16 are inside out
            // (asserted above); the unaligned store has no alignment
            // requirement.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().add(at + 16 * k).cast::<__m128i>(), *v) }
        }
    }

    #[target_feature(enable = "sse2")]
    fn unshuffle2(planes: &[&[u8]], out: &mut [u8], n: usize) -> usize {
        for g in 0..groups(n, out, 2) {
            let i = 16 * g;
            let (a, b) = (load(planes[0], i), load(planes[1], i));
            store(out, 2 * i, &[_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)]);
        }
        groups(n, out, 2) * 16
    }

    #[target_feature(enable = "sse2")]
    fn unshuffle4(planes: &[&[u8]], out: &mut [u8], n: usize) -> usize {
        for g in 0..groups(n, out, 4) {
            let i = 16 * g;
            let (a, b, c, d) = (
                load(planes[0], i),
                load(planes[1], i),
                load(planes[2], i),
                load(planes[3], i),
            );
            // Pairs of bytes, then the pairs paired: whole values.
            let (ab0, ab1) = (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b));
            let (cd0, cd1) = (_mm_unpacklo_epi8(c, d), _mm_unpackhi_epi8(c, d));
            store(
                out,
                4 * i,
                &[
                    _mm_unpacklo_epi16(ab0, cd0),
                    _mm_unpackhi_epi16(ab0, cd0),
                    _mm_unpacklo_epi16(ab1, cd1),
                    _mm_unpackhi_epi16(ab1, cd1),
                ],
            );
        }
        groups(n, out, 4) * 16
    }

    #[target_feature(enable = "sse2")]
    fn unshuffle8(planes: &[&[u8]], out: &mut [u8], n: usize) -> usize {
        for g in 0..groups(n, out, 8) {
            let i = 16 * g;
            let v = [
                load(planes[0], i),
                load(planes[1], i),
                load(planes[2], i),
                load(planes[3], i),
                load(planes[4], i),
                load(planes[5], i),
                load(planes[6], i),
                load(planes[7], i),
            ];
            // Bytes paired, pairs paired (4-byte halves), halves paired.
            let pairs: [__m128i; 8] = std::array::from_fn(|k| {
                let (x, y) = (v[2 * (k / 2)], v[2 * (k / 2) + 1]);
                if k % 2 == 0 {
                    _mm_unpacklo_epi8(x, y)
                } else {
                    _mm_unpackhi_epi8(x, y)
                }
            });
            // pairs: ab0 ab1 cd0 cd1 ef0 ef1 gh0 gh1; quads: abcd 0..3, efgh 0..3.
            let quads: [__m128i; 8] = std::array::from_fn(|k| {
                let (lo, hi) = (pairs[4 * (k / 4) + (k % 4) / 2], pairs[4 * (k / 4) + 2 + (k % 4) / 2]);
                if k % 2 == 0 {
                    _mm_unpacklo_epi16(lo, hi)
                } else {
                    _mm_unpackhi_epi16(lo, hi)
                }
            });
            let whole: [__m128i; 8] = std::array::from_fn(|k| {
                let (x, y) = (quads[k / 2], quads[4 + k / 2]);
                if k % 2 == 0 {
                    _mm_unpacklo_epi32(x, y)
                } else {
                    _mm_unpackhi_epi32(x, y)
                }
            });
            store(out, 8 * i, &whole);
        }
        groups(n, out, 8) * 16
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod x86 {
    pub fn unshuffle(_: &[&[u8]], _: &mut [u8], _: usize) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size against the definition (byte b of value i is
    /// planes[b][i]), for lengths around the 16-value groups, planes
    /// longer than `out` and `out` longer than the planes.
    #[test]
    fn unshuffle_matches_the_definition() {
        for size in [2usize, 4, 8] {
            for n in [0usize, 1, 15, 16, 17, 33, 64, 100] {
                let data: Vec<Vec<u8>> = (0..size)
                    .map(|b| (0..n + 5).map(|i| (i * 37 + b * 101 + i / 3) as u8).collect())
                    .collect();
                let planes: Vec<&[u8]> = data.iter().map(|p| &p[..n]).collect();
                let mut out = vec![0xeeu8; size * n + 3];
                let done = unshuffle(&planes, &mut out);
                assert_eq!(done, n / 16 * 16, "size {size} n {n}");
                for i in 0..done {
                    for b in 0..size {
                        assert_eq!(out[i * size + b], planes[b][i], "size {size} n {n} value {i}");
                    }
                }
                assert!(
                    out[done * size..].iter().all(|&x| x == 0xee),
                    "size {size} n {n}: wrote past"
                );
                // Longer planes, shorter out: as far as out reaches.
                let long: Vec<&[u8]> = data.iter().map(|p| &p[..]).collect();
                let mut short = vec![0u8; size * n];
                assert_eq!(unshuffle(&long, &mut short), n / 16 * 16);
            }
        }
        let three: [&[u8]; 3] = [&[0; 32], &[0; 32], &[0; 32]];
        assert_eq!(unshuffle(&three, &mut [0u8; 96]), 0);
    }
}
