//! netCDF-3 and netCDF-4/HDF5 masters: a dataset the system libnetcdf has
//! opened read-only that holds CF aggregation variables is shown through
//! this library's own model, so that the aggregation layer sits above
//! delegation.
//!
//! At `nc_open` (read-only, not the raw view), after the system library
//! opened the file, [`adopt`] looks for aggregation variables: two
//! attribute inquiries per variable (`aggregated_dimensions`,
//! `aggregated_data`), metadata only. None found: the dataset stays with
//! the system library, exactly as before. Found: the file's groups,
//! dimensions, variables, attributes, chunking and filters are copied into
//! a `model::Dataset` (no data is read), each variable's values stay in the
//! file and are read through the system library on demand (`StoredVar`,
//! the variable's `ExternalData` source), and `aggregate::expand` rewrites
//! the aggregation variables as for a Zarr master. A file whose types the
//! model cannot hold (user-defined types), or whose copy fails, or in
//! which nothing could be expanded, stays with the system library, with a
//! log line. The dataset is read-only.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use crate::aggregate::parse::{self, AggAtts, Detected};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::types::{NC_GLOBAL, NcType};
use crate::model::{Att, AttValue, Dataset, Dim, ExternalData, Flavor, Group, ReportedFormat, Var};
use crate::storage::memory::MemoryStore;
use crate::sys::netcdf::{SysAttValue, SysFile, SysLayout};

/// What became of a dataset the system library opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adopted {
    /// Shown through this library's model: our ncid.
    Ours(i32),
    /// Left with the system library: its id there.
    Delegated(i32),
}

/// Look at a dataset the system library opened read-only (`ext` its id
/// there) and take it over when it holds aggregation variables that can be
/// expanded. An error is a failure to register the new dataset (the file
/// is closed then).
pub fn adopt(path: &str, ext: i32) -> NcResult<Adopted> {
    let file = SysFile::adopt(ext);
    if !has_aggregation(&file) {
        return Ok(Adopted::Delegated(file.release()));
    }
    let file = Arc::new(file);
    let view = build(path, &file).and_then(|mut ds| {
        let master = crate::aggregate::MasterAt {
            uri: path.to_string(),
            base: crate::aggregate::fragment::Base::of_master(path, !path.contains("://")),
            confined: crate::aggregate::confined_by_env(),
        };
        crate::aggregate::expand(&mut ds, &master, &[]).map_err(|e| format!("{e:?}"))?;
        let expanded = ds
            .groups
            .iter()
            .flat_map(|g| &g.vars)
            .any(|v| v.external.as_ref().is_some_and(|e| !e.stored_as_is()));
        if expanded {
            Ok(ds)
        } else {
            Err("no aggregation variable could be expanded".to_string())
        }
    });
    match view {
        Ok(ds) => super::handles::insert(ds).map(Adopted::Ours),
        Err(why) => {
            crate::nclog!(Level::Note, "{path}: left to the system libnetcdf: {why}");
            // Every clone of the file lived in the dropped view.
            match Arc::into_inner(file) {
                Some(f) => Ok(Adopted::Delegated(f.release())),
                None => Err(NcError::Internal),
            }
        }
    }
}

/// Whether some variable has the attributes of an aggregation that
/// `aggregate::expand` expands (term-based, or CFA-0.4 and S3netCDF4's
/// group form: then `cf_role` is a third inquiry). Errors read as no.
fn has_aggregation(f: &SysFile) -> bool {
    let mut stack = vec![f.root()];
    while let Some(g) = stack.pop() {
        let Ok(n) = f.nvars(g) else { return false };
        for v in 0..n as i32 {
            // An aggregation variable is a scalar, or a char variable with
            // its string length: the attributes of others are not looked at
            // (netCDF-4 reads a variable's attributes from the file on first
            // inquiry).
            match f.var_ndims(g, v) {
                Ok(0) => {}
                Ok(1) if f.var_type_shape(g, v).is_ok_and(|(t, _)| t == NcType::Char.id()) => {}
                _ => continue,
            }
            let dims = f.att_text(g, v, "aggregated_dimensions");
            let data = f.att_text(g, v, "aggregated_data");
            let role = if dims.is_none() && data.is_none() {
                f.att_text(g, v, "cf_role")
            } else {
                None
            };
            if dims.is_none() && data.is_none() && role.as_deref().map(str::trim) != Some("cfa_variable") {
                continue;
            }
            // CFA-0.4 (cf_role = "cfa_variable"): its two attributes too.
            let cfa = |n: &str| role.as_ref().and_then(|_| f.att_text(g, v, n));
            let atts = AggAtts {
                aggregated_dimensions: dims,
                aggregated_data: data,
                cf_role: role.clone(),
                cfa_group: cfa("cfa_group"),
                cfa_array: cfa("cfa_array"),
                cfa_dimensions: cfa("cfa_dimensions"),
            };
            if matches!(
                parse::detect(&atts),
                Some(Detected::Terms { .. } | Detected::Cfa04 { .. } | Detected::CfaGroup { .. })
            ) {
                return true;
            }
        }
        match f.subgroups(g) {
            Ok(c) => stack.extend(c),
            Err(_) => return false,
        }
    }
    false
}

