//! netCDF atomic types: ids, sizes, names and default fill values.
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};

pub const NC_NAT: i32 = 0;
pub const NC_BYTE: i32 = 1;
pub const NC_CHAR: i32 = 2;
pub const NC_SHORT: i32 = 3;
pub const NC_INT: i32 = 4;
pub const NC_FLOAT: i32 = 5;
pub const NC_DOUBLE: i32 = 6;
pub const NC_UBYTE: i32 = 7;
pub const NC_USHORT: i32 = 8;
pub const NC_UINT: i32 = 9;
pub const NC_INT64: i32 = 10;
pub const NC_UINT64: i32 = 11;
pub const NC_STRING: i32 = 12;
pub const NC_MAX_ATOMIC_TYPE: i32 = NC_STRING;
pub const NC_VLEN: i32 = 13;
pub const NC_OPAQUE: i32 = 14;
pub const NC_ENUM: i32 = 15;
pub const NC_COMPOUND: i32 = 16;

pub const NC_MAX_NAME: usize = 256;
pub const NC_MAX_VAR_DIMS: usize = 1024;
pub const NC_GLOBAL: i32 = -1;
pub const NC_UNLIMITED: usize = 0;

/// One of the twelve atomic netCDF types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NcType {
    Byte,
    Char,
    Short,
    Int,
    Float,
    Double,
    UByte,
    UShort,
    UInt,
    Int64,
    UInt64,
    String,
}

impl NcType {
    pub const ALL: [NcType; 12] = [
        NcType::Byte,
        NcType::Char,
        NcType::Short,
        NcType::Int,
        NcType::Float,
        NcType::Double,
        NcType::UByte,
        NcType::UShort,
        NcType::UInt,
        NcType::Int64,
        NcType::UInt64,
        NcType::String,
    ];

    /// The type for an `nc_type` id; `NC_EBADTYPE` for anything that is not atomic.
    pub fn from_id(id: i32) -> NcResult<NcType> {
        Ok(match id {
            NC_BYTE => NcType::Byte,
            NC_CHAR => NcType::Char,
            NC_SHORT => NcType::Short,
            NC_INT => NcType::Int,
            NC_FLOAT => NcType::Float,
            NC_DOUBLE => NcType::Double,
            NC_UBYTE => NcType::UByte,
            NC_USHORT => NcType::UShort,
            NC_UINT => NcType::UInt,
            NC_INT64 => NcType::Int64,
            NC_UINT64 => NcType::UInt64,
            NC_STRING => NcType::String,
            _ => return Err(NcError::BadType),
        })
    }

    pub fn id(self) -> i32 {
        match self {
            NcType::Byte => NC_BYTE,
            NcType::Char => NC_CHAR,
            NcType::Short => NC_SHORT,
            NcType::Int => NC_INT,
            NcType::Float => NC_FLOAT,
            NcType::Double => NC_DOUBLE,
            NcType::UByte => NC_UBYTE,
            NcType::UShort => NC_USHORT,
            NcType::UInt => NC_UINT,
            NcType::Int64 => NC_INT64,
            NcType::UInt64 => NC_UINT64,
            NcType::String => NC_STRING,
        }
    }

    /// Size in bytes of one value in memory (`char*` for strings, as `nc_inq_type` reports).
    pub fn size(self) -> usize {
        match self {
            NcType::Byte | NcType::Char | NcType::UByte => 1,
            NcType::Short | NcType::UShort => 2,
            NcType::Int | NcType::UInt | NcType::Float => 4,
            NcType::Double | NcType::Int64 | NcType::UInt64 => 8,
            NcType::String => std::mem::size_of::<usize>(),
        }
    }

    /// The CDL name, as `nc_inq_type` reports it.
    pub fn name(self) -> &'static str {
        match self {
            NcType::Byte => "byte",
            NcType::Char => "char",
            NcType::Short => "short",
            NcType::Int => "int",
            NcType::Float => "float",
            NcType::Double => "double",
            NcType::UByte => "ubyte",
            NcType::UShort => "ushort",
            NcType::UInt => "uint",
            NcType::Int64 => "int64",
            NcType::UInt64 => "uint64",
            NcType::String => "string",
        }
    }

    pub fn is_numeric(self) -> bool {
        !matches!(self, NcType::Char | NcType::String)
    }

    pub fn is_float(self) -> bool {
        matches!(self, NcType::Float | NcType::Double)
    }

    /// The default fill value (`NC_FILL_*`) as native-endian bytes; empty for strings.
    pub fn default_fill(self) -> Vec<u8> {
        match self {
            NcType::Byte => (-127i8).to_ne_bytes().to_vec(),
            NcType::Char => vec![0],
            NcType::Short => (-32767i16).to_ne_bytes().to_vec(),
            NcType::Int => (-2147483647i32).to_ne_bytes().to_vec(),
            NcType::Float => 9.969_21e36_f32.to_ne_bytes().to_vec(),
            NcType::Double => 9.969_209_968_386_869e36f64.to_ne_bytes().to_vec(),
            NcType::UByte => vec![255],
            NcType::UShort => 65535u16.to_ne_bytes().to_vec(),
            NcType::UInt => 4294967295u32.to_ne_bytes().to_vec(),
            NcType::Int64 => (-9223372036854775806i64).to_ne_bytes().to_vec(),
            NcType::UInt64 => 18446744073709551614u64.to_ne_bytes().to_vec(),
            NcType::String => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for t in NcType::ALL {
            assert_eq!(NcType::from_id(t.id()).unwrap(), t);
        }
        assert_eq!(NcType::from_id(0), Err(NcError::BadType));
        assert_eq!(NcType::from_id(13), Err(NcError::BadType));
    }
}
