//! numcodecs' `delta`: each value minus the previous one (the first kept),
//! computed in `dtype` and stored as `astype`. JSON
//! `{"id": "delta", "dtype": "<i4", "astype": "<i2"}` (integer and float
//! dtypes). Parameters `[dtype code, astype code]`, a code being
//! `big-endian << 16 | kind << 8 | size` with kind `b'i'`, `b'u'` or `b'f'`.
//! Private HDF5 id 40103.

use super::json;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;

pub const ID: u32 = 40103;

#[derive(Debug)]
pub struct Delta;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Dt {
    kind: u8,
    size: usize,
    big: bool,
}

#[derive(Debug, Clone, Copy)]
enum V {
    I(i128),
    F(f64),
}

impl Dt {
    fn parse(s: &str) -> NcResult<Dt> {
        let b = s.as_bytes();
        let (big, rest) = match b.first() {
            Some(b'>') => (true, &b[1..]),
            Some(b'<' | b'|' | b'=') => (false, &b[1..]),
            _ => (false, b),
        };
        let dt = match rest {
            [k @ (b'i' | b'u'), n @ (b'1' | b'2' | b'4' | b'8')] => Dt {
                kind: *k,
                size: (n - b'0') as usize,
                big,
            },
            [b'f', n @ (b'4' | b'8')] => Dt {
                kind: b'f',
                size: (n - b'0') as usize,
                big,
            },
            _ => {
                crate::nclog!(Level::Error, "delta: unsupported dtype {s}");
                return Err(NcError::Filter);
            }
        };
        Ok(dt)
    }

    fn code(self) -> u32 {
        (u32::from(self.big) << 16) | (u32::from(self.kind) << 8) | self.size as u32
    }

    fn from_code(c: u32) -> NcResult<Dt> {
        let d = Dt {
            kind: (c >> 8) as u8,
            size: (c & 0xff) as usize,
            big: c >> 16 == 1,
        };
        let ok = c >> 17 == 0
            && match d.kind {
                b'i' | b'u' => matches!(d.size, 1 | 2 | 4 | 8),
                b'f' => matches!(d.size, 4 | 8),
                _ => false,
            };
        if ok { Ok(d) } else { Err(NcError::Filter) }
    }

    fn name(self) -> String {
        let o = if self.size == 1 {
            '|'
        } else if self.big {
            '>'
        } else {
            '<'
        };
        format!("{o}{}{}", self.kind as char, self.size)
    }

    fn read(self, b: &[u8]) -> V {
        let mut a = [0u8; 8];
        if self.big {
            for (i, &x) in b.iter().rev().enumerate() {
                a[i] = x;
            }
        } else {
            a[..self.size].copy_from_slice(b);
        }
        let u = u64::from_le_bytes(a);
        match (self.kind, self.size) {
            (b'f', 4) => V::F(f64::from(f32::from_bits(u as u32))),
            (b'f', _) => V::F(f64::from_bits(u)),
            _ => V::I(self.wrap(i128::from(u))),
        }
    }

    fn write(self, v: V, out: &mut [u8]) {
        let u: u64 = match (self.cast(v), self.size) {
            (V::F(f), 4) => u64::from((f as f32).to_bits()),
            (V::F(f), _) => f.to_bits(),
            (V::I(i), _) => i as u64,
        };
        let le = u.to_le_bytes();
        if self.big {
            for (i, o) in out.iter_mut().enumerate() {
                *o = le[self.size - 1 - i];
            }
        } else {
            out.copy_from_slice(&le[..self.size]);
        }
    }

    /// Two's-complement wrap of an integer to this type.
    fn wrap(self, v: i128) -> i128 {
        let bits = self.size * 8;
        let m = v & ((1i128 << bits) - 1);
        if self.kind == b'i' && m >> (bits - 1) & 1 == 1 {
            m - (1i128 << bits)
        } else {
            m
        }
    }

    /// numpy's cast of a value to this type.
    fn cast(self, v: V) -> V {
        match (v, self.kind) {
            (V::I(i), b'f') => V::F(self.round(i as f64)),
            (V::F(f), b'f') => V::F(self.round(f)),
            (V::I(i), _) => V::I(self.wrap(i)),
            (V::F(f), _) => V::I(self.wrap(if f.is_finite() { f as i128 } else { 0 })),
        }
    }

