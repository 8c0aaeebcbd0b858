//! Quantization (`nc_def_var_quantize`): BitGroom, Granular BitRound and
//! BitRound keep a given number of significant decimal digits (or bits) of
//! float and double values and zero (or set) the rest, so that the values
//! compress better. Applied, as netcdf-c's `nc4_convert_type` does, to the
//! values of one write (`nc_put_vara` and kin) after their conversion to the
//! variable's type and before they go into chunks: BitGroom shaves the
//! values at even positions *of that write* and sets those at odd ones. The
//! fill value, zeros and NaNs are left alone. The variable records the choice
//! in an attribute, as netcdf-c does (`_QuantizeBitRoundNumberOfSignificantBits`, ...).
#![forbid(unsafe_code)]

use crate::model::types::NcType;
use crate::model::{Att, AttValue, Var};

pub const BITGROOM: i32 = 1;
pub const GRANULARBR: i32 = 2;
pub const BITROUND: i32 = 3;

/// The attribute recording each mode.
pub const ATT_NAMES: [&str; 3] = [
    "_QuantizeBitGroomNumberOfSignificantDigits",
    "_QuantizeGranularBitRoundNumberOfSignificantDigits",
    "_QuantizeBitRoundNumberOfSignificantBits",
];

/// Explicit mantissa bits of float and double.
pub const MANT_F32: i32 = 23;
pub const MANT_F64: i32 = 52;

/// Record a quantize setting in a variable and its attribute.
pub fn set(v: &mut Var, mode: i32, nsd: i32) {
    v.atts.retain(|a| !ATT_NAMES.contains(&a.name.as_str()));
    if mode > 0 {
        v.atts.push(Att {
            name: ATT_NAMES[(mode - 1) as usize].to_string(),
            ty: NcType::Int,
            value: AttValue::Bytes(nsd.to_ne_bytes().to_vec()),
        });
    }
    v.quantize = (mode, nsd);
    v.meta_dirty = true;
}

/// The quantize setting of a variable read from storage: from its attribute.
pub fn from_atts(v: &Var) -> (i32, i32) {
    for (i, name) in ATT_NAMES.iter().enumerate() {
        if let Some(a) = v.att(name)
            && let AttValue::Bytes(b) = &a.value
        {
            let n = match (a.ty, b.len()) {
                (NcType::Int | NcType::UInt, 4) => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
                (NcType::Int64 | NcType::UInt64, 8) => {
                    i64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as i32
                }
                _ => continue,
            };
            return (i as i32 + 1, n);
        }
    }
    (0, 0)
}

/// log2(10): bits per decimal digit.
const BITS_PER_DIGIT: f64 = std::f64::consts::LN_10 / std::f64::consts::LN_2;

/// log10(2): decimal digits per bit, computed as netcdf-c computes it (a
/// quotient of the two logarithms, one ulp away from the correctly rounded
/// `LOG10_2`): Granular BitRound's digit count sits exactly on an integer for
/// values such as 1e9, and the same bits must be chosen as netcdf-c chooses.
const DIGITS_PER_BIT: f64 = std::f64::consts::LN_2 / std::f64::consts::LN_10;

/// Masks for keeping `keep` explicit mantissa bits of a `mant`-bit mantissa:
/// (shave mask for AND, set mask for OR, half of the last kept bit), or None
/// when every bit is kept.
fn masks(mant: i32, keep: i32) -> Option<(u64, u64, u64)> {
    let zero_bits = mant - keep;
    if zero_bits <= 0 || zero_bits >= 64 {
        return None;
    }
    let shave = !0u64 << zero_bits;
    let set = !shave;
    Some((shave, set, set & (shave >> 1)))
}