/// The values of a variable of the delegated file, read through the
/// system library (which converts to the memory type by netcdf-c's rules).
#[derive(Debug)]
struct StoredVar {
    file: Arc<SysFile>,
    grp: i32,
    varid: i32,
}

fn code_error(rc: i32) -> NcError {
    NcError::from_code(rc).unwrap_or_else(|| {
        crate::nclog!(Level::Error, "the system libnetcdf answers {rc}");
        NcError::Io
    })
}

impl ExternalData for StoredVar {
    fn read(&self, start: &[usize], count: &[usize], stride: &[usize], mem: NcType, out: &mut [u8]) -> NcResult<()> {
        let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        self.file
            .get_vars_as((self.grp, self.varid), start, count, &st, mem.id(), out)
            .map_err(code_error)
    }

    fn read_strings(
        &self,
        start: &[usize],
        count: &[usize],
        stride: &[usize],
        out: &mut [Option<Vec<u8>>],
    ) -> NcResult<()> {
        let st: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
        self.file
            .get_vars_strings((self.grp, self.varid), start, count, &st, out)
            .map_err(code_error)
    }

    fn stored_as_is(&self) -> bool {
        true
    }
}

/// The model of the whole file (metadata only).
fn build(path: &str, f: &Arc<SysFile>) -> Result<Dataset, String> {
    let fmt = f
        .format()
        .map_err(|rc| format!("nc_inq_format: the system libnetcdf answers {rc}"))?;
    let root = f.root();
    let superblock = match f.att_value(root, NC_GLOBAL, "_SuperblockVersion") {
        Ok((4, SysAttValue::Bytes(b))) if b.len() >= 4 => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
        _ => 0,
    };
    let mut ds = Dataset {
        path: path.to_string(),
        store: Arc::new(MemoryStore::new()),
        groups: Vec::new(),
        dims: Vec::new(),
        writable: false,
        define_mode: false,
        fill_mode: true,
        flavor: Flavor::default(),
        ncproperties: f.att_text(root, NC_GLOBAL, "_NCProperties"),
        superblock_version: superblock,
        meta_dirty: false,
        created: false,
        deferred_bytes: 0,
        aggregation: None,
        reported_format: Some(ReportedFormat {
            format: fmt.format,
            formatx: fmt.formatx,
            mode: fmt.mode,
        }),
        durable: false,
        parallel: None,
    };
    let mut b = Builder {
        f,
        ds: &mut ds,
        dims: HashMap::new(),
    };
    b.group(root, "/", None)?;
    Ok(ds)
}

struct Builder<'a> {
    f: &'a Arc<SysFile>,
    ds: &'a mut Dataset,
    /// The system library's dimension ids to ours.
    dims: HashMap<i32, usize>,
}