    fn round(self, f: f64) -> f64 {
        if self.size == 4 { f64::from(f as f32) } else { f }
    }

    /// `a ± b` in this type (both already of it).
    fn op(self, a: V, b: V, sub: bool) -> V {
        match (a, b) {
            (V::I(a), V::I(b)) => V::I(self.wrap(if sub { a - b } else { a + b })),
            (V::F(a), V::F(b)) => V::F(self.round(if sub { a - b } else { a + b })),
            _ => a,
        }
    }
}

fn types(cd: &[u32]) -> NcResult<(Dt, Dt)> {
    match cd {
        [d, a] => Ok((Dt::from_code(*d)?, Dt::from_code(*a)?)),
        _ => Err(NcError::Filter),
    }
}

impl Hdf5Filter for Delta {
    fn id(&self) -> u32 {
        ID
    }

    fn name(&self) -> &str {
        "delta"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        let (dt, at) = types(cd_values)?;
        let (from, to) = if decode { (at, dt) } else { (dt, at) };
        if !input.len().is_multiple_of(from.size) {
            crate::nclog!(
                Level::Error,
                "delta: {} bytes is not a whole number of values",
                input.len()
            );
            return Err(NcError::Filter);
        }
        let n = input.len() / from.size;
        let mut out = vec![0u8; n * to.size];
        let mut prev: Option<V> = None;
        for (src, dst) in input.chunks_exact(from.size).zip(out.chunks_exact_mut(to.size)) {
            let x = from.read(src);
            if decode {
                // Running sum in dtype.
                let x = dt.cast(x);
                let s = prev.map_or(x, |p| dt.op(p, x, false));
                dt.write(s, dst);
                prev = Some(s);
            } else {
                let d = prev.map_or(x, |p| dt.op(x, p, true));
                at.write(d, dst);
                prev = Some(x);
            }
        }
        Ok(out)
    }

    fn decode_bounded(&self, cd_values: &[u32], input: Vec<u8>, _expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let (dt, at) = types(cd_values)?;
        if (input.len() / at.size).saturating_mul(dt.size) > limit {
            return Err(NcError::Filter);
        }
        self.apply(true, cd_values, input)
    }
}

impl CodecMap for Delta {
    fn hdf5_id(&self) -> u32 {
        ID
    }

    fn codec_id(&self) -> &str {
        "delta"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "delta")?;
        let dt = Dt::parse(json::string(&m, "dtype")?.ok_or(NcError::Filter)?)?;
        let at = match json::string(&m, "astype")? {
            Some(s) => Dt::parse(s)?,
            None => dt,
        };
        Ok(vec![dt.code(), at.code()])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        let (dt, at) = types(visible)?;
        Ok(format!(
            "{{\"id\": \"delta\", \"dtype\": {}, \"astype\": {}}}",
            json::quote(&dt.name()),
            json::quote(&at.name())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_floats_and_narrowing() {
        let p = Delta
            .codec_to_hdf5(r#"{"id": "delta", "dtype": "<i4", "astype": "<i2"}"#)
            .unwrap();
        let vals: Vec<u8> = [10i32, 12, 11, 400].iter().flat_map(|v| v.to_le_bytes()).collect();
        let e = Delta.apply(false, &p, vals.clone()).unwrap();
        let d: Vec<i16> = e.chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(d, vec![10, 2, -1, 389]);
        assert_eq!(Delta.apply(true, &p, e).unwrap(), vals);
        let p = Delta
            .codec_to_hdf5(r#"{"id": "delta", "dtype": ">f8", "astype": ">f8"}"#)
            .unwrap();
        let f: Vec<u8> = [1.5f64, 2.25, -3.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let e = Delta.apply(false, &p, f.clone()).unwrap();
        assert_eq!(Delta.apply(true, &p, e).unwrap(), f);
        assert_eq!(
            Delta.hdf5_to_codec(&p).unwrap(),
            r#"{"id": "delta", "dtype": ">f8", "astype": ">f8"}"#
        );
        assert!(Delta.apply(true, &p, vec![1, 2, 3]).is_err());
    }
}
