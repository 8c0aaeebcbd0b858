//! numcodecs' 32-bit checksum codecs: `crc32`, `adler32` (checksum before the
//! data by default) and `crc32c` (after it), each a little-endian u32; JSON
//! `{"id": "crc32"}` or with `"location": "start" | "end"`. Parameters:
//! `[]` for the codec's own location, `[0]` start, `[1]` end. Private HDF5
//! ids 40104 (crc32), 40105 (adler32), 40106 (crc32c).

use super::json;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Crc32,
    Adler32,
    Crc32c,
}

#[derive(Debug)]
pub struct Checksum {
    kind: Kind,
}

impl Checksum {
    pub const CRC32: Checksum = Checksum { kind: Kind::Crc32 };
    pub const ADLER32: Checksum = Checksum { kind: Kind::Adler32 };
    pub const CRC32C: Checksum = Checksum { kind: Kind::Crc32c };

    fn sum(&self, data: &[u8]) -> u32 {
        match self.kind {
            Kind::Crc32 => crc32fast::hash(data),
            Kind::Adler32 => libdeflater::adler32(data),
            Kind::Crc32c => crc32c(data),
        }
    }

    /// Whether the checksum goes after the data, given the parameters.
    fn at_end(&self, cd: &[u32]) -> NcResult<bool> {
        match cd {
            [] => Ok(self.kind == Kind::Crc32c),
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(NcError::Filter),
        }
    }
}

/// CRC-32C (Castagnoli), reflected, as numcodecs' `crc32c` computes it.
pub fn crc32c(data: &[u8]) -> u32 {
    static TABLE: std::sync::LazyLock<[u32; 256]> = std::sync::LazyLock::new(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0x82f6_3b78 ^ (c >> 1) } else { c >> 1 };
            }
            *e = c;
        }
        t
    });
    let t = &*TABLE;
    let mut c = !0u32;
    for &b in data {
        c = t[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

impl Hdf5Filter for Checksum {
    fn id(&self) -> u32 {
        match self.kind {
            Kind::Crc32 => 40104,
            Kind::Adler32 => 40105,
            Kind::Crc32c => 40106,
        }
    }

    fn name(&self) -> &str {
        CodecMap::codec_id(self)
    }

    fn apply(&self, decode: bool, cd_values: &[u32], mut input: Vec<u8>) -> NcResult<Vec<u8>> {
        let end = self.at_end(cd_values)?;
        if decode {
            if input.len() < 4 {
                crate::nclog!(Level::Error, "{}: chunk too short for its checksum", self.name());
                return Err(NcError::Filter);
            }
            let n = input.len() - 4;
            let (sum_at, data) = if end { (n, 0..n) } else { (0, 4..input.len()) };
            let stored = u32::from_le_bytes([input[sum_at], input[sum_at + 1], input[sum_at + 2], input[sum_at + 3]]);
            if stored != self.sum(&input[data]) {
                crate::nclog!(Level::Error, "{}: checksum mismatch", self.name());
                return Err(NcError::Filter);
            }
            if end {
                input.truncate(n);
            } else {
                input.drain(..4);
            }
            return Ok(input);
        }
        let s = self.sum(&input).to_le_bytes();
        if end {
            input.extend_from_slice(&s);
        } else {
            input.splice(0..0, s);
        }
        Ok(input)
    }
}

impl CodecMap for Checksum {
    fn hdf5_id(&self) -> u32 {
        Hdf5Filter::id(self)
    }

    fn codec_id(&self) -> &str {
        match self.kind {
            Kind::Crc32 => "crc32",
            Kind::Adler32 => "adler32",
            Kind::Crc32c => "crc32c",
        }
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, self.codec_id())?;
        match json::string(&m, "location")? {
            None => Ok(vec![]),
            Some("start") => Ok(vec![0]),
            Some("end") => Ok(vec![1]),
            Some(l) => {
                crate::nclog!(Level::Error, "{}: unknown location {l}", self.codec_id());
                Err(NcError::Filter)
            }
        }
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        let id = self.codec_id();
        match visible {
            [] => Ok(format!("{{\"id\": \"{id}\"}}")),
            [0] => Ok(format!("{{\"id\": \"{id}\", \"location\": \"start\"}}")),
            [1] => Ok(format!("{{\"id\": \"{id}\", \"location\": \"end\"}}")),
            _ => Err(NcError::Filter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numcodecs_layouts() {
        let hex = |v: Vec<u8>| v.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(Checksum::CRC32.apply(false, &[], b"abcd".to_vec()).unwrap()),
            "11cd82ed61626364"
        );
        assert_eq!(
            hex(Checksum::CRC32C.apply(false, &[], b"abcd".to_vec()).unwrap()),
            "61626364310ac892"
        );
        assert_eq!(
            hex(Checksum::ADLER32.apply(false, &[], b"abcd".to_vec()).unwrap()),
            "8b01d80361626364"
        );
        for c in [Checksum::CRC32, Checksum::ADLER32, Checksum::CRC32C] {
            for cd in [&[][..], &[0], &[1]] {
                let e = c.apply(false, cd, b"hello".to_vec()).unwrap();
                assert_eq!(c.apply(true, cd, e.clone()).unwrap(), b"hello");
                let mut bad = e;
                bad[4] ^= 0x10;
                assert!(c.apply(true, cd, bad).is_err());
            }
            assert!(c.apply(true, &[], vec![1, 2]).is_err());
        }
    }
}
