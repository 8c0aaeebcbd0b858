//! HDF5-style filter plugins and NCZarr codec libraries found on
//! `HDF5_PLUGIN_PATH`. Placeholder: the loader replaces this file; until then no
//! plugin is ever found.

use std::sync::Arc;

use super::{CodecMap, Hdf5Filter};

/// Everything found on the plugin path, unpaired and in search order.
#[derive(Debug, Default)]
pub struct PluginSet {
    /// HDF5 filters (`H5PLget_plugin_info`).
    pub filters: Vec<Arc<dyn Hdf5Filter>>,
    /// Codecs from `NCZ_get_codec_info` (one per library).
    pub codecs: Vec<Arc<dyn CodecMap>>,
    /// Codecs from `NCZ_codec_info_defaults` (fill in only where nothing else
    /// provides the codec).
    pub defaults: Vec<Arc<dyn CodecMap>>,
}

/// The plugins of the current plugin path, scanned once on first use and again
/// after the path changes.
pub fn current() -> Arc<PluginSet> {
    Arc::new(PluginSet::default())
}
