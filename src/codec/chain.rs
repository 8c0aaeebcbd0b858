//! A variable's codec chain, resolved: each codec's filter with its working
//! parameters. Runs forward (first codec first) on write, in reverse on read.

use std::sync::Arc;

use serde_json::Value;

use super::{Hdf5Filter, VarContext, codec_by_id, filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;

/// One resolved codec.
#[derive(Debug, Clone)]
pub struct Step {
    /// The Zarr codec id (for logs).
    pub codec_id: String,
    pub filter: Arc<dyn Hdf5Filter>,
    /// Working parameters (after `modify_parameters`).
    pub working: Vec<u32>,
}

/// A resolved codec chain, in encoding order.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    pub steps: Vec<Step>,
}

/// Where plugins are searched, for messages.
fn plugin_dirs() -> String {
    std::env::var("HDF5_PLUGIN_PATH").unwrap_or_else(|_| "/usr/local/hdf5/lib/plugin".to_string())
}

/// Resolve the codec JSON values of variable `var_name` (encoding order).
/// A codec that no built-in or plugin provides is `NC_ENOFILTER`, logged as
/// netcdf-c logs it. Plugin codec maps may call back into the library: call
/// this with no dataset lock held.
pub fn resolve(var_name: &str, codecs: &[Value], ctx: &VarContext) -> NcResult<Chain> {
    let mut steps = Vec::with_capacity(codecs.len());
    for c in codecs {
        let id = c.get("id").and_then(Value::as_str).unwrap_or("");
        let unsupported = || {
            crate::nclog!(
                Level::Error,
                "Variable '{}' has unsupported codec: ({}). Not found in {}",
                var_name,
                id,
                plugin_dirs()
            );
            NcError::NoFilter
        };
        let map = codec_by_id(id).ok_or_else(unsupported)?;
        let f = filter(map.hdf5_id()).ok_or_else(unsupported)?;
        let visible = map.codec_to_hdf5(&c.to_string())?;
        let working = map.modify_parameters(ctx, &visible)?;
        check_config(var_name, id, &working, ctx)?;
        steps.push(Step {
            codec_id: id.to_string(),
            filter: f,
            working,
        });
    }
    Ok(Chain { steps })
}

/// Check a codec's working parameters against the variable, where a value
/// the codec itself accepts cannot describe this variable's chunks (the
/// data would decode to wrong values): `NC_EFILTER`, logged.
///
/// - shuffle: an element of `elementsize` bytes larger than the whole chunk
///   leaves every chunk as it is; such metadata does not describe how the
///   chunks were written.
fn check_config(var_name: &str, id: &str, working: &[u32], ctx: &VarContext) -> NcResult<()> {
    if id == "shuffle" {
        let chunk_bytes = ctx
            .chunk_shape
            .iter()
            .try_fold(ctx.type_size as u64, |a, &c| a.checked_mul(c))
            .unwrap_or(u64::MAX);
        let es = working.first().copied().unwrap_or(0);
        if u64::from(es) > chunk_bytes {
            crate::nclog!(
                Level::Error,
                "Variable '{}': shuffle elementsize {} is larger than a chunk ({} bytes)",
                var_name,
                es,
                chunk_bytes
            );
            return Err(NcError::Filter);
        }
    }
    Ok(())
}

impl Chain {
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Encode one chunk: every codec, first to last.
    pub fn encode(&self, mut data: Vec<u8>) -> NcResult<Vec<u8>> {
        for s in &self.steps {
            data = s.filter.apply(false, &s.working, data).inspect_err(|e| {
                crate::nclog!(Level::Error, "codec {} failed to encode: {:?}", s.codec_id, e);
            })?;
        }
        Ok(data)
    }

    /// Decode one chunk: every codec, last to first. `expect` is the decoded
    /// chunk's size; no step may produce more than `limit` bytes.
    pub fn decode(&self, mut data: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        for s in self.steps.iter().rev() {
            data = s
                .filter
                .decode_bounded(&s.working, data, expect, limit)
                .inspect_err(|e| {
                    crate::nclog!(Level::Error, "codec {} failed to decode: {:?}", s.codec_id, e);
                })?;
        }
        Ok(data)
    }
}