impl Builder<'_> {
    /// Copy group `ext` (and its subgroups, depth first, so that every
    /// dimension a variable uses is known before it).
    fn group(&mut self, ext: i32, name: &str, parent: Option<usize>) -> Result<(), String> {
        let f = self.f;
        let e =
            |what: &'static str| move |rc: i32| format!("{what} of group {name}: the system libnetcdf answers {rc}");
        if f.type_count(ext).map_err(e("nc_inq_typeids"))? > 0 {
            return Err(format!(
                "group {name} defines user-defined types, which this view cannot hold"
            ));
        }
        let gi = self.ds.groups.len();
        self.ds.groups.push(Group::new(name, parent));
        if let Some(p) = parent {
            self.ds.groups[p].children.push(gi);
        }
        for d in f.dims(ext).map_err(e("nc_inq_dimids"))? {
            let id = self.ds.dims.len();
            self.ds.dims.push(Dim {
                name: d.name,
                len: d.len,
                unlimited: d.unlimited,
                group: gi,
            });
            self.ds.groups[gi].dims.push(id);
            self.dims.insert(d.id, id);
        }
        let natts = f.group_natts(ext).map_err(e("nc_inq_natts"))?;
        for a in self.atts(ext, NC_GLOBAL, natts)? {
            self.ds.groups[gi].atts.push(a);
        }
        for v in 0..f.nvars(ext).map_err(e("nc_inq_nvars"))? {
            let var = self.var(ext, v as i32)?;
            self.ds.groups[gi].vars.push(var);
        }
        for c in f.subgroups(ext).map_err(e("nc_inq_grps"))? {
            let cname = f.group_name(c).map_err(e("nc_inq_grpname"))?;
            self.group(c, &cname, Some(gi))?;
        }
        Ok(())
    }

    /// The attributes of a variable (or NC_GLOBAL), in order.
    fn atts(&self, grp: i32, varid: i32, n: usize) -> Result<Vec<Att>, String> {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let name = self
                .f
                .att_name(grp, varid, i)
                .map_err(|rc| format!("attribute {i}: the system libnetcdf answers {rc}"))?;
            let (ty, value) = self
                .f
                .att_value(grp, varid, &name)
                .map_err(|rc| format!("attribute {name}: the system libnetcdf answers {rc}"))?;
            let ty = NcType::from_id(ty).map_err(|_| format!("attribute {name} has a user-defined type"))?;
            let value = match value {
                SysAttValue::Bytes(b) => AttValue::Bytes(b),
                SysAttValue::Strings(s) => AttValue::Strings(s),
            };
            out.push(Att { name, ty, value });
        }
        Ok(out)
    }

    /// Variable `varid` of group `grp`, its values left in the file.
    fn var(&self, grp: i32, varid: i32) -> Result<Var, String> {
        let f = self.f;
        let info = f
            .var_info(grp, varid)
            .map_err(|rc| format!("variable {varid}: the system libnetcdf answers {rc}"))?;
        let vname = info.name.clone();
        let ty = NcType::from_id(info.type_id).map_err(|_| format!("variable {vname} has a user-defined type"))?;
        let dimids = info
            .dimids
            .iter()
            .map(|d| self.dims.get(d).copied())
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| format!("variable {vname} uses a dimension not found in its group or above"))?;
        let shape: Vec<usize> = dimids.iter().map(|&d| self.ds.dims[d].len).collect();
        let mut v = Var::new(&info.name, ty, dimids);
        for a in self.atts(grp, varid, info.natts)? {
            v.atts.push(a);
        }
        if ty == NcType::String {
            if let Some(Att {
                value: AttValue::Strings(s),
                ..
            }) = v.att("_FillValue")
                && let Some(first) = s.first()
            {
                v.fill = first.clone();
            }
        } else {
            match f.fill(grp, varid, ty.size()) {
                Some(fill) => v.fill = fill,
                None => v.no_fill = true,
            }
        }
        v.chunks = match f.layout(grp, varid, shape.len()) {
            Ok(SysLayout::Chunked(c)) => c,
            _ => {
                v.contiguous = true;
                shape.iter().map(|&n| n.max(1)).collect()
            }
        };
        for (id, params) in f.filters(grp, varid) {
            let codec = crate::codec::codec_by_hdf5(id)
                .and_then(|m| m.hdf5_to_codec(&params).ok())
                .and_then(|t| serde_json::from_str(&t).ok());
            match codec {
                Some(c) => v.codecs.push(c),
                None => crate::nclog!(
                    Level::Note,
                    "variable {vname}: filter {id} has no codec here; not reported"
                ),
            }
        }
        v.created = true;
        v.meta_dirty = false;
        v.external = Some(Arc::new(StoredVar {
            file: Arc::clone(f),
            grp,
            varid,
        }));
        Ok(v)
    }
}
