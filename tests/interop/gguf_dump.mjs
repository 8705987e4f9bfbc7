// Parse a GGUF file with @huggingface/gguf (a parser we did not write) and print JSON:
//   {version, tensor_count, kv_count, tensor_data_offset, parameter_count,
//    metadata: [{key, type, type_name, value | element_type, count, items}],
//    tensors: [{name, n_dims, shape, dtype, dtype_name, offset, abs_offset}]}
// Scalars carry their value (64-bit integers as decimal strings), arrays their element
// type, count and first 8 items.  `shape` is as the file states it (fastest first);
// `offset` is relative to the data section, `abs_offset` absolute in the file.
// Usage: node gguf_dump.mjs FILE.gguf   (resolve @huggingface/gguf via NODE_PATH or a
//        node_modules next to / above this script's working directory)
import { loadModule } from "./load-module.mjs";
import path from "node:path";
import process from "node:process";

const file = process.argv[2];
if (!file) {
    console.error("usage: node gguf_dump.mjs FILE.gguf");
    process.exit(2);
}


const TYPE_NAMES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
    "string", "array", "uint64", "int64", "float64"];

function jsonValue(v) {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (Array.isArray(v)) return v.map(jsonValue);
    return v;
}

const lib = await loadModule("@huggingface/gguf");
const { gguf, GGMLQuantizationType } = lib;
const res = await gguf(path.resolve(file), {
    allowLocalFile: true,
    typedMetadata: true,
    computeParametersCount: true,
});

const pseudo = new Set(["version", "tensor_count", "kv_count"]);
const metadata = [];
for (const [key, entry] of Object.entries(res.typedMetadata)) {
    if (pseudo.has(key)) continue;
    const item = { key, type: entry.type, type_name: TYPE_NAMES[entry.type] ?? `type${entry.type}` };
    if (entry.type === 9) {
        const arr = entry.value;
        item.element_type = entry.subType;
        item.element_type_name = TYPE_NAMES[entry.subType] ?? `type${entry.subType}`;
        item.count = arr.length;
        item.items = arr.slice(0, 8).map(jsonValue);
    } else {
        item.value = jsonValue(entry.value);
    }
    metadata.push(item);
}

const base = BigInt(res.tensorDataOffset);
const tensors = res.tensorInfos.map((t) => ({
    name: t.name,
    n_dims: t.n_dims,
    shape: t.shape.map((d) => Number(d)),
    dtype: t.dtype,
    dtype_name: GGMLQuantizationType?.[t.dtype] ?? `type${t.dtype}`,
    offset: t.offset.toString(),
    abs_offset: (base + BigInt(t.offset)).toString(),
}));

const out = {
    version: Number(res.metadata.version),
    tensor_count: res.metadata.tensor_count.toString(),
    kv_count: res.metadata.kv_count.toString(),
    tensor_data_offset: base.toString(),
    parameter_count: res.parameterCount,
    little_endian: res.littleEndian,
    metadata,
    tensors,
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
