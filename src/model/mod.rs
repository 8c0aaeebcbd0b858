//! The in-memory netCDF-4 data model of one open dataset: groups, dimensions,
//! variables and attributes, plus the metadata operations of the API.
//! Data access lives in `engine`; (de)serialisation in `format`.
#![forbid(unsafe_code)]

pub mod cache;
pub mod convert;
pub mod quantize;
pub mod types;

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{NcError, NcResult};
use crate::model::cache::ChunkCache;
use crate::model::types::{NC_MAX_NAME, NcType};
use crate::storage::Store;

/// Default per-variable chunk cache, as netcdf-c 4.10.1 (`nc_get_chunk_cache`).
pub const DEFAULT_CACHE_SIZE: usize = 64 << 20;
pub const DEFAULT_CACHE_NELEMS: usize = 1000;
pub const DEFAULT_CACHE_PREEMPTION: f32 = 0.75;
/// The chunk key separator of new variables: `.`, or `/` from the rc key
/// `ZARR.DIMENSION_SEPARATOR` (set by `api::rc`).
static DEFAULT_DIM_SEPARATOR: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(b'.');

/// Set the chunk key separator of variables defined from now on (`.` or `/`;
/// anything else is `.`).
pub fn set_default_dim_separator(sep: char) {
    let b = if sep == '/' { b'/' } else { b'.' };
    DEFAULT_DIM_SEPARATOR.store(b, std::sync::atomic::Ordering::Relaxed);
}

/// The chunk key separator of a variable defined now.
pub fn default_dim_separator() -> char {
    char::from(DEFAULT_DIM_SEPARATOR.load(std::sync::atomic::Ordering::Relaxed))
}

/// The chunk-cache settings new variables start with (`nc_set_chunk_cache`).
pub static CACHE_DEFAULTS: std::sync::Mutex<(usize, usize, f32)> =
    std::sync::Mutex::new((DEFAULT_CACHE_SIZE, DEFAULT_CACHE_NELEMS, DEFAULT_CACHE_PREEMPTION));

