#!/usr/bin/env python3
"""Insert `forward!(ncid => f(args));` at the top of every extern "C" export
that takes an `ncid` and lacks it (maintenance tool for src/ffi/*.rs)."""
import re, sys

SKIP = {"nc_close", "nc_abort", "nc_def_grp", "nc_inq_grps", "nc_inq_ncid", "nc_inq_grp_ncid",
        "nc_inq_grp_full_ncid", "nc_inq_grp_parent", "nc_copy_att", "nc_copy_var", "nc_inq_type_equal"}
SIG = re.compile(r'pub (?:unsafe )?extern "C" fn (\$?\w+)\s*\((.*?)\)\s*->\s*c_int\s*\{\n', re.S)

def params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur); cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.split(":")[0].strip() for p in out if p.strip()]

for path in sys.argv[1:]:
    src = open(path).read()
    res, pos, n = [], 0, 0
    for m in SIG.finditer(src):
        name, names = m.group(1), params(m.group(2))
        if "ncid" not in names or name in SKIP:
            continue
        body_start = m.end()
        if src[body_start:body_start + 400].lstrip().startswith("forward!(") or \
           "forward!(" in src[body_start:body_start + 200].split("\n")[0]:
            continue
        indent = re.match(r"[ \t]*", src[body_start:]).group(0) or "    "
        line = f"{indent}forward!(ncid => {name}({', '.join(names)}));\n"
        res.append(src[pos:body_start]); res.append(line); pos = body_start; n += 1
    res.append(src[pos:])
    out = "".join(res)
    if n:
        if "delegate::forward" not in out and "use super::delegate::{" not in out:
            out = out.replace("\nuse ", "\nuse super::delegate::forward;\nuse ", 1)
        open(path, "w").write(out)
    print(f"{path}: {n} exports now forward")
