//! CF aggregation: a variable that stands for an N-d array assembled from
//! fragments held in other datasets (CF-1.13 section 2.8, its drafts,
//! CFA-0.6.2), shown as the array it stands for.
//!
//! At open (metadata only: the small fragment tables are read, no fragment
//! is opened) every aggregation variable is recognised by its attributes
//! (`parse.rs`), validated, and the view is rewritten: the variable gets
//! the aggregated dimensions and a data source (`source.rs`) that reads the
//! fragments (`fragment.rs`) a request touches; the fragment-table
//! variables, and dimensions only they use, are hidden; the virtual global
//! attribute `_Aggregation` names the encodings. A variable whose tables
//! are invalid is shown as stored, with a log line.
//!
//! This module sits at the api level: `api::open` calls [`expand`], and
//! fragments are opened through `api::open_view` (Zarr) or the system
//! libnetcdf (`sys::netcdf::SysFile`).
#![forbid(unsafe_code)]

pub mod fragment;
pub mod parse;
pub mod source;
pub mod units;
pub mod write;

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use crate::error::NcResult;
use crate::model::convert::convert;
use crate::model::types::NcType;
use crate::model::{AttValue, Dataset, Var};
use fragment::Base;
use parse::{AggAtts, Detected, Encoding, Table, Tables};

/// How deep aggregations may nest (a fragment that is itself a master).
pub const MAX_DEPTH: usize = 8;
/// The environment variable that selects the raw view everywhere.
pub const ENV_VIEW: &str = "NCZARR_AGGREGATION";
/// Most values a fragment table may hold.
const MAX_TABLE_VALUES: usize = 1 << 24;

/// The environment variable that confines fragment URIs everywhere
/// (`confined`; `any`, the default, does not).
pub const ENV_URIS: &str = "NCZARR_AGGREGATION_URIS";

/// Whether `NCZARR_AGGREGATION_URIS=confined` confines fragment URIs to
/// their master's directory. Another value than `confined` or `any` is
/// taken as `confined`, with a log line: a safety switch fails closed.
pub fn confined_by_env() -> bool {
    match std::env::var(ENV_URIS) {
        Err(_) => false,
        Ok(v) if v.trim().eq_ignore_ascii_case("any") || v.trim().is_empty() => false,
        Ok(v) => {
            if !v.trim().eq_ignore_ascii_case("confined") {
                crate::nclog!(
                    crate::log::Level::Warn,
                    "{ENV_URIS}={v:?} is neither confined nor any; taken as confined"
                );
            }
            true
        }
    }
}

/// Whether `NCZARR_AGGREGATION=raw` asks for the stored view everywhere.
pub fn raw_by_env() -> bool {
    std::env::var(ENV_VIEW).is_ok_and(|v| v.trim().eq_ignore_ascii_case("raw"))
}

/// Where a master is, for resolving its fragments.
#[derive(Debug, Clone)]
pub struct MasterAt {
    /// The path or URL the master was opened with.
    pub uri: String,
    /// Where relative fragment URIs resolve.
    pub base: Base,
    /// Fragment URIs must stay inside `base` (relative, no `..` above it,
    /// no scheme): see [`fragment::check_confined`].
    pub confined: bool,
}

fn text_of(value: &AttValue) -> Option<String> {
    match value {
        AttValue::Bytes(b) => Some(String::from_utf8_lossy(b).trim_end_matches('\0').to_string()),
        AttValue::Strings(s) => s.first().map(|x| String::from_utf8_lossy(x).into_owned()),
    }
}

fn agg_atts(v: &Var) -> AggAtts {
    let t = |n: &str| v.att(n).and_then(|a| text_of(&a.value));
    AggAtts {
        aggregated_dimensions: t("aggregated_dimensions"),
        aggregated_data: t("aggregated_data"),
        cf_role: t("cf_role"),
        cfa_group: t("cfa_group"),
        cfa_array: t("cfa_array"),
        cfa_dimensions: t("cfa_dimensions"),
    }
}

