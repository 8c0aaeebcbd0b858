//! `nc_def_var_quantize` / `nc_inq_var_quantize` on an open dataset; the
//! algorithms themselves are `model::quantize`.
#![forbid(unsafe_code)]

use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::quantize::{BITROUND, MANT_F32, MANT_F64, from_atts, set};
use crate::model::types::{NC_GLOBAL, NcType};

/// `nc_def_var_quantize`, with netcdf-c's checks.
pub fn def(ncid: i32, varid: i32, mode: i32, nsd: i32) -> NcResult<()> {
    handles::with(ncid, |ds, grp| {
        // netcdf-c answers NC_EGLOBAL before any other check of the variable.
        if varid == NC_GLOBAL {
            return Err(NcError::Global);
        }
        if !ds.writable {
            return Err(NcError::Perm);
        }
        let v = ds.var_mut(grp, varid)?;
        if v.created {
            return Err(NcError::LateDef);
        }
        if !(0..=3).contains(&mode) {
            return Err(NcError::Inval);
        }
        if mode != 0 {
            let (max_digits, max_bits) = match v.ty {
                NcType::Float => (6, MANT_F32),
                NcType::Double => (15, MANT_F64),
                _ => return Err(NcError::Inval),
            };
            let max = if mode == BITROUND { max_bits } else { max_digits };
            if nsd <= 0 || nsd > max {
                return Err(NcError::Inval);
            }
        }
        set(v, mode, if mode == 0 { 0 } else { nsd });
        Ok(())
    })
}

/// `nc_inq_var_quantize`.
pub fn inq(ncid: i32, varid: i32) -> NcResult<(i32, i32)> {
    handles::with(ncid, |ds, grp| {
        if varid == NC_GLOBAL {
            return Err(NcError::Global);
        }
        let v = ds.var(grp, varid)?;
        if v.quantize.0 != 0 {
            return Ok(v.quantize);
        }
        Ok(from_atts(v))
    })
}