/// Quantize native-endian float or double values in place (`nc_def_var_quantize`'s
/// algorithms); values equal to `fill` (compared as numbers, as netcdf-c
/// does), zeros and NaNs are kept. `data` holds the values of one write in
/// the caller's order: BitGroom's choice of shave or set is by position in it.
pub fn apply(mode: i32, nsd: i32, ty: NcType, data: &mut [u8], fill: &[u8]) {
    let (size, mant) = match ty {
        NcType::Float => (4, MANT_F32),
        NcType::Double => (8, MANT_F64),
        _ => return,
    };
    if mode <= 0 || nsd <= 0 || fill.len() < size {
        return;
    }
    let fixed = match mode {
        BITGROOM => masks(mant, (f64::from(nsd) * BITS_PER_DIGIT).ceil() as i32 + 1),
        BITROUND => masks(mant, nsd),
        _ => None,
    };
    let as_value = |bits: u64| {
        if size == 4 {
            f64::from(f32::from_bits(bits as u32))
        } else {
            f64::from_bits(bits)
        }
    };
    let fillv = as_value(read(fill, size));
    for (idx, c) in data.chunks_exact_mut(size).enumerate() {
        let bits = read(c, size);
        let val = as_value(bits);
        if val == fillv || val == 0.0 || val.is_nan() {
            continue;
        }
        let new = match mode {
            BITGROOM => match fixed {
                Some((shave, _, _)) if idx % 2 == 0 => bits & shave,
                Some((_, set, _)) => bits | set,
                None => bits,
            },
            BITROUND => match fixed {
                Some((shave, _, half)) => bits.wrapping_add(half) & shave,
                None => bits,
            },
            _ => {
                // Granular BitRound: the bits to keep depend on each value.
                let (m, e) = frexp(val);
                let mabs = m.abs();
                let ml10 = mabs.log10();
                let digits = (f64::from(e) * DIGITS_PER_BIT + ml10).floor() as i32 + 1;
                let qnt_pwr = (BITS_PER_DIGIT * f64::from(digits - nsd)).floor() as i32;
                let keep = ((f64::from(e) - BITS_PER_DIGIT * ml10).floor() as i32 - qnt_pwr).abs() - 1;
                match masks(mant, keep) {
                    Some((shave, _, half)) => bits.wrapping_add(half) & shave,
                    None => bits,
                }
            }
        };
        let new = if size == 4 { new & 0xffff_ffff } else { new };
        write(c, size, new);
    }
}

fn read(b: &[u8], size: usize) -> u64 {
    if size == 4 {
        u64::from(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    } else {
        u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

fn write(b: &mut [u8], size: usize, v: u64) {
    if size == 4 {
        b.copy_from_slice(&(v as u32).to_ne_bytes());
    } else {
        b.copy_from_slice(&v.to_ne_bytes());
    }
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, exp - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(mode: i32, nsd: i32, v: f32) -> f32 {
        let mut b = v.to_ne_bytes().to_vec();
        apply(mode, nsd, NcType::Float, &mut b, &9.96921e36f32.to_ne_bytes());
        f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    }

    #[test]
    fn algorithms_keep_the_asked_precision() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-0.75), (-0.75, 0));
        let x = std::f32::consts::PI;
        for nsd in 1..=6 {
            for mode in [BITGROOM, GRANULARBR] {
                let y = q(mode, nsd, x);
                assert!(((y - x) / x).abs() < 10f32.powi(-nsd), "mode {mode} nsd {nsd}: {y}");
            }
        }
        // BitRound to 3 bits: pi = 1.1001001b * 2 -> 1.101b * 2 = 3.25.
        assert_eq!(q(BITROUND, 3, x), 3.25);
        assert_eq!(q(BITROUND, 23, x), x);
        assert_eq!(q(BITROUND, 3, 9.96921e36), 9.96921e36);
        assert!(q(BITROUND, 3, f32::NAN).is_nan());
    }

    #[test]
    fn granular_bitround_counts_digits_as_netcdf_c() {
        // netcdf-c 4.10.1's own test (nczarr_test/test_quantize.c, nsd 3):
        // 999999999 stored as float is 1e9, whose digit count lands exactly
        // on 10; netcdf-c stores 0x4e6e6000 (a correctly rounded log10(2)
        // gives 9 digits and 0x4e6e0000).
        assert_eq!(q(GRANULARBR, 3, 999_999_999f32).to_bits(), 0x4e6e_6000);
        assert_eq!(q(GRANULARBR, 3, -999_999_999f32).to_bits(), 0xce6e_6000);
        assert_eq!(q(GRANULARBR, 3, 9999.0).to_bits(), 0x461c_4000);
    }

    #[test]
    fn bitgroom_alternates_by_position_in_the_write() {
        // netcdf-c 4.10.1, nsd 3: -99 shaved at an even position (0xc2c60000),
        // set at an odd one (0xc2c60fff).
        let mut b = [-99f32, -99f32]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect::<Vec<u8>>();
        apply(BITGROOM, 3, NcType::Float, &mut b, &9.96921e36f32.to_ne_bytes());
        let w: Vec<u32> = b
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(w, [0xc2c6_0000, 0xc2c6_0fff]);
    }
}