pub fn cache_defaults() -> (usize, usize, f32) {
    *CACHE_DEFAULTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Default `|Sn` width for NC_STRING variables (`NCZ_MAXSTR_DEFAULT`).
pub const DEFAULT_MAXSTRLEN: usize = 128;

/// An attribute value: numbers and chars as native-endian bytes of the
/// attribute type; strings as one byte string each.
#[derive(Debug, Clone, PartialEq)]
pub enum AttValue {
    Bytes(Vec<u8>),
    Strings(Vec<Vec<u8>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Att {
    pub name: String,
    pub ty: NcType,
    pub value: AttValue,
}

impl Att {
    /// Number of values (bytes for NC_CHAR).
    pub fn len(&self) -> usize {
        match &self.value {
            AttValue::Bytes(b) => b.len() / self.ty.size(),
            AttValue::Strings(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Past this many attributes, names are found through a hash index.
const ATT_SCAN_LIMIT: usize = 16;

/// The attributes of a group or a variable, in order, found by name in
/// constant time: programs ask for attributes by name (ncdump once per
/// attribute), and a variable may have a hundred thousand of them. Names
/// are unique; the list changes only through these methods, which keep the
/// index right. Reading goes through the slice (`Deref`).
#[derive(Debug, Clone, Default)]
pub struct AttList {
    list: Vec<Att>,
    /// Position of each name, once the list is longer than `ATT_SCAN_LIMIT`.
    index: Option<HashMap<String, usize>>,
}

impl AttList {
    /// The position of the attribute `name`.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(name).copied(),
            None => self.list.iter().position(|a| a.name == name),
        }
    }

    /// Whether any of `names` is an attribute here (one pass over a short
    /// list, rather than one per name).
    pub fn has_any(&self, names: &[&str]) -> bool {
        match &self.index {
            Some(ix) => names.iter().any(|n| ix.contains_key(*n)),
            None => self.list.iter().any(|a| names.contains(&a.name.as_str())),
        }
    }

    /// The attribute `name`.
    pub fn by_name(&self, name: &str) -> Option<&Att> {
        self.position_of(name).map(|i| &self.list[i])
    }

    /// Add an attribute at the end, or replace the one of the same name in place.
    pub fn set(&mut self, att: Att) {
        if let Some(i) = self.position_of(&att.name) {
            self.list[i] = att;
            return;
        }
        if let Some(ix) = &mut self.index {
            ix.insert(att.name.clone(), self.list.len());
        }
        self.list.push(att);
        if self.index.is_none() && self.list.len() > ATT_SCAN_LIMIT {
            self.reindex();
        }
    }

    /// `set`, under the name of `Vec`'s method.
    pub fn push(&mut self, att: Att) {
        self.set(att);
    }

    /// Rename `old` to `new` (which must not be in use); false when `old` is absent.
    pub fn rename(&mut self, old: &str, new: &str) -> bool {
        let Some(i) = self.position_of(old) else { return false };
        self.list[i].name = new.to_string();
        if let Some(ix) = &mut self.index {
            ix.remove(old);
            ix.insert(new.to_string(), i);
        }
        true
    }

    /// Keep only the attributes `keep` accepts.
    pub fn retain(&mut self, keep: impl FnMut(&Att) -> bool) {
        let before = self.list.len();
        self.list.retain(keep);
        if self.list.len() != before {
            self.reindex();
        }
    }

    fn reindex(&mut self) {
        self.index = (self.list.len() > ATT_SCAN_LIMIT)
            .then(|| self.list.iter().enumerate().map(|(i, a)| (a.name.clone(), i)).collect());
    }
}

impl std::ops::Deref for AttList {
    type Target = [Att];
    fn deref(&self) -> &[Att] {
        &self.list
    }
}

/// A list of attributes; of a repeated name, the first is kept.
impl From<Vec<Att>> for AttList {
    fn from(atts: Vec<Att>) -> AttList {
        let mut l = AttList::default();
        for a in atts {
            if l.position_of(&a.name).is_none() {
                l.set(a);
            }
        }
        l
    }
}

#[derive(Debug, Clone)]
pub struct Dim {
    pub name: String,
    pub len: usize,
    pub unlimited: bool,
    /// Index of the group that defines the dimension.
    pub group: usize,
}

/// How NC_STRING values are laid out in a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringLayout {
    /// `|Sn`: n bytes per value, NUL padded.
    Fixed(usize),
    /// `<Un` / `>Un`: n UTF-32 code units per value.
    Utf32 { n: usize, big: bool },
    /// `|O` with numcodecs' `vlen-utf8` codec: a count, then length-prefixed values.
    VlenUtf8,
}

/// How a chunk's index becomes its key below the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkKeys {
    /// Zarr v2 (and the v3 `v2` encoding): `0.1` with the separator.
    V2,
    /// Zarr v3 `default`: `c/0/1` (`c.0.1` with '.'); `c` for a 0-d array.
    V3Default,
}

/// The largest encoded chunk of variable-length strings the library reads (1 GiB).
pub const MAX_VLEN_CHUNK_BYTES: usize = 1 << 30;

#[derive(Debug)]
pub struct Var {
    pub name: String,
    pub ty: NcType,
    /// Dataset-wide dimension ids, slowest first. Empty for a scalar.
    pub dimids: Vec<usize>,
    pub atts: AttList,
    /// Chunk shape (one per dimension; empty for a scalar).
    pub chunks: Vec<usize>,
    pub big_endian: bool,
    /// The stored dtype has no byte order (`|u1`): reported as NC_ENDIAN_NATIVE.
    pub native_order: bool,
    /// The dtype as read from storage, written back unchanged when the
    /// metadata is rewritten (a bool `|b1` array stays bool).
    pub stored_dtype: Option<String>,
    pub no_fill: bool,
    /// The fill value in native-endian bytes of `ty` (the string itself for NC_STRING).
    pub fill: Vec<u8>,
    /// Codec chain from the metadata, in encoding order (filters, then compressor).
    pub codecs: Vec<serde_json::Value>,
    pub string_layout: StringLayout,
    pub dim_separator: char,
    /// How chunk indices become keys (Zarr v2 `0.1`, or v3 `c/0/1`).
    pub chunk_keys: ChunkKeys,
    /// Zarr v3 sharding: chunks (`chunks` above) stored as byte ranges of
    /// larger objects, the shards.
    pub shards: Option<crate::codec::sharding::ShardLayout>,
    /// The shard indexes read so far (shared with the data path's workers).
    pub shard_indexes: Arc<crate::codec::sharding::IndexCache>,
    /// Chunk data stored in Fortran order (`"order": "F"`).
    pub order_f: bool,
    /// Where the array lives in the store, once written (the key of its folder).
    pub stored_key: Option<String>,
    /// Whether the array's metadata must be written at the next sync.
    pub meta_dirty: bool,
    /// The array's metadata has been written: storage properties are fixed.
    pub created: bool,
    /// Some chunk may exist in the store (strings then keep their width).
    pub chunks_on_disk: bool,
    /// Whether data was written (fill changes are then too late).
    pub data_written: bool,
    pub cache: ChunkCache,
    /// Quantize mode and parameter as recorded (reported by nc_inq_var_quantize).
    pub quantize: (i32, i32),
    /// The codec chain resolved for the current codecs, chunk shape and type
    /// (see `Var::chain_key`); stale entries are ignored.
    pub chain: Option<ResolvedChain>,
    /// Where the values come from when they are not this variable's chunks
    /// (an aggregated variable assembled from fragments): None for an
    /// ordinary variable.
    pub external: Option<Arc<dyn ExternalData>>,
    /// Stored in one block, not in chunks (a variable of a file read
    /// through the system libnetcdf): `nc_inq_var_chunking` answers
    /// NC_CONTIGUOUS.
    pub contiguous: bool,
}

/// Values held outside the variable's own chunks: the data path hands a
/// read of such a variable to it before looking at chunks.
pub trait ExternalData: Send + Sync + std::fmt::Debug {
    /// Read the selection (`start`, `count`, `stride` per dimension, already
    /// checked against the variable's shape) into `out`, `count`'s product
    /// values of type `mem` in row-major order. Values out of range for
    /// `mem` are written and reported as `NcError::Range` at the end.
    fn read(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, out: &mut [u8]) -> NcResult<()>;

    /// Read the selection of an NC_STRING variable, one value per entry of
    /// `out` (None for a NULL string). Sources of numbers answer NC_EBADTYPE.
    fn read_strings(
        &self,
        _start: &[usize],
        _count: &[usize],
        _stride: &[usize],
        _out: &mut [Option<Vec<u8>>],
    ) -> NcResult<()> {
        Err(NcError::BadType)
    }

    /// Whether the values are the variable's own, as its file stores them
    /// (a variable of a dataset read through the system libnetcdf), rather
    /// than assembled from elsewhere (an aggregated variable).
    fn stored_as_is(&self) -> bool {
        false
    }

    /// Write the selection (checked as for `read`) from `data`, `count`'s
    /// product values of type `mem`. Sources that are read-only answer
    /// NC_EPERM.
    fn write(&self, _start: &[usize], _count: &[usize], _stride: &[usize], _mem: NcType, _data: &[u8]) -> NcResult<()> {
        Err(NcError::Perm)
    }

    /// The source as `Any`, for the layer that made it (None: not needed).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// What a variable's codec chain was resolved for, and the result.
#[derive(Debug, Clone)]
pub struct ResolvedChain {
    pub key: ChainKey,
    pub chain: Result<std::sync::Arc<crate::codec::Chain>, NcError>,
}

/// Everything a resolved chain depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainKey {
    pub codecs: Vec<serde_json::Value>,
    pub chunk: Vec<usize>,
    pub ty: NcType,
    pub elem_size: usize,
    pub big_endian: bool,
}

#[derive(Debug)]
pub struct Group {
    pub name: String,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Dataset-wide ids of the dimensions defined here, in definition order.
    pub dims: Vec<usize>,
    pub vars: Vec<Var>,
    pub atts: AttList,
    pub stored_key: Option<String>,
    /// The dimensions defined here by name, made when first asked for
    /// (`Dataset::group_dim`): programs look dimensions up by name (ncdump
    /// once per dimension of every variable).
    dim_index: std::sync::Mutex<Option<DimIndex>>,
    /// The variables defined here by name, made when first asked for
    /// (`Dataset::group_var`) and extended as variables are appended
    /// (definitions check every new name; programs look variables up by
    /// name); removals and renames drop it.
    var_index: std::sync::Mutex<Option<VarIndex>>,
}

/// A group's variables by name, and how many of them it covers.
#[derive(Debug, Default)]
struct VarIndex {
    count: usize,
    by_name: HashMap<String, usize>,
}

/// A group's dimensions by name, and how many it had when this was made:
/// a dimension added since (by any code that pushes to `Group::dims`)
/// makes it stale; renames go through `Dataset::rename_dim`, which drops it.
#[derive(Debug)]
struct DimIndex {
    count: usize,
    by_name: HashMap<String, usize>,
}

impl Group {
    pub fn new(name: &str, parent: Option<usize>) -> Group {
        Group {
            name: name.to_string(),
            parent,
            children: Vec::new(),
            dims: Vec::new(),
            vars: Vec::new(),
            atts: AttList::default(),
            stored_key: None,
            dim_index: std::sync::Mutex::new(None),
            var_index: std::sync::Mutex::new(None),
        }
    }
}

/// Flags that decide how metadata is written. The default: NCZarr on
/// Zarr v2, as netcdf-c writes it (no xarray names, not consolidated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flavor {
    /// Pure Zarr: no `_nczarr_*` attributes.
    pub pure_zarr: bool,
    /// Write `_ARRAY_DIMENSIONS` (xarray convention).
    pub xarray: bool,
    /// Write `.zmetadata` at close (v3: the root `zarr.json` holds it).
    pub consolidated: bool,
    /// Zarr v3 (`zarr.json` per node) rather than v2.
    pub v3: bool,
    /// v3: new variables get shards of about this many bytes (mode key
    /// `shards=`), unless they have their own.
    pub shard_target: Option<u64>,
}

/// What `nc_inq_format` and `nc_inq_format_extended` answer for a dataset
/// whose format is not NCZarr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportedFormat {
    pub format: i32,
    pub formatx: i32,
    pub mode: i32,
}

#[derive(Debug)]
pub struct Dataset {
    /// The path as the caller gave it (nc_inq_path).
    pub path: String,
    pub store: Arc<dyn Store>,
    pub groups: Vec<Group>,
    pub dims: Vec<Dim>,
    pub writable: bool,
    pub define_mode: bool,
    /// NC_FILL (true) or NC_NOFILL set by nc_set_fill.
    pub fill_mode: bool,
    pub flavor: Flavor,
    /// `_NCProperties` as read or to be written.
    pub ncproperties: Option<String>,
    /// Major NCZarr format version (`_SuperblockVersion`): 2, or 0 for pure Zarr.
    pub superblock_version: i32,
    /// Whether group metadata must be written at the next sync.
    pub meta_dirty: bool,
    /// The dataset was created by this handle (not opened).
    pub created: bool,
    /// Bytes of whole chunks that writes left in the caches to be stored at
    /// the next sync (see `engine::put_vars`); zeroed by `engine::flush_chunks`.
    pub deferred_bytes: usize,
    /// The aggregation encodings this view expanded (the virtual global
    /// attribute `_Aggregation`); None when nothing was expanded.
    pub aggregation: Option<String>,
    /// The format reported for a dataset that is not Zarr (a netCDF master
    /// read through the system libnetcdf); None for a Zarr dataset.
    pub reported_format: Option<ReportedFormat>,
    /// nc_enddef and nc_close make what was written durable on the disk, as
    /// nc_sync always does (the mode key `durable`, `NCZARR_DURABLE`).
    pub durable: bool,
    /// The state of a dataset opened by several MPI processes together
    /// (`nc_create_par`, `nc_open_par`), kept by `api::parallel`; None for
    /// a dataset of one process.
    pub parallel: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// Check a netCDF name as netcdf-c does (`NC_check_name`): UTF-8, at most
/// NC_MAX_NAME bytes, no '/', no control characters, first character
/// alphanumeric, '_' or multibyte, no trailing space.
pub fn check_name(name: &str) -> NcResult<()> {
    if name.is_empty() {
        return Err(NcError::BadName);
    }
    if name.len() > NC_MAX_NAME {
        return Err(NcError::MaxName);
    }
    let mut chars = name.chars();
    let first = chars.next().ok_or(NcError::BadName)?;
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return Err(NcError::BadName);
    }
    for c in name.chars() {
        if c == '/' || (c.is_ascii() && (c as u32) < 0x20) || c == '\u{7f}' {
            return Err(NcError::BadName);
        }
    }
    if name.ends_with(' ') {
        return Err(NcError::BadName);
    }
    Ok(())
}

/// Attribute names the library manages itself and never shows as ordinary attributes.
pub fn is_hidden_att(name: &str) -> bool {
    matches!(
        name,
        "_ARRAY_DIMENSIONS"
            | "_nczarr_superblock"
            | "_nczarr_group"
            | "_nczarr_array"
            | "_nczarr_attr"
            | "_nczarr_attrs"
            | "_NCZARR_SUPERBLOCK"
            | "_NCZARR_GROUP"
            | "_NCZARR_ARRAY"
            | "_NCZARR_ATTR"
            | "_NCProperties"
    )
}

/// Virtual or reserved attribute names that users may not write: the
/// NCZarr bookkeeping keys anywhere, the dataset's virtual attributes on the
/// root group, `_Codecs` on variables.
pub fn is_reserved_att(name: &str, global: bool, root: bool) -> bool {
    let file_level = matches!(
        name,
        "_NCProperties" | "_IsNetcdf4" | "_SuperblockVersion" | "_Format" | "_Aggregation"
    );
    if file_level {
        return global && root;
    }
    is_hidden_att(name) || (!global && name == "_Codecs")
}

impl Var {
    pub fn new(name: &str, ty: NcType, dimids: Vec<usize>) -> Var {
        Var {
            name: name.to_string(),
            ty,
            dimids,
            atts: AttList::default(),
            chunks: Vec::new(),
            big_endian: cfg!(target_endian = "big"),
            native_order: false,
            stored_dtype: None,
            no_fill: false,
            fill: ty.default_fill(),
            codecs: Vec::new(),
            string_layout: StringLayout::Fixed(DEFAULT_MAXSTRLEN),
            dim_separator: '.',
            chunk_keys: ChunkKeys::V2,
            shards: None,
            shard_indexes: Arc::default(),
            order_f: false,
            stored_key: None,
            meta_dirty: true,
            created: false,
            chunks_on_disk: false,
            data_written: false,
            cache: {
                let (size, nelems, preemption) = cache_defaults();
                ChunkCache::new(size, nelems, preemption)
            },
            quantize: (0, 0),
            chain: None,
            external: None,
            contiguous: false,
        }
    }

    /// What the codec chain of this variable depends on.
    pub fn chain_key(&self) -> ChainKey {
        ChainKey {
            codecs: self.codecs.clone(),
            chunk: if self.is_scalar() { vec![1] } else { self.chunks.clone() },
            ty: self.ty,
            elem_size: self.stored_elem_size(),
            big_endian: self.big_endian,
        }
    }

    /// What a codec needs to know of this variable (`ncid` names its group).
    pub fn codec_context(&self, ncid: i32, varid: i32) -> crate::codec::VarContext {
        let k = self.chain_key();
        crate::codec::VarContext {
            ncid,
            varid,
            nc_type: self.ty.id(),
            type_size: k.elem_size,
            chunk_shape: k.chunk.iter().map(|&c| c as u64).collect(),
            little_endian: !self.big_endian,
            last_dim_len: None,
        }
    }

    /// Whether `key` describes this variable as it is now (no copies made:
    /// this runs on every data access).
    pub fn chain_key_matches(&self, key: &ChainKey) -> bool {
        let chunk_ok = if self.is_scalar() {
            key.chunk == [1]
        } else {
            key.chunk == self.chunks
        };
        chunk_ok
            && key.ty == self.ty
            && key.big_endian == self.big_endian
            && key.elem_size == self.stored_elem_size()
            && key.codecs == self.codecs
    }

    /// The resolved chain, if it is current; `None` when the variable has no
    /// codecs.
    pub fn current_chain(&self) -> Option<Result<std::sync::Arc<crate::codec::Chain>, NcError>> {
        if self.codecs.is_empty() {
            return None;
        }
        match &self.chain {
            Some(r) if self.chain_key_matches(&r.key) => Some(r.chain.clone()),
            _ => {
                // Not resolved through the API (which resolves outside the
                // dataset lock): resolve here; built-in codecs never call back.
                let ctx = self.codec_context(-1, -1);
                Some(crate::codec::resolve(&self.name, &self.codecs, &ctx).map(std::sync::Arc::new))
            }
        }
    }

    /// Chunks of this variable were stored under `node` (its folder's key):
    /// the folder is there now, and strings keep their width.
    pub fn chunks_stored(&mut self, node: &str) {
        self.chunks_on_disk = true;
        if self.stored_key.is_none() {
            self.stored_key = Some(node.to_string());
        }
    }

    pub fn is_scalar(&self) -> bool {
        self.dimids.is_empty()
    }

    /// After the chunk shape changed: shards rounded up to whole chunks
    /// (dropped when that is not possible).
    fn refit_shards(&mut self) {
        if let Some(l) = &self.shards
            && l.inner != self.chunks
        {
            self.shards = l.with_inner(&self.chunks);
        }
    }

    pub fn att(&self, name: &str) -> Option<&Att> {
        self.atts.by_name(name)
    }

    /// The byte size of one value as stored in a chunk (before codecs).
    pub fn stored_elem_size(&self) -> usize {
        match (self.ty, self.string_layout) {
            (NcType::String, StringLayout::Fixed(n)) => n,
            (NcType::String, StringLayout::Utf32 { n, .. }) => n * 4,
            (NcType::String, StringLayout::VlenUtf8) => 8,
            (t, _) => t.size(),
        }
    }
}

impl Dataset {
    /// A new writable dataset in a memory store, in define mode, with only its
    /// root group (for tests).
    #[cfg(test)]
    pub(crate) fn in_memory() -> Dataset {
        Dataset {
            path: "mem".into(),
            store: std::sync::Arc::new(crate::storage::memory::MemoryStore::new()),
            groups: vec![Group::new("/", None)],
            dims: Vec::new(),
            writable: true,
            define_mode: true,
            fill_mode: true,
            flavor: Flavor::default(),
            ncproperties: None,
            superblock_version: 2,
            meta_dirty: true,
            created: true,
            deferred_bytes: 0,
            aggregation: None,
            reported_format: None,
            durable: false,
            parallel: None,
        }
    }

    /// The group at `grp`, or NC_EBADGRPID.
    pub fn group(&self, grp: usize) -> NcResult<&Group> {
        self.groups.get(grp).ok_or(NcError::BadGrpId)
    }

    pub fn group_mut(&mut self, grp: usize) -> NcResult<&mut Group> {
        self.groups.get_mut(grp).ok_or(NcError::BadGrpId)
    }

    pub fn var(&self, grp: usize, varid: i32) -> NcResult<&Var> {
        let g = self.group(grp)?;
        usize::try_from(varid)
            .ok()
            .and_then(|i| g.vars.get(i))
            .ok_or(NcError::NotVar)
    }

    pub fn var_mut(&mut self, grp: usize, varid: i32) -> NcResult<&mut Var> {
        let g = self.group_mut(grp)?;
        usize::try_from(varid)
            .ok()
            .and_then(|i| g.vars.get_mut(i))
            .ok_or(NcError::NotVar)
    }

    /// Current shape of a variable (dimension lengths; empty for a scalar).
    pub fn var_shape(&self, var: &Var) -> Vec<usize> {
        var.dimids.iter().map(|&d| self.dims[d].len).collect()
    }

    /// The number of values of a variable (1 for a scalar). Dimensions are
    /// as large as storage says, but a shape whose product does not fit in
    /// 64 bits has no addressable data: NC_EVARSIZE (netcdf-c's code for a
    /// variable too large for its format). Such an array is shown, and
    /// only its data access fails.
    pub fn var_len(&self, var: &Var) -> NcResult<u64> {
        let mut lens = var.dimids.iter().map(|&d| self.dims[d].len as u64);
        if lens.clone().any(|n| n == 0) {
            return Ok(0);
        }
        lens.try_fold(1u64, u64::checked_mul).ok_or(NcError::VarSize)
    }

    /// Full path of a group: "/" for the root, "/g1/g2" otherwise.
    pub fn group_full_name(&self, grp: usize) -> String {
        let mut parts = Vec::new();
        let mut g = grp;
        while let Some(p) = self.groups[g].parent {
            parts.push(self.groups[g].name.as_str());
            g = p;
        }
        if parts.is_empty() {
            return "/".to_string();
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// Storage key (folder) of a group: "" for the root, "g1/g2" otherwise.
    pub fn group_key(&self, grp: usize) -> String {
        let full = self.group_full_name(grp);
        full.trim_start_matches('/').to_string()
    }

    /// Storage key of a variable's folder.
    pub fn var_key(&self, grp: usize, name: &str) -> String {
        key_in(&self.group_key(grp), name)
    }

    /// Is `anc` the group `grp` or one of its ancestors?
    pub fn is_ancestor(&self, anc: usize, grp: usize) -> bool {
        let mut g = Some(grp);
        while let Some(x) = g {
            if x == anc {
                return true;
            }
            g = self.groups[x].parent;
        }
        false
    }

    /// Find a dimension visible from `grp` by name (searching up the tree).
    pub fn find_dim(&self, grp: usize, name: &str) -> Option<usize> {
        let mut g = Some(grp);
        while let Some(x) = g {
            if let Some(d) = self.group_dim(x, name) {
                return Some(d);
            }
            g = self.groups[x].parent;
        }
        None
    }

    /// Remove the variables `gone` (group index, position) from this view,
    /// and the dimensions that only they used; dimension ids are renumbered
    /// so they stay dense. For views rewritten at open (aggregation), never
    /// for a dataset that will be written.
    pub fn hide_vars(&mut self, gone: &std::collections::HashSet<(usize, usize)>) {
        if gone.is_empty() {
            return;
        }
        let mut used_by_gone = vec![false; self.dims.len()];
        let mut used_by_kept = vec![false; self.dims.len()];
        for (g, grp) in self.groups.iter().enumerate() {
            for (i, v) in grp.vars.iter().enumerate() {
                let used = if gone.contains(&(g, i)) {
                    &mut used_by_gone
                } else {
                    &mut used_by_kept
                };
                for &d in &v.dimids {
                    if let Some(u) = used.get_mut(d) {
                        *u = true;
                    }
                }
            }
        }
        for (g, grp) in self.groups.iter_mut().enumerate() {
            let mut i = 0;
            *grp.var_index.get_mut().unwrap_or_else(|p| p.into_inner()) = None;
            grp.vars.retain(|_| {
                let keep = !gone.contains(&(g, i));
                i += 1;
                keep
            });
        }
        let drop: Vec<bool> = (0..self.dims.len())
            .map(|d| used_by_gone[d] && !used_by_kept[d])
            .collect();
        self.drop_dims(&drop);
    }

    /// Remove the dimensions marked in `drop` (used by no variable),
    /// renumbering the others so ids stay dense.
    fn drop_dims(&mut self, drop: &[bool]) {
        if !drop.iter().any(|&x| x) {
            return;
        }
        let mut new_id = vec![usize::MAX; self.dims.len()];
        let mut next = 0;
        for d in 0..self.dims.len() {
            if !drop[d] {
                new_id[d] = next;
                next += 1;
            }
        }
        let mut d = 0;
        self.dims.retain(|_| {
            let keep = !drop[d];
            d += 1;
            keep
        });
        for grp in &mut self.groups {
            grp.dims = grp.dims.iter().filter(|&&x| !drop[x]).map(|&x| new_id[x]).collect();
            *grp.dim_index.lock().unwrap_or_else(|p| p.into_inner()) = None;
            for v in &mut grp.vars {
                for x in &mut v.dimids {
                    *x = new_id[*x];
                }
            }
        }
    }

    /// Remove the groups `gone` from this view with their subgroups, their
    /// variables and the dimensions defined in them, renumbering the other
    /// groups. For views rewritten at open (the tables of S3netCDF4's
    /// group-form aggregations), before any handle names a group. A group
    /// defining a dimension that a variable outside it uses is kept.
    pub fn hide_groups(&mut self, gone: &std::collections::HashSet<usize>) {
        let n = self.groups.len();
        let mut hidden = vec![false; n];
        for &top in gone.iter().filter(|&&g| g != 0 && g < n) {
            let inside: Vec<bool> = (0..n).map(|g| self.is_ancestor(top, g)).collect();
            let used_outside = self.groups.iter().enumerate().any(|(g, grp)| {
                !inside[g]
                    && grp
                        .vars
                        .iter()
                        .flat_map(|v| &v.dimids)
                        .any(|&d| self.dims.get(d).is_some_and(|x| inside[x.group]))
            });
            if !used_outside {
                for (h, i) in hidden.iter_mut().zip(&inside) {
                    *h |= *i;
                }
            }
        }
        if !hidden.contains(&true) {
            return;
        }
        let vars: std::collections::HashSet<(usize, usize)> = (0..n)
            .filter(|&g| hidden[g])
            .flat_map(|g| (0..self.groups[g].vars.len()).map(move |i| (g, i)))
            .collect();
        self.hide_vars(&vars);
        let drop: Vec<bool> = self.dims.iter().map(|d| hidden[d.group]).collect();
        self.drop_dims(&drop);
        let mut new_id = vec![usize::MAX; n];
        let mut next = 0;
        for g in 0..n {
            if !hidden[g] {
                new_id[g] = next;
                next += 1;
            }
        }
        let mut g = 0;
        self.groups.retain(|_| {
            let keep = !hidden[g];
            g += 1;
            keep
        });
        for grp in &mut self.groups {
            grp.parent = grp.parent.map(|p| new_id[p]);
            grp.children = grp
                .children
                .iter()
                .filter(|&&c| !hidden[c])
                .map(|&c| new_id[c])
                .collect();
        }
        for d in &mut self.dims {
            d.group = new_id[d.group];
        }
    }

    /// The dimension `name` defined in group `grp` (not its ancestors), in
    /// constant time once the group's index is made.
    pub fn group_dim(&self, grp: usize, name: &str) -> Option<usize> {
        let g = self.groups.get(grp)?;
        if g.dims.len() <= 16 {
            return g.dims.iter().copied().find(|&d| self.dims[d].name == name);
        }
        let mut ix = g.dim_index.lock().unwrap_or_else(|p| p.into_inner());
        if ix.as_ref().is_none_or(|i| i.count != g.dims.len()) {
            // (On a repeated name the first definition wins, as in a scan.)
            let mut by_name = HashMap::with_capacity(g.dims.len());
            for &d in g.dims.iter().rev() {
                by_name.insert(self.dims[d].name.clone(), d);
            }
            *ix = Some(DimIndex {
                count: g.dims.len(),
                by_name,
            });
        }
        ix.as_ref().and_then(|i| i.by_name.get(name).copied())
    }

    /// The unlimited dimensions `grown` (dataset-wide ids) got longer: the
    /// dataset's metadata and that of every variable using them is rewritten.
    pub fn dims_grown(&mut self, grown: &[usize]) {
        if grown.is_empty() {
            return;
        }
        self.meta_dirty = true;
        for g in self.groups.iter_mut() {
            for v in g.vars.iter_mut() {
                if v.dimids.iter().any(|d| grown.contains(d)) {
                    v.meta_dirty = true;
                }
            }
        }
    }

    /// The index of the variable `name` of group `grp`.
    pub fn group_var(&self, grp: usize, name: &str) -> Option<usize> {
        let g = self.groups.get(grp)?;
        if g.vars.len() <= 16 {
            return g.vars.iter().position(|v| v.name == name);
        }
        let mut ix = g.var_index.lock().unwrap_or_else(|p| p.into_inner());
        let ix = ix.get_or_insert_with(VarIndex::default);
        if ix.count > g.vars.len() {
            *ix = VarIndex::default();
        }
        // Variables are only ever appended: index the new ones (on a
        // repeated name the first definition wins, as in a scan).
        for (i, v) in g.vars.iter().enumerate().skip(ix.count) {
            ix.by_name.entry(v.name.clone()).or_insert(i);
        }
        ix.count = g.vars.len();
        ix.by_name.get(name).copied()
    }

    /// Definitions need define mode; the netCDF-4 model enters it by itself
    /// (netcdf-c's NC4 `redef` on demand), so only a read-only dataset refuses.
    pub fn require_define(&mut self) -> NcResult<()> {
        if !self.writable {
            return Err(NcError::Perm);
        }
        self.define_mode = true;
        Ok(())
    }

    fn name_in_use(&self, grp: usize, name: &str) -> bool {
        let g = &self.groups[grp];
        self.group_var(grp, name).is_some() || g.children.iter().any(|&c| self.groups[c].name == name)
    }

    /// The string width a user chose: the variable's `_nczarr_maxstrlen`, else
    /// the root group's `_nczarr_default_maxstrlen` (netcdf-c's attributes).
    pub fn explicit_string_width(&self, grp: usize, varid: i32) -> Option<usize> {
        let as_width = |a: &Att| match &a.value {
            AttValue::Bytes(b) if a.ty.is_numeric() && !b.is_empty() => {
                let mut v = vec![0u8; 8];
                crate::model::convert::convert(a.ty, &b[..a.ty.size()], NcType::Int64, &mut v).ok()?;
                let n = i64::from_ne_bytes(v.try_into().ok()?);
                usize::try_from(n).ok().filter(|&n| n > 0 && n <= 1 << 20)
            }
            _ => None,
        };
        let v = self.var(grp, varid).ok()?;
        v.att("_nczarr_maxstrlen").and_then(as_width).or_else(|| {
            self.groups[0]
                .atts
                .by_name("_nczarr_default_maxstrlen")
                .and_then(as_width)
        })
    }

    /// Fix a string variable's width from the user's attributes while no
    /// chunk is stored yet. Returns whether the width was chosen explicitly.
    pub fn settle_string_width(&mut self, grp: usize, varid: i32) -> bool {
        if self.var(grp, varid).map_or(true, |v| v.ty != NcType::String) {
            return false;
        }
        let explicit = self.explicit_string_width(grp, varid);
        let Ok(v) = self.var_mut(grp, varid) else { return false };
        if let (Some(n), false) = (explicit, v.chunks_on_disk)
            && v.string_layout != StringLayout::Fixed(n)
        {
            {
                v.string_layout = StringLayout::Fixed(n);
                v.meta_dirty = true;
            }
        }
        explicit.is_some()
    }

    // ----- groups -----

    pub fn def_grp(&mut self, parent: usize, name: &str) -> NcResult<usize> {
        self.group(parent)?;
        check_name(name)?;
        self.require_define()?;
        if self.name_in_use(parent, name) {
            return Err(NcError::NameInUse);
        }
        let idx = self.groups.len();
        self.groups.push(Group::new(name, Some(parent)));
        self.groups[parent].children.push(idx);
        self.meta_dirty = true;
        Ok(idx)
    }

    pub fn rename_grp(&mut self, grp: usize, name: &str) -> NcResult<()> {
        let parent = self.group(grp)?.parent.ok_or(NcError::BadGrpId)?;
        check_name(name)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        if self.groups[grp].name == name {
            return Ok(());
        }
        if self.name_in_use(parent, name) {
            return Err(NcError::NameInUse);
        }
        self.groups[grp].name = name.to_string();
        self.meta_dirty = true;
        // Dimension references are paths: every array that uses a dimension
        // of the renamed subtree gets new metadata.
        let moved: Vec<bool> = (0..self.dims.len())
            .map(|d| self.is_ancestor(grp, self.dims[d].group))
            .collect();
        for g in &mut self.groups {
            for v in &mut g.vars {
                if v.dimids.iter().any(|&d| moved[d]) {
                    v.meta_dirty = true;
                }
            }
        }
        Ok(())
    }

    // ----- dimensions -----

    pub fn def_dim(&mut self, grp: usize, name: &str, len: usize) -> NcResult<usize> {
        self.group(grp)?;
        check_name(name)?;
        self.require_define()?;
        if self.group_dim(grp, name).is_some() {
            return Err(NcError::NameInUse);
        }
        // netcdf-c refuses sizes that do not fit a signed 64-bit count.
        if len > i64::MAX as usize {
            return Err(NcError::DimSize);
        }
        let id = self.dims.len();
        self.dims.push(Dim {
            name: name.to_string(),
            len,
            unlimited: len == 0,
            group: grp,
        });
        self.groups[grp].dims.push(id);
        self.meta_dirty = true;
        Ok(id)
    }

    /// Dimension id check. Ids are file-wide, and netcdf-c accepts any
    /// dimension of the file from any group (nc4_find_dim looks ids up in
    /// the file's list), so visibility is not checked.
    pub fn check_dimid(&self, dimid: i32) -> NcResult<usize> {
        let d = usize::try_from(dimid).map_err(|_| NcError::BadDim)?;
        if d >= self.dims.len() {
            return Err(NcError::BadDim);
        }
        Ok(d)
    }

    pub fn rename_dim(&mut self, grp: usize, dimid: i32, name: &str) -> NcResult<()> {
        self.group(grp)?;
        let d = self.check_dimid(dimid)?;
        check_name(name)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        let owner = self.dims[d].group;
        if self.groups[owner]
            .dims
            .iter()
            .any(|&o| o != d && self.dims[o].name == name)
        {
            return Err(NcError::NameInUse);
        }
        self.dims[d].name = name.to_string();
        *self.groups[owner]
            .dim_index
            .get_mut()
            .unwrap_or_else(|p| p.into_inner()) = None;
        self.meta_dirty = true;
        for g in &mut self.groups {
            for v in &mut g.vars {
                if v.dimids.contains(&d) {
                    v.meta_dirty = true;
                }
            }
        }
        Ok(())
    }

    // ----- variables -----

    pub fn def_var(&mut self, grp: usize, name: &str, ty: NcType, dimids: &[i32]) -> NcResult<i32> {
        self.group(grp)?;
        check_name(name)?;
        self.require_define()?;
        if self.group_var(grp, name).is_some() {
            return Err(NcError::NameInUse);
        }
        if self.groups[grp].children.iter().any(|&c| self.groups[c].name == name) {
            return Err(NcError::NameInUse);
        }
        if dimids.len() > crate::model::types::NC_MAX_VAR_DIMS {
            return Err(NcError::MaxDims);
        }
        let mut ds = Vec::with_capacity(dimids.len());
        for &d in dimids {
            ds.push(self.check_dimid(d)?);
        }
        let mut var = Var::new(name, ty, ds);
        var.no_fill = !self.fill_mode;
        var.dim_separator = default_dim_separator();
        if self.flavor.v3 {
            // Zarr v3 as zarr-python writes it: `c/0/1` keys, strings as
            // the `string` data type (variable length).
            var.chunk_keys = ChunkKeys::V3Default;
            var.dim_separator = '/';
            if ty == NcType::String {
                var.string_layout = StringLayout::VlenUtf8;
            }
        }
        let shape = self.var_shape(&var);
        let unlim: Vec<bool> = var.dimids.iter().map(|&d| self.dims[d].unlimited).collect();
        var.chunks = default_chunks(&shape, &unlim, ty.size());
        let g = &mut self.groups[grp];
        g.vars.push(var);
        self.meta_dirty = true;
        Ok((g.vars.len() - 1) as i32)
    }

    pub fn rename_var(&mut self, grp: usize, varid: i32, name: &str) -> NcResult<()> {
        self.var(grp, varid)?;
        check_name(name)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        if self.var(grp, varid)?.name == name {
            return Ok(());
        }
        if self.name_in_use(grp, name) {
            return Err(NcError::NameInUse);
        }
        let v = self.var_mut(grp, varid)?;
        v.name = name.to_string();
        v.meta_dirty = true;
        self.meta_dirty = true;
        *self.groups[grp].var_index.get_mut().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(())
    }

    /// Properties that may change only before the variable's metadata is first written.
    fn var_for_define(&mut self, grp: usize, varid: i32) -> NcResult<&mut Var> {
        if !self.writable {
            return Err(NcError::Perm);
        }
        self.var(grp, varid)?;
        if self.var(grp, varid)?.created {
            return Err(NcError::LateDef);
        }
        self.define_mode = true;
        self.var_mut(grp, varid)
    }

    pub fn def_var_chunking(&mut self, grp: usize, varid: i32, storage: i32, sizes: Option<&[usize]>) -> NcResult<()> {
        let shape = {
            let v = self.var(grp, varid)?;
            self.var_shape(v)
        };
        let unlim: Vec<bool> = {
            let v = self.var(grp, varid)?;
            v.dimids.iter().map(|&d| self.dims[d].unlimited).collect()
        };
        let v = self.var_for_define(grp, varid)?;
        if v.is_scalar() {
            // netcdf-c: a scalar has no storage layout to choose.
            return Err(NcError::Inval);
        }
        match storage {
            0 => {
                // NC_CHUNKED. NULL sizes keep the current ones; a zero entry
                // takes the default for that dimension.
                let Some(sizes) = sizes else { return Ok(()) };
                if sizes.len() < shape.len() {
                    return Err(NcError::Inval);
                }
                let defaults = default_chunks(&shape, &unlim, v.ty.size());
                let mut chunks = Vec::with_capacity(shape.len());
                for (i, &c) in sizes[..shape.len()].iter().enumerate() {
                    let c = if c == 0 { defaults[i] } else { c };
                    if !unlim[i] && c > shape[i] {
                        return Err(NcError::BadChunk);
                    }
                    chunks.push(c);
                }
                // A chunk must stay addressable in memory.
                let elems = chunks.iter().try_fold(v.stored_elem_size(), |a, &c| a.checked_mul(c));
                if elems.is_none_or(|b| b > u32::MAX as usize) {
                    return Err(NcError::BadChunk);
                }
                v.chunks = chunks;
                v.refit_shards();
            }
            1 | 2 => {
                // NC_CONTIGUOUS / NC_COMPACT: one chunk spanning the variable.
                if unlim.iter().any(|&u| u) {
                    return Err(NcError::Inval);
                }
                v.chunks = shape.iter().map(|&n| n.max(1)).collect();
                v.refit_shards();
            }
            _ => return Err(NcError::Inval),
        }
        v.meta_dirty = true;
        Ok(())
    }

    pub fn def_var_endian(&mut self, grp: usize, varid: i32, endian: i32) -> NcResult<()> {
        let v = self.var_for_define(grp, varid)?;
        if matches!(v.ty, NcType::Char | NcType::String) {
            return Err(NcError::Inval);
        }
        v.big_endian = match endian {
            0 => cfg!(target_endian = "big"),
            1 => false,
            2 => true,
            _ => return Err(NcError::Inval),
        };
        v.meta_dirty = true;
        Ok(())
    }

    pub fn def_var_fill(&mut self, grp: usize, varid: i32, no_fill: bool, value: Option<AttValue>) -> NcResult<()> {
        let v = self.var_for_define(grp, varid)?;
        if v.data_written {
            return Err(NcError::LateFill);
        }
        if no_fill && v.ty == NcType::String {
            return Err(NcError::Inval);
        }
        v.no_fill = no_fill;
        v.meta_dirty = true;
        if let Some(val) = value {
            let ty = v.ty;
            self.put_att(grp, varid, "_FillValue", ty, val)?;
        }
        Ok(())
    }

    // ----- attributes -----

    pub fn atts(&self, grp: usize, varid: i32) -> NcResult<&AttList> {
        if varid == crate::model::types::NC_GLOBAL {
            Ok(&self.group(grp)?.atts)
        } else {
            Ok(&self.var(grp, varid)?.atts)
        }
    }

    fn atts_mut(&mut self, grp: usize, varid: i32) -> NcResult<&mut AttList> {
        if varid == crate::model::types::NC_GLOBAL {
            Ok(&mut self.group_mut(grp)?.atts)
        } else {
            Ok(&mut self.var_mut(grp, varid)?.atts)
        }
    }

    fn mark_att_dirty(&mut self, grp: usize, varid: i32) {
        if varid == crate::model::types::NC_GLOBAL {
            self.meta_dirty = true;
        } else if let Ok(v) = self.var_mut(grp, varid) {
            v.meta_dirty = true;
        }
    }

    pub fn att(&self, grp: usize, varid: i32, name: &str) -> NcResult<&Att> {
        self.atts(grp, varid)?.by_name(name).ok_or(NcError::NotAtt)
    }

    pub fn put_att(&mut self, grp: usize, varid: i32, name: &str, ty: NcType, value: AttValue) -> NcResult<()> {
        self.atts(grp, varid)?;
        check_name(name)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        let global = varid == crate::model::types::NC_GLOBAL;
        if is_reserved_att(name, global, grp == 0) {
            return Err(NcError::NameInUse);
        }
        let exists = self.atts(grp, varid)?.position_of(name).is_some();
        if !self.define_mode && !exists {
            self.define_mode = true;
        }
        if name == "_FillValue" && !global {
            let v = self.var(grp, varid)?;
            if ty != v.ty {
                return Err(NcError::BadType);
            }
            let att = Att {
                name: name.to_string(),
                ty,
                value: value.clone(),
            };
            if att.len() != 1 {
                return Err(NcError::Inval);
            }
            if v.created || v.data_written {
                return Err(NcError::LateFill);
            }
            let fill = match &value {
                AttValue::Bytes(b) => b.clone(),
                AttValue::Strings(s) => s[0].clone(),
            };
            let v = self.var_mut(grp, varid)?;
            v.fill = fill;
            v.cache.clear_fill();
        }
        self.atts_mut(grp, varid)?.set(Att {
            name: name.to_string(),
            ty,
            value,
        });
        self.mark_att_dirty(grp, varid);
        Ok(())
    }

    pub fn rename_att(&mut self, grp: usize, varid: i32, name: &str, newname: &str) -> NcResult<()> {
        self.att(grp, varid, name)?;
        check_name(newname)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        if is_reserved_att(newname, varid == crate::model::types::NC_GLOBAL, grp == 0) || newname == "_FillValue" {
            return Err(NcError::NameInUse);
        }
        let atts = self.atts_mut(grp, varid)?;
        if atts.position_of(newname).is_some() {
            return Err(NcError::NameInUse);
        }
        atts.rename(name, newname);
        self.mark_att_dirty(grp, varid);
        Ok(())
    }

    pub fn del_att(&mut self, grp: usize, varid: i32, name: &str) -> NcResult<()> {
        self.att(grp, varid, name)?;
        if !self.writable {
            return Err(NcError::Perm);
        }
        self.define_mode = true;
        if name == "_FillValue" && varid != crate::model::types::NC_GLOBAL {
            // The fill value in effect stays (netcdf-c leaves it alone too).
            let v = self.var(grp, varid)?;
            if v.created || v.data_written {
                return Err(NcError::LateFill);
            }
        }
        self.atts_mut(grp, varid)?.retain(|a| a.name != name);
        self.mark_att_dirty(grp, varid);
        Ok(())
    }
}

/// netcdf-c's default chunk sizes for NCZarr (`ncz_find_default_chunksizes2`):
/// unlimited dimensions get 1, except that a 1-D unlimited variable gets 4 KiB
/// worth and an all-unlimited variable shares the 16 MiB target evenly; fixed
/// dimensions share DEFAULT_CHUNK_SIZE (16 MiB); chunks over 4 GiB are halved;
/// then each size is trimmed so the last chunk overhangs as little as possible.
/// The element count is accumulated in single precision, as netcdf-c does.
pub fn default_chunks(shape: &[usize], unlimited: &[bool], type_size: usize) -> Vec<usize> {
    const DEFAULT_CHUNK_SIZE: usize = 16_777_216;
    const DEFAULT_1D_UNLIM_SIZE: usize = 4096;
    let n = shape.len();
    if n == 0 {
        return Vec::new();
    }
    let type_size = type_size.max(1);
    let num_unlim = unlimited.iter().filter(|&&u| u).count();
    let mut num_values: f32 = 1.0;
    for (&s, &u) in shape.iter().zip(unlimited) {
        if !u {
            num_values *= s as f32;
        }
    }
    let mut chunks: Vec<usize> = vec![0; n];
    for (c, &u) in chunks.iter_mut().zip(unlimited) {
        if u {
            *c = 1;
        }
    }
    if n == 1 && num_unlim == 1 {
        let suggested = (DEFAULT_CHUNK_SIZE / type_size).clamp(1, DEFAULT_1D_UNLIM_SIZE);
        chunks[0] = (suggested / type_size).max(1);
    }
    if n > 1 && num_unlim == n {
        let s = ((DEFAULT_CHUNK_SIZE / type_size) as f64).powf(1.0 / n as f64) as usize;
        chunks = vec![s.max(1); n];
    }
    for i in 0..n {
        if chunks[i] == 0 {
            let root = (DEFAULT_CHUNK_SIZE as f64 / (f64::from(num_values) * type_size as f64))
                .powf(1.0 / (n - num_unlim) as f64);
            let s = (root * shape[i] as f64 - 0.5) as usize;
            chunks[i] = s.min(shape[i]).max(1);
        }
    }
    // Halve while one chunk would exceed 4 GiB.
    while chunks.iter().fold(type_size as f64, |a, &c| a * c as f64) > u32::MAX as f64 {
        for c in chunks.iter_mut() {
            *c = (*c / 2).max(1);
        }
    }
    // Trim overhangs.
    for i in 0..n {
        let nchunks = shape[i].div_ceil(chunks[i]);
        if nchunks > 0 {
            let overhang = nchunks * chunks[i] - shape[i];
            chunks[i] -= overhang / nchunks;
        }
    }
    chunks
}

/// The storage key of `name` in the group whose key is `group_key` ("" for
/// the root): a variable's folder, as [`Dataset::var_key`] gives it.
pub fn key_in(group_key: &str, name: &str) -> String {
    if group_key.is_empty() {
        name.to_string()
    } else {
        format!("{group_key}/{name}")
    }
}

/// Whether `key` is [`key_in`]`(group_key, name)`, without building it.
pub fn is_key_in(key: &str, group_key: &str, name: &str) -> bool {
    match key.strip_suffix(name) {
        Some("") => group_key.is_empty(),
        Some(prefix) => prefix.strip_suffix('/') == Some(group_key),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("abc").is_ok());
        assert!(check_name("_x").is_ok());
        assert!(check_name("été").is_ok());
        assert_eq!(check_name(""), Err(NcError::BadName));
        assert_eq!(check_name("a/b"), Err(NcError::BadName));
        assert_eq!(check_name("-a"), Err(NcError::BadName));
        assert_eq!(check_name("a "), Err(NcError::BadName));
        assert_eq!(check_name(&"a".repeat(257)), Err(NcError::MaxName));
    }

    #[test]
    fn variables_are_found_by_name_through_definitions_and_renames() {
        let mut ds = Dataset::in_memory();
        let d = ds.def_dim(0, "n", 4).unwrap() as i32;
        for i in 0..40 {
            assert_eq!(ds.def_var(0, &format!("v{i}"), NcType::Float, &[d]), Ok(i));
        }
        assert_eq!(ds.group_var(0, "v0"), Some(0));
        assert_eq!(ds.group_var(0, "v39"), Some(39));
        assert_eq!(ds.def_var(0, "v17", NcType::Int, &[d]), Err(NcError::NameInUse));
        // Found after more are defined, and after a rename (old name gone).
        assert_eq!(ds.def_var(0, "late", NcType::Int, &[d]), Ok(40));
        assert_eq!(ds.group_var(0, "late"), Some(40));
        ds.rename_var(0, 3, "three").unwrap();
        assert_eq!(ds.group_var(0, "v3"), None);
        assert_eq!(ds.group_var(0, "three"), Some(3));
        assert_eq!(ds.def_var(0, "v3", NcType::Int, &[d]), Ok(41));
        assert_eq!(ds.def_var(0, "three", NcType::Int, &[d]), Err(NcError::NameInUse));
        assert_eq!(ds.group_var(0, "nothing"), None);
    }

    #[test]
    fn any_of_several_attribute_names_is_found_short_or_indexed() {
        let att = |name: &str| Att {
            name: name.to_string(),
            ty: NcType::Int,
            value: AttValue::Bytes(vec![0; 4]),
        };
        let mut list = AttList::default();
        assert!(!list.has_any(&["a", "b"]));
        list.set(att("b"));
        assert!(list.has_any(&["a", "b"]));
        assert!(!list.has_any(&["a", "c"]));
        for i in 0..=ATT_SCAN_LIMIT {
            list.set(att(&format!("x{i}")));
        }
        assert!(list.index.is_some());
        assert!(list.has_any(&["a", "b"]));
        assert!(!list.has_any(&["a", "c"]));
    }

    #[test]
    fn a_key_is_recognised_as_the_one_key_in_builds() {
        for (g, n) in [("", "v"), ("g", "v"), ("g/h", "v"), ("g", "gv")] {
            let k = key_in(g, n);
            assert!(is_key_in(&k, g, n), "{g:?} {n:?}");
        }
        assert!(!is_key_in("v", "g", "v"));
        assert!(!is_key_in("g/v", "", "v"));
        assert!(!is_key_in("gv", "g", "v"));
        assert!(!is_key_in("x/g/v", "g", "v"));
        assert!(!is_key_in("g/w", "g", "v"));
    }

    #[test]
    fn chunk_defaults() {
        assert_eq!(default_chunks(&[10], &[false], 4), vec![10]);
        assert_eq!(default_chunks(&[0], &[true], 8), vec![512]);
        assert_eq!(default_chunks(&[0, 3], &[true, false], 4), vec![1, 3]);
    }
}