/// A variable found by CF search from group `grp`: an absolute path, or a
/// name in `grp` or the nearest ancestor that has it.
fn find_var(ds: &Dataset, grp: usize, name: &str) -> Option<(usize, usize)> {
    if let Some(path) = name.strip_prefix('/') {
        let mut parts: Vec<&str> = path.split('/').collect();
        let last = parts.pop()?;
        let mut g = 0usize;
        for p in parts {
            g = *ds.groups[g].children.iter().find(|&&c| ds.groups[c].name == p)?;
        }
        return ds.groups[g].vars.iter().position(|v| v.name == last).map(|i| (g, i));
    }
    let mut g = Some(grp);
    while let Some(x) = g {
        if let Some(i) = ds.groups[x].vars.iter().position(|v| v.name == name) {
            return Some((x, i));
        }
        g = ds.groups[x].parent;
    }
    None
}

/// A dimension found by CF search from group `grp`.
fn find_dim(ds: &Dataset, grp: usize, name: &str) -> Option<usize> {
    let mut g = Some(grp);
    while let Some(x) = g {
        if let Some(d) = ds.group_dim(x, name) {
            return Some(d);
        }
        g = ds.groups[x].parent;
    }
    None
}

/// The fragment tables of one aggregation variable, read from the master.
struct DsTables<'a> {
    ds: &'a mut Dataset,
    grp: usize,
    /// The aggregated type (constant values are converted to it).
    ty: NcType,
    /// Tables are variables of `grp` itself (S3netCDF4's group), not found
    /// by CF search.
    exact: bool,
    /// A char aggregation whose string length is the variable's own
    /// dimension: a constant value is a string, the table's last dimension.
    strings: bool,
}

impl DsTables<'_> {
    /// The table variable `name`.
    fn find(&self, name: &str) -> Option<(usize, usize)> {
        if self.exact {
            self.ds.groups[self.grp]
                .vars
                .iter()
                .position(|v| v.name == name)
                .map(|i| (self.grp, i))
        } else {
            find_var(self.ds, self.grp, name)
        }
    }

    /// A whole table variable as `mem` values, with its shape and the
    /// values that mark a missing entry (its fill value, `missing_value`).
    fn read(&mut self, name: &str, mem: NcType) -> Result<RawTable, String> {
        let (g, i) = self.find(name).ok_or_else(|| format!("no table variable {name}"))?;
        let v = &self.ds.groups[g].vars[i];
        if v.external.as_ref().is_some_and(|e| !e.stored_as_is()) || v.ty == NcType::String && mem != NcType::String {
            return Err(format!("table variable {name} has the wrong kind"));
        }
        let shape = self.ds.var_shape(v);
        let n = table_len(&shape, name)?;
        let mut marks = Vec::new();
        if mem != NcType::String && mem != NcType::Char {
            let conv = |ty: NcType, b: &[u8]| -> Vec<Vec<u8>> {
                b.chunks_exact(ty.size())
                    .filter_map(|x| {
                        let mut o = vec![0u8; mem.size()];
                        convert(ty, x, mem, &mut o).ok().map(|()| o)
                    })
                    .collect()
            };
            if !v.no_fill && v.ty.is_numeric() {
                marks.extend(conv(v.ty, &v.fill));
            } else if v.ty.is_numeric() {
                // Fill off (cfdm writes its tables so): an entry holding the
                // type's default fill value is still missing, as netCDF4-python
                // and so cfdm read it.
                marks.extend(conv(v.ty, &v.ty.default_fill()));
            }
            if let Some(a) = v.att("missing_value")
                && let AttValue::Bytes(b) = &a.value
                && a.ty.is_numeric()
            {
                marks.extend(conv(a.ty, b));
            }
        }
        let mut data = vec![0u8; n * mem.size()];
        self.read_whole(
            g,
            i,
            &shape,
            crate::engine::MemOut::Num {
                ty: mem,
                data: &mut data,
            },
        )
        .map_err(|e| format!("table variable {name} cannot be read as {}: {e:?}", mem.name()))?;
        Ok(RawTable { shape, data, marks })
    }

    /// A string table of constant values as they are stored: a NULL entry,
    /// or one equal to the table's own `_FillValue`, is missing.
    fn string_values(&mut self, var: &str) -> Result<Table<Option<Vec<u8>>>, String> {
        let (g, i) = self.find(var).ok_or_else(|| format!("no table variable {var}"))?;
        let v = &self.ds.groups[g].vars[i];
        if v.ty != NcType::String {
            return Err(format!("table variable {var} is not a string variable"));
        }
        let shape = self.ds.var_shape(v);
        let fill = v.att("_FillValue").and_then(|a| text_of(&a.value));
        let mut vals: Vec<Option<Vec<u8>>> = vec![None; table_len(&shape, var)?];
        self.read_whole(g, i, &shape, crate::engine::MemOut::Str(&mut vals))
            .map_err(|e| format!("table variable {var} cannot be read: {e:?}"))?;
        let data = vals
            .into_iter()
            .map(|s| s.filter(|b| fill.as_deref().is_none_or(|f| f.as_bytes() != b.as_slice())))
            .collect();
        Ok(Table { shape, data })
    }

    /// Every value of variable `i` of group `g` (of shape `shape`) into `out`.
    fn read_whole(&mut self, g: usize, i: usize, shape: &[usize], out: crate::engine::MemOut<'_>) -> NcResult<()> {
        let zeros = vec![0usize; shape.len()];
        crate::engine::get_vars(self.ds, g, i as i32, &zeros, shape, None, out)
    }
}

