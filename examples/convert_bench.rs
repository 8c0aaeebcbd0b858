//! Throughput of `netcdf::model::convert::convert` for a few common pairs, to compare
//! with memory bandwidth (the same-type row is a plain copy).
//!
//!     cargo run --release --example convert_bench
use std::hint::black_box;
use std::time::Instant;

use netcdf::model::convert::convert;
use netcdf::model::types::NcType::{self, *};

fn main() {
    let n = 1 << 24;
    let pairs: &[(NcType, NcType)] = &[
        (Float, Float),
        (Short, Float),
        (UByte, Float),
        (Float, Double),
        (Double, Float),
        (Int, Int64),
        (Int64, Int),
        (Int, UByte),
        (Int64, Double),
        (UInt64, Float),
        (Float, Short),
        (Double, Int),
        (Double, UInt64),
    ];
    for &(from, to) in pairs {
        let src: Vec<u8> = (0..n * from.size()).map(|i| (i % 7) as u8 * 3).collect();
        let mut dst = vec![0u8; n * to.size()];
        let _ = convert(from, &src, to, &mut dst);
        let reps = 5;
        let t = Instant::now();
        for _ in 0..reps {
            let _ = black_box(convert(from, black_box(&src), to, &mut dst));
        }
        let secs = t.elapsed().as_secs_f64() / f64::from(reps);
        let bytes = (src.len() + dst.len()) as f64;
        println!(
            "{:>7} -> {:<7} {:6.2} Gvalues/s {:6.1} GB/s moved",
            from.name(),
            to.name(),
            n as f64 / secs / 1e9,
            bytes / secs / 1e9
        );
    }
}
