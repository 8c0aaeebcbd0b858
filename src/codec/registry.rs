//! Where filters and codec maps are found: plugins from `HDF5_PLUGIN_PATH`
//! first, then the built-in codecs.
//!
//! A filter is the plugin filter of that HDF5 id, else the built-in one. A
//! codec map is a plugin codec (`NCZ_get_codec_info`), else the built-in one,
//! else a plugin default (`NCZ_codec_info_defaults`).

use std::sync::{Arc, LazyLock};

use super::{CodecMap, Hdf5Filter, plugin};

/// One built-in codec: both halves are the same value.
struct Builtin {
    filter: Arc<dyn Hdf5Filter>,
    codec: Arc<dyn CodecMap>,
}

fn both<T: Hdf5Filter + CodecMap + 'static>(t: T) -> Builtin {
    let t = Arc::new(t);
    Builtin {
        filter: t.clone(),
        codec: t,
    }
}

static BUILTINS: LazyLock<Vec<Builtin>> = LazyLock::new(|| {
    let mut all = vec![
        both(super::zlib::Zlib),
        both(super::shuffle::Shuffle),
        both(super::fletcher32::Fletcher32),
        both(super::bz2::Bz2),
        both(super::zstd::Zstd),
        both(super::blosc::Blosc),
        both(super::gzip::Gzip),
        both(super::lz4::Lz4),
        both(super::delta::Delta),
        both(super::checksum::Checksum::CRC32),
        both(super::checksum::Checksum::ADLER32),
        both(super::checksum::Checksum::CRC32C),
        both(super::transpose::Transpose),
    ];
    // szip only when the build found libaec.
    if super::szip::built_in() {
        all.push(both(super::szip::Szip));
    }
    all
});

/// The HDF5 ids of the built-in codecs.
pub fn builtin_ids() -> Vec<u32> {
    BUILTINS.iter().map(|b| b.filter.id()).collect()
}

/// The filter for an HDF5 id. A plugin filter replaces the built-in one only
/// when the path also has its own codec for it (`NCZ_get_codec_info`: a
/// complete plugin); a plugin filter whose codec would come from a defaults
/// library serves only ids that are not built in. (netcdf-c's own plugins,
/// which the netCDF4 wheel puts on `HDF5_PLUGIN_PATH` for every process it
/// starts, are of that kind, and its deflate fails on data that does not
/// shrink.)
pub fn filter(id: u32) -> Option<Arc<dyn Hdf5Filter>> {
    let p = plugin::current();
    let builtin = BUILTINS.iter().find(|b| b.filter.id() == id).map(|b| b.filter.clone());
    if let Some(f) = p.filters.iter().find(|f| f.id() == id) {
        let own_codec = p.codecs.iter().any(|c| c.hdf5_id() == id);
        if own_codec || builtin.is_none() {
            return Some(f.clone());
        }
    }
    builtin
}

fn find_codec(pred: impl Fn(&dyn CodecMap) -> bool) -> Option<Arc<dyn CodecMap>> {
    let p = plugin::current();
    if let Some(c) = p.codecs.iter().find(|c| pred(c.as_ref())) {
        return Some(c.clone());
    }
    if let Some(b) = BUILTINS.iter().find(|b| pred(b.codec.as_ref())) {
        return Some(b.codec.clone());
    }
    p.defaults.iter().find(|c| pred(c.as_ref())).cloned()
}

/// The codec map for a Zarr codec id (`"zstd"`).
pub fn codec_by_id(id: &str) -> Option<Arc<dyn CodecMap>> {
    find_codec(|c| c.codec_id() == id)
}

/// The codec map for an HDF5 filter id.
pub fn codec_by_hdf5(id: u32) -> Option<Arc<dyn CodecMap>> {
    find_codec(|c| c.hdf5_id() == id)
}

/// Whether both halves of filter `id` are available (`nc_inq_filter_avail`).
pub fn available(id: u32) -> bool {
    filter(id).is_some() && codec_by_hdf5(id).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_pairs_by_id_and_name() {
        for b in BUILTINS.iter() {
            assert_eq!(b.filter.id(), b.codec.hdf5_id());
            assert_eq!(codec_by_id(b.codec.codec_id()).unwrap().hdf5_id(), b.filter.id());
            assert!(available(b.filter.id()));
        }
        let mut ids = builtin_ids();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), BUILTINS.len(), "HDF5 ids are unique");
        assert_eq!(available(4), cfg!(nczarr_szip), "szip is built in with libaec");
    }
}