/// The number of values of a table variable of `shape`, at most
/// `MAX_TABLE_VALUES`.
fn table_len(shape: &[usize], name: &str) -> Result<usize, String> {
    shape
        .iter()
        .try_fold(1usize, |a, &c| a.checked_mul(c))
        .filter(|&n| n <= MAX_TABLE_VALUES)
        .ok_or_else(|| format!("table variable {name} is too large"))
}

/// A table variable read whole: its shape, its values, and the values that
/// mark a missing entry.
struct RawTable {
    shape: Vec<usize>,
    data: Vec<u8>,
    marks: Vec<Vec<u8>>,
}

impl Tables for DsTables<'_> {
    fn dim_len(&mut self, name: &str) -> Option<usize> {
        find_dim(self.ds, self.grp, name).map(|d| self.ds.dims[d].len)
    }

    fn ints(&mut self, var: &str) -> Result<Table<Option<i64>>, String> {
        let RawTable { shape, data, marks } = self.read(var, NcType::Int64)?;
        let data = data
            .chunks_exact(8)
            .map(|b| {
                (!marks.iter().any(|m| m.as_slice() == b)).then(|| i64::from_ne_bytes(b.try_into().unwrap_or_default()))
            })
            .collect();
        Ok(Table { shape, data })
    }

    fn strings(&mut self, var: &str) -> Result<Table<Option<String>>, String> {
        let (g, i) = self.find(var).ok_or_else(|| format!("no table variable {var}"))?;
        let v = &self.ds.groups[g].vars[i];
        match v.ty {
            NcType::Char => {
                let RawTable { mut shape, data, .. } = self.read(var, NcType::Char)?;
                let width = shape.pop().unwrap_or(1).max(1);
                let data = data
                    .chunks(width)
                    .map(|s| {
                        let t = String::from_utf8_lossy(s).trim_end_matches('\0').trim().to_string();
                        (!t.is_empty()).then_some(t)
                    })
                    .collect();
                Ok(Table { shape, data })
            }
            NcType::String => {
                let shape = self.ds.var_shape(v);
                let mut vals: Vec<Option<Vec<u8>>> = vec![None; table_len(&shape, var)?];
                self.read_whole(g, i, &shape, crate::engine::MemOut::Str(&mut vals))
                    .map_err(|e| format!("table variable {var} cannot be read: {e:?}"))?;
                let data = vals
                    .into_iter()
                    .map(|s| {
                        s.map(|b| String::from_utf8_lossy(&b).trim_end_matches('\0').trim().to_string())
                            .filter(|t| !t.is_empty())
                    })
                    .collect();
                Ok(Table { shape, data })
            }
            _ => Err(format!("table variable {var} is not text")),
        }
    }

    fn values(&mut self, var: &str) -> Result<Table<Option<Vec<u8>>>, String> {
        let ty = self.ty;
        if ty == NcType::String {
            return self.string_values(var);
        }
        if ty == NcType::Char && self.strings {
            let RawTable { mut shape, data, .. } = self.read(var, NcType::Char)?;
            let width = shape.pop().ok_or_else(|| format!("table {var} has no string length"))?;
            let data = data.chunks(width.max(1)).map(|s| Some(s.to_vec())).collect();
            return Ok(Table { shape, data });
        }
        let RawTable { shape, data, marks } = self.read(var, ty)?;
        let data = data
            .chunks_exact(ty.size())
            .map(|b| (!marks.iter().any(|m| m.as_slice() == b)).then(|| b.to_vec()))
            .collect();
        Ok(Table { shape, data })
    }

    fn text_att(&mut self, var: &str, att: &str) -> Option<String> {
        let (g, i) = self.find(var)?;
        self.ds.groups[g].vars[i].att(att).and_then(|a| text_of(&a.value))
    }

    fn exists(&mut self, var: &str) -> bool {
        self.find(var).is_some()
    }
}

