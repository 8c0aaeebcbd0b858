//! Mapped access (nc_get/put_varm): values between the contiguous order of
//! a selection and the caller's mapped layout.
#![forbid(unsafe_code)]

/// Call `f(k, off)` for the k-th value of a selection of shape `count` (C
/// order) and its offset `off` in elements in the caller's memory, where
/// `imap` gives the distance between successive values along each dimension.
pub fn for_each_mapped(count: &[usize], imap: &[usize], mut f: impl FnMut(usize, usize)) {
    if count.contains(&0) {
        return;
    }
    let n = count.len();
    let total: usize = count.iter().product();
    let mut idx = vec![0usize; n];
    for k in 0..total {
        f(k, idx.iter().zip(imap).map(|(i, m)| i * m).sum());
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < count[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Place contiguous values at their mapped positions.
pub fn scatter_map<T: Clone>(contig: &[T], count: &[usize], imap: &[usize], out: &mut [T]) {
    for_each_mapped(count, imap, |k, off| out[off] = contig[k].clone());
}

/// Collect values from their mapped positions into contiguous order.
pub fn gather_map<T: Clone>(src: &[T], count: &[usize], imap: &[usize], contig: &mut [T]) {
    for_each_mapped(count, imap, |k, off| contig[k] = src[off].clone());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_map_round_trips() {
        // A 2x3 selection written into a 3x2 (transposed) layout.
        let contig = [1, 2, 3, 4, 5, 6];
        let mut out = [0; 6];
        scatter_map(&contig, &[2, 3], &[1, 2], &mut out);
        assert_eq!(out, [1, 4, 2, 5, 3, 6]);
        let mut back = [0; 6];
        gather_map(&out, &[2, 3], &[1, 2], &mut back);
        assert_eq!(back, contig);
        let mut seen = Vec::new();
        for_each_mapped(&[2, 0], &[1, 1], |k, off| seen.push((k, off)));
        assert!(seen.is_empty());
    }
}