/// One aggregation variable ready to be expanded.
struct Plan {
    grp: usize,
    var: usize,
    agg: parse::Aggregation,
    dimids: Vec<usize>,
    tables: Vec<(usize, usize)>,
    /// The group that holds the partition matrix (S3netCDF4), hidden too.
    group: Option<usize>,
}

/// Rewrite an opened master into the aggregation view. `ancestors` are the
/// masters whose fragment this dataset is (empty for one the caller opened).
pub fn expand(ds: &mut Dataset, master: &MasterAt, ancestors: &[String]) -> NcResult<()> {
    let mut plans = Vec::new();
    let mut kept_tables: HashSet<(usize, usize)> = HashSet::new();
    let mut names = BTreeSet::new();
    for g in 0..ds.groups.len() {
        for i in 0..ds.groups[g].vars.len() {
            let v = &ds.groups[g].vars[i];
            let Some(det) = parse::detect(&agg_atts(v)) else {
                continue;
            };
            let vname = v.name.clone();
            let log = |why: &str| {
                crate::nclog!(
                    crate::log::Level::Warn,
                    "{}: aggregation variable {vname} shown as stored: {why}",
                    master.uri
                );
            };
            match det {
                Detected::CfaGroup { dims, group } => {
                    let sub = ds.groups[g]
                        .children
                        .iter()
                        .copied()
                        .find(|&c| ds.groups[c].name == group);
                    let lens: Vec<Option<usize>> = dims
                        .iter()
                        .map(|d| find_dim(ds, g, d).map(|d| ds.dims[d].len))
                        .collect();
                    let result = match sub {
                        _ if !v.is_scalar() => Err("the aggregation variable is not a scalar".to_string()),
                        None => Err(format!("no group {group} holds its partition matrix")),
                        Some(sub) => {
                            let ty = v.ty;
                            let mut len = |d: &str| dims.iter().position(|x| x == d).and_then(|k| lens[k]);
                            let mut t = DsTables {
                                ds,
                                grp: sub,
                                ty,
                                exact: true,
                                strings: false,
                            };
                            parse::describe_cfa_group(&dims, &mut len, &mut t).map(|agg| (agg, sub))
                        }
                    };
                    match result {
                        Ok((agg, sub)) => {
                            let dimids = dims.iter().filter_map(|d| find_dim(ds, g, d)).collect();
                            names.insert(Encoding::S3Netcdf4.name().to_string());
                            plans.push(Plan {
                                grp: g,
                                var: i,
                                agg,
                                dimids,
                                tables: Vec::new(),
                                group: Some(sub),
                            });
                        }
                        Err(why) => log(&why),
                    }
                }
                Detected::Invalid(why) => log(&why),
                Detected::Cfa04 { dims, json } => {
                    let result = if v.is_scalar() {
                        parse::describe_cfa04(&dims, &json, &mut |d| find_dim(ds, g, d).map(|d| ds.dims[d].len))
                    } else {
                        Err("the aggregation variable is not a scalar".to_string())
                    };
                    match result {
                        Ok(agg) => {
                            let dimids = dims.iter().filter_map(|d| find_dim(ds, g, d)).collect();
                            names.insert(Encoding::Cfa04.name().to_string());
                            plans.push(Plan {
                                grp: g,
                                var: i,
                                agg,
                                dimids,
                                tables: Vec::new(),
                                group: None,
                            });
                        }
                        Err(why) => log(&why),
                    }
                }
                Detected::Terms { encoding, dims, roles } => {
                    let ty = v.ty;
                    let tables: Vec<(usize, usize)> =
                        roles.tables().iter().filter_map(|t| find_var(ds, g, t)).collect();
                    // A char variable may have one dimension of its own:
                    // its string length, not aggregated.
                    let strlen = match v.dimids.as_slice() {
                        [] => Ok(None),
                        [d] if ty == NcType::Char && !dims.contains(&ds.dims[*d].name) => Ok(Some(*d)),
                        _ => Err(
                            "the aggregation variable is not a scalar (nor a char variable with a string length)"
                                .to_string(),
                        ),
                    };
                    let result = strlen.and_then(|strlen| {
                        let mut t = DsTables {
                            ds,
                            grp: g,
                            ty,
                            exact: false,
                            strings: strlen.is_some(),
                        };
                        let mut agg = parse::describe(encoding, &dims, &roles, &mut t)?;
                        if let Some(d) = strlen {
                            let len = ds.dims[d].len;
                            agg.dims.push(ds.dims[d].name.clone());
                            agg.shape.push(len);
                            agg.sizes.push(vec![len]);
                            agg.padded_last = true;
                        }
                        Ok((agg, strlen))
                    });
                    match result {
                        Ok((agg, strlen)) => {
                            let dimids = dims.iter().filter_map(|d| find_dim(ds, g, d)).chain(strlen).collect();
                            names.insert(encoding.name().to_string());
                            plans.push(Plan {
                                grp: g,
                                var: i,
                                agg,
                                dimids,
                                tables,
                                group: None,
                            });
                        }
                        Err(why) => {
                            log(&why);
                            kept_tables.extend(tables);
                        }
                    }
                }
            }
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    ds.aggregation = Some(names.into_iter().collect::<Vec<_>>().join(", "));
    let mut chain = ancestors.to_vec();
    chain.push(master.uri.clone());
    let mut hidden: HashSet<(usize, usize)> = HashSet::new();
    let mut hidden_groups: HashSet<usize> = HashSet::new();
    for p in plans {
        hidden_groups.extend(p.group);
        let shape = p.agg.shape.clone();
        let v = &mut ds.groups[p.grp].vars[p.var];
        let units = v
            .att("units")
            .and_then(|a| text_of(&a.value))
            .map(|s| s.trim().to_string());
        let calendar = v.att("calendar").and_then(|a| text_of(&a.value));
        let src = source::AggSource::new(
            p.agg,
            v.ty,
            v.fill.clone(),
            units,
            master.base.clone(),
            master.uri.clone(),
            chain.clone(),
        )
        .with_calendar(calendar)
        .with_confined(master.confined);
        v.dimids = p.dimids;
        v.chunks = shape.iter().map(|&n| n.max(1)).collect();
        v.codecs.clear();
        v.contiguous = false;
        v.chain = None;
        let cfa_role = |a: &crate::model::Att| {
            a.name == "cf_role" && text_of(&a.value).is_some_and(|r| r.trim() == "cfa_variable")
        };
        v.atts
            .retain(|a| !(parse::AGG_ATT_NAMES.contains(&a.name.as_str()) || cfa_role(a)));
        v.external = Some(Arc::new(src));
        hidden.extend(
            p.tables
                .into_iter()
                .filter(|t| !kept_tables.contains(t) && *t != (p.grp, p.var)),
        );
    }
    ds.hide_vars(&hidden);
    ds.hide_groups(&hidden_groups);
    Ok(())
}
